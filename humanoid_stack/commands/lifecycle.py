"""`humanoid-stack lifecycle NODE TRANSITION|state`: drive a running lifecycle node (the robot
bridge) through its lifecycle services, without the ros2 CLI."""

from __future__ import annotations

import os

TRANSITIONS = ("configure", "activate", "deactivate", "cleanup", "shutdown")  # humanoid_ros.lifecycle's, without rclpy

HELP = "drive a running lifecycle node (robot_bridge): configure, activate, deactivate, cleanup, shutdown or state"
COMPILES = False  # runs no numba kernel: the compilation notice (cli.main) would only import numba
DESCRIPTION = """\
Ask a running lifecycle (managed) node for a transition, or for its state, through its
lifecycle services (NODE/change_state, NODE/get_state: lifecycle_msgs), as 'ros2 lifecycle set'
and 'ros2 lifecycle get' do. Prints the state the node is in afterwards; exits 1 when the node
refuses the transition (its log says why), 2 when no such node answers within --timeout.

NODE is the node's name, with its namespace if it has one (robot_bridge, /robot_bridge,
/robot/robot_bridge). 'humanoid-stack up' brings its lifecycle nodes to active unless told
otherwise (--lifecycle inactive).

examples:
  humanoid-stack up bridge_sim --lifecycle inactive &
  humanoid-stack lifecycle robot_bridge activate
  humanoid-stack lifecycle robot_bridge state
  humanoid-stack lifecycle robot_bridge deactivate     # a motion in progress stops and holds
"""


def add_arguments(parser):
    parser.add_argument("node", metavar="NODE", help="the lifecycle node's name (e.g. robot_bridge)")
    parser.add_argument("transition", choices=(*TRANSITIONS, "state"), help="the transition to ask for, or state")
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="S",
        help="longest wait for the node's services and for the answer [s] (default 10)",
    )


def run(args) -> int:
    from humanoid_model.exceptions import ConfigError

    if not args.timeout > 0:
        raise ConfigError(f"--timeout must be > 0 [s], got {args.timeout}")
    name = args.node if args.node.startswith("/") else f"/{args.node}"
    if not name.strip("/") or any(c.isspace() for c in name):
        raise ConfigError(f"NODE must be a node name such as robot_bridge; value {args.node!r}")

    import rclpy
    from lifecycle_msgs.msg import Transition
    from lifecycle_msgs.srv import ChangeState, GetState
    from rclpy.executors import SingleThreadedExecutor

    from humanoid_stack.runner import localhost_by_default

    localhost_by_default(os.environ)  # the same discovery range as up's nodes
    rclpy.init(args=[])
    node = rclpy.create_node("humanoid_stack_lifecycle", start_parameter_services=False)
    executor = SingleThreadedExecutor()
    executor.add_node(node)
    try:

        def call(service_type, service, request):
            client = node.create_client(service_type, f"{name}/{service}")
            if not client.wait_for_service(timeout_sec=args.timeout):
                raise ConfigError(f"no lifecycle node {name} answers ({name}/{service} not available)")
            future = client.call_async(request)
            executor.spin_until_future_complete(future, timeout_sec=args.timeout)
            if not future.done():
                raise ConfigError(f"{name}/{service}: no answer within {args.timeout:g} s")
            return future.result()

        ok = True
        if args.transition != "state":
            request = ChangeState.Request(transition=Transition(label=args.transition))
            ok = call(ChangeState, "change_state", request).success
        state = call(GetState, "get_state", GetState.Request()).current_state.label
        if ok:
            print(f"{name}: {state}")
            return 0
        print(f"{name}: {args.transition} refused; state {state} (the node's log says why)")
        return 1
    finally:
        executor.remove_node(node)
        node.destroy_node()
        executor.shutdown()
        rclpy.try_shutdown()
