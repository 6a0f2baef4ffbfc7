"""Impact stage: Newton restitution before the frictional solve (Chardonnet 2009,
§3.1.2, eqs. (3.7)–(3.9); the sequencing is our choice, the thesis does not spell it out).

When a group has a contact with restitution e > 0 that is approaching faster than the impact
speed (``IMPACT_SPEED_STEPS``·|g|·dt) and will touch within the step (gap + dt v_n⁻ ≤ 0), the
frictionless impact LCP (3.7) of the `impact_lcp` solver runs first on the free contact
velocities (the pre-impact velocity of an impact at the end of the free step; Λ = J M̃⁻¹ Jᵀ,
impulses) over the contacts that touch within the step; the velocities jump (3.9), and the
frictional problem of the step then runs on the updated free velocity
(`humanoid_sim.stages.solve`). With e = 0 the velocity-level contact solve alone gives a
plastic impact, and worlds without restitution skip this stage.

Speculative activation (`SweptMargins`; our addition, the thesis has no proximity threshold,
Chardonnet 2009, §3.1.5): a contact enters the step's problem when its gap is within the distance
its bodies can travel in this step, not only within the fixed activation margin
(`humanoid_sim.collision.detector.DEFAULT_MARGIN`, 5 mm = 5 m/s at 1 ms). Per mobile shape the sweep is
dt·(|v(o)| + |ω|·ρ): the free velocity's speed of the joint-frame origin o plus the angular
speed times ρ, the distance from o to the farthest point of the shape (|placement| + bounding
radius), a bound on every point's speed; a mobile–static pair is active within
max(margin, sweep), a mobile–mobile pair within max(margin, sweep_a + sweep_b). Such a contact
has gap ≥ 0, so its gap term is gap/dt (`humanoid_sim.stages.contacts.gap_term`): the solve lets it
close at most the gap in this step, and the body lands on the surface instead of penetrating.
Without it, a body faster than margin/dt penetrates up to one step's travel, and the
penetration's β·gap/dt correction throws it back up (e = 0: 9.5 m/s at 60 m/s) or it tunnels
through thin static bodies. Below margin/dt every sweep is under the margin and the step is
unchanged (the detector gets no sweep).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from humanoid_sim.solvers import ContactProblem, get_solver

__all__ = ["Impacts", "impact_speed", "IMPACT_SPEED_STEPS", "SweptMargins"]

IMPACT_SPEED_STEPS = 2.0  # impacts need |v_n⁻| > 2 |g| dt (chosen: resting contacts gain |g| dt per step)


def impact_speed(gravity, dt: float) -> float:
    """The approach speed above which a contact with e > 0 is an impact [m/s]."""
    return IMPACT_SPEED_STEPS * max(float(np.linalg.norm(gravity)), 1e-9) * dt


class Impacts:
    """The impact stage (module docstring). speed: `impact_speed` [m/s]; dt [s]."""

    def __init__(self, speed: float, dt: float):
        self.solver = get_solver("impact_lcp")
        self.speed, self.dt = float(speed), float(dt)

    def __call__(self, systems, batch, dv, stats=None) -> int:
        """Apply the impacts of every group (`humanoid_sim.delassus.group.GroupSystem`, their
        ``v_free`` updated in place of the jump) of a step's contact ``batch``; the velocity jumps
        M̃⁻¹Jᵀ P are added to ``dv`` (nv,) [m/s]; each impact solve is counted in ``stats`` (a
        `StepStats`). Returns the number of impact solves."""
        n = 0
        for s in systems:
            nc = s.nc
            if not nc:
                continue
            e = batch.e[s.index]
            if not np.any(e > 0):
                continue
            vfree = s.v_free
            vminus = vfree[0 : 3 * nc : 3]
            gp = batch.gaps[s.index]
            hitting = (vminus < -self.speed) & (gp + self.dt * vminus <= 0) & (e > 0)
            if not np.any(hitting):
                continue
            active = gp + self.dt * np.minimum(vminus, 0) <= 0
            ee = np.where(hitting, e, 0.0)
            rows = np.repeat(active, 3)
            prob = ContactProblem(
                s.Lam[: 3 * nc, : 3 * nc][np.ix_(rows, rows)],
                vfree[: 3 * nc][rows],
                batch.mu[s.index][active],
                restitution=ee[active],
            )
            res = self.solver.solve(prob)
            P = np.zeros(3 * nc)
            P[rows] = res.impulses
            jump = s.X[:, : 3 * nc] @ P
            s.v_free = vfree + s.J @ jump
            dv[s.group.cols] += jump
            n += 1
            if stats is not None:
                stats.record_impact()
        return n


class SweptMargins:
    """Speculative activation (module docstring): ``sweeps(Jw, oMi_p, v)`` -> the distance [m]
    each mobile shape can travel in this step, or None when none exceeds ``margin`` (the
    detector then runs with its fixed margin only).

    model: the World's Pinocchio model; geoms: its mobile geometries
    (`humanoid_sim.collision.geometry.MobileGeom`: joint, placement_p, radius); margin: the activation
    margin [m]; dt [s]."""

    def __init__(self, model, geoms, margin: float, dt: float):
        joint = np.array([g.joint for g in geoms], np.int64)
        nj = int(joint.max(initial=0)) + 1  # joints up to the last one with a shape
        # per joint: parent, first velocity index, velocity count; then the shapes' joints
        self.ints = np.zeros((3, max(nj, joint.shape[0])), np.int64)
        self.ints[0, :nj] = np.array(model.parents, np.int64)[:nj]
        self.ints[1, :nj] = [model.joints[j].idx_v for j in range(nj)]
        self.ints[2, :nj] = [model.joints[j].nv for j in range(nj)]
        self.joint = joint
        self.nj = nj
        self.reach = np.array([np.linalg.norm(g.placement_p) + g.radius for g in geoms], float)
        self.margin, self.dt = float(margin), float(dt)
        self._V = np.zeros((nj, 6))  # joint spatial velocities (work buffer)

    def __call__(self, Jw, oMi_p, v):
        """Jw (6, nv): world joint Jacobians (``data.J``, spatial velocity at the world origin);
        oMi_p (rows up to the last joint with a shape, 3): joint positions [m]; v (nv,): the
        step's free velocity [m/s]. The array returned is new on each call."""
        out = np.empty(self.joint.shape[0])
        smax = _sweeps(Jw, v, self.ints, self.joint, self.reach, oMi_p, self.dt, self._V, out)
        return out if smax > self.margin else None

    def distances(self, Jw, oMi_p, v) -> np.ndarray:
        """The sweep (n_shapes,) [m] of `__call__` (same arguments), also when below the margin."""
        out = np.empty(self.joint.shape[0])
        _sweeps(Jw, v, self.ints, self.joint, self.reach, oMi_p, self.dt, self._V, out)
        return out


