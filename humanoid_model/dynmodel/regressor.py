"""Inertial-parameter regressor Y(q, qd, qdd) with tau = Y(q, qd, qdd) pi, for any tree.

**Parameters** (`PARAM_NAMES`): 10 standard parameters per moving body (the bodies of
``Program.body_names``, i.e. after fixed joints are merged, in joint order), in Pinocchio's
``Inertia.toDynamicParameters`` order:

    pi_k = [m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]

with the COM c and the inertia I **about the link frame origin, in link-frame axes** (the URDF
child link frame of the body's joint): I = Ic + m (|c|^2 E - c c^T), Ic the URDF inertia about the
COM rotated into the link frame. Column ``10 k + p`` is parameter p of body k; parameter names
are ``<p>_<link>`` (``m_RLEG_LINK3``, ``mcx_RLEG_LINK3``, ``Ixx_RLEG_LINK3``...).
With joint terms (`joint_terms.JointTerms`) 3 columns per joint follow: ``fv_<joint>``
(column qd), ``fc_<joint>`` (column sign(qd)) and ``Ia_<joint>`` (column qdd).

**Derivation.** The Newton-Euler equations of a body about its frame origin, in its own axes,
are linear in pi_k (omega, omega', a: the link's angular velocity, acceleration and origin
acceleration minus g, in link axes):

    F = m a + omega' x mc + omega x (omega x mc)
    N = I omega' + omega x (I omega) + mc x a

Column (k, p) of Y is the effort the coefficient wrench of parameter p, rotated to world axes,
produces at every joint j from body k to the root: u_j . (N + (O_k - O_j) x F) (revolute j) or
u_j . F (prismatic j). Same kinematics and symbols as the inverse-dynamics program. This equals
Pinocchio's ``computeJointTorqueRegressor`` column by column (same order and frames; tested).
"""

from __future__ import annotations

import numpy as np
import sympy as sp

from .function import Function
from .joint_terms import JointTerms
from .models import _ancestors, _dot
from .ne import _lx, add, build_program, cross, matTvec, matvec
from .urdf import TreeModel

__all__ = ["PARAM_NAMES", "regressor", "parameters", "parameter_names"]

PARAM_NAMES = ("m", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz")
_INERTIA_UNIT = {  # symmetric unit matrices of the 6 inertia parameters
    "Ixx": ((0, 0),),
    "Ixy": ((0, 1), (1, 0)),
    "Iyy": ((1, 1),),
    "Ixz": ((0, 2), (2, 0)),
    "Iyz": ((1, 2), (2, 1)),
    "Izz": ((2, 2),),
}


def parameter_names(model: TreeModel, terms: JointTerms | None = None) -> list:
    """Column names of the regressor (module docstring)."""
    names = [f"{p}_{j.child}" for j in model.joints for p in PARAM_NAMES]
    if terms is not None and not terms.empty:
        names += [f"{t}_{j.name}" for j in model.joints for t in ("fv", "fc", "Ia")]
    return names


def parameters(model: TreeModel, terms: JointTerms | None = None) -> np.ndarray:
    """pi of the model (module docstring), in the column order of `regressor`."""
    out = []
    for j in model.joints:
        b = model.bodies[j.child]
        m, c = float(b.mass), np.asarray(b.com, float)
        I = np.asarray(b.inertia, float) + m * (float(c @ c) * np.eye(3) - np.outer(c, c))
        out += [m, *(m * c), I[0, 0], I[0, 1], I[1, 1], I[0, 2], I[1, 2], I[2, 2]]
    if terms is not None and not terms.empty:
        for j in model.joints:
            out += [terms.viscous.get(j.name, 0.0), terms.coulomb.get(j.name, 0.0), terms.armature.get(j.name, 0.0)]
    return np.array(out)


def _coefficient_wrenches(w, wd, a):
    """Link-axes (F, N) of each parameter, as functions of omega, omega', a (module docstring)."""
    zero = [sp.S.Zero] * 3
    out = {"m": (list(a), zero)}
    for axis, name in enumerate(("mcx", "mcy", "mcz")):
        e = [sp.S.One if i == axis else sp.S.Zero for i in range(3)]
        out[name] = (add(cross(wd, e), cross(w, cross(w, e))), cross(e, a))
    for name, cells in _INERTIA_UNIT.items():
        E = [[sp.S.One if (r, c) in cells else sp.S.Zero for c in range(3)] for r in range(3)]
        out[name] = (zero, add(matvec(E, wd), cross(w, matvec(E, w))))
    return out


def regressor(model: TreeModel, gravity=(0.0, 0.0, -9.81), terms: JointTerms | None = None) -> Function:
    """Y(q, qd, qdd) (nv x 10 nb [+ 3 nv with joint terms]) as a `Function`."""
    P = build_program(model, gravity, external=False)
    P.comment("regressor: each link's Newton-Euler coefficients, in link axes, about the link origin")
    n = model.nv
    with_terms = terms is not None and not terms.empty
    Y = [[sp.S.Zero] * (10 * n + (3 * n if with_terms else 0)) for _ in range(n)]
    anc = _ancestors(model)
    for k, j in enumerate(model.joints):
        ln = j.child
        fr, li = P.frames[ln], P.body_ids[ln]
        R = fr["R"]
        w = P.vector(f"wl_{li}", matTvec(R, fr["w"]), r"\omega^{l}", ln)
        wd = P.vector(f"wdl_{li}", matTvec(R, fr["wd"]), r"\dot{\omega}^{l}", ln)
        a = P.vector(f"al_{li}", matTvec(R, fr["a"]), "a^{l}", ln)
        for p, (F, N) in _coefficient_wrenches(w, wd, a).items():
            Fw = P.vector(f"YF_{p}_{li}", matvec(R, F), f"F^{{{p}}}", ln)
            Nw = P.vector(f"YN_{p}_{li}", matvec(R, N), f"N^{{{p}}}", ln)
            col = 10 * k + PARAM_NAMES.index(p)
            for r in anc[k]:
                jr = model.joints[r]
                fj = P.frames[jr.child]
                if jr.kind == "revolute":
                    lever = [fr["O"][i] - fj["O"][i] for i in range(3)]
                    e = _dot(fj["u"], add(Nw, cross(lever, Fw)))
                else:
                    e = _dot(fj["u"], Fw)
                Y[r][col] = P.scalar(f"Y_{r}_{col}", e, _lx("Y", model.name, f"{r + 1},{col + 1}"))
    if with_terms:
        for k in range(n):
            Y[k][10 * n + 3 * k] = P.qd[k]
            Y[k][10 * n + 3 * k + 1] = sp.sign(P.qd[k])
            Y[k][10 * n + 3 * k + 2] = P.qdd[k]
    names = parameter_names(model, terms if with_terms else None)
    doc = [
        f"Inertial-parameter regressor Y(q, qd, qdd) of robot '{model.name}': tau = Y pi, gravity "
        f"{tuple(P.gravity)} m/s^2; rows JOINT_NAMES, columns PARAMETER_NAMES.",
        "Per link (after merging fixed joints): [m, m cx, m cy, m cz, Ixx, Ixy, Iyy, Ixz, Iyz, Izz], COM and inertia "
        "about the link frame origin in link axes (Pinocchio's toDynamicParameters order).",
        "PARAMETERS: pi of the URDF the code was generated from.",
    ]
    consts = {"PARAMETER_NAMES": tuple(names), "PARAMETERS": tuple(float(x) for x in parameters(model, terms))}
    return Function("regressor", P, Y, model.joint_names, names, doc, constants=consts)
