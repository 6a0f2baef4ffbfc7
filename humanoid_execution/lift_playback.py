"""An optimised overhead lift (`humanoid_planner.lifting.overhead`) played in the simulator, as the
thesis played it (Chardonnet 2009, §5.2.2.3: "the trajectory is then played dynamically in our
simulator ... the robot lifts the object without falling"; no stabiliser, §4.17).

The simulated HRP-2 carries the object as mass and inertia on its hands at the grasp points (half on
each, the optimiser's model, §5.2.2.2). It starts on `flat` in the lift's start posture, with its
feet flat where the sagittal model puts them. Its PD actuators are stiffened as for an open-loop
walking plan (`humanoid_control.walking_ik.WALK_GAIN_SCALE`; the default 10 Hz gains leave the loaded
joints 8 deg short of the end posture, measured). They hold the start posture for ``settle``
seconds, follow the lift's joint trajectory sampled every ``sample`` seconds (the robot bridge's
way), then hold the end posture for ``after`` seconds. With ``feed_forward`` (the default) the
servos also get the samples' joint velocities and the motion's joint torques
(`humanoid_execution.motion_feedforward`: the inverse dynamics of the carrying robot, the feet
taking the base's wrench), each sample's from its time on, as the box lift's playback does; without
it the PD alone follows the positions, as the thesis describes its playback (§5.2.2.3), and the
centre of pressure reaches the heel for a moment (docs/lifting.md).

Measured at every step (`LiftPlayback`):
- how far each foot slides and lifts [m] and tilts [rad];
- the centre of pressure of the floor's contact forces, as the distance [m] inside the feet's
  heel-to-toe extent (negative: outside);
- the joints' applied torques over their maximum Γᴹ (5.26) and over their nominal output (20 % of Γᴹ,
  §5.2.2.3), and the longest time [s] any joint spends above nominal;
- the largest joint tracking error [rad], the largest distance to the end posture at the end [rad] and
  the object's height there [m] (the grasp points').

``gravity_compensation`` adds the world's generalised gravity torques to the PD. It is off: those
torques hold the waist, not the feet, so on a standing robot they push the legs the wrong way
(measured: the feet slide 65 mm and lift 9 mm).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_control.walking_ik import WALK_GAIN_SCALE, stiffen
from humanoid_execution.motion_feedforward import feedforward, finite_rates
from humanoid_model.robot import load_robot
from humanoid_planner.lifting.overhead import NOMINAL, LiftResult
from humanoid_planner.lifting.sagittal import CarriedObject, SagittalChain

__all__ = ["LiftPlayback", "carrying", "foot_motion", "play_lift"]

SCENE = "flat"
FALLEN_LIFT = 0.01  # [m] (chosen) a foot raised this much off the floor has lost its support


@dataclass
class LiftPlayback:
    """What a played lift measured (module docstring); ``fallen``: a foot lifted more than
    `FALLEN_LIFT` or the base dropped below the floor's reach."""

    duration: float
    slide: float
    lift: float
    foot_tilt: float
    cop_margin: float
    cop_time: float
    torque_over_max: float
    torque_over_nominal: np.ndarray
    above_nominal: float
    tracking: float
    end_error: float
    object_height: float
    fallen: bool

    def lines(self) -> list[str]:
        return [
            f"{'FELL' if self.fallen else 'stood'}: {self.duration:.2f} s simulated",
            f"feet: slide {1000 * self.slide:.2f} mm, lift {1000 * self.lift:.2f} mm, "
            f"tilt {np.degrees(self.foot_tilt):.2f} deg; CoP margin in the feet min {1000 * self.cop_margin:.0f} mm "
            f"(at {self.cop_time:.2f} s of the lift)",
            f"applied torque / max {self.torque_over_max:.2f}; / nominal per joint "
            + ", ".join(f"{v:.2f}" for v in self.torque_over_nominal)
            + f"; longest above nominal {self.above_nominal:.2f} s",
            f"largest joint tracking error {np.degrees(self.tracking):.2f} deg, "
            f"{np.degrees(self.end_error):.2f} deg from the end posture at the end; the object at "
            f"{self.object_height:.3f} m",
        ]


def foot_motion(data, feet, start) -> tuple[float, float, float]:
    """(slide [m], lift [m], tilt [rad]): the largest horizontal move, rise and tilt of the frames
    ``feet`` from their ``start`` positions (``data`` after ``pin.framesForwardKinematics``)."""
    slide = lift = tilt = 0.0
    for f, p0 in zip(feet, start, strict=True):
        d = data.oMf[f].translation - p0
        slide, lift = max(slide, float(np.hypot(d[0], d[1]))), max(lift, float(d[2]))
        tilt = max(tilt, float(np.arccos(np.clip(data.oMf[f].rotation[2, 2], -1.0, 1.0))))
    return slide, lift, tilt


def carrying(robot_name: str, carried: CarriedObject, chain: SagittalChain | None = None):
    """The robot loaded anew with `carried` on its hands: half its mass at each grasp point, with half
    its inertia (the optimiser's model of the object, §5.2.2.2)."""
    robot = load_robot(robot_name)
    chain = chain or SagittalChain(robot, carried)
    model = robot.model
    half = carried.inertia / 2
    for name in chain.joints.hand:
        loc = robot.contact_locations[name]
        frame = model.frames[model.getFrameId(loc.body)]
        at = frame.placement.act(np.asarray(loc.point, dtype=float))
        model.inertias[frame.parentJoint] += pin.Inertia(carried.mass / 2, at, np.diag([half, half, half]))
    return robot


