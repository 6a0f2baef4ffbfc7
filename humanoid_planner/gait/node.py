"""Optimal gait generator node (`gait_generator`), a thin adapter over `humanoid_planner.gait`.

Parameters (the gait data of issue 4; defaults = the BIP cyclic step, 003_chesse.md:637-649)
    params (string, "thesis"): parameter set, "thesis" (Table III-3) or "urdf" (HuMAnS data)
    phase (string, "walk"): start | cyclic | stop | walk | ds | ss, solved by ~/generate
    step_length (double, 0.5) [m]: LPAS, toe to toe
    t_ds (double, 0.17) [s], t_ss (double, 0.5) [s]: phase durations
    enforce_contacts (bool, true): friction cones and rear-toe unilaterality also as NLP
        constraints (false: checked a posteriori only, as the thesis)

Services
    ~/generate   std_srvs/Trigger: solves with the current parameters; success + a summary message,
                 or failure with the reason (the node stays up)
    ~/plan_walk  nav_msgs/GetPlan: goal distance d = goal.x - start.x [m]; a walk from rest to
                 rest (start, n cyclic steps, pre-stop DS, stop) whose feet advance (n + 1) step
                 lengths, n = round(d / step) - 1 >= 1, within the request's tolerance (default
                 half a step); the periodic cyclic step is solved once and repeated.  The Path
                 holds the base (pelvis) poses.  GetPlan has no success field: a failure returns an
                 empty Path, the reason goes to the log and /diagnostics
Topics
    publishes ~/trajectory (trajectory_msgs/JointTrajectory, BIP URDF joint names),
              /diagnostics (diagnostic_msgs/DiagnosticArray: energies, residuals, status)
"""
from __future__ import annotations

import sys

from builtin_interfaces.msg import Duration
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import PoseStamped
from nav_msgs.msg import Path
from nav_msgs.srv import GetPlan
from rclpy.node import Node
from std_srvs.srv import Trigger
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint

from humanoid_model.exceptions import HumanoidStackError, PlanningError

NODE_NAME = "gait_generator"
# longest walk of ~/plan_walk in cyclic steps (chosen; repeated cyclic steps reuse one solution)
MAX_CYCLIC = 50


