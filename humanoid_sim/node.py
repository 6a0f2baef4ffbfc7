"""Simulator node (`simulator`): `humanoid_sim.World` as a ROS 2 node, answering to ros2_control's
controller topics (issue 3, "The simulator node"; ARCHITECTURE.md "ROS 2 interfaces").

    humanoid-stack up sim                         # config/sim.yaml
    ros2 launch humanoid_stack sim.launch.py
    ros2 run humanoid_stack simulator --ros-args -p scene:=flat -p real_time_factor:=0.0

Parameters (static unless marked *dynamic*; units in brackets)
    robot (string, ""): robot name or URDF path; "" = the scene's robot (a robot is required).
    scene (string, "flat"): shipped scene name or scene file (docs/scenes.md).
    dt (double, 0.001) [s]: time step in (0, 0.1] (the thesis's 1 ms, ../shared/spec/000_chardonnet.md:402).
    solver (string, "nsgs_newton"): contact solver (`humanoid_sim.solvers`).
    solver_tolerance (double, 1e-6): true-residual thresholds of convergence, complementarity
        max |f_n v_n| [N·m/s] and penetration max(−v_n) [m/s] (SolverSettings; the B4 bounds,
        ../shared/spec/000_chardonnet.md:1016-1017).
    solver_max_iterations (int, 500): sweep budget; a solve that hits it is reported in
        /diagnostics and the step continues with the best iterate.
    real_time_factor (double, 1.0, *dynamic*): pacing, 1.0 = wall clock, 0 = as fast as possible.
    publish_rate (double, 50.0) [Hz of simulated time]: /clock, /joint_states, /odom, /tf, F/T, /imu.
    contacts_rate (double, 10.0) [Hz of simulated time]: /contacts.
    diagnostics_period (double, 1.0) [s wall clock]: /diagnostics.
    controller (string, "joint_trajectory_controller", *dynamic*): which command topic drives the
        joints: joint_trajectory_controller, forward_position_controller or
        forward_effort_controller. Commands on the other topics are logged and ignored.
    gravity_compensation (bool, false): add the gravity torques as PD feedforward.
    gains.groups (string array), gains.kp (double array) [N·m/rad], gains.kv (double array)
        [N·m·s/rad]: PD gains per joint group, a group being a joint-name prefix (e.g. "RLEG");
        later groups win. Unlisted joints keep the default gains (`humanoid_sim.actuators`).
    external_wrench_duration (double, 0.1, *dynamic*) [s]: how long a ~/external_wrench acts.
    push.link (string, ""), push.force (double[3]) [N], push.torque (double[3]) [N·m],
        push.start (double) [s], push.duration (double, 0.1) [s], push.period (double, 0) [s]:
        a scripted push (world-frame wrench at the link origin), repeated every period if > 0.
    contact_force_scale (double, 0.003) [m/N]: length of the force arrows and friction cones
        (`humanoid_sim.markers.FORCE_SCALE`).

Topics
    publishes  /clock (rosgraph_msgs/Clock), /joint_states, /odom (odom -> root link, twist in the
               root link frame), /robot_description (transient local), /tf and /tf_static (when
               tf2_msgs imports), /contacts (MarkerArray: ns "points", "forces", "cones"),
               /<sensor>/wrench (WrenchStamped per F/T sensor, in the sensor frame), /imu,
               /diagnostics (step time, real-time factor, solver iterations, residuals,
               penetration, rejected commands)
    subscribes /joint_trajectory_controller/joint_trajectory (JointTrajectory, ros2_control
               semantics: `humanoid_sim.commands`), /forward_position_controller/commands,
               /forward_effort_controller/commands (Float64MultiArray, all joints in /joint_states
               order), ~/external_wrench (WrenchStamped: frame_id = link, world-frame wrench at
               the link origin, for external_wrench_duration)
Services   ~/reset (Trigger: rebuild the world at t = 0), ~/pause (SetBool), ~/step (Trigger: one
           step while paused)

The world steps in a dedicated thread (paced to real_time_factor), so the executor is never
starved; callbacks and the thread share the world under one lock. A rejected command is logged
and counted in /diagnostics and the previous command continues; an exception inside a step
pauses the simulation and is reported as ERROR in /diagnostics. This is the only module of
`humanoid_sim` that imports rclpy; command checks are in `humanoid_sim.commands`, marker
geometry in `humanoid_sim.markers`.
"""
from __future__ import annotations

