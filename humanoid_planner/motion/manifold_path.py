"""A sampling-based path between the two witnesses of a segment, on its stance manifold: the
fallback for the segments whose projections cannot keep clear (`generate`, "Collision").

The thesis projects interpolated configurations and corrects the colliding paths by hand
(Escande 2008, §7.1.2); some segments of the scenes' plans find no clear projection at all (a sole
crossing the other shank on BIP's stairs, the bodies under the table). Here the path is planned
on the manifold of the segment's held contacts by OMPL (``ompl`` 2.0.1 from PyPI, its Python
bindings): its projected state space (Kingston, Moll and Kavraki 2019: every sample and every
step of a geodesic projected on the manifold by Newton steps on the constraint's rows and their
Jacobian) and its bidirectional planner BKPIECE1 (Sucan and Kavraki 2009: two trees, one from
each witness, grown from the cells of a projection of the explored space and joined).

**Why OMPL, and why BKPIECE1.** OMPL's Python bindings take a Python subclass of ``ob.Constraint``
(the rows and their Jacobian in numpy) and a Python validity checker; the planners, the projected
space's geodesics, the path simplifier (shortcuts) and the nearest-neighbour structures are then
the library's tested code. A planner of our own with the posture generator's projection
(`stance_projection`: SLSQP with the collision rounds, 10-50 ms a call) as its projection operator
would spend that on each of its thousands of projections; Newton steps on the equality rows
take ~0.2 ms on HRP-2. RRT-Connect, first tried: OMPL's constrained ``interpolate`` computes the
whole geodesic to each random sample before cutting it at the planner's range, ~120 constraint
evaluations per checked state on HRP-2 (45 tree states in 20 s on the test's plate case, BIP's
stairs segment 5 in 33 s); BKPIECE1 extends existing states by short motions, ~3 evaluations per
checked state (the plate case in 5 s, BIP's segment in 4 s).

**The manifold.** Ambient coordinates (x, s), x (nv,) the tangent increment from the segment's
start witness, q = integrate(q_start, x) (the free flyer's quaternion has no global chart), s in
[0, 1]. The rows: the equality rows of the segment's held contacts (`Feasibility.strong`: a strong
contact's 6, a deformable one's 3) and of the scene's tasks (the glass's vertical hand), and,
under the "com" stability, the CoM's horizontal position on the segment between the witnesses'
CoMs, c(q) = c0 + clip(s, 0, 1) (c1 - c0). Both witnesses are stable, so is that segment (the
support polygon with its margin is convex): the planned states are stable by construction, where
a CoM left free leaves a single support's narrow polygon on most random steps (BIP's segment 5,
RRT-Connect: no path in 60 s with the CoM free, a path in 33 s with it on the segment). OMPL
holds the rows to `TOLERANCE` (1e-6).

**Validity** (every state, every geodesic step `DELTA` apart): the stance's equality rows within
`ON_MANIFOLD` (OMPL checks some states its projection did not reach: 65% of them on the glass
scene's segment 5); the joint bounds (the planner's, its joint margin in); the inequality rows of
the contacts and tasks (a deformable contact's angles) and the stability rows of the held
contacts (`Feasibility.stability`) within `SLACK`; the capsules `SHARE` (half) of their margins
from the obstacles and from each other (`Feasibility.intrudes`, the pairs the segment's contacts
imply left out; the motion's own clearance, `generate.CLEARANCE`); the hull points of a moving
(leaving or arriving) contact's body not more than `SURFACE_SLACK` below its surface's plane over
its polygon (its body-obstacle pair is left out of the collision checks, which would otherwise
let it dig into the surface it leaves or lands on). The force-based stability is not supported
(no scene uses it): the planner then reports a failure.

**Sampling and bounds.** OMPL's samples of the ambient box, projected: each joint's range
between the two witnesses widened by `WIDEN` and clipped to the joint bounds, the base's widened
by `BASE_WIDEN`. Deterministic: OMPL's seed is `SEED` plus the segment's index, and the planner
stops at its first path or after ``max_checks`` state checks (`PLAN_CHECKS`), whichever comes
first with ``time_limit`` seconds (`PLAN_TIME`: about twice what the checks take on a loaded
2-core machine, 13-22 s alone; the bound on a slow machine, where the result may then differ).

**The result** is the simplified path (OMPL's shortcuts, at most `SIMPLIFY` seconds),
interpolated at `DELTA` along its geodesics: the knots of the time law, which `generate` refines
(projections of chord midpoints, `StanceRows.project`) and checks like any other segment's (the
spline's held contacts within twice the 0.5 mm drift bound, its capsules apart).
"""

from __future__ import annotations

import gc
import time
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_planner.posture import kinematics as kin

__all__ = ["PLAN_CHECKS", "PLAN_TIME", "SEED", "ManifoldPath", "PlannedSegment", "StanceRows", "plan_on_stance"]

