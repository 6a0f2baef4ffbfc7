"""Optimal gait generator node (`gait_generator`), a thin adapter over `humanoid_planner.gait`.

Parameters: `PARAMETERS` below (docs/ros.md, "gait_generator"); all dynamic, read by each
request (defaults = the BIP cyclic step, Chessé 2002, §III.3.2.8).

Actions
    ~/generate   humanoid_stack_interfaces/GenerateGait: with `distance` > 0 a walk from rest to
                 rest (`humanoid_planner.gait.phase_sequence.plan_walk`: start, n cyclic steps,
                 pre-stop DS, stop) whose feet advance (n + 1) step lengths, n = round(d / step) - 1
                 >= 1, within `tolerance` (0: half a step); else the goal's `phase` (empty: the
                 parameter `phase`) with the current parameters. The solve runs in a worker thread
                 (the node keeps answering; one at a time, a second goal is refused as busy);
                 feedback names the stage. The result: success, a summary or the reason, the joint
                 trajectory, the pelvis as a MultiDOFJointTrajectory (x shifted by `start_x`), the
                 feet's contact schedule and the energy (`humanoid_ros.gait_messages`). A failure
                 aborts with the reason, also on the log and /diagnostics; the node stays up.
Topics
    publishes ~/trajectory (trajectory_msgs/JointTrajectory, BIP URDF joint names),
              /diagnostics (diagnostic_msgs/DiagnosticArray: energies, residuals, status)
"""

from __future__ import annotations

import math
import sys
import threading

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from humanoid_stack_interfaces.action import GenerateGait
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from humanoid_model.exceptions import HumanoidStackError
from humanoid_planner.gait.phase_sequence import PHASE_CHOICES
from humanoid_ros.common import ThreadWork, destroy_actions, diagnostic_array, duration, run_node
from humanoid_ros.parameters import Parameter, ParameterTable

NODE_NAME = "gait_generator"

PARAMETERS = ParameterTable(
    NODE_NAME,
    [
        Parameter(
            "params",
            "string",
            "thesis",
            "BIP parameter set: `thesis` (Table III-3) or `urdf` (HuMAnS data); an unknown set fails the "
            "request with the reason",
            dynamic=True,
        ),
        Parameter(
            "phase",
            "string",
            "walk",
            "what `~/generate` solves: one phase or the whole walk (`docs/gait.md`)",
            choices=PHASE_CHOICES,
            dynamic=True,
        ),
        Parameter(
            "step_length",
            "double",
            0.5,
            "LPAS, toe to toe (the thesis's cyclic step, Chessé 2002, §III.3.2.8)",
            unit="m",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "t_ds",
            "double",
            0.17,
            "double-support duration (the cyclic step's, Chessé 2002, §III.3.2.8)",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "t_ss",
            "double",
            0.5,
            "single-support duration (the cyclic step's, Chessé 2002, §III.3.2.8)",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "enforce_contacts",
            "bool",
            True,
            "friction cones and rear-toe unilaterality also as NLP constraints (false: checked a "
            "posteriori only, as the thesis)",
            dynamic=True,
        ),
    ],
)
"""The gait generator's parameters (docs/ros.md, "gait_generator")."""


