"""A simulation session: one `World` built from the simulator node's settings, with what lives as
long as that world (the scripted push, the output schedule, the physics statistics), ROS-free.

    session = SimulationSession.load("flat", "", SessionSettings(dt=1e-3), source="node 'simulator'")
    session.step()                              # the scripted push when due, then World.step
    out = session.outputs()                     # Outputs: t, state (StateOutput) / contacts when due
    session.command_positions(q, topic)         # checked (humanoid_sim.runtime.commands), then applied
    session.reset()                             # the world again at t = 0 (same settings)
    session.haptic_pointer(p, quat); session.haptic_attach("box")   # humanoid_sim.stages.haptics

The simulator node (`humanoid_ros.simulator`) drives a session from its stepping thread
(`humanoid_sim.runtime.realtime.RealTimeStepper`) and turns `Outputs` into messages. A session is not
thread-safe: its user serialises the calls (the stepper's lock).

Outputs are decimated in steps: the state (joints, base, F/T sensors, IMU) every
round(1 / (publish_rate · dt)) steps, the contact markers every round(1 / (contacts_rate · dt))
steps (at least every step), the clock every step (clock_rate 0) or every
round(1 / (clock_rate · dt)) steps, counted from the world's build.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from humanoid_model.display import FORCE_SCALE
from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import message
from humanoid_sim.exceptions import CommandError
from humanoid_sim.runtime.markers import ContactMarkers, sole_triangles, step_contact_markers
from humanoid_sim.state import WorldState

__all__ = ["SessionSettings", "StateOutput", "Outputs", "SimulationSession"]


@dataclass(frozen=True)
class SessionSettings:
    """What a session is built from: the simulator node's start-only parameters, same names with
    "." read as "_" (`from_parameters`; the defaults are the node's, docs/ros.md "simulator").

    solver: `humanoid_sim.solvers` name; dt [s]; solver_tolerance: the complementarity [N·m/s]
    and penetration [m/s] thresholds of `SolverSettings`; solver_max_iterations: its sweep budget;
    solver_time_budget [s]: its wall-clock budget per solve (0 = none);
    gravity_compensation: PD feedforward; gains_groups / gains_kp [N·m/rad] / gains_kv
    [N·m·s/rad]: `humanoid_sim.stages.actuators.apply_gain_groups`; push_*: the scripted push
    (`humanoid_sim.stages.wrenches.PushSchedule`; push_link "" = none), force [N] and torque [N·m] in
    the world frame, start, duration and period [s]; publish_rate and contacts_rate [Hz of
    simulated time]: output decimation; clock_rate [Hz of simulated time]: the clock's, 0 = every
    step; diagnostics_period [s wall clock]; contact_force_scale
    [m/N]: marker length per newton.
    """

    solver: str = "nsgs_newton"
    dt: float = 1e-3
    solver_tolerance: float = 1e-6
    solver_max_iterations: int = 500
    solver_time_budget: float = 0.005
    gravity_compensation: bool = False
    gains_groups: Sequence[str] = ()
    gains_kp: Sequence[float] = ()
    gains_kv: Sequence[float] = ()
    push_link: str = ""
    push_force: Sequence[float] = (0.0, 0.0, 0.0)
    push_torque: Sequence[float] = (0.0, 0.0, 0.0)
    push_start: float = 1.0
    push_duration: float = 0.1
    push_period: float = 0.0
    publish_rate: float = 50.0
    contacts_rate: float = 10.0
    clock_rate: float = 0.0
    diagnostics_period: float = 1.0
    contact_force_scale: float = FORCE_SCALE

    @classmethod
    def from_parameters(cls, values: Mapping) -> SessionSettings:
        """Settings from the node's checked parameter values (``"push.link"`` -> ``push_link``,
        lists as tuples); parameters that are not settings (robot, scene, the dynamic ones) are
        left out."""
        names = {f.name for f in dataclasses.fields(cls)}
        chosen = {k.replace(".", "_"): tuple(v) if isinstance(v, list) else v for k, v in values.items()}
        return cls(**{k: v for k, v in chosen.items() if k in names})


@dataclass(frozen=True)
class StateOutput:
    """The robot's state after a step: ``state`` (`WorldState`, copies), ``base_velocity`` (6,)
    the free-flyer velocity in the root link frame [m/s, rad/s], ``force_torque`` sensor name ->
    (frame name, force (3,) [N], torque (3,) [N·m]) in the sensor frame, ``imu`` the
    `Sensors.imu` reading (None without an IMU) and ``imu_frame`` its frame name;
    ``joint_state`` (names, positions, velocities, efforts): /joint_states, the URDF's joints (a
    robot with ball joints: each ball joint as its URDF triple's three angles, positions only,
    `humanoid_model.spherical_joints`); ``free_bodies`` free body name -> (position (3,) [m],
    quaternion xyzw (4,), twist (6,) [m/s, rad/s] in the body's own frame): /free_bodies."""

    state: WorldState
    base_velocity: np.ndarray
    force_torque: dict
    imu: dict | None
    imu_frame: str | None
    joint_state: tuple = ()
    free_bodies: dict = dataclasses.field(default_factory=dict)


@dataclass(frozen=True)
class Outputs:
    """What is due after a step at simulated time ``t`` [s]: ``state`` and ``contacts``
    (`humanoid_sim.runtime.markers.ContactMarkers`), each None when not due; ``haptic`` (6,) the haptic
    device's rendered wrench [N, N·m] (world frame), due with the state while a body is coupled;
    ``clock``: whether the simulated time is due (`SessionSettings.clock_rate`)."""

    t: float
    state: StateOutput | None = None
    contacts: ContactMarkers | None = None
    haptic: np.ndarray | None = None
    clock: bool = False


@dataclass(frozen=True)
class TrajectoryProgress:
    """Where a joint trajectory started by `SimulationSession.command_trajectory` stands:
    ``elapsed`` [s] since its start (negative before a future start), its ``duration`` [s], the
    ``desired`` and ``actual`` positions [rad] and velocities [rad/s] of ``names``, and ``current``:
    False once another command replaced it."""

    names: list
    elapsed: float
    duration: float
    desired: np.ndarray
    desired_velocity: np.ndarray
    actual: np.ndarray
    actual_velocity: np.ndarray
    current: bool


class SimulationSession:
    """One simulated world and its schedules (module docstring). ``scene``: a loaded
    `humanoid_model.scene.Scene`; ``robot``: a loaded `Robot`; ``source`` names the user in
    errors (e.g. ``"node 'simulator'"``). `world` is the current `World` (a new one after
    `reset`); `steps` counts the steps since it was built."""

    def __init__(self, scene, robot, settings: SessionSettings | None = None, source: str = "simulation"):
        self.scene, self.robot, self.source = scene, robot, source
        self.settings = settings if settings is not None else SessionSettings()
        self.reset()
        # One throw-away step compiles the numba kernels (or loads them from the on-disk cache)
        # here, before any pacing starts: a fresh cache costs seconds of compilation that would
        # otherwise stall the first paced steps (and a short `up --duration` run).
        self.world.step()
        self.reset()

    @classmethod
    def load(cls, scene: str, robot: str = "", settings: SessionSettings | None = None, source: str = "simulation"):
        """A session of a shipped scene name or scene file and a robot name or URDF path (""
        = the scene's robot; a robot is required: `ConfigError` naming ``source`` otherwise)."""
        from humanoid_model.robot import load_robot
        from humanoid_model.scene import load_scene

        sc = load_scene(scene)
        name = robot or (str(sc.robot.urdf_path) if sc.robot else "")
        if not name:
            raise ConfigError(
                message(source, "robot", f"a robot name or URDF path (scene {scene!r} has no robot)", robot)
            )
        return cls(sc, load_robot(name), settings, source)

    # ------------------------------------------------------------------ world
    def reset(self):
        """(Re)build the world at t = 0: initial posture, default command, no wrenches; the push
        schedule, the step count and the statistics start again. A bad setting (unknown solver,
        gain group or push link) raises `ConfigError` and leaves the session as it was."""
        from humanoid_sim.runtime.diagnostics import PhysicsMonitor
        from humanoid_sim.runtime.sensors import Sensors
        from humanoid_sim.solvers import SolverSettings
        from humanoid_sim.stages.actuators import apply_gain_groups
        from humanoid_sim.stages.wrenches import PushSchedule
        from humanoid_sim.world import World

        s, robot = self.settings, self.robot
        tol = s.solver_tolerance
        world = World(
            self.scene,
            robot,
            solver=s.solver,
            dt=s.dt,
            solver_settings=SolverSettings(
                max_iterations=s.solver_max_iterations,
                tol_complementarity=tol,
                tol_penetration=tol,
                time_budget=s.solver_time_budget or None,
            ),
            gravity_compensation=s.gravity_compensation,
        )
        apply_gain_groups(
            world.actuator, s.gains_groups, s.gains_kp, s.gains_kv, source=f"{self.source} (robot '{robot.name}')"
        )
        push = None
        if s.push_link:
            if world.model.getFrameId(s.push_link) >= len(world.model.frames):
                requirement = f"a link of robot '{robot.name}' or a free body of the scene"
                raise ConfigError(message(self.source, "push.link", requirement, s.push_link))
            push = PushSchedule(s.push_link, s.push_force, s.push_torque, s.push_start, s.push_duration, s.push_period)
        sensors = Sensors(world)
        frames = world.model.frames
        self.world, self.sensors, self.push = world, sensors, push
        self._ft_frames = {name: frames[fid].name for name, (fid, _) in sensors.ft.items()}
        self._imu_frame = frames[sensors.imu_frame].name if sensors.imu_frame is not None else None
        self._every_state = _every(s.publish_rate, world.dt)
        self._every_contacts = _every(s.contacts_rate, world.dt)
        self._every_clock = _every(s.clock_rate, world.dt) if s.clock_rate > 0 else 1
        self.steps = 0
        self.monitor = PhysicsMonitor(s.diagnostics_period, s.solver_max_iterations, time.monotonic())
        self.controller = self.measurement = None  # `attach_controller`

    def step(self):
        """One step: the scripted push when due, the attached controller's torques (`attach_controller`),
        then `World.step` (which ends expired wrenches)."""
        w = self.world
        if self.push is not None:
            self.push.apply_due(w)
        ctrl = self.controller
        if ctrl is not None:
            nq, nv = self.robot.model.nq, self.robot.model.nv
            cmd = ctrl.update(w.t, w.q[:nq].copy(), w.v[:nv].copy(), self.measurement.forces)
            w.actuator.set_torque(cmd.tau)
        w.step()
        if ctrl is not None:
            self.measurement.read()
        self.steps += 1

    # ------------------------------------------------------------------ a controller in the loop
    def attach_controller(self, controller, locations: dict):
        """Run ``controller`` every step from the next one, in torque mode: an object with
        ``update(t, q, v, contact_forces) -> command`` (``command.tau``: the actuated joints'
        torques [N·m]), reading the robot's state (its joints' encoders and its base's odometry,
        q (nq,) and v (nv,)) and the normal force on each of ``locations`` (name ->
        `ContactLocation`) as a force sensor at its link measures it
        (`humanoid_sim.runtime.closed_loop.ContactMeasurement`). Replaces the one attached."""
        from humanoid_sim.runtime.closed_loop import ContactMeasurement

        self.measurement = ContactMeasurement(self.world, locations)
        self.measurement.read()
        self.world.actuator.set_torque(np.zeros(self.world.n_act))
        self.controller = controller

    def detach_controller(self):
        """Stop the attached controller (if any): the PD actuators hold the measured posture until
        the next command."""
        if self.controller is None:
            return
        self.controller = None
        w = self.world
        w.actuator.set_position(w.q[w.act_q])

    def outputs(self, force: bool = False) -> Outputs:
        """What is due after the last step (module docstring); ``force``: everything (a single
        step while paused). Nothing before the first step."""
        w = self.world
        if w.steps == 0:
            return Outputs(w.t)
        k = self.steps
        state = self.state_output() if force or k % self._every_state == 0 else None
        contacts = self.contact_markers() if force or k % self._every_contacts == 0 else None
        haptic = self.haptic_feedback() if state is not None else None
        return Outputs(w.t, state, contacts, haptic, force or k % self._every_clock == 0)

    def state_output(self) -> StateOutput:
        """The `StateOutput` now (sensor readings of the last step)."""
        w, sensors = self.world, self.sensors
        ft = sensors.force_torque() if sensors.ft else {}
        force_torque = {name: (self._ft_frames[name], f, tq) for name, (f, tq) in ft.items()}
        st = w.state
        merge = self.robot.spherical
        if merge is None:
            joint_state = (list(st.joint_names), st.joint_positions, st.joint_velocities, st.joint_torques)
        else:  # the URDF's revolute triples, for URDF tools (RViz, robot_state_publisher): angles only
            angles = merge.angles(w.q[: self.robot.model.nq])
            joint_state = (list(merge.urdf_model.names[2:]), angles[7:], np.zeros(0), np.zeros(0))
        free = {}
        for name, jid in w.body_joint.items():  # a free flyer's velocity is in its own frame
            j = w.model.joints[jid]
            b = st.bodies[name]
            free[name] = (b.position, b.quaternion, w.v[j.idx_v : j.idx_v + 6].copy())
        return StateOutput(st, w.v[:6].copy(), force_torque, sensors.imu(), self._imu_frame, joint_state, free)

    def contact_markers(self) -> ContactMarkers:
        """The contact markers of the last step (`humanoid_sim.runtime.markers`), at the settings' scale."""
        cm = step_contact_markers(self.world.last, self.settings.contact_force_scale)
        w = self.world
        if w.soles is not None:  # the deformed FEM sole surfaces (docs/soles.md)
            cm = dataclasses.replace(cm, soles=sole_triangles(w.soles, w.model, w.q))
        return cm

    # ------------------------------------------------------------------ statistics
    def report_due(self, now: float) -> bool:
        """Whether a physics report is due at ``now`` [s] (monotonic wall clock)."""
        return self.monitor.due(now)

    def report(self, now: float, **context):
        """The `humanoid_sim.runtime.diagnostics.PhysicsReport` of the steps since the last one (context:
        see `PhysicsMonitor.report`)."""
        return self.monitor.report(self.world, now, **context)

    # ------------------------------------------------------------------ commands
    def _one_dof_joints(self, topic: str):
        """`CommandError` for a robot with ball joints: the ros2_control-style commands carry one value
        per 1-DOF joint (docs/avatar.md)."""
        if self.world.actuator is not None and self.world.actuator.balls is not None:
            raise CommandError(
                f"{topic}: robot '{self.robot.name}' has ball joints; joint commands take robots of 1-DOF "
                "joints only (its PD set-point follows the scene's robot.motion, docs/avatar.md)"
            )

    def command_trajectory(self, joint_names, points, stamp: float, topic: str = "trajectory"):
        """Start a joint trajectory and return it (`humanoid_sim.runtime.commands.build_trajectory`: ros2_control
        semantics from the current set-point, the measured positions when torque-controlled);
        stamp [s] on the simulation clock, 0 = now. `CommandError` keeps the previous command."""
        from humanoid_sim.runtime.commands import build_trajectory

        self._one_dof_joints(topic)
        r, w = self.robot, self.world
        act = w.actuator
        current = act.q_d.copy() if act.mode == "pd" else w.q[w.act_q].copy()
        traj, start = build_trajectory(
            joint_names, points, r.joint_names, r.q_lower, r.q_upper, current, stamp, w.t, topic=topic, v_max=r.v_max
        )
        act.set_trajectory(traj, start)
        return traj

    def trajectory_progress(self, trajectory, names) -> TrajectoryProgress:
        """`TrajectoryProgress` of ``trajectory`` (what `command_trajectory` returned) for the
        joints ``names`` (a subset of the robot's) at the current simulated time."""
        w, act = self.world, self.world.actuator
        cols = [self.robot.joint_names.index(n) for n in names]
        elapsed = w.t - act.trajectory_start if act.trajectory is trajectory else np.nan
        q_d, v_d = trajectory.sample(max(elapsed, 0.0) if np.isfinite(elapsed) else trajectory.t[-1])
        return TrajectoryProgress(
            list(names),
            float(elapsed),
            float(trajectory.t[-1]),
            q_d[cols],
            v_d[cols],
            w.q[w.act_q][cols],
            w.v[w.act_v][cols],
            act.trajectory is trajectory,
        )

    def hold(self):
        """Hold the measured joint positions (PD, zero velocity): what joint_trajectory_controller does
        when a goal is cancelled or aborted."""
        w = self.world
        w.actuator.set_position(w.q[w.act_q].copy())

    def command_positions(self, values, topic: str = "positions"):
        """Hold the position set-points ``values`` (n,) [rad], robot joint order, checked."""
        from humanoid_sim.runtime.commands import check_positions

        self._one_dof_joints(topic)
        r = self.robot
        self.world.actuator.set_position(check_positions(values, r.joint_names, r.q_lower, r.q_upper, topic))

    def command_efforts(self, values, topic: str = "efforts"):
        """Apply the joint torques ``values`` (n,) [N·m], robot joint order, checked."""
        from humanoid_sim.runtime.commands import check_efforts

        self._one_dof_joints(topic)
        r = self.robot
        self.world.actuator.set_torque(check_efforts(values, r.joint_names, r.effort_max, topic))

    def external_wrench(self, link: str, force, torque, duration: float, topic: str = "external wrench"):
        """Apply a world-frame force [N] and torque [N·m] at the origin of ``link`` (robot link or
        free body) for ``duration`` [s], checked (`humanoid_sim.runtime.commands.check_wrench`)."""
        from humanoid_sim.runtime.commands import check_wrench

        w = self.world
        link, f, tq = check_wrench(link, force, torque, w.model, self.robot.name, topic)
        w.apply_wrench(link, f, tq, duration=duration)

    # ------------------------------------------------------------------ haptics
    def _device(self):
        w = self.world
        return w.haptics if w.haptics is not None else w.connect_haptics()

    def haptic_pointer(self, position, quaternion=None, t=None):
        """The haptic pointer pose (world frame: position [m], quaternion xyzw; ``t`` [s] its
        stamp, for the velocity estimate): `humanoid_sim.stages.haptics.HapticDevice.set_pointer`,
        `CommandError` for a non-finite pose (the previous pose stays)."""
        self._device().set_pointer(position, quaternion, t=t)

    def haptic_attach(self, body: str, point=(), settings=None, admittance=()):
        """Attach the pointer to ``body`` at ``point`` (body frame [m]; empty: where the pointer
        is) with `HapticSettings` ``settings`` (None: the defaults) and ``admittance`` (empty: none;
        (M_d, B_d): the robot compliant, eq. 3.65); `CommandError` when refused."""
        from humanoid_sim.stages.haptics import HapticSettings

        if admittance is not None and len(admittance) not in (0, 2):
            raise CommandError(message(self.source, "haptic.admittance", "[] or [M_d, B_d]", admittance))
        dev = self._device()
        dev.settings = (settings or HapticSettings()).checked()
        dev.attach(
            body,
            None if point is None or len(point) == 0 else point,
            tuple(admittance) if admittance is not None and len(admittance) else None,
        )

    def haptic_touch(self, body: str, settings=None):
        """Touch mode against ``body`` (`HapticDevice.touch`); `CommandError` when refused."""
        from humanoid_sim.stages.haptics import HapticSettings

        dev = self._device()
        dev.settings = (settings or HapticSettings()).checked()
        dev.touch(body)

    def haptic_release(self):
        """Release the coupled body (no-op without a device)."""
        if self.world.haptics is not None:
            self.world.haptics.release()

    def haptic_feedback(self) -> np.ndarray | None:
        """The rendered wrench (6,) of the last step [N, N·m], None while nothing is coupled."""
        dev = self.world.haptics
        return dev.feedback.copy() if dev is not None and dev.active else None


def _every(rate: float, dt: float) -> int:
    """Steps of ``dt`` [s] between outputs at ``rate`` [Hz of simulated time] (at least 1)."""
    return max(1, int(round(1.0 / (rate * dt))))
