"""Motion from a contact plan (001_escande.md §6, A22 at :530): for each segment (`segments`),
k - 1 projections (`projection`) of the interpolated configurations

    p^{i,j} = interpolate(q^i, q^{i+1}, j / k),  j = 1 .. k - 1    (erratum 9, :29)

with the bodies that make or break a contact on their paths (`body_path`), then the sinusoidal
time law with the speed caps (`time_law`) at the control period. The result is a `Motion`: times
and full configurations (base + joints), the projections (knots) and the time of each witness
posture.

A projection that fails (`_accepted`: not SUCCESS, nor a line-search failure at a feasible
point) is retried once from p^{i,j} itself (clipped to the joint bounds) instead of the previous
projection (a refinement's, from the chord midpoint, first from the knot before it: BIP's stairs
motion met a refinement that neither the midpoint nor p^{i,j} led to, NO_PROGRESS 6.8 mm); the
last failure raises `PlanningError` naming the segment and step
(the thesis hand-corrected such cases, L3005). Every projection is logged in ``stats`` (purpose
"interpolation"; `contact.feasibility.Stats`).

Refinement (ours): between two projections the motion is interpolated, and a held contact may
drift there (the manifold Q_s curves between the knots), and so may an extra task of the scene
(the glass scene's vertical hand: 7e-4 between knots where A21 asks 1e-4 of every posture). The
k uniform projections are followed by one more at the middle of every piece whose chord midpoint
(`pin.interpolate`) lets a held contact point drift farther than ``drift`` from its contact, or
a task row by more than ``task_tolerance``, recursively (at most ``refinements`` halvings of a
piece); then, since the sampled path is the time law's spline through the knots
(`time_law.spline_path`), which can bulge beyond the chords, the same test at a quarter, half and
three quarters of each piece of the spline, in rounds (at most ``refinements``). A refinement
projects the chord's (the spline's) midpoint itself, at the piece's middle u, not p(u): where
the projections switch branches between two knots (the can's right arm at its wrist limit turned
its elbow 1 rad between two of them, and the held soles slid 2.6 mm along that chord), p(u)
lands on either side at every halving, the midpoint of the two knots between them. On the
stairs the uniform 20 let a stance sole drift 1.8 mm between knots during a long step (the flat
walk: 0.16 mm); the issue's bound is 1 mm.

Bodies with a path: see `body_paths` (the thesis's "only hands and feet", generalised by the
degrees of freedom between a moving body and the other contact bodies). Two fallbacks, tried in
turn where they change the paths. (1) A segment whose projections fail with a body's pose on its
path is generated again with the positions alone (stop 21): the point still leaves and lands along
the surface's normal over the straight segments, and the body's orientation is the projection's
(the witness's at both ends). On the under-table plan a right sole landing turned 1.70 rad, the
left hand and sole held, folded at the start of its landing segment (NO_PROGRESS at 2.7 cm, forward
and backward from both ends); with the position alone every projection succeeds. (2) A segment
whose projections fail with a position-only path (a body 3 to 5 joints from another contact body)
is generated again without those paths, as the thesis's hands-and-feet rule would (stop 20): on the
chair's seat-off the left thigh leaves the seat while the right thigh is held on it, both soles
held, and the thigh's 3 position rows with the other leg pinned at both ends left SLSQP a singular
subproblem (SEARCH_DIRECTION_FAILED at 4.4 mm at the first projection); without the path the
segment is followed (the glass scene's landing thigh keeps its path: its projections succeed).

Numbers: k = 20, the thesis's k_i (A22, 001_escande.md:530; its chair plan's 1,539 generations,
:453); ``drift`` 0.5 mm and ``refinements`` 4 (chosen: half the 1 mm bound, so the spline between
refined knots keeps under it; 4 halvings turn 20 pieces into up to 320); ``task_tolerance``
5e-5 (half A21's 1e-4); the speed caps, dt, the
approach length and the straight segments' share in `time_law` and `body_path`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
import pinocchio as pin

from humanoid_model.collision_rules import joints_between
from humanoid_planner.contact.feasibility import Stats
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.base import EQUALITY
from humanoid_planner.posture.outcome import Outcome

from .body_path import APPROACH, FRACTION, BodyPath
from .projection import project
from .segments import Segment, plan_segments
from .time_law import piece_costs, sinusoidal_samples, spline_path

__all__ = [
    "DRIFT",
    "POSE_FREEDOM",
    "POSITION_FREEDOM",
    "REFINEMENTS",
    "TASK_TOLERANCE",
    "Motion",
    "MotionSettings",
    "body_paths",
    "contact_drift",
    "freedom",
    "generate_motion",
    "task_error",
]

DRIFT = 5e-4  # [m] (chosen) half the 1 mm bound on a held contact's motion between projections
REFINEMENTS = 4  # (chosen) halvings of a piece at most: k = 20 pieces become up to 320
TASK_TOLERANCE = 5e-5  # (chosen) half A21's 1e-4 on the glass's vertical axis (001_escande.md:529), any task row
#: degrees of freedom a body needs relative to the other contact bodies for a prescribed pose (6)
#: or position (3) on its path (`body_paths`)
POSE_FREEDOM, POSITION_FREEDOM = 6, 3
SPLINE_CHECKS = (0.25, 0.5, 0.75)  # (chosen) where in a piece the spline through the knots is checked


@dataclass
class MotionSettings:
    """``steps`` k per segment; ``dt`` [s]; caps ``joint_speed`` [rad/s], ``base_speed`` [m/s],
    ``base_rotation_speed`` [rad/s]; ``approach`` [m] and ``fraction`` of the body paths; ``drift``
    [m], ``task_tolerance`` and ``refinements`` of the extra projections (module docstring)."""

    steps: int = 20
    dt: float = 0.005
    joint_speed: float = np.deg2rad(10.0)
    base_speed: float = 0.1
    base_rotation_speed: float = np.deg2rad(10.0)
    approach: float = APPROACH
    fraction: float = FRACTION
    drift: float = DRIFT
    refinements: int = REFINEMENTS
    task_tolerance: float = TASK_TOLERANCE

    def __post_init__(self):
        if not (isinstance(self.steps, (int, np.integer)) and self.steps >= 1):
            raise PlanningError(f"motion settings: field 'steps' must be an integer >= 1; value {self.steps!r}")
        for name in ("dt", "joint_speed", "base_speed", "base_rotation_speed"):
            v = getattr(self, name)
            if not (np.isfinite(v) and v > 0):
                raise PlanningError(f"motion settings: field '{name}' must be a finite number > 0; value {v!r}")


@dataclass
class Motion:
    """``t`` (m,) [s] and ``q`` (m, nq) at the control period; ``knots`` per segment the (k+1, nq)
    projections (witness postures at both ends); ``witness_times`` [s] the time of each segment's
    start and of the last end; ``segments`` (`Segment`); ``stats`` of the projections; wall ``time``."""

    t: np.ndarray
    q: np.ndarray
    knots: list
    witness_times: list
    segments: list
    stats: Stats = field(default_factory=Stats)
    time: float = 0.0


def _pose(feas, data, name, q):
    """(R (3, 3), position [m]) of location ``name``'s body and point at ``q``."""
    loc = feas.locations[name]
    pin.framesForwardKinematics(feas.model, data, q)
    M = data.oMf[feas.model.getFrameId(loc.body)]
    return M.rotation.copy(), M.act(np.asarray(loc.point, float))


