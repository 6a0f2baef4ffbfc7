"""The walking pattern: reference ZMP from the footsteps, CoM by preview control, feet by the
swing profile, all sampled every ``dt``.

Reference ZMP (chosen, docs/walking.md): under the initial CoM while standing, on the
stance foot's sole centre during single support, moving linearly from one stance foot to the
next during each double support (and to the final feet's midpoint in the last one).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from humanoid_model.planar_polygon import convex_hull
from humanoid_planner.walking_pattern.footsteps import FootGeometry, Footstep, WalkParameters, footsteps
from humanoid_planner.walking_pattern.preview import PreviewController
from humanoid_planner.walking_pattern.swing import swing_profile

__all__ = ["WalkPattern", "plan_pattern", "support_polygon"]

HULL_TOL = 1e-9  # [m] support polygon: corners this close to an edge line are on it (chosen: far below the soles' mm)


@dataclass
class WalkPattern:
    """Samples k = 0..K-1 at ``t`` [s]: ``zmp_ref``, ``zmp`` (K, 2) [m]; ``com`` (K, 3) [m] (z
    constant: the cart-table height above the soles plus their height), ``com_vel``, ``com_acc``
    (K, 2); ``feet`` {'r', 'l': (K, 3) sole centres [m]}; ``support`` (K,) 'ds', 'r' or 'l'
    (the stance foot); ``steps`` the footstep list."""

    params: WalkParameters
    geometry: FootGeometry
    steps: list[Footstep]
    t: np.ndarray
    zmp_ref: np.ndarray
    zmp: np.ndarray
    com: np.ndarray
    com_vel: np.ndarray
    com_acc: np.ndarray
    feet: dict = field(default_factory=dict)
    support: np.ndarray = None

    def summary(self) -> dict:
        """The pattern as WALK.json keeps it under ``walking`` (docs/walking.md): the parameters, each
        footstep's foot, target, lift-off and landing, the CoM, the ZMP (reference and planned), the
        feet and the support."""
        p = self.params
        return {
            "parameters": {k: getattr(p, k) for k in p.__dataclass_fields__},
            "footsteps": [
                {"index": s.index, "foot": s.foot, "target": list(s.target), "t_lift": s.t_lift, "t_land": s.t_land}
                for s in self.steps
            ],
            "com": self.com.tolist(),
            "zmp_ref": self.zmp_ref.tolist(),
            "zmp": self.zmp.tolist(),
            "feet": {k: v.tolist() for k, v in self.feet.items()},
            "support": self.support.tolist(),
        }

    def polygon(self, k: int) -> np.ndarray:
        """Support polygon (counter-clockwise (m, 2) [m]) at sample ``k``."""
        s = self.support[k]
        feet = [self.feet["r"][k], self.feet["l"][k]] if s == "ds" else [self.feet[s][k]]
        return support_polygon(feet, self.geometry)


def support_polygon(centres, g: FootGeometry) -> np.ndarray:
    """Convex hull (counter-clockwise, `humanoid_model.planar_polygon.convex_hull`) of the sole
    rectangles centred at ``centres`` (x, y[, z]); a corner within `HULL_TOL` of an edge line (two
    aligned soles' inner corners, off the line by rounding) is not a vertex."""
    corners = np.array([[sx * g.half_length, sy * g.half_width] for sx in (-1, 1) for sy in (-1, 1)])
    pts = np.vstack([np.asarray(c, float)[:2] + corners for c in centres])
    return convex_hull(pts, tol=HULL_TOL)


def plan_pattern(p: WalkParameters, g: FootGeometry) -> WalkPattern:
    """The pattern of parameters ``p`` for feet ``g``."""
    steps = footsteps(p, g)
    K = int(round(p.duration / p.dt)) + 1
    t = np.arange(K) * p.dt
    feet = {
        "r": np.tile([g.x0, -g.half_spacing, g.sole_z], (K, 1)),
        "l": np.tile([g.x0, g.half_spacing, g.sole_z], (K, 1)),
    }
    support = np.full(K, "ds", dtype="<U2")
    mid = np.array(g.com_xy, float)
    ref = np.tile(mid, (K, 1))
    other = {"r": "l", "l": "r"}
    # standing, then the ZMP moves to the first stance foot during the last t_ds of t_start
    first_stance = _pos(steps, other, 0, g)
    _ramp(ref, t, p.t_start - p.t_ds, p.t_start, mid, first_stance)
    for i, st in enumerate(steps):
        a, b = st.t_lift, st.t_land
        stance = _pos(steps, other, i, g)
        ss = (t >= a - 1e-9) & (t < b - 1e-9)
        ref[ss] = stance
        support[ss] = other[st.foot]
        # swing foot
        tau = (t[ss] - a) / p.t_ss
        s, h = swing_profile(tau, p.swing)
        start, target = np.array(st.start), np.array(st.target)
        f = feet[st.foot]
        f[ss, :2] = start + s[:, None] * (target - start)
        f[ss, 2] = g.sole_z + p.step_height * h
        f[t >= b - 1e-9, :2] = target
        # double support after landing: ZMP to the next stance foot (the landed one) or the midpoint
        nxt = np.array(st.target) if i + 1 < len(steps) else (np.array(st.target) + stance) / 2
        _ramp(ref, t, b, b + p.t_ds, stance, nxt)
    ctl = PreviewController(g.z_c, p.dt, p.horizon, p.qe, p.r)
    states, zmp = ctl.run(ref)
    com = np.column_stack([states[:, 0, :], np.full(K, g.z_c + g.sole_z)])
    return WalkPattern(p, g, steps, t, ref, zmp, com, states[:, 1, :], states[:, 2, :], feet, support)


def _pos(steps, other, i, g: FootGeometry) -> np.ndarray:
    """Sole centre (x, y) of the stance foot during step ``i``."""
    foot = other[steps[i].foot]
    for st in reversed(steps[:i]):
        if st.foot == foot:
            return np.array(st.target)
    return np.array([g.x0, g.half_spacing if foot == "l" else -g.half_spacing])


def _ramp(ref, t, a, b, p0, p1) -> None:
    """ref(t) linear from p0 at a to p1 at b; p1 held after b (until overwritten)."""
    m = (t >= a - 1e-9) & (t < b - 1e-9)
    w = ((t[m] - a) / (b - a))[:, None]
    ref[m] = p0 + w * (p1 - p0)
    ref[t >= b - 1e-9] = p1
