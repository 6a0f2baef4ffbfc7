"""``dynmodel --lang casadi``: the generated modules build
``casadi.Function`` objects that equal Pinocchio on random states.

Tolerance: the generated models match ``pin.rnea`` / ``pin.crba`` / ``pin.nonLinearEffects`` to
1e-12 (chosen: machine precision with a margin; relative to max(1, |reference|), `check.max_error`,
the measure of the other printers' tests). Robots: the report's 2R robot, a random branched tree with
revolute, continuous, prismatic and fixed joints and full inertia tensors, and BIP (15 DoF, with
its YAML armature). HRP-2 is left to the Python printer's tests: its symbolic generation alone
takes longer than this file's budget.
"""

import math
from pathlib import Path

import casadi as ca
import numpy as np
import pytest

from humanoid_model import dynmodel
from humanoid_model.dynmodel.check import PinocchioReference, max_error, random_tree_urdf
from humanoid_model.dynmodel.joint_terms import joint_terms
from humanoid_model.dynmodel.wrap import WIDTH
from humanoid_model.paths import urdf_dir

DATA = Path(dynmodel.__file__).resolve().parent / "data"
TOL = 1e-12  # against pin.crba, pin.nonLinearEffects and pin.rnea (chosen, module docstring)
TREE = random_tree_urdf(7, seed=4)
URDFS = {"2r": DATA / "robot_2R.urdf", "tree": TREE, "bip": urdf_dir() / "bip.urdf"}


class Generated:
    """The casadi modules (inverse dynamics, mass matrix, nle) of one robot and its reference."""

    def __init__(self, name):
        urdf = URDFS[name]
        self.tree = dynmodel.parse_urdf(urdf)
        terms = joint_terms(self.tree, urdf, armature=name == "bip")
        self.text = {
            kind: dynmodel.generate(self.tree, "casadi", model=kind, terms=terms)
            for kind in ("inverse_dynamics", "mass_matrix", "nle")
        }
        self.mod = {k: dynmodel.load_python(t) for k, t in self.text.items()}
        self.ref = PinocchioReference(urdf, tree=self.tree)
        for k, jn in enumerate(self.tree.joint_names):
            self.ref.model.armature[self.ref.slots[k][2]] = terms.armature.get(jn, 0.0)
        self.ref.data = self.ref.model.createData()


@pytest.fixture(scope="module")
def generated():
    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = Generated(name)
        return cache[name]

    return get


@pytest.mark.parametrize("name", ["2r", "tree", "bip"])
def test_casadi_inverse_dynamics_mass_matrix_and_nle_equal_pinocchio(generated, name):
    g = generated(name)
    ID = g.mod["inverse_dynamics"].inverse_dynamics
    MM = g.mod["mass_matrix"].mass_matrix
    H = g.mod["nle"].nonlinear_effects
    assert isinstance(ID, ca.Function) and isinstance(MM, ca.Function) and isinstance(H, ca.Function)
    nb = g.mod["inverse_dynamics"].NB
    rng = np.random.default_rng(21)
    worst = {"rnea": 0.0, "rnea_fext": 0.0, "crba": 0.0, "nle": 0.0}
    for _ in range(10):
        q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, g.tree.nv))
        fe = rng.normal(0.0, 20.0, (nb, 6))
        worst["rnea"] = max(
            worst["rnea"], max_error(np.array(ID(q, qd, qdd, np.zeros((nb, 6)))).ravel(), g.ref.rnea(q, qd, qdd))
        )
        tau_fe = np.array(ID(q, qd, qdd, fe)).ravel()
        worst["rnea_fext"] = max(worst["rnea_fext"], max_error(tau_fe, g.ref.rnea(q, qd, qdd, fe)))
        M = np.array(MM(q))
        assert np.array_equal(M, M.T)
        worst["crba"] = max(worst["crba"], max_error(M, g.ref.crba(q)))
        worst["nle"] = max(worst["nle"], max_error(np.array(H(q, qd)).ravel(), g.ref.nle(q, qd)))
        # a call by name leaves f_ext at its default, zero
        by_name = np.array(ID(q=q, qd=qd, qdd=qdd)["tau"]).ravel()
        assert max_error(by_name, g.ref.rnea(q, qd, qdd)) <= TOL
    assert all(v <= TOL for v in worst.values()), worst


