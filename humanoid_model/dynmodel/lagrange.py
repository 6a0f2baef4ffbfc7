"""Symbolic Lagrange closed forms with SymPy: M(q), C(q, qd) qd and g(q), for small robots.

The report derives Lagrange symbolically and drops it as too slow ("more than 4 s for a
4-joint structure", Canovas, §2.1.2). This module derives,
for any `TreeModel` (meant for <= 4-6 DoF):

* kinetic energy T = 1/2 qd^T M(q) qd with M = sum_j m_j Jv_j^T Jv_j + Jw_j^T I0_j Jw_j
  (COM Jacobian Jv, angular Jacobian Jw, world inertia about the COM I0 = R I R^T) - with the
  correct angular velocity omega = Jw qd, not the omega = q of the report's eq. (2.10), which makes
  its result (2.20) wrong (Canovas, §2.1.2);
* potential energy V = -sum_j m_j g . c_j (vertical *position*, not velocity as printed in eq. (2.5));
* tau = M qdd + C(q, qd) qd + g(q), where (C qd)_i = sum_jk Gamma_ijk qd_j qd_k with the
  Christoffel symbols Gamma_ijk = (dM_ij/dq_k + dM_ik/dq_j - dM_jk/dq_i) / 2, and g = dV/dq.

Constants are exact rationals of the model's decimal values (15.6 -> 78/5), so closed forms
simplify exactly (see `lagrange` for the simplification).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
import sympy as sp
from sympy.polys.domains import QQ
from sympy.polys.rings import ring

from .ne import _clean, _lx
from .printers import LATEX_PREAMBLE, latex_expr
from .urdf import TreeModel, identifier
from .wrap import comment_lines, latex_line


def rat(x) -> sp.Expr:
    """Exact rational of a float's shortest decimal form (0.1 -> 1/10)."""
    return sp.Rational(repr(_clean(x)))


