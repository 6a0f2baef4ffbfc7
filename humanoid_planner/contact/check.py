"""Independent check of a contact plan (every plan the tests produce is checked; the transition rule
of Escande 2008, §5.3.1.3, is acceptance test 001 A11). `check_plan(planner, plan)` returns the list
of what is wrong (empty: the plan holds), computed from the forward kinematics and the robot's own
collision geometry, not from the planner's constraint rows, so a wrong constraint in the planner
shows here:

- consecutive stances differ by exactly one contact, the node kinds agree (an ``added`` node has
  one contact more than its father, a ``released`` one less);
- the transition rule (Escande 2008, §5.3.1.3, (5.20)-(5.22)): every witness posture holds the
  contacts of the larger stance of its pair (contact point within ``position_tol`` of E, frame axes
  within ``angle_tol`` of (d_E, b_E, n_E); a deformable contact's normal and tangent within its
  angle plus ``angle_tol``) and has its CoM at least the planner's margin (less ``position_tol``)
  inside the support polygon of the smaller stance's load-bearing contacts (each contact's hull
  placed by the forward kinematics, a deformable contact's laid on its surface at the contact,
  clipped by its surface polygon, projected, convex hull: `scipy.spatial.ConvexHull`, not
  `posture.support_polygon`); with the "forces" stability the witness's contact forces are not kept
  by the nodes, so stability is not re-checked there;
- joint limits, kept the planner's ``joint_margin`` inside; the planner's extra tasks (§6.5)
  within the solver tolerance;
- collision: every geometry object of the robot's collision model at a distance >= 0 from every
  obstacle of the planner (coal on the URDF shapes, not the capsules), except the geometries of a
  contact's body (and of the bodies below it without a contact location) against the obstacle
  its surface lies on;
- self-collision, with the planner's own model whether or not the plan is made with it: every
  geometry pair of `posture.constraints.geometry_self_collision.geometry_pairs` (coal on the URDF
  shapes: the simulator's pairs, bodies at least three joints apart, with the collision rules) at
  least its margin (the planner's ``collision_margin``, 0 for pairs closer at the default posture;
  less ``position_tol``) apart;
- the goal posture holds the last stance (contacts and stability) and its goal tasks.

Tolerances (chosen): ``position_tol`` 1e-5 m (10 x the posture generator's 1e-6), ``angle_tol`` 1e-4
rad (chosen: the frame alignment of acceptance test 001 A9). The other checks of a plan (its
trajectory, `motion`) extend the returned list.
"""

from __future__ import annotations

import math

import numpy as np
import pinocchio as pin
from scipy.spatial import ConvexHull, QhullError

from humanoid_model.coal_import import coal
from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.constraints.geometry_self_collision import GeometrySelfCollision

from .boxes import clip_polygon
from .feasibility import HORIZONTAL
from .node import ADDED, RELEASED

__all__ = ["check_plan", "motion_problems", "start_collisions", "witness_collisions", "witness_errors"]

POSITION_TOL = 1e-5  #: m, chosen (module docstring)
ANGLE_TOL = 1e-4  #: rad, chosen (module docstring)


def _environment_frame(surf, contact) -> tuple[np.ndarray, np.ndarray]:
    """(E (3,), R_env (3, 3) = [d_E, b_E, n_E]): the contact's point and frame on ``surf`` from
    (x, y, theta)."""
    t, s, n = surf.rotation.T
    dE = np.cos(contact.theta) * t + np.sin(contact.theta) * s
    return surf.centroid + contact.x * t + contact.y * s, np.column_stack([dE, np.cross(n, dE), n])


def _location_frame(loc) -> np.ndarray:
    """[d_P, b_P, n_P] (3, 3): the contact location's frame in its body."""
    nP, dP = np.asarray(loc.normal, float), np.asarray(loc.tangent, float)
    return np.column_stack([dP, np.cross(nP, dP), nP])


