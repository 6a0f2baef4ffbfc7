"""Any URDF simulates (docs/robots.md, "Any URDF"): a robot that is not a biped, a fixed-base arm or a
chain without feet, gets default PD gains from its own structure (`humanoid_sim.stages.actuators.
standing_gains`, rule in docs/simulator.md "Default PD gains") and runs 1 s through `World` and
through `humanoid-stack simulate` with finite state. The cases: an arm, whose two derived "feet"
lie on one chain (a two-feet rule would meet a singular matrix), and a chain with no left and
right foot at all."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_sim.stages.actuators import INERTIA_FLOOR, WN_DEFAULT, standing_gains
from humanoid_sim.world import World
from humanoid_stack.cli import main
from humanoid_viewer.replay import read_recording_document

INERTIA = '<inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/>'


def _link(name, mass=1.0, length=0.25):
    return (
        f'<link name="{name}"><inertial><origin xyz="0 0 {length / 2}"/><mass value="{mass}"/>{INERTIA}</inertial>'
        f'<collision><origin xyz="0 0 {length / 2}"/><geometry><box size="0.05 0.05 {length}"/></geometry>'
        "</collision></link>"
    )


def _joint(name, parent, child, xyz):
    return (
        f'<joint name="{name}" type="revolute"><parent link="{parent}"/><child link="{child}"/>'
        f'<origin xyz="{xyz}"/><axis xyz="0 1 0"/><limit lower="-3" upper="3" effort="100" velocity="10"/></joint>'
    )


def _arm_urdf():
    """A fixed-base 3-link arm (root link ``world``, base welded to it), links offset sideways:
    the loader derives a "foot" on each side, both on the arm."""
    s = '<robot name="arm"><link name="world"/><joint name="fix" type="fixed">'
    s += '<parent link="world"/><child link="base"/></joint>' + _link("base")
    for i in range(3):
        s += _link(f"l{i}") + _joint(f"j{i}", "base" if i == 0 else f"l{i - 1}", f"l{i}", "0 0.1 0.25")
    return s + "</robot>"


def _chain_urdf():
    """A floating 5-link chain, every link on the sagittal plane: no feet."""
    s = '<robot name="chain">' + _link("b0")
    for i in range(1, 5):
        s += _link(f"b{i}") + _joint(f"j{i}", f"b{i - 1}", f"b{i}", "0 0 0.25")
    return s + "</robot>"


@pytest.fixture(scope="module")
def urdfs(tmp_path_factory):
    d = tmp_path_factory.mktemp("any_urdf")
    paths = {"arm": d / "arm.urdf", "chain": d / "chain.urdf"}
    paths["arm"].write_text(_arm_urdf())
    paths["chain"].write_text(_chain_urdf())
    return paths


@pytest.mark.parametrize("name", ["arm", "chain"])
def test_world_simulates_a_robot_that_is_not_a_biped(urdfs, name):
    world = World.from_scene("flat", robot=str(urdfs[name]))
    assert world.n_act == (3 if name == "arm" else 4)
    assert np.all(world.actuator.kp > 0) and np.all(np.isfinite(world.actuator.kp))
    world.step(1000)
    assert world.t == pytest.approx(1.0)
    assert np.all(np.isfinite(world.q)) and np.all(np.isfinite(world.v))
    # it rests on the ground: nothing below it by more than the contact margin, nothing flying off
    assert abs(world.q[2]) < 2.0 and np.abs(world.v).max() < 50.0


@pytest.mark.parametrize("name", ["arm", "chain"])
def test_simulate_cli_runs_a_robot_that_is_not_a_biped(urdfs, name, tmp_path, capsys):
    out = tmp_path / f"{name}.json"
    argv = ["simulate", "flat", "--robot", str(urdfs[name]), "--duration", "1", "--record-every", "100"]
    assert main([*argv, "--quiet", "--output", str(out)]) == 0
    assert "Traceback" not in capsys.readouterr().err
    d = read_recording_document(out)
    assert d["t"][-1] == pytest.approx(1.0) and d["robot"] == name
    for k in ("positions", "velocities", "torques"):
        assert np.all(np.isfinite(np.array(d["joints"][k], float)))
    assert np.all(np.isfinite(np.array(d["bodies"][name]["position"], float)))


def _pendulum(tmp_path, mass, d, iyy, tool=False):
    """One link of ``mass`` [kg], COM at ``d`` [m] from its y-axis joint, inertia iyy about the
    COM; ``tool``: a massless link on a second joint at its end."""
    s = (
        '<robot name="p"><link name="base"><inertial><mass value="1"/>' + INERTIA + "</inertial></link>"
        '<link name="arm"><inertial><origin xyz="0 0 ' + str(d) + '"/><mass value="' + str(mass) + '"/>'
        f'<inertia ixx="0.1" iyy="{iyy}" izz="0.1" ixy="0" ixz="0" iyz="0"/></inertial></link>'
        + _joint("j", "base", "arm", "0 0 0")
    )
    if tool:
        s += '<link name="tool"/>' + _joint("jt", "arm", "tool", "0 0 0.5")
    path = tmp_path / "p.urdf"
    path.write_text(s + "</robot>")
    from humanoid_model.robot import load_robot

    return load_robot(path)


def test_gains_without_feet_use_the_inertia_with_the_root_welded(tmp_path):
    """Rule 2: with the root welded, a pendulum joint sees iyy + m d² (parallel axis); a joint
    that moves no mass gets INERTIA_FLOOR (rule 3), so the model stays invertible."""
    m, d, iyy = 2.0, 0.3, 0.05
    robot = _pendulum(tmp_path, m, d, iyy, tool=True)
    kp, kv = standing_gains(robot.model, pin.neutral(robot.model), [])
    inertia = np.array([iyy + m * d * d, INERTIA_FLOOR])
    np.testing.assert_allclose(kp, WN_DEFAULT**2 * inertia, rtol=1e-12)
    np.testing.assert_allclose(kv, 2 * WN_DEFAULT * inertia, rtol=1e-12)


def test_redundant_foot_welds_fall_back_to_the_root_welded_rule(tmp_path):
    """Welds that over-constrain the robot (root and arm both welded: 12 constraints on 7 DOFs)
    give the gains of rule 2, not a singular solve."""
    robot = _pendulum(tmp_path, 2.0, 0.3, 0.05)
    q = pin.neutral(robot.model)
    arm = robot.model.getJointId("j")
    np.testing.assert_array_equal(standing_gains(robot.model, q, [1, arm]), standing_gains(robot.model, q, []))


def test_a_robot_without_mass_is_refused_when_the_world_is_built(tmp_path, capsys):
    """A URDF without inertia (every link massless) has no defined base acceleration: a World built
    on it would stop at step 0 with a non-finite state from stage 'free'. The World refuses it,
    naming the robot and the fix, and `simulate` exits 2 with that one line."""
    from humanoid_model.exceptions import ModelError

    path = tmp_path / "massless.urdf"
    text = _chain_urdf().replace('mass value="1.0"', 'mass value="0"')
    path.write_text(text.replace('ixx="0.01" iyy="0.01" izz="0.01"', 'ixx="0" iyy="0" izz="0"'))
    with pytest.raises(ModelError, match=r"massless\.urdf.*no usable inertia.*total mass 0 kg"):
        World.from_scene("flat", robot=str(path))
    argv = ["simulate", "flat", "--robot", str(path), "--duration", "0.1", "--quiet", "--output", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1 and "<inertial>" in err, err
