"""The whole-body controller's tasks (`humanoid_control.wbc.base.Task`): one module each.

- `com.ComTask`: the centre of mass;
- `frame.FrameTask`: a frame's placement (a swing foot, a hand, the base's orientation);
- `posture.PostureTask`: the actuated joints.
"""

from humanoid_control.wbc.tasks.com import ComTask
from humanoid_control.wbc.tasks.frame import FrameTask
from humanoid_control.wbc.tasks.posture import PostureTask

__all__ = ["ComTask", "FrameTask", "PostureTask", "TASKS"]

TASKS = {"com": ComTask, "frame": FrameTask, "posture": PostureTask}
