"""Generated mass matrix M(q) and nonlinear effects h(q, qd) against
Pinocchio, with joint friction and armature, in every language (Python, C, LaTeX, SymPy).

Reference: ``pin.crba`` (upper triangle, symmetrised) and ``pin.nonLinearEffects`` on the same
URDF (`check.PinocchioReference`). Measure: max|x - x_ref| / max(1, max|x_ref|) <= 1e-12 (chosen;
the values measured are ~1e-15). HRP-2 is in test_dynmodel_hrp2_models.py
(its symbolic build is the slow part).
"""

import ctypes
import math
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from humanoid_model import dynmodel
from humanoid_model.dynmodel.check import PinocchioReference, max_error, random_tree_urdf
from humanoid_model.dynmodel.function_printers import (
    function_to_c,
    function_to_latex,
    function_to_python,
    function_to_sympy,
)
from humanoid_model.dynmodel.joint_terms import JointTerms, joint_terms
from humanoid_model.dynmodel.latex_parse import parse_equations
from humanoid_model.dynmodel.models import mass_matrix, nonlinear_effects
from humanoid_model.dynmodel.regressor import regressor
from humanoid_model.paths import urdf_dir

DATA = Path(dynmodel.__file__).resolve().parent / "data"
TOL = 1e-12  # against pin.crba and pin.nonLinearEffects (chosen, module docstring)
G = (0.0, 0.0, -9.81)
# a branched tree mixing revolute, continuous, prismatic and fixed joints, full inertia tensors
TREE = random_tree_urdf(7, seed=4)


def crba(ref, q):
    return ref.crba(q)


def nle(ref, q, qd):
    return ref.nle(q, qd)


class Case:
    """Generated M and h of a URDF and its Pinocchio reference; ``armature=True``: M includes the
    robot YAML's armature, and so does the reference (``model.armature``, as load_robot sets it)."""

    def __init__(self, urdf, gravity=G, armature=False):
        self.tree = dynmodel.parse_urdf(urdf)
        self.terms = joint_terms(self.tree, urdf, armature=armature)
        self.M = mass_matrix(self.tree, self.terms)
        self.h = nonlinear_effects(self.tree, gravity)
        self.Mmod = dynmodel.load_python(function_to_python(self.M))
        self.hmod = dynmodel.load_python(function_to_python(self.h))
        self.ref = PinocchioReference(urdf, gravity, tree=self.tree)
        for k, name in enumerate(self.tree.joint_names):
            self.ref.model.armature[self.ref.slots[k][2]] = self.terms.armature.get(name, 0.0)
        self.ref.data = self.ref.model.createData()


@pytest.fixture(scope="module")
def cases():
    cache = {}

    def get(name):
        if name not in cache:
            urdf = {"2r": DATA / "robot_2R.urdf", "tree": TREE, "bip": urdf_dir() / "bip.urdf"}[name]
            cache[name] = Case(urdf, armature=name == "bip")
        return cache[name]

    return get


@pytest.mark.parametrize("name", ["2r", "tree", "bip"])
def test_mass_matrix_and_nle_equal_pinocchio_crba_and_nonlineareffects(cases, name):
    c = cases(name)
    rng = np.random.default_rng(11)
    worst_M = worst_h = 0.0
    for _ in range(10):
        q, qd = rng.uniform(-np.pi, np.pi, (2, c.tree.nv))
        M = c.Mmod.mass_matrix(q)
        assert np.array_equal(M, M.T)
        worst_M = max(worst_M, max_error(M, crba(c.ref, q)))
        worst_h = max(worst_h, max_error(c.hmod.nonlinear_effects(q, qd)[:, 0], nle(c.ref, q, qd)))
    assert worst_M <= TOL and worst_h <= TOL, (worst_M, worst_h)


def test_2r_mass_matrix_is_the_closed_form(cases):
    """The closed form of the report's 2R (Canovas, §4.1), derived from its URDF: H11 = 53.6 + 20 cos q2,
    H12 = 15 + 10 cos q2, H22 = 15 (gravity free)."""
    M = cases("2r").Mmod.mass_matrix
    for q2 in (0.0, 0.7, -2.1):
        expected = [[53.6 + 20 * math.cos(q2), 15 + 10 * math.cos(q2)], [15 + 10 * math.cos(q2), 15.0]]
        assert np.allclose(M([0.3, q2]), expected, rtol=0, atol=1e-12)


