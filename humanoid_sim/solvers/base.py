"""Common interface of the contact solvers (spec ../shared/spec/000_chardonnet.md §2.6–2.8).

The frictional contact problem of one collision group, at velocity level (eq. 3.25–3.26):

    v = W f + v_free,   per contact c (rows n, t1, t2):
    Signorini  0 ≤ f_n ⊥ v_n ≥ 0,   Coulomb  ‖f_t‖ ≤ μ f_n,  v_t ≠ 0 ⇒ f_t = −μ f_n v_t/‖v_t‖.

`W` is the velocity-level Delassus matrix (W = dt·Λ with Λ = J M⁻¹ Jᵀ from
`humanoid_sim.delassus`, plus an optional per-contact compliance on its diagonal, §2.15), so `f`
is a force [N] (impulse/dt). With W = Λ instead, `f` is an impulse [N·s]; the solvers do not
care. Units of the residuals follow: complementarity [N·m/s], penetration [m/s], cone [N].

    problem = ContactProblem(W, v_free, mu)
    result = get_solver("nsgs_newton").solve(problem, warm_start=None, settings=None)
    result.impulses, result.velocities, result.iterations, result.residuals, result.converged
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np

from humanoid_model.exceptions import SolverError

__all__ = ["ContactProblem", "SolverSettings", "SolverResult", "residuals", "get_solver",
           "SOLVERS", "register"]


@dataclass
class ContactProblem:
    """W (3m, 3m) symmetric PSD; v_free (3m,); mu (m,) ≥ 0.

    restitution (m,) in [0, 1]: Newton restitution e per contact (used by `impact_lcp`).
    compliance (m,) or (3m,) ≥ 0: added to W's diagonal (deformable soles, spec §2.15 eq. 4.21:
    W_total = dt Λ + K_c⁻¹/dt; a dense K_c⁻¹ block can be added to W directly instead).
    """

    W: np.ndarray
    v_free: np.ndarray
    mu: np.ndarray
    restitution: np.ndarray | None = None
    compliance: np.ndarray | None = None
    source: str = "contact problem"

    def __post_init__(self):
        W = np.asarray(self.W, dtype=float)
        v = np.asarray(self.v_free, dtype=float).reshape(-1)
        mu = np.atleast_1d(np.asarray(self.mu, dtype=float)).reshape(-1)
        m = v.shape[0] // 3
        src = self.source
        if v.shape[0] != 3 * m:
            raise SolverError(f"{src}: field 'v_free' must have 3m entries; got {v.shape[0]}")
        if W.shape != (3 * m, 3 * m):
            raise SolverError(f"{src}: field 'W' must be ({3 * m}, {3 * m}); got {W.shape}")
        if mu.shape[0] == 1 and m != 1:
            mu = np.full(m, mu[0])
        if mu.shape != (m,):
            raise SolverError(f"{src}: field 'mu' must have {m} entries; got {mu.shape[0]}")
        if not (np.all(np.isfinite(W)) and np.all(np.isfinite(v)) and np.all(np.isfinite(mu))):
            raise SolverError(f"{src}: field 'W'/'v_free'/'mu' contains NaN or inf")
        if np.any(mu < 0):
            raise SolverError(f"{src}: field 'mu' must be >= 0; value {mu.tolist()}")
        if self.compliance is not None:
            c = np.asarray(self.compliance, dtype=float).reshape(-1)
            if c.shape[0] == m:
                c = np.repeat(c, 3)
            if c.shape != (3 * m,) or np.any(~np.isfinite(c)) or np.any(c < 0):
                raise SolverError(f"{src}: field 'compliance' must be m or 3m finite values >= 0; value {c.tolist()}")
            W = W + np.diag(c)
        e = None
        if self.restitution is not None:
            e = np.atleast_1d(np.asarray(self.restitution, dtype=float)).reshape(-1)
            if e.shape[0] == 1 and m != 1:
                e = np.full(m, e[0])
            if e.shape != (m,) or np.any(~np.isfinite(e)) or np.any((e < 0) | (e > 1)):
                raise SolverError(f"{src}: field 'restitution' must be m values in [0, 1]; value {np.ravel(self.restitution).tolist()}")
        self.W_eff = np.ascontiguousarray(W)
        self.v_free = np.ascontiguousarray(v)
        self.mu = np.ascontiguousarray(mu)
        self.restitution = e

    @classmethod
    def trusted(cls, W: np.ndarray, v_free: np.ndarray, mu: np.ndarray, compliance=None,
                source: str = "contact problem") -> "ContactProblem":
        """Hot-path constructor for arrays the simulator built itself: float64, W (3m, 3m),
        v_free (3m,), mu (m,) >= 0, compliance None or (3m,) >= 0. Skips the field-by-field
        validation of the normal constructor (about 20 µs a step, most of the solver's Python
        overhead) and keeps one check that catches a diverging simulation: non-finite v_free or W."""
        W = np.ascontiguousarray(W, dtype=float)
        v_free = np.ascontiguousarray(v_free, dtype=float)
        if W.shape != (v_free.shape[0], v_free.shape[0]) or not np.isfinite(v_free.sum() + W.sum()):
            return cls(W, v_free, mu, compliance=compliance, source=source)  # full checks, clear error
        self = cls.__new__(cls)
        self.W, self.v_free, self.mu = W, v_free, np.ascontiguousarray(mu, dtype=float)
        self.restitution, self.compliance, self.source = None, compliance, source
        self.W_eff = W if compliance is None else np.ascontiguousarray(W + np.diag(compliance))
        return self

    @property
    def m(self) -> int:
        return self.v_free.shape[0] // 3


@dataclass
class SolverSettings:
    """Stopping rules shared by the iterative solvers. The thesis gives no ε
    (../shared/spec/000_chardonnet.md:341); the residual thresholds are the acceptance bounds of
    §6.2 B4 (../shared/spec/000_chardonnet.md:1016-1017: v_n ≥ −1e-6 m/s, |f_n v_n| ≤ 1e-6);
    tol_rel, tol_cone, the Newton numbers and max_iterations are our choices.

    max_iterations: sweep budget; time_budget [s]: wall-clock budget (None = none). When a
      budget runs out the best iterate is returned with converged=False (the last one unless
      its natural-map residual exceeds twice the smallest seen, then that one).
    tol_rel: relative change of eq. 3.34, Σ‖Δf_c‖ / max(Σ‖f_c‖, tiny) (guarded denominator).
    tol_complementarity [N·m/s] on max |f_n v_n|; tol_penetration [m/s] on max(−v_n);
    tol_cone [N] on max(‖f_t‖ − μ f_n, −f_n). Convergence needs ALL of them (so a solver never
      stops on relative change alone).
    newton_tol / newton_max_iterations: Alart–Curnier local solver, ‖φ‖ relative to ρ_n‖v_loc‖.
    facets: polyhedral cone facets for `lemke_lcp` (spec §2.8: at least 8 facets for 10 %,
      ../shared/spec/000_chardonnet.md:380; default 8 per the brief).
    frictionless: `lemke_lcp` solves the normal-only LCP.
    """

    max_iterations: int = 500
    time_budget: float | None = None
    tol_rel: float = 1e-6
    tol_complementarity: float = 1e-6
    tol_penetration: float = 1e-6
    tol_cone: float = 1e-9
    newton_tol: float = 1e-12
    newton_max_iterations: int = 30
    facets: int = 8
    frictionless: bool = False

    def with_(self, **kw) -> "SolverSettings":
        return replace(self, **kw)


@dataclass
class SolverResult:
    impulses: np.ndarray          # (3m,) f, rows (n, t1, t2) per contact
    velocities: np.ndarray        # (3m,) v = W f + v_free
    iterations: int
    residuals: dict
    converged: bool
    time: float                   # [s] wall time of the solve
    solver: str = ""
    extra: dict = field(default_factory=dict)


def residuals(problem: ContactProblem, f, v=None, slide_tol: float = 1e-6) -> dict:
    """True residuals of the Coulomb–Signorini law at f (shared by all solvers).

    complementarity [N·m/s]: max |f_n v_n|; penetration [m/s]: max(−v_n, 0);
    cone [N]: max(‖f_t‖ − μ f_n, −f_n, 0); dissipation: for sliding contacts (‖v_t‖ > slide_tol
    [m/s]) max of 1 − cos∠(f_t, −v_t) (0 = maximal dissipation) and slip_force [N]: max
    |‖f_t‖ − μ f_n| over them; natural_map [N]: max over contacts of
    ‖f − P_K(f − ρ (v + μ‖v_t‖ e_n))‖ with ρ = 1/W_nn (De Saxcé's fixed point: 0 ⟺ solution).
    """
    from ._gs import residual_kernel

    f = np.ascontiguousarray(f, dtype=float).reshape(-1)
    if v is None:
        v = problem.W_eff @ f + problem.v_free
    v = np.ascontiguousarray(v, dtype=float).reshape(-1)
    o = np.empty(7)
    residual_kernel(problem.W_eff, problem.mu, f, v, slide_tol, o)
    return {"complementarity": float(o[0]), "penetration": float(o[1]), "cone": float(o[2]),
            "dissipation": float(o[3]), "slip_force": float(o[4]), "natural_map": float(o[5]),
            "sliding_contacts": int(o[6])}


def project_cones(y, mu):
    """Euclidean projection of each row (n, t1, t2) onto the Coulomb cone ‖t‖ ≤ μ n."""
    y = np.asarray(y, float).reshape(-1, 3)
    out = np.zeros_like(y)
    n, t = y[:, 0], y[:, 1:]
    nt = np.linalg.norm(t, axis=1)
    inside = nt <= mu * n
    out[inside] = y[inside]
    polar = (mu * nt <= -n)
    mid = ~inside & ~polar
    if np.any(mid):
        a = (n[mid] + mu[mid] * nt[mid]) / (1.0 + mu[mid] ** 2)
        out[mid, 0] = a
        out[mid, 1:] = (mu[mid] * a / np.maximum(nt[mid], 1e-300))[:, None] * t[mid]
    return out


# --------------------------------------------------------------------------- registry
SOLVERS: dict = {}


def register(name):
    def deco(cls):
        SOLVERS[name] = cls
        cls.name = name
        return cls
    return deco


def get_solver(name: str, **kw):
    """A solver instance by name: nsgs_newton (default), nsgs, projection, lemke_lcp,
    impact_lcp, pinocchio_admm, pinocchio_pgs."""
    from humanoid_sim import solvers as _pkg  # noqa: F401  (imports all modules, filling SOLVERS)

    cls = SOLVERS.get(name)
    if cls is None:
        raise SolverError(f"solver: field 'solver' must be one of {sorted(SOLVERS)}; value {name!r}")
    return cls(**kw)
