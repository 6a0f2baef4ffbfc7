"""Coupling of a condensed sole into the velocity-level contact problem (spec
../shared/spec/000_chardonnet.md:528–545, eqs 4.16–4.22 and 4.32, with the digest's three
corrections, 000_chardonnet.md:541–544). Pure functions: not wired into `World` yet.

    W_total = W_rigid + T K_c⁻¹ Tᵀ / dt            (4.21, W_rigid = dt Λ: correction 1)
    V_free  = v_free − T U_c^t / dt                 (4.21, U_c^t the previous contact-node displacement: correction 2)
    after the solve: U_c = K_c⁻¹ Tᵀ f               (4.22)

T = blockdiag(F_i R) rotates each contact node's 3 × 3 block from the sole frame into its contact
frame (correction 3): R (3 × 3) is the sole frame's orientation in the world (columns: sole axes
in world coordinates) and F_i (3 × 3) the contact frame, rows (n, t1, t2) in the world, as in
`humanoid_sim.contacts`. The normal n points from the ground into the sole (the foot is body A
of the contact), so a positive normal force compresses the sole and a positive displacement
along n opens the gap: the compliance enters W with a plus sign. For contact points that are not
nodes, pass P K_c⁻¹ Pᵀ and P U (eq. 4.32, `Distribution.compliance` / `.displacements`).
Units: W [m/s per N], f [N], U [m], dt [s].
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import finite_number, message

__all__ = ["frame_rotation", "sole_coupling", "coupled_problem", "contact_displacements"]

SOURCE = "soles.coupling"


def frame_rotation(frames, sole_rotation=None) -> np.ndarray:
    """T (3m × 3m): blockdiag(F_i R) of contact frames (m, 3, 3) and the sole orientation R."""
    F = np.asarray(frames, float).reshape(-1, 3, 3)
    R = np.eye(3) if sole_rotation is None else np.asarray(sole_rotation, float)
    if R.shape != (3, 3) or np.abs(R.T @ R - np.eye(3)).max() > 1e-9:
        raise ConfigError(message(SOURCE, "sole_rotation", "a 3 × 3 rotation matrix", R))
    return sla.block_diag(*(Fi @ R for Fi in F)) if len(F) else np.zeros((0, 0))


def _compliance(compliance, m):
    C = np.asarray(compliance, float)
    if C.shape != (3 * m, 3 * m) or not np.all(np.isfinite(C)):
        raise ConfigError(message(SOURCE, "compliance", f"a finite {3 * m} × {3 * m} matrix", C.shape))
    return C


def sole_coupling(compliance, frames, dt, U_prev=None, sole_rotation=None) -> tuple[np.ndarray, np.ndarray]:
    """(ΔW, Δv): the sole's additions to W and v_free of its m contacts (module docstring).
    compliance: K_c⁻¹ (3m × 3m) [m/N] in the sole frame; frames (m, 3, 3); dt [s] > 0;
    U_prev: U_c^t (m, 3) or (3m,) [m] in the sole frame (None: undeformed)."""
    dt = finite_number(dt, SOURCE, "dt", minimum=0.0, strict=True, unit="s")
    T = frame_rotation(frames, sole_rotation)
    m = T.shape[0] // 3
    C = _compliance(compliance, m)
    dW = T @ C @ T.T / dt
    dv = np.zeros(3 * m) if U_prev is None else -(T @ np.asarray(U_prev, float).reshape(-1)) / dt
    return 0.5 * (dW + dW.T), dv


def coupled_problem(W_rigid, v_free, compliance, frames, dt, U_prev=None, sole_rotation=None):
    """(W_total, V_free) = (W_rigid + ΔW, v_free + Δv) (eq. 4.21 corrected). W_rigid is the
    velocity-level Delassus block dt Λ of the same contacts, in the same order."""
    dW, dv = sole_coupling(compliance, frames, dt, U_prev, sole_rotation)
    return np.asarray(W_rigid, float) + dW, np.asarray(v_free, float).reshape(-1) + dv


def contact_displacements(compliance, frames, forces, sole_rotation=None) -> np.ndarray:
    """U_c = K_c⁻¹ F_c (eq. 4.22) [m], (m, 3) in the sole frame, of the solved contact forces
    f (m, 3) or (3m,) [N] in the contact frames (F_c = Tᵀ f: forces on the sole's nodes)."""
    T = frame_rotation(frames, sole_rotation)
    C = _compliance(compliance, T.shape[0] // 3)
    return (C @ (T.T @ np.asarray(forces, float).reshape(-1))).reshape(-1, 3)
