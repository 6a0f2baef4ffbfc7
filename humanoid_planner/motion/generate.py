"""Motion from a contact plan (Escande 2008, §7.1.2): for each segment (`segments`), k - 1
projections (`stance_projection`) of the interpolated configurations

    p^{i,j} = interpolate(q^i, q^{i+1}, j / k),  j = 1 .. k - 1

(the thesis prints p^{i,j} = ((k - j) q^i + k q^{i+1}) / k, a typo for j q^{i+1}) with the bodies
that make or break a contact on their paths (`body_path`), then the sinusoidal time law with the
speed caps (`time_law`) at the control period. The result is a `Motion`: times and full
configurations (base + joints), the projections (knots) and the time of each witness posture.

A projection that fails (`contact.feasibility.accepted`: not SUCCESS, nor a line-search failure
at a feasible point) is retried once from p^{i,j} itself (clipped to the joint bounds) instead of
the previous projection (a refinement's, from the chord midpoint, first from the knot before it:
BIP's stairs motion meets a refinement that neither the midpoint nor p^{i,j} leads to,
NO_PROGRESS 6.8 mm); the last failure raises `PlanningError` naming the segment and step (the
thesis corrects such cases by hand, §7.1.2). Every projection is logged in ``stats`` (purpose
"interpolation"; `contact.feasibility.Stats`).

Refinement (ours): between two projections the motion is interpolated, and a held contact may
drift there (the manifold Q_s curves between the knots), and so may an extra task of the scene
(the glass scene's vertical hand: 7e-4 between knots, where every posture should hold 1e-4,
acceptance test 001 A21). The k uniform projections are followed by one more at the middle of
every piece whose chord midpoint (`pin.interpolate`) lets a held contact point drift farther than
``drift`` from its contact, or a task row by more than ``task_tolerance`` (or than the segment's
ends do, when more: a lead-in's start posture need not meet the scene's tasks), recursively (at
most ``refinements`` halvings of a piece); then, since the sampled path is the time law's spline
through the knots (`time_law.spline_path`), which can bulge beyond the chords, the same test at a
quarter, half and three quarters of each piece of the spline, in rounds (at most
``refinements``). A refinement projects the chord's (the spline's) midpoint itself, at the
piece's middle u, not p(u): where the projections switch branches between two knots (the can's
right arm at its wrist limit turns its elbow 1 rad between two of them, and the held soles slide
2.6 mm along that chord), p(u) lands on either side at every halving, the midpoint of the two
knots between them. On the stairs the uniform 20 let a stance sole drift 1.8 mm between knots
during a long step (the flat walk: 0.16 mm); the motion keeps it under 1 mm (chosen; the bound
test_motion checks).

Bodies with a path: see `body_paths` (the thesis's "only hands and feet", generalised by the
degrees of freedom between a moving body and the other contact bodies). Two fallbacks, tried in
turn where they change the paths (then the bent paths and the projections without collision
rows, "Collision" below). (1) A segment whose projections fail with a body's pose on its path is
generated again with the positions alone: the point still leaves and lands along the surface's
normal over the straight segments, and the body's orientation is the projection's (the
witness's at both ends). On the under-table plan a right sole landing turned 1.70 rad, the left
hand and sole held, folds at the start of its landing segment (NO_PROGRESS at 2.7 cm, forward and
backward from both ends); with the position alone every projection succeeds. (2) A segment whose
projections fail with a position-only path (a body 3 to 5 joints from another contact body) is
generated again without those paths, as the thesis's hands-and-feet rule would: on the chair's
seat-off the left thigh leaves the seat while the right thigh is held on it, both soles held,
and the thigh's 3 position rows with the other leg pinned at both ends leave SLSQP a singular
subproblem (SEARCH_DIRECTION_FAILED at 4.4 mm at the first projection); without the path the
segment is followed (the glass scene's landing thigh keeps its path: its projections succeed).

Collision (ours): the thesis corrects the paths that collide by hand (Escande 2008, §7.1.2); here
every projection keeps the robot ``collision_margin`` (1 cm) from the obstacles and clear of
itself, like every planner call (`Feasibility.project`: the lazy collision rounds; the pairs the
segment's held, leaving and arriving contacts imply left out), a piece whose midpoint or spline
comes closer than ``clearance`` (half) of a pair's margin is refined like a drifting one, and an
attempt whose refined spline still touches an obstacle or itself (the capsules; share 0), or
drifts or leaves a task by twice the refinement's bounds (1 mm, 1e-4), fails. The thesis's
projections alone let the can's left hand 0.3 mm into the table top and, on the stairs, a hand
into a thigh and a sole 15 mm into the other shin (`contact.motion_problems`). A moving body's
path is lifted (`BodyPath.lift`, `LIFTS`) until its capsule clears the obstacles by the margin
along it (`_lifted`), and where the projections cannot follow it clear, bent sideways
(`BodyPath.offset`, `BENDS`, position alone: the stairs' crossing steps, a sole passing the
other shin, need 0.10 and 0.20 m), then without any path. Then a path is planned on the segment's stance
manifold (`manifold_path`: OMPL's projected state space and BKPIECE1, at most ``plan_time``
seconds, `PLAN_TIME`; 0 skips it) between the ends of the moving bodies' 2 cm normal leave and
approach (`_approaches`), its knots refined by projections of chord midpoints and
checked like the projections' (`_settled`); `Motion.planned` lists the segments it was asked for
(`PlannedSegment`: found or not, time, reason) and ``progress`` gets a line for each. Where it finds
no path, the projections go through a via posture, one part of the body moved first and the rest
after (`via`, `_via_knots`: a few seconds; the under-table crawl's segment 10). The last
fallbacks are the thesis's projections without collision rows, on the thesis's paths, then on
none (on the under-table plan as one machine plans it, its segment 12, the right sole leaving the
floor in the crawl, fails on every path, and is followed without one); `Motion.unclear` lists the
segments made so (``collision`` False: all of them).

Numbers: k = 20, the thesis's k_i (Escande 2008, §7.3.3: its chair motion's 1,539 posture
generations); ``drift`` 0.5 mm and ``refinements`` 4 (chosen: half the 1 mm bound, so the spline
between refined knots keeps under it; 4 halvings turn 20 pieces into up to 320);
``task_tolerance`` 5e-5 (chosen: half the 1e-4 of the glass's vertical axis); the speed caps, dt,
the approach length and the straight segments' share in `time_law` and `body_path`.

Bounds on the settings (`humanoid_planner.bounds`, with their reasons): ``steps`` at most
`MAX_MOTION_STEPS` (200), ``dt`` within [`MIN_DT`, `MAX_DT`] = [0.1 ms, 0.1 s], the speed caps at
least `MIN_SPEED` (1e-3 rad/s or m/s), ``refinements`` at most `MAX_REFINEMENTS`, and at most
`MAX_SAMPLES` (200,000) samples in the whole motion, else `PlanningError` naming the sample count.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import numpy as np
import pinocchio as pin

from humanoid_model.collision_rules import joints_between
from humanoid_model.validation import finite_number, integer
from humanoid_planner.bounds import MAX_DT, MAX_MOTION_STEPS, MAX_REFINEMENTS, MAX_SAMPLES, MIN_DT, MIN_SPEED
from humanoid_planner.contact.feasibility import Stats, accepted
from humanoid_planner.exceptions import PlanningError

from .body_path import APPROACH, FRACTION, BodyPath
from .manifold_path import PLAN_TIME, PlannedSegment, StanceRows, plan_on_stance
from .segments import Segment, coincide, lead_in_segment, plan_segments, segment_key
from .stance_errors import contact_drift, task_error
from .stance_projection import project_on_stance
from .time_law import piece_costs, sinusoidal_samples, spline_path
from .via import via_postures

__all__ = [
    "BENDS",
    "CLEARANCE",
    "DRIFT",
    "POSE_FREEDOM",
    "POSITION_FREEDOM",
    "REFINEMENTS",
    "TASK_TOLERANCE",
    "Motion",
    "MotionSettings",
    "body_paths",
    "clear_knots",
    "freedom",
    "generate_motion",
]

DRIFT = 5e-4  # [m] (chosen) half the 1 mm bound on a held contact's motion between projections
REFINEMENTS = 4  # (chosen) halvings of a piece at most: k = 20 pieces become up to 320
TASK_TOLERANCE = 5e-5  # (chosen) half the 1e-4 on the glass's vertical axis (acceptance test 001 A21), any task row
#: (chosen) refine where the path comes closer than this share of a collision pair's margin: 5 mm of the
#: thesis's 1 cm safety distance r from an obstacle (Escande 2008, §4.6), any overlap of a zero-margin self pair
CLEARANCE = 0.5
#: degrees of freedom a body needs relative to the other contact bodies for a prescribed pose (6)
#: or position (3) on its path (`body_paths`)
POSE_FREEDOM, POSITION_FREEDOM = 6, 3
SPLINE_CHECKS = (0.25, 0.5, 0.75)  # (chosen) where in a piece the spline through the knots is checked
#: (chosen) the body paths' lifts tried in turn (`_lifted`): the spline rises lift x chord / 4, so a 0.3 m
#: step's 7.5 cm becomes up to 30 cm; checked at 21 points of the spline (one per projection of k = 20)
LIFTS = (1.0, 1.5, 2.0, 3.0, 4.0)
PATH_CHECKS = 21
#: [m] (chosen) the sideways bends of a body path tried when the projections cannot follow it clear
#: (`_bent`), smallest first: up to about two HRP-2 sole widths (0.13 m, derived from the foot outline of
#: [HRP2-K1]), a sole stepping around the other shin (the stairs' crossing steps need 0.10 and 0.20 m)
BENDS = (0.05, 0.10, 0.15, 0.20, 0.25)


@dataclass
class MotionSettings:
    """``steps`` k per segment; ``dt`` [s]; caps ``joint_speed`` [rad/s], ``base_speed`` [m/s],
    ``base_rotation_speed`` [rad/s]; ``approach`` [m] and ``fraction`` of the body paths; ``drift``
    [m], ``task_tolerance``, ``clearance`` (a share of the collision margins) and ``refinements`` of
    the extra projections; ``plan_time`` [s] the path planner's time on a segment the projections
    cannot keep clear (`manifold_path`; 0: none) (module docstring)."""

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
    clearance: float = CLEARANCE
    collision: bool = True
    plan_time: float = PLAN_TIME

    def __post_init__(self):
        src, E = "motion settings", PlanningError
        integer(self.steps, src, "steps", 1, E, MAX_MOTION_STEPS)
        integer(self.refinements, src, "refinements", 0, E, MAX_REFINEMENTS)
        finite_number(self.dt, src, "dt", MIN_DT, MAX_DT, unit="s", error=E)
        finite_number(self.joint_speed, src, "joint_speed", MIN_SPEED, unit="rad/s", error=E)
        finite_number(self.base_speed, src, "base_speed", MIN_SPEED, unit="m/s", error=E)
        finite_number(self.base_rotation_speed, src, "base_rotation_speed", MIN_SPEED, unit="rad/s", error=E)
        finite_number(self.plan_time, src, "plan_time", 0.0, unit="s", error=E)
        if not (np.isfinite(self.clearance) and self.clearance >= 0):
            raise PlanningError(
                "motion settings: field 'clearance' must be a finite share of the margins >= 0; "
                f"value {self.clearance!r}"
            )


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
    #: the segments projected without collision rows (``collision`` off, or its last fallback);
    #: `LEAD_IN` (-1) for the lead-in
    unclear: list = field(default_factory=list)
    lead_in: Segment | None = None
    #: the segments whose path was planned on the stance manifold (`PlannedSegment`, found or not)
    planned: list = field(default_factory=list)

    def windows(self) -> list[tuple[Segment, float, float]]:
        """(segment, start [s], end [s]) of every sampled segment in time order: the lead-in over
        [0, ``witness_times[0]``] when there is one, then segment k over
        [``witness_times[k]``, ``witness_times[k + 1]``]."""
        lead = [(self.lead_in, 0.0, self.witness_times[0])] if self.lead_in is not None else []
        w = self.witness_times
        return lead + [(seg, w[k], w[k + 1]) for k, seg in enumerate(self.segments)]


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
    gives paths to the hands and feet only, because more bodies over-constrain the projection,
    for instance two bodies of the same HRP-2 limb (Escande 2008, §7.1.2): a thigh landing on a
    seat while its own sole holds the robot has 3 joints to move it, and a prescribed pose (6
    rows) leaves its interpolated targets 1.4 mm off the reachable ones in the glass scene's plan."""
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
        bp = BodyPath(R0, p0, R1, p1, n0, n1, s.approach, s.fraction, orientation=dof >= POSE_FREEDOM)
        out[name] = bp
    return out


