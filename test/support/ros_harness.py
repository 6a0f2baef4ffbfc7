"""A private rclpy context and executor for a test (the ``ros_harness`` fixture of conftest.py
and the ROS bridge stack)."""


class RosHarness:
    """One private rclpy context + executor for a test: add nodes, spin until a condition holds."""

    def __init__(self, timeout: float, period: float, domain_id: int | None = None):
        import rclpy
        from rclpy.executors import SingleThreadedExecutor

        self._rclpy = rclpy
        self.timeout, self.period = timeout, period
        self.context = rclpy.Context()
        rclpy.init(context=self.context, domain_id=domain_id)
        self.executor = SingleThreadedExecutor(context=self.context)
        self.nodes = []

    def add(self, node):
        self.nodes.append(node)
        self.executor.add_node(node)
        return node

    def spin_until(self, cond, timeout=None) -> bool:
        import time

        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        while time.monotonic() < deadline:
            self.executor.spin_once(timeout_sec=self.period)
            if cond():
                return True
        return False

    def close(self):
        for node in reversed(self.nodes):
            if hasattr(node, "close"):
                node.close()
            self.executor.remove_node(node)
            node.destroy_node()
        self.executor.shutdown()
        self._rclpy.shutdown(context=self.context)