def test_mass_matrix_columns_are_inverse_dynamics_of_unit_accelerations(cases):
    """M e_i = tau(q, 0, e_i) - tau(q, 0, 0): the CRBA and the Newton-Euler program agree."""
    c = cases("tree")
    ne = dynmodel.load_python(dynmodel.to_python(dynmodel.build_program(c.tree, (0, 0, 0))))
    q = np.random.default_rng(2).uniform(-2, 2, c.tree.nv)
    cols = np.array([ne.inverse_dynamics(q, np.zeros(c.tree.nv), e) for e in np.eye(c.tree.nv)]).T
    assert np.max(np.abs(c.Mmod.mass_matrix(q) - cols)) <= TOL


# ------------------------------------------------------------------ friction and armature
FRICTION_URDF = (
    (DATA / "robot_2R.urdf")
    .read_text()
    .replace(
        '<joint name="joint2" type="continuous">',
        '<joint name="joint2" type="continuous"><dynamics damping="0.3" friction="1.5"/>',
    )
)


def test_urdf_dynamics_tag_gives_viscous_and_coulomb_friction_off_by_default():
    tree = dynmodel.parse_urdf(FRICTION_URDF)
    assert "damping" in FRICTION_URDF
    assert joint_terms(tree).empty  # off by default
    terms = joint_terms(tree, friction=True)
    assert terms.viscous == {"joint2": 0.3} and terms.coulomb == {"joint2": 1.5}
    plain = dynmodel.load_python(function_to_python(nonlinear_effects(tree, G)))
    fric = dynmodel.load_python(function_to_python(nonlinear_effects(tree, G, terms)))
    idf = dynmodel.load_python(dynmodel.generate(tree, "python", G, terms=terms))
    idp = dynmodel.load_python(dynmodel.generate(tree, "python", G))
    q, qdd = [0.4, -0.2], [0.5, 1.0]
    for qd2, sign in ((2.0, 1.0), (-0.5, -1.0), (0.0, 0.0)):  # sign(0) = 0: no stiction model
        qd = [0.7, qd2]
        expected = np.array([0.0, 0.3 * qd2 + 1.5 * sign])
        assert np.allclose(
            fric.nonlinear_effects(q, qd)[:, 0] - plain.nonlinear_effects(q, qd)[:, 0], expected, atol=1e-12
        )
        assert np.allclose(idf.inverse_dynamics(q, qd, qdd) - idp.inverse_dynamics(q, qd, qdd), expected, atol=1e-12)


def test_armature_from_the_robot_yaml_equals_pinocchio_with_model_armature(cases):
    """BIP's YAML armature: M + diag(Ia) equals pin.crba with model.armature set (as load_robot
    does; the [bip] case above compares the whole M), and the inverse dynamics adds Ia qdd."""
    c = cases("bip")
    tree, terms, ref = c.tree, c.terms, c.ref
    assert len(terms.armature) >= 6 and all(v > 0 for v in terms.armature.values())
    q = np.random.default_rng(5).uniform(-1, 1, tree.nv)
    M = c.Mmod.mass_matrix(q)
    ref.model.armature[:] = 0.0
    M0 = crba(ref, q)
    for k, name in enumerate(tree.joint_names):
        ref.model.armature[ref.slots[k][2]] = terms.armature.get(name, 0.0)
    assert np.allclose(np.diag(M - M0), [terms.armature.get(n, 0.0) for n in tree.joint_names], rtol=0, atol=1e-12)
    idmod = dynmodel.load_python(dynmodel.generate(tree, "python", G, terms=terms))
    q, qd, qdd = np.random.default_rng(6).uniform(-1, 1, (3, tree.nv))
    assert max_error(idmod.inverse_dynamics(q, qd, qdd), ref.rnea(q, qd, qdd)) <= TOL  # rnea adds armature qdd


