"""A robot controller in the loop of a `World`: each step the controller reads the measured state
and the measured contact forces, the world applies its torques, and the run's measurements are
logged (what an execution report needs: CoM, contact loads and their centres of pressure, friction
use, torque saturation, falls).

    loop = ClosedLoop(world, controller, locations={"l_sole": ..., "r_sole": ...})
    log = loop.run(duration=12.0, recorder=rec, progress=callback)
    log.t, log.com, log.cop_margin["l_sole"], log.fell, log.fall_reason

The controller is any object with ``update(t, q, v, contact_forces) -> command`` (or None: the
world's own actuator runs, a PD following a joint trajectory for instance) where ``q``
(nq,) and ``v`` (nv,) are the robot's configuration and velocity (the world's robot tree), and
``contact_forces`` maps each contact location to the measured normal force on its link [N] (the
sum over that link's contacts with anything but the robot: what a force sensor at the link's joint
measures of its contacts); the command has ``tau`` (the actuated joints' torques [N·m]) and
``solved`` (bool). The world's actuator is switched to torque mode.

Measurements per step (after the step, from its contacts):

- the robot's CoM (3,) and its base's position and tilt (the angle of its z axis to the vertical);
- per location: the normal force [N] along the location's normal on its link and the links that
  link carries (a hand and its jaw) and, when it carries at least
  `MIN_LOAD` of the robot's weight, the centre of pressure's signed distance to the edges of the
  location's surface (positive inside, [m], as `humanoid_model.planar_polygon.signed_distance`) and
  its force-to-cone ratio ‖f_t‖ / (μ f_n) of the resultant (1: on the friction cone's boundary:
  the location slides);
- the largest torque-to-limit ratio |τ_j| / τ_max,j of the applied torques;
- the base's orientation and each location's contact point (3,) in the world [m];
- the first time each other robot link carries at least `MIN_LOAD` on the environment, and on
  what (``touches``: (t, link, the bodies it touches)).

A fall ends the run (``fell``, ``fall_reason``): the base tilted beyond `FALL_TILT`, its height
below `FALL_HEIGHT` of its start height above its lowest contact, or a robot link other than the
locations' links (and the ``allowed`` links) carrying at least `MIN_LOAD` of the weight on the
environment for `FALL_TOUCH` seconds (a knee on the floor; a finger grazing the table is not a
fall). With ``fall_on_touch=False`` only the base's rules end a run: a robot played through its
falls, whose touches are then what the run shows (a leg against a table).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin
from numba import njit

from humanoid_model.planar_polygon import convex_hull

__all__ = [
    "ClosedLoop",
    "ClosedLoopLog",
    "ContactMeasurement",
    "base_fall",
    "FALL_TILT",
    "FALL_HEIGHT",
    "FALL_TOUCH",
    "MIN_LOAD",
]

FALL_TILT = math.radians(60.0)  # (chosen) a base tilted more has fallen (the plans' bases lean < 30 deg)
FALL_HEIGHT = 0.5  # (chosen) a base lower than half its start height has fallen (HRP-2 kneels at ~0.6)
FALL_TOUCH = 0.05  # [s] (chosen) a link outside the motion's contacts touching this long: a fall, not a graze


def base_fall(z: float, ground: float, tilt: float, h0: float | None) -> str:
    """The base's fall rules: why a base at height ``z`` [m] over a ground at ``ground`` [m], its z axis
    ``tilt`` [rad] off the vertical, has fallen (tilted beyond `FALL_TILT`, or lower than `FALL_HEIGHT`
    of its start height ``h0`` above the ground; None: not checked), or "" when it has not."""
    if tilt > FALL_TILT:
        return f"the base tilted {math.degrees(tilt):.0f} deg (more than {math.degrees(FALL_TILT):.0f})"
    if h0 is not None and z - ground < FALL_HEIGHT * h0:
        return f"the base dropped to {z:.3f} m (below {FALL_HEIGHT:g} of its start height)"
    return ""


MIN_LOAD = 0.1  # (chosen) of the weight: a location carrying less does not hold the robot (a foot touching down)


@dataclass
class ClosedLoopLog:
    """The measurements of a run, one row per step (module docstring); ``locations`` the names
    of ``forces`` and ``cop_margin`` columns (NaN where a location carries less than MIN_LOAD)."""

    locations: list
    t: list = field(default_factory=list)
    com: list = field(default_factory=list)
    base: list = field(default_factory=list)
    orientation: list = field(default_factory=list)  # the base's quaternion (x, y, z, w)
    contact_points: list = field(default_factory=list)  # (n_locations, 3) each location's contact point [m]
    tilt: list = field(default_factory=list)
    forces: list = field(default_factory=list)
    cop_margin: list = field(default_factory=list)
    cone_ratio: list = field(default_factory=list)  # per location
    torque_ratio: list = field(default_factory=list)
    solved: list = field(default_factory=list)
    cycle_time: list = field(default_factory=list)
    step_time: list = field(default_factory=list)
    touches: list = field(default_factory=list)  # (t [s], link, [bodies]) at each other link's first touch
    fell: bool = False
    fall_reason: str = ""
    wall_time: float = 0.0

    def arrays(self) -> dict:
        """The logged columns as numpy arrays."""
        return {
            k: np.asarray(getattr(self, k))
            for k in (
                "t",
                "com",
                "base",
                "orientation",
                "contact_points",
                "tilt",
                "forces",
                "cop_margin",
                "cone_ratio",
                "torque_ratio",
                "solved",
                "cycle_time",
                "step_time",
            )
        }


def _carried_links(model, link: str) -> set:
    """``link`` and the links it carries (its descendants: a hand's jaw), by name."""
    fid = model.getFrameId(link)
    if fid >= model.nframes:
        return {link}
    root = model.frames[fid].parentJoint
    joints = {root}
    for j in range(root + 1, model.njoints):  # Pinocchio orders joints parents first
        if model.parents[j] in joints:
            joints.add(j)
    names = {f.name for f in model.frames if f.type == pin.FrameType.BODY and f.parentJoint in joints}
    return names | {link}


class ContactMeasurement:
    """What a force sensor at each contact location's link would read of the robot's contacts with
    its environment after a step of ``world`` (module docstring): ``locations`` name ->
    `humanoid_model.contact_location.ContactLocation`; ``allowed``: further links that may touch
    the environment. `read` after each step."""

    def __init__(self, world, locations: dict, allowed=()):
        if world.robot is None:
            from humanoid_model.exceptions import ConfigError

            raise ConfigError("contact measurement: the world has no robot")
        self.world = world
        self.locations = dict(locations)
        robot = world.robot
        self.model, self.nq = robot.model, robot.model.nq
        self.data = robot.model.createData()
        self.names = list(self.locations)
        self._carried = {n: _carried_links(robot.model, loc.body) for n, loc in self.locations.items()}
        self.allowed = set().union(*self._carried.values()) | set(allowed) if self._carried else set(allowed)
        # each mobile geometry's robot link as an index into self._links (-1: a free body's)
        self._links = sorted({g.body for g in world.mobile if g.tree == 0})
        index = {name: i for i, name in enumerate(self._links)}
        self._geom_link = np.array([index[g.body] if g.tree == 0 else -1 for g in world.mobile], np.int64)
        self._allowed_link = np.array([name in self.allowed for name in self._links] + [True])
        self._link_mask = {}  # location -> (n_links,) bool: its link and the links it carries
        for n in self.names:
            mask = np.zeros(len(self._links) + 1, bool)  # the last entry: "no link" (-1)
            mask[[index[b] for b in self._carried[n] if b in index]] = True
            self._link_mask[n] = mask
        self._fid = {n: robot.frame_id(loc.body) for n, loc in self.locations.items()}
        self._hulls = {}
        for n, loc in self.locations.items():  # each surface in its own plane: (origin, axes (3, 2), hull (k, 2))
            normal = np.asarray(loc.normal, float) / np.linalg.norm(loc.normal)
            t = np.asarray(loc.tangent, float)
            axes = np.column_stack([t, np.cross(normal, t)])
            pts = (np.asarray(loc.hull, float) - loc.point) @ axes
            hull = convex_hull(pts) if len(pts) >= 3 else None
            edges = None
            if hull is not None and len(hull) >= 3:
                e = np.roll(hull, -1, axis=0) - hull
                edges = (hull, e / np.linalg.norm(e, axis=1)[:, None])
            self._hulls[n] = (np.asarray(loc.point, float), axes, normal, edges)
        self.weight = robot.mass * float(np.linalg.norm(world.model.gravity.linear))
        self.forces = dict.fromkeys(self.names, 0.0)
        # the same per location, stacked for `_location_loads` (edges padded to the longest hull)
        n_loc, k = len(self.names), max([len(h[3][0]) for h in self._hulls.values() if h[3] is not None] + [1])
        self._masks = np.array([self._link_mask[n] for n in self.names], bool).reshape(n_loc, len(self._links) + 1)
        self._origin, self._normal = np.zeros((n_loc, 3)), np.zeros((n_loc, 3))
        self._axes, self._corner, self._edge = np.zeros((n_loc, 3, 2)), np.zeros((n_loc, k, 2)), np.zeros((n_loc, k, 2))
        self._n_edges = np.zeros(n_loc, np.int64)  # 0: no CoP margin (a point or a line)
        for i, n in enumerate(self.names):
            origin, axes, normal, edges = self._hulls[n]
            self._origin[i], self._axes[i], self._normal[i] = origin, axes, normal
            if edges is not None:
                self._n_edges[i] = len(edges[0])
                self._corner[i, : len(edges[0])], self._edge[i, : len(edges[0])] = edges
        self._rotation, self._translation = np.zeros((n_loc, 3, 3)), np.zeros((n_loc, 3))

    def read(self):
        """(CoM (3,), per location: normal force, CoP margin, cone ratio; the other links loaded on
        the environment) after the world's last step; ``forces`` keeps the normal forces."""
        q = self.world.q[: self.nq]
        com = pin.centerOfMass(self.model, self.data, q, False).copy()
        pin.updateFramePlacements(self.model, self.data)
        for i, n in enumerate(self.names):
            M = self.data.oMf[self._fid[n]]
            self._rotation[i], self._translation[i] = M.rotation, M.translation
        forces, margins, cones, others = self._contacts()
        self.forces = forces
        return com, forces, margins, cones, others

    def origins(self) -> np.ndarray:
        """(n_locations, 3) each location's contact point (its contact frame's origin, ``point`` on its
        link) in the world [m], as of the last `read`."""
        return np.einsum("kij,kj->ki", self._rotation, self._origin) + self._translation

    def _contacts(self):
        """(per location: normal force, CoP margin, cone ratio; the other links touching)."""
        forces = dict.fromkeys(self.names, 0.0)
        margins = dict.fromkeys(self.names, np.nan)
        cones = dict.fromkeys(self.names, np.nan)
        last = self.world.last
        if last is None or last.m == 0:
            return forces, margins, cones, set()
        b = last.batch
        out, load = _location_loads(
            b.geom_a,
            b.geom_b,
            b.b_static,
            last.forces,
            last.frames,
            b.mu,
            b.points,
            self._geom_link,
            self._allowed_link,
            self._masks,
            self._rotation,
            self._translation,
            self._origin,
            self._axes,
            self._normal,
            self._corner,
            self._edge,
            self._n_edges,
            MIN_LOAD * self.weight,
        )
        for i, n in enumerate(self.names):
            forces[n], margins[n], cones[n] = float(out[i, 0]), float(out[i, 1]), float(out[i, 2])
        others = {self._links[i] for i in np.flatnonzero(load >= MIN_LOAD * self.weight)}
        return forces, margins, cones, others


@njit(cache=True)
def _location_loads(
    geom_a, geom_b, b_static, f_local, frames, mu, points, geom_link, allowed, masks, rot, trans, origin, axes,
    normal, corner, edge, n_edges, min_load,
):  # fmt: skip
    """The measurements of `ContactMeasurement.read` from one step's contacts, compiled (the numpy
    version took ~90 µs of a ~950 µs stairs cycle on the 2-core VM; `read` with this kernel, ~25 µs):
    ``out`` (n_locations, 3): each location's normal force, CoP margin and cone ratio (NaN where it
    carries less than ``min_load`` [N]), and ``load`` (n_links,): the normal force of the contacts
    of links that are not allowed to touch. Contacts: geometries ``geom_a``, ``geom_b`` (static
    when ``b_static``), forces ``f_local`` (m, 3) in their ``frames`` (m, 3, 3), friction ``mu``,
    world ``points``; ``geom_link``: each mobile geometry's robot link (-1: none), ``allowed`` the
    links that may touch (its last entry: none); per location: ``masks`` of its links, its link's
    world rotation and translation, the surface's ``origin``, in-plane ``axes`` (3, 2) and
    ``normal`` in the link's frame, its hull's ``corner`` and unit ``edge`` directions (first
    ``n_edges`` rows)."""
    m, n_loc = geom_a.shape[0], masks.shape[0]
    out = np.zeros((n_loc, 3))
    out[:, 1:] = np.nan
    load = np.zeros(allowed.shape[0] - 1)
    link = np.empty(m, np.int64)  # each contact's robot link against the environment (-1: not such a contact)
    sign = np.empty(m)  # +1: the robot is body A, -1: body B
    fw = np.empty((m, 3))  # world forces on body A
    for c in range(m):
        la = geom_link[geom_a[c]]
        lb = -1 if b_static[c] else geom_link[geom_b[c]]
        link[c] = la if la >= 0 else lb
        sign[c] = 1.0 if la >= 0 else -1.0
        if (la >= 0) == (lb >= 0):
            link[c] = -1
        for j in range(3):
            fw[c, j] = (
                f_local[c, 0] * frames[c, 0, j] + f_local[c, 1] * frames[c, 1, j] + f_local[c, 2] * frames[c, 2, j]
            )
        if link[c] >= 0 and not allowed[link[c]] and f_local[c, 0] > 0:
            load[link[c]] += f_local[c, 0]
    for i in range(n_loc):
        R, p = rot[i], trans[i]
        nw = np.zeros(3)  # the surface's normal in the world
        for j in range(3):
            nw[j] = R[j, 0] * normal[i, 0] + R[j, 1] * normal[i, 1] + R[j, 2] * normal[i, 2]
        fz_sum, total, mu_sum, count = 0.0, np.zeros(3), 0.0, 0
        cop_moment = np.zeros(2)  # Σ fz · (the point in the surface's plane)
        for c in range(m):
            if link[c] < 0 or not masks[i, link[c]]:
                continue
            fz = 0.0
            for j in range(3):
                fj = sign[c] * fw[c, j]
                fz += fj * nw[j]
                total[j] += fj
            fz_sum += fz
            mu_sum += mu[c]
            count += 1
            d = points[c] - p
            local = np.zeros(3)  # the point in the link's frame, from the surface's origin
            for j in range(3):
                local[j] = d[0] * R[0, j] + d[1] * R[1, j] + d[2] * R[2, j] - origin[i, j]
            for j in range(2):
                cop_moment[j] += fz * (local[0] * axes[i, 0, j] + local[1] * axes[i, 1, j] + local[2] * axes[i, 2, j])
        out[i, 0] = fz_sum
        if count == 0 or fz_sum < min_load:
            continue
        along = total[0] * nw[0] + total[1] * nw[1] + total[2] * nw[2]
        tangential = np.sqrt(np.sum((total - along * nw) ** 2))
        mean_mu = mu_sum / count
        out[i, 2] = tangential / (mean_mu * fz_sum) if mean_mu > 0 else 0.0
        if n_edges[i] > 0:
            cx, cy = cop_moment[0] / fz_sum, cop_moment[1] / fz_sum
            margin = np.inf
            for e in range(n_edges[i]):
                margin = min(margin, edge[i, e, 0] * (cy - corner[i, e, 1]) - edge[i, e, 1] * (cx - corner[i, e, 0]))
            out[i, 1] = margin
    return out, load


class ClosedLoop:
    """``controller`` in the loop of ``world`` (module docstring). ``locations``: contact
    location name -> `humanoid_model.contact_location.ContactLocation` of the world's robot;
    ``allowed``: further robot links that may touch the environment without counting as a fall;
    ``fall_on_touch``: False lets the other links touch without ending the run (module docstring)."""

    def __init__(self, world, controller, locations: dict, allowed=(), fall_on_touch: bool = True):
        self.measurement = ContactMeasurement(world, locations, allowed)
        self.fall_on_touch = bool(fall_on_touch)
        self.world, self.controller = world, controller
        robot = world.robot
        self.nq, self.nv = robot.model.nq, robot.model.nv
        self.names = self.measurement.names
        self.effort = np.asarray(robot.effort_max, float)
        if controller is not None:
            world.actuator.set_torque(np.zeros(world.n_act))
        self._touch_time = 0.0
        self._touched: set = set()
        self.h0 = None

    def _note_touches(self, log, others) -> None:
        """Log each other link's first touch: (time, link, the bodies it touches)."""
        for link in sorted(others - self._touched):
            self._touched.add(link)
            pairs = [(c["body_a"], c["body_b"]) for c in self.world.contact_list()]
            bodies = sorted({b for a, b in pairs if a == link} | {a for a, b in pairs if b == link})
            log.touches.append((float(self.world.t), link, bodies))

    def _fall(self, log, base, tilt, others) -> str:
        reason = base_fall(base[2], self._ground, tilt, self.h0)
        if reason:
            return reason
        if others and self.fall_on_touch:
            self._touch_time += self.world.dt
            if self._touch_time >= FALL_TOUCH:
                return f"{sorted(others)} touched the environment"
        else:
            self._touch_time = 0.0
        return ""

    # ------------------------------------------------------------------ run
    def run(self, duration: float, recorder=None, progress=None, done=None, before_step=None) -> ClosedLoopLog:
        """Step ``duration`` [s] of closed loop (or until ``done()`` is true, or a fall). Each
        step: ``before_step(world)`` (a scripted push, say), ``controller.update``, its torques,
        `World.step`, ``recorder.maybe_record()`` (a `humanoid_sim.runtime.recording.Recorder`),
        the measurements, ``progress(t)`` every 100 steps."""
        w, meas = self.world, self.measurement
        log = ClosedLoopLog(self.names)
        steps = int(round(duration / w.dt))
        t_wall = time.perf_counter()
        _, forces, _, _, _ = meas.read()
        lows = [meas.data.oMf[meas._fid[n]].translation[2] for n in self.names]
        self._ground = min(lows) if lows else 0.0
        self.h0 = w.q[2] - self._ground
        for k in range(steps):
            if before_step is not None:
                before_step(w)
            cmd = None
            if self.controller is not None:
                q, v = w.q[: self.nq], w.v[: self.nv]
                cmd = self.controller.update(w.t, q.copy(), v.copy(), forces)
                w.actuator.set_torque(cmd.tau)
            t_step = time.perf_counter()
            w.step()
            step_time = time.perf_counter() - t_step
            if recorder is not None:
                recorder.maybe_record()
            q = w.q[: self.nq]
            com, forces, margins, cone, others = meas.read()
            R = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
            tilt = math.acos(max(-1.0, min(1.0, R[2, 2])))
            log.t.append(w.t)
            log.com.append(com)
            log.base.append(q[:3].copy())
            log.orientation.append(q[3:7].copy())
            log.contact_points.append(meas.origins())
            log.tilt.append(tilt)
            log.forces.append([forces[n] for n in self.names])
            log.cop_margin.append([margins[n] for n in self.names])
            log.cone_ratio.append([cone[n] for n in self.names])
            log.torque_ratio.append(float(np.max(np.abs(w.tau_applied) / self.effort)) if self.effort.size else 0.0)
            log.solved.append(bool(getattr(cmd, "solved", True)))
            log.cycle_time.append(float(getattr(cmd, "cycle_time", 0.0)))
            log.step_time.append(step_time)
            if others:
                self._note_touches(log, others)
            reason = self._fall(log, q[:3], tilt, others)
            if reason:
                log.fell, log.fall_reason = True, f"fell at t = {w.t:.3f} s: {reason}"
                break
            if progress is not None and k % 100 == 0:
                progress(w.t)
            if done is not None and done():
                break
        log.wall_time = time.perf_counter() - t_wall
        return log
