"""`humanoid_stack.namespaces`: the ``--namespace`` check against rclpy's own validator (an
independent implementation of ROS's name rules), ``--remap`` rules, a parameter file moved into a
namespace with the ``--set`` overrides written in, and the node set's rcl arguments."""

import re

import pytest
import yaml
from support import REPO

from humanoid_model.exceptions import ConfigError
from humanoid_stack.namespaces import check_namespace, check_remap, namespaced_parameter_file
from humanoid_stack.runner import load_node_set

CANDIDATES = ["r1", "/r1", "/robots/r1", "a_b/c9", "_x", "1r", "/r1/", "r 1", "r-1", "//r1", "r1//r2", "~r1", "r{1}"]


@pytest.mark.parametrize("text", CANDIDATES)
def test_namespace_check_agrees_with_rclpy(text):
    """A namespace is accepted exactly when rclpy's validator accepts its absolute form."""
    rclpy_validate = pytest.importorskip("rclpy.validate_namespace")
    absolute = text if text.startswith("/") else "/" + text
    try:
        rclpy_validate.validate_namespace(absolute)
        valid = True
    except Exception:  # rclpy's InvalidNamespaceException
        valid = False
    if valid:
        assert check_namespace(text) == absolute
    else:
        with pytest.raises(ConfigError, match=rf"^--namespace {re.escape(repr(text))}: not a ROS namespace"):
            check_namespace(text)


def test_root_namespace_and_length():
    assert check_namespace("") == check_namespace("/") == "/"
    with pytest.raises(ConfigError, match="at most 200 characters"):
        check_namespace("r" * 201)


@pytest.mark.parametrize(
    "text, rule",
    [
        ("joint_states:=/hrp2/joint_states", ("joint_states", "/hrp2/joint_states")),
        ("/odom:=odom_truth", ("/odom", "odom_truth")),
        ("viewer:~/camera:=cam", ("viewer:~/camera", "cam")),
    ],
)
def test_remap_rules(text, rule):
    assert check_remap(text) == rule


@pytest.mark.parametrize("text", ["joint_states", "a:=", ":=b", "a b:=c", "a:=b c", "no-de:a:=b", "__ns:=/r1x/"])
def test_bad_remap_is_refused(text):
    with pytest.raises(ConfigError, match=r"^--remap .*: expected \[NODE:\]FROM:=TO"):
        check_remap(text)


def test_parameter_file_moves_into_the_namespace_with_the_overrides(tmp_path):
    """Every relative section becomes /NS/NODE, an absolute one stays; an override wins over the
    file's value, nested (push: {start}) or not, and a string YAML would read as a bool stays text."""
    src = tmp_path / "set.yaml"
    src.write_text(
        yaml.safe_dump(
            {
                "simulator": {"ros__parameters": {"scene": "flat", "push": {"start": 1.0, "link": "BODY"}}},
                "viewer": {"ros__parameters": {"port": 8080}},
                "/other/node": {"ros__parameters": {"a": 1}},
            }
        )
    )
    overrides = [("simulator", "push.start", 2.5), ("viewer", "host", "y")]
    copy = namespaced_parameter_file(src, "/r1", overrides, directory=tmp_path)
    data = yaml.safe_load(copy.read_text())
    assert set(data) == {"/r1/simulator", "/r1/viewer", "/other/node"}
    assert data["/r1/simulator"]["ros__parameters"] == {"scene": "flat", "push.start": 2.5, "push.link": "BODY"}
    assert data["/r1/viewer"]["ros__parameters"] == {"port": 8080, "host": "y"}
    assert "'y'" in copy.read_text() or '"y"' in copy.read_text()


def test_node_set_arguments_in_a_namespace_with_remaps(tmp_path):
    """In the root namespace the overrides are -p rules on the shipped file; in a namespace the
    file is the namespaced copy (the overrides inside) and -r __ns comes with it; remaps follow."""
    root = load_node_set("sim", ["simulator.publish_rate=20"], "", ["joint_states:=js"])
    assert root.ros_args() == [
        "--ros-args",
        "--params-file",
        str(REPO / "config" / "sim.yaml"),
        "-p",
        "simulator:publish_rate:=20.0",
        "-r",
        "joint_states:=js",
    ]
    ns = load_node_set("sim", ["simulator.publish_rate=20"], "r1", ["joint_states:=js"])
    assert ns.namespace == "/r1"
    copy = tmp_path / "copy.yaml"
    assert ns.ros_args(copy) == ["--ros-args", "--params-file", str(copy), "-r", "__ns:=/r1", "-r", "joint_states:=js"]
    with pytest.raises(ValueError):
        ns.ros_args()