class GaitGeneratorNode(Node):
    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.declare_parameter("params", "thesis")
        self.declare_parameter("phase", "walk")
        self.declare_parameter("step_length", 0.5)
        self.declare_parameter("t_ds", 0.17)
        self.declare_parameter("t_ss", 0.5)
        self.declare_parameter("enforce_contacts", True)
        self.traj_pub = self.create_publisher(JointTrajectory, "~/trajectory", 1)
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.create_service(Trigger, "~/generate", self._on_generate)
        self.create_service(GetPlan, "~/plan_walk", self._on_plan_walk)
        self.last = None

    # ----------------------------------------------------------------------------------------
    def _param(self, name):
        return self.get_parameter(name).value

    def _solve(self, phase, step_length):
        from humanoid_planner.gait.walk import gait_json, make_problem, solve_walk
        pb = make_problem(self._param("params"), step_length, self._param("t_ds"),
                          self._param("t_ss"), enforce_contacts=bool(self._param("enforce_contacts")))
        sols = solve_walk(pb, phase, progress=lambda m: self.get_logger().info(m))
        data = gait_json(pb, sols)
        bad = [s.phase.name for s in sols if not s.success]
        if bad:
            raise PlanningError(f"gait: the solver did not converge for phase(s) {bad}")
        return pb, sols, data

    def _publish(self, data):
        msg = JointTrajectory()
        msg.header.stamp = self.get_clock().now().to_msg()
        msg.joint_names = list(data["joint_names"])
        tr = data["trajectory"]
        for t, pos in zip(tr["t"], tr["joint_positions"]):
            pt = JointTrajectoryPoint()
            pt.positions = [float(x) for x in pos]
            sec = int(t)
            pt.time_from_start = Duration(sec=sec, nanosec=int(round((t - sec) * 1e9)))
            msg.points.append(pt)
        self.traj_pub.publish(msg)

    def _diagnose(self, level, message, data=None):
        st = DiagnosticStatus(level=level, name=f"{NODE_NAME}: optimal gait", message=message,
                              hardware_id="bip")
        if data is not None:
            st.values.append(KeyValue(key="total_energy_J", value=f"{data['total_energy']:.3f}"))
            for ph in data["phases"]:
                st.values.append(KeyValue(key=f"{ph['name']}.energy_J", value=f"{ph['energy']:.3f}"))
                st.values.append(KeyValue(key=f"{ph['name']}.closure_residual_mm",
                                          value=f"{1e3 * ph['closure_residual_max']:.4f}"))
                st.values.append(KeyValue(key=f"{ph['name']}.mean_power_W",
                                          value=f"{ph['checks']['mean_power']:.1f}"))
        arr = DiagnosticArray()
        arr.header.stamp = self.get_clock().now().to_msg()
        arr.status.append(st)
        self.diag_pub.publish(arr)

    # ----------------------------------------------------------------------------------------
    def _on_generate(self, request, response):
        try:
            _, _, data = self._solve(str(self._param("phase")), float(self._param("step_length")))
        except HumanoidStackError as exc:
            self.get_logger().error(str(exc))
            self._diagnose(DiagnosticStatus.ERROR, str(exc))
            response.success = False
            response.message = str(exc)
            return response
        except Exception as exc:  # noqa: BLE001 - the node must stay up
            self.get_logger().error(f"gait generation failed: {exc!r}")
            self._diagnose(DiagnosticStatus.ERROR, repr(exc))
            response.success = False
            response.message = f"internal error: {exc!r}"
            return response
        self.last = data
        self._publish(data)
        self._diagnose(DiagnosticStatus.OK, "solved", data)
        response.success = True
        response.message = (f"{len(data['phases'])} phase(s), total energy "
                            f"{data['total_energy']:.1f} J")
        return response

    def _on_plan_walk(self, request, response):
        dist = request.goal.pose.position.x - request.start.pose.position.x
        try:
            from humanoid_planner.gait.walk import gait_json, make_problem, solve_walk_cyclic
            step = float(self._param("step_length"))
            tol = request.tolerance if request.tolerance > 0 else step / 2
            n_cyclic = int(round(dist / step)) - 1
            achieved = (n_cyclic + 1) * step
            if n_cyclic < 1 or n_cyclic > MAX_CYCLIC or abs(achieved - dist) > tol:
                raise PlanningError(
                    f"plan_walk: field 'goal.pose.position.x' gives a distance of {dist:.3f} m; a "
                    f"walk from rest to rest with n >= 1 cyclic steps of {step} m covers "
                    f"(n + 1) x {step} m (at most {(MAX_CYCLIC + 1) * step:.1f} m), tolerance "
                    f"{tol:.3f} m")
            pb = make_problem(self._param("params"), step, self._param("t_ds"),
                              self._param("t_ss"),
                              enforce_contacts=bool(self._param("enforce_contacts")))
            sols = solve_walk_cyclic(pb, n_cyclic, progress=lambda m: self.get_logger().info(m))
            bad = sorted({s.phase.name for s in sols if not s.success})
            if bad:
                raise PlanningError(f"plan_walk: the solver did not converge for phase(s) {bad}")
            data = gait_json(pb, sols)
            data["distance"] = achieved
        except HumanoidStackError as exc:
            self.get_logger().error(str(exc))
            self._diagnose(DiagnosticStatus.ERROR, str(exc))
            response.plan = Path()
            response.plan.header.frame_id = request.goal.header.frame_id or "odom"
            return response
        except Exception as exc:  # noqa: BLE001
            self.get_logger().error(f"plan_walk failed: {exc!r}")
            self._diagnose(DiagnosticStatus.ERROR, repr(exc))
            response.plan = Path()
            return response
        self.last = data
        self._publish(data)
        self._diagnose(DiagnosticStatus.OK, f"walk of {data['distance']:.3f} m planned "
                                            f"(goal {dist:.3f} m)", data)
        path = Path()
        path.header.frame_id = request.goal.header.frame_id or "odom"
        x0 = request.start.pose.position.x
        for b in data["trajectory"]["base_pose"]:
            ps = PoseStamped()
            ps.header.frame_id = path.header.frame_id
            ps.pose.position.x = float(b[0] + x0)
            ps.pose.position.y = float(b[1] + request.start.pose.position.y)
            ps.pose.position.z = float(b[2])
            ps.pose.orientation.x, ps.pose.orientation.y = float(b[3]), float(b[4])
            ps.pose.orientation.z, ps.pose.orientation.w = float(b[5]), float(b[6])
            path.poses.append(ps)
        response.plan = path
        return response


def main(args=None) -> int:
    """Entry point of the `gait_generator` executable."""
    from humanoid_model.node import run_node

    return run_node(GaitGeneratorNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
