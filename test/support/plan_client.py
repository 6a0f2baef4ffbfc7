"""A client of the contact planner's ~/plan action (humanoid_stack_interfaces/PlanContacts) with the
shape of a service client: ``send(goal)`` returns a request whose ``done()`` and ``result()`` (the
action's result) a test spins on. Not a test module."""

from humanoid_stack_interfaces.action import PlanContacts
from rclpy.action import ActionClient

PLAN = "/contact_planner/plan"


def goal(x=None, y=0.0, frame="", tolerance=0.0):
    """A PlanContacts goal: goal point (x, y) in ``frame`` (x None: the problem's own goal)."""
    g = PlanContacts.Goal()
    if x is not None:
        g.goal.pose.position.x, g.goal.pose.position.y = float(x), float(y)
    g.goal.header.frame_id = frame
    g.goal_tolerance = float(tolerance)
    return g


class PlanRequest:
    def __init__(self, sent):
        self.sent, self.result_future, self.feedback = sent, None, []
        sent.add_done_callback(self._accepted)

    def _accepted(self, future):
        self.result_future = future.result().get_result_async()

    def done(self) -> bool:
        return self.result_future is not None and self.result_future.done()

    def status(self) -> int:
        return self.result_future.result().status

    def result(self):
        return self.result_future.result().result


class PlanClient:
    def __init__(self, node, name: str = PLAN):
        self.client = ActionClient(node, PlanContacts, name)

    def ready(self) -> bool:
        return self.client.server_is_ready()

    def send(self, g) -> PlanRequest:
        request = None

        def keep(msg):
            request.feedback.append(msg.feedback)

        request = PlanRequest(self.client.send_goal_async(g, feedback_callback=keep))
        return request
