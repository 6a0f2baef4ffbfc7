"""Coupling of a condensed sole into the velocity-level contact problem (Chardonnet
2009, §4.3.4, eqs. (4.16)–(4.22), and §4.5, eq. (4.32)), with three corrections of the printed
equations (numbered below). Pure functions; `add_coupling` is the in-place numba
form the World step uses (`world_coupling.FemSoles.couple`).

    W_total = W_rigid + T K_c⁻¹ Tᵀ / dt            (4.21, W_rigid = dt Λ: correction 1)
    V_free  = v_free − T U_c^t / dt                 (4.21, U_c^t the previous contact-node displacement: correction 2)
    after the solve: U_c = K_c⁻¹ Tᵀ f               (4.22)

Correction 1: (4.21) prints Λ where the velocity-level W_rigid = dt Λ of (3.26) is meant, f being a
force. Correction 2: the thesis prints U̇_c^t/dt and U_s^t where the units call for the previous
contact-node displacement U_c^t/dt. Correction 3: K_c is expressed in the sole frame.

T = blockdiag(F_i R) rotates each contact node's 3 × 3 block from the sole frame into its contact
frame (correction 3): R (3 × 3) is the sole frame's orientation in the world (columns: sole axes
in world coordinates) and F_i (3 × 3) the contact frame, rows (n, t1, t2) in the world, as in
`humanoid_sim.stages.contacts`. The normal n points from the ground into the sole (the foot is body A
of the contact), so a positive normal force compresses the sole and a positive displacement
along n opens the gap: the compliance enters W with a plus sign. For contact points that are not
nodes, pass P K_c⁻¹ Pᵀ and P U (eq. 4.32, `Distribution.compliance` / `.displacements`).
Units: W [m/s per N], f [N], U [m], dt [s].

`add_coupling` adds the same terms to a block of a group's W and v_free in place, block by block
(Q_i C_ij Q_jᵀ, Q_i = F_i R), without forming T: O(k²) for k contacts, where T C Tᵀ costs two
dense products of 3k × 3k matrices; `node_loads` is Tᵀ f the same way. Both are numba kernels
of the World step (`world_coupling.FemSoles`).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg as sla
from numba import njit

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import finite_number, message

__all__ = ["frame_rotation", "sole_coupling", "coupled_problem", "contact_displacements", "add_coupling", "node_loads"]

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


@njit(cache=True)
def _rotated_blocks(frames, R):
    """(k, 3, 3) the blocks F_i R of T (frames (k, 3, 3) rows n, t1, t2; R the sole orientation)."""
    k = frames.shape[0]
    Q = np.empty((k, 3, 3))
    for i in range(k):
        for a in range(3):
            for b in range(3):
                Q[i, a, b] = frames[i, a, 0] * R[0, b] + frames[i, a, 1] * R[1, b] + frames[i, a, 2] * R[2, b]
    return Q


@njit(cache=True)
def add_coupling(W, v_free, start, compliance, frames, R, U_prev, dt):
    """In place: W[r, r] += T C Tᵀ/dt (exactly symmetric) and v_free[r] −= T U_prev/dt over the
    rows r = start .. start + 3k of k contacts, T = blockdiag(F_i R) (module docstring).
    compliance C (3k, 3k) [m/N], symmetric, sole frame; frames (k, 3, 3) the contact frames F_i
    (rows n, t1, t2); R (3, 3) the sole orientation; U_prev (3k,) [m], sole frame; dt [s].
    `sole_coupling` is the dense form."""
    Q = _rotated_blocks(frames, R)
    k = Q.shape[0]
    QC = np.empty((3, 3))
    B = np.empty((3, 3))
    for i in range(k):
        for j in range(i + 1):  # lower blocks; the upper ones are their transposes
            for a in range(3):
                for d in range(3):
                    s = 0.0
                    for g in range(3):
                        s += Q[i, a, g] * compliance[3 * i + g, 3 * j + d]
                    QC[a, d] = s
            for a in range(3):
                for b in range(3):
                    s = 0.0
                    for d in range(3):
                        s += QC[a, d] * Q[j, b, d]
                    B[a, b] = s / dt
            ri, rj = start + 3 * i, start + 3 * j
            if i == j:
                for a in range(3):
                    for b in range(3):
                        W[ri + a, ri + b] += 0.5 * (B[a, b] + B[b, a])
            else:
                for a in range(3):
                    for b in range(3):
                        W[ri + a, rj + b] += B[a, b]
                        W[rj + b, ri + a] += B[a, b]
        for a in range(3):
            s = 0.0
            for g in range(3):
                s += Q[i, a, g] * U_prev[3 * i + g]
            v_free[start + 3 * i + a] -= s / dt


@njit(cache=True)
def node_loads(forces, frames, R):
    """(3k,) Tᵀ f [N]: the contact forces f (k, 3) [N] (contact frames F_i, rows n, t1, t2) as
    forces on the sole's nodes in the sole frame (R the sole orientation): Rᵀ F_iᵀ f_i."""
    k = forces.shape[0]
    F = np.empty(3 * k)
    for i in range(k):
        w0 = frames[i, 0, 0] * forces[i, 0] + frames[i, 1, 0] * forces[i, 1] + frames[i, 2, 0] * forces[i, 2]
        w1 = frames[i, 0, 1] * forces[i, 0] + frames[i, 1, 1] * forces[i, 1] + frames[i, 2, 1] * forces[i, 2]
        w2 = frames[i, 0, 2] * forces[i, 0] + frames[i, 1, 2] * forces[i, 1] + frames[i, 2, 2] * forces[i, 2]
        for b in range(3):
            F[3 * i + b] = R[0, b] * w0 + R[1, b] * w1 + R[2, b] * w2
    return F
