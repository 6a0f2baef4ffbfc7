"""Acceptance audit of issue 3: bad simulator-node parameters that test_sim_node does not cover
(unknown solver, unknown scene and robot, a step above the CLI's limit, an empty solver name)
raise a HumanoidStackError naming the parameter and the value, before any simulation starts."""
import pytest

pytestmark = pytest.mark.ros

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402

from humanoid_model.exceptions import HumanoidStackError  # noqa: E402


@pytest.mark.parametrize("name, value, words", [
    ("solver", "magic", ["solver", "magic"]),
    ("solver", "", ["solver", "''"]),
    ("scene", "no_such_scene", ["no_such_scene"]),
    ("robot", "no_such_robot", ["no_such_robot"]),
    ("dt", 0.5, ["dt", "0.5"]),
    ("dt", float("nan"), ["dt", "nan"]),
    ("solver_tolerance", -1.0, ["solver_tolerance", "-1.0"]),
])
def test_bad_parameter_is_a_clear_error(ros_harness, name, value, words):
    from humanoid_sim.node import SimulatorNode

    h = ros_harness()
    with pytest.raises(HumanoidStackError) as err:
        node = SimulatorNode(context=h.context, parameter_overrides=[
            Parameter("real_time_factor", value=0.0), Parameter(name, value=value)])
        node.destroy_node()
    for w in words:
        assert w in str(err.value)
