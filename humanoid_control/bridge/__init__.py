"""The robot bridge's library, ROS-free: validation of a joint trajectory before it is
sent to a real robot's controller, the execution monitor, the execution state machine and the plan
files it reads.

    from humanoid_control.bridge import BridgeSettings, JointLimits, load_plan, validate
    limits = JointLimits.from_robot(robot)
    traj, notes = load_plan("GAIT.json", robot)
    report = validate(traj, limits, current={...}, settings=BridgeSettings(policy="retime"))
    print(report.summary())  # report.trajectory: what to send

    executor = BridgeExecutor(limits, outputs, clock=now)   # submit / tick / stop (docs/bridge.md)

Modules: `trajectory` (`Trajectory`, `sample`), `limits` (`JointLimits`), `settings`
(`BridgeSettings`), `checks` (every check) with `bounds` (extremes along the interpolation),
`retime`, `collision` (self-collision), `validate`, `report` (`Refusal`, `ValidationReport`),
`monitor` (`ExecutionMonitor`), `executor` (`BridgeExecutor`, `ExecutorSettings`,
`BridgeOutputs`), `ticker` (`Ticker`: the control loop and watchdog in a thread of its own),
`plan_files` (`load_plan`). The checks, their defaults and the numbers chosen:
docs/bridge.md. The node is `humanoid_ros.robot_bridge` (docs/real_robot.md).
"""

from humanoid_control.bridge.executor import (
    STATE_TIMEOUT,
    BridgeExecutor,
    BridgeOutputs,
    Execution,
    ExecutorSettings,
    report_values,
)
from humanoid_control.bridge.limits import A_MAX_DEFAULT, JointLimits
from humanoid_control.bridge.monitor import GOAL_TIME, GOAL_TOLERANCE, PATH_TOLERANCE, ExecutionMonitor, MonitorStatus
from humanoid_control.bridge.plan_files import load_plan, plan_trajectory, read_plan
from humanoid_control.bridge.report import Refusal, ValidationReport
from humanoid_control.bridge.settings import BridgeSettings
from humanoid_control.bridge.ticker import Ticker
from humanoid_control.bridge.trajectory import Trajectory, sample
from humanoid_control.bridge.validate import validate
from humanoid_control.exceptions import BridgeError

__all__ = [
    "Trajectory",
    "JointLimits",
    "BridgeSettings",
    "Refusal",
    "ValidationReport",
    "validate",
    "sample",
    "ExecutionMonitor",
    "MonitorStatus",
    "load_plan",
    "read_plan",
    "plan_trajectory",
    "BridgeExecutor",
    "BridgeOutputs",
    "Execution",
    "ExecutorSettings",
    "report_values",
    "Ticker",
    "BridgeError",
    "A_MAX_DEFAULT",
    "PATH_TOLERANCE",
    "GOAL_TOLERANCE",
    "GOAL_TIME",
    "STATE_TIMEOUT",
]
