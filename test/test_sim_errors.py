"""Bad input to the simulator's Python API raises HumanoidStackError subclasses whose message
names the field and the value (never a deep NumPy traceback)."""
import numpy as np
import pytest

from humanoid_model.exceptions import HumanoidStackError
from humanoid_sim.actuators import JointTrajectory
from humanoid_sim.world import World


@pytest.fixture(scope="module")
def world():
    return World.from_scene("flat")


def test_bad_dt():
    with pytest.raises(HumanoidStackError, match="dt"):
        World.from_scene("sphere_drop", dt=0.0)


def test_unknown_solver():
    with pytest.raises(HumanoidStackError, match="magic"):
        World.from_scene("sphere_drop", solver="magic")


def test_unknown_robot():
    with pytest.raises(HumanoidStackError, match="no_such_robot"):
        World.from_scene("sphere_drop", robot="no_such_robot")


def test_wrench_on_unknown_body(world):
    with pytest.raises(HumanoidStackError, match="NOT_A_LINK"):
        world.apply_wrench("NOT_A_LINK", force=(1, 0, 0))


def test_nan_wrench(world):
    with pytest.raises(HumanoidStackError, match="NaN"):
        world.apply_wrench("RARM_LINK5", force=(np.nan, 0, 0))


def test_bad_commands(world):
    n = world.n_act
    with pytest.raises(HumanoidStackError, match="positions"):
        world.actuator.set_position(np.full(n, np.nan))
    with pytest.raises(HumanoidStackError, match="efforts"):
        world.actuator.set_torque(np.zeros(n + 1))
    with pytest.raises(HumanoidStackError, match="time_from_start"):
        JointTrajectory([0.0, 1.0, 0.5], np.zeros((3, n)))


def test_unknown_body_state(world):
    with pytest.raises(HumanoidStackError, match="nobody"):
        world.body_state("nobody")