def freedom(model, frame_a: str, frame_b: str) -> int:
    """The degrees of freedom of the joints on the tree path between the bodies of frames
    ``frame_a`` and ``frame_b``: what the robot has to move one body relative to the other (a
    thigh relative to its own sole: the knee and the two ankle axes, 3)."""
    a = model.frames[model.getFrameId(frame_a)].parentJoint
    b = model.frames[model.getFrameId(frame_b)].parentJoint
    return sum(model.joints[j].nv for j in joints_between(model.parents, a, b))


def body_paths(feas, seg: Segment, s: MotionSettings) -> dict:
    """Location -> `BodyPath` of the bodies moving in segment ``seg``: the pose where at least
    `POSE_FREEDOM` (6) degrees of freedom lie between the body and every other contact body of the
    segment (held or moving), the position alone where 3 to 5 do, no path below 3. The thesis
    gave paths to the hands and feet only, because more bodies over-constrain the projection,
    "e.g. two bodies of the same HRP-2 limb" (001_escande.md:390, L3007): a thigh landing on a
    seat while its own sole holds the robot has 3 joints to move it, and a prescribed pose (6
    rows) left its interpolated targets 1.4 mm off the reachable ones in the glass scene's plan."""
    data = feas.model.createData()
    bodies = {c.location: feas.locations[c.location].body for c in seg.fixed}
    bodies.update({name: feas.locations[name].body for name in seg.moving})
    out = {}
    for name in seg.moving:
        dof = min((freedom(feas.model, bodies[name], b) for n, b in bodies.items() if n != name), default=POSE_FREEDOM)
        if dof < POSITION_FREEDOM:
            continue
        R0, p0 = _pose(feas, data, name, seg.q_start)
        R1, p1 = _pose(feas, data, name, seg.q_end)
        n0 = feas.env_frame(seg.leaving).n if seg.leaving is not None and seg.leaving.location == name else None
        n1 = feas.env_frame(seg.arriving).n if seg.arriving is not None and seg.arriving.location == name else None
        out[name] = BodyPath(R0, p0, R1, p1, n0, n1, s.approach, s.fraction, orientation=dof >= POSE_FREEDOM)
    return out


