"""The joint-space models other than inverse dynamics: mass matrix M(q) and nonlinear effects
h(q, qd) = C(q, qd) qd + g(q), for any tree, as straight-line programs (`Function`).

* **Mass matrix: symbolic composite-rigid-body algorithm** (Featherstone's CRBA, written in world
  axes on top of the Newton-Euler kinematics of `ne.build_program`, so it has the same symbols).
  Per moving body k: mass m_k, world COM c_k, world inertia about the COM I0_k = R_k Ic_k R_k^T.
  Composite (subtree) quantities, leaves to root: mass m_C, first moment h_C = sum m c and
  inertia about the world origin J_C = sum I0 + m (|c|^2 E - c c^T). A unit acceleration of joint
  i (axis u_i through its origin O_i), with the rest of the tree at rest and no gravity, needs the
  force F_i and moment about the world origin N_i on the subtree of i:

      revolute:  F_i = u_i x (h_C - m_C O_i),   N_i = J_C u_i - h_C x (u_i x O_i)
      prismatic: F_i = m_C u_i,                 N_i = h_C x u_i

  and M_ji, for j = i and every ancestor j of i, is the effort of joint j that carries it:
  u_j . (N_i - O_j x F_i) (revolute j) or u_j . F_i (prismatic j). Other entries are 0;
  M is symmetric (the lower triangle is computed). Cost: O(n d) entries for depth d, no
  symbolic differentiation (Lagrange, `lagrange.py`, is kept for closed forms of small robots).
* **Nonlinear effects**: the Newton-Euler program with qdd = 0 (``build_program(...,
  accelerations=False)``), i.e. the recursive Newton-Euler algorithm at zero acceleration.
* Joint terms (`joint_terms.JointTerms`, off by default): armature on the diagonal of M;
  viscous and Coulomb friction in h and in the inverse dynamics.
"""

from __future__ import annotations

import sympy as sp

from .function import Function
from .joint_terms import JointTerms
from .ne import Program, _lx, add, build_program, const_mat, const_vec, cross, matmul, matvec, num, scale
from .urdf import TreeModel

__all__ = ["mass_matrix", "nonlinear_effects", "inverse_dynamics", "add_joint_terms"]

_SYM6 = ((0, 0, "xx"), (0, 1, "xy"), (0, 2, "xz"), (1, 1, "yy"), (1, 2, "yz"), (2, 2, "zz"))


def _dot(a, b):
    return sum((a[i] * b[i] for i in range(3)), sp.S.Zero)


def _sym(P: Program, name, M, latex_base, sub):
    """Emit the 6 entries of a symmetric 3x3 matrix; returns the full matrix of symbols/numbers."""
    e = {k: P.scalar(f"{name}_{k}", M[r][c], _lx(latex_base, sub, k)) for r, c, k in _SYM6}
    return [[e["xx"], e["xy"], e["xz"]], [e["xy"], e["yy"], e["yz"]], [e["xz"], e["yz"], e["zz"]]]


def _ancestors(model: TreeModel):
    """For each joint index: the indices of the joints from it to the root (itself first)."""
    by_child = {j.child: k for k, j in enumerate(model.joints)}
    out = []
    for j in model.joints:
        chain, body = [], j.child
        while body in by_child:
            k = by_child[body]
            chain.append(k)
            body = model.joints[k].parent
        out.append(chain)
    return out