def witness_errors(robot, surfaces, q, contact, deformable: bool = False) -> tuple[float, float]:
    """(position error [m], frame misalignment [rad]) of ``contact`` at ``q``: the location's frame
    by the forward kinematics against (E, d_E, b_E, n_E) built from the surface and (x, y, theta).
    ``deformable``: the misalignment is the larger of the angles between the normals and between
    the tangents (what a deformable contact bounds), not the whole rotation's."""
    m = robot.model
    d = m.createData()
    pin.framesForwardKinematics(m, d, q)
    loc = robot.contact_locations[contact.location]
    M = d.oMf[m.getFrameId(loc.body)]
    E, R_env = _environment_frame(surfaces[contact.surface], contact)
    R_rob = M.rotation @ _location_frame(loc)
    err = float(np.linalg.norm(M.act(np.asarray(loc.point, float)) - E))
    if deformable:
        cosines = np.clip([R_env[:, 2] @ R_rob[:, 2], R_env[:, 0] @ R_rob[:, 0]], -1.0, 1.0)
        return err, max(math.acos(c) for c in cosines)  # libm: the same bits on every processor
    return err, float(np.linalg.norm(pin.log3(R_env.T @ R_rob)))


def _conformed_hull(robot, surfaces, contact) -> np.ndarray:
    """The hull points (k, 3) [m] of ``contact``'s location laid on its surface at the contact's
    frame (E, d_E, b_E, n_E): where a deformable contact's surface rests, whatever its body's tilt."""
    loc = robot.contact_locations[contact.location]
    E, R_env = _environment_frame(surfaces[contact.surface], contact)
    return E + (np.asarray(loc.hull, float) - np.asarray(loc.point, float)) @ _location_frame(loc) @ R_env.T


def com_depth(robot, surfaces, q, contacts, deformable=()) -> float:
    """Signed depth [m] of the CoM's horizontal projection inside the support polygon of the
    load-bearing (horizontal) ``contacts`` at ``q`` (> 0 inside; -inf without support): each
    hull placed by the forward kinematics, the ``deformable`` locations' laid on their surface
    at the contact (`_conformed_hull`: a deformable contact's surface conforms to the
    environment's; its body may be tilted and turned by its angle)."""
    m = robot.model
    d = m.createData()
    pin.framesForwardKinematics(m, d, q)
    pts = []
    for c in contacts:
        surf = surfaces[c.surface]
        if surf.normal[2] < np.cos(HORIZONTAL):
            continue
        loc = robot.contact_locations[c.location]
        M = d.oMf[m.getFrameId(loc.body)]
        t, s, _ = surf.rotation.T
        world = _conformed_hull(robot, surfaces, c) if c.location in deformable else [M.act(h) for h in loc.hull]
        P = np.array([[(np.asarray(w, float) - surf.centroid) @ a for a in (t, s)] for w in world])
        if len(P) > 2:
            P = P[ConvexHull(P).vertices] if np.linalg.matrix_rank(P - P[0]) == 2 else P
        V = (surf.vertices - surf.centroid) @ np.column_stack([t, s])
        E = np.roll(V, -1, axis=0) - V
        for v, e in zip(V, E):  # clip by the surface polygon (counter-clockwise: inside on the left)
            a = np.array([e[1], -e[0]])
            P = clip_polygon(P, a, float(a @ v)) if len(P) > 2 else P
        pts += [(surf.centroid + p[0] * t + p[1] * s)[:2] for p in P]
    if len(pts) < 3:
        return -np.inf
    try:
        hull = ConvexHull(np.array(pts))
    except QhullError:
        return -np.inf
    g = pin.centerOfMass(m, d, q)[:2]
    return float(-np.max(hull.equations[:, :2] @ g + hull.equations[:, 2]))


