"""Impact stage: Newton restitution before the frictional solve (spec ../shared/spec/000_chardonnet.md
§2.6, eqs. 3.7–3.9; the sequencing is our choice, the thesis does not spell it out).

When a group has a contact with restitution e > 0 that is approaching faster than the impact
speed (``IMPACT_SPEED_STEPS``·|g|·dt) and will touch within the step (gap + dt v_n⁻ ≤ 0), the
frictionless impact LCP (3.7) of the `impact_lcp` solver runs first on the free contact
velocities (the pre-impact velocity of an impact at the end of the free step; Λ = J M̃⁻¹ Jᵀ,
impulses) over the contacts that touch within the step; the velocities jump (3.9), and the
frictional problem of the step then runs on the updated free velocity
(`humanoid_sim.contact_solve`). With e = 0 the velocity-level contact solve alone gives a
plastic impact, and worlds without restitution skip this stage.
"""

from __future__ import annotations

import numpy as np

from humanoid_sim.solvers import ContactProblem, get_solver

__all__ = ["Impacts", "impact_speed", "IMPACT_SPEED_STEPS"]

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
        """Apply the impacts of every group (`humanoid_sim.delassus.GroupSystem`, their
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
