"""Contact-consistent gravity compensation of a floating-base robot in a known stance: the joint
torques that hold a posture statically when the contacts carry the weight.

The simulator's ``gravity_compensation`` (`actuators.Actuation`) adds the joint rows of the
generalised gravity g(q) of the free-floating model: each subtree held from the base. A robot
standing on its feet is held from the feet instead: static equilibrium of the whole model is

    g(q) = Sᵀ τ + J_c(q)ᵀ f                                      (M q̈ + h = Sᵀ τ + J_cᵀ f, q̇ = q̈ = 0)

with f the contact forces (3 per contact point, world frame, exerted on the robot) and J_c the
stacked point Jacobians (linear velocity of each point, world axes). Its 6 free-flyer rows have
no torque: g_b(q) = (J_cᵀ f)_b (Newton-Euler of the whole robot: the forces carry the weight and
their moment balances the CoM's). Given f satisfying them, the joint rows give the feedforward

    τ = g_j(q) − (J_cᵀ f)_j.

With that feedforward a PD held at q has zero error at equilibrium: the contact forces the robot
needs are those the stance can give. f is chosen by the quadratic program

    min ½ ‖f‖²   s.t.  (J_cᵀ f)_b = g_b(q),   f_i in the friction cone of point i,

the least-norm forces (evenly spread normal loads, the least tangential force: the farthest from
sliding), unique since the cost is strictly convex. Points: the hull corners of each contact
location (`ContactLocation.hull`, the planner's discretised contact, Escande 2008, §3.4.5), with
the location's inward normal (at a planned contact, the surface's normal). Cones (Escande 2008, eq. (3.69)): the
``FACETS``-sided pyramid inscribed in ‖f_t‖ ≤ μ f_n (facet k: c_k·f_t ≤ μ cos(π/F) f_n, c_k at
angle 2πk/F in the contact's tangent plane), and f_n ≥ 0 (3.68). The pyramid lies inside the
exact cone, so the forces found are admissible for the simulator's exact-cone contact law.

Solver: DAQP through CasADi's ``conic`` interface (a dual active-set method for small dense QPs;
CasADi is a core dependency, quadprog is only in the peers extra and SciPy has no QP solver;
CasADi's qpOASES failed its initialisation on HRP-2 on both feet, a problem DAQP solves with
residual 2e-17): an active-set solution solves the KKT system of its active set exactly
(round-off), which the residual check below confirms. Its inactive rows hold to DAQP's primal
tolerance, set to 1e-12 (``PRIMAL_TOL``): at its default 1e-6 cone rows ended at
-1.2e-9 m g, which the 1e-9 check below refused, so two witnesses of the stairs plan with their
CoM 2.6 cm inside their soles' hull were reported as unholdable. A stance has 3 force
variables per hull point (24 for HRP-2 on two soles). The rows are scaled to weight units
(forces / m g), as `humanoid_planner.posture.ForceStability` does.

A stance that cannot hold the weight (the CoM outside the support polygon, or friction too low)
has no such f: `contact_gravity` raises `SimulatorError` saying so, never returns a wrong τ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_model.validation import finite_number, integer
from humanoid_sim.exceptions import ConfigError, SimulatorError

__all__ = ["ContactGravity", "contact_gravity", "FACETS", "TOLERANCE"]

FACETS = 8  # sides of the inscribed friction pyramid (chosen: its radius mu cos(pi/8) is 92 % of mu's)
TOLERANCE = 1e-9  # [weight units, i.e. x m g] largest residual of the base rows and cone rows accepted (chosen)
PRIMAL_TOL = 1e-12  # DAQP's primal feasibility tolerance (its default 1e-6; module docstring)


@dataclass(frozen=True)
class ContactGravity:
    """The contact-consistent gravity compensation at one posture.

    tau (nv − 6,) [N·m]: the joint feedforward g_j − (J_cᵀ f)_j; forces (k, 3) [N]: f per contact
    point (world frame, on the robot); points (k, 3) [m] and normals (k, 3): the contact points in
    the world and their inward unit normals; names (k,): the contact location of each point;
    residual (6,) [N, N·m]: g_b − (J_cᵀ f)_b, the unbalanced base wrench (round-off)."""

    tau: np.ndarray
    forces: np.ndarray
    points: np.ndarray
    normals: np.ndarray
    names: tuple
    residual: np.ndarray


def _points(model, data, contacts, source):
    """World points (k, 3), inward normals (k, 3), tangents (k, 3), joint ids (k,), mu (k,), names."""
    pts, nrm, tan, joints, mus, names = [], [], [], [], [], []
    for location, mu in contacts:
        mu = finite_number(mu, source=source, field=f"mu of {location.name!r}", minimum=0.0, error=ConfigError)
        if not model.existFrame(location.body):
            raise ConfigError(f"{source}: field 'contacts' names frame {location.body!r}, unknown to the model")
        fid = model.getFrameId(location.body)
        oMf = data.oMf[fid]
        n = oMf.rotation @ np.asarray(location.normal, float)
        t = oMf.rotation @ np.asarray(location.tangent, float)
        for h in np.atleast_2d(np.asarray(location.hull, float)):
            pts.append(oMf.act(h))
            nrm.append(n)
            tan.append(t)
            joints.append(model.frames[fid].parentJoint)
            mus.append(mu)
            names.append(location.name)
    return np.array(pts), np.array(nrm), np.array(tan), joints, np.array(mus), tuple(names)


def _cone_rows(normals, tangents, mu, facets):
    """Rows D (k (F + 1), 3k) with D f >= 0: f_n >= 0 and the F facets of each point's pyramid."""
    k = normals.shape[0]
    D = np.zeros((k * (facets + 1), 3 * k))
    angles = 2 * np.pi * np.arange(facets) / facets
    for i in range(k):
        n, t = normals[i], tangents[i]
        s = np.cross(n, t)
        r = i * (facets + 1)
        D[r, 3 * i : 3 * i + 3] = n
        for a in range(facets):
            c = np.cos(angles[a]) * t + np.sin(angles[a]) * s
            D[r + 1 + a, 3 * i : 3 * i + 3] = mu[i] * np.cos(np.pi / facets) * n - c
    return D


