"""`humanoid-stack up` and its runner: parameter-file parsing, --set overrides, clear errors (exit 2),
and a real run of the state publisher alone that stops after --duration with exit 0."""

import os
import subprocess
import sys

import pytest
import yaml
from support import REPO

from humanoid_model.exceptions import ConfigError
from humanoid_stack.cli import main
from humanoid_stack.runner import NODE_CLASSES, UP_KEY, load_node_set, node_class, parse_set


def write(tmp_path, data, name="set.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return path


def state_publisher_only(tmp_path, **params):
    return write(
        tmp_path,
        {
            UP_KEY: {"ros__parameters": {"nodes": ["state_publisher"]}},
            "state_publisher": {"ros__parameters": {"robot": "bip", **params}},
        },
    )


@pytest.mark.parametrize("name", ["view"])
def test_shipped_node_sets_load(name):
    node_set = load_node_set(name)
    assert node_set.nodes == ["state_publisher", "viewer"]
    sp = node_set.parameters["state_publisher"]["ros__parameters"]
    viewer = node_set.parameters["viewer"]["ros__parameters"]
    assert (sp["robot"], sp["posture"], sp["publish_robot_description"]) == ("hrp2", "half-sitting", True)
    assert (viewer["robot"], viewer["scene"], viewer["posture"]) == ("hrp2", "flat", "half-sitting")
    assert viewer["joint_state_source"] is True
    for entry in node_set.nodes:
        assert entry in NODE_CLASSES


@pytest.mark.parametrize("name", ["sim", "standing"])
def test_simulator_node_sets_load(name):
    """sim and standing run the simulator (HRP-2 on flat); standing adds the viewer following it."""
    node_set = load_node_set(name)
    assert node_set.nodes == (["simulator"] if name == "sim" else ["simulator", "viewer"])
    sim = node_set.parameters["simulator"]["ros__parameters"]
    assert sim["scene"] == "flat" and sim["robot"] in ("", "hrp2")
    if name == "standing":
        viewer = node_set.parameters["viewer"]["ros__parameters"]
        assert (viewer["robot"], viewer["scene"], viewer["joint_state_source"]) == ("hrp2", "flat", False)
        assert "contacts" in viewer["marker_topics"] and sim["push"]["link"] == "BODY"
    for entry in node_set.nodes:
        assert entry in NODE_CLASSES


@pytest.mark.parametrize("name, scene", [("demo", "stairs"), ("execute_sim", "flat")])
def test_execution_node_sets_connect_the_planner_the_bridge_and_the_whole_body_controller(name, scene):
    """demo (the stairs) and execute_sim (a flat walk on request): the planner's ~/motion is the
    bridge's motion topic, the bridge sends to the simulator's whole-body controller, one scene."""
    node_set = load_node_set(name)
    assert node_set.nodes == ["simulator", "viewer", "contact_planner", "robot_bridge"]
    p = {n: node_set.parameters[n]["ros__parameters"] for n in node_set.nodes}
    assert p["simulator"]["controller"] == "whole_body_controller"
    assert (p["robot_bridge"]["controller_type"], p["robot_bridge"]["controller"]) == (
        "whole_body",
        "whole_body_controller",
    )
    # relative: in the set's namespace, as the planner's ~/motion (/NS/contact_planner/motion)
    assert p["robot_bridge"]["motion_topic"] == "contact_planner/motion"
    assert p["simulator"]["scene"] == p["viewer"]["scene"] == p["contact_planner"]["scene"] == scene
    assert "contact_planner/stances" in p["viewer"]["marker_topics"]


NODE_SET_FILES = sorted(p for p in (REPO / "config").glob("*.yaml") if UP_KEY in (yaml.safe_load(p.read_text()) or {}))


@pytest.mark.parametrize("path", NODE_SET_FILES, ids=lambda p: p.name)
def test_exactly_one_robot_description_publisher(path):
    """The simulator publishes /robot_description when it runs, otherwise the state publisher.
    `bridge` is the exception: it drives a real robot, whose own robot_state_publisher publishes
    it (docs/real_robot.md), so it publishes none."""
    node_set = load_node_set(str(path))
    expected = 0 if path.name == "bridge.yaml" else 1
    sp = (node_set.parameters.get("state_publisher") or {}).get("ros__parameters") or {}
    publishers = [
        n
        for n in node_set.nodes
        if n == "simulator" or (n == "state_publisher" and sp.get("publish_robot_description", True))
    ]
    assert len(publishers) == expected, f"{path.name}: /robot_description published by {publishers}"


def test_set_overrides_become_node_specific_rcl_arguments(tmp_path):
    node_set = load_node_set(
        str(state_publisher_only(tmp_path)),
        [
            "state_publisher.publish_frequency=12.5",
            "state_publisher.robot=hrp2",
            "state_publisher.publish_robot_description=false",
        ],
    )
    assert node_set.ros_args() == [
        "--ros-args",
        "--params-file",
        str(tmp_path / "set.yaml"),
        "-p",
        "state_publisher:publish_frequency:=12.5",
        "-p",
        "state_publisher:robot:=hrp2",
        "-p",
        "state_publisher:publish_robot_description:=false",
    ]


@pytest.mark.parametrize(
    "item, message",
    [
        ("state_publisher.robot", "expected NODE.PARAM=VALUE"),
        ("robot=hrp2", "expected NODE.PARAM=VALUE"),
        ("state_publisher.=1", "expected NODE.PARAM=VALUE"),
        ("nobody.robot=hrp2", "node 'nobody' has no parameters"),
        (f"{UP_KEY}.nodes=[viewer]", f"node '{UP_KEY}' has no parameters"),
        ("state_publisher.robot={a: 1}", "must be a number, a bool, a string or a list"),
        ("state_publisher.robot=[1, ", "not a valid YAML scalar"),
    ],
)
def test_bad_set_is_a_clear_error(tmp_path, item, message):
    path = state_publisher_only(tmp_path)
    with pytest.raises(ConfigError, match=message.replace("[", r"\[")):
        parse_set(item, path, yaml.safe_load(path.read_text()))


@pytest.mark.parametrize(
    "data, message",
    [
        ({"state_publisher": {"ros__parameters": {}}}, "nodes must be a non-empty list"),
        ({UP_KEY: {"ros__parameters": {"nodes": []}}}, "nodes must be a non-empty list"),
        ({UP_KEY: {"ros__parameters": {"nodes": ["warp_drive"]}}}, "unknown node 'warp_drive'"),
        ({UP_KEY: {"nodes": ["viewer"]}}, f"top-level key '{UP_KEY}' has no 'ros__parameters'"),
        ([1, 2], "expected a mapping"),
        (
            {UP_KEY: {"ros__parameters": {"nodes": ["viewer"]}}, "viewer": {"ros__parameters": None}},
            "top-level key 'viewer' has no 'ros__parameters'",
        ),
    ],
)
def test_bad_parameter_file_is_a_clear_error(tmp_path, data, message):
    path = write(tmp_path, data)
    with pytest.raises(ConfigError, match=message) as info:
        load_node_set(str(path))
    assert str(path) in str(info.value)


def test_missing_files_and_classes(tmp_path):
    with pytest.raises(ConfigError, match="unknown node set 'no_such_set'"):
        load_node_set("no_such_set")
    with pytest.raises(ConfigError, match="parameter file not found"):
        load_node_set(str(tmp_path / "absent.yaml"))
    broken = tmp_path / "broken.yaml"
    broken.write_text("state_publisher: {ros__parameters: [\n")
    with pytest.raises(ConfigError, match="broken.yaml: not valid YAML"):
        load_node_set(str(broken))
    with pytest.raises(ConfigError, match="module humanoid_nowhere.node is not available"):
        node_class("humanoid_nowhere.node:Thing")
    with pytest.raises(ConfigError, match="has no class NoSuchNode"):
        node_class("humanoid_ros.state_publisher:NoSuchNode")
    assert node_class("state_publisher").__name__ == "StatePublisherNode"


def test_every_node_executable_is_registered_for_up():
    """setup.py's NODES (executables) and the runner's NODE_CLASSES name the same nodes, from the
    same modules, and each class's ROS node name is its registry name (so parameter-file sections match)."""
    import runpy

    import setuptools

    original = setuptools.setup
    setuptools.setup = lambda **kwargs: None
    try:
        nodes = runpy.run_path(str(REPO / "setup.py"), run_name="__main__")["NODES"]
    finally:
        setuptools.setup = original
    assert set(nodes) == set(NODE_CLASSES)
    for name, target in NODE_CLASSES.items():
        module = target.partition(":")[0]
        assert nodes[name] == f"{module}:main"
        cls = node_class(name)
        assert name == sys.modules[module].NODE_NAME, f"{cls.__name__} is not named '{name}'"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["up", "no_such_set"], "unknown node set 'no_such_set'"),
        (["up", "view", "--set", "viewer.port"], "expected NODE.PARAM=VALUE"),
        (["up", "view", "--duration", "0"], "--duration must be > 0"),
        (["demo", "--port", "70000"], "--port must be in 1..65535"),
        # values rcl itself would keep from the file without a word (exit 0): refused here
        (
            ["up", "sim", "--set", "simulator.dt=fast"],
            "--set simulator.dt: node 'simulator': parameter dt must be a number; value 'fast'",
        ),
        (
            ["up", "sim", "--set", "simulator.real_time_factr=0"],
            "--set simulator.real_time_factr: node 'simulator' has no parameter 'real_time_factr' (did you mean 'real_time_factor'?)",
        ),
        (["up", "sim", "--set", "simulator.push.start=-1"], "parameter push.start must be >= 0 [s]; value -1"),
        (["demo", "--set", "viewer.prot=1"], "node 'viewer' has no parameter 'prot' (did you mean 'port'?)"),
        (["up", "view", "--namespace", "1robot"], "--namespace '1robot': not a ROS namespace"),
        (["up", "view", "--namespace", "r1/"], "--namespace 'r1/': not a ROS namespace"),
        (["up", "view", "--remap", "joint_states"], "--remap 'joint_states': expected [NODE:]FROM:=TO"),
    ],
)
def test_cli_errors_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_cli_unknown_node_and_missing_file_exit_2(tmp_path, capsys):
    path = write(tmp_path, {UP_KEY: {"ros__parameters": {"nodes": ["state_publisher", "warp_drive"]}}})
    assert main(["up", str(path)]) == 2
    assert main(["up", str(tmp_path / "absent.yaml")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        f"humanoid-stack up: error: {path}: {UP_KEY}.ros__parameters.nodes: unknown node 'warp_drive'; "
        f"registered nodes: {', '.join(NODE_CLASSES)} (or give 'module:Class')",
        f"humanoid-stack up: error: parameter file not found: {tmp_path / 'absent.yaml'}",
    ]


@pytest.mark.parametrize(
    "content, message",
    [
        (bytes(range(256)) * 12, "not a text (UTF-8) file, so not a parameter file"),  # UnicodeDecodeError before
        (b"a: " + b"[" * 5000 + b"]" * 5000, "nested too deeply to be a parameter file"),  # RecursionError before
    ],
)
def test_a_binary_or_deeply_nested_parameter_file_exits_2_in_one_line(tmp_path, capsys, content, message):
    path = tmp_path / "p.yaml"
    path.write_bytes(content)
    assert main(["up", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"humanoid-stack up: error: {path}: {message}") and err.count("\n") == 1


def test_overrides_take_the_declared_type_and_a_typo_in_the_file_is_refused(tmp_path):
    """An int given for a double parameter reaches rcl as a double (rcl drops an override whose
    type differs from the file's); a misspelt parameter in the file names the file, the node and
    the nearest name; rclpy's own use_sim_time is accepted."""
    from humanoid_stack.runner import load_node_set

    ns = load_node_set("sim", ["simulator.publish_rate=20", "simulator.solver_max_iterations=50"])
    assert ns.ros_args()[-4:] == ["-p", "simulator:publish_rate:=20.0", "-p", "simulator:solver_max_iterations:=50"]
    sim = {"scene": "flat", "use_sim_time": False, "push": {"strat": 1.0}}
    path = write(
        tmp_path, {UP_KEY: {"ros__parameters": {"nodes": ["simulator"]}}, "simulator": {"ros__parameters": sim}}
    )
    with pytest.raises(
        ConfigError,
        match=r"simulator\.ros__parameters\.push\.strat: node 'simulator' has no parameter 'push\.strat' \(did you mean 'push\.start'\?\)",
    ):
        load_node_set(str(path))


def run_up(repo_root, *args):
    return subprocess.run(
        [sys.executable, "-m", "humanoid_stack", "up", *args],
        cwd=repo_root,
        env=dict(os.environ),
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.ros
def test_up_runs_and_stops_after_duration(tmp_path, repo_root):
    result = run_up(
        repo_root,
        str(state_publisher_only(tmp_path)),
        "--duration",
        "1",
        "--set",
        "state_publisher.publish_frequency=5",
    )
    assert result.returncode == 0, result.stderr
    assert "robot 'bip'" in result.stderr and "publishing /robot_description" in result.stderr


@pytest.mark.ros
def test_up_namespace_moves_the_nodes_with_their_file_and_overrides(tmp_path, repo_root):
    """`up FILE --namespace r1 --remap robot_description:=description` in another process: the
    state publisher is /r1/state_publisher; its file section applies (robot bip, not the default
    hrp2), a --set override too (frame_prefix x/ on /tf), and its description comes on
    /r1/description, nothing on /robot_description."""
    from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
    from std_msgs.msg import String
    from support.ros_up import Client, spinner, start_up, stop
    from tf2_msgs.msg import TFMessage

    path = state_publisher_only(tmp_path, publish_frequency=20.0)
    args = ("--namespace", "r1", "--remap", "robot_description:=description", "--duration", "60")
    proc = start_up(repo_root, str(path), *args, "--set", "state_publisher.frame_prefix=x/")
    client = Client("namespace_check")
    try:
        latched = QoSProfile(
            depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL
        )
        description, tf = [], []
        client.node.create_subscription(String, "/r1/description", description.append, latched)
        client.node.create_subscription(TFMessage, "/tf", tf.append, 10)
        spin_until = spinner(client.executor, proc, 90.0)
        assert spin_until(lambda: description and tf)
        assert '<robot name="bip"' in description[0].data
        children = {t.child_frame_id for msg in tf for t in msg.transforms}
        assert children and all(c.startswith("x/") for c in children)
        # the graph's node names arrive by discovery, after the topics' first messages: wait for them
        assert spin_until(
            lambda: (
                "/r1/state_publisher"
                in [ns.rstrip("/") + "/" + name for name, ns in client.node.get_node_names_and_namespaces()]
            )
        )
        assert client.node.count_publishers("/robot_description") == 0
    finally:
        client.close()
        out = stop(proc)
    assert "in namespace /r1" in out and "Traceback" not in out


@pytest.mark.ros
@pytest.mark.parametrize(
    "sets, message",
    [
        (["state_publisher.robot=no_such_robot"], "node 'state_publisher': unknown robot 'no_such_robot'"),
        (["state_publisher.publish_frequency=fast"], "publish_frequency"),
        (["state_publisher.publish_frequency=-1"], "publish_frequency must be > 0"),
    ],
)
def test_up_bad_parameter_values_exit_2(tmp_path, repo_root, sets, message):
    args = [str(state_publisher_only(tmp_path)), "--duration", "1"]
    for item in sets:
        args += ["--set", item]
    result = run_up(repo_root, *args)
    assert result.returncode == 2
    assert message in result.stderr and "Traceback" not in result.stderr


@pytest.mark.ros
def test_up_view_serves_and_ctrl_c_exits_0(repo_root):
    """`humanoid-stack up view` (what `make demo` does with the demo set): prints the viewer URL,
    the URL answers, and Ctrl-C (SIGINT) stops every node with exit code 0 and no traceback."""
    import re
    import signal
    import time
    import urllib.request

    proc = subprocess.Popen(
        [sys.executable, "-m", "humanoid_stack", "up", "view", "--set", "viewer.port=0"],
        cwd=repo_root,
        env=dict(os.environ),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # see test_viewer
    lines = []
    try:
        deadline = time.monotonic() + 90  # generous start-up bound on a loaded 2-core machine (chosen)
        url = None
        while url is None and time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"(http://127\.0\.0\.1:\d+)/", line)
            url = m.group(1) if m and not line.lstrip().startswith(("│", "|")) else None
        assert url, "no URL printed:\n" + "".join(lines)
        with urllib.request.urlopen(url, timeout=10) as response:
            assert response.status == 200
        proc.send_signal(signal.SIGINT)
        out, _ = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    log = "".join(lines) + out
    assert proc.returncode == 0, log[-3000:]
    assert "Traceback" not in log, log[-3000:]


# Nodes that do in their constructor what rclpy's SIGINT handler does when Ctrl-C arrives during
# start-up: the default context is shut down, at the end of the constructor (before spinning: a rare
# traceback, exit 1, of the installed state_publisher on a loaded machine) or in its middle (the next
# rcl call, creating a publisher, fails).
STARTUP_CTRL_C = """
import rclpy
from rclpy.node import Node
from std_msgs.msg import String


class StartupCtrlC(Node):
    def __init__(self):
        super().__init__("startup_ctrl_c")
        rclpy.get_default_context().shutdown()


class MidStartupCtrlC(Node):
    def __init__(self):
        super().__init__("mid_startup_ctrl_c")
        rclpy.get_default_context().shutdown()
        self.create_publisher(String, "/startup_ctrl_c", 10)
"""


@pytest.mark.ros
@pytest.mark.parametrize("cls", ["StartupCtrlC", "MidStartupCtrlC"])
@pytest.mark.parametrize("how", ["run_node", "up"])
def test_ctrl_c_during_start_up_is_a_clean_stop(tmp_path, repo_root, how, cls):
    (tmp_path / "startup_ctrl_c.py").write_text(STARTUP_CTRL_C)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    if how == "run_node":
        code = (
            f"import sys; from humanoid_ros.common import run_node; from startup_ctrl_c import {cls}; "
            f"sys.exit(run_node({cls}, 'startup_ctrl_c'))"
        )
        cmd = [sys.executable, "-c", code]
    else:
        node_set = write(tmp_path, {UP_KEY: {"ros__parameters": {"nodes": [f"startup_ctrl_c:{cls}"]}}})
        cmd = [sys.executable, "-m", "humanoid_stack", "up", str(node_set)]
    result = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "Traceback" not in output and "Exception ignored" not in output, output