def _lifted(feas, seg: Segment, name: str, bp: BodyPath) -> BodyPath:
    """``bp`` with the first lift of `LIFTS` whose path keeps the body's capsule ``collision_margin``
    from the obstacles at `PATH_CHECKS` points of its spline (`Feasibility.body_gap`, the pairs of
    the segment's contacts left out); ``bp`` itself when none does (the projections then try)."""
    if not feas.obstacles:
        return bp
    touching = [c.pair for c in seg.contacts]
    point = np.asarray(feas.locations[name].point, float)
    us = np.linspace(bp.s_leave, bp.s_arrive, PATH_CHECKS)
    for lift in LIFTS:
        b = replace(bp, lift=lift)
        poses = [(b.rotation(u), b.position(u)) for u in us]
        if all(feas.body_gap(name, R, p - R @ point, touching) >= 0.0 for R, p in poses):
            return b
    return bp


def _project(feas, seg: Segment, paths: dict, u: float, starts, stats: Stats, where: str, p=None, collision=True):
    """The projection of ``p`` (default p(u), the segment's interpolation) at segment parameter
    ``u`` from the first of ``starts`` (configurations) that gives one, then from ``p`` itself
    (module docstring); `PlanningError` naming ``where`` when all fail."""
    model = feas.model
    p = pin.interpolate(model, seg.q_start, seg.q_end, u) if p is None else p
    targets = [(name, bp.rotation(u) if bp.orientation else None, bp.position(u)) for name, bp in paths.items()]
    for q0 in [*starts, feas.clipped(p)]:
        res = project_on_stance(feas, seg.fixed, targets, p, q0, stats, seg.changes, collision)
        if accepted(res):
            return res.q.copy()
    raise PlanningError(
        f"motion: segment {seg.index} {where}: projection failed "
        f"({res.outcome.name}, max violation {res.max_violation:.3g})"
    )


