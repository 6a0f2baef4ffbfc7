"""Symbolic Lagrange closed forms with SymPy: M(q), C(q, qd) qd and g(q), for small robots.

The report derived Lagrange symbolically and dropped it as too slow ("more than 4 s for a
4-joint structure", ``../shared/spec/004_canovas.md`` §2.3 and R1, L293). This module derives,
for any `TreeModel` (meant for <= 4-6 DoF):

* kinetic energy T = 1/2 qd^T M(q) qd with M = sum_j m_j Jv_j^T Jv_j + Jw_j^T I0_j Jw_j
  (COM Jacobian Jv, angular Jacobian Jw, world inertia about the COM I0 = R I R^T) - with the
  correct angular velocity omega = Jw qd, not the report's omega = q (spec §2.3 "eq. 2.20 is wrong");
* potential energy V = -sum_j m_j g . c_j (vertical *position*, not velocity as printed in eq. 2.5);
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

from .ne import _clean, _lx
from .printers import latex_expr
from .urdf import TreeModel, identifier


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
    seconds: float          # derivation + simplification time [s]
    names: dict             # symbol name -> LaTeX

    @property
    def tau(self) -> sp.Matrix:
        return self.M * sp.Matrix(self.qdd) + self.Cqd + self.g

    def numeric(self):
        """A function (q, qd, qdd) -> tau (numpy) made with sympy.lambdify."""
        f = sp.lambdify([self.q, self.qd, self.qdd], list(self.tau), "math")
        return lambda q, qd, qdd: np.array(f(list(q), list(qd), list(qdd)), dtype=float)


def lagrange(model: TreeModel, gravity=(0.0, 0.0, -9.81), simplify: bool = True,
             trigsimp_ops: int = 60) -> LagrangeModel:
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

    def D(f, k):
        """d f / d q_k for a polynomial in (c, s, q)."""
        if rev[k]:
            return -sn[k] * sp.diff(f, cs[k]) + cs[k] * sp.diff(f, sn[k])
        return sp.diff(f, q[k])

    def reduce(f):
        f = sp.expand(f)
        if not f.free_symbols & set(sn):
            return f
        p = sp.Poly(f, *[sn[k] for k in range(n) if rev[k]])
        out = sp.S.Zero
        for mon, coeff in p.terms():
            term = coeff
            for k, e in zip([k for k in range(n) if rev[k]], mon):
                term *= sn[k] ** (e % 2) * (1 - cs[k] ** 2) ** (e // 2)
            out += term
        return sp.expand(out)

    g = sp.Matrix([rat(x) for x in gravity])
    frames = {model.root: (sp.eye(3), sp.zeros(3, 1), sp.zeros(3, n))}  # R, O, Jw
    M = sp.zeros(n, n)
    V = sp.S.Zero
    for k, j in enumerate(model.joints):
        Rp, Op, Jwp = frames[j.parent]
        E = sp.Matrix(3, 3, [rat(x) for x in np.asarray(j.origin_rot).ravel()])
        RE = Rp * E
        u = RE * sp.Matrix([rat(x) for x in j.axis])
        O = Op + Rp * sp.Matrix([rat(x) for x in j.origin_xyz])
        Jw = Jwp.copy()
        if j.kind == "revolute":
            a = [rat(x) for x in j.axis]
            K = sp.Matrix([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
            R = (RE * (sp.eye(3) + sn[k] * K + (1 - cs[k]) * K * K)).applyfunc(sp.expand)
            Jw[:, k] = u
        else:
            R = RE
            O = O + q[k] * u
        frames[j.child] = (R, O, Jw)
        b = model.bodies[j.child]
        if b.mass == 0 and not np.any(b.inertia):
            continue
        c = (O + R * sp.Matrix([rat(x) for x in b.com])).applyfunc(sp.expand)
        Jv = sp.Matrix.hstack(*[c.applyfunc(lambda e, k=kk: D(e, k)) for kk in range(n)])
        I0 = R * sp.Matrix(3, 3, [rat(x) for x in b.inertia.ravel()]) * R.T
        M += rat(b.mass) * Jv.T * Jv + Jw.T * I0 * Jw
        V += -rat(b.mass) * (g.T * c)[0]
    M = M.applyfunc(reduce)
    G = sp.Matrix([reduce(D(V, k)) for k in range(n)])
    dM = [M.applyfunc(lambda e, k=kk: D(e, k)) for kk in range(n)]
    Cqd = sp.zeros(n, 1)
    pairs = [qd[j] * qd[k] for j in range(n) for k in range(j, n)]
    for i in range(n):
        acc = sp.S.Zero
        for j in range(n):
            for k in range(j, n):
                cijk = (dM[k][i, j] + dM[j][i, k] - dM[i][j, k]) / 2
                acc += (cijk if j == k else 2 * cijk) * qd[j] * qd[k]
        Cqd[i] = sp.collect(reduce(acc), pairs) if simplify else reduce(acc)
    back = {cs[k]: sp.cos(q[k]) for k in range(n) if rev[k]}
    back.update({sn[k]: sp.sin(q[k]) for k in range(n) if rev[k]})

    def finish(e):
        e = e.xreplace(back)
        if simplify and sp.count_ops(e) <= trigsimp_ops:
            e = sp.trigsimp(e)
        return e

    return LagrangeModel(model.joint_names, q, qd, qdd, M.applyfunc(finish), Cqd.applyfunc(finish),
                         G.applyfunc(finish), tuple(gravity), time.perf_counter() - t0, names)


def to_latex(lm: LagrangeModel, standalone: bool = True) -> str:
    """M, C qd, g and tau as LaTeX equations (grammar of `latex_parse`)."""
    out = []
    if standalone:
        out += [r"\documentclass{article}", r"\usepackage{amsmath}", r"\allowdisplaybreaks",
                r"\begin{document}", r"\section*{Lagrange closed forms}",
                f"$\\tau = M(q)\\,\\ddot q + C(q,\\dot q)\\,\\dot q + g(q)$, gravity "
                f"$({', '.join(str(x) for x in lm.gravity)})$~m/s$^2$; joints: "
                + ", ".join(n.replace("_", r"\_") for n in lm.joint_names) + "."]
    n = len(lm.q)
    rows = []
    for r in range(n):
        for c in range(r, n):
            rows.append(f"M^{{{r + 1}{c + 1}}}_{{\\mathrm{{q}}}} &= {latex_expr(lm.M[r, c], lm.names)}")
    for r in range(n):
        rows.append(f"c^{{{r + 1}}}_{{\\mathrm{{q}}}} &= {latex_expr(lm.Cqd[r], lm.names)}")
    for r in range(n):
        rows.append(f"g^{{{r + 1}}}_{{\\mathrm{{q}}}} &= {latex_expr(lm.g[r], lm.names)}")
    out += [r"% M^{rc}: inertia matrix (symmetric, upper triangle), c^{r} = (C(q, qd) qd)_r, g^{r} = g(q)_r",
            r"\begin{align*}", " \\\\\n".join(rows), r"\end{align*}"]
    if standalone:
        out.append(r"\end{document}")
    return "\n".join(out) + "\n"
