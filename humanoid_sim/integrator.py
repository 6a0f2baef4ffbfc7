"""Integration stage (spec ../shared/spec/000_chardonnet.md §2.9): semi-implicit (symplectic)
Euler on the configuration Lie group.

    free step    M̃ (q̇_free − q̇ᵗ) = dt (τ − b(q, q̇ᵗ))            (M̃ = M + dt·K_v: implicit PD damping)
    contacts     q̇ᵗ⁺¹ = q̇_free + M̃⁻¹ Jᵀ (dt f)                   (eq. 3.20)
    positions    qᵗ⁺¹ = qᵗ ⊕ dt q̇ᵗ⁺¹                             (`pin.integrate`)

Deviation from the thesis (documented as the spec asks, §2.9 note): the thesis uses explicit
Euler; positions here use the post-contact velocity q̇ᵗ⁺¹ (semi-implicit), otherwise resting
bodies sink by one step of gravity velocity per step. `pin.integrate` keeps free-flyer and
spherical-joint quaternions on the unit sphere (exponential map), spec §2.12.

Momentum projection (our addition, `World(momentum_projection=True)`): the scheme above does not
conserve the spatial momentum of a free-floating tree exactly (A(q) M⁻¹ b ≠ 0 gives an O(dt²)
drift per step: 1e-3 relative after 1 s for a spinning HRP-2). For a tree in free flight (no
contact, no applied wrench in the step) the World corrects the tree's base velocity after the
position update so that its momentum about the world origin equals the start-of-step value plus
the gravity impulse; joint velocities are untouched. Trees in contact are never projected
(`MomentumProjection`).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

__all__ = ["free_velocity", "integrate", "MomentumProjection"]


def free_velocity(model, data, q, v, tau, dt):
    """q̇_free = q̇ + dt M̃⁻¹ (τ − b). Uses (and leaves) ``data.M`` (upper triangle, from
    ``pin.crba``; the model's armature holds dt·K_v) and its Pinocchio Cholesky factor."""
    b = pin.nonLinearEffects(model, data, q, v)
    pin.cholesky.decompose(model, data)
    return v + dt * pin.cholesky.solve(model, data, tau - b)


def integrate(model, q, v, dt):
    """qᵗ⁺¹ = q ⊕ dt v on the Lie group, quaternions renormalised to machine precision."""
    return pin.integrate(model, q, v * dt)


def _skew3(c):
    return np.array([[0.0, -c[2], c[1]], [c[2], 0.0, -c[0]], [-c[1], c[0], 0.0]])


class MomentumProjection:
    """Momentum projection of trees in free flight (module docstring).

    model: the combined model (its gravity is read at each projection); tree_cols: velocity
    indices of each mobile tree (its first 6 are the tree's free-flyer base); tree_root: the
    base joint of each tree; tree_mass [kg]: mass of each tree; dt [s]."""

    def __init__(self, model, tree_cols, tree_root, tree_mass, dt: float):
        self.model = model
        self.data = model.createData()
        self.tree_cols, self.tree_root, self.tree_mass = tree_cols, tree_root, tree_mass
        self.dt = float(dt)

    def free_trees(self, tree_a, tree_b, pushed) -> list[int]:
        """The trees in free flight: in no contact (``tree_a``, ``tree_b`` (m,): trees of the
        step's contacts, −1 for the environment) and with no wrench (``pushed``: tree indices)."""
        in_contact = set()
        if tree_a.shape[0]:
            in_contact = set(tree_a.tolist()) | set(tree_b[tree_b >= 0].tolist())
        return [t for t in range(len(self.tree_cols)) if t not in in_contact and t not in pushed]

    def momenta(self, q, v, trees):
        """Spatial momentum about the world origin (linear; angular) (6,) of each tree, its
        base-velocity map (6, 6) and its centre of mass [m], at (q, v)."""
        model, d = self.model, self.data
        Ag = pin.computeCentroidalMap(model, d, q)
        pin.centerOfMass(model, d, q, True)  # with the subtree COMs, each in its joint's frame
        c = d.com[0]
        X = np.eye(6)
        X[3:, :3] = _skew3(c)
        XA = X @ Ag
        out = []
        for t in trees:
            cols, root = self.tree_cols[t], self.tree_root[t]
            out.append((XA[:, cols] @ v[cols], XA[:, cols[:6]], d.oMi[root].act(d.com[root])))
        return out

    def project(self, trees, q, v, qnew, vnew):
        """vnew with the base velocity of each of ``trees`` corrected so that the tree's spatial
        momentum about the world origin at (qnew, ·) equals its value at (q, v) plus the gravity
        impulse (m g dt, and its moment c₀ × m g dt with the tree's centre of mass c₀ at the start
        of the step: the orbital momentum change the semi-implicit step itself gives a translating
        tree, c₁ × m v₁ − c₀ × m v₀ with c₁ = c₀ + dt v₁). Joint velocities are untouched. The
        semi-implicit Euler step alone drifts by O(dt²) per step."""
        before = self.momenta(q, v, trees)
        after = self.momenta(qnew, vnew, trees)
        g = np.asarray(self.model.gravity.linear, float)
        vnew = vnew.copy()
        for t, (h0, _, c0), (h1, A1, _) in zip(trees, before, after):
            mg = self.tree_mass[t] * g
            target = h0 + self.dt * np.concatenate([mg, np.cross(c0, mg)])
            cols = self.tree_cols[t][:6]
            vnew[cols] += np.linalg.solve(A1, target - h1)
        return vnew