def clear_knots(feas, seg: Segment, s: MotionSettings, stats: Stats, planned: list, progress=None) -> np.ndarray | None:
    """The knots of segment ``seg`` kept clear of the obstacles and of the robot itself (module
    docstring, "Collision"): the projections with their collision rows on the lifted, then the
    thesis's, then the bent body paths, then none (`_knots_on`), then a path planned on the
    stance manifold (``s.plan_time`` > 0, `_planned`), then the projections through a via posture
    (`_via_knots`); None when none of them keeps clear.
    ``stats``, ``planned`` and ``progress`` as `_knots`'."""
    model = feas.model
    if coincide(model, seg.q_start, seg.q_end):
        return np.array([seg.q_start, seg.q_end])  # nothing moves (a goal posture that is the last witness)
    thesis = body_paths(feas, seg, s)
    lifted = {name: _lifted(feas, seg, name, bp) for name, bp in thesis.items()}
    pathless = [{}] if thesis else []  # the moving bodies interpolated, no path (the last try of each kind)
    for p in [*_fallbacks(lifted), *_bent(lifted), *pathless]:
        try:
            return _knots_on(feas, seg, s, stats, p, True)
        except PlanningError:
            pass  # the next fallback
    ends = _approaches(feas, seg, s, thesis)  # the lifted ends, shared by the planner and the via postures
    if s.plan_time > 0:  # a path planned on the stance manifold (`manifold_path`)
        knots = _planned(feas, seg, s, ends, planned, progress)
        if knots is not None:
            return knots
    return _via_knots(feas, seg, s, ends, stats, progress)