def play_lift(
    chain: SagittalChain,
    result: LiftResult,
    robot_name: str = "hrp2",
    settle: float = 0.5,
    after: float = 1.5,
    sample: float = 0.005,
    nominal: float = NOMINAL,
    gravity_compensation: bool = False,
    gain_scale: float = WALK_GAIN_SCALE,
    record: Callable | None = None,
    feed_forward: bool = True,
) -> LiftPlayback:
    """Play `result` in the simulator (module docstring) and measure it. ``record``: called with the
    world once it is set up, it returns a `humanoid_sim.runtime.recording.Recorder` that records the
    run (closed at the end, also on an error). ``feed_forward``: the samples' velocities and joint
    torques fed to the servos (module docstring)."""
    from humanoid_sim.stages.actuators import JointTrajectory
    from humanoid_sim.world import World

    robot = carrying(robot_name, chain.carried, chain)
    world = World.from_scene(SCENE, robot=robot, gravity_compensation=gravity_compensation)
    model = robot.model
    nq = model.nq
    q0 = chain.configuration(result.theta[0])
    world.q[:nq], world.q_start[:nq] = q0, q0
    world.v[:], world.v_start[:] = 0.0, 0.0
    stiffen(world.actuator, gain_scale)
    world.actuator.set_position(q0[7:])
    t, theta, _thd, _thdd = result.sample(sample)
    spacing = t[1] - t[0]  # the samples' own spacing: t_f over a whole number of intervals, about ``sample``
    full = np.array([chain.configuration(th) for th in theta])
    Q = full[:, 7:]
    feet = [model.getFrameId(robot.contact_locations[n].body) for n in chain.joints.sole]
    v = tau_ff = None
    if feed_forward:
        v, acc = finite_rates(model, full, t)
        tau_ff = feedforward(model, full, v, acc, [], np.zeros((len(t), 3)), feet)
        world.actuator.tau_ff = tau_ff[0].copy()
    data = model.createData()
    pin.framesForwardKinematics(model, data, q0)
    start = [data.oMf[f].translation.copy() for f in feet]
    act_v = list(world.act_v)  # the actuated joints' velocity indices, the order of tau_applied and Q's columns
    effort = model.effortLimit[world.act_v]
    sagittal = [act_v.index(model.joints[j].idx_v) for grp in chain.ids for j in grp]
    heel, toe = chain.foot_x
    links = {f.name for f in model.frames if f.type == pin.FrameType.BODY}
    slide = lift = tilt = track = 0.0
    cop, cop_time = np.inf, 0.0
    over = np.zeros(len(sagittal))
    run = np.zeros(len(sagittal))
    longest = 0.0
    fallen = False
    steps_settle = int(round(settle / world.dt))
    steps = steps_settle + int(round((result.t_f + after) / world.dt))
    begin = None
    with record(world) if record is not None else nullcontext() as rec:
        for k in range(steps):
            if k == steps_settle:
                begin = world.t
                world.actuator.set_trajectory(JointTrajectory(t, Q, None if v is None else v[:, 6:]), t_start=begin)
            if tau_ff is not None and begin is not None:  # the sample in force
                i = int(np.searchsorted(t, world.t - begin + 1e-9, side="right")) - 1
                world.actuator.tau_ff = tau_ff[min(i, len(t) - 1)].copy()
            world.step()
            if rec is not None:
                rec.maybe_record()
            q = world.q[:nq]
            pin.framesForwardKinematics(model, data, q)
            s, li, ti = foot_motion(data, feet, start)
            slide, lift, tilt = max(slide, s), max(lift, li), max(tilt, ti)
            floor = [c for c in world.contact_list() if c["body_b"] not in links]  # not the robot's self-contacts
            fz = sum(c["force"][2] for c in floor)
            if fz > 0:
                x = sum(c["point"][0] * c["force"][2] for c in floor) / fz
                if min(x - heel, toe - x) < cop:
                    cop, cop_time = min(x - heel, toe - x), world.t - steps_settle * world.dt
            if k >= steps_settle:
                ratio = np.abs(world.tau_applied[sagittal]) / effort[sagittal]
                over = np.maximum(over, ratio / nominal)
                run = np.where(ratio > nominal, run + world.dt, 0.0)
                longest = max(longest, float(run.max()))
                ref = Q[min(len(t) - 1, int(round((world.t - begin) / spacing)))]  # the nearest sample
                track = max(track, float(np.max(np.abs(world.q[world.act_q][sagittal] - ref[sagittal]))))
            if lift > FALLEN_LIFT:
                fallen = True
                break
    end = float(np.max(np.abs(world.q[world.act_q][sagittal] - Q[-1][sagittal])))
    hands = [robot.contact_locations[n] for n in chain.joints.hand]
    height = float(np.mean([data.oMf[model.getFrameId(h.body)].act(np.asarray(h.point, float))[2] for h in hands]))
    return LiftPlayback(
        world.t,
        slide,
        lift,
        tilt,
        cop,
        cop_time,
        float(over.max() * nominal),
        over,
        longest,
        track,
        end,
        height,
        fallen,
    )
