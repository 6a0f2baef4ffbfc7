"""`impact_lcp`: frictionless Newton-restitution impact (Chardonnet 2009,
§3.1.2, eqs. (3.1)–(3.9)), solved by Lemke:

    0 ≤ f ⊥ Λ_nn f + v⁻_n + e min(v⁻_n, 0) ≥ 0,     v⁺ = Λ f + v⁻,

with `problem.W` = Λ (impulse form: f is an impulse [N·s]) and `problem.v_free` = v⁻, the
pre-impact relative contact velocities (rows n, t1, t2), `problem.restitution` = e per contact.
Deviation from (3.7): the restitution term only applies to approaching contacts (v⁻_n < 0);
(3.7) as printed would let a separating contact pull (v⁺ ≥ −e v⁻ < 0 allows penetration
velocity). Sequencing in a time step: docs/solvers.md."""

import time

import numpy as np

from ._lemke import lcp_residuals, normal_lcp
from .base import ContactSolver, SolverResult


class ImpactLCP(ContactSolver):
    """Frictionless Newton-restitution impact LCP by Lemke (module docstring)."""

    name = "impact_lcp"

    def solve(self, problem, warm_start=None, settings=None):
        """See `ContactSolver.solve`, in the impulse form: W = Λ [m/s per N·s], v_free = v⁻
        [m/s], impulses [N·s]; warm_start and settings are ignored. Residuals are the LCP's
        (`lcp_complementarity`, `lcp_feasibility`) and `restitution` [m/s], max over loaded
        contacts of |v⁺_n + e min(v⁻_n, 0)|; iterations = pivots; `extra["status"]` as Lemke's."""
        t0 = time.perf_counter()
        m = problem.m
        e = problem.restitution if problem.restitution is not None else np.zeros(m)
        vn = problem.v_free[0::3]
        q = vn + e * np.minimum(vn, 0.0)
        f, z, Mm, status, piv = normal_lcp(problem, q)
        v = problem.W_eff @ f + problem.v_free
        res = lcp_residuals(Mm, q, z)
        res["restitution"] = float(np.max(np.abs(np.where(z > 0, v[0::3] + e * np.minimum(vn, 0), 0.0)), initial=0.0))
        return SolverResult(
            f, v, int(piv), res, status == 0, time.perf_counter() - t0, self.name, {"status": int(status)}
        )