def test_armature_errors_name_the_file_and_joint(tmp_path):
    from humanoid_model.exceptions import ModelError

    urdf = tmp_path / "r.urdf"
    urdf.write_text((DATA / "robot_2R.urdf").read_text())
    tree = dynmodel.parse_urdf(urdf)
    with pytest.raises(ModelError, match="no robot YAML"):
        joint_terms(tree, urdf, armature=True)
    (tmp_path / "r.yaml").write_text("armature:\n  jointX: 0.1\n")
    with pytest.raises(ModelError, match="armature: unknown joint 'jointX'"):
        joint_terms(tree, urdf, armature=True)
    (tmp_path / "r.yaml").write_text("armature:\n  joint1: -2\n")
    with pytest.raises(ModelError, match=r"armature.joint1 = -2: must be a finite number >= 0"):
        joint_terms(tree, urdf, armature=True)


# ------------------------------------------------------------------ the other languages
def test_c_mass_matrix_nle_and_regressor_with_friction_compile_and_agree(tmp_path):
    cc = shutil.which("cc")
    if cc is None:
        pytest.skip("no C compiler")
    tree = dynmodel.parse_urdf(FRICTION_URDF)
    terms = joint_terms(tree, friction=True)
    q, qd, qdd = np.array([0.4, -0.2]), np.array([0.7, -1.3]), np.array([0.3, 2.0])
    for f, args in (
        (mass_matrix(tree), (q,)),
        (nonlinear_effects(tree, G, terms), (q, qd)),
        (regressor(tree, G, terms), (q, qd, qdd)),
    ):
        py = dynmodel.load_python(function_to_python(f))
        expected = getattr(py, f.name)(*args)
        h, c = function_to_c(f)
        (tmp_path / f"robot_2r_{f.name}.h").write_text(h)
        (tmp_path / f"{f.name}.c").write_text(c)
        lib = tmp_path / f"lib{f.name}.so"
        subprocess.run(
            [
                cc,
                "-std=c99",
                "-Wall",
                "-Werror",
                "-pedantic",
                "-shared",
                "-fPIC",
                "-o",
                str(lib),
                str(tmp_path / f"{f.name}.c"),
                "-lm",
            ],
            check=True,
        )
        fn = getattr(ctypes.CDLL(str(lib)), f"robot_2r_{f.name}")
        dbl = ctypes.POINTER(ctypes.c_double)
        out = np.zeros(expected.size)
        full = [np.ascontiguousarray(a, dtype=float) for a in (q, qd, qdd)]
        fn(*[a.ctypes.data_as(dbl) for a in full], out.ctypes.data_as(dbl))
        assert np.max(np.abs(out.reshape(expected.shape) - expected)) <= 1e-12


def test_latex_mass_matrix_parses_back_to_the_python_values(cases):
    c = cases("tree")
    tex = function_to_latex(c.M)
    env, q = {}, np.random.default_rng(8).uniform(-2, 2, c.tree.nv)
    names = c.M.program.latex_names
    for k in range(c.tree.nv):
        env[names[c.M.program.q[k].name]] = q[k]
    M = np.zeros((c.tree.nv, c.tree.nv))
    for lhs, rhs in parse_equations(tex):
        value = float(rhs.subs({sp.Symbol(n): v for n, v in env.items() if sp.Symbol(n) in rhs.free_symbols}))
        env[lhs] = value
        if lhs.startswith("M^{") and lhs.endswith("_{\\mathrm{out}}"):
            r, col = (int(x) - 1 for x in lhs[3 : lhs.index("}")].split(","))
            M[r, col] = M[col, r] = value
    assert np.max(np.abs(M - c.Mmod.mass_matrix(q))) <= 1e-12


