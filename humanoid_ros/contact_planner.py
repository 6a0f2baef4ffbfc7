"""Contact planner node (`contact_planner`), a thin adapter over `humanoid_planner.planning`
(docs/planning.md, docs/ros.md).

    ros2 run humanoid_stack contact_planner --ros-args -p scene:=flat
    .venv/bin/contact_planner --ros-args -p scene:=flat                 # the same on the default install

A plan request is a goal of the ~/plan action; docs/planning.md gives the command lines, with a
system ROS 2 and on the default install.

Parameters: `PARAMETERS` below (docs/ros.md, "contact_planner"); the planning ones are dynamic,
read by each request.

Actions
    ~/plan       humanoid_stack_interfaces/PlanContacts: start = the goal's start pose (a header
                 frame_id given: the scene posture placed at its x, y and heading), else with
                 `start_from` odom the current pose (the latest /odom), with `start_from` state the
                 measured state (the latest /odom pose and /joint_states joints; refused before both
                 arrived), else the scene's; goal = the goal pose's x, y (a zero goal without
                 frame_id: the problem's own), the region's half-width `goal_tolerance` (0: the
                 problem's default); a scene with its own planning section plans its own start and
                 goal (a given start or goal is refused with the reason). Feedback during the
                 search (nodes generated and expanded, best potential, time); a cancel ends the
                 search. The result: `success`, the reason or a summary in `message`, the joint
                 trajectory, the base motion (MultiDOFJointTrajectory of `root_joint`), the stances,
                 the contact schedule, the statistics and the PLAN.json document
                 (`humanoid_ros.plan_messages`). No plan (time limit, empty list, a busy node, bad
                 input) aborts with the reason, also on the log and /diagnostics; the node stays up.
Topics
    publishes ~/stances (visualization_msgs/MarkerArray: per stance its contact frames' axes and
              support polygon, ns "stance_K"), ~/trajectory (trajectory_msgs/JointTrajectory: the
              motion's joints at the control period, for the robot bridge's ~/trajectory or the
              simulator's controller; a motion with segments projected without collision rows only
              with `publish_unclear_motion`), ~/motion (std_msgs/String: the PLAN.json document, for
              the robot bridge's whole-body mode; published with ~/trajectory), ~/base_path
              (nav_msgs/Path: the base along the motion; the JointTrajectory cannot carry it),
              /diagnostics
    subscribes /odom (nav_msgs/Odometry: the current base pose, the start with `start_from` odom or
              state), /joint_states (sensor_msgs/JointState: the measured joints, the start with
              `start_from` state)

Planning runs in a worker thread: the action's execute callback is a coroutine that awaits it, and
the thread wakes the executor through a guard condition when done, so the node keeps answering (its
parameter services, a second ~/plan refused as busy) while it plans, even on a single-threaded
executor. The thread waits on a child process that plans (`plan_in_process`, the default), so that
the search does not share the interpreter with the other nodes of an `up` process. The action
has a reentrant callback group of its own: rclpy keeps a callback's group taken until its
coroutine ends, and the default mutually exclusive group would block the rest.
ROS glue only: the problem, the search, the motion and the plan document are
`humanoid_planner.planning`'s; the marker geometry is `humanoid_model.formats.plan`'s.
"""

from __future__ import annotations

import json
import math
import sys
import threading
import time

from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus
from geometry_msgs.msg import Point, PoseStamped
from humanoid_stack_interfaces.action import PlanContacts
from nav_msgs.msg import Odometry, Path
from rclpy.action import ActionServer, CancelResponse, GoalResponse
from rclpy.callback_groups import ReentrantCallbackGroup
from rclpy.node import Node
from sensor_msgs.msg import JointState
from std_msgs.msg import ColorRGBA, String
from trajectory_msgs.msg import JointTrajectory, JointTrajectoryPoint
from visualization_msgs.msg import Marker, MarkerArray

from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_planner.exceptions import PlanningError
from humanoid_ros.common import SENSOR_QOS, ThreadWork, WarnOnce, destroy_actions, diagnostic_array, duration, run_node
from humanoid_ros.parameters import Parameter, ParameterTable
from humanoid_ros.plan_messages import plan_result