import sys
import threading
import time

import numpy as np
from builtin_interfaces.msg import Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import Point, WrenchStamped
from nav_msgs.msg import Odometry
from rcl_interfaces.msg import ParameterDescriptor, SetParametersResult
from rclpy.node import Node
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy
from rosgraph_msgs.msg import Clock
from sensor_msgs.msg import Imu, JointState
from std_msgs.msg import ColorRGBA, Float64MultiArray, String
from std_srvs.srv import SetBool, Trigger
from trajectory_msgs.msg import JointTrajectory
from visualization_msgs.msg import Marker, MarkerArray

from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_model.node import TFMessage, transform_stamped_list  # TFMessage is None without tf2_msgs
from humanoid_sim.markers import FORCE_SCALE

NODE_NAME = "simulator"
CONTROLLERS = ("joint_trajectory_controller", "forward_position_controller", "forward_effort_controller")
MAX_DT = 0.1   # [s] largest step accepted, as `humanoid-stack simulate --dt` (chosen: 100x the thesis's 1 ms)
TOPICS = {"joint_trajectory_controller": "/joint_trajectory_controller/joint_trajectory",
          "forward_position_controller": "/forward_position_controller/commands",
          "forward_effort_controller": "/forward_effort_controller/commands"}
LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
CATCH_UP = 0.25   # [s] wall: a paced run further behind than this drops the backlog (chosen)
DYNAMIC = ("controller", "real_time_factor", "external_wrench_duration")


def _stamp(t: float) -> Time:
    sec = int(np.floor(t))
    return Time(sec=sec, nanosec=min(int(round((t - sec) * 1e9)), 999_999_999))


def _seconds(stamp) -> float:
    return float(stamp.sec) + 1e-9 * float(stamp.nanosec)


