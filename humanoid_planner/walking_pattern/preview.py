"""ZMP preview control of the cart-table model (Kajita et al., ICRA 2003, §III-IV).

The CoM of height z_c moves as a cart on a massless table; per horizontal axis, with the jerk
u as input and the sampling period T:

    x_{k+1} = A x_k + B u_k,  x = [c, ċ, c̈],  A = [[1, T, T²/2], [0, 1, T], [0, 0, 1]],
    B = [T³/6, T²/2, T],      p_k = C x_k,    C = [1, 0, -z_c/g]   (the ZMP)

The servo form with the integral of the tracking error (Kajita 2003, eqs. 9-13, after
Katayama 1985) minimises Σ Qe·e_k² + R·Δu_k², e = p - p_ref, on the augmented system
x̃ = [e; Δx]; its Riccati matrix P comes from `scipy.linalg.solve_discrete_are` and gives

    u_k = -G_i Σ_{i<=k} e_i - G_x x_k - Σ_{j=1..N} G_p(j) p_ref(k+j)

Chosen constants (docs/walking.md): Qe = 1, R = 1e-6 (Kajita 2003's weights), T = 5 ms (the
200 Hz of the trajectory; HRP-2's control loop is 5 ms, [HRP2-T1], Chardonnet 2009, §5.2.3), preview horizon
1.6 s (N = 320; Kajita 2003 shows the tracking is good from 1.6 s on), z_c = the CoM height of
HRP-2's half-sitting above the soles (0.809 m; Kajita 2003 used 0.814 m for HRP-2).
"""

from __future__ import annotations

import numpy as np
from scipy.linalg import solve_discrete_are

from humanoid_model.validation import finite_number
from humanoid_planner.exceptions import PlanningError

__all__ = ["PreviewController", "GRAVITY"]

GRAVITY = 9.81  # [m/s²]


class PreviewController:
    """Preview gains for CoM height ``z_c`` [m], period ``dt`` [s], ``horizon`` [s], weights ``qe``, ``r``."""

    def __init__(self, z_c: float, dt: float = 0.005, horizon: float = 1.6, qe: float = 1.0, r: float = 1e-6):
        src = "preview controller"
        self.z_c = finite_number(z_c, src, "z_c", 0.0, strict=True, unit="m", error=PlanningError)
        self.dt = T = finite_number(dt, src, "dt", 0.0, 0.1, strict=True, unit="s", error=PlanningError)
        self.horizon = finite_number(horizon, src, "horizon", T, unit="s", error=PlanningError)
        self.qe = finite_number(qe, src, "qe", 0.0, strict=True, error=PlanningError)
        self.r = finite_number(r, src, "r", 0.0, strict=True, error=PlanningError)
        self.n_preview = int(round(self.horizon / T))
        self.A = np.array([[1.0, T, T * T / 2], [0.0, 1.0, T], [0.0, 0.0, 1.0]])
        self.B = np.array([T**3 / 6, T * T / 2, T])
        self.C = np.array([1.0, 0.0, -self.z_c / GRAVITY])
        At = np.zeros((4, 4))
        At[0, 0], At[0, 1:], At[1:, 1:] = 1.0, self.C @ self.A, self.A
        Bt = np.concatenate([[self.C @ self.B], self.B])[:, None]
        Qt = np.diag([self.qe, 0.0, 0.0, 0.0])
        P = solve_discrete_are(At, Bt, Qt, np.array([[self.r]]))
        S = self.r + (Bt.T @ P @ Bt).item()
        K = (Bt.T @ P @ At).ravel() / S
        self.G_i, self.G_x = float(K[0]), K[1:].copy()
        Ac = At - Bt @ K[None, :]
        X = -Ac.T @ P @ np.array([1.0, 0.0, 0.0, 0.0])
        G_p = np.empty(self.n_preview)
        G_p[0] = -self.G_i
        for j in range(1, self.n_preview):
            G_p[j] = float(Bt[:, 0] @ X) / S
            X = Ac.T @ X
        self.G_p = G_p  # G_p[j-1] weighs p_ref(k+j)

    def run(self, zmp_ref: np.ndarray, x0=None) -> tuple[np.ndarray, np.ndarray]:
        """Track ``zmp_ref`` (K,) or (K, d) [m] sampled every ``dt``; the reference is held at its
        last value beyond its end for the preview; the CoM starts at rest at ``x0`` [m] (default the first
        reference). Returns (states (K, 3[, d]) = [c, ċ, c̈], zmp (K[, d]))."""
        ref = np.asarray(zmp_ref, float)
        one = ref.ndim == 1
        ref = ref[:, None] if one else ref
        K, d = ref.shape
        if K == 0 or not np.all(np.isfinite(ref)):
            raise PlanningError("preview controller: field 'zmp_ref' must be a non-empty finite sequence")
        padded = np.vstack([ref, np.repeat(ref[-1:], self.n_preview, axis=0)])
        x = np.zeros((3, d))
        x[0] = ref[0] if x0 is None else np.asarray(x0, float)
        states, zmp = np.empty((K, 3, d)), np.empty((K, d))
        err_sum = np.zeros(d)
        for k in range(K):
            p = self.C @ x
            states[k], zmp[k] = x, p
            err_sum += p - ref[k]
            u = -self.G_i * err_sum - self.G_x @ x - self.G_p @ padded[k + 1 : k + 1 + self.n_preview]
            x = self.A @ x + np.outer(self.B, u)
        if one:
            return states[:, :, 0], zmp[:, 0]
        return states, zmp