PLAN_TIME = 120.0  #: [s] (chosen) the planner's time on one segment at most, for slow machines (module docstring)
PLAN_CHECKS = 30_000  #: (chosen) the planner's state checks on one segment at most (module docstring)
SEED = 7001  #: (chosen) plus the segment's index: OMPL's seed for the segment
SHARE = 0.5  #: (chosen) the share of the collision margins every state keeps (module docstring)
DELTA = 0.05  #: OMPL's geodesic step (tangent norm), its default
RANGE = 0.3  #: (chosen) BKPIECE1's longest motion (tangent norm; module docstring)
WIDEN = 0.5  #: [rad or m] (chosen) the sampling box around the two witnesses (module docstring)
SIMPLIFY = 5.0  #: [s] (chosen) OMPL's path simplification at most
TOLERANCE = 1e-6  #: [m] the constraint rows, as the posture generator's
NEWTON_STEPS = 20  #: (chosen) OMPL's Newton steps of a projection at most (a geodesic step takes 2-4)
#: (chosen) the inequality rows' slack in a valid state (m of the CoM's 2 cm margin, rad of a deformable
#: contact's 0.1 rad): the witnesses often sit on a bound (the potential pulls the CoM to the polygon's
#: margin), and the projection meets the equality rows (the CoM's segment) to `TOLERANCE` only
SLACK = 1e-4
ON_MANIFOLD = 1e-5  #: [m] (chosen) the equality rows of a valid state: ten times `TOLERANCE`
SURFACE_SLACK = 1e-3  #: [m] (chosen) a moving body's hull below its surface's plane at most
BASE_WIDEN = 0.3  #: [m or rad] (chosen) the base's sampling box around the witnesses'


@dataclass
class ManifoldPath:
    """``knots`` (m, nq) from the segment's start to its end witness, or None when no path was
    found (``reason`` says why); ``time`` [s] of the planning; ``states`` of the planner's trees."""

    knots: np.ndarray | None
    reason: str = ""
    time: float = 0.0
    states: int = 0


@dataclass(frozen=True)
class PlannedSegment:
    """A segment the path planner was asked for (`manifold_path`): its ``index``, whether a path
    was ``found`` (and kept: its spline within the bounds), the wall ``time`` [s], the planner's
    ``states`` and, when none, the ``reason``."""

    index: int
    found: bool
    time: float
    states: int
    reason: str = ""
    knots: int = 0  #: the knots of the path kept (0 when none)

    def summary(self) -> str:
        """One line: what the planner gave."""
        if self.found:
            return f"path planned in {self.time:.1f} s ({self.states} states, {self.knots} knots)"
        return f"no planned path in {self.time:.1f} s: {self.reason}"


