"""The fastest timing of a contact plan's path that its contacts can carry: time-optimal path
parameterization (TOPP-RA) under each stance's contact wrench cone.

The contact planner's motion (`generate_motion`) is quasi-static: every posture is statically
stable (Escande 2008, §5.3.2) and the time law caps the joints' speed (10 deg/s in the thesis,
§7.3.3), so five stairs take minutes. The simulator thesis played planner postures at robot
speed (Chardonnet 2009, §4.18). This module keeps the plan's path q(s) (the same postures, clear
of the obstacles as planned) and finds the fastest s(t) along it such that at every grid point

* the contact wrench the motion needs, w = ḣ_G − m g about a fixed point (the rate of change of
  the centroidal momentum, Orin and Goswami's ḣ_G, less the weight), is one that the held
  contacts can apply: forces at the corners of each contact's touching polygon shrunk by
  ``cop_margin``, each inside the inner friction pyramid of its surface scaled by
  ``friction_scale`` (the contact wrench cone, Caron, Pham and Nakamura 2015);
* every joint's speed stays within the plan's caps (the joints, the base's translation and
  rotation).

With q̇ = q′ ṡ and q̈ = q′ s̈ + q″ ṡ², ḣ_G = A_G q′ s̈ + (A_G q″ + Ȧ_G(q, q′) q′) ṡ²: the
constraint is linear in (s̈, ṡ²), the canonical form of TOPP-RA (Pham and Pham 2018, the
``toppra`` package; its interpolation scheme, each interval's s̈ checked at both ends), solved
piece by piece (`held_segments`: the lead-in, each transition of the plan, Escande 2008, §7.1, and
the end). A piece's held contacts do not change and it starts and ends at rest (the plan's contact
events have zero speed), so the retimed motion makes and breaks each contact at rest, as planned.
The path parameter is the path's length (`SegmentPath`: the plan's postures smoothed at the
projections' spacing, a C² spline); the retimed postures are sampled every ``dt`` on TOPP-RA's
exact s(t) (a parabola per grid interval).

A piece whose postures stand so close to their support's edge that the fastest timing its cone
allows is slower than the plan's keeps the plan's timing: the retimed motion is never slower than
the quasi-static one.

The cone is built once per piece in face form (the facets through the origin of the convex hull
of its generators and the origin, Qhull); the wrench is taken about the centre of the piece's
contact corners. Not checked: the joints' torques and accelerations (docs/planning.md, "Limits").
"""

from __future__ import annotations

import logging
import time as _time
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_model.contact_location import touching_polygon
from humanoid_model.exceptions import PlanningError
from humanoid_model.planar_polygon import convex_hull, shrink
from humanoid_model.validation import finite_number

__all__ = [
    "MARGINS",
    "SegmentTiming",
    "ToppSettings",
    "ContactRetime",
    "contact_wrench_cone",
    "retime_plan",
    "held_segments",
    "stance_cone",
    "SegmentPath",
]

SOURCE = "time-optimal motion"
MIN_GRID = 20  # (chosen) fewest TOPP-RA grid points of a segment
#: [m] (chosen) the smaller CoP margins tried in turn where a segment's postures stand too close to
#: their support's edge for the settings' margin (the plan's static stability has no margin)
MARGINS = (0.015, 0.01, 0.005, 0.0)


@dataclass(frozen=True)
class SegmentTiming:
    """One piece of the motion retimed (`held_segments`): its held ``locations``, its duration
    ``before`` and ``after`` [s], the CoP ``margin`` [m] its cone was built with (None: the piece
    kept the plan's timing, which was faster), and its ``start`` and ``end`` in the plan's time [s]."""

    locations: list
    before: float
    after: float
    margin: float | None
    start: float = 0.0
    end: float = 0.0


