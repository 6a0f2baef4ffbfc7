"""Dynamic-model generator on full robots: HRP-2, BIP, the 36-DoF human body (3P33R) and random
branching trees, against ``pinocchio.rnea`` (same URDF, armature 0), with the acceptance measure
max|tau - tau_ref| <= 1e-9 max(1, max|tau_ref|) (chosen); the generated C compiled with the system
compiler. The human body is the report's "3P33R" (Canovas, §4.2), whose forces the report's own
tool gets wrong at the branching nodes.
"""

import ctypes
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from humanoid_model import dynmodel
from humanoid_model.dynmodel.check import PinocchioReference, max_error, random_tree_urdf
from humanoid_model.paths import urdf_dir

DATA = Path(dynmodel.__file__).resolve().parent / "data"
HUMAN = DATA / "human36.urdf"
TOL = 1e-9
G_Z = (0.0, 0.0, -9.81)


def _shipped(name):
    p = urdf_dir() / f"{name}.urdf"
    if not p.is_file():
        pytest.fail(f"{p} is missing (HRP-2 and BIP URDFs are part of the project)")
    return p


class Generated:
    """A robot's generated Python module, its Program and its Pinocchio reference."""

    def __init__(self, urdf, floating_base=False, gravity=G_Z):
        self.urdf = urdf
        self.tree = dynmodel.parse_urdf(urdf, floating_base=floating_base)
        self.program = dynmodel.build_program(self.tree, gravity)
        self.mod = dynmodel.load_python(dynmodel.to_python(self.program), self.tree.name)
        self.ref = PinocchioReference(urdf, gravity, floating_base, tree=self.tree)
        self.floating = floating_base


@pytest.fixture(scope="session")
def robots():
    """Generated once per session: the expensive part (SymPy program building) is shared."""
    cache = {}

    def get(name, floating_base=False):
        key = (name, floating_base)
        if key not in cache:
            urdf = HUMAN if name == "human36" else _shipped(name)
            cache[key] = Generated(urdf, floating_base)
        return cache[key]

    return get


def _random_states(nv, n, seed, floating=False, fext=True):
    rng = np.random.default_rng(seed)
    for _ in range(n):
        q, qd, qdd = rng.uniform(-1.2, 1.2, (3, nv))
        fe = rng.normal(scale=20.0, size=(nv, 6)) if fext else None
        if fe is not None and floating:
            fe[:5] = 0.0  # the 3P+3R block's massless intermediate bodies (see check.py)
        yield q, qd, qdd, fe


@pytest.mark.parametrize(
    "name, floating", [("hrp2", False), ("hrp2", True), ("bip", False), ("bip", True), ("human36", False)]
)
def test_generated_python_equals_pinocchio_rnea(robots, name, floating):
    g = robots(name, floating)
    worst = 0.0
    for q, qd, qdd, fe in _random_states(g.tree.nv, 20, 1, floating):
        worst = max(worst, max_error(g.mod.inverse_dynamics(q, qd, qdd), g.ref.rnea(q, qd, qdd)))
        worst = max(worst, max_error(g.mod.inverse_dynamics(q, qd, qdd, fe), g.ref.rnea(q, qd, qdd, fe)))
    assert worst <= TOL


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("floating", [False, True])
def test_random_trees_equal_pinocchio(seed, floating):
    """Random branching trees: revolute, continuous, prismatic and fixed joints, random origins,
    axes, COM frames and full inertia tensors, external wrenches."""
    urdf = random_tree_urdf(9, seed)
    g = Generated(urdf, floating, gravity=(0.4, -1.3, -9.81))
    for q, qd, qdd, fe in _random_states(g.tree.nv, 10, seed, floating):
        assert max_error(g.mod.inverse_dynamics(q, qd, qdd, fe), g.ref.rnea(q, qd, qdd, fe)) <= TOL


@pytest.mark.spec("004", "T17")
def test_human36_has_36_dofs(robots):
    """The report's body (Canovas, §4.2): nv = 36 = 3 prismatic + 33 revolute; Pinocchio
    nq = 3 + 33 * 2 = 69 since the URDF's revolute joints are `continuous`."""
    g = robots("human36")
    kinds = [j.kind for j in g.tree.joints]
    assert g.tree.nv == 36 and kinds.count("prismatic") == 3 and kinds.count("revolute") == 33
    assert kinds[:3] == ["prismatic"] * 3
    assert g.ref.model.nq == 69 and g.ref.model.nv == 36
    # the report's joint groups (Canovas, §4.2)
    groups = {}
    for n in g.tree.joint_names:
        groups[n.rsplit("_", 1)[0]] = groups.get(n.rsplit("_", 1)[0], 0) + 1
    assert groups == {
        "WJ": 3,
        "WJ_r": 3,
        "LLJ": 2,
        "ULJ": 3,
        "LNJ": 3,
        "SJ_R": 3,
        "SJ_L": 3,
        "EJ_R": 1,
        "EJ_L": 1,
        "HJ_R": 3,
        "HJ_L": 3,
        "KJ_R": 1,
        "KJ_L": 1,
        "AJ_R": 3,
        "AJ_L": 3,
    }


