"""Slowing a quasi-static motion where its dynamics would push the centre of pressure out of the
support: a time scaling for balance.

A contact plan's motion is statically stable (its CoM above the support polygon, Escande 2008,
§5.3.2) but it moves: the contact wrench it needs is the static one (the weight) plus a dynamic
one (the rate of change of the centroidal momentum, Orin and Goswami's ḣ_G). Followed r times
slower along the same path (a time scaling with constant rate r), the dynamic part scales with r²
and the static part does not. So at each sample with a single contact, where the centre of
pressure is fixed by the wrench (one contact, or contacts in one plane: their centre of pressure
is the wrench's), the largest r ≤ 1 is found for which

    the CoP of  w_static + r² w_dynamic  stays `SLACK` inside the controller's CoP region
    (the convex hull of the touching polygons, each shrunk by its ``cop_margin``), and its
    tangential force within the friction pyramid,

by bisection down to `R_MIN`. The rates are then spread (each sample takes the least rate within
`WINDOW` around it, so a slow-down begins before the place that needs it) and the samples get the
new times t'_{k+1} = t'_k + (t_{k+1} − t_k) / r_k. Samples whose contacts are not in one plane (a
hand on a table, feet on two steps) keep their rate: the wrench does not fix where each contact's
centre of pressure is.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_model.planar_polygon import convex_hull, shrink, signed_distance

__all__ = ["balance_rates", "retime", "R_MIN", "SLACK", "WINDOW"]

R_MIN = 0.2  # (chosen) the slowest rate: a motion at most 5 times slower
SLACK = 0.002  # [m] (chosen) CoP slack left to the controller's tracking inside its region
WINDOW = 0.5  # [s] (chosen) a slow-down begins this long before the sample that needs it
BISECTION = 12  # steps of the rate's bisection: 2⁻¹² of the range
COPLANAR = (0.005, np.radians(1.0))  # (chosen) [m], [rad]: contacts this close in offset and angle share a plane


def _cop_ok(F, M, polygon, mu) -> bool:
    """Whether a wrench (force F, moment M about the contact frame's origin, in that frame) has
    its CoP inside ``polygon`` by SLACK and its tangential force within the pyramid of mu."""
    if F[2] <= 0:
        return False
    cop = np.array([-M[1] / F[2], M[0] / F[2]])
    if len(polygon) >= 3 and signed_distance(polygon, cop) < SLACK:
        return False
    m = mu / np.sqrt(2.0)
    return abs(F[0]) <= m * F[2] and abs(F[1]) <= m * F[2]


def _support(reference, controller, held, k):
    """(R, p, region): the frame (rotation, origin) of the held contacts' common plane at sample k
    and their CoP region in it (the convex hull of their touching polygons, each shrunk by the
    controller's CoP margin); None without a held contact or when they are not coplanar (within
    `COPLANAR` in angle and offset)."""
    if not held:
        return None
    s = controller.settings
    R0, p0 = reference.frames[held[0]][0][k], reference.frames[held[0]][1][k]
    points = []
    for name in held:
        R, p = reference.frames[name][0][k], reference.frames[name][1][k]
        if np.arccos(np.clip(R[:, 2] @ R0[:, 2], -1.0, 1.0)) > COPLANAR[1] or abs((p - p0) @ R0[:, 2]) > COPLANAR[0]:
            return None
        ph = reference.phase_at(name, float(reference.t[k]))
        polygon = ph.polygon if ph is not None and ph.polygon is not None else controller.surface(name)
        region = shrink(polygon, s.cop_margin) if len(polygon) >= 3 else polygon
        world = p + np.column_stack([region, np.zeros(len(region))]) @ R.T
        points.append((world - p0) @ R0)
    pts = np.vstack(points)[:, :2]
    return R0, p0, convex_hull(pts) if len(pts) >= 3 else pts


def balance_rates(reference, controller) -> np.ndarray:
    """The largest rate (N,) in [R_MIN, 1] of each sample of ``reference`` (module docstring),
    for ``controller``'s model, CoP margin and friction."""
    model, data = controller.model, controller.model.createData()
    s = controller.settings
    g = model.gravity.linear
    mass = float(sum(i.mass for i in model.inertias))
    rates = np.ones(len(reference.t))
    for k, t in enumerate(reference.t):
        held = [name for name, f in reference.active(float(t)).items() if f > 0]
        region = _support(reference, controller, held, k)
        if region is None:
            continue
        R, p, region = region
        q, v, a = reference.q[k], reference.v[k], reference.a[k]
        pin.computeCentroidalMomentumTimeVariation(model, data, q, v, a)
        dh = data.dhg.vector  # (m c̈, L̇_G) in world axes
        c = data.com[0]

        def wrench(r, c=c, R=R, p=p, dh=dh):
            f = -mass * g + r * r * dh[:3]  # the force the contact must give [N], world
            m_g = r * r * dh[3:]  # its moment about the CoM
            m_p = m_g + np.cross(c - p, f)  # about the contact frame's origin
            return R.T @ f, R.T @ m_p

        if _cop_ok(*wrench(1.0), region, s.mu):
            continue
        lo, hi = R_MIN, 1.0
        if not _cop_ok(*wrench(lo), region, s.mu):
            rates[k] = R_MIN
            continue
        for _ in range(BISECTION):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _cop_ok(*wrench(mid), region, s.mu) else (lo, mid)
        rates[k] = lo
    return rates


def retime(reference, rates):
    """A `MotionReference` of the same samples at new times (module docstring): each rate the
    least within `WINDOW` around its sample; the contact phases' times and ramps mapped too."""
    from dataclasses import replace

    from humanoid_control.wbc.reference import MotionReference

    t = reference.t
    if np.all(rates >= 1.0):
        return reference
    spread = np.array([rates[(t >= tk - WINDOW) & (t <= tk + WINDOW)].min() for tk in t])
    dt = np.diff(t) / spread[:-1]
    new_t = np.concatenate([[t[0]], t[0] + np.cumsum(dt)])

    def remap(x):
        return float(np.interp(x, t, new_t)) if np.isfinite(x) else x

    phases = []
    for ph in reference.phases:
        start, end = remap(ph.start), remap(ph.end)
        scale_in = (remap(ph.start + ph.ramp_in) - start) if np.isfinite(ph.start) and ph.ramp_in > 0 else ph.ramp_in
        scale_out = (end - remap(ph.end - ph.ramp_out)) if np.isfinite(ph.end) and ph.ramp_out > 0 else ph.ramp_out
        phases.append(replace(ph, start=start, end=end, ramp_in=scale_in, ramp_out=scale_out))
    return MotionReference(
        reference.model,
        new_t,
        reference.q,
        phases,
        reference.locations,
        reference.base_frame,
        reference.source,
        track=reference.locations,
    )
