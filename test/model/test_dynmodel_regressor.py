"""Generated inertial-parameter regressor Y(q, qd, qdd) and base parameters: tau = Y pi against
``pin.rnea`` and Y against ``pin.computeJointTorqueRegressor`` (same parameter order and frames),
the base regressor's full column rank and its base parameters reproducing tau. Measure:
max|x - x_ref| / max(1, max|x_ref|) <= 1e-12 (chosen, as the other generated models' tests).
"""

from pathlib import Path

import numpy as np
import pytest

from humanoid_model import dynmodel
from humanoid_model.dynmodel.base_parameters import base_parameters, base_regressor
from humanoid_model.dynmodel.check import PinocchioReference, max_error, random_tree_urdf
from humanoid_model.dynmodel.function_printers import function_to_python
from humanoid_model.dynmodel.joint_terms import joint_terms
from humanoid_model.dynmodel.regressor import PARAM_NAMES, parameter_names, parameters, regressor
from humanoid_model.paths import urdf_dir

DATA = Path(dynmodel.__file__).resolve().parent / "data"
TOL = 1e-12
G = (0.0, 0.0, -9.81)
TREE = random_tree_urdf(7, seed=4)


class Case:
    def __init__(self, urdf, gravity=G):
        self.tree = dynmodel.parse_urdf(urdf)
        self.Y = regressor(self.tree, gravity)
        self.mod = dynmodel.load_python(function_to_python(self.Y))
        self.ref = PinocchioReference(urdf, gravity, tree=self.tree)
        self.pi = parameters(self.tree)


@pytest.fixture(scope="module")
def cases():
    cache = {}

    def get(name):
        if name not in cache:
            urdf = {"2r": DATA / "robot_2R.urdf", "tree": TREE, "bip": urdf_dir() / "bip.urdf"}[name]
            cache[name] = Case(urdf)
        return cache[name]

    return get


def _states(nv, n, seed):
    rng = np.random.default_rng(seed)
    return [rng.uniform(-np.pi, np.pi, (3, nv)) for _ in range(n)]


@pytest.mark.parametrize("name", ["2r", "tree", "bip"])
def test_regressor_times_parameters_equals_rnea(cases, name):
    c = cases(name)
    worst = max(
        max_error(c.mod.regressor(q, qd, qdd) @ c.pi, c.ref.rnea(q, qd, qdd))
        for q, qd, qdd in _states(c.tree.nv, 10, 3)
    )
    assert worst <= TOL, worst


@pytest.mark.parametrize("name", ["tree", "bip"])
def test_regressor_equals_pinocchio_joint_torque_regressor(cases, name):
    """Same columns as pin.computeJointTorqueRegressor: per joint [m, mc, Ixx, Ixy, Iyy, Ixz, Iyz, Izz]
    about the joint (child link) frame origin, fixed links merged into their parent body."""
    c = cases(name)
    pin, ref = c.ref.pin, c.ref
    cols = []
    for j in c.tree.joints:
        jid = ref.model.getJointId(j.name)
        cols += list(range(10 * (jid - 1), 10 * jid))
    rows = [iv for _k, _iq, iv, _nq in ref.slots]
    worst = 0.0
    for q, qd, qdd in _states(c.tree.nv, 5, 4):
        Yp = pin.computeJointTorqueRegressor(ref.model, ref.data, *ref.state(q, qd, qdd))
        worst = max(worst, max_error(c.mod.regressor(q, qd, qdd), Yp[np.ix_(rows, cols)]))
    assert worst <= TOL, worst
    # and Pinocchio's own parameter vector is ours
    pp = np.concatenate([ref.model.inertias[ref.model.getJointId(j.name)].toDynamicParameters() for j in c.tree.joints])
    assert np.max(np.abs(pp - c.pi)) <= 1e-12 * max(1.0, np.max(np.abs(pp)))


def test_parameter_order_and_names(cases):
    c = cases("2r")
    assert PARAM_NAMES == ("m", "mcx", "mcy", "mcz", "Ixx", "Ixy", "Iyy", "Ixz", "Iyz", "Izz")
    assert c.Y.col_names[:3] == ["m_link1", "mcx_link1", "mcy_link1"] and c.Y.col_names[19] == "Izz_link2"
    # link2 (Canovas, §4.1): m 5, COM (1, 0, 0), Izz 10 about the COM -> 10 + 5 * 1^2 about the link origin
    assert c.pi[10:20].tolist() == [5.0, 5.0, 0.0, 0.0, 2.0, 0.0, 15.0, 0.0, 0.0, 15.0]