class GaitGeneratorNode(Node):
    """The gait generator node (see the module docstring); `last` is the latest gait data."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.p = PARAMETERS.declare(self)
        self.add_on_set_parameters_callback(PARAMETERS.on_set_parameters(lambda: self.p, self.p.update))
        self.traj_pub = self.create_publisher(JointTrajectory, "~/trajectory", 1)
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.work = ThreadWork(self, "gait-generator")
        self._busy = threading.Lock()
        self.generate_action = ActionServer(
            self,
            GenerateGait,
            "~/generate",
            execute_callback=self._on_generate,
            goal_callback=lambda goal: GoalResponse.ACCEPT,
            cancel_callback=lambda handle: CancelResponse.REJECT,  # a solve runs to its end
            callback_group=ReentrantCallbackGroup(),
        )
        self.robot = None  # BIP, loaded with the first goal (the contact schedule's kinematics)
        self.last = None

    # ----------------------------------------------------------------------------------------
    def destroy_node(self):
        destroy_actions(self)
        return super().destroy_node()

    def _settings(self) -> dict:
        """Problem settings of `make_problem` / `plan_walk` from the current parameters."""
        p = self.p
        return dict(
            params=p["params"],
            step_length=p["step_length"],
            t_ds=p["t_ds"],
            t_ss=p["t_ss"],
            enforce_contacts=p["enforce_contacts"],
        )

    def _progress(self, line: str) -> None:
        self.get_logger().info(line)

    def _solve(self, phase):
        from humanoid_planner.gait.phase_sequence import generate_gait

        return generate_gait(phase, progress=self._progress, **self._settings())

    def _publish(self, data):
        msg = JointTrajectory()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.joint_names = list(data["joint_names"])
        tr = data["trajectory"]
        for t, pos in zip(tr["t"], tr["joint_positions"]):
            pt = JointTrajectoryPoint()
            pt.positions = [float(x) for x in pos]
            pt.time_from_start = duration(t)
            msg.points.append(pt)
        self.traj_pub.publish(msg)

    def _diagnose(self, level, message, data=None):
        values = {}
        if data is not None:
            values["total_energy_J"] = f"{data['total_energy']:.3f}"
            for ph in data["phases"]:
                values[f"{ph['name']}.energy_J"] = f"{ph['energy']:.3f}"
                values[f"{ph['name']}.closure_residual_mm"] = f"{1e3 * ph['closure_residual_max']:.4f}"
                values[f"{ph['name']}.mean_power_W"] = f"{ph['checks']['mean_power']:.1f}"
        stamp = self.get_clock().now().to_msg()
        name = f"{NODE_NAME}: optimal gait"
        self.diag_pub.publish(diagnostic_array(stamp, name, level, message, hardware_id="bip", values=values))

    def _fail(self, exc: Exception, what: str) -> str:
        """Log and diagnose a failed request; the reason for the response."""
        if isinstance(exc, HumanoidStackError):
            self.get_logger().error(str(exc))
            self._diagnose(DiagnosticStatus.ERROR, str(exc))
            return str(exc)
        self.get_logger().error(f"{what} failed: {exc!r}")
        self._diagnose(DiagnosticStatus.ERROR, repr(exc))
        return f"internal error: {exc!r}"

    # ----------------------------------------------------------------------------------------
    def _gait(self, phase: str, distance: float, tolerance: float):
        """The gait data of a goal (runs in the worker thread)."""
        from humanoid_model.robot import load_robot
        from humanoid_planner.gait.phase_sequence import generate_gait, plan_walk

        if self.robot is None:
            self.robot = load_robot("bip")
        if distance > 0:
            tol = tolerance if tolerance > 0 else None
            return plan_walk(distance, tol, progress=self._progress, field="distance", **self._settings())
        return generate_gait(phase, progress=self._progress, **self._settings())

    async def _on_generate(self, handle):
        from humanoid_ros.gait_messages import gait_result

        goal = handle.request
        if not self._busy.acquire(blocking=False):
            return self._refuse(handle, "busy: a gait is already being generated; request refused")
        try:
            phase = goal.phase or self.p["phase"]
            numbers = {"distance": goal.distance, "tolerance": goal.tolerance, "start_x": goal.start_x}
            bad = [f"field '{k}' must be finite; value {v}" for k, v in numbers.items() if not math.isfinite(v)]
            if bad:
                return self._refuse(handle, bad[0])
            if goal.distance > 0 and goal.phase not in ("", "walk"):
                return self._refuse(
                    handle, f"a distance walks: field 'phase' must be '' or 'walk'; value {goal.phase!r}"
                )
            handle.publish_feedback(GenerateGait.Feedback(stage=f"solving {'walk' if goal.distance > 0 else phase}"))
            try:
                data = await self.work.run(self._gait, phase, float(goal.distance), float(goal.tolerance))
            except Exception as exc:  # noqa: BLE001 - the node must stay up
                return self._refuse(handle, self._fail(exc, "gait generation"))
        finally:
            self._busy.release()
        self.last = data
        self._publish(data)
        text = f"{len(data['phases'])} phase(s), total energy {data['total_energy']:.1f} J"
        if goal.distance > 0:
            text = f"walk of {data['distance']:.3f} m (goal {goal.distance:.3f} m): " + text
        self._diagnose(DiagnosticStatus.OK, text, data)
        stamp = self.get_clock().now().to_msg()
        result = gait_result(data, self.robot, goal.frame_id or "odom", stamp, float(goal.start_x), text)
        handle.succeed()
        return result

    def _refuse(self, handle, text: str) -> GenerateGait.Result:
        self.get_logger().error(text)
        self._diagnose(DiagnosticStatus.ERROR, text)
        handle.abort()
        return GenerateGait.Result(success=False, message=text)


def main(args=None) -> int:
    """Entry point of the `gait_generator` executable (`ros2 run humanoid_stack gait_generator`)."""
    return run_node(GaitGeneratorNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