def _via_knots(feas, seg: Segment, s: MotionSettings, ends, stats: Stats, progress=None) -> np.ndarray | None:
    """The knots of segment ``seg`` through the first via posture (`via.via_postures`, between the
    ends of the moving bodies' normal leave and approach: ``ends``, `_approaches`' (lead, tail)) that
    projects onto a valid state with the collision rows and from which the projections without
    body paths keep clear on both sides (`_knots_on`), refined and checked as a whole like a
    planned path's (`_settled`); None when none does. ``progress`` gets a line when one does."""
    lead, tail = ends
    a, b = lead[-1], tail[0]
    rows = StanceRows(feas, seg)
    inner = replace(seg, q_start=a, q_end=b)
    for name, q in via_postures(feas, seg, a, b):
        v = rows.project(q)
        if v is None:
            continue
        try:
            v = _project(feas, inner, {}, 0.5, [v], stats, f"via posture ({name})", p=v)
            if not rows.valid(v):
                continue
            first = _knots_on(feas, replace(seg, q_start=a, q_end=v), s, stats, {}, True)
            second = _knots_on(feas, replace(seg, q_start=v, q_end=b), s, stats, {}, True)
            knots = _settled(feas, seg, s, [*lead, *first[1:], *second[1:-1], *tail])
        except PlanningError:
            continue  # the next candidate
        if progress is not None:
            progress(f"motion: segment {seg.index}: clear through a via posture ({name})")
        return knots
    return None