@pytest.mark.spec("004", "T18")
def test_human36_at_rest_carries_its_weight(robots):
    """At rest the vertical WJ force is sum(m) g = 57.3 * 9.81 = 562.113 N (the mass of the HuMoD
    female subject the report uses, Canovas, Chapter 1); horizontal forces 0, for any q."""
    g = robots("human36")
    assert g.tree.total_mass == pytest.approx(57.3, abs=1e-9)
    rng = np.random.default_rng(18)
    z = np.zeros(36)
    for _ in range(10):
        tau = g.mod.inverse_dynamics(rng.uniform(-1.5, 1.5, 36), z, z)
        assert tau[2] == pytest.approx(562.113, abs=1e-6)
        assert abs(tau[0]) <= 1e-9 and abs(tau[1]) <= 1e-9


@pytest.mark.spec("004", "T19")
def test_human36_branching_forces_equal_pinocchio(robots):
    """Per-joint forces and moments equal Pinocchio's data.f (rotated to world axes)
    for all joints, including the thorax branching (LNJ, SJ_*) and the pelvis one (HJ_*)."""
    import pinocchio as pin

    g = robots("human36")
    m, d = g.ref.model, g.ref.data
    for q, qd, qdd, fe in _random_states(36, 5, 19, fext=True):
        v = g.mod.quantities(q, qd, qdd, fe)
        qp, vp, ap = g.ref.state(q, qd, qdd)
        pin.rnea(m, d, qp, vp, ap, g.ref.fext(q, fe))
        for name in g.tree.joint_names:
            jid = m.getJointId(name)
            R = d.oMi[jid].rotation
            f_world, n_world = R @ d.f[jid].linear, R @ d.f[jid].angular
            scale = max(1.0, np.abs(f_world).max(), np.abs(n_world).max())
            assert np.abs(v[f"force_{name}"] - f_world).max() <= 1e-8 * scale, name
            assert np.abs(v[f"moment_{name}"] - n_world).max() <= 1e-8 * scale, name
            assert np.allclose(v[f"position_{name}"], d.oMi[jid].translation, rtol=0, atol=1e-12)


# ------------------------------------------------------------------ generated C
def _compile(tmp, programs):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no system C compiler (cc/gcc) on PATH")
    sources = []
    for P in programs:
        pre = dynmodel.c_prefix(P)
        h, c = dynmodel.to_c(P)
        (tmp / f"{pre}_dynmodel.h").write_text(h)
        (tmp / f"{pre}_dynmodel.c").write_text(c)
        sources.append(str(tmp / f"{pre}_dynmodel.c"))
    lib = tmp / "libdynmodel.so"
    r = subprocess.run(
        [cc, "-std=c99", "-O0", "-Wall", "-Werror", "-pedantic", "-shared", "-fPIC", "-o", str(lib), *sources, "-lm"],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    return ctypes.CDLL(str(lib))


def _c_call(fn, q, qd, qdd, fe):
    dp = ctypes.POINTER(ctypes.c_double)
    arrs = [np.ascontiguousarray(x, dtype=float) for x in (q, qd, qdd)]
    fe_arr = None if fe is None else np.ascontiguousarray(fe, dtype=float)
    out = np.zeros(len(q))
    fn(
        *[a.ctypes.data_as(dp) for a in arrs],
        None if fe_arr is None else fe_arr.ctypes.data_as(dp),
        out.ctypes.data_as(dp),
    )
    return out


def test_generated_c_matches_python_and_pinocchio(robots, tmp_path):
    """The C of the 2R robot (report's numbers), HRP-2 (free-floating) and the human body, compiled
    with the system `cc` (-lm only, -Wall -Werror -pedantic), called through ctypes."""
    r2 = Generated(DATA / "robot_2R.urdf", gravity=(0.0, -9.81, 0.0))
    gens = [r2, robots("hrp2", True), robots("human36")]
    lib = _compile(tmp_path, [g.program for g in gens])
    fn = lib.robot_2r_inverse_dynamics
    z = np.zeros(2)
    assert np.allclose(_c_call(fn, z, z, z, None), (176.58, 49.05), rtol=0, atol=1e-9)
    assert np.allclose(
        _c_call(fn, [0.3, -0.7], [1.2, -0.5], [0.4, 2.0], None), (233.747617, 74.960676), rtol=0, atol=1e-5
    )  # the general 2R state of acceptance test 004 T6
    for g in gens:
        fn = getattr(lib, f"{dynmodel.c_prefix(g.program)}_inverse_dynamics")
        for q, qd, qdd, fe in _random_states(g.tree.nv, 5, 7, g.floating):
            for f in (None, fe):
                tau_c = _c_call(fn, q, qd, qdd, f)
                assert max_error(tau_c, g.mod.inverse_dynamics(q, qd, qdd, f)) <= 1e-12
                assert max_error(tau_c, g.ref.rnea(q, qd, qdd, f)) <= TOL


def test_generated_code_is_readable_blocks(robots):
    """One block per joint and link named after the URDF, in both languages."""
    g = robots("bip")
    src = dynmodel.to_python(g.program)
    h, c = dynmodel.to_c(g.program)
    for j in g.tree.joints:
        assert f"# --- joint '{j.name}'" in src and f"/* --- joint '{j.name}'" in c
        assert f"# --- backward: joint '{j.name}'" in src
    assert "#include <math.h>" in c and "pinocchio" not in c + src


def test_human36_urdf_is_reproducible():
    """The committed human36.urdf is what make_human36.py writes (sources documented there)."""
    from humanoid_model.dynmodel.data import make_human36

    assert HUMAN.read_text() == make_human36.build()