@dataclass(frozen=True)
class ToppSettings:
    """The margins and limits of `retime_plan` (numbers chosen, docs/planning.md)."""

    cop_margin: float = 0.02  # [m] each contact's polygon shrunk by this: room for the controller's tracking
    friction_scale: float = 0.7  # the inner pyramid mu/sqrt(2) scaled by this
    mu: float = 0.4  # a surface's friction when the scene gives none (the whole-body controller's default)
    joint_speed: float = np.radians(90.0)  # [rad/s] each joint's speed cap
    base_speed: float = 0.5  # [m/s] the base's translation speed cap
    base_rotation_speed: float = np.radians(50.0)  # [rad/s] the base's rotation speed cap
    grid: float = 0.01  # [rad or m] path length between TOPP-RA grid points (the norm of the posture change)
    knots: int = 20  # projections per transition of the plan (its --steps, Escande 2008, §7.3.3), `SegmentPath`
    dt: float = 0.005  # [s] the retimed motion's sampling (the thesis's 5 ms postures, Chardonnet 2009, §4.18)

    def checked(self) -> ToppSettings:
        finite_number(self.cop_margin, SOURCE, "cop_margin", 0.0, 0.05, unit="m", error=PlanningError)
        finite_number(self.friction_scale, SOURCE, "friction_scale", 1e-3, 1.0, error=PlanningError)
        finite_number(self.mu, SOURCE, "mu", 1e-3, 2.0, error=PlanningError)
        for name in ("joint_speed", "base_speed", "base_rotation_speed", "grid", "dt"):
            finite_number(getattr(self, name), SOURCE, name, 1e-6, error=PlanningError)
        if isinstance(self.knots, bool) or not isinstance(self.knots, int) or self.knots < 1:
            raise PlanningError(f"{SOURCE}: setting 'knots': an integer >= 1; value {self.knots!r}")
        return self


@dataclass
class ContactRetime:
    """The result of `retime_plan`: the new ``doc`` (a PLAN.json document), the durations before
    and after [s], the computing ``time`` [s], a `SegmentTiming` per piece, and the ``settings``."""

    doc: dict
    before: float
    after: float
    time: float
    segments: list
    settings: ToppSettings

    def lines(self) -> list[str]:
        """The summary: the durations, then each piece retimed with a smaller CoP margin or kept at
        the plan's timing."""
        out = [
            f"time-optimal motion: {self.before:.2f} s -> {self.after:.2f} s "
            f"({self.before / self.after:.1f} times faster), computed in {self.time:.2f} s"
        ]
        for g in self.segments:
            if g.margin is not None and g.margin < self.settings.cop_margin:
                out.append(
                    f"time-optimal motion: {g.start:.2f}-{g.end:.2f} s of the quasi-static motion kept a CoP margin "
                    f"of {1e3 * g.margin:.0f} mm (its postures stand that close to the support's edge)"
                )
        for g in self.segments:
            if g.margin is None:
                out.append(
                    f"time-optimal motion: {g.start:.2f}-{g.end:.2f} s kept the quasi-static timing (its postures "
                    "stand too close to the support's edge to move faster)"
                )
        return out


def contact_wrench_cone(contacts, mu_scale: float, center) -> np.ndarray:
    """The face form F (k, 6) of the wrench cone {w = (f, τ about ``center``)} that forces at the
    ``contacts``' corners can make, F w <= 0. ``contacts``: list of (corners (n, 3) world [m],
    normal (3,), mu); each corner's force inside the pyramid of half-width mu/√2 · ``mu_scale``
    along the surface's two tangents."""
    from scipy.spatial import ConvexHull

    gens = []
    for corners, normal, mu in contacts:
        n = np.asarray(normal, float) / np.linalg.norm(normal)
        t1 = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
        t1 /= np.linalg.norm(t1)
        t2 = np.cross(n, t1)
        k = mu / np.sqrt(2.0) * mu_scale
        for p in np.asarray(corners, float):
            r = p - center
            for e in (n + k * t1, n - k * t1, n + k * t2, n - k * t2):
                e = e / np.linalg.norm(e)
                gens.append(np.concatenate([e, np.cross(r, e)]))
    G = np.array(gens)
    hull = ConvexHull(np.vstack([np.zeros(6), G]))
    eq = hull.equations  # a x + d <= 0 inside
    scale = np.linalg.norm(eq[:, :6], axis=1)
    through = np.abs(eq[:, 6]) <= 1e-9 * (1.0 + np.abs(G).max())
    F = eq[through, :6] / scale[through, None]
    return np.unique(np.round(F, 12), axis=0)