def _knots(
    feas, seg: Segment, s: MotionSettings, stats: Stats, planned: list, progress=None, tried: bool = False
) -> tuple[np.ndarray, bool]:
    """The projections of segment ``seg``: k - 1 at u = j / k, then one more at the middle of every
    piece whose chord midpoint lets a held contact drift by more than ``s.drift``, a task's rows
    by more than ``s.task_tolerance`` or a collision pair within ``s.clearance`` of its margin
    (recursively, at most ``s.refinements`` halvings), then the same test on the time law's spline
    through them (module docstring); and whether they kept their collision rows (`clear_knots`,
    else the last resort below; ``tried``: `clear_knots` already failed on it, the last resort at
    once)."""
    model = feas.model
    if coincide(model, seg.q_start, seg.q_end):
        return np.array([seg.q_start, seg.q_end]), True  # nothing moves (a goal posture that is the last witness)
    if s.collision and not tried:
        knots = clear_knots(feas, seg, s, stats, planned, progress)
        if knots is not None:
            return knots, True
    # the last resort: the thesis's projections (no collision rows) on the thesis's paths, then on none
    thesis = body_paths(feas, seg, s)
    attempts = [*_fallbacks(thesis), *([{}] if thesis else [])]
    for p in attempts[:-1]:
        try:
            return _knots_on(feas, seg, s, stats, p, False), False
        except PlanningError:
            pass  # the next fallback
    return _knots_on(feas, seg, s, stats, attempts[-1], False), False


def _planned(feas, seg: Segment, s: MotionSettings, ends, planned: list, progress) -> np.ndarray | None:
    """The knots of segment ``seg`` on a path planned on its stance manifold (`plan_on_stance`,
    ``s.plan_time`` seconds at most) between the moving bodies' lifted ends (``ends``: `_approaches`'
    (lead, tail) on the segment's `body_paths`), and
    refined like the projections' (`_settled`); planned again from the witnesses themselves when
    that path's spline cannot be kept within the bounds (the chair's segment 20: a refinement
    between the approach's knots leaves the valid states); None when no path is found or kept;
    ``planned`` gets a `PlannedSegment`, ``progress`` (a callable or None) a line at the start and
    at the end."""
    if progress is not None:
        progress(f"motion: segment {seg.index}: planning a path on its stance ({s.plan_time:g} s at most)")
    t0 = time.perf_counter()
    lead, tail = ends
    tries = [(lead, tail)] + ([([seg.q_start], [seg.q_end])] if len(lead) + len(tail) > 2 else [])
    knots = None
    for lead, tail in tries:  # from the lifted ends; from the witnesses when that path's spline fails
        found = plan_on_stance(feas, replace(seg, q_start=lead[-1], q_end=tail[0]), s.plan_time)
        reason = found.reason
        if found.knots is None:
            break
        try:
            knots = _settled(feas, seg, s, [*lead, *found.knots[1:-1], *tail])
            break
        except PlanningError as e:
            reason = str(e)
    count = 0 if knots is None else len(knots)
    done = PlannedSegment(seg.index, knots is not None, time.perf_counter() - t0, found.states, reason, count)
    planned.append(done)
    if progress is not None:
        progress(f"motion: segment {seg.index}: {done.summary()}")
    return knots


