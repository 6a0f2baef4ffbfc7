"""World-frame recursive Newton-Euler for a tree, as a straight-line program (``Program``).

Formulation: the double recursion of Canovas, §2.2 (Luh-Walker-Paul, world-frame vectors, moments
about the joint origins, gravity as a base acceleration, eq. (2.27)), with the errors of the report's
printed equations and generated listing (§4.1) corrected: the base acceleration is -g_vec (the
listing flips its sign), lever arms are relative vectors (eq. (2.22) prints absolute ones), the
gyroscopic term uses omega (the listing uses omega-dot), the inertia is rotated into world axes,
rotations are post-multiplied by the local joint rotation, omega is accumulated along world axes
and omega-dot has the omega_p x qd u term.

Every quantity is a world-axes 3-vector (or 3x3 matrix) stored component-wise in named scalar
variables. The program is built with SymPy expressions whose free symbols are earlier variables,
so constants fold (zeros vanish, ones disappear) and the same program prints to Python, C and
LaTeX (`humanoid_model.dynmodel.printers`).

Variable names (``<n>`` is the URDF joint or link name made into an identifier; suffix _x/_y/_z,
or _rc for matrix entry row r, column c):

======================  ===============================================================
``q_<j>, qd_<j>, qdd_<j>``  joint position [rad or m], velocity, acceleration (inputs)
``c_<j>, s_<j>``            cos q, sin q (revolute joints)
``R_<link>_rc``              world orientation of the link frame (= joint frame)
``u_<j>``                    joint axis in world axes
``position_<j>``             world position of the joint origin (= child link frame origin) [m]
``velocity_<j>``             its velocity [m/s]
``acceleration_<j>``         its acceleration minus gravity (gravity trick) [m/s^2]
``omega_<link>``             angular velocity [rad/s];  ``omegad_<link>`` its derivative
``position_<link>``          COM position [m]; ``velocity_<link>``; ``acceleration_<link>`` (minus g)
``Fhat_<link>``              m a_COM (incl. -g) [N];  ``Nhat_<link>`` I w' + w x I w about the COM [N m]
``force_<j>``                force transmitted by joint j to its child subtree [N]
``moment_<j>``               moment transmitted by joint j, about the joint origin [N m]
``tau_<j>``                  actuator effort u . moment (revolute, [N m]) or u . force (prismatic, [N])
``fext_<link>_{fx..nz}``     external wrench on the link from the environment (inputs): force and
                             moment about the link frame origin, both in world axes [N], [N m]
======================  ===============================================================
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
import sympy as sp

from humanoid_model.exceptions import ConfigError

from .urdf import TreeModel, identifier

XYZ = "xyz"


def num(x) -> sp.Expr:
    """A SymPy number for a float constant: exact 0, 1, -1 so that products fold."""
    x = float(x)
    if x == 0.0:
        return sp.S.Zero
    if x == 1.0:
        return sp.S.One
    if x == -1.0:
        return sp.S.NegativeOne
    return sp.Float(x)


def _clean(x, tol=1e-15):
    """Round float noise (|x| < tol, |x -+ 1| < tol) from constant rotations to exact 0/+-1."""
    x = float(x)
    if abs(x) < tol:
        return 0.0
    if abs(abs(x) - 1.0) < tol:
        return 1.0 if x > 0 else -1.0
    return x


@dataclass
class Stmt:
    """One assignment ``symbol = expr`` or a block comment (``symbol`` is None)."""

    symbol: sp.Symbol | None
    expr: sp.Expr | None = None
    comment: str = ""
    latex: str = ""  # LaTeX name of the symbol


@dataclass
class Program:
    """A straight-line program: inputs, statements, outputs."""

    robot: str
    joint_names: list
    joint_kinds: list
    body_names: list  # rows of f_ext (moving bodies, joint order)
    gravity: tuple
    q: list
    qd: list
    qdd: list
    fext: list  # per body: 6 symbols (fx, fy, fz, nx, ny, nz)
    stmts: list = field(default_factory=list)
    tau: list = field(default_factory=list)  # expressions (symbols or constants)
    values: dict = field(default_factory=dict)  # name -> [3 expressions] (accelerations true)
    latex_names: dict = field(default_factory=dict)  # symbol name -> LaTeX
    source: str = ""
    # per moving link: its kinematics as expressions, for the other models (mass matrix,
    # regressor): R (3x3), O (joint origin), w, wd, a (origin acceleration minus g), u (joint axis)
    frames: dict = field(default_factory=dict)
    body_ids: dict = field(default_factory=dict)  # link name -> identifier used in symbol names
    joint_ids: dict = field(default_factory=dict)  # joint name -> identifier

    # -------------------------------------------------------------- building
    def comment(self, text):
        self.stmts.append(Stmt(None, None, text))

    def scalar(self, name, expr, latex, alias=False):
        """Emit ``name = expr`` unless expr is a number or a (negated) symbol (then inline it).

        ``alias=True`` also names a (negated) symbol, so that a quantity of one joint or link is
        never printed under another's name (a joint axis equal to a column of a parent's rotation)."""
        expr = sp.sympify(expr)
        if expr.is_Number or (
            not alias and (expr.is_Symbol or (expr.could_extract_minus_sign() and (-expr).is_Symbol))
        ):
            return expr
        sym = sp.Symbol(name)
        self.latex_names[name] = latex
        self.stmts.append(Stmt(sym, expr, latex=latex))
        return sym

    def vector(self, name, exprs, latex_base, latex_sub, alias=False):
        return [self.scalar(f"{name}_{a}", e, _lx(latex_base, latex_sub, a), alias) for a, e in zip(XYZ, exprs)]

    def matrix(self, name, M, latex_base, latex_sub):
        return [
            [self.scalar(f"{name}_{r}{c}", M[r][c], _lx(latex_base, latex_sub, f"{r + 1}{c + 1}")) for c in range(3)]
            for r in range(3)
        ]

    def pruned(self, keep_values: bool) -> Program:
        """A copy without statements that neither tau (nor `values`, if kept) depends on."""
        needed = set()
        for e in list(self.tau) + ([x for v in self.values.values() for x in v] if keep_values else []):
            needed |= {s.name for s in sp.sympify(e).free_symbols}
        kept = []
        for s in reversed(self.stmts):
            if s.symbol is None:
                kept.append(s)
            elif s.symbol.name in needed:
                kept.append(s)
                needed |= {x.name for x in s.expr.free_symbols}
        kept.reverse()
        # drop comments of blocks left empty
        out = [
            s
            for i, s in enumerate(kept)
            if s.symbol is not None or (i + 1 < len(kept) and kept[i + 1].symbol is not None)
        ]
        return replace(self, stmts=out)


def _latex_text(name: str) -> str:
    return name.replace("_", r"\_")


def _lx(base, sub, sup=None):
    """LaTeX name ``base^{sup}_{\\mathrm{sub}}`` (the grammar read back by `latex_parse`)."""
    if sup is not None and base.endswith("}") and "^{" in base:
        s = base[:-1] + "," + str(sup) + "}"
    else:
        s = f"{base}^{{{sup}}}" if sup is not None else base
    return f"{s}_{{\\mathrm{{{_latex_text(sub)}}}}}"


# ------------------------------------------------------------------------- small algebra
def cross(a, b):
    return [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]


def add(*vs):
    return [sum((v[i] for v in vs), sp.S.Zero) for i in range(3)]


def scale(s, v):
    return [s * x for x in v]


def matvec(M, v):
    return [sum((M[r][c] * v[c] for c in range(3)), sp.S.Zero) for r in range(3)]


def matTvec(M, v):
    return [sum((M[c][r] * v[c] for c in range(3)), sp.S.Zero) for r in range(3)]


def matmul(A, B):
    return [[sum((A[r][k] * B[k][c] for k in range(3)), sp.S.Zero) for c in range(3)] for r in range(3)]


def const_vec(v):
    return [num(_clean(x)) for x in v]


def const_mat(M):
    return [[num(_clean(M[r][c])) for c in range(3)] for r in range(3)]


def axis_rotation(axis, c, s):
    """Rot(axis, q) with symbols c = cos q, s = sin q, folded for the given numeric unit axis."""
    a = [float(x) for x in axis]
    out = []
    for r in range(3):
        row = []
        for col in range(3):
            k = [[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]]
            kk = sum(k[r][m] * k[m][col] for m in range(3))
            row.append(num(_clean(1.0 if r == col else 0.0)) + s * num(_clean(k[r][col])) + (1 - c) * num(_clean(kk)))
        out.append([sp.expand(e) for e in row])
    return out


def build_program(
    model: TreeModel, gravity=(0.0, 0.0, -9.81), accelerations: bool = True, external: bool = True
) -> Program:
    """Newton-Euler program for `model` under gravity vector `gravity` [m/s^2] (world axes).

    ``accelerations=False`` sets qdd = 0 (the inputs stay in the signature): the efforts are then
    the nonlinear effects h(q, qd) = C(q, qd) qd + g(q) (`humanoid_model.dynmodel.models`).
    ``external=False`` sets the external wrenches to 0 (models without an f_ext input)."""
    try:
        g = [float(x) for x in gravity]
    except (TypeError, ValueError):
        g = []
    if len(g) != 3 or not all(np.isfinite(g)):
        raise ConfigError(f"dynmodel: gravity={gravity!r} must be 3 finite numbers [m/s^2]")
    names = model.joint_names
    # identifiers, unique across joints and bodies (URDF allows a joint and a link of one name,
    # and different names can give one identifier): clashes get a numbered suffix
    taken = set()

    def unique(name):
        i, k = identifier(name), 1
        while i in taken:
            i, k = f"{identifier(name)}_{k}", k + 1
        taken.add(i)
        return i

    bid = {n: unique(n) for n in model.bodies}
    jid = {n: unique(n) for n in names}
    bodies = [j.child for j in model.joints]
    P = Program(
        model.name,
        names,
        [j.kind for j in model.joints],
        bodies,
        tuple(g),
        q=[sp.Symbol(f"q_{jid[n]}") for n in names],
        qd=[sp.Symbol(f"qd_{jid[n]}") for n in names],
        qdd=[sp.Symbol(f"qdd_{jid[n]}") for n in names],
        fext=[[sp.Symbol(f"fext_{bid[b]}_{c}") for c in ("fx", "fy", "fz", "nx", "ny", "nz")] for b in bodies],
        source=model.source,
        body_ids=bid,
        joint_ids=jid,
    )
    for n in names:
        i, lab = jid[n], (n if n not in model.bodies else f"{n}_joint")
        P.latex_names[f"q_{i}"] = _lx("q", lab)
        P.latex_names[f"qd_{i}"] = _lx(r"\dot{q}", lab)
        P.latex_names[f"qdd_{i}"] = _lx(r"\ddot{q}", lab)
    for b, syms in zip(bodies, P.fext):
        for s, lab in zip(syms, ("f^{x}", "f^{y}", "f^{z}", "n^{x}", "n^{y}", "n^{z}")):
            P.latex_names[s.name] = _lx(lab, b)

    zero = [sp.S.Zero] * 3
    state = {model.root: dict(R=const_mat(np.eye(3)), O=zero, v=zero, a=const_vec([-x for x in g]), w=zero, wd=zero)}
    P.comment(
        f"base '{model.root}': fixed; gravity trick: its acceleration is -g = "
        f"({-g[0] + 0.0:g}, {-g[1] + 0.0:g}, {-g[2] + 0.0:g}) m/s^2"
    )
    # ------------------------------------------------------------------ forward pass
    link_terms = {}
    for k, j in enumerate(model.joints):
        jn, ln = j.name, j.child
        ji, li = jid[jn], bid[ln]
        jk = jn if jn not in model.bodies else f"{jn}_joint"  # values key of the joint
        par = state[j.parent]
        P.comment(
            f"joint '{jn}' ({j.kind}{', URDF ' + j.urdf_type if j.urdf_type not in (j.kind, '') else ''}): "
            f"parent '{j.parent}', child '{ln}'"
        )
        Rp, Op, wp, wdp = par["R"], par["O"], par["w"], par["wd"]
        RE = matmul(Rp, const_mat(j.origin_rot))
        # the axis is named after its joint even when it equals another link's rotation entry
        u = P.vector(f"u_{ji}", matvec(RE, const_vec(j.axis)), r"u", jk, alias=True)
        q, qd, qdd = P.q[k], P.qd[k], (P.qdd[k] if accelerations else sp.S.Zero)
        r0 = matvec(Rp, const_vec(j.origin_xyz))
        if j.kind == "revolute":
            c = P.scalar(f"c_{ji}", sp.cos(q), _lx("c", jk))
            s = P.scalar(f"s_{ji}", sp.sin(q), _lx("s", jk))
            R = P.matrix(f"R_{li}", matmul(RE, axis_rotation(j.axis, c, s)), "R", ln)
            r = P.vector(f"r_{ji}", r0, "r", jk)
            w = P.vector(f"omega_{li}", add(wp, scale(qd, u)), r"\omega", ln)
            wd = P.vector(f"omegad_{li}", add(wdp, scale(qdd, u), cross(wp, scale(qd, u))), r"\dot{\omega}", ln)
            O = P.vector(f"position_{ji}", add(Op, r), "p", jk)
            v = P.vector(f"velocity_{ji}", add(par["v"], cross(wp, r)), "v", jk)
            a = P.vector(f"acceleration_{ji}", add(par["a"], cross(wdp, r), cross(wp, cross(wp, r))), "a", jk)
        else:
            R = P.matrix(f"R_{li}", RE, "R", ln)
            r = P.vector(f"r_{ji}", add(r0, scale(q, u)), "r", jk)
            w, wd = wp, wdp
            O = P.vector(f"position_{ji}", add(Op, r), "p", jk)
            v = P.vector(f"velocity_{ji}", add(par["v"], cross(wp, r), scale(qd, u)), "v", jk)
            a = P.vector(
                f"acceleration_{ji}",
                add(par["a"], cross(wdp, r), cross(wp, cross(wp, r)), scale(qdd, u), scale(2, cross(wp, scale(qd, u)))),
                "a",
                jk,
            )
        state[ln] = dict(R=R, O=O, v=v, a=a, w=w, wd=wd, u=u)
        P.frames[ln] = state[ln]
        # --- link block: COM kinematics and the body's own dynamic wrench (the report's shortcut, §4.1)
        body = model.bodies[ln]
        P.comment(
            f"link '{ln}': mass {body.mass:.6g} kg, COM {np.round(body.com, 6).tolist()} m "
            f"in the link frame{'; merged fixed links ' + str(body.merged) if body.merged else ''}"
        )
        rho = P.vector(f"rho_{li}", matvec(R, const_vec(body.com)), r"\rho", ln)
        pc = P.vector(f"position_{li}", add(O, rho), "p", ln)
        vc = P.vector(f"velocity_{li}", add(v, cross(w, rho)), "v", ln)
        ac = P.vector(f"acceleration_{li}", add(a, cross(wd, rho), cross(w, cross(w, rho))), "a", ln)
        m = num(body.mass)
        Fh = P.vector(f"Fhat_{li}", scale(m, ac), r"\hat{F}", ln)
        Ic = const_mat(body.inertia)
        if any(x != 0 for row in Ic for x in row):
            wl = P.vector(f"omegal_{li}", matTvec(R, w), r"\omega^{l}", ln)
            wdl = P.vector(f"omegadl_{li}", matTvec(R, wd), r"\dot{\omega}^{l}", ln)
            hl = P.vector(f"h_{li}", matvec(Ic, wl), "h", ln)
            Nl = add(matvec(Ic, wdl), cross(wl, hl))
            Nh = P.vector(f"Nhat_{li}", matvec(R, Nl), r"\hat{N}", ln)
        else:
            Nh = zero
        link_terms[ln] = (rho, Fh, Nh)
        P.values[f"axis_{jk}"] = u
        P.values[f"position_{jk}"] = O
        P.values[f"velocity_{jk}"] = v
        P.values[f"acceleration_{jk}"] = [a[i] + num(g[i]) for i in range(3)]
        P.values[f"position_{ln}"] = pc
        P.values[f"velocity_{ln}"] = vc
        P.values[f"acceleration_{ln}"] = [ac[i] + num(g[i]) for i in range(3)]
        P.values[f"omega_{ln}"] = w
        P.values[f"omegad_{ln}"] = wd
    # ------------------------------------------------------------------ backward pass
    wrench = {}
    tau = [None] * len(model.joints)
    for k in reversed(range(len(model.joints))):
        j = model.joints[k]
        jn, ln = j.name, j.child
        ji = jid[jn]
        jk = jn if jn not in model.bodies else f"{jn}_joint"
        P.comment(f"backward: joint '{jn}' carries link '{ln}' and its subtree")
        rho, Fh, Nh = link_terms[ln]
        fe = P.fext[k] if external else [sp.S.Zero] * 6
        F = add(Fh, scale(-1, fe[:3]))
        N = add(Nh, cross(rho, Fh), scale(-1, fe[3:]))
        O = state[ln]["O"]
        for ch in model.children(ln):
            Fk, Nk = wrench[ch.name]
            lever = [state[ch.child]["O"][i] - O[i] for i in range(3)]
            F = add(F, Fk)
            N = add(N, Nk, cross(lever, Fk))
        F = P.vector(f"force_{ji}", F, "F", jk)
        N = P.vector(f"moment_{ji}", N, "N", jk)
        wrench[jn] = (F, N)
        u = state[ln]["u"]
        proj = N if j.kind == "revolute" else F
        tau[k] = P.scalar(f"tau_{ji}", sum((u[i] * proj[i] for i in range(3)), sp.S.Zero), _lx(r"\tau", jk))
        P.values[f"force_{jk}"] = F
        P.values[f"moment_{jk}"] = N
    P.tau = tau
    return P
