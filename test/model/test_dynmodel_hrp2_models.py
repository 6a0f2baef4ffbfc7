"""HRP-2 (30 DoF, fixed base): generated mass matrix and nonlinear effects against Pinocchio
(1e-12), and the readability of the generated code: no line over 120 characters in Python, C and
LaTeX, and every joint axis named after its joint (not after a rotation entry of another link that
equals it after constant folding, such as R_RLEG_LINK1_01 for the axis of RLEG_JOINT3).

The symbolic builds are the slow part (~2-5 s each on the shared machine): one per module.
"""

import re

import numpy as np
import pytest

from humanoid_model import dynmodel
from humanoid_model.dynmodel.check import PinocchioReference, max_error
from humanoid_model.dynmodel.function_printers import function_to_c, function_to_latex, function_to_python
from humanoid_model.dynmodel.models import mass_matrix, nonlinear_effects
from humanoid_model.paths import urdf_dir

HRP2 = urdf_dir() / "hrp2.urdf"
G = (0.0, 0.0, -9.81)
TOL = 1e-12


@pytest.fixture(scope="module")
def tree():
    return dynmodel.parse_urdf(HRP2)


@pytest.fixture(scope="module")
def program(tree):
    return dynmodel.build_program(tree, G)


@pytest.fixture(scope="module")
def id_python(program):
    return dynmodel.to_python(program)


@pytest.fixture(scope="module")
def M(tree):
    return mass_matrix(tree)


def test_hrp2_mass_matrix_and_nle_equal_pinocchio(tree, M):
    Mmod = dynmodel.load_python(function_to_python(M))
    hmod = dynmodel.load_python(function_to_python(nonlinear_effects(tree, G)))
    ref = PinocchioReference(HRP2, G, tree=tree)
    rng = np.random.default_rng(21)
    worst = 0.0
    for _ in range(5):
        q, qd = rng.uniform(-np.pi, np.pi, (2, tree.nv))
        worst = max(worst, max_error(Mmod.mass_matrix(q), ref.crba(q)))
        worst = max(worst, max_error(hmod.nonlinear_effects(q, qd)[:, 0], ref.nle(q, qd)))
    assert worst <= TOL, worst


def test_no_generated_line_is_over_120_characters(program, id_python, M):
    texts = {
        "python": id_python,
        "c": "\n".join(dynmodel.to_c(program)),
        "latex": dynmodel.to_latex(program),
        "M python": function_to_python(M),
        "M c": "\n".join(function_to_c(M)),
        "M latex": function_to_latex(M),
    }
    for lang, text in texts.items():
        longest = max(text.splitlines(), key=len)
        assert len(longest) <= 120, (lang, len(longest), longest[:80])
    compile(texts["python"], "hrp2", "exec")  # wrapping kept it valid Python
    compile(texts["M python"], "hrp2_M", "exec")


def test_each_joint_axis_is_named_after_its_joint(tree, id_python):
    """After constant folding, the angular velocity of RLEG_LINK3 must use u_RLEG_JOINT3 (its own
    joint's axis), not a rotation entry of RLEG_LINK1 that happens to equal it."""
    src = id_python
    assert re.search(r"^    u_RLEG_JOINT3_x = R_RLEG_LINK1_01$", src, re.M)
    for j in tree.joints:
        for line in re.findall(rf"^    omega_{j.child}_[xyz] = (.*)$", src, re.M):
            foreign = re.findall(r"\bR_\w+", line)
            assert not foreign, (j.name, line)
    # the per-link quantities keep their meaning: axis_RLEG_JOINT3 is a unit vector
    mod = dynmodel.load_python(src)
    q = np.random.default_rng(1).uniform(-1, 1, tree.nv)
    v = mod.quantities(q, np.zeros(tree.nv), np.zeros(tree.nv))
    assert abs(np.linalg.norm(v["axis_RLEG_JOINT3"]) - 1.0) < 1e-12
