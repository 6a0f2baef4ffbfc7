"""Planar gait models from the URDF through the generated CasADi dynamics: the gait generator builds
its planar model from any biped URDF through the dynamic-model generator, with the contact points
from the robot YAML; the hand-written BIP model is the check (both agree to 1e-9 on random states).

The check is the hand-written model (model.py) with the HuMAnS parameters (``urdf_params``, the
data the BIP URDF is written from, [BIP-H]) made to describe exactly the URDF:

* armature: the robot YAML's values (hip pitch 0.65, knee 0.24, ankle pitch 0.60 kg m^2,
  urdf/bip.yaml) instead of the walking-posture ones of ``urdf_params``;
* the 0.18 kg ankle cardan: in the URDF it is the child of the ankle pitch joint (it turns with
  the foot once the ankle roll is locked) with iyy = 1e-4 kg m^2 (urdf/bip.urdf), while
  ``urdf_params`` puts it on the shank with no inertia. Its COM is on the ankle axis, so only its
  1e-4 kg m^2 moves: added to both feet here.

Tolerance 1e-9 relative to max(1, |reference|) (chosen: far above rounding, far below any modelling
error).
"""

import numpy as np
import pytest

from humanoid_model.dynmodel import __file__ as dynmodel_file
from humanoid_model.exceptions import ModelError
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.gait.direct import contact_forces_function
from humanoid_planner.gait.generated_model import GeneratedPlanarTree, generated_tree, sagittal_roles
from humanoid_planner.gait.model import PlanarTree, ds_model, ss_model
from humanoid_planner.gait.params import urdf_exact_params
from humanoid_planner.gait.phase_sequence import GaitProblem

TOL = 1e-9  # chosen (module docstring)


@pytest.fixture(scope="module")
def pairs():
    p = urdf_exact_params()
    return p, {"ds": (generated_tree("bip", "ds"), ds_model(p)), "ss": (generated_tree("bip", "ss"), ss_model(p))}


def err(a, b):
    a, b = np.asarray(a, float), np.asarray(b, float)
    return float(np.max(np.abs(a - b)) / max(1.0, float(np.max(np.abs(b)))))


def states(n, m, count, seed):
    rng = np.random.default_rng(seed)
    for _ in range(count):
        yield (
            rng.uniform(-np.pi, np.pi, n),
            rng.normal(0.0, 3.0, n),
            rng.normal(0.0, 10.0, n),
            rng.normal(0.0, 80.0, m),
        )


@pytest.mark.parametrize("root_leg", ["l", "r"])
@pytest.mark.parametrize("kind", ["ds", "ss"])
def test_generated_model_equals_the_hand_written_bip_model(pairs, kind, root_leg):
    """M, c (= Mdot v - dT/dq + dV/dq), dV/dq, B, the direct method's inverse-dynamics residual,
    1/2 v dM/dq v (PMP), the named points and their velocities, and the contact forces; with
    either leg as the rear (DS) / stance (SS) leg (BIP's legs are mirror images)."""
    p, trees = pairs
    gen, hand = trees[kind]
    if root_leg == "r":
        gen = generated_tree("bip", kind, root_leg="r")
    assert isinstance(gen, GeneratedPlanarTree)
    assert (gen.n, gen.m, gen.n_tau) == (hand.n, hand.m, hand.n_tau)
    assert gen.control_names == hand.control_names and set(gen.points) == set(hand.points)
    assert np.array_equal(gen.S_act, hand.S_act)
    cf_gen, cf_hand = contact_forces_function(gen, p, kind), contact_forces_function(hand, p, kind)
    worst = {}

    def rec(key, a, b):
        worst[key] = max(worst.get(key, 0.0), err(a, b))

    for q, v, a, u in states(hand.n, hand.m, 10, {"ds": 31, "ss": 32}[kind]):
        rec("M", gen.M(q), hand.M(q))
        rec("bias", gen.f_bias(q, v), hand.f_bias(q, v))
        rec("dVdq", gen.dVdq(q), hand.dVdq(q))
        rec("B", gen.B(q), hand.B(q))
        rec("f_id", gen.f_id(q, v, a, u), hand.f_id(q, v, a, u))
        rec("half_vdMv", gen.f_half_vdMv(q, v), hand.f_half_vdMv(q, v))
        rec("forward", gen.forward_dynamics(q, v, u), hand.forward_dynamics(q, v, u))
        rec("contact", cf_gen(q, v, a, u), cf_hand(q, v, a, u))
        for name in hand.points:
            rec("points", gen.point(name, q), hand.point(name, q))
            rec("point_velocities", gen.point_velocity(name, q, v), hand.point_velocity(name, q, v))
    assert all(e <= TOL for e in worst.values()), worst