def _approaches(feas, seg: Segment, s: MotionSettings, thesis: dict) -> tuple[list, list]:
    """(lead, tail): the projections (with the collision rows) of the moving bodies' straight
    leave and approach along their surfaces' normals (`BodyPath`: ``s.approach``, the first and
    last ``s.fraction`` of the segment, the body's pose where `body_paths` gives it, else or where
    that fails its position alone, ``s.steps * s.fraction`` projections each),
    from ``q_start`` and to ``q_end``; the planner then joins the lifted ends, the moving bodies
    clear of their surfaces. ``[q_start]``, ``[q_end]`` where nothing leaves or arrives, or where a
    projection fails or its end is not a valid state of the planner (`StanceRows.valid`: a sole
    tilted into its surface by a position-only leave), the planner then starting on the surfaces."""
    u0 = max((bp.s_leave for bp in thesis.values()), default=0.0)
    u1 = min((bp.s_arrive for bp in thesis.values()), default=1.0)
    count, rows = max(1, round(s.steps * s.fraction)), StanceRows(feas, seg)
    for paths in _fallbacks(thesis)[:2]:  # the pose (a sole kept flat) where allowed, then the position
        lead, tail, log = [seg.q_start], [seg.q_end], Stats()
        try:
            for u in np.linspace(0.0, u0, count + 1)[1:] if u0 > 0 else []:
                lead.append(_project(feas, seg, paths, u, [lead[-1]], log, f"leave at u = {u:.3g}"))
            for u in np.linspace(1.0, u1, count + 1)[1:] if u1 < 1 else []:
                tail.insert(0, _project(feas, seg, paths, u, [tail[0]], log, f"approach at u = {u:.3g}"))
        except PlanningError:
            continue
        if rows.valid(lead[-1]) and rows.valid(tail[0]):  # not a sole tilted into its surface
            return lead, tail
    return [seg.q_start], [seg.q_end]


def _settled(feas, seg: Segment, s: MotionSettings, knots) -> np.ndarray:
    """``knots`` (a planned path's) with a projection (`StanceRows.project`: Gauss-Newton on the
    contacts' and tasks' rows) of the chord midpoint of every piece whose spline (`_spline_pieces`)
    leaves the drift, task or clearance bounds, in rounds (at most ``s.refinements``); then, like
    `_knots_on`, `PlanningError` when the spline still leaves twice the drift and task bounds or
    lets the capsules touch, or a midpoint cannot be projected onto a valid state."""
    model, rows, data = feas.model, StanceRows(feas, seg), feas.model.createData()
    ends = [seg.q_start, seg.q_end]
    drift = max(s.drift, *(contact_drift(feas, seg.fixed, q, data) for q in ends))
    task = max(s.task_tolerance, *(task_error(feas, q, data) for q in ends))
    knots = list(knots)
    for _ in range(s.refinements):
        bad = list(_spline_pieces(feas, seg, s, knots, data, (drift, task, s.clearance))[0])
        if not bad:
            return np.array(knots)
        for i in reversed(bad):
            q = rows.project(pin.interpolate(model, knots[i], knots[i + 1], 0.5))
            if q is None or not rows.valid(q, share=s.clearance):
                raise PlanningError(f"motion: segment {seg.index}: a planned knot's refinement is not valid")
            knots.insert(i + 1, q)
    i = next(_spline_pieces(feas, seg, s, knots, data, (2 * drift, 2 * task, 0.0))[0], None)
    if i is not None:
        raise PlanningError(
            f"motion: segment {seg.index} piece {i}: the planned path's spline touches an obstacle or the "
            f"robot itself, or leaves twice the drift or task bounds, after {s.refinements} refinements"
        )
    return np.array(knots)


def _fallbacks(paths: dict) -> list[dict]:
    """``paths``, then the fallbacks in order (module docstring): the positions alone, then without
    the paths of the bodies that have a position-only path by `body_paths`; each only where it
    changes them."""
    tries = [paths]
    if any(bp.orientation for bp in paths.values()):
        tries.append({name: replace(bp, orientation=False) for name, bp in paths.items()})
    posed = {name: bp for name, bp in paths.items() if bp.orientation}
    if len(posed) < len(paths):
        tries.append(posed)
    return tries


