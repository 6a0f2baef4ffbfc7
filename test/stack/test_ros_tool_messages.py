"""`humanoid_stack.ros_tools.messages`: interface types by name, messages filled from YAML and
printed back, and the `humanoid-stack ros` commands' one-line errors for bad input (refused before
any DDS participant starts)."""

import math

import pytest
import yaml

pytest.importorskip("rclpy")
from geometry_msgs.msg import PoseStamped, Twist  # noqa: E402
from sensor_msgs.msg import Imu, JointState  # noqa: E402
from std_msgs.msg import Byte, Int8, String  # noqa: E402
from trajectory_msgs.msg import JointTrajectory  # noqa: E402

from humanoid_stack.cli import main  # noqa: E402
from humanoid_stack.exceptions import RosToolError  # noqa: E402
from humanoid_stack.ros_tools.messages import (  # noqa: E402
    interface_type,
    parse_values,
    set_fields,
    to_dict,
    to_yaml,
    type_name,
)


def test_type_names_resolve_to_their_classes():
    from std_srvs.srv import Trigger

    assert interface_type("geometry_msgs/msg/Twist", "msg") is Twist
    assert interface_type("geometry_msgs/PoseStamped", "msg") is PoseStamped  # pkg/Name, as ros2 accepts
    assert interface_type("std_srvs/srv/Trigger", "srv") is Trigger
    assert type_name(Twist) == "geometry_msgs/msg/Twist" and type_name(Trigger) == "std_srvs/srv/Trigger"
    assert type_name(String(data="x")) == "std_msgs/msg/String"  # an instance names its class


@pytest.mark.parametrize(
    "name, kind, words",
    [
        ("std_msgs/msg/Strin", "msg", "'std_msgs.msg' has no 'Strin'"),
        ("no_such_msgs/msg/X", "msg", "no Python package 'no_such_msgs.msg'"),
        ("String", "msg", "must be written pkg/msg/Name"),
        ("std_srvs/srv/Trigger", "msg", "is a service type, not a message type"),
        ("std_msgs/msg/String", "action", "is a message type, not an action type"),
        ("std_msgs/msg/__name__", "msg", "must be written pkg/msg/Name"),
    ],
)
def test_bad_type_names_are_refused(name, kind, words):
    with pytest.raises(RosToolError, match=words.replace("(", r"\(").replace(")", r"\)")):
        interface_type(name, kind)


def test_nested_fields_are_set_by_name_with_conversions():
    msg = set_fields(
        PoseStamped(),
        parse_values(
            "{header: {frame_id: odom, stamp: {sec: 3}}, pose: {position: {x: 1, z: 0.05}, orientation: {w: 1}}}"
        ),
    )
    assert msg.header.frame_id == "odom" and msg.header.stamp.sec == 3
    assert msg.pose.position.x == 1.0 and isinstance(msg.pose.position.x, float)  # an integer into a double
    assert (msg.pose.position.y, msg.pose.position.z, msg.pose.orientation.w) == (0.0, 0.05, 1.0)


def test_sequences_of_messages_and_fixed_arrays():
    msg = set_fields(
        JointTrajectory(),
        {"joint_names": ["a", "b"], "points": [{"positions": [1, 2.5], "time_from_start": {"sec": 2}}, {}]},
    )
    assert list(msg.joint_names) == ["a", "b"] and len(msg.points) == 2
    assert list(msg.points[0].positions) == [1.0, 2.5] and msg.points[0].time_from_start.sec == 2
    imu = set_fields(Imu(), {"orientation_covariance": list(range(9))})
    assert imu.orientation_covariance.tolist() == [float(i) for i in range(9)]


def test_to_dict_inverts_set_fields():
    values = {
        "header": {"stamp": {"sec": 7, "nanosec": 11}, "frame_id": "base"},
        "name": ["j1", "j2"],
        "position": [0.5, -1.25],
        "velocity": [],
        "effort": [3.0, 4.0],
    }
    msg = set_fields(JointState(), values)
    assert to_dict(msg) == values  # every field, in the message's order
    assert list(to_dict(msg)) == list(JointState.get_fields_and_field_types())
    assert yaml.safe_load(to_yaml(msg)) == values
    assert to_dict(set_fields(Byte(), {"data": 200})) == {"data": 200}  # an octet reads back as an integer


@pytest.mark.parametrize(
    "cls, values, words",
    [
        (Twist, {"linear": {"xx": 1}}, "unknown field 'linear.xx' of geometry_msgs/msg/Vector3 (did you mean 'x'?)"),
        (Twist, {"linear": {"x": "fast"}}, "field 'linear.x' must be a number (double); value 'fast'"),
        (Twist, {"linear": {"x": True}}, "field 'linear.x' must be a number (double); value True"),
        (Twist, {"linear": 3}, "field 'linear' must be a mapping of the fields of geometry_msgs/Vector3; value 3"),
        (String, {"data": 3}, "field 'data' must be a string; value 3"),
        (Int8, {"data": 128}, "field 'data' must be an integer in [-128, 127] (int8); value 128"),
        (Int8, {"data": 1.0}, "field 'data' must be an integer in [-128, 127] (int8); value 1.0"),
        (Imu, {"orientation_covariance": [1, 2]}, "must be a list of 9 values (double[9])"),
        (JointState, {"position": [1, "x"]}, "field 'position[1]' must be a number (double); value 'x'"),
        (JointState, {"name": "j1"}, "field 'name' must be a list (sequence<string>); value 'j1'"),
    ],
)
def test_wrong_fields_and_values_name_the_field(cls, values, words):
    with pytest.raises(RosToolError) as err:
        set_fields(cls(), values)
    assert words in str(err.value)


def test_values_must_be_a_yaml_mapping():
    assert parse_values("") == {} and parse_values(None) == {} and parse_values("{}") == {}
    assert parse_values("{data: [1, .inf]}")["data"][1] == math.inf
    with pytest.raises(RosToolError, match="not valid YAML"):
        parse_values("{data: [}")
    with pytest.raises(RosToolError, match="must be a YAML mapping"):
        parse_values("[1, 2]")


@pytest.mark.parametrize(
    "argv, words",
    [
        (["topic", "pub", "--once", "/x", "std_msgs/msg/Strin", "{data: a}"], "unknown message type"),
        (["topic", "pub", "--once", "/x", "std_msgs/msg/String", "{data: [}"], "not valid YAML"),
        (["topic", "pub", "--once", "/x", "std_msgs/msg/String", "{dta: a}"], "unknown field 'dta'"),
        (["topic", "pub", "--once", "/x", "std_msgs/msg/String", "{data: 1}"], "must be a string"),
        (["service", "call", "/x", "std_srvs/srv/SetBool", "{data: 2}"], "field 'data' must be true or false"),
        (["action", "send_goal", "/x", "std_srvs/srv/Trigger", "{}"], "not an action type"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, words):
    assert main(["ros", *argv]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1 and err.startswith("humanoid-stack ros: error: ")


@pytest.mark.parametrize(
    "argv",
    [
        ["topic", "pub", "--once", "--rate", "0", "/x", "std_msgs/msg/String"],
        ["topic", "echo", "/x", "--count", "0"],
        ["topic", "pub", "--once", "--times", "2", "/x", "std_msgs/msg/String"],
        ["param", "set", "/node", "name"],
        ["topic"],
    ],
)
def test_malformed_command_lines_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as exit_:
        main(["ros", *argv])
    assert exit_.value.code == 2
