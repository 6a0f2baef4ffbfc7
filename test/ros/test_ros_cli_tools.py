"""`humanoid-stack ros` against real nodes (Fast DDS on loopback): the command runs in a second
process, the other side (subscriber, publisher, parameter node, service, action server) in the
test's own rclpy context, spun while the command runs. conftest.py's ROS_DOMAIN_ID reaches the
command through the environment."""

import subprocess
import sys
import threading
import time

import pytest
import yaml

rclpy = pytest.importorskip("rclpy")
from rclpy.parameter import Parameter  # noqa: E402
from std_msgs.msg import String  # noqa: E402
from std_srvs.srv import Trigger  # noqa: E402

pytestmark = pytest.mark.ros

TIMEOUT = 60.0  # [s] upper bound for a command: interpreter start, DDS discovery, delivery, on a loaded machine


def start(*args):
    return subprocess.Popen(
        [sys.executable, "-m", "humanoid_stack", "ros", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def finish(harness, proc, during=None):
    """Spin the harness until the command exits (calling ``during()`` each turn) -> (rc, stdout, stderr)."""
    deadline = time.monotonic() + TIMEOUT
    while proc.poll() is None and time.monotonic() < deadline:
        harness.executor.spin_once(timeout_sec=0.05)
        if during:
            during()
    if proc.poll() is None:
        proc.kill()
    out, err = proc.communicate()
    return proc.returncode, out, err


def test_topic_pub_once_reaches_a_subscriber(ros_harness):
    h = ros_harness()
    node = h.add(rclpy.create_node("cli_listener", context=h.context))
    got = []
    node.create_subscription(String, "/cli_tools/heard", got.append, 10)
    rc, out, err = finish(h, start("topic", "pub", "--once", "/cli_tools/heard", "std_msgs/msg/String", "{data: hi}"))
    assert rc == 0, err
    assert h.spin_until(lambda: got, timeout=5.0)
    assert [m.data for m in got] == ["hi"]  # once: exactly one message
    assert "publishing #1" in out


def test_topic_echo_once_prints_the_published_message(ros_harness):
    from geometry_msgs.msg import Twist

    h = ros_harness()
    node = h.add(rclpy.create_node("cli_talker", context=h.context))
    pub = node.create_publisher(Twist, "/cli_tools/twist", 10)
    msg = Twist()
    msg.linear.x, msg.angular.z = 0.25, -1.5
    node.create_timer(0.1, lambda: pub.publish(msg))
    rc, out, err = finish(h, start("topic", "echo", "--once", "/cli_tools/twist"))  # the type from the graph
    assert rc == 0, err
    docs = [d for d in yaml.safe_load_all(out) if d is not None]
    assert docs == [{"linear": {"x": 0.25, "y": 0.0, "z": 0.0}, "angular": {"x": 0.0, "y": 0.0, "z": -1.5}}]


def test_topic_echo_count_prints_that_many_messages(ros_harness):
    h = ros_harness()
    node = h.add(rclpy.create_node("cli_counter", context=h.context))
    pub = node.create_publisher(String, "/cli_tools/count", 10)
    sent = [0]

    def tick():
        sent[0] += 1
        pub.publish(String(data=str(sent[0])))

    node.create_timer(0.05, tick)
    rc, out, err = finish(h, start("topic", "echo", "/cli_tools/count", "std_msgs/msg/String", "--count", "3"))
    assert rc == 0, err
    values = [int(d["data"]) for d in yaml.safe_load_all(out) if d is not None]
    assert len(values) == 3 and values == sorted(values) and len(set(values)) == 3


def test_param_get_and_refused_set_on_the_state_publisher(ros_harness):
    from humanoid_ros.state_publisher import StatePublisherNode

    h = ros_harness()
    h.add(StatePublisherNode(context=h.context, parameter_overrides=[Parameter("robot", value="bip")]))
    rc, out, err = finish(h, start("param", "get", "/state_publisher", "robot"))
    assert (rc, out.strip()) == (0, "String value is: bip"), err
    rc, out, err = finish(h, start("param", "get", "/state_publisher", "publish_frequency"))
    assert (rc, out.strip()) == (0, "Double value is: 20.0"), err
    rc, out, err = finish(h, start("param", "list", "/state_publisher"))
    assert rc == 0 and {"robot", "posture", "frame_prefix"} <= set(out.split()), err
    # a start-only parameter is read-only: the node refuses, the command says why in one line
    rc, out, err = finish(h, start("param", "set", "/state_publisher", "robot", "hrp2"))
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "read-only" in err, err
    rc, out, err = finish(h, start("param", "get", "/state_publisher", "robto"))
    assert rc == 2 and "no parameter 'robto'" in err and "did you mean 'robot'" in err


def test_param_set_converts_to_the_declared_type(ros_harness):
    h = ros_harness()
    node = h.add(rclpy.create_node("cli_params", context=h.context))
    node.declare_parameter("gain", 0.5)  # a double: "2" reaches it as 2.0, as ros2 param set would not
    node.declare_parameter("names", ["a"])
    rc, out, err = finish(h, start("param", "set", "/cli_params", "gain", "2"))
    assert (rc, out.strip()) == (0, "Set parameter successful"), err
    assert node.get_parameter("gain").value == 2.0 and isinstance(node.get_parameter("gain").value, float)
    rc, out, err = finish(h, start("param", "set", "/cli_params", "names", "[x, y]"))
    assert rc == 0, err
    assert list(node.get_parameter("names").value) == ["x", "y"]
    rc, out, err = finish(h, start("param", "set", "/cli_params", "gain", "fast"))
    assert rc == 2 and "the parameter is a double; 'fast' reads as a string" in err, err
    assert node.get_parameter("gain").value == 2.0


def test_service_call_trigger(ros_harness):
    h = ros_harness()
    node = h.add(rclpy.create_node("cli_server", context=h.context))
    calls = []

    def answer(request, response):
        calls.append(request)
        response.success, response.message = True, f"call {len(calls)}"
        return response

    node.create_service(Trigger, "/cli_tools/trigger", answer)
    rc, out, err = finish(h, start("service", "call", "/cli_tools/trigger", "std_srvs/srv/Trigger"))
    assert rc == 0, err
    assert len(calls) == 1
    assert yaml.safe_load(out.split("response:", 1)[1]) == {"success": True, "message": "call 1"}
    # the same name with another type: no server of that type, said in one line
    rc, out, err = finish(h, start("service", "call", "/cli_tools/trigger", "std_srvs/srv/SetBool", "--timeout", "8"))
    assert rc == 2 and "its server has the type std_srvs/srv/Trigger" in err and len(calls) == 1


def _action_server(h):
    from rclpy.action import ActionServer, GoalResponse

    control = pytest.importorskip("control_msgs.action")
    fjt = control.FollowJointTrajectory
    node = h.add(rclpy.create_node("cli_action", context=h.context))
    goals = []

    def execute(handle):
        trajectory = handle.request.trajectory
        goals.append(trajectory)
        time.sleep(0.5)  # the client's feedback subscription is matched by now (discovery), as for a real motion
        for index in range(len(trajectory.points)):
            feedback = fjt.Feedback(joint_names=list(trajectory.joint_names), index=index)
            handle.publish_feedback(feedback)
            time.sleep(0.2)  # feedback at a rate, as a motion gives it (rclpy may drop back-to-back ones)
        if "broken" in trajectory.joint_names:
            handle.abort()
            return fjt.Result(error_code=fjt.Result.INVALID_JOINTS, error_string="broken joint")
        handle.succeed()
        return fjt.Result(error_string=f"{len(trajectory.points)} points")

    def accept(goal):
        return GoalResponse.REJECT if "refused" in goal.trajectory.joint_names else GoalResponse.ACCEPT

    server = ActionServer(node, fjt, "/cli_tools/follow", execute, goal_callback=accept)
    return server, goals


def _spin_in_thread(h):
    """Spin the harness in a thread (the action server's execute callback runs in the executor)."""
    stop = threading.Event()

    def spin():
        while not stop.is_set():
            h.executor.spin_once(timeout_sec=0.05)

    thread = threading.Thread(target=spin, daemon=True)
    thread.start()
    return stop, thread


def _run_to_end(proc):
    try:
        out, err = proc.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return proc.returncode, out, err


def test_action_send_goal_prints_feedback_and_result(ros_harness):
    h = ros_harness()
    server, goals = _action_server(h)
    stop, thread = _spin_in_thread(h)
    kind = "control_msgs/action/FollowJointTrajectory"
    goal = "{trajectory: {joint_names: [j1, j2], points: [{positions: [1, 2]}, {positions: [3, 4.5]}]}}"
    try:
        rc, out, err = _run_to_end(start("action", "send_goal", "/cli_tools/follow", kind, goal, "--feedback"))
        assert rc == 0, err
        assert [list(t.joint_names) for t in goals] == [["j1", "j2"]]
        assert [list(p.positions) for p in goals[0].points] == [[1.0, 2.0], [3.0, 4.5]]
        assert "Goal finished with status: SUCCEEDED" in out
        feedback = [yaml.safe_load(part.split("Result:")[0]) for part in out.split("Feedback:")[1:]]
        assert 1 <= len(feedback) <= 2  # a topic: the ones in flight at the result may be lost
        assert all(f["joint_names"] == ["j1", "j2"] and f["index"] in (0, 1) for f in feedback)
        result = out.split("Result:", 1)[1].split("Goal finished", 1)[0]
        assert yaml.safe_load(result) == {"error_code": 0, "error_string": "2 points"}

        rc, out, err = _run_to_end(
            start("action", "send_goal", "/cli_tools/follow", kind, "{trajectory: {joint_names: [broken]}}")
        )
        assert rc == 2 and "goal finished with status ABORTED" in err and "broken joint" in out
        rc, out, err = _run_to_end(
            start("action", "send_goal", "/cli_tools/follow", kind, "{trajectory: {joint_names: [refused]}}")
        )
        assert rc == 2 and err.strip().endswith("goal rejected") and len(goals) == 2
    finally:
        stop.set()
        thread.join()
        server.destroy()


@pytest.mark.parametrize(
    "argv, words",
    [
        (["service", "call", "/cli_tools/none", "std_srvs/srv/Trigger", "--timeout", "1"], "no server after 1 s"),
        (["topic", "echo", "/cli_tools/none", "--timeout", "1"], "not in the graph after 1 s"),
        (["topic", "echo", "/cli_tools/none", "std_msgs/msg/String", "--timeout", "1"], "0 of 1 message(s) after 1 s"),
        (["topic", "pub", "--once", "/cli_tools/none", "std_msgs/msg/String", "--timeout", "1"], "0 of 1 subscriber"),
        (["param", "get", "/cli_tools_none", "x", "--timeout", "1"], "no parameter services after 1 s"),
        (
            ["action", "send_goal", "/cli_tools/none", "control_msgs/action/FollowJointTrajectory", "{}"]
            + ["--server-timeout", "1"],
            "no server after 1 s",
        ),
    ],
)
def test_nothing_to_talk_to_is_one_line_and_exit_2(argv, words):
    rc, out, err = _run_to_end(start(*argv))
    assert rc == 2 and words in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_node_and_topic_list_show_the_graph(ros_harness):
    h = ros_harness()
    node = h.add(rclpy.create_node("cli_listed", namespace="/cli_ns", context=h.context))
    node.create_publisher(String, "/cli_tools/listed", 10)
    rc, out, err = finish(h, start("node", "list", "--spin-time", "5"))
    assert rc == 0 and "/cli_ns/cli_listed" in out.split(), err
    assert not [n for n in out.split() if n.rsplit("/", 1)[-1].startswith("_")]  # hidden nodes (its own) left out
    rc, out, err = finish(h, start("topic", "list", "-t", "--spin-time", "5"))
    assert rc == 0 and "/cli_tools/listed [std_msgs/msg/String]" in out.splitlines(), err