class StanceRows:
    """The rows of a segment's stance at a configuration: the equality rows (the manifold) and the
    inequality rows (validity) of the held contacts, the tasks and the stability (module docstring)."""

    def __init__(self, feas, seg):
        self.feas, self.seg, self.model = feas, seg, feas.model
        self.data = self.model.createData()
        self.cons = [feas.strong(c) for c in seg.fixed] + list(feas.tasks)
        self.eq = [c.equality_mask for c in self.cons]
        stab = feas.stability(seg.fixed)
        self.stability = stab
        self.supported = stab is None or not stab.n_extra
        self.codim = int(sum(m.sum() for m in self.eq))
        self.com = any(c.needs_com for c in self.cons) or (stab is not None and stab.needs_com)
        self.touching = [c.pair for c in seg.contacts]
        # (hull points in the body frame, frame id, surface normal, surface vertices (k, 3), the edges'
        # inward test vectors (k, 3): `_below`)
        self.moving = []
        for c in seg.changes:
            loc, surf = feas.locations[c.location], feas.surfaces[c.surface]
            n, v = np.asarray(surf.normal, float), np.asarray(surf.vertices, float)
            edges = np.cross(np.roll(v, -1, axis=0) - v, n)
            self.moving.append((np.asarray(loc.hull, float), self.model.getFrameId(loc.body), n, v, edges))
        self.lo, self.hi = self.model.lowerPositionLimit[7:], self.model.upperPositionLimit[7:]

    def com_line(self):
        """(c0, c1): the CoM's horizontal positions (2,) at the two witnesses, when the stability
        is the CoM's support polygon (None otherwise: no CoM rows)."""
        if self.stability is None or not self.stability.needs_com:
            return None
        out = []
        for q in (self.seg.q_start, self.seg.q_end):
            self.update(q)
            out.append(self.data.com[0][:2].copy())
        return tuple(out)

    def update(self, q):
        kin.update(self.model, self.data, q, com=self.com)

    def equalities(self, q, jacobian: bool = False):
        """The equality rows (codim,) at ``q`` (updated by `update`), and their Jacobian (codim, nv)."""
        vals, jacs = [], []
        for c, m in zip(self.cons, self.eq):
            v, J = c.evaluate(q, self.data)
            vals.append(v[m])
            jacs.append(J[m])
        f = np.concatenate(vals) if vals else np.zeros(0)
        return (f, np.vstack(jacs)) if jacobian else f

    def valid(self, q, share: float = SHARE, tolerance: float = SLACK) -> bool:
        """Whether ``q`` is a valid state: on the manifold, within the bounds, clear (module docstring,
        "Validity"); ``share`` of the collision margins, ``tolerance`` on the inequality rows."""
        j = q[7:]
        if np.any(j < self.lo - 1e-9) or np.any(j > self.hi + 1e-9):
            return False
        self.update(q)
        f = self.equalities(q)
        if f.size and np.max(np.abs(f)) > ON_MANIFOLD:  # OMPL checks some states its projection did not reach
            return False
        for c, m in zip(self.cons, self.eq):
            if not m.all() and np.any(c.evaluate(q, self.data)[0][~m] > tolerance):
                return False
        if self.stability is not None and np.any(self.stability.evaluate(q, self.data)[0] > tolerance):
            return False
        for hull, fid, n, v, edges in self.moving:
            M = self.data.oMf[fid]
            if _below(hull @ M.rotation.T + M.translation, n, v, edges):
                return False
        return not self.feas.intrudes(q, self.touching, share)

    def project(self, q, iterations: int = 50, tolerance: float = TOLERANCE):
        """``q`` moved onto the manifold by Gauss-Newton steps on the equality rows (least-norm,
        as OMPL's projection), or None when they do not reach ``tolerance`` in ``iterations``."""
        q = np.array(q, float)
        for _ in range(iterations):
            self.update(q)
            f, J = self.equalities(q, jacobian=True)
            if not f.size or np.max(np.abs(f)) <= tolerance:
                return q
            q = pin.integrate(self.model, q, -np.linalg.lstsq(J, f, rcond=None)[0])
        return None


def _below(points, n, vertices, edges) -> bool:
    """Whether a point of ``points`` (m, 3) lies more than `SURFACE_SLACK` below the plane of the
    surface polygon ``vertices`` (k, 3; counter-clockwise about its normal ``n``) and over it (in
    the polygon's prism); ``edges`` (k, 3): each edge (next vertex less this one) crossed with ``n``,
    made once per surface (`StanceRows`)."""
    depth = (points - vertices[0]) @ n
    deep = depth < -SURFACE_SLACK
    if not deep.any():  # (the usual case: no point below the plane)
        return False
    inside = np.einsum("ij,kij->ki", edges, points[:, None, :] - vertices[None]) <= 0
    return bool(np.any(deep & inside.all(axis=1)))


def _bounds(model, seg, widen: float):
    """(lo, hi) (nv,) of the ambient box (module docstring, "Sampling")."""
    d = pin.difference(model, seg.q_start, seg.q_end)
    lo, hi = np.minimum(0.0, d) - widen, np.maximum(0.0, d) + widen
    lo[:6], hi[:6] = np.minimum(0.0, d[:6]) - BASE_WIDEN, np.maximum(0.0, d[:6]) + BASE_WIDEN
    jl = model.lowerPositionLimit[7:] - seg.q_start[7:]
    jh = model.upperPositionLimit[7:] - seg.q_start[7:]
    if model.nq == model.nv + 1:  # one-coordinate joints after the free flyer: the tangent is the angle
        lo[6:], hi[6:] = np.maximum(lo[6:], jl), np.minimum(hi[6:], jh)
    return lo, hi


def plan_on_stance(
    feas,
    seg,
    time_limit: float = PLAN_TIME,
    max_checks: int = PLAN_CHECKS,
    seed: int | None = None,
    delta: float = DELTA,
    widen: float = WIDEN,
    simplify: float = SIMPLIFY,
    range_: float = RANGE,
) -> ManifoldPath:
    """A path of segment ``seg`` (a `segments.Segment`) from ``q_start`` to ``q_end`` on its stance
    manifold, valid at every state and geodesic step (module docstring); ``feas`` the planner's
    `Feasibility`; the planner stops after ``time_limit`` [s] or ``max_checks`` state checks;
    ``seed`` default `SEED` + the segment's index; ``delta``, ``widen``, ``simplify`` and ``range_``
    the module's `DELTA`, `WIDEN`, `SIMPLIFY` and `RANGE`."""
    try:
        return _plan(feas, seg, time_limit, max_checks, seed, delta, widen, simplify, range_)
    finally:  # OMPL's objects and the constraint's class sit in reference cycles: freed now, not at exit
        gc.collect()  # (where nanobind would report them as leaks)