def _accepted(res) -> bool:
    """A projection the motion takes: SUCCESS, or a line-search failure at a point that meets the
    constraints (SLSQP's exit 8: no descent direction for the criterion from a feasible iterate;
    seen where the warm start already is the projection, criterion 3e-13, on the glass scene's
    last segment)."""
    return res.success or res.outcome == Outcome.LINE_SEARCH_FAILURE and res.feasible


def _clipped(model, q) -> np.ndarray:
    """``q`` with its bounded coordinates clipped to the joint limits."""
    lo, hi = model.lowerPositionLimit, model.upperPositionLimit
    bounded = np.isfinite(lo) & np.isfinite(hi)
    out = np.array(q, float)
    out[bounded] = np.clip(out[bounded], lo[bounded], hi[bounded])
    return out


def _project(feas, seg: Segment, paths: dict, u: float, starts, stats: Stats, where: str, p=None):
    """The projection of ``p`` (default p(u), the segment's interpolation) at segment parameter
    ``u`` from the first of ``starts`` (configurations) that gives one, then from ``p`` itself
    (module docstring); `PlanningError` naming ``where`` when all fail."""
    model = feas.model
    p = pin.interpolate(model, seg.q_start, seg.q_end, u) if p is None else p
    targets = [(name, bp.rotation(u) if bp.orientation else None, bp.position(u)) for name, bp in paths.items()]
    for q0 in [*starts, _clipped(model, p)]:
        res = project(feas, seg.fixed, targets, p, q0)
        stats.log("interpolation", res)
        if _accepted(res):
            return res.q.copy()
    raise PlanningError(
        f"motion: segment {seg.index} {where}: projection failed "
        f"({res.outcome.name}, max violation {res.max_violation:.3g})"
    )


def contact_drift(feas, fixed, q, data=None) -> float:
    """The largest distance [m] at ``q`` of a contact location's point from its contact's point E,
    over the contacts ``fixed`` (forward kinematics)."""
    model = feas.model
    data = model.createData() if data is None else data
    pin.framesForwardKinematics(model, data, q)
    worst = 0.0
    for c in fixed:
        loc = feas.locations[c.location]
        p = data.oMf[model.getFrameId(loc.body)].act(np.asarray(loc.point, float))
        worst = max(worst, float(np.linalg.norm(p - feas.env_frame(c).point)))
    return worst


def task_error(feas, q, data=None) -> float:
    """The largest violation at ``q`` of the planner's extra tasks (``feas.tasks``: |row| for an
    equality, its positive part for an inequality; 0 without tasks)."""
    if not feas.tasks:
        return 0.0
    model = feas.model
    data = model.createData() if data is None else data
    kin.update(model, data, q)
    worst = 0.0
    for t in feas.tasks:
        v = t.evaluate(q, data)[0]
        eq = np.array([k == EQUALITY for k in t.kinds])
        worst = max(worst, float(np.max(np.where(eq, np.abs(v), np.maximum(v, 0.0)), initial=0.0)))
    return worst


def _knots(feas, seg: Segment, s: MotionSettings, stats: Stats) -> np.ndarray:
    """The projections of segment ``seg``: k - 1 at u = j / k, then one more at the middle of every
    piece whose chord midpoint lets a held contact drift by more than ``s.drift`` or a task's rows
    by more than ``s.task_tolerance`` (recursively, at most ``s.refinements`` halvings), then the
    same test on the time law's spline through them (module docstring)."""
    model = feas.model
    if np.allclose(pin.difference(model, seg.q_start, seg.q_end), 0.0, rtol=0.0, atol=1e-12):
        return np.array([seg.q_start, seg.q_end])  # nothing moves (a goal posture that is the last witness)
    paths = body_paths(feas, seg, s)
    # the fallbacks, in order (module docstring): the positions alone, then without the paths of
    # the bodies that have a position-only path by `body_paths`; each only where it changes them
    tries = [paths]
    if any(bp.orientation for bp in paths.values()):
        tries.append({name: replace(bp, orientation=False) for name, bp in paths.items()})
    posed = {name: bp for name, bp in paths.items() if bp.orientation}
    if len(posed) < len(paths):
        tries.append(posed)
    for p in tries[:-1]:
        try:
            return _knots_on(feas, seg, s, stats, p)
        except PlanningError:
            pass  # the next fallback
    return _knots_on(feas, seg, s, stats, tries[-1])