def _rot(axis, q):
    a = [rat(x) for x in axis]
    k = sp.Matrix([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return sp.eye(3) + sp.sin(q) * k + (1 - sp.cos(q)) * k * k


@dataclass
class LagrangeModel:
    joint_names: list
    q: list
    qd: list
    qdd: list
    M: sp.Matrix
    Cqd: sp.Matrix
    g: sp.Matrix
    gravity: tuple
    seconds: float  # derivation + simplification time [s]
    names: dict  # symbol name -> LaTeX

    @property
    def tau(self) -> sp.Matrix:
        return self.M * sp.Matrix(self.qdd) + self.Cqd + self.g

    def numeric(self):
        """A function (q, qd, qdd) -> tau (numpy) made with sympy.lambdify."""
        f = sp.lambdify([self.q, self.qd, self.qdd], list(self.tau), "math")
        return lambda q, qd, qdd: np.array(f(list(q), list(qd), list(qdd)), dtype=float)


def lagrange(
    model: TreeModel, gravity=(0.0, 0.0, -9.81), simplify: bool = True, trigsimp_ops: int = 20
) -> LagrangeModel:
    """Closed-form M(q), C(q, qd) qd, g(q) of `model` under `gravity` [m/s^2].

    The derivation is polynomial: a revolute joint's cos q and sin q are symbols c, s (d/dq c = -s,
    d/dq s = c), every entry is expanded and reduced with s^2 = 1 - c^2 (an exact canonical form),
    then c, s become cos q, sin q again. With `simplify`, entries of at most `trigsimp_ops`
    operations are also passed through ``sympy.trigsimp`` (e.g. c1 c2 - s1 s2 -> cos(q1 + q2));
    larger ones stay in the reduced polynomial form (trigsimp on them costs minutes at 4 DoF).
    """
    t0 = time.perf_counter()
    n = model.nv
    ids = [identifier(j.name) for j in model.joints]
    q = [sp.Symbol(f"q_{i}") for i in ids]
    qd = [sp.Symbol(f"qd_{i}") for i in ids]
    qdd = [sp.Symbol(f"qdd_{i}") for i in ids]
    names = {}
    for j, i in zip(model.joints, ids):
        names[f"q_{i}"] = _lx("q", j.name)
        names[f"qd_{i}"] = _lx(r"\dot{q}", j.name)
        names[f"qdd_{i}"] = _lx(r"\ddot{q}", j.name)
    rev = [j.kind == "revolute" for j in model.joints]
    cs = [sp.Symbol(f"c_{i}") for i in ids]
    sn = [sp.Symbol(f"s_{i}") for i in ids]
    # polynomial ring over the rationals: generators c_k, s_k (revolute) or q_k (prismatic), qd_k
    pos_syms = [x for k in range(n) for x in ((cs[k], sn[k]) if rev[k] else (q[k],))]
    Rg = ring(pos_syms + qd, QQ)[0]
    G = dict(zip(pos_syms + qd, Rg.gens))
    zero, one = Rg.zero, Rg.one

    def P(x):
        return Rg(rat(x))

    def D(f, k):
        """d f / d q_k (d c_k = -s_k dq_k, d s_k = c_k dq_k)."""
        if rev[k]:
            return -G[sn[k]] * f.diff(G[cs[k]]) + G[cs[k]] * f.diff(G[sn[k]])
        return f.diff(G[q[k]])

    s_index = {Rg.gens.index(G[sn[k]]): Rg.gens.index(G[cs[k]]) for k in range(n) if rev[k]}

    def reduce(f):
        """Canonical form modulo s_k^2 + c_k^2 - 1: s_k appears with degree <= 1."""
        if not any(m[i] >= 2 for m in f for i in s_index):
            return f
        out = zero
        for mon, coeff in f.terms():
            mon = list(mon)
            factor = one
            for i, ci in s_index.items():
                if mon[i] >= 2:
                    factor *= (one - Rg.gens[ci] ** 2) ** (mon[i] // 2)
                    mon[i] %= 2
            out += Rg.from_dict({tuple(mon): coeff}) * factor
        return out

    def mm(A, B):
        return [[sum((A[r][t] * B[t][c] for t in range(3)), zero) for c in range(3)] for r in range(3)]

    def mv(A, v):
        return [sum((A[r][t] * v[t] for t in range(3)), zero) for r in range(3)]

    def const(M):
        return [[P(M[r][c]) for c in range(3)] for r in range(3)]

    g = [P(x) for x in gravity]
    eye = const(np.eye(3))
    frames = {model.root: (eye, [zero] * 3, [[zero] * 3 for _ in range(n)])}  # R, O, Jw columns
    M = [[zero] * n for _ in range(n)]
    V = zero
    for k, j in enumerate(model.joints):
        Rp, Op, Jwp = frames[j.parent]
        RE = mm(Rp, const(j.origin_rot))
        u = mv(RE, [P(x) for x in j.axis])
        O = [a + b for a, b in zip(Op, mv(Rp, [P(x) for x in j.origin_xyz]))]
        Jw = [col[:] for col in Jwp]
        if j.kind == "revolute":
            a = [P(x) for x in j.axis]
            K = [[zero, -a[2], a[1]], [a[2], zero, -a[0]], [-a[1], a[0], zero]]
            KK = mm(K, K)
            c, s_ = G[cs[k]], G[sn[k]]
            rot = [[eye[r][cc] + s_ * K[r][cc] + (one - c) * KK[r][cc] for cc in range(3)] for r in range(3)]
            R = mm(RE, rot)
            Jw[k] = u
        else:
            R = RE
            O = [o + G[q[k]] * ui for o, ui in zip(O, u)]
        frames[j.child] = (R, O, Jw)
        b = model.bodies[j.child]
        if b.mass == 0 and not np.any(b.inertia):
            continue
        com = [o + x for o, x in zip(O, mv(R, [P(x) for x in b.com]))]
        Jv = [[D(x, kk) for x in com] for kk in range(n)]  # columns
        Rt = [[R[cc][r] for cc in range(3)] for r in range(3)]
        I0 = mm(mm(R, const(b.inertia)), Rt)
        I0Jw = [mv(I0, Jw[kk]) for kk in range(n)]
        m = P(b.mass)
        for r in range(n):
            for cc in range(r, n):
                M[r][cc] += m * sum((Jv[r][t] * Jv[cc][t] for t in range(3)), zero) + sum(
                    (Jw[r][t] * I0Jw[cc][t] for t in range(3)), zero
                )
        V -= m * sum((g[t] * com[t] for t in range(3)), zero)
    for r in range(n):
        for cc in range(r, n):
            M[r][cc] = reduce(M[r][cc])
        for cc in range(r):
            M[r][cc] = M[cc][r]
    Gv = [reduce(D(V, k)) for k in range(n)]
    dM = [[[D(M[r][cc], kk) for cc in range(n)] for r in range(n)] for kk in range(n)]
    qdg = [G[x] for x in qd]
    Cq = []
    for i in range(n):
        acc = zero
        for j2 in range(n):
            for k2 in range(j2, n):
                cijk = (dM[k2][i][j2] + dM[j2][i][k2] - dM[i][j2][k2]) * QQ(1, 2)
                acc += (cijk if j2 == k2 else 2 * cijk) * qdg[j2] * qdg[k2]
        Cq.append(reduce(acc))
    back = {cs[k]: sp.cos(q[k]) for k in range(n) if rev[k]}
    back.update({sn[k]: sp.sin(q[k]) for k in range(n) if rev[k]})

    def finish(e):
        e = e.as_expr().xreplace(back)
        if simplify and sp.count_ops(e) <= trigsimp_ops:
            e = sp.trigsimp(e)
        return e

    # C qd grouped by the products qd_j qd_k (split in the ring: each coefficient is simplified alone)
    qd_pos = [Rg.gens.index(x) for x in qdg]
    Cqd = []
    for e in Cq:
        groups = {}
        for mon, coeff in e.terms():
            key = tuple(mon[i] for i in qd_pos)
            rest = list(mon)
            for i in qd_pos:
                rest[i] = 0
            groups[key] = groups.get(key, zero) + Rg.from_dict({tuple(rest): coeff})
        Cqd.append(
            sp.Add(
                *[
                    finish(cf) * sp.Mul(*[x**p for x, p in zip(qd, key)])
                    for key, cf in sorted(groups.items(), reverse=True)
                ]
            )
        )
    return LagrangeModel(
        model.joint_names,
        q,
        qd,
        qdd,
        sp.Matrix(n, n, lambda r, cc: finish(M[r][cc])),
        sp.Matrix(Cqd),
        sp.Matrix([finish(e) for e in Gv]),
        tuple(gravity),
        time.perf_counter() - t0,
        names,
    )


def to_latex(lm: LagrangeModel, standalone: bool = True) -> str:
    """M, C qd, g and tau as LaTeX equations (grammar of `latex_parse`)."""
    out = []
    if standalone:
        out += [
            *LATEX_PREAMBLE,
            r"\section*{Lagrange closed forms}",
            f"$\\tau = M(q)\\,\\ddot q + C(q,\\dot q)\\,\\dot q + g(q)$, gravity "
            f"$({', '.join(str(x) for x in lm.gravity)})$~m/s$^2$; joints: "
            + ", ".join(n.replace("_", r"\_") for n in lm.joint_names)
            + ".",
        ]
        out[-1:] = comment_lines(out[-1], "")
    n = len(lm.q)
    rows = []
    for r in range(n):
        for c in range(r, n):
            rows.append(f"M^{{{r + 1}{c + 1}}}_{{\\mathrm{{q}}}} &= {latex_expr(lm.M[r, c], lm.names)}")
    for r in range(n):
        rows.append(f"c^{{{r + 1}}}_{{\\mathrm{{q}}}} &= {latex_expr(lm.Cqd[r], lm.names)}")
    for r in range(n):
        rows.append(f"g^{{{r + 1}}}_{{\\mathrm{{q}}}} &= {latex_expr(lm.g[r], lm.names)}")
    out += [
        r"% M^{rc}: inertia matrix (symmetric, upper triangle), c^{r} = (C(q, qd) qd)_r, g^{r} = g(q)_r",
        r"\begin{align*}",
        " \\\\\n".join("\n".join(latex_line(row)) for row in rows),
        r"\end{align*}",
    ]
    if standalone:
        out.append(r"\end{document}")
    return "\n".join(out) + "\n"