class SegmentPath:
    """One segment's path, C²: q(s) = integrate(q₀, δ(s)), δ a cubic spline (not-a-knot) of the
    samples' tangent coordinates about the first posture (`pinocchio.difference`) against their
    path length s (the norm of the change from sample to sample, radians and metres alike),
    resampled every ``grid`` of s. The plan's time law starts and ends each segment at rest, where
    its path speed vanishes: TOPP-RA needs a parameter that moves with the posture.

    The plan's path is piecewise: its postures are projections at ``knots`` points of the segment
    (Escande 2008, §7.3.3, k = 20) joined by geodesics, a corner at each. A time law at rest does
    not feel them, a fast one does (measured on the stairs plan at 90 deg/s, 10 ms samples: CoM
    accelerations of 0.2 m/s² RMS about their running mean, up to 8 m/s²). So δ is first smoothed
    by a Savitzky-Golay filter (cubic) one knot spacing wide, the end postures kept. ``t`` (the
    plan's time at each ``s``) maps the plan's times onto the path."""

    EPS = 1e-5  # [rad or m] (chosen) the step of the derivatives' central differences

    def __init__(self, model, t, q, grid: float = 0.01, knots: int = 20):
        from scipy.interpolate import CubicSpline
        from scipy.signal import savgol_filter

        self.model, self.q0 = model, q[0]
        delta = np.array([pin.difference(model, q[0], x) for x in q])
        arc = np.concatenate([[0.0], np.cumsum(np.linalg.norm(np.diff(delta, axis=0), axis=1))])
        keep = np.concatenate([[True], np.diff(arc) > 1e-9])  # a still stretch keeps its first sample
        if keep.sum() < 2:
            raise PlanningError(f"{SOURCE}: a segment does not move")
        arc, t, delta = arc[keep], t[keep], delta[keep]
        self.length = float(arc[-1])
        n = max(MIN_GRID, int(np.ceil(self.length / grid)) + 1)
        self.s = np.linspace(0.0, self.length, n)
        self.t = np.interp(self.s, arc, t)
        even = np.column_stack([np.interp(self.s, arc, d) for d in delta.T])
        window = max(5, int(round(n / knots)) | 1)
        if n >= window + 2:
            smooth = savgol_filter(even, window, 3, axis=0, mode="interp")
            fade = np.clip(np.minimum(np.arange(n), np.arange(n)[::-1]) / window, 0.0, 1.0)[:, None]
            even = fade * smooth + (1.0 - fade) * even  # the end postures (the contact events) kept
        self.spline = CubicSpline(self.s, even, axis=0)

    def __call__(self, s) -> np.ndarray:
        d = self.spline(np.atleast_1d(np.asarray(s, float)))
        return np.array([pin.integrate(self.model, self.q0, x) for x in d])

    def derivatives(self, s) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(q, q′, q″) at the path lengths ``s`` (n,): (n, nq), (n, nv), (n, nv)."""
        e, m = self.EPS, self.model
        q, qm, qp = self(s), self(np.asarray(s) - e), self(np.asarray(s) + e)
        d1 = np.array([pin.difference(m, a, b) for a, b in zip(qm, qp, strict=True)]) / (2 * e)
        back = np.array([pin.difference(m, a, b) for a, b in zip(qm, q, strict=True)])
        ahead = np.array([pin.difference(m, a, b) for a, b in zip(q, qp, strict=True)])
        return q, d1, (ahead - back) / (e * e)


def held_segments(plan) -> list[tuple[float, float, list]]:
    """(start, end, held contacts) of each piece of a parsed plan's motion: the lead-in from the
    start posture to the first witness (the first stance held), each transition with the contacts
    of its first stance (Escande 2008, §7.1: a "released" transition moves the robot with every
    contact of the larger stance held, the released one broken only at the next transition's start;
    an "added" one moves the new location to its placement, the smaller stance held), and the
    motion after the last transition (the last stance held)."""
    t = plan.trajectory_t
    out = []
    for tr in plan.doc.get("transitions", []):
        out.append((float(tr["t"][0]), float(tr["t"][1]), list(plan.stances[tr["from"]].contacts)))
    if out and out[0][0] > t[0]:
        out.insert(0, (float(t[0]), out[0][0], list(plan.stances[0].contacts)))
    if out and out[-1][1] < t[-1]:
        out.append((out[-1][1], float(t[-1]), list(plan.stances[-1].contacts)))
    return out


def stance_cone(held, scene, settings) -> tuple[np.ndarray, np.ndarray]:
    """The face form F (k, 6) of the contact wrench cone of the ``held`` contacts (`PlanContact`)
    in ``scene`` with the settings' CoP margin and friction, and the point (3,) its torques are
    about (the centre of the shrunk corners): F w <= 0 for w = (force, torque about that point)."""
    contacts, corners_all = [], []
    for c in held:
        surface = scene.surface(c.surface)
        R, p = c.rotation, np.asarray(c.position, float)
        hull = convex_hull(((np.asarray(c.hull, float) - p) @ R)[:, :2])  # the plan's hull, contact frame
        inner = shrink(touching_polygon(c, surface, hull, SOURCE, PlanningError), settings.cop_margin)
        world = p + np.column_stack([inner, np.zeros(len(inner))]) @ R.T
        mu = settings.mu if surface.friction is None else min(float(surface.friction), settings.mu)
        contacts.append((world, R[:, 2], mu))
        corners_all.append(world)
    center = np.vstack(corners_all).mean(axis=0)
    return contact_wrench_cone(contacts, settings.friction_scale, center), center


def _speed_bound(model, d, settings) -> float:
    """The largest ṡ² at which the path speed d (nv,) keeps the caps."""
    lim = np.inf
    if model.joints[1].nq == 7:  # a free-flyer: translation, then rotation
        vt, vr = np.linalg.norm(d[:3]), np.linalg.norm(d[3:6])
        if vt > 0:
            lim = min(lim, (settings.base_speed / vt) ** 2)
        if vr > 0:
            lim = min(lim, (settings.base_rotation_speed / vr) ** 2)
        d = d[6:]
    m = np.abs(d).max() if len(d) else 0.0
    if m > 0:
        lim = min(lim, (settings.joint_speed / m) ** 2)
    return lim


def _retime_segment(model, data, path, cone, settings) -> Profile:
    """TOPP-RA on one segment's ``path`` (`SegmentPath`) with its contact wrench ``cone`` (F,
    centre); at rest at both ends."""
    import toppra
    from toppra.constraint import DiscretizationType, LinearConstraint
    from toppra.constraint.linear_constraint import canlinear_colloc_to_interpolate

    F, c0 = cone
    s = path.s
    q, d1, d2 = path.derivatives(s)
    mass = data.mass[0]
    weight = -mass * model.gravity.linear
    n = len(s)
    A, B, C, xmax = np.zeros((n, 6)), np.zeros((n, 6)), np.zeros((n, 6)), np.zeros(n)
    for i in range(n):
        pin.computeCentroidalMomentumTimeVariation(model, data, q[i], d1[i], d2[i])
        b = data.dhg.copy()
        pin.computeCentroidalMomentum(model, data, q[i], d1[i])
        a = data.hg.copy()
        r = data.com[0] - c0
        A[i] = np.concatenate([a.linear, a.angular + np.cross(r, a.linear)])
        B[i] = np.concatenate([b.linear, b.angular + np.cross(r, b.linear)])
        C[i] = np.concatenate([weight, np.cross(r, weight)])
        xmax[i] = _speed_bound(model, d1[i], settings)

    class _Cone(LinearConstraint):
        def __init__(self):
            super().__init__()
            self.identical = True
            self.discretization_type = DiscretizationType.Interpolation

        def compute_constraint_params(self, path, gridpoints, *args, **kwargs):
            # each interval's s̈ checked at both its ends (TOPP-RA's interpolation scheme)
            a, b, c, f, g, _, _ = canlinear_colloc_to_interpolate(
                A, B, C, F, np.zeros(len(F)), None, None, gridpoints, identical=True
            )
            return a, b, c, f, g, None, np.column_stack([np.zeros(n), np.minimum(xmax, 1e8)])

    path = toppra.SplineInterpolator(s, np.column_stack([s, s]))
    algo = toppra.algorithm.TOPPRA([_Cone()], path, gridpoints=s, solver_wrapper="seidel")
    log = logging.getLogger("toppra")
    level = log.level
    log.setLevel(logging.ERROR)  # an infeasible segment is reported by the error below
    try:
        _, sd, _ = algo.compute_parameterization(0.0, 0.0)
    finally:
        log.setLevel(level)
    if sd is None or not np.all(np.isfinite(sd)):
        bad = _first_infeasible(C, F)
        raise PlanningError(
            f"{SOURCE}: the contacts cannot carry the motion at {100 * s[bad] / s[-1]:.0f} % of the segment "
            f"(the static wrench leaves the contact wrench cone by {max(0.0, float((F @ C[bad]).max())):.3g}); "
            "lower cop_margin or raise friction_scale"
        )
    return Profile.of(s, np.maximum(sd, 0.0))


@dataclass(frozen=True)
class Profile:
    """TOPP-RA's answer on one segment: the path parameter ``s`` (n,) [rad or m, `SegmentPath`] at
    its grid points, the path speed ``sd`` (n,) there and the ``times`` (n,) [s] it reaches them
    from the segment's start; between grid points s̈ is constant (the discretisation
    x_{i+1} = x_i + 2 Δs_i u_i), so s(t) is a parabola per interval."""

    s: np.ndarray
    sd: np.ndarray
    times: np.ndarray

    @classmethod
    def of(cls, s, sd) -> Profile:
        """The profile of the speeds ``sd`` at ``s``, its times from the trapezoid rule (exact for a
        constant s̈ per interval)."""
        dt = 2.0 * np.diff(s) / np.maximum(sd[:-1] + sd[1:], 1e-12)
        return cls(s, sd, np.concatenate([[0.0], np.cumsum(dt)]))

    def at(self, tau) -> tuple[np.ndarray, np.ndarray]:
        """(s, ṡ) at the times ``tau`` [s] from the segment's start (exact: uniform s̈ per interval)."""
        tg = self.times
        tau = np.clip(np.asarray(tau, float), 0.0, tg[-1])
        i = np.clip(np.searchsorted(tg, tau, side="right") - 1, 0, len(tg) - 2)
        h = tg[i + 1] - tg[i]
        acc = np.where(h > 0, (self.sd[i + 1] - self.sd[i]) / np.where(h > 0, h, 1.0), 0.0)
        u = tau - tg[i]
        return self.s[i] + self.sd[i] * u + 0.5 * acc * u * u, self.sd[i] + acc * u