@pytest.mark.parametrize("kind", ["ds", "ss"])
def test_generated_segment_description_rebuilds_the_same_dynamics(pairs, kind):
    """The segments, joints and points the generated tree reports (from the URDF) give, through the
    hand-written formulas, the generated dynamics: the description matches the dynamics."""
    gen, _ = pairs[1][kind]
    twin = PlanarTree("twin", gen.bodies, gen.joints, gen.points, gen.force_points, g=gen.g)
    for q, v, a, u in states(gen.n, gen.m, 5, 33):
        assert err(twin.f_id(q, v, a, u), gen.f_id(q, v, a, u)) <= TOL
        for name in gen.points:
            assert err(twin.point(name, q), gen.point(name, q)) <= TOL


def test_contact_points_come_from_the_robot_yaml(pairs):
    """DS: the rear toe is the pivot at the origin; the front heel-toe distance is the YAML's
    0.290 m (heel x -0.120, toe x 0.170, urdf/bip.yaml contacts)."""
    gen, _ = pairs[1]["ds"]
    rng = np.random.default_rng(34)
    for _ in range(5):
        q = rng.uniform(-np.pi, np.pi, gen.n)
        assert np.max(np.abs(gen.point("rear_toe", q))) < 1e-15
        assert np.linalg.norm(gen.point("toe", q) - gen.point("heel", q)) == pytest.approx(0.290, abs=1e-12)
    assert sagittal_roles("bip") == {
        "r_hip_pitch": "hip",
        "r_knee": "knee",
        "r_ankle_pitch": "ankle",
        "l_hip_pitch": "hip",
        "l_knee": "knee",
        "l_ankle_pitch": "ankle",
    }


def test_gait_problem_takes_the_generated_model_as_an_option():
    p = urdf_exact_params()
    pb = GaitProblem(p, model="generated")
    assert isinstance(pb.ds, GeneratedPlanarTree) and isinstance(pb.ss, GeneratedPlanarTree)
    assert not isinstance(GaitProblem(p).ds, GeneratedPlanarTree)  # default unchanged: hand-written
    with pytest.raises(PlanningError, match="model"):
        GaitProblem(p, model="nope")


def test_a_urdf_without_a_planar_yaml_is_a_model_error():
    from pathlib import Path

    urdf = Path(dynmodel_file).resolve().parent / "data" / "robot_2R.urdf"
    with pytest.raises(ModelError, match="planar"):
        generated_tree(urdf)


def test_a_locked_joint_angle_is_folded_into_its_origin(tmp_path):
    """The sagittal reduction locks a joint at the default posture's angle: BIP with trunk_pitch
    locked at 0.2 rad has the same merged trunk (mass, COM, inertia) as a BIP whose trunk_pitch
    origin is rotated by rpy (0, -0.2, 0) and locked at 0 (its axis is -y, urdf/bip.urdf)."""
    import yaml

    from humanoid_model import dynmodel
    from humanoid_model.paths import urdf_dir
    from humanoid_planner.gait.generated_model import planar_urdf

    src_urdf, src_yaml = urdf_dir() / "bip.urdf", urdf_dir() / "bip.yaml"
    doc = yaml.safe_load(src_yaml.read_text())
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    locked = dict(doc)
    locked["postures"] = {k: dict(v) for k, v in doc["postures"].items()}
    standing = locked["postures"][doc["default_posture"]]
    standing["joints"] = {**standing["joints"], "trunk_pitch": 0.2}
    (a / "bip.urdf").write_text(src_urdf.read_text())
    (a / "bip.yaml").write_text(yaml.safe_dump(locked))
    text = src_urdf.read_text()
    i = text.index('<joint name="trunk_pitch"')
    j = text.index("<origin", i)
    k = text.index("/>", j)
    assert 'rpy="0 0 0"' in text[j:k]
    (b / "bip.urdf").write_text(text[:j] + text[j:k].replace('rpy="0 0 0"', 'rpy="0 -0.2 0"') + text[k:])
    (b / "bip.yaml").write_text(src_yaml.read_text())
    ta = dynmodel.parse_urdf(planar_urdf(a / "bip.urdf")[0])
    tb = dynmodel.parse_urdf(planar_urdf(b / "bip.urdf")[0])
    pa, pb = ta.bodies["pelvis"], tb.bodies["pelvis"]
    assert pa.mass == pytest.approx(pb.mass, abs=1e-12)
    assert np.max(np.abs(pa.com - pb.com)) < 1e-12 and np.max(np.abs(pa.inertia - pb.inertia)) < 1e-12
    # and the lock moved the trunk: 48 kg at 0.405 m above the lumbar joint, tilted 0.2 rad
    base = dynmodel.parse_urdf(planar_urdf(src_urdf)[0]).bodies["pelvis"]
    assert abs(pa.com[0] - base.com[0]) > 0.05