class _Collisions:
    """coal distances between the robot's collision geometries and the planner's obstacles."""

    def __init__(self, planner):
        feas = planner.feas
        self.robot, self.feas = planner.robot, feas
        self.obstacles = feas.obstacles
        cm = self.robot.collision_model
        m = self.robot.model
        self.geoms = [(g.name, m.names[g.parentJoint], g.geometry) for g in cm.geometryObjects]
        self.cm, self.gd = cm, pin.GeometryData(cm)
        self.self_rows = GeometrySelfCollision(
            m, cm, self.robot.q(), planner.s.collision_margin, rules=feas.collision_rules
        )

    def self_problems(self, q, label, margins=True) -> list[str]:
        """The self pairs closer than their margin (``margins``) or overlapping (not ``margins``)."""
        m = self.robot.model
        data = m.createData()
        kin.update(m, data, q)
        sc = self.self_rows
        d = sc.distances(data)[0] if sc.dim else np.zeros(0)
        bound = sc.margin if margins else np.zeros(sc.dim)
        out = []
        for r in np.flatnonzero(d < bound - POSITION_TOL):
            a, b = sc.body_names(r)
            if margins:
                out.append(f"{label}: geometries {a} and {b} {d[r]:.4f} m apart (margin {sc.margin[r]} m)")
            else:
                out.append(f"{label}: geometries {a} and {b} overlap by {-d[r]:.4f} m")
        return out

    def problems(self, q, geometric, label, margins=True) -> list[str]:
        """Obstacle penetrations (``geometric``'s pairs left out) and `self_problems`."""
        if not self.obstacles:
            return self.self_problems(q, label, margins)
        m = self.robot.model
        d = m.createData()
        pin.framesForwardKinematics(m, d, q)
        pin.updateGeometryPlacements(m, d, self.cm, self.gd)
        skip = set()
        for c in geometric:
            obstacle = self.feas.surfaces[c.surface].body
            skip |= {(j, obstacle) for j in self.feas.touching[c.location]} if obstacle else set()
        out = []
        req, res = coal.DistanceRequest(), coal.DistanceResult()
        for k, (name, joint, shape) in enumerate(self.geoms):
            M = self.gd.oMg[k]
            T = coal.Transform3s(M.rotation, M.translation)
            for o in self.obstacles:
                if (joint, o.name) in skip:
                    continue
                res.clear()
                dist = coal.distance(shape, T, o.shape, o.transform, req, res)
                if dist < -(0.0 if margins else POSITION_TOL):
                    out.append(f"{label}: geometry {name} penetrates obstacle {o.name} by {-dist:.4f} m")
        return out + self.self_problems(q, label, margins)


def _witness(planner, q, geometric, stable, label, collisions) -> list[str]:
    robot, surfaces, s = planner.robot, planner.feas.surfaces, planner.s
    out = []
    lo, hi = robot.q_lower, robot.q_upper
    if np.any(q[7:] < lo - 1e-9) or np.any(q[7:] > hi + 1e-9):
        out.append(f"{label}: outside the joint limits")
    else:
        m = np.minimum(s.joint_margin, (hi - lo) / 2) - 1e-9
        if np.any(q[7:] < lo + m) or np.any(q[7:] > hi - m):
            out.append(f"{label}: within the planner's joint margin {s.joint_margin} rad of a joint limit")
    for c in geometric:
        allowed = planner.feas.max_angle(c.location)  # a deformable contact's tilt and turn
        dp, ang = witness_errors(robot, surfaces, q, c, deformable=allowed > 0)
        if dp > POSITION_TOL or ang > ANGLE_TOL + allowed:
            out.append(f"{label}: contact {c.location}/{c.surface} off by {dp:.2e} m, {ang:.2e} rad")
    depth = com_depth(robot, surfaces, q, stable, planner.feas.deformable) if s.stability == "com" else np.inf
    if depth < s.margin - POSITION_TOL:
        out.append(f"{label}: CoM {depth:.4f} m inside the support polygon (margin {s.margin} m)")
    data = robot.model.createData()
    pin.computeJointJacobians(robot.model, data, q)
    pin.updateFramePlacements(robot.model, data)
    pin.jacobianCenterOfMass(robot.model, data, q, False)
    for t in planner.feas.tasks:
        v = t.violation(q, data)
        if v.size and v.max() > s.solver.tolerance * 10:
            out.append(f"{label}: task {t.name} violated by {v.max():.2e}")
    return out + collisions.problems(q, geometric, label)