__all__ = ["NODE_NAME", "PARAMETERS", "ContactPlannerNode", "main"]

NODE_NAME = "contact_planner"
AXIS_COLORS = ((0.9, 0.1, 0.1), (0.1, 0.8, 0.1), (0.1, 0.3, 0.95))  # d_E, b_E, n_E (display, chosen)
POLYGON_COLOR = (1.0, 0.75, 0.0)
LINE_WIDTH = 0.01  # [m] marker line width (display, chosen)
PROGRESS_PERIOD = 2.0  # [s] (chosen) a progress log line at most this often during a plan
START_POLL = 0.5  # [s] (chosen) how often `plan_on_start` looks whether the start it needs has arrived

PARAMETERS = ParameterTable(
    NODE_NAME,
    [
        Parameter(
            "scene",
            "string",
            "flat",
            "scene name (`config/scenes/NAME.yaml`) or YAML file with a planning problem "
            "(`humanoid_planner.planning.PROBLEMS`: flat); loaded at start, an unknown one stops the start",
            non_empty=True,
        ),
        Parameter("robot", "string", "", 'robot name or URDF; `""`: the scene\'s robot, else hrp2'),
        Parameter(
            "algorithm",
            "string",
            "",
            "search: Contacts-VBFP or best-first; `\"\"`: the problem's (the scene's planning section, else vbfp)",
            choices=("", "vbfp", "bfp"),
            dynamic=True,
        ),
        Parameter(
            "time_limit",
            "double",
            60.0,
            "search time limit (chosen: a minute per service call; the CLI's default is 120 s)",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter("seed", "int", 0, "random seed of the candidates", minimum=0, dynamic=True),
        Parameter(
            "interpolation_steps",
            "int",
            20,
            "posture-generator projections per transition, k (the thesis's k_i = 20, Escande 2008, §7.3.3)",
            minimum=1,
            dynamic=True,
        ),
        Parameter(
            "motion_collision",
            "bool",
            True,
            "the motion's projections keep the robot clear of the obstacles and of itself (false: the thesis's "
            'projections, faster, may touch between the witnesses; docs/planning.md, "Motion")',
            dynamic=True,
        ),
        Parameter(
            "publish_unclear_motion",
            "bool",
            False,
            "publish on ~/trajectory a motion with segments projected without collision rows (they may pass "
            "through an obstacle or the robot; false: the plan, its stances and base path only, and a warning)",
            dynamic=True,
        ),
        Parameter(
            "joint_speed",
            "double",
            10.0,
            "joint-speed cap of the motion (the thesis's 10 deg/s, Escande 2008, §7.1.2)",
            unit="deg/s",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "base_speed",
            "double",
            0.1,
            "base-speed cap of the motion (chosen, docs/planning.md)",
            unit="m/s",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "base_rotation_speed",
            "double",
            10.0,
            "base-rotation-speed cap of the motion (chosen, docs/planning.md)",
            unit="deg/s",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "dt",
            "double",
            0.005,
            "trajectory period (HRP-2's control period, [HRP2-T1]; Chardonnet 2009, §5.2.3)",
            unit="s",
            minimum=0.0,
            exclusive_minimum=True,
            dynamic=True,
        ),
        Parameter(
            "time_optimal",
            "bool",
            False,
            "retime each plan's motion along its path as fast as each stance's contacts carry it (TOPP-RA under "
            'the contact wrench cones; docs/planning.md, "Time-optimal motion"); a plan it cannot retime keeps '
            "its quasi-static motion, with a warning",
            dynamic=True,
        ),
        Parameter(
            "plan_in_process",
            "bool",
            True,
            "plan in a child process of its own (`humanoid_planner.planning.process`: the node's process, which "
            "`humanoid-stack up` shares with the simulator, keeps its interpreter; 2-5 s to start the child); "
            "false: in a thread of the node's process",
            dynamic=True,
        ),
        Parameter("frame_id", "string", "odom", "frame of the paths and markers (the stack's world)", non_empty=True),
        Parameter(
            "plan_on_start",
            "bool",
            False,
            "plan the scene's own problem once at start, as a ~/plan request with no goal (with `start_from` "
            "state or odom: once /odom and /joint_states have arrived); the demo does",
        ),
        Parameter(
            "start_from",
            "string",
            "scene",
            "start of a request without a start pose: the scene's posture (`scene`), that posture at the "
            "latest /odom base pose (`odom`: x, y and heading), or the measured state (`state`: the latest "
            "/odom pose and /joint_states joints, clipped to their limits; a request before both arrived is "
            "refused); walk problems only, docs/planning.md",
            choices=("scene", "odom", "state"),
            dynamic=True,
        ),
        Parameter(
            "output",
            "string",
            "",
            'write each plan to this PLAN.json (`""`: none; written atomically), e.g. for the robot bridge\'s '
            "~/execute_file; read at start only (chosen: a read-only parameter, so that no other DDS participant "
            "can make the node overwrite a file of its user's)",
        ),
    ],
)
"""The contact planner's parameters (docs/ros.md, "contact_planner")."""


class ContactPlannerNode(Node):
    """The contact planner node (module docstring). ``last`` is the latest plan document (dict),
    ``busy`` whether a plan is running."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self.p = PARAMETERS.declare(self)
        self.add_on_set_parameters_callback(PARAMETERS.on_set_parameters(lambda: self.p, self.p.update))
        from humanoid_model.robot import load_robot
        from humanoid_model.scene import load_scene
        from humanoid_planner.planning import problem_for

        self.scene = load_scene(self.p["scene"])
        name = self.p["robot"] or (self.scene.robot.name if self.scene.robot is not None else "hrp2")
        self.robot_name = name  # as `load_robot` takes it (a name or a URDF)
        self.robot = load_robot(name)
        try:
            problem_for(self.scene, self.robot)  # the scene has a problem for this robot
        except HumanoidStackError as exc:
            raise ConfigError(f"node '{NODE_NAME}': parameter scene: {exc}") from None
        self.last = None
        self.odom_pose = None  # (position (3,), quaternion (x, y, z, w)) of the latest /odom
        self.joints: dict[str, float] = {}  # the latest /joint_states positions of the robot's joints
        self.warn_once = WarnOnce(self.get_logger())
        self._busy = threading.Lock()
        self.work = ThreadWork(self, "contact-planner")
        self.markers_pub = self.create_publisher(MarkerArray, "~/stances", 1)
        self.traj_pub = self.create_publisher(JointTrajectory, "~/trajectory", 1)
        self.motion_pub = self.create_publisher(String, "~/motion", 1)
        self.base_pub = self.create_publisher(Path, "~/base_path", 1)
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.create_subscription(Odometry, "odom", self._on_odom, SENSOR_QOS)
        self.create_subscription(JointState, "joint_states", self._on_joint_states, SENSOR_QOS)
        # its own reentrant group: the default (mutually exclusive) group would stay taken while the
        # action's coroutine awaits the plan, blocking every other callback of the node
        self.plan_action = ActionServer(
            self,
            PlanContacts,
            "~/plan",
            execute_callback=self._on_plan_goal,
            goal_callback=lambda goal: GoalResponse.ACCEPT,
            cancel_callback=lambda handle: CancelResponse.ACCEPT,
            callback_group=ReentrantCallbackGroup(),
        )
        self._start_timer = None
        if self.p["plan_on_start"]:
            self._start_timer = self.create_timer(
                START_POLL, self._plan_on_start, callback_group=ReentrantCallbackGroup()
            )

    def destroy_node(self):
        destroy_actions(self)
        return super().destroy_node()

    @property
    def busy(self) -> bool:
        return self._busy.locked()

    @property
    def odom(self):
        """(x, y, yaw) of the latest /odom, None before one."""
        if self.odom_pose is None:
            return None
        (x, y, _), quat = self.odom_pose
        return x, y, _yaw(*quat)

    # ------------------------------------------------------------------ inputs
    def _on_odom(self, msg):
        p, o = msg.pose.pose.position, msg.pose.pose.orientation
        self.odom_pose = ((p.x, p.y, p.z), (o.x, o.y, o.z, o.w))

    def _on_joint_states(self, msg):
        from humanoid_planner.planning import robot_joints

        kept, unknown = robot_joints(self.robot, msg.name, msg.position)
        self.joints.update(kept)
        if unknown:
            self.warn_once("/joint_states unknown names", f"/joint_states: {unknown} (logged once)")

    def _start_q(self, start):
        """The start configuration of a request (module docstring), None for the scene's."""
        from humanoid_planner.planning import check_frame, measured, placed, request_pose
        from humanoid_planner.planning.problem import scene_start_q

        if start.header.frame_id:
            check_frame(start.header.frame_id, self.p["frame_id"], "~/plan start")
            p, o = start.pose.position, start.pose.orientation
            pose = request_pose((p.x, p.y, p.z), (o.x, o.y, o.z, o.w), "~/plan start")
        elif self.p["start_from"] == "state":
            missing = [t for t, got in (("/odom", self.odom_pose), ("/joint_states", self.joints)) if not got]
            if missing:
                raise PlanningError(f"start_from state: no {' or '.join(missing)} received yet; request refused")
            return measured(scene_start_q(self.scene, self.robot), self.robot, *self.odom_pose, self.joints)
        elif self.p["start_from"] == "odom" and self.odom_pose is not None:
            pose = request_pose(*self.odom_pose, "/odom")
        else:
            return None
        return placed(scene_start_q(self.scene, self.robot), *pose)

    # ------------------------------------------------------------------ planning (worker thread)
    def _plan(self, goal, start_q, radius, handle=None):
        """The plan document of one request (runs in the worker thread); ``handle``: the action goal
        that gets the search's progress as feedback, and whose cancel ends the search."""
        from humanoid_model.formats.plan import write_plan
        from humanoid_planner.motion import MotionSettings
        from humanoid_planner.planning.process import PlanRequest, plan_in_process, plan_request

        p = dict(self.p)
        motion = MotionSettings(
            steps=p["interpolation_steps"],
            dt=p["dt"],
            joint_speed=math.radians(p["joint_speed"]),
            base_speed=p["base_speed"],
            base_rotation_speed=math.radians(p["base_rotation_speed"]),
            collision=p["motion_collision"],
        )
        last = [0.0]

        def progress(pr):
            if handle is not None:
                if handle.is_cancel_requested:
                    raise PlanningError("cancelled by the client during the search")
                handle.publish_feedback(
                    PlanContacts.Feedback(
                        stage="search",
                        generated_nodes=pr.generated,
                        expanded_nodes=pr.expanded,
                        best_potential=float(pr.best),
                        elapsed=float(pr.elapsed),
                    )
                )
            if pr.elapsed - last[0] >= PROGRESS_PERIOD:
                last[0] = pr.elapsed
                self.get_logger().info(
                    f"planning: {pr.generated} nodes generated, {pr.expanded} expanded, "
                    f"best potential {pr.best:.4g}, {pr.elapsed:.1f} s"
                )

        request = PlanRequest(
            scene=p["scene"],
            robot=self.robot_name,
            goal=goal,
            start_q=start_q,
            goal_radius=radius,
            overrides={"algorithm": p["algorithm"] or None, "time_limit": p["time_limit"], "seed": p["seed"]},
            motion=motion,
        )
        if p["plan_in_process"]:
            doc = plan_in_process(request, progress)
        else:  # the node's scene and robot, loaded at start
            doc = plan_request(request, progress, self.scene, self.robot)
        if p["time_optimal"] and doc.get("success"):
            doc = self._time_optimal(doc, p["interpolation_steps"])
        if p["output"]:
            write_plan(p["output"], doc)
        return doc

    def _time_optimal(self, doc: dict, knots: int) -> dict:
        """The plan retimed (`humanoid_planner.motion.contact_topp`), or as it is with a warning."""
        from humanoid_planner.motion.contact_topp import ToppSettings, retime_plan

        try:
            r = retime_plan(doc, self.robot, self.scene, ToppSettings(knots=knots))
        except PlanningError as exc:
            self.get_logger().warning(f"no time-optimal motion (the quasi-static one kept): {exc}")
            return doc
        for line in r.lines():
            self.get_logger().info(line)
        return r.doc

    async def _plan_on_start(self):
        """`plan_on_start`: the scene's problem once, when the start it needs is known."""
        if self._start_timer is None:
            return
        if self.p["start_from"] in ("state", "odom") and (self.odom_pose is None or not self.joints):
            return
        self._start_timer.cancel()
        self._start_timer = None
        self.get_logger().info(
            f"planning scene '{self.scene.name}' at start (plan_on_start), from the {self.p['start_from']}"
        )
        await self._run_plan(PoseStamped(), PoseStamped(), 0.0)

    # ------------------------------------------------------------------ action
    async def _on_plan_goal(self, handle):
        """~/plan (PlanContacts): plan, then succeed with the plan, or abort with the reason."""
        result = await self._run_plan(handle.request.start, handle.request.goal, handle.request.goal_tolerance, handle)
        if result.success:
            handle.succeed()
        elif handle.is_cancel_requested:
            handle.canceled()
        else:
            handle.abort()
        return result

    async def _run_plan(self, start, goal_pose, tolerance, handle=None) -> PlanContacts.Result:
        frame = self.p["frame_id"]
        if not self._busy.acquire(blocking=False):
            return self._refuse(DiagnosticStatus.WARN, "busy: a plan is already running; request refused")
        try:
            from humanoid_planner.planning import check_frame

            g = goal_pose.pose.position
            goal = (g.x, g.y) if goal_pose.header.frame_id or (g.x, g.y) != (0.0, 0.0) else None
            radius = float(tolerance) if tolerance > 0 else None
            try:
                if not math.isfinite(float(tolerance)):
                    raise PlanningError(f"~/plan: field 'goal_tolerance' must be finite; value {tolerance}")
                check_frame(goal_pose.header.frame_id, frame, "~/plan goal")
                start_q = self._start_q(start)
            except HumanoidStackError as exc:
                return self._refuse(DiagnosticStatus.ERROR, str(exc))
            t0 = time.monotonic()
            try:
                doc = await self.work.run(self._plan, goal, start_q, radius, handle)
            except Exception as exc:  # noqa: BLE001 - the node must stay up
                text = str(exc) if isinstance(exc, HumanoidStackError) else f"internal error: {exc!r}"
                return self._refuse(DiagnosticStatus.ERROR, text)
        finally:
            self._busy.release()
        self.last = doc
        st = doc["stats"]
        values = {
            "nodes_generated": st["nodes_generated"],
            "nodes_expanded": st["nodes_expanded"],
            "stances": len(doc["stances"]),
            "pg_calls": st["pg_calls"]["calls"],
            "time_s": f"{time.monotonic() - t0:.3f}",
        }
        stamp = self.get_clock().now().to_msg()
        if not doc["success"]:
            text = f"no plan: {doc['reason']}"
            self._report(DiagnosticStatus.WARN, text, values)
            return plan_result(doc, frame, stamp, self.robot.contact_locations, text)
        m = doc["trajectory"]
        unclear = m["unclear_segments"]
        motion = not unclear or self.p["publish_unclear_motion"]
        self._publish(doc, frame, motion)
        text = f"plan: {len(doc['stances'])} stances, motion {m['t'][-1]:.2f} s"
        if unclear:
            text += f"; segments {unclear} projected without collision rows (may touch)"
            text += "" if motion else ": not published on ~/trajectory (parameter publish_unclear_motion)"
        self._report(DiagnosticStatus.WARN if unclear else DiagnosticStatus.OK, text, values)
        return plan_result(doc, frame, stamp, self.robot.contact_locations, text)

    def _refuse(self, level, text) -> PlanContacts.Result:
        """A request that gives no plan: reported (log, /diagnostics) and answered with the reason."""
        self._report(level, text)
        return PlanContacts.Result(success=False, message=text)

    # ------------------------------------------------------------------ outputs
    def _report(self, level, text, values=None):
        log = self.get_logger()  # one call site per severity: rclpy refuses a site changing it
        if level == DiagnosticStatus.OK:
            log.info(text)
        elif level == DiagnosticStatus.WARN:
            log.warning(text)
        else:
            log.error(text)
        stamp = self.get_clock().now().to_msg()
        self.diag_pub.publish(
            diagnostic_array(stamp, f"{NODE_NAME}: plan", level, text, hardware_id=self.robot.name, values=values)
        )

    def _pose(self, row, frame) -> PoseStamped:
        ps = PoseStamped()
        ps.header.frame_id = frame
        ps.pose.position.x, ps.pose.position.y, ps.pose.position.z = (float(v) for v in row[:3])
        o = ps.pose.orientation
        o.x, o.y, o.z, o.w = (float(v) for v in row[3:7])
        return ps

    def _publish(self, doc, frame, motion: bool = True):
        """The stances' markers and the base path; the motion on ~/trajectory when ``motion``."""
        from humanoid_model.formats.plan import parse_contact_plan

        plan = parse_contact_plan(doc, NODE_NAME, ConfigError)
        now = self.get_clock().now().to_msg()
        arr = MarkerArray(markers=[Marker(action=Marker.DELETEALL)])
        for k, s in enumerate(plan.stances):
            arr.markers += _stance_markers(s, f"stance_{k}", frame, now)
        self.markers_pub.publish(arr)
        traj = JointTrajectory(joint_names=list(plan.joint_names))
        traj.header.stamp = now
        for t, q in zip(plan.trajectory_t, plan.trajectory_q):
            traj.points.append(JointTrajectoryPoint(positions=[float(v) for v in q[7:]], time_from_start=duration(t)))
        if motion:
            self.traj_pub.publish(traj)
            self.motion_pub.publish(String(data=json.dumps(doc, separators=(",", ":"))))
        path = Path()
        path.header.frame_id, path.header.stamp = frame, now
        path.poses = [self._pose(q, frame) for q in plan.trajectory_q]
        self.base_pub.publish(path)


def _yaw(x, y, z, w) -> float:
    """Heading [rad] of a quaternion (x, y, z, w) about the world z axis."""
    return math.atan2(2.0 * (w * z + x * y), 1.0 - 2.0 * (y * y + z * z))


def _points(rows):
    return [Point(x=float(a), y=float(b), z=float(c)) for a, b, c in rows]


def _stance_markers(stance, ns, frame, now) -> list:
    """LINE_LIST of the contact frames' axes (id 0) and LINE_STRIP of the support polygon (id 1)."""
    axes = Marker(ns=ns, id=0, type=Marker.LINE_LIST, action=Marker.ADD)
    axes.header.frame_id, axes.header.stamp = frame, now
    axes.scale.x = LINE_WIDTH
    axes.pose.orientation.w = 1.0
    seg = stance.frame_segments()
    axes.points = _points(seg.reshape(-1, 3))
    axes.colors = [
        ColorRGBA(r=c[0], g=c[1], b=c[2], a=1.0) for _ in range(len(seg) // 3) for c in AXIS_COLORS for _ in (0, 1)
    ]
    axes.color = ColorRGBA(r=1.0, g=1.0, b=1.0, a=1.0)
    out = [axes]
    loop = stance.polygon_loop()
    if len(loop):
        poly = Marker(ns=ns, id=1, type=Marker.LINE_STRIP, action=Marker.ADD)
        poly.header.frame_id, poly.header.stamp = frame, now
        poly.scale.x = LINE_WIDTH
        poly.pose.orientation.w = 1.0
        poly.color = ColorRGBA(r=POLYGON_COLOR[0], g=POLYGON_COLOR[1], b=POLYGON_COLOR[2], a=1.0)
        poly.points = _points(loop)
        out.append(poly)
    return out


def main(args=None) -> int:
    """Entry point of the `contact_planner` executable (`ros2 run humanoid_stack contact_planner`)."""
    return run_node(ContactPlannerNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
