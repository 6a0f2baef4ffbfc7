"""Slowing a quasi-static motion where its dynamics would push the centre of pressure out of the
support: a time scaling for balance.

A contact plan's motion is statically stable (its CoM above the support polygon, Escande 2008,
§5.3.2) but it moves: the contact wrench it needs is the static one (the weight) plus a dynamic
one (the rate of change of the centroidal momentum, Orin and Goswami's ḣ_G). Followed r times
slower along the same path (a time scaling with constant rate r), the dynamic part scales with r²
and the static part does not. So at each sample whose contacts lie in one plane (one contact, or
feet on one floor: the wrench fixes their centre of pressure), the largest r ≤ 1 is found for which

    the CoP of  w_static + r² w_dynamic  stays `SLACK` inside the controller's CoP region
    (the convex hull of the touching polygons, each shrunk by its ``cop_margin``), and its
    tangential force within the friction pyramid,

by bisection down to `R_MIN`. A sample that fails even at `R_MIN` has its static CoP within
`SLACK` of the region's edge: it is tried again without the slack, and a sample that fails then
too fails statically, within the margins (slowing cannot help it, and it keeps its rate). The
rates are then lowered to the largest envelope whose slope stays within `SLEW` (a forward and a
backward pass: a slow-down begins before the place that needs it, and the rate never jumps, which
would itself accelerate the motion) and the samples get the new times t'_{k+1} = t'_k + (t_{k+1} − t_k) / r_k.

Where the contacts are not in one plane (a hand on a table, feet on two steps) the wrench does not
fix each contact's centre of pressure: the test is then whether forces in the contacts' friction
pyramids, at the corners of their regions shrunk by the CoP margin and `SLACK`, can make the
wrench (a small QP).
"""

from __future__ import annotations

import numpy as np

from humanoid_control.wbc.support import Support

__all__ = ["balance_rates", "retime", "R_MIN", "SLACK", "SLEW"]

R_MIN = 0.2  # (chosen) the slowest rate: a motion at most 5 times slower
SLACK = 0.005  # [m] (chosen) CoP slack left to the controller inside its region: a +-10 % error on
# every body's mass moves HRP-2's static CoM by up to 4.3 mm along the stairs plan (seeds 0-4:
# 3.4/4.3/3.3/2.5/3.0 mm), and the controller's CoP follows its own model's CoM
SLEW = 1.0  # [1/s] (chosen) the rate changes by at most this per second: from 1 to 0.5 over 0.5 s
BISECTION = 12  # steps of the rate's bisection: 2⁻¹² of the range


def balance_rates(reference, controller) -> np.ndarray:
    """The largest rate (N,) in [R_MIN, 1] of each sample of ``reference`` (module docstring),
    for ``controller``'s model, CoP margin and friction; 1 where even R_MIN fails."""
    supports = (Support(reference, controller, SLACK), Support(reference, controller, 0.0))
    rates = np.ones(len(reference.t))
    for k, t in enumerate(reference.t):
        held = [name for name, f in reference.active(float(t)).items() if f > 0]
        if not held:
            continue
        test = supports[0].test(held, k)
        if test(1.0):
            continue
        lo, hi = R_MIN, 1.0
        if not test(lo):  # the static CoP is within SLACK of the edge: without the slack
            test = supports[1].test(held, k)
            if test(1.0) or not test(lo):  # fast enough, or beyond the margins: slowing cannot help
                continue
        for _ in range(BISECTION):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if test(mid) else (lo, mid)
        rates[k] = lo
    return rates


def retime(reference, rates):
    """A `MotionReference` of the same samples at new times (module docstring): the rates
    lowered to an envelope that changes by at most `SLEW` per second; the contact phases' times
    and ramps mapped too."""
    from dataclasses import replace

    from humanoid_control.wbc.reference import MotionReference

    t = reference.t
    if np.all(rates >= 1.0):
        return reference
    spread = np.array(rates, float)  # the largest envelope below the rates whose slope is within SLEW
    for k in range(1, len(t)):
        spread[k] = min(spread[k], spread[k - 1] + SLEW * (t[k] - t[k - 1]))
    for k in range(len(t) - 2, -1, -1):
        spread[k] = min(spread[k], spread[k + 1] + SLEW * (t[k + 1] - t[k]))
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
    out = MotionReference(
        reference.model,
        new_t,
        reference.q,
        phases,
        reference.locations,
        reference.base_frame,
        reference.source,
        track=reference.locations,
    )
    out.nominal_t, out.nominal_duration = reference.nominal_t, reference.nominal_duration
    return out