def _knots_on(feas, seg: Segment, s: MotionSettings, stats: Stats, paths: dict) -> np.ndarray:
    """`_knots` with the moving bodies' ``paths`` (`body_paths`)."""
    model = feas.model
    us, knots = [0.0], [seg.q_start]
    for j in range(1, s.steps):
        knots.append(_project(feas, seg, paths, j / s.steps, [knots[-1]], stats, f"step {j}/{s.steps}"))
        us.append(j / s.steps)
    us.append(1.0)
    knots.append(seg.q_end)
    data = model.createData()

    def refine(i, mid):
        """A knot after knot ``i``: ``mid`` (a point of the piece) projected at the piece's middle u."""
        u = 0.5 * (us[i] + us[i + 1])
        knots.insert(i + 1, _project(feas, seg, paths, u, [mid, knots[i]], stats, f"refinement at u = {u:.4g}", mid))
        us.insert(i + 1, u)

    depth = [0] * (len(knots) - 1)  # halvings behind each piece
    i = 0
    while i < len(knots) - 1:
        mid = pin.interpolate(model, knots[i], knots[i + 1], 0.5)
        if depth[i] < s.refinements and _off(feas, seg, mid, s, data):
            refine(i, mid)
            depth[i] += 1
            depth.insert(i + 1, depth[i])
            continue
        i += 1
    for _ in range(s.refinements):  # the sampled path is the spline through the knots: check it too
        knots_a = np.array(knots)
        cost = piece_costs(model, knots_a, s.joint_speed, s.base_speed, s.base_rotation_speed)
        if cost.sum() == 0:
            break
        path, _ = spline_path(model, knots_a, cost)
        a = np.concatenate([[0.0], np.cumsum(cost)])
        bad = [
            i
            for i in range(len(knots) - 1)
            if cost[i] > 0 and any(_off(feas, seg, path(a[i] + f * cost[i]), s, data) for f in SPLINE_CHECKS)
        ]
        for i in reversed(bad):
            refine(i, _clipped(model, path(a[i] + 0.5 * cost[i])))
        if not bad:
            break
    return np.array(knots)


def _off(feas, seg: Segment, q, s: MotionSettings, data) -> bool:
    """Whether ``q`` lets a held contact drift by more than ``s.drift`` or a task row by more than
    ``s.task_tolerance``."""
    return contact_drift(feas, seg.fixed, q, data) > s.drift or task_error(feas, q, data) > s.task_tolerance


def generate_motion(feas, nodes, goal_q=None, settings: MotionSettings | None = None, stats=None) -> Motion:
    """The motion of a plan: ``feas`` the planner's `Feasibility` (robot, surfaces, margin, tasks),
    ``nodes`` root -> last (`contact.Node`), ``goal_q`` the goal posture (nq,) or None; ``stats``
    a `contact.feasibility.Stats` to log the projections into (default a new one; a caller's
    keeps them when a projection fails and `PlanningError` ends the motion)."""
    s = settings or MotionSettings()
    start = time.perf_counter()
    segs = plan_segments(nodes, goal_q)
    stats = Stats() if stats is None else stats
    ts, qs, knots, witness = [], [], [], []
    t_end = 0.0
    for seg in segs:
        k = _knots(feas, seg, s, stats) if s.steps > 1 else np.array([seg.q_start, seg.q_end])
        t, q = sinusoidal_samples(feas.model, k, s.dt, s.joint_speed, s.base_speed, s.base_rotation_speed)
        witness.append(t_end)
        first = 1 if ts else 0  # the junction sample is the previous segment's last one
        ts.append(t[first:] + t_end)
        qs.append(q[first:])
        t_end += float(t[-1])
        knots.append(k)
    if not segs:
        ts, qs = [np.zeros(1)], [np.asarray(nodes[0].q, float)[None]]
    witness.append(t_end)
    return Motion(np.concatenate(ts), np.vstack(qs), knots, witness, segs, stats, time.perf_counter() - start)