def _retime_with_margins(model, data, path, held, scene, settings):
    """`_retime_segment` with the settings' CoP margin, else the `MARGINS` below it in turn (a plan's
    posture may stand closer to its support's edge than the margin): (profile, the margin used)."""
    from dataclasses import replace

    margins = [settings.cop_margin] + [m for m in MARGINS if m < settings.cop_margin]
    for i, margin in enumerate(margins):
        st = replace(settings, cop_margin=margin)
        try:
            return _retime_segment(model, data, path, stance_cone(held, scene, st), st), margin
        except PlanningError:
            if i == len(margins) - 1:
                raise
    raise AssertionError("unreachable")


def _first_infeasible(C, F) -> int:
    """The grid point whose static wrench ``C`` leaves the cone ``F`` the most."""
    return int(np.argmax((C @ F.T).max(axis=1)))


def retime_plan(doc: dict, robot, scene, settings: ToppSettings | None = None, progress=None) -> ContactRetime:
    """The plan ``doc`` (a PLAN.json document of ``robot`` in ``scene``) with its trajectory
    retimed by `ContactRetime` (module docstring): the same path, the fastest timing its stances'
    contacts carry within the settings' margins and caps; the transitions' times mapped."""
    from humanoid_model.formats.plan import parse_contact_plan

    settings = (settings or ToppSettings()).checked()
    start = _time.perf_counter()
    plan = parse_contact_plan(doc, SOURCE, PlanningError)
    model = robot.model
    data = model.createData()
    pin.computeTotalMass(model, data)
    t, q = np.asarray(plan.trajectory_t, float), np.array(plan.trajectory_q, float)
    if q.shape[1] != model.nq:
        raise PlanningError(f"{SOURCE}: the plan's configurations have {q.shape[1]} values, {robot.name} {model.nq}")
    segments = held_segments(plan)
    if not segments:
        raise PlanningError(f"{SOURCE}: the plan has no transitions to retime")
    plan_path = _PathSpline(model, t, q)
    pieces = []  # (new start [s], old start [s], old end [s], None (as planned) or (Profile, plan times, path))
    report = []
    new, last = 0.0, float(t[0])
    for i, (a, b, held) in enumerate(segments):
        if a > last:  # before the transition (the lead-in, a pause): as planned
            pieces.append((new, last, a, None))
            new += a - last
        k0, k1 = int(np.searchsorted(t, a - 1e-9)), min(int(np.searchsorted(t, b - 1e-9)), len(t) - 1)
        margin, seg_start = settings.cop_margin, new
        if k1 > k0:
            path = SegmentPath(model, t[k0 : k1 + 1], q[k0 : k1 + 1], settings.grid, settings.knots)
            prof, margin = _retime_with_margins(model, data, path, held, scene, settings)
            if prof.times[-1] < b - a:
                pieces.append((new, a, b, (prof, path)))
                new += float(prof.times[-1])
            else:  # its postures stand too close to the edge to move faster than planned: as planned
                pieces.append((new, a, b, None))
                new += b - a
                margin = None
        report.append(SegmentTiming([c.location for c in held], b - a, new - seg_start, margin, a, b))
        last = max(last, b)
        if progress is not None:
            progress(i + 1, len(segments))
    if t[-1] > last:
        pieces.append((new, last, float(t[-1]), None))
        new += float(t[-1]) - last
    times = np.arange(0.0, new + 0.5 * settings.dt, settings.dt)
    times[-1] = min(times[-1], new)
    qs = _postures(pieces, times, plan_path, model.nq)
    qs[-1] = q[-1]

    def remap(x: float) -> float:
        return _new_time(pieces, float(x)) + float(t[0])

    out = dict(doc)
    traj = dict(doc["trajectory"])
    traj["t"], traj["q"], traj["dt"] = (times + t[0]).tolist(), qs.tolist(), settings.dt
    out["trajectory"] = traj
    out["transitions"] = [{**tr, "t": [remap(x) for x in tr["t"]]} for tr in doc.get("transitions", [])]
    out["stances"] = [{**st, "t": remap(st["t"])} if st.get("t") is not None else st for st in doc["stances"]]
    elapsed = _time.perf_counter() - start
    out["stats"] = {
        **doc.get("stats", {}),
        "time_optimal": {
            "quasi_static_duration": float(t[-1] - t[0]),
            "duration": float(new),
            "time": elapsed,
            "cop_margins": [g.margin for g in report],  # None: the piece as planned
        },
    }
    return ContactRetime(out, float(t[-1] - t[0]), float(new), elapsed, report, settings)