@pytest.mark.parametrize(
    "gravity, rank",
    [
        # planar 2R, gravity in the plane: ZZ1R = ZZ1 + l1^2 m2, MX1R = MX1 + l1 m2, MY1, ZZ2, MX2, MY2
        ((0.0, -9.81, 0.0), 6),
        # gravity along the joint axes (no gravity torque): MX1R and MY1 are no longer excited
        ((0.0, 0.0, -9.81), 4),
    ],
)
def test_2r_base_parameter_count_is_the_textbook_one(gravity, rank):
    """Khalil & Dombre, Modeling, Identification and Control of Robots, base parameters of a planar
    2R arm: 6 with gravity in the plane of motion, 4 without (independent of this code)."""
    tree = dynmodel.parse_urdf(DATA / "robot_2R.urdf")
    f, base = base_regressor(tree, gravity)
    assert base.rank == rank and f.shape == (2, rank)
    # the textbook grouping (l1 = 2 m): ZZ1R = ZZ1 + l1^2 m2 and, with gravity, MX1R = MX1 + l1 m2
    grouped = ["Izz_link1 + 4*m_link2", "mcx_link2", "mcy_link2", "Izz_link2"]
    assert f.col_names == (["mcx_link1 + 2*m_link2", "mcy_link1"] if rank == 6 else []) + grouped


@pytest.mark.parametrize("name", ["tree", "bip"])
def test_base_regressor_has_full_column_rank_and_reproduces_tau(cases, name):
    c = cases(name)
    base = base_parameters(c.mod.regressor, c.tree.nv, c.Y.col_names, seed=1)
    beta = base.beta(c.pi)
    W = []
    worst = 0.0
    for q, qd, qdd in _states(c.tree.nv, max(12, 3 * base.rank // c.tree.nv), 9):  # fresh states (seed 9)
        Yb = c.mod.regressor(q, qd, qdd)[:, base.columns]
        W.append(Yb)
        worst = max(worst, max_error(Yb @ beta, c.ref.rnea(q, qd, qdd)))
    s = np.linalg.svd(np.vstack(W), compute_uv=False)
    assert s[-1] / s[0] > 1e-8, s[-1] / s[0]  # full column rank, well away from round-off (~1e-16)
    assert worst <= TOL, worst
    # the dependent columns are combinations of the base ones: K maps pi to beta for any pi
    rng = np.random.default_rng(2)
    pi = rng.normal(size=len(c.pi))
    q, qd, qdd = _states(c.tree.nv, 1, 10)[0]
    Y = c.mod.regressor(q, qd, qdd)
    assert max_error(Y[:, base.columns] @ base.beta(pi), Y @ pi) <= TOL


def test_friction_and_armature_columns(tmp_path):
    text = (
        (DATA / "robot_2R.urdf")
        .read_text()
        .replace(
            '<joint name="joint1" type="continuous">',
            '<joint name="joint1" type="continuous"><dynamics damping="0.2" friction="0.7"/>',
        )
    )
    urdf = tmp_path / "r.urdf"
    urdf.write_text(text)
    (tmp_path / "r.yaml").write_text("armature:\n  joint2: 0.05\n")
    tree = dynmodel.parse_urdf(urdf)
    terms = joint_terms(tree, urdf, friction=True, armature=True)
    f = regressor(tree, G, terms)
    assert (
        f.col_names[20:]
        == parameter_names(tree, terms)[20:]
        == ["fv_joint1", "fc_joint1", "Ia_joint1", "fv_joint2", "fc_joint2", "Ia_joint2"]
    )
    Y = dynmodel.load_python(function_to_python(f)).regressor
    idm = dynmodel.load_python(dynmodel.generate(tree, "python", G, terms=terms))
    pi = parameters(tree, terms)
    assert pi[20:].tolist() == [0.2, 0.7, 0.0, 0.0, 0.0, 0.05]
    for q, qd, qdd in _states(2, 5, 12):
        assert max_error(Y(q, qd, qdd) @ pi, idm.inverse_dynamics(q, qd, qdd)) <= TOL