def mass_matrix(model: TreeModel, terms: JointTerms | None = None) -> Function:
    """M(q) (nv x nv) by the symbolic CRBA (module docstring); armature added on the diagonal."""
    terms = terms or JointTerms.none()
    P = build_program(model, gravity=(0.0, 0.0, 0.0), external=False)
    P.comment("mass matrix: composite rigid bodies (subtree mass, first moment, inertia about the world origin)")
    n = model.nv
    own = []
    for j in model.joints:
        ln = j.child
        fr, body, li = P.frames[ln], model.bodies[j.child], P.body_ids[ln]
        m = float(body.mass)
        if m == 0.0 and not body.inertia.any():
            own.append(None)
            continue
        R, O = fr["R"], fr["O"]
        c = P.vector(f"com_{li}", add(O, matvec(R, const_vec(body.com))), "c", ln)
        I0 = matmul(matmul(R, const_mat(body.inertia)), [[R[k][r] for k in range(3)] for r in range(3)])
        cc = _dot(c, c)
        J = [[I0[r][s] + num(m) * ((cc if r == s else 0) - c[r] * c[s]) for s in range(3)] for r in range(3)]
        J = _sym(P, f"J_{li}", J, "J", ln)  # the body's inertia about the world origin
        own.append((m, [num(m) * x for x in c], J))
    comp = [None] * n
    kids = {k: [] for k in range(n)}
    index = {j.child: k for k, j in enumerate(model.joints)}
    for k, j in enumerate(model.joints):
        if j.parent in index:
            kids[index[j.parent]].append(k)
    for k in reversed(range(n)):
        parts = [own[k]] + [comp[c] for c in kids[k]]
        parts = [p for p in parts if p is not None]
        if not parts:
            continue
        ln, li = model.joints[k].child, P.body_ids[model.joints[k].child]
        m = sum(p[0] for p in parts)
        h = P.vector(f"hC_{li}", add(*[p[1] for p in parts]), "h^{C}", ln)
        J = _sym(
            P,
            f"JC_{li}",
            [[sum((p[2][r][s] for p in parts), sp.S.Zero) for s in range(3)] for r in range(3)],
            "J^{C}",
            ln,
        )
        comp[k] = (m, h, J)
    M = [[sp.S.Zero] * n for _ in range(n)]
    anc = _ancestors(model)
    for i, j in enumerate(model.joints):
        if comp[i] is None:
            continue
        m, h, J = comp[i]
        fr = P.frames[j.child]
        u, O, ji = fr["u"], fr["O"], P.joint_ids[j.name]
        if j.kind == "revolute":
            F = cross(u, add(h, scale(num(-m), O)))
            N = add(matvec(J, u), scale(-1, cross(h, cross(u, O))))
        else:
            F, N = scale(num(m), u), cross(h, u)
        F = P.vector(f"FC_{ji}", F, "F^{C}", j.name)
        N = P.vector(f"NC_{ji}", N, "N^{C}", j.name)
        for a in anc[i]:
            ja = model.joints[a]
            fa = P.frames[ja.child]
            e = _dot(fa["u"], add(N, scale(-1, cross(fa["O"], F)))) if ja.kind == "revolute" else _dot(fa["u"], F)
            M[i][a] = M[a][i] = P.scalar(f"M_{i}_{a}", e, _lx("M", model.name, f"{i + 1},{a + 1}"))
    for k, j in enumerate(model.joints):
        if terms.armature.get(j.name, 0.0):
            M[k][k] = M[k][k] + num(terms.armature[j.name])
    names = model.joint_names
    doc = [
        f"Joint-space mass matrix M(q) ({n} x {n}, symmetric) of robot '{model.name}': symbolic composite-rigid-body "
        "algorithm. Rows and columns in the order of JOINT_NAMES.",
        f"Armature on the diagonal: {terms.armature or 'none'}.",
    ]
    return Function("mass_matrix", P, M, names, names, doc, symmetric=True)


def add_joint_terms(P: Program, terms: JointTerms, accelerations: bool = True) -> None:
    """Add the joint terms to ``P.tau`` in place (named ``taut_<joint>``)."""
    if terms.empty:
        return
    P.comment("joint terms: armature Ia qdd, viscous fv qd, Coulomb fc sign(qd)")
    for k, name in enumerate(P.joint_names):
        extra = terms.effort(name, P.qd[k], P.qdd[k], accelerations)
        if extra != 0:
            ji = P.joint_ids[name]
            P.tau[k] = P.scalar(f"taut_{ji}", P.tau[k] + extra, _lx(r"\tau^{t}", name))


def nonlinear_effects(model: TreeModel, gravity=(0.0, 0.0, -9.81), terms: JointTerms | None = None) -> Function:
    """h(q, qd) = C(q, qd) qd + g(q) (+ friction): recursive Newton-Euler with qdd = 0."""
    terms = terms or JointTerms.none()
    P = build_program(model, gravity, accelerations=False, external=False)
    add_joint_terms(P, terms, accelerations=False)
    doc = [
        f"Nonlinear effects h(q, qd) = C(q, qd) qd + g(q) of robot '{model.name}' (recursive Newton-Euler at qdd = 0), "
        f"gravity {tuple(P.gravity)} m/s^2, in the order of JOINT_NAMES.",
        f"Viscous friction: {terms.viscous or 'none'}; Coulomb friction: {terms.coulomb or 'none'}.",
    ]
    return Function("nonlinear_effects", P, [[t] for t in P.tau], model.joint_names, ["h"], doc)


def inverse_dynamics(model: TreeModel, gravity=(0.0, 0.0, -9.81), terms: JointTerms | None = None) -> Program:
    """The Newton-Euler `Program` (printed by `printers`) with the joint terms added to tau."""
    P = build_program(model, gravity)
    add_joint_terms(P, terms or JointTerms.none())
    return P