@pytest.mark.parametrize("name", ["2r", "bip"])
def test_casadi_link_frames_equal_pinocchio_placements(generated, name):
    g = generated(name)
    mod = g.mod["inverse_dynamics"]
    pin, model, data = g.ref.pin, g.ref.model, g.ref.data
    rng = np.random.default_rng(22)
    for _ in range(5):
        q = rng.uniform(-np.pi, np.pi, g.tree.nv)
        out = mod.link_frames(q=q)
        pin.framesForwardKinematics(model, data, g.ref.state(q, 0 * q, 0 * q)[0])
        for link in mod.LINK_NAMES:
            oMf = data.oMf[model.getFrameId(link)]
            key = dynmodel.urdf.identifier(link)
            assert np.max(np.abs(np.array(out[f"O_{key}"]).ravel() - oMf.translation)) < 1e-12
            assert np.max(np.abs(np.array(out[f"R_{key}"]) - oMf.rotation)) < 1e-12


def test_casadi_functions_take_symbols_and_differentiate(generated):
    """SX functions: called with symbols they give expressions; d tau / d qdd is the mass matrix."""
    g = generated("bip")
    n = g.tree.nv
    q, qd, qdd = (ca.SX.sym(s, n) for s in ("q", "qd", "qdd"))
    tau = g.mod["inverse_dynamics"].inverse_dynamics(q=q, qd=qd, qdd=qdd)["tau"]
    dM = ca.Function("dM", [q], [ca.jacobian(tau, qdd)])
    rng = np.random.default_rng(23)
    x = rng.uniform(-math.pi, math.pi, n)
    assert max_error(np.array(dM(x)), g.ref.crba(x)) <= TOL


def test_casadi_lines_are_at_most_120_characters(generated):
    for name in ("2r", "bip"):
        for kind, text in generated(name).text.items():
            assert max(len(line) for line in text.splitlines()) <= WIDTH, (name, kind)


def test_casadi_regressor_times_parameters_is_the_inverse_dynamics(generated):
    from humanoid_model.dynmodel.regressor import regressor

    g = generated("2r")
    f = regressor(g.tree, (0.0, 0.0, -9.81))
    mod = dynmodel.load_python(dynmodel.generate(g.tree, "casadi", model="regressor"))
    pi = np.array(mod.PARAMETERS)
    rng = np.random.default_rng(24)
    for _ in range(5):
        q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, g.tree.nv))
        Y = np.array(mod.regressor(q, qd, qdd))
        assert Y.shape == f.shape
        assert max_error(Y @ pi, g.ref.rnea(q, qd, qdd)) <= TOL


def test_cli_lang_casadi_writes_a_loadable_module(tmp_path):
    from humanoid_stack.cli import main

    ref = PinocchioReference(URDFS["2r"])
    rng = np.random.default_rng(25)
    q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, 2))
    for model in ("inverse_dynamics", "mass_matrix", "nle"):
        out = tmp_path / f"robot_2r_{model}.py"
        assert main(["dynmodel", "2r", "--model", model, "--lang", "casadi", "--out", str(out)]) == 0
        mod = dynmodel.load_python(out.read_text())
        if model == "inverse_dynamics":
            got, want = np.array(mod.inverse_dynamics(q=q, qd=qd, qdd=qdd)["tau"]).ravel(), ref.rnea(q, qd, qdd)
        elif model == "mass_matrix":
            got, want = np.array(mod.mass_matrix(q)), ref.crba(q)
        else:
            got, want = np.array(mod.nonlinear_effects(q, qd)).ravel(), ref.nle(q, qd)
        assert max_error(got, want) <= TOL, model
    # joint friction goes through the CLI too (the BIP armature path is the fixture's: generate(terms=...))
    out = tmp_path / "robot_2r_friction.py"
    assert main(["dynmodel", "2r", "--lang", "casadi", "--friction", "--out", str(out)]) == 0
    assert "ca.Function" in out.read_text()