class SimulatorNode(Node):
    """The simulator node (see the module docstring). `self.world` is the `humanoid_sim.World`."""

    def __init__(self, **kwargs):
        super().__init__(NODE_NAME, **kwargs)
        self._declare_parameters()
        from humanoid_model.scene import load_scene  # heavy imports after rclpy set-up

        self.scene = load_scene(self.p["scene"])
        robot_name = self.p["robot"] or (str(self.scene.robot.urdf_path) if self.scene.robot else "")
        if not robot_name:
            raise ConfigError(f"node '{NODE_NAME}': scene '{self.p['scene']}' has no robot and parameter "
                              "robot is empty; the simulator node needs a robot")
        from humanoid_model.robot import load_robot

        self.robot = load_robot(robot_name)
        self._lock = threading.RLock()
        self._stop = threading.Event()
        self._wake = threading.Event()
        self._warned = set()
        self.rejected = 0
        self.last_rejection = ""
        self._build_world()
        # One throw-away step compiles the numba kernels (or loads them from the on-disk cache)
        # inside the constructor, before the node spins: a fresh cache costs seconds of compilation
        # that would otherwise stall the first paced steps (and a short `up --duration` run).
        self.world.step()
        self._build_world()

        from humanoid_model.tf_tree import KinematicTree, description_with_uris

        self.tree = KinematicTree(self.robot.model)
        self.description_pub = self.create_publisher(String, "/robot_description", LATCHED)
        self.description_pub.publish(String(data=description_with_uris(self.robot.urdf_text)))
        self.clock_pub = self.create_publisher(Clock, "/clock", 10)
        self.joint_pub = self.create_publisher(JointState, "/joint_states", 10)
        self.odom_pub = self.create_publisher(Odometry, "/odom", 10)
        self.contacts_pub = self.create_publisher(MarkerArray, "/contacts", 10)
        self.imu_pub = self.create_publisher(Imu, "/imu", 10)
        self.diag_pub = self.create_publisher(DiagnosticArray, "/diagnostics", 10)
        self.ft_pubs = {name: self.create_publisher(WrenchStamped, f"/{name}/wrench", 10)
                        for name in self.sensors.ft}
        self.tf_pub = None
        if TFMessage is not None:
            self.tf_pub = self.create_publisher(TFMessage, "/tf", 10)
            static = self.create_publisher(TFMessage, "/tf_static", LATCHED)
            static.publish(TFMessage(transforms=self._tf_msgs(self.tree.static_transforms(), 0.0)))

        self.create_subscription(JointTrajectory, TOPICS["joint_trajectory_controller"], self._on_trajectory, 10)
        self.create_subscription(Float64MultiArray, TOPICS["forward_position_controller"], self._on_position, 10)
        self.create_subscription(Float64MultiArray, TOPICS["forward_effort_controller"], self._on_effort, 10)
        self.create_subscription(WrenchStamped, "~/external_wrench", self._on_external_wrench, 10)
        self.create_service(Trigger, "~/reset", self._on_reset)
        self.create_service(SetBool, "~/pause", self._on_pause)
        self.create_service(Trigger, "~/step", self._on_step)
        self.add_on_set_parameters_callback(self._on_set_parameters)

        self.paused = False
        self.error = ""
        self._thread = threading.Thread(target=self._run, name="simulator-step", daemon=True)
        self._thread.start()
        self.get_logger().info(
            f"robot '{self.robot.name}' on scene '{self.scene.name}', dt {self.world.dt * 1e3:g} ms, solver "
            f"{self.world.solver.name}, controller {self.p['controller']}, real-time factor "
            f"{self.p['real_time_factor']:g}, publishing /robot_description")

    # ------------------------------------------------------------------ parameters
    def _declare_parameters(self):
        def dyn(name, default, text):
            d = ParameterDescriptor(description=text, dynamic_typing=True)
            return self.declare_parameter(name, default, d).value

        p = {}
        p["robot"] = str(dyn("robot", "", "robot name or URDF path ('' = the scene's robot)"))
        p["scene"] = str(dyn("scene", "flat", "scene name or file"))
        p["solver"] = str(dyn("solver", "nsgs_newton", "contact solver"))
        p["controller"] = str(dyn("controller", CONTROLLERS[0], "active command topic"))
        p["push.link"] = str(dyn("push.link", "", "scripted push: link ('' = none)"))
        for name, default in (("dt", 1e-3), ("solver_tolerance", 1e-6), ("real_time_factor", 1.0),
                              ("publish_rate", 50.0), ("contacts_rate", 10.0), ("diagnostics_period", 1.0),
                              ("external_wrench_duration", 0.1), ("push.start", 1.0), ("push.duration", 0.1),
                              ("push.period", 0.0), ("contact_force_scale", FORCE_SCALE)):
            p[name] = self._number(name, dyn(name, default, name))
        p["solver_max_iterations"] = int(self._number("solver_max_iterations",
                                                      dyn("solver_max_iterations", 500, "sweep budget")))
        p["gravity_compensation"] = bool(dyn("gravity_compensation", False, "gravity feedforward"))
        for name in ("push.force", "push.torque"):
            p[name] = self._vector(name, dyn(name, [0.0, 0.0, 0.0], name), 3)
        groups = dyn("gains.groups", None, "PD gain groups (joint-name prefixes)")
        p["gains.groups"] = [str(g) for g in (groups or [])]
        for name in ("gains.kp", "gains.kv"):
            p[name] = self._vector(name, dyn(name, None, name) or [], len(p["gains.groups"]))
        positive = ("dt", "solver_tolerance", "publish_rate", "contacts_rate", "diagnostics_period",
                    "external_wrench_duration", "push.duration", "contact_force_scale")
        for name in positive:
            if not p[name] > 0:
                raise ConfigError(f"node '{NODE_NAME}': parameter {name} must be > 0; value {p[name]}")
        for name in ("real_time_factor", "push.start", "push.period"):
            if not p[name] >= 0:
                raise ConfigError(f"node '{NODE_NAME}': parameter {name} must be >= 0; value {p[name]}")
        if p["dt"] > MAX_DT:
            raise ConfigError(f"node '{NODE_NAME}': parameter dt must be in (0, {MAX_DT:g}] s; value {p['dt']}")
        if not p["solver"].strip():
            raise ConfigError(f"node '{NODE_NAME}': parameter solver must name a solver; value {p['solver']!r}")
        if p["solver_max_iterations"] < 1:
            raise ConfigError(f"node '{NODE_NAME}': parameter solver_max_iterations must be >= 1; "
                              f"value {p['solver_max_iterations']}")
        if p["controller"] not in CONTROLLERS:
            raise ConfigError(f"node '{NODE_NAME}': parameter controller must be one of {', '.join(CONTROLLERS)}; "
                              f"value {p['controller']!r}")
        if any(v < 0 for v in list(p["gains.kp"]) + list(p["gains.kv"])):
            raise ConfigError(f"node '{NODE_NAME}': parameters gains.kp/gains.kv must be >= 0")
        self.p = p

    @staticmethod
    def _number(name, value):
        try:
            out = float(value)
        except (TypeError, ValueError):
            raise ConfigError(f"node '{NODE_NAME}': parameter {name} must be a number; value {value!r}") from None
        if not np.isfinite(out):
            raise ConfigError(f"node '{NODE_NAME}': parameter {name} must be finite; value {value!r}")
        return out

    @staticmethod
    def _vector(name, value, n):
        try:
            out = np.asarray(list(value), dtype=float)
        except (TypeError, ValueError):
            raise ConfigError(f"node '{NODE_NAME}': parameter {name} must be a list of numbers; "
                              f"value {value!r}") from None
        if out.shape != (n,) or not np.all(np.isfinite(out)):
            raise ConfigError(f"node '{NODE_NAME}': parameter {name} must be {n} finite numbers; "
                              f"value {list(value)!r}")
        return out

    def _on_set_parameters(self, params):
        updates = {}
        for prm in params:
            if prm.name not in DYNAMIC:
                return SetParametersResult(successful=False, reason=f"parameter {prm.name} is read at start "
                                           f"only (dynamic: {', '.join(DYNAMIC)}); restart the node")
            if prm.name == "controller":
                if prm.value not in CONTROLLERS:
                    return SetParametersResult(successful=False,
                                               reason=f"controller must be one of {', '.join(CONTROLLERS)}")
                updates["controller"] = str(prm.value)
            else:
                try:
                    val = self._number(prm.name, prm.value)
                except ConfigError as exc:
                    return SetParametersResult(successful=False, reason=str(exc))
                if val < 0 or (prm.name == "external_wrench_duration" and val == 0):
                    return SetParametersResult(successful=False, reason=f"{prm.name} out of range: {val}")
                updates[prm.name] = val
        with self._lock:
            self.p.update(updates)
            self._pace_anchor = None
        for name, val in updates.items():
            self.get_logger().info(f"parameter {name} = {val}")
        return SetParametersResult(successful=True)

    # ------------------------------------------------------------------ world
    def _build_world(self):
        """(Re)build the world at t = 0 (start and ~/reset)."""
        from humanoid_sim.sensors import Sensors
        from humanoid_sim.solvers import SolverSettings
        from humanoid_sim.world import World

        p = self.p
        tol = p["solver_tolerance"]
        settings = SolverSettings(max_iterations=p["solver_max_iterations"], tol_complementarity=tol,
                                  tol_penetration=tol)
        world = World(self.scene, self.robot, solver=p["solver"], dt=p["dt"], solver_settings=settings,
                      gravity_compensation=p["gravity_compensation"])
        act = world.actuator
        for prefix, kp, kv in zip(p["gains.groups"], p["gains.kp"], p["gains.kv"]):
            sel = [i for i, n in enumerate(act.names) if n.startswith(prefix)]
            if not sel:
                raise ConfigError(f"node '{NODE_NAME}': parameter gains.groups: group {prefix!r} matches no "
                                  f"joint of robot '{self.robot.name}'")
            act.kp[sel], act.kv[sel] = kp, kv
        self.world = world
        self.sensors = Sensors(world)
        self._wrench_end = {}            # link -> simulated time [s] when its wrench stops
        self._next_push = p["push.start"] if p["push.link"] else np.inf
        if p["push.link"] and self.robot.model.getFrameId(p["push.link"]) >= len(world.model.frames):
            raise ConfigError(f"node '{NODE_NAME}': parameter push.link: robot '{self.robot.name}' has no "
                              f"link {p['push.link']!r}")
        self._steps = 0
        self._pace_anchor = None
        self._diag_anchor = (time.monotonic(), 0.0, 0)
        self._min_gap = 0.0
        self._unconverged_seen = 0
        self.error = ""

    def _step_once(self):
        """One world step (caller holds the lock): wrench expiry, scripted push, step."""
        w, p = self.world, self.p
        if w.t >= self._next_push - 0.5 * w.dt:
            w.apply_wrench(p["push.link"], p["push.force"], p["push.torque"])
            self._wrench_end[p["push.link"]] = self._next_push + p["push.duration"]
            self._next_push = self._next_push + p["push.period"] if p["push.period"] > 0 else np.inf
        for link, end in list(self._wrench_end.items()):
            if w.t >= end - 0.5 * w.dt:
                w.user_wrenches.pop(link, None)
                del self._wrench_end[link]
        w.step()
        self._steps += 1
        b = w.last["batch"]
        if b.m:
            self._min_gap = min(self._min_gap, float(b.gaps.min()))

    def _run(self):
        """Stepping thread: step, publish at the publish rates, pace to real_time_factor. Any
        exception (a step, a sensor, a publisher) pauses the simulation and is reported; the
        thread itself never dies while the node lives."""
        while not self._stop.is_set():
            try:
                self._cycle()
            except Exception as exc:  # noqa: BLE001 - reported in /diagnostics, node keeps running
                if self._stop.is_set():
                    break
                with self._lock:
                    self.paused = True
                    self.error = f"step at t = {self.world.t:.4f} s failed: {type(exc).__name__}: {exc}"
                self.get_logger().error(self.error + "; simulation paused (call ~/reset)")

    def _cycle(self):
        if self.paused:
            self._pace_anchor = None
            self._wake.wait(0.05)
            self._wake.clear()
            self._maybe_diagnostics()
            return
        with self._lock:
            if self.paused:          # paused while this thread waited for the lock
                return
            self._step_once()
            t, rtf = self.world.t, self.p["real_time_factor"]
            state, contacts = self._snapshots()
        self._send(t, state, contacts)
        self._maybe_diagnostics()
        if rtf > 0:
            now = time.monotonic()
            if self._pace_anchor is None:
                self._pace_anchor = (now, t)
            target = self._pace_anchor[0] + (t - self._pace_anchor[1]) / rtf
            if target - now > 1e-3:
                self._stop.wait(target - now)
            elif now - target > CATCH_UP:
                self._pace_anchor = (now, t)

    def _every(self, rate):
        return max(1, int(round(1.0 / (rate * self.world.dt))))

    def _snapshots(self, force=False):
        """(state, contact markers) due at this step, or None each (caller holds the lock)."""
        k = self._steps
        if self.world.steps == 0:
            return None, None
        state = self._snapshot() if force or k % self._every(self.p["publish_rate"]) == 0 else None
        contacts = (self._contact_snapshot() if force or k % self._every(self.p["contacts_rate"]) == 0
                    else None)
        return state, contacts

    def _send(self, t, state, contacts):
        if state is not None:
            self._publish_state(t, *state)
        if contacts is not None:
            self._publish_contacts(t, contacts)

    # ------------------------------------------------------------------ outputs
    def _snapshot(self):
        w = self.world
        st = w.state
        ft = self.sensors.force_torque() if self.sensors.ft else {}
        imu = self.sensors.imu()
        return st, ft, imu, w.v[:6].copy()

    def _contact_snapshot(self):
        from humanoid_sim.markers import contact_markers

        w = self.world
        last = w.last
        if last is None or last["batch"].m == 0:
            return contact_markers(np.zeros((0, 3)), np.zeros((0, 3, 3)), np.zeros((0, 3)), np.zeros(0))
        return contact_markers(last["batch"].points, last["frames"], last["forces"], last["batch"].mu,
                               force_scale=self.p["contact_force_scale"])

    def _publish_state(self, t, st, ft, imu, base_v):
        stamp = _stamp(t)
        self.clock_pub.publish(Clock(clock=stamp))
        js = JointState()
        js.header.stamp = stamp
        js.name = list(st.joint_names)
        js.position = st.joint_positions.tolist()
        js.velocity = st.joint_velocities.tolist()
        js.effort = np.asarray(st.joint_torques, float).tolist()
        self.joint_pub.publish(js)
        base = st.bodies[self.robot.name]
        od = Odometry()
        od.header.stamp = stamp
        od.header.frame_id = self.tree.odom_frame
        od.child_frame_id = self.tree.root_link
        pp, o = od.pose.pose.position, od.pose.pose.orientation
        pp.x, pp.y, pp.z = map(float, base.position)
        o.x, o.y, o.z, o.w = map(float, base.quaternion)
        lin, ang = od.twist.twist.linear, od.twist.twist.angular
        lin.x, lin.y, lin.z = map(float, base_v[:3])      # free-flyer velocity: root link frame
        ang.x, ang.y, ang.z = map(float, base_v[3:])
        self.odom_pub.publish(od)
        if self.tf_pub is not None:
            q = st.q[:self.robot.model.nq]
            self.tf_pub.publish(TFMessage(transforms=self._tf_msgs(self.tree.moving_transforms(q), t)))
        for name, (force, torque) in ft.items():
            msg = WrenchStamped()
            msg.header.stamp = stamp
            msg.header.frame_id = self.world.model.frames[self.sensors.ft[name][0]].name
            msg.wrench.force.x, msg.wrench.force.y, msg.wrench.force.z = map(float, force)
            msg.wrench.torque.x, msg.wrench.torque.y, msg.wrench.torque.z = map(float, torque)
            self.ft_pubs[name].publish(msg)
        if imu is not None:
            msg = Imu()
            msg.header.stamp = stamp
            msg.header.frame_id = self.world.model.frames[self.sensors.imu_frame].name
            o = msg.orientation
            o.x, o.y, o.z, o.w = map(float, imu["orientation"])
            a, g = msg.angular_velocity, msg.linear_acceleration
            a.x, a.y, a.z = map(float, imu["angular_velocity"])
            g.x, g.y, g.z = map(float, imu["linear_acceleration"])
            self.imu_pub.publish(msg)

    def _tf_msgs(self, transforms, t):
        return transform_stamped_list(transforms, _stamp(t))

    def _publish_contacts(self, t, cm):
        stamp = _stamp(t)
        frame = self.tree.odom_frame

        def marker(ns, mid, mtype, points, scale, rgba):
            m = Marker()
            m.header.stamp = stamp
            m.header.frame_id = frame
            m.ns, m.id, m.type, m.action = ns, mid, mtype, Marker.ADD
            m.pose.orientation.w = 1.0
            m.scale.x, m.scale.y, m.scale.z = scale
            m.color = ColorRGBA(r=rgba[0], g=rgba[1], b=rgba[2], a=rgba[3])
            m.points = [Point(x=float(x), y=float(y), z=float(z)) for x, y, z in points]
            return m

        arr = MarkerArray()
        clear = Marker()
        clear.action = Marker.DELETEALL
        arr.markers.append(clear)
        if len(cm.points):
            arr.markers.append(marker("points", 0, Marker.SPHERE_LIST, cm.points, (0.015, 0.015, 0.015),
                                      (1.0, 0.9, 0.1, 1.0)))
        for i, seg in enumerate(cm.arrows):
            arr.markers.append(marker("forces", i, Marker.ARROW, seg, (0.01, 0.02, 0.0), (0.9, 0.1, 0.1, 1.0)))
        if len(cm.cones):
            arr.markers.append(marker("cones", 0, Marker.TRIANGLE_LIST, cm.cones, (1.0, 1.0, 1.0),
                                      (0.2, 0.5, 1.0, 0.4)))
        self.contacts_pub.publish(arr)

    def _maybe_diagnostics(self, force=False):
        now = time.monotonic()
        wall0, t0, steps0 = self._diag_anchor
        if not force and now - wall0 < self.p["diagnostics_period"]:
            return
        with self._lock:
            w = self.world
            n = len(w.step_times)
            times = np.array(w.step_times) if n else np.zeros(1)
            iters = np.array(w.stats_iterations) if n else np.zeros(1)
            del w.step_times[:], w.stats_iterations[:]       # bounded memory over long runs
            res = dict(w.max_residuals)
            w.max_residuals = {}
            unconverged = w.unconverged - self._unconverged_seen
            self._unconverged_seen = w.unconverged
            penetration = max(0.0, -self._min_gap)
            self._min_gap = 0.0
            m = w.last["batch"].m if w.last is not None else 0
            t = w.t
            self._diag_anchor = (now, t, self._steps)
        rtf = (t - t0) / max(now - wall0, 1e-9)
        status = DiagnosticStatus(name=f"{NODE_NAME}: physics", hardware_id=self.robot.name)
        if self.error:
            status.level, status.message = DiagnosticStatus.ERROR, self.error
        elif unconverged:
            status.level = DiagnosticStatus.WARN
            status.message = (f"{unconverged} of {n} contact solves did not converge within "
                              f"{self.p['solver_max_iterations']} iterations; the steps used the best iterate")
        else:
            status.level, status.message = DiagnosticStatus.OK, "paused" if self.paused else "running"
        values = {
            "sim_time_s": f"{t:.6f}", "steps": str(n), "paused": str(self.paused).lower(),
            "step_time_median_ms": f"{np.median(times) * 1e3:.4f}",
            "step_time_max_ms": f"{np.max(times) * 1e3:.4f}",
            "real_time_factor": f"{rtf:.3f}", "real_time_factor_target": f"{self.p['real_time_factor']:g}",
            "solver": w.solver.name, "solver_iterations_mean": f"{np.mean(iters):.2f}",
            "solver_iterations_max": str(int(np.max(iters))), "unconverged_solves": str(unconverged),
            "unconverged_solves_total": str(w.unconverged),
            "penetration_max_m": f"{penetration:.3e}", "contacts": str(m),
            "controller": self.p["controller"], "rejected_commands": str(self.rejected),
            "last_rejection": self.last_rejection,
        }
        for key in ("complementarity", "penetration", "cone", "natural_map"):
            values[f"residual_{key}"] = f"{res.get(key, 0.0):.3e}"
        status.values = [KeyValue(key=k, value=v) for k, v in values.items()]
        arr = DiagnosticArray(status=[status])
        arr.header.stamp = _stamp(t)
        self.diag_pub.publish(arr)

    # ------------------------------------------------------------------ inputs
    def _reject(self, exc):
        self.rejected += 1
        self.last_rejection = str(exc)
        self.get_logger().warning(f"command rejected, the previous command continues: {exc}")

    def _active(self, controller):
        if self.p["controller"] == controller:
            return True
        key = f"inactive-{controller}"
        if key not in self._warned:
            self._warned.add(key)
            self.get_logger().warning(f"{TOPICS[controller]}: ignored, the active controller is "
                                      f"{self.p['controller']} (parameter controller)")
        return False

    def _on_trajectory(self, msg):
        if not self._active("joint_trajectory_controller"):
            return
        from humanoid_sim.commands import TrajectoryPoint, build_trajectory

        points = [TrajectoryPoint(p.positions, _seconds(p.time_from_start), p.velocities) for p in msg.points]
        r = self.robot
        with self._lock:
            act, w = self.world.actuator, self.world
            current = act.q_d.copy() if act.mode == "pd" else w.q[w.act_q].copy()
            try:
                traj, start = build_trajectory(msg.joint_names, points, r.joint_names, r.q_lower, r.q_upper,
                                               current, _seconds(msg.header.stamp), w.t,
                                               topic=TOPICS["joint_trajectory_controller"])
            except HumanoidStackError as exc:
                return self._reject(exc)
            act.set_trajectory(traj, start)

    def _on_position(self, msg):
        if not self._active("forward_position_controller"):
            return
        from humanoid_sim.commands import check_positions

        r = self.robot
        try:
            q = check_positions(msg.data, r.joint_names, r.q_lower, r.q_upper, TOPICS["forward_position_controller"])
        except HumanoidStackError as exc:
            return self._reject(exc)
        with self._lock:
            self.world.actuator.set_position(q)

    def _on_effort(self, msg):
        if not self._active("forward_effort_controller"):
            return
        from humanoid_sim.commands import check_efforts

        r = self.robot
        try:
            tau = check_efforts(msg.data, r.joint_names, r.effort_max, TOPICS["forward_effort_controller"])
        except HumanoidStackError as exc:
            return self._reject(exc)
        with self._lock:
            self.world.actuator.set_torque(tau)

    def _on_external_wrench(self, msg):
        link = msg.header.frame_id.lstrip("/")
        f, tq = msg.wrench.force, msg.wrench.torque
        force, torque = [f.x, f.y, f.z], [tq.x, tq.y, tq.z]
        topic = self.resolve_topic_name("~/external_wrench")
        with self._lock:
            w = self.world
            try:
                if not link or w.model.getFrameId(link) >= len(w.model.frames):
                    raise ConfigError(f"{topic}: field 'header.frame_id' = {link!r} is not a link of robot "
                                      f"'{self.robot.name}' or a free body of the scene")
                if not np.all(np.isfinite(force + torque)):
                    raise ConfigError(f"{topic}: field 'wrench' has non-finite values {force + torque}")
                w.apply_wrench(link, force, torque)
            except HumanoidStackError as exc:
                return self._reject(exc)
            self._wrench_end[link] = w.t + self.p["external_wrench_duration"]

    def _on_reset(self, request, response):
        with self._lock:
            try:
                self._build_world()
            except HumanoidStackError as exc:
                response.success, response.message = False, str(exc)
                return response
            self.paused = False
        self._wake.set()
        response.success, response.message = True, "world reset to t = 0"
        return response

    def _on_pause(self, request, response):
        with self._lock:
            self.paused = bool(request.data)
            self._pace_anchor = None
        self._wake.set()
        response.success = True
        response.message = "paused" if self.paused else "running"
        return response

    def _on_step(self, request, response):
        with self._lock:
            if not self.paused:
                response.success, response.message = False, "the simulation is running; pause it first (~/pause)"
                return response
            try:
                self._step_once()
                t = self.world.t
                state, contacts = self._snapshots(force=True)
            except Exception as exc:  # noqa: BLE001 - reported, node keeps running
                self.error = f"step failed: {type(exc).__name__}: {exc}"
                response.success, response.message = False, self.error
                return response
        self._send(t, state, contacts)
        response.success, response.message = True, f"t = {t:.6f} s"
        return response

    # ------------------------------------------------------------------ shutdown
    def close(self):
        """Stop the stepping thread (the runner calls this before destroying the node)."""
        # a constructor that raised (bad parameter, scene or robot) leaves a half-built node that
        # rclpy may still destroy at context shutdown: only stop what exists
        for name in ("_stop", "_wake"):
            event = getattr(self, name, None)
            if event is not None:
                event.set()
        thread = getattr(self, "_thread", None)
        if thread is not None and thread.is_alive() and thread is not threading.current_thread():
            thread.join(timeout=5.0)

    def destroy_node(self):
        self.close()
        return super().destroy_node()


def main(args=None) -> int:
    """Entry point of the `simulator` executable (`ros2 run humanoid_stack simulator`)."""
    from humanoid_model.node import run_node

    return run_node(SimulatorNode, NODE_NAME, args)


if __name__ == "__main__":
    sys.exit(main())