def _plan(feas, seg, time_limit, max_checks, seed, delta, widen, simplify, range_) -> ManifoldPath:
    """`plan_on_stance`."""
    from ompl import base as ob
    from ompl import geometric as og
    from ompl import util as ou

    t0 = time.perf_counter()
    model = feas.model
    rows = StanceRows(feas, seg)
    if not rows.supported:
        return ManifoldPath(None, "the force-based stability is not supported by the path planner")
    for name, q in (("start", seg.q_start), ("end", seg.q_end)):
        if not rows.valid(q):
            return ManifoldPath(None, f"the {name} witness is not a valid state", time.perf_counter() - t0)
    q_ref, nv = np.array(seg.q_start, float), model.nv
    line = rows.com_line()  # (c0, c1): the CoM's horizontal segment between the witnesses, or None
    n = nv + 1  # the tangent increment and the progress s along the CoM's segment

    class Manifold(ob.Constraint):
        """The rows (module docstring) of the ambient point x = (tangent increment, progress s);
        OMPL asks the function and the Jacobian at the same x in turn: one kinematics pass serves both."""

        def __init__(self):
            super().__init__(n, rows.codim + (2 if line is not None else 0))
            self.x, self.f, self.J = None, None, None
            self.J_full = np.zeros((rows.codim + (2 if line is not None else 0), n))

        def _rows(self, x):
            x = np.array(x, float)
            if self.x is not None and np.array_equal(x, self.x):
                return
            q = pin.integrate(model, q_ref, x[:nv])
            rows.update(q)
            f, J = rows.equalities(q, True)
            if line is not None:
                c0, c1 = line
                s = min(max(x[nv], 0.0), 1.0)  # the CoM stays between the witnesses' (stable)
                f = np.concatenate([f, rows.data.com[0][:2] - (c0 + s * (c1 - c0))])
                J = np.vstack([J, rows.data.Jcom[:2]])
            self.J_full[:, :nv] = J @ pin.dIntegrate(model, q_ref, x[:nv], pin.ARG1)
            if line is not None:
                self.J_full[rows.codim :, nv] = -(line[1] - line[0]) if 0.0 <= x[nv] <= 1.0 else 0.0
            self.x, self.f = x, f

        def function(self, x, out):
            self._rows(x)
            out[:] = self.f

        def jacobian(self, x, out):
            self._rows(x)
            out[:, :] = self.J_full

    ou.setLogLevel(ou.LogLevel.LOG_NONE)
    ou.RNG.setSeed(int(SEED + seg.index if seed is None else seed) % (2**31 - 1) or 1)
    ambient = ob.RealVectorStateSpace(n)
    lo, hi = _bounds(model, seg, widen)
    lo, hi = np.append(lo, 0.0), np.append(hi, 1.0)
    bounds = ob.RealVectorBounds(n)
    for i in range(n):
        bounds.setLow(i, float(lo[i]))
        bounds.setHigh(i, float(hi[i]))
    ambient.setBounds(bounds)
    constraint = Manifold()
    constraint.setTolerance(TOLERANCE)
    constraint.setMaxIterations(NEWTON_STEPS)
    space = ob.ProjectedStateSpace(ambient, constraint)
    space.setDelta(delta)
    si = ob.ConstrainedSpaceInformation(space)
    setup = og.SimpleSetup(si)

    def config(state):
        return pin.integrate(model, q_ref, np.array([state[i] for i in range(nv)]))

    checks = [0]

    def valid(state) -> bool:
        checks[0] += 1
        return bool(rows.valid(config(state)))

    setup.setStateValidityChecker(valid)
    start, goal = space.allocState(), space.allocState()
    start.copy([0.0] * n)
    goal.copy([float(v) for v in pin.difference(model, q_ref, seg.q_end)] + [1.0])
    setup.setStartAndGoalStates(start, goal, 1e-6)
    planner = og.BKPIECE1(si)
    planner.setRange(float(range_))
    setup.setPlanner(planner)
    deadline = time.perf_counter() + float(time_limit)
    setup.solve(ob.PlannerTerminationCondition(lambda: checks[0] >= max_checks or time.perf_counter() > deadline))
    data = ob.PlannerData(si)
    planner.getPlannerData(data)
    states = int(data.numVertices())
    if not setup.haveExactSolutionPath():
        spent = f"{max_checks} state checks" if checks[0] >= max_checks else f"{time_limit:g} s"
        return ManifoldPath(None, f"no path in {spent}", time.perf_counter() - t0, states)
    setup.simplifySolution(float(simplify))
    path = setup.getSolutionPath()
    path.interpolate()
    knots = np.array([config(path.getState(i)) for i in range(path.getStateCount())])
    knots[0], knots[-1] = seg.q_start, seg.q_end
    return ManifoldPath(knots, "", time.perf_counter() - t0, states)