@njit(cache=True)
def _sweeps(Jw, v, ints, joint, reach, op, dt, V, out):
    """Per shape k, into out[k]: dt·(|v_O + ω × o| + |ω| reach_k) with (v_O, ω) its joint's world
    spatial velocity (accumulated from the root: V_j = V_parent + Jw[:, cols_j] v[cols_j], in
    the buffer V) and o the joint origin. Returns the largest."""
    parents, idx_v, nv_j = ints[0], ints[1], ints[2]
    V[0, :] = 0.0
    for j in range(1, V.shape[0]):
        pj = parents[j]
        for a in range(6):
            V[j, a] = V[pj, a]
        for c in range(idx_v[j], idx_v[j] + nv_j[j]):
            x = v[c]
            if x != 0.0:
                for a in range(6):
                    V[j, a] += Jw[a, c] * x
    smax = 0.0
    for k in range(joint.shape[0]):
        j = joint[k]
        wx, wy, wz = V[j, 3], V[j, 4], V[j, 5]
        ox, oy, oz = op[j, 0], op[j, 1], op[j, 2]
        vx = V[j, 0] + wy * oz - wz * oy
        vy = V[j, 1] + wz * ox - wx * oz
        vz = V[j, 2] + wx * oy - wy * ox
        s = dt * (np.sqrt(vx * vx + vy * vy + vz * vz) + np.sqrt(wx * wx + wy * wy + wz * wz) * reach[k])
        out[k] = s
        smax = max(smax, s)
    return smax