def _bent(paths: dict) -> list[dict]:
    """Variants of ``paths`` bent sideways (`BENDS`, each way in turn: `BodyPath.offset` horizontal
    and across each path's chord), position alone; none for a path whose chord is within 1 cm of
    vertical."""
    across = {}
    for name, bp in paths.items():
        h = np.cross([0.0, 0.0, 1.0], bp.b - bp.a)
        if np.linalg.norm(h) < 0.01:
            return []
        across[name] = h / np.linalg.norm(h)
    return [
        {name: replace(bp, orientation=False, offset=sign * bend * across[name]) for name, bp in paths.items()}
        for bend in BENDS
        for sign in (1.0, -1.0)
    ]


def _knots_on(feas, seg: Segment, s: MotionSettings, stats: Stats, paths: dict, collision: bool) -> np.ndarray:
    """`_knots` with the moving bodies' ``paths`` (`body_paths`), the projections with their
    collision rows or not (``collision``)."""
    model = feas.model
    us, knots = [0.0], [seg.q_start]
    for j in range(1, s.steps):
        where = f"step {j}/{s.steps}"
        knots.append(_project(feas, seg, paths, j / s.steps, [knots[-1]], stats, where, collision=collision))
        us.append(j / s.steps)
    us.append(1.0)
    knots.append(seg.q_end)
    data = model.createData()

    def refine(i, mid):
        """A knot after knot ``i``: ``mid`` (a point of the piece) projected at the piece's middle u."""
        u = 0.5 * (us[i] + us[i + 1])
        where = f"refinement at u = {u:.4g}"
        knots.insert(i + 1, _project(feas, seg, paths, u, [mid, knots[i]], stats, where, mid, collision))
        us.insert(i + 1, u)

    depth = [0] * (len(knots) - 1)  # halvings behind each piece
    # a path is not asked to hold the contacts or the tasks better than its ends do: the witnesses
    # meet them to 1e-6 (no change), a lead-in's start posture may not (the glass scene's start
    # holds the glass 0.039 off its vertical task, which the projections then meet)
    ends = [seg.q_start, seg.q_end]
    drift = max(s.drift, *(contact_drift(feas, seg.fixed, q, data) for q in ends))
    task = max(s.task_tolerance, *(task_error(feas, q, data) for q in ends))
    tight = (drift, task, s.clearance if collision else None)
    i = 0
    while i < len(knots) - 1:
        mid = pin.interpolate(model, knots[i], knots[i + 1], 0.5)
        if depth[i] < s.refinements and _off(feas, seg, mid, data, *tight):
            refine(i, mid)
            depth[i] += 1
            depth.insert(i + 1, depth[i])
            continue
        i += 1
    checked = False  # whether the last round found the whole spline as it is now within bounds
    for _ in range(s.refinements):  # the sampled path is the spline through the knots: check it too
        bad, middle = _spline_pieces(feas, seg, s, knots, data, tight)
        bad = list(bad)
        for i in reversed(bad):
            refine(i, feas.clipped(middle(i)))
        if not bad:
            checked = True
            break
    if collision and not checked:  # the refined spline must keep the looser bounds, or this attempt fails
        # twice the drift and task bounds (1 mm; 1e-4, the glass's), capsules not touching
        loose = (2 * drift, 2 * task, 0.0)
        i = next(_spline_pieces(feas, seg, s, knots, data, loose)[0], None)
        if i is not None:
            raise PlanningError(
                f"motion: segment {seg.index} piece {i}: the path between projections touches an obstacle "
                f"or the robot itself, or leaves twice the drift or task bounds, after {s.refinements} "
                "refinements"
            )
    return np.array(knots)


