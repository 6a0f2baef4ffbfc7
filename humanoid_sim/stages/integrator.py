"""Integration stage (Chardonnet 2009, §3.1.6.1 and §2.5): semi-implicit (symplectic)
Euler on the configuration Lie group.

    free step    M̃ (q̇_free − q̇ᵗ) = dt (τ − b(q, q̇ᵗ))            (M̃ = M + dt·K_v: implicit PD damping)
    contacts     q̇ᵗ⁺¹ = q̇_free + M̃⁻¹ Jᵀ (dt f)                   (eq. (3.20))
    positions    qᵗ⁺¹ = qᵗ ⊕ dt q̇ᵗ⁺¹                             (`integrate`)

Deviation from the thesis: the thesis uses explicit Euler (Chardonnet 2009, §3.1.6.1); positions
here use the post-contact velocity q̇ᵗ⁺¹ (semi-implicit), otherwise resting bodies sink by one step
of gravity velocity per step. `pin.integrate` keeps free-flyer and spherical-joint quaternions on
the unit sphere (exponential map), as the thesis's quaternion joints need (Chardonnet 2009,
§3.3.2.3).

Free-flyer joints (the robot's root joint, every free body) are integrated on R³ × SO(3), not on
SE(3), as MuJoCo integrates a free joint. Pinocchio's free-flyer velocity is local: v_lin is the
origin's velocity and ω the angular velocity, both in the body frame, so the origin's world
velocity is u = R v_lin and, exactly, v̇_lin = Rᵀ u̇ − ω × v_lin (a kinematic identity, whatever
the tree). The step keeps u, not v_lin, as the integrated quantity:

    free step    v_lin,free = v_lin + dt (a_lin + ω × v_lin)  = Rᵀ (u + dt u̇)     (`free_velocity`)
    positions    p⁺ = p + dt R v_lin,   R⁺ = R exp(dt ω)                        (`integrate`)
    carry        v_lin⁺ = exp(−dt ω) v_lin,  so that R⁺ v_lin⁺ = R v_lin           (`carry`)

with ω, v_lin the step's velocities after contacts (ω that of the position update). This is the
same scheme as Pinocchio's to first order, with the same velocity semantics and Jacobians (the
contact solve acts on the velocity expressed at qᵗ, and the state's velocity is expressed at
qᵗ⁺¹), but two second-order terms that add energy to any spinning body are gone:
 - the SE(3) exponential of the twist moves the origin on a screw about the twist's axis; for a
   ball rolling on the ground that axis passes through the contact point, so each step the centre
   drops by r(1 − cos ω dt), penetrates, and the contact's penetration correction lifts it back;
 - the explicit Coriolis term, v_lin⁺ = (I − dt [ω]×) v_lin, stands for the frame rotation
   exp(−dt [ω]×) and scales the part of v_lin across ω by √(1 + (ω dt)²) every step: a 5 cm ball
   rolling at 1.41 m/s (ω dt = 0.028) reached 3.7 m/s after 1.5 s, one thrown without spin
   rolled at 0.80 m/s instead of 5/7 · 1 m/s.
The angular velocity needs no carrying (exp(−dt [ω]×) ω = ω), nor do the other joints' velocities
(relative, scalar or local to their own joint); other joints keep `pin.integrate`. With free flyers
the three functions go together (`free_velocity` alone lacks the frame rotation that `carry` adds).

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
from numba import njit

__all__ = ["at_start", "carry", "free_velocity", "free_flyers", "integrate", "MomentumProjection"]


def free_velocity(model, data, q, v, tau, dt, flyers=None):
    """q̇_free = q̇ + dt M̃⁻¹ (τ − b), free-flyer linear velocities without the frame-rotation term
    (+ dt ω × v_lin: `carry` rotates them exactly). Uses (and leaves) ``data.M`` (upper triangle,
    from ``pin.crba``; the model's armature holds dt·K_v) and its Pinocchio Cholesky factor.
    ``flyers``: the model's `free_flyers` (computed here when None)."""
    b = pin.nonLinearEffects(model, data, q, v)
    pin.cholesky.decompose(model, data)
    out = v + dt * pin.cholesky.solve(model, data, tau - b)
    iq, iv = free_flyers(model) if flyers is None else flyers
    if iv.shape[0]:
        _unrotate(out, v, dt, iv)
    return out


def free_flyers(model):
    """(iq, iv): the first q and v index of each free-flyer joint of the model (int64 arrays), for
    `free_velocity`, `integrate` and `carry`. A free flyer's q is (p, quaternion x y z w), its v
    (v_lin, ω), both local."""
    ff = [j for j in model.joints[1:] if j.shortname() == "JointModelFreeFlyer"]
    return np.array([j.idx_q for j in ff], dtype=np.int64), np.array([j.idx_v for j in ff], dtype=np.int64)


def integrate(model, q, v, dt, flyers=None):
    """qᵗ⁺¹ = q ⊕ dt v on the Lie group, quaternions renormalised to machine precision; free-flyer
    origins on a straight line, p⁺ = p + dt R v_lin (module docstring). ``flyers``: the model's
    `free_flyers` (computed here when None)."""
    out = pin.integrate(model, q, v * dt)  # orientation R exp(dt ω) of every free flyer, other joints
    iq, iv = free_flyers(model) if flyers is None else flyers
    if iq.shape[0]:
        _straight(out, q, v, dt, iq, iv)
    return out


def carry(v, v_pos, dt, flyers):
    """Rotates each free flyer's linear velocity in ``v`` (in place; returns ``v``) into the body
    frame after the position update, v_lin ← exp(−dt [ω]×) v_lin with ω that of ``v_pos`` (the
    velocity `integrate` moved the positions with), so that its world value R v_lin is kept
    (module docstring)."""
    if flyers[1].shape[0]:
        _carry(v, v_pos, dt, flyers[1])
    return v


def at_start(q_start, q, v, flyers):
    """``v`` (expressed at ``q``) expressed at ``q_start``, the step's start: each free flyer's
    linear velocity becomes R₀ᵀ R₁ v_lin, which undoes `carry` (R₁ = R₀ exp(dt ω)); the rest of
    ``v`` is unchanged. A copy."""
    out = v.copy()
    for j, i in zip(*flyers):
        r0 = pin.Quaternion(q_start[j + 6], *q_start[j + 3 : j + 6]).toRotationMatrix()
        r1 = pin.Quaternion(q[j + 6], *q[j + 3 : j + 6]).toRotationMatrix()
        out[i : i + 3] = r0.T @ (r1 @ v[i : i + 3])
    return out


@njit(cache=True)
def _unrotate(out, v, dt, iv):  # out_lin += dt ω × v_lin (`free_velocity`)
    for i in iv:
        x0, x1, x2 = v[i], v[i + 1], v[i + 2]
        w0, w1, w2 = v[i + 3], v[i + 4], v[i + 5]
        out[i] += dt * (w1 * x2 - w2 * x1)
        out[i + 1] += dt * (w2 * x0 - w0 * x2)
        out[i + 2] += dt * (w0 * x1 - w1 * x0)


@njit(cache=True)
def _straight(out, q, v, dt, iq, iv):  # out_p = p + R (dt v_lin), R from q's unit quaternion
    for k in range(iq.shape[0]):
        j, i = iq[k], iv[k]
        u0, u1, u2, w = q[j + 3], q[j + 4], q[j + 5], q[j + 6]
        d0, d1, d2 = dt * v[i], dt * v[i + 1], dt * v[i + 2]
        t0, t1, t2 = 2.0 * (u1 * d2 - u2 * d1), 2.0 * (u2 * d0 - u0 * d2), 2.0 * (u0 * d1 - u1 * d0)
        out[j] = q[j] + d0 + w * t0 + (u1 * t2 - u2 * t1)  # v + 2w (u × v) + u × (2 u × v)
        out[j + 1] = q[j + 1] + d1 + w * t1 + (u2 * t0 - u0 * t2)
        out[j + 2] = q[j + 2] + d2 + w * t2 + (u0 * t1 - u1 * t0)


@njit(cache=True)
def _carry(out, v_pos, dt, iv):  # out_lin = exp([a]×) out_lin, a = −dt ω (Rodrigues)
    for i in iv:
        a0, a1, a2 = -dt * v_pos[i + 3], -dt * v_pos[i + 4], -dt * v_pos[i + 5]
        th2 = a0 * a0 + a1 * a1 + a2 * a2
        if th2 < 1e-8:  # series to O(θ⁴): relative error < 1e-17
            s, c = 1.0 - th2 / 6.0, 0.5 - th2 / 24.0
        else:
            th = np.sqrt(th2)
            s, c = np.sin(th) / th, (1.0 - np.cos(th)) / th2
        x0, x1, x2 = out[i], out[i + 1], out[i + 2]
        b0, b1, b2 = a1 * x2 - a2 * x1, a2 * x0 - a0 * x2, a0 * x1 - a1 * x0
        out[i] = x0 + s * b0 + c * (a1 * b2 - a2 * b1)
        out[i + 1] = x1 + s * b1 + c * (a2 * b0 - a0 * b2)
        out[i + 2] = x2 + s * b2 + c * (a0 * b1 - a1 * b0)


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
