"""Optimal gait generator node (`gait_generator`), a thin adapter over `humanoid_planner.gait`.

Parameters: `PARAMETERS` below (docs/ros.md, "gait_generator"); all dynamic, read by each
request (defaults = the BIP cyclic step, Chessé 2002, §III.3.2.8).

Services
    ~/generate   std_srvs/Trigger: solves `phase` with the current parameters; success + a summary
                 message, or failure with the reason (the node stays up)
    ~/plan_walk  nav_msgs/GetPlan: goal distance d = goal.x - start.x [m]; a walk from rest to
                 rest (`humanoid_planner.gait.phase_sequence.plan_walk`: start, n cyclic steps, pre-stop DS,
                 stop) whose feet advance (n + 1) step lengths, n = round(d / step) - 1 >= 1, within
                 the request's tolerance (default half a step).  The Path holds the base (pelvis)
                 poses.  GetPlan has no success field: a failure returns an empty Path, the reason
                 goes to the log and /diagnostics
Topics
    publishes ~/trajectory (trajectory_msgs/JointTrajectory, BIP URDF joint names),
              /diagnostics (diagnostic_msgs/DiagnosticArray: energies, residuals, status)
"""

from __future__ import annotations

import sys

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
from nav_msgs.srv import GetPlan
from rclpy.node import Node
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from humanoid_model.exceptions import HumanoidStackError
from humanoid_planner.gait.phase_sequence import PHASE_CHOICES
from humanoid_ros.common import diagnostic_array, duration, run_node
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
        self.create_service(Trigger, "~/generate", self._on_generate)
        self.create_service(GetPlan, "~/plan_walk", self._on_plan_walk)
        self.last = None

    # ----------------------------------------------------------------------------------------
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
    def _on_generate(self, request, response):
        try:
            data = self._solve(self.p["phase"])
        except Exception as exc:  # noqa: BLE001 - the node must stay up
            response.success, response.message = False, self._fail(exc, "gait generation")
            return response
        self.last = data
        self._publish(data)
        self._diagnose(DiagnosticStatus.OK, "solved", data)
        response.success = True
        response.message = f"{len(data['phases'])} phase(s), total energy {data['total_energy']:.1f} J"
        return response

    def _on_plan_walk(self, request, response):
        from humanoid_planner.gait.phase_sequence import plan_walk

        start, goal = request.start.pose.position, request.goal.pose.position
        frame = request.goal.header.frame_id or "odom"
        dist = goal.x - start.x
        try:
            data = plan_walk(
                dist,
                request.tolerance if request.tolerance > 0 else None,
                progress=self._progress,
                field="goal.pose.position.x",
                **self._settings(),
            )
        except Exception as exc:  # noqa: BLE001 - the node must stay up
            self._fail(exc, "plan_walk")
            response.plan = Path()
            response.plan.header.frame_id = frame
            return response
        self.last = data
        self._publish(data)
        self._diagnose(DiagnosticStatus.OK, f"walk of {data['distance']:.3f} m planned (goal {dist:.3f} m)", data)
        path = Path()
        path.header.frame_id = frame
        for b in data["trajectory"]["base_pose"]:
            ps = PoseStamped()
            ps.header.frame_id = frame
            ps.pose.position.x = float(b[0] + start.x)
            ps.pose.position.y = float(b[1] + start.y)
            ps.pose.position.z = float(b[2])
            ps.pose.orientation.x, ps.pose.orientation.y = float(b[3]), float(b[4])
            ps.pose.orientation.z, ps.pose.orientation.w = float(b[5]), float(b[6])
            path.poses.append(ps)
        response.plan = path
        return response


def main(args=None) -> int:
    """Entry point of the `gait_generator` executable (`ros2 run humanoid_stack gait_generator`)."""
    return run_node(GaitGeneratorNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