def _spline_pieces(feas, seg: Segment, s: MotionSettings, knots, data, bounds):
    """``(bad, middle)``: ``bad`` yields, lazily and in order, the pieces of the time law's spline
    through ``knots`` that are `_off` ``bounds`` at one of `SPLINE_CHECKS`; ``middle(i)`` is the
    spline's point at the middle of piece i (nothing when no piece moves)."""
    model = feas.model
    knots = np.array(knots)
    cost = piece_costs(model, knots, s.joint_speed, s.base_speed, s.base_rotation_speed)
    if cost.sum() == 0:
        return iter(()), None
    path, _ = spline_path(model, knots, cost)
    a = np.concatenate([[0.0], np.cumsum(cost)])
    bad = (
        i
        for i in range(len(knots) - 1)
        if cost[i] > 0 and any(_off(feas, seg, path(a[i] + f * cost[i]), data, *bounds) for f in SPLINE_CHECKS)
    )
    return bad, lambda i: path(a[i] + 0.5 * cost[i])


def _off(feas, seg: Segment, q, data, drift: float, task: float, share: float | None) -> bool:
    """Whether ``q`` lets a held contact drift by more than ``drift`` [m], a task row by more than
    ``task``, or (``share`` not None) a collision pair come closer than ``share`` of its margin
    (`Feasibility.intrudes`, the pairs the segment's contacts imply left out; 0: two capsules, or
    a capsule and an obstacle, touch)."""
    if contact_drift(feas, seg.fixed, q, data) > drift or task_error(feas, q, data) > task:
        return True
    return share is not None and feas.intrudes(q, [c.pair for c in seg.contacts], share)


def generate_motion(
    feas,
    nodes,
    goal_q=None,
    settings: MotionSettings | None = None,
    stats=None,
    start_q=None,
    progress=None,
    known: dict | None = None,
) -> Motion:
    """The motion of a plan: ``feas`` the planner's `Feasibility` (robot, surfaces, margin, tasks),
    ``nodes`` root -> last (`contact.Node`), ``goal_q`` the goal posture (nq,) or None; ``stats``
    a `contact.feasibility.Stats` to log the projections into (default a new one; a caller's
    keeps them when a projection fails and `PlanningError` ends the motion); ``start_q`` (nq,)
    the start posture the plan was searched from: the motion then starts there, with the lead-in
    to the root's witness (`segments.lead_in_segment`; None: it starts at the root's witness);
    ``progress`` a callable given a line when a segment's path is planned (`manifold_path`);
    ``known``: `segment_key` -> (knots, `PlannedSegment` list) of segments already kept clear by
    `clear_knots` with the same settings, taken as they are, or (None, list) of segments it failed
    on, which go to the last resort at once (`path_check.SegmentCheck.for_motion`)."""
    s = settings or MotionSettings()
    start = time.perf_counter()
    segs = plan_segments(nodes, goal_q)
    lead = lead_in_segment(feas.model, nodes, start_q)
    stats = Stats() if stats is None else stats
    ts, qs, knots, witness = [], [], [], []
    t_end = 0.0
    unclear, planned = [], []
    for seg in [lead, *segs] if lead is not None else segs:
        found = None if known is None or s.steps <= 1 else known.get(segment_key(seg))
        if found is not None:
            planned.extend(found[1])
        if found is not None and found[0] is not None:
            k, clear = found[0], True
        else:
            k, clear = (
                _knots(feas, seg, s, stats, planned, progress, tried=found is not None)
                if s.steps > 1
                else (np.array([seg.q_start, seg.q_end]), False)
            )
        if not clear:
            unclear.append(seg.index)
        left = MAX_SAMPLES - sum(len(x) for x in ts)  # the samples the motion may still take
        t, q = sinusoidal_samples(
            feas.model, k, s.dt, s.joint_speed, s.base_speed, s.base_rotation_speed, max_steps=left
        )
        if seg is not lead:
            witness.append(t_end)
            knots.append(k)
        first = 1 if ts else 0  # the junction sample is the previous segment's last one
        ts.append(t[first:] + t_end)
        qs.append(q[first:])
        t_end += float(t[-1])
    if not ts:
        ts, qs = [np.zeros(1)], [np.asarray(nodes[0].q, float)[None]]
    witness.append(t_end)
    return Motion(
        np.concatenate(ts),
        np.vstack(qs),
        knots,
        witness,
        segs,
        stats,
        time.perf_counter() - start,
        unclear,
        lead,
        planned,
    )
