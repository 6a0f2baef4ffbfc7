"""The one rclpy node of a `humanoid-stack ros` command: a private context (ROS_DOMAIN_ID,
ROS_AUTOMATIC_DISCOVERY_RANGE, RMW_IMPLEMENTATION and the rest read from the environment, as the
ros2 CLI reads them), a hidden node (its name starts with ``_``, so `ros node list` and
`ros2 node list` leave it out) and an executor spun until a condition holds or a time runs out.

    with RosSession() as ros:
        client = ros.node.create_client(Trigger, "/simulator/reset")
        ros.wait_until(client.service_is_ready, 5.0, "no service /simulator/reset")
"""

from __future__ import annotations

import os
import time

import rclpy
from rclpy.executors import SingleThreadedExecutor

from humanoid_stack.exceptions import RosToolError

__all__ = ["RosSession", "SPIN_PERIOD"]

SPIN_PERIOD = 0.05  # [s] longest wait of one executor turn (chosen: Ctrl-C and timeouts answer within it)


class RosSession:
    """A context manager holding ``node`` (hidden, ``_humanoid_stack_ros_<pid>``) on a private
    context and executor; ``wait_until``, ``wait_future`` and ``spin_for`` spin it."""

    def __init__(self, name: str = "_humanoid_stack_ros"):
        self.context = rclpy.Context()
        rclpy.init(args=None, context=self.context)  # the domain and discovery range come from the environment
        try:
            self.node = rclpy.create_node(f"{name}_{os.getpid()}", context=self.context, start_parameter_services=False)
            self.executor = SingleThreadedExecutor(context=self.context)
            self.executor.add_node(self.node)
        except BaseException:
            rclpy.shutdown(context=self.context)
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        self.executor.remove_node(self.node)
        self.node.destroy_node()
        self.executor.shutdown()
        if self.context.ok():
            rclpy.shutdown(context=self.context)

    def spin_for(self, seconds: float):
        """Spin for ``seconds`` (callbacks run meanwhile)."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            self.executor.spin_once(timeout_sec=min(SPIN_PERIOD, left))

    def wait_until(self, condition, timeout: float | None, failure: str):
        """Spin until ``condition()`` is true; `RosToolError(failure)` after ``timeout`` seconds
        (None: wait until Ctrl-C; ``failure`` may be a function giving the text then). Returns what
        ``condition`` returned."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            result = condition()
            if result:
                return result
            if deadline is not None and time.monotonic() >= deadline:
                raise RosToolError(failure() if callable(failure) else failure)
            self.executor.spin_once(timeout_sec=SPIN_PERIOD)

    def wait_future(self, future, timeout: float | None, failure: str):
        """The result of the rclpy ``future``, spinning until it is done; `RosToolError(failure)`
        after ``timeout`` seconds."""
        self.wait_until(future.done, timeout, failure)
        return future.result()