def _solve(A, b, D):
    """argmin ½‖f‖² s.t. A f = b, D f >= 0, by DAQP; None when it finds no solution."""
    import casadi as ca

    m = A.shape[1]
    C = np.vstack([A, D])
    solver = ca.conic(
        "contact_gravity",
        "daqp",
        {"h": ca.Sparsity.dense(m, m), "a": ca.Sparsity.dense(*C.shape)},
        {"error_on_fail": False, "daqp": {"primal_tol": PRIMAL_TOL}},
    )
    lba = np.concatenate([b, np.zeros(D.shape[0])])
    uba = np.concatenate([b, np.full(D.shape[0], np.inf)])
    sol = solver(h=np.eye(m), g=np.zeros(m), a=C, lba=lba, uba=uba)
    if not solver.stats()["success"]:
        return None
    return np.asarray(sol["x"], float).reshape(-1)


def contact_gravity(
    model, q, contacts: Sequence, facets: int = FACETS, source: str = "contact_gravity"
) -> ContactGravity:
    """The contact-consistent gravity compensation (module docstring) of ``model`` (a Pinocchio
    model with a free-flyer root; its ``gravity``) at configuration ``q`` (nq,), the weight held
    by ``contacts``: a sequence of (``ContactLocation``, mu), each location's hull corners being
    contact points with the location's normal, in a cone of friction coefficient mu.

    Raises `ConfigError` for bad input and `SimulatorError` when no forces in the cones balance
    the weight (the stance cannot hold this posture statically)."""
    if model.nq < 7 or model.joints[1].shortname() != "JointModelFreeFlyer":
        raise ConfigError(f"{source}: field 'model' must have a free-flyer root joint")
    q = np.asarray(q, float).reshape(-1)
    if q.shape != (model.nq,) or not np.all(np.isfinite(q)):
        raise ConfigError(f"{source}: field 'q' must be {model.nq} finite numbers; value shape {q.shape}")
    facets = integer(facets, source=source, field="facets", minimum=3)
    if not contacts:
        raise ConfigError(f"{source}: field 'contacts' must name at least one (location, mu)")
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    pin.computeJointJacobians(model, data, q)
    g = pin.computeGeneralizedGravity(model, data, q)
    pts, nrm, tan, joints, mu, names = _points(model, data, contacts, source)
    J = np.zeros((3 * len(pts), model.nv))  # stacked point Jacobians (world axes)
    for i, (p, j) in enumerate(zip(pts, joints)):
        Jj = pin.getJointJacobian(model, data, j, pin.LOCAL_WORLD_ALIGNED)
        J[3 * i : 3 * i + 3] = Jj[:3] - pin.skew(p - data.oMi[j].translation) @ Jj[3:]
    weight = pin.computeTotalMass(model) * np.linalg.norm(model.gravity.linear)
    A, b = J[:, :6].T, g[:6] / weight  # the base rows, the forces in weight units (f / m g)
    D = _cone_rows(nrm, tan, mu, facets)
    x = _solve(A, b, D)
    if x is None or np.max(np.abs(A @ x - b)) > TOLERANCE or np.min(D @ x) < -TOLERANCE:
        com = pin.centerOfMass(model, data, q)
        raise SimulatorError(
            f"{source}: no contact forces in the friction cones (mu {sorted(set(mu.tolist()))}, {facets}-sided "
            f"pyramids) at the {len(pts)} hull points of {sorted(set(names))} balance the weight at this posture "
            f"(CoM at {np.round(com, 4).tolist()} m; contact points x {np.round(pts[:, 0].min(), 4)}.."
            f"{np.round(pts[:, 0].max(), 4)}, y {np.round(pts[:, 1].min(), 4)}..{np.round(pts[:, 1].max(), 4)} m): "
            "the stance cannot hold it statically"
        )
    f = x * weight
    jtf = J.T @ f
    return ContactGravity(
        tau=g[6:] - jtf[6:],
        forces=f.reshape(-1, 3),
        points=pts,
        normals=nrm,
        names=names,
        residual=g[:6] - jtf[:6],
    )