def _postures(pieces, times, plan_path, nq) -> np.ndarray:
    """The postures (len(times), nq) at the new times."""
    out = np.empty((len(times), nq))
    starts = np.array([p[0] for p in pieces])
    which = np.clip(np.searchsorted(starts, times, side="right") - 1, 0, len(pieces) - 1)
    for j, (n0, o0, o1, seg) in enumerate(pieces):
        sel = which == j
        if not np.any(sel):
            continue
        if seg is None:
            out[sel] = plan_path(np.minimum(o0 + (times[sel] - n0), o1))
        else:
            prof, path = seg
            out[sel] = path(prof.at(times[sel] - n0)[0])
    return out


def _new_time(pieces, x: float) -> float:
    """The new time (from the motion's start) of the plan's time ``x``."""
    for n0, o0, o1, seg in reversed(pieces):
        if x >= o0 - 1e-12:
            if seg is None:
                return n0 + min(x, o1) - o0
            prof, path = seg
            return n0 + float(np.interp(np.interp(x, path.t, path.s), prof.s, prof.times))
    return 0.0


class _PathSpline:
    """A path q(s) through samples, C¹: on each interval a cubic Hermite in the tangent space at its
    first sample (`pinocchio.difference` / `integrate`) with the samples' central-difference
    tangents (one-sided at the ends)."""

    def __init__(self, model, t, q):
        self.model, self.t, self.q = model, t, q
        n = len(t)
        steps = np.array([pin.difference(model, q[k], q[k + 1]) for k in range(n - 1)])
        h = np.diff(t)
        slopes = steps / h[:, None]
        self.steps, self.h = steps, h
        d = np.zeros((n, model.nv))
        d[1:-1] = (h[1:, None] * slopes[:-1] + h[:-1, None] * slopes[1:]) / (h[:-1] + h[1:])[:, None]
        d[0], d[-1] = slopes[0], slopes[-1]  # one-sided at the ends
        self.d = d

    def __call__(self, s) -> np.ndarray:
        s = np.asarray(s, float)
        k = np.clip(np.searchsorted(self.t, s, side="right") - 1, 0, len(self.t) - 2)
        out = np.empty((len(s), self.model.nq))
        for i, (x, j) in enumerate(zip(s, k, strict=True)):
            h = self.h[j]
            a = min(1.0, max(0.0, (x - self.t[j]) / h))
            h10, h01, h11 = a**3 - 2 * a**2 + a, -2 * a**3 + 3 * a**2, a**3 - a**2
            delta = h10 * h * self.d[j] + h01 * self.steps[j] + h11 * h * self.d[j + 1]
            out[i] = pin.integrate(self.model, self.q[j], delta)
        return out
