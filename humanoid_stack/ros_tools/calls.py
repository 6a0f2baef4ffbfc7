"""`ros service call` and `ros action send_goal`: a request or a goal built from YAML, the response
or the result printed as YAML."""

from __future__ import annotations

import contextlib

from action_msgs.msg import GoalStatus
from rclpy.action import ActionClient

from humanoid_stack.exceptions import RosToolError
from humanoid_stack.ros_tools.messages import interface_type, parse_values, set_fields, to_yaml, type_name
from humanoid_stack.ros_tools.session import RosSession
from humanoid_stack.ros_tools.topic import resolve_name

__all__ = ["service_call", "send_goal", "STATUS_NAMES"]

FEEDBACK_TIME = 0.2  # [s] spin after the result, for the feedback published just before it (chosen)
CANCEL_TIME = 2.0  # [s] longest wait for the server to answer the cancel of an interrupted goal (chosen)

#: action_msgs/GoalStatus codes by name, as `ros2 action send_goal` prints them
STATUS_NAMES = {
    getattr(GoalStatus, attr): attr.removeprefix("STATUS_") for attr in dir(GoalStatus) if attr.startswith("STATUS_")
}


def _missing(ros: RosSession, name: str, cls, kind: str, timeout: float) -> str:
    """Why no server of ``name`` answered: one of another type is in the graph (beside this
    command's own client), or none at all."""
    probe = name if kind == "service" else f"{name}/_action/send_goal"
    own = type_name(cls)
    types = dict(ros.node.get_service_names_and_types()).get(probe, [])
    served = [t.removesuffix("_SendGoal") for t in types if t.removesuffix("_SendGoal") != own]
    if served:
        return f"{kind} {name}: its server has the type {', '.join(served)}, not {own}"
    return f"{kind} {name}: no server after {timeout:g} s"


def service_call(args) -> int:
    cls = interface_type(args.type, "srv")
    request = set_fields(cls.Request(), parse_values(args.values, "request"), "request")
    with RosSession() as ros:
        name = resolve_name(ros, args.service, "service")
        client = ros.node.create_client(cls, name)
        ros.wait_until(client.service_is_ready, args.timeout, lambda: _missing(ros, name, cls, "service", args.timeout))
        response = ros.wait_future(
            client.call_async(request), args.timeout, f"service {name}: no response after {args.timeout:g} s"
        )
    print("response:")
    print(to_yaml(response), end="")
    return 0


def send_goal(args) -> int:
    cls = interface_type(args.type, "action")
    goal = set_fields(cls.Goal(), parse_values(args.values, "goal"), "goal")
    with RosSession() as ros:
        name = resolve_name(ros, args.action)
        client = ActionClient(ros.node, cls, name)
        try:
            return _send_goal(ros, client, cls, name, goal, args)
        finally:
            client.destroy()


def _send_goal(ros, client, cls, name, goal, args) -> int:
    ros.wait_until(
        client.server_is_ready,
        args.server_timeout,
        lambda: _missing(ros, name, cls, "action", args.server_timeout),
    )

    if args.feedback:  # the server's feedback publisher matched before the goal goes, or the first feedback is lost
        ros.wait_until(
            lambda: ros.node.count_publishers(f"{name}/_action/feedback") > 0,
            args.server_timeout,
            f"action {name}: no feedback publisher after {args.server_timeout:g} s",
        )
    early = []  # feedback that came before the goal's acceptance: printed after it

    def feedback(msg):
        if not args.feedback:
            return
        if early is not None:
            early.append(msg)
            return
        print("Feedback:")
        print(to_yaml(msg.feedback), end="", flush=True)

    handle = ros.wait_future(
        client.send_goal_async(goal, feedback_callback=feedback),
        args.server_timeout,
        f"action {name}: no answer to the goal after {args.server_timeout:g} s",
    )
    if not handle.accepted:
        raise RosToolError(f"action {name}: goal rejected")
    print(f"Goal accepted with ID: {bytes(handle.goal_id.uuid).hex()}", flush=True)
    pending, early = early, None
    for msg in pending:
        feedback(msg)
    try:
        answer = ros.wait_future(
            handle.get_result_async(), args.timeout, lambda: f"action {name}: no result after {args.timeout:g} s"
        )
    except (KeyboardInterrupt, RosToolError):  # the goal is not left running on the server
        cancel = handle.cancel_goal_async()
        with contextlib.suppress(RosToolError):  # no answer to the cancel: the first error is the one to report
            ros.wait_until(cancel.done, CANCEL_TIME, "no answer to the cancel")
        raise
    ros.spin_for(FEEDBACK_TIME)  # feedback still on its way (a topic: no order with the result's service)
    print("Result:")
    print(to_yaml(answer.result), end="")
    status = STATUS_NAMES.get(answer.status, str(answer.status))
    print(f"Goal finished with status: {status}")
    if answer.status != GoalStatus.STATUS_SUCCEEDED:
        raise RosToolError(f"action {name}: goal finished with status {status}")
    return 0