def check_plan(planner, plan) -> list[str]:
    """What is wrong with ``plan`` (a `search.Plan` of ``planner``, a `search.ContactPlanner`):
    an empty list when every check of the module docstring holds."""
    if not plan.success:
        return [f"no plan: {plan.reason}"]
    out = []
    collisions = _Collisions(planner)
    nodes = plan.nodes
    root = nodes[0]
    out += _witness(planner, root.q, root.stance.contacts, root.stance.contacts, "node 0", collisions)
    for i, (a, b) in enumerate(zip(nodes, nodes[1:]), start=1):
        if not a.stance.differs_by_one(b.stance):
            out.append(
                f"node {i}: stances {a.stance.locations} -> {b.stance.locations} differ by more than one contact"
            )
            continue
        grew = len(b.stance) > len(a.stance)
        if (b.kind == ADDED) != grew or (b.kind == RELEASED) == grew:
            out.append(f"node {i}: kind {b.kind} but the stance {'grew' if grew else 'shrank'}")
        larger, smaller = (b, a) if grew else (a, b)
        out += _witness(planner, b.q, larger.stance.contacts, smaller.stance.contacts, f"node {i}", collisions)
    last = nodes[-1].stance.contacts
    out += _witness(planner, plan.goal_q, last, last, "goal posture", collisions)
    data = planner.robot.model.createData()
    pin.computeJointJacobians(planner.robot.model, data, plan.goal_q)
    pin.updateFramePlacements(planner.robot.model, data)
    pin.jacobianCenterOfMass(planner.robot.model, data, plan.goal_q, False)
    for t in planner.goal_tasks:
        v = t.violation(plan.goal_q, data)
        if v.size and v.max() > planner.s.solver.tolerance * 10:
            out.append(f"goal posture: goal task {t.name} violated by {v.max():.2e}")
    return out


def witness_collisions(planner):
    """``collide(q, geometric) -> list[str]``: the collisions `check_plan` finds at a witness
    posture ``q`` holding the contacts ``geometric`` (its geometries inside an obstacle, the
    contacts' pairs left out, or two of them closer than their self-collision margin); for the
    search's path check (`motion.path_check`)."""
    collisions = _Collisions(planner)
    return lambda q, geometric: collisions.problems(q, geometric, "witness")


def start_collisions(planner, q, contacts) -> list[str]:
    """The collisions of the start posture ``q`` of ``planner``'s problem: its robot's geometries
    inside an obstacle or overlapping each other by more than ``POSITION_TOL`` (the pairs of the
    start stance's ``contacts`` left out; no margins asked). An empty list: none."""
    return _Collisions(planner).problems(q, contacts, "start posture", margins=False)


def motion_problems(planner, motion, stride: int = 1) -> list[str]:
    """Collisions along ``motion`` (a `humanoid_planner.motion.Motion` of one of ``planner``'s
    plans) at every ``stride``-th sample of each segment (the lead-in included) and at its last:
    a geometry of the robot's collision model inside an obstacle (coal on the URDF shapes, as
    `check_plan`; the pairs of the segment's held, leaving and arriving contacts left out) or two
    overlapping (the pairs of `posture.constraints.geometry_self_collision.geometry_pairs`), by more than
    ``POSITION_TOL``. The planner's margins (1 cm) are not asked of the samples: the projections
    keep them at the knots and the path between them within half of them (`motion.generate`); what
    is asked is no contact. An empty list: none found. Cost: ~2 ms a sample on HRP-2 (Python loop
    over the coal pairs)."""
    if stride < 1:
        raise ValueError(f"motion_problems: field 'stride' must be >= 1; value {stride!r}")
    collisions = _Collisions(planner)
    out = []
    for seg, t0, t1 in motion.windows():
        window = np.flatnonzero((motion.t >= t0 - 1e-9) & (motion.t <= t1 + 1e-9))
        picked = np.union1d(window[::stride], window[-1:])
        for i in picked:
            out += collisions.problems(
                motion.q[i], seg.contacts, f"segment {seg.index} sample {i} (t = {motion.t[i]:.3f} s)", margins=False
            )
    return out