def test_sympy_script_builds_the_closed_form(cases):
    """The SymPy output of the 2R mass matrix is a closed form in q2 alone equal to 268/5 + 20 cos q2
    etc. (`test_2r_mass_matrix_is_the_closed_form`)."""
    ns = {}
    exec(function_to_sympy(cases("2r").M), ns)
    M = ns["mass_matrix"]
    q2 = sp.Symbol("q_joint2", real=True)
    expected = sp.Matrix([[sp.Rational(268, 5) + 20 * sp.cos(q2), 15 + 10 * sp.cos(q2)], [15 + 10 * sp.cos(q2), 15]])
    M = M.applyfunc(lambda e: sp.trigsimp(sp.expand(e)))  # cos^2 q1 + sin^2 q1 -> 1
    assert M.free_symbols == {q2}
    for value in (0.0, 0.4, 2.5, -1.9):
        assert all(abs(float(x.subs(q2, value))) <= 1e-12 for x in M - expected)


def test_cli_models_write_each_language(tmp_path):
    from humanoid_stack.cli import main

    for model in ("inverse_dynamics", "mass_matrix", "nle", "regressor", "base_regressor"):
        for lang, suffix in (("python", ".py"), ("c", ".c"), ("latex", ".tex"), ("sympy", "_sympy.py")):
            out = tmp_path / f"{model}{suffix}"
            assert main(["dynmodel", "2r", "--model", model, "--lang", lang, "--friction", "--out", str(out)]) == 0
            assert out.is_file() and max(len(line) for line in out.read_text().splitlines()) <= 120
    out = tmp_path / "snippet.py"  # 36 joints: the packing lines wrap
    assert main(["dynmodel", "human36", "--lang", "snippet", "--out", str(out)]) == 0
    assert max(len(line) for line in out.read_text().splitlines()) <= 120
    ns = {}
    exec(out.read_text(), ns)
    assert ns["qdd"].shape == (36,)
    mod = dynmodel.load_python((tmp_path / "mass_matrix.py").read_text())
    assert mod.mass_matrix([0, 0]).shape == (2, 2) and mod.JOINT_NAMES == ("joint1", "joint2")
    assert JointTerms.none().empty


def _latex_values(tex, inputs):
    """Evaluate the equations of a generated LaTeX document in order: {lhs: value}."""
    env = dict(inputs)
    for lhs, rhs in parse_equations(tex):
        env[lhs] = float(rhs.subs({s: env[s.name] for s in rhs.free_symbols}))
    return env


def test_latex_nle_with_coulomb_friction_parses_back():
    """sign(qd) is printed as \\operatorname{sgn} and read back (Coulomb friction in LaTeX)."""
    tree = dynmodel.parse_urdf(FRICTION_URDF)
    f = nonlinear_effects(tree, G, joint_terms(tree, friction=True))
    assert r"\operatorname{sgn}" in function_to_latex(f)
    py = dynmodel.load_python(function_to_python(f))
    names = f.program.latex_names
    q, qd = [0.4, -0.2], [0.7, -1.3]
    inputs = {names[f.program.q[k].name]: q[k] for k in range(2)}
    inputs |= {names[f.program.qd[k].name]: qd[k] for k in range(2)}
    env = _latex_values(function_to_latex(f), inputs)
    h = [env[f"h^{{{k + 1},1}}_{{\\mathrm{{out}}}}"] for k in range(2)]
    assert np.max(np.abs(np.array(h) - py.nonlinear_effects(q, qd)[:, 0])) <= 1e-12


def test_floating_base_mass_matrix_and_nle_reproduce_the_inverse_dynamics():
    """With --floating-base (3P+3R block; its inverse dynamics is checked against Pinocchio's
    free-flyer in test_dynmodel_robots.py): M(q) qdd + h(q, qd) = tau(q, qd, qdd)."""
    tree = dynmodel.parse_urdf(DATA / "robot_2R.urdf", floating_base=True)
    Mm = dynmodel.load_python(function_to_python(mass_matrix(tree)))
    hm = dynmodel.load_python(function_to_python(nonlinear_effects(tree, G)))
    idm = dynmodel.load_python(dynmodel.generate(tree, "python", G))
    for q, qd, qdd in np.random.default_rng(4).uniform(-1.2, 1.2, (5, 3, tree.nv)):
        tau = idm.inverse_dynamics(q, qd, qdd)
        assert max_error(Mm.mass_matrix(q) @ qdd + hm.nonlinear_effects(q, qd)[:, 0], tau) <= TOL
