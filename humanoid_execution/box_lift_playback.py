"""The dynamic box lift (`humanoid_planner.lifting.box_lift`, `box_swing`) played in the simulator,
as the thesis played it (Chardonnet 2009, §5.2.1.6: the preliminary motion, the impact and the
swing, "played in our simulator"; §4.16, F1), without a stabiliser.

The scene is `config/scenes/box_lift.yaml`: HRP-2 on the floor, its ankles above the origin, and the
thesis's box (4.5 kg, μ_o 0.4, d_o 0.3 m, §5.2.1.6) as a free body on the floor, its near face where
the plan puts it. The hands hold the box from the start: each hand's grasp point is coupled to the
box's side by a stiff spring-damper (`humanoid_sim.World.grasp`). The thesis does not describe its
grasp: this coupling is our model (docs/lifting.md, "The box lift played"). It is a point grasp
(no moment at the hands, as the least-force analysis of docs/lifting.md assumes) of stiffness
`GRASP_STIFFNESS`.

The robot starts in the preliminary motion's first posture, its PD actuators stiffened as for the
overhead lift (`humanoid_control.walking_ik.WALK_GAIN_SCALE`, `lift_playback`). They hold it for
``settle`` seconds, follow the preliminary motion then the swing, sampled every 5 ms (HRP-2's
control period, §5.2.3; the preliminary motion at most that, so that a sample falls on the impact:
4.96 ms at the defaults), with the samples' joint velocities, each sample's feedforward and grasp
set-point from its time on, then hold the end posture for
``after`` seconds. PD alone does not play it (measured, docs/lifting.md); two feedforwards do:

- **the joint torques** (`humanoid_execution.motion_feedforward`): τ = M a + b − J_hᵀ f_h − J_fᵀ w_f
  of the planned motion (velocities and accelerations by finite differences of the samples, each phase apart), with the
  planned hand force f_h and the feet taking the rest of the base's wrench (least-norm wrenches).
  Before the impact f_h is `box_lift.hold_reserve`'s point-grasp force with the feet's conditions
  keeping the same margin as the box's (``feet_margin``: the sharing that loads the feet as well as
  the box); from the impact on each hand carries half the box, m_o (g − a) at the grasp. The
  impact's velocity jump, the robot's and the box's from rest, is made over the first sample
  interval after it (the impact's impulse, 5 ms): nothing decelerates before the impact (central
  differences through it did, from the sample before: the feet's CoP then reached the heel 3 ms
  before the impact and the feet carried no force for one step after it, measured). The
  reference's velocities are central differences through the impact (a PD cannot follow a jump:
  the one-sided velocities either side there make the feet slide 9-13 cm, measured);
- **the hands' force control**: each grasp's set-point on the box is offset by the planned force on
  the box over k, so that the coupling pushes with the planned force where the hand is where planned.
  The hand–foot sharing is statically indeterminate (`hold_reserve`): without this the robot, its
  centre of mass past its toes, pivots about them onto the box.

Measured at every step (`BoxLiftPlayback`):
- the grasps' force and moment on the box (both hands) and its four margins (5.19)–(5.22)
  (`box_hold.hold_margins`) from the grasp on to the impact: the settle and the preliminary motion;
- how far the box's centre moves before the impact (it must stay on the floor);
- the centre of pressure of the floor's forces on the feet and the box, as the distance inside the
  support (from the heel to the box's far face) before the impact, and of the feet's alone inside the
  feet (heel to toe) after it (negative: outside), the heel and toe where the feet are at that step;
- how far each foot slides and lifts [m] and tilts [rad] (`lift_playback.foot_motion`);
- the box's rise at the end [m] and whether the robot fell (a foot lifted more than
  `lift_playback.FALLEN_LIFT`).
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import nullcontext
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_control.walking_ik import WALK_GAIN_SCALE, stiffen
from humanoid_execution.lift_playback import FALLEN_LIFT, foot_motion
from humanoid_execution.motion_feedforward import feedforward, finite_rates
from humanoid_model.robot import load_robot
from humanoid_planner.lifting.box_hold import hold_margins
from humanoid_planner.lifting.box_lift import BoxLiftSettings, hold_reserve, plan_box_lift
from humanoid_planner.lifting.box_swing import SWING_DURATION, plan_box_swing
from humanoid_planner.lifting.sagittal import SagittalChain

__all__ = ["GRASP_STIFFNESS", "IMPACT_WINDOW", "BoxLiftPlayback", "play_box_lift"]

SCENE = "box_lift"
BOX = "box"
IMPACT_WINDOW = 0.015  # [s] (chosen) the impact's transient, reported apart: the feet rock on their heels for 5 ms
GRASP_STIFFNESS = 5e4  # [N/m] per hand (chosen: the largest planned force, 413 N on two hands, stretches it 4 mm;
#   2e4 and 1e5 measure the same, docs/lifting.md)


@dataclass
class BoxLiftPlayback:
    """What a played box lift measured (module docstring). ``t_impact``: the impact's time from the
    motion's start [s]; ``force`` (k, 3): the grasps' (f_x, f_z, τ) on the box at each step from the
    grasp to the impact [N, N·m] (τ positive from x to z, `box_hold`), ``margins`` (k, 4) theirs;
    ``box_moved``: the box centre's largest distance from its start before the impact [m];
    ``cop_before``, ``cop_impact`` (within `IMPACT_WINDOW` after the impact), ``cop_after`` (after
    that): the least CoP margin [m]; ``unloaded``: the steps after the impact with no force on the
    feet; ``trace`` (steps, 5): time from the motion's start [s], the feet's slide and lift so far
    [m], the step's CoP margin [m] (nan: none), the box's height [m]; ``slide``, ``lift`` [m], ``tilt`` [rad]:
    the feet's largest; ``box_rise``: the box centre's height gain at the end [m]; ``scene_overrides``:
    the `SCENE` parameters the run set (the box's mass, friction, size and place, from the plan)."""

    t_impact: float
    duration: float
    force: np.ndarray
    margins: np.ndarray
    box_moved: float
    cop_before: float
    cop_impact: float
    unloaded: int
    cop_after: float
    slide: float
    lift: float
    tilt: float
    box_rise: float
    fallen: bool
    trace: np.ndarray
    scene_overrides: dict

    def lines(self) -> list[str]:
        worst = self.margins.min(axis=0)
        return [
            f"{'FELL' if self.fallen else 'stood'}: {self.duration:.2f} s simulated, impact at {self.t_impact:.3f} s",
            "hand force on the box before the impact: down up to "
            f"{-self.force[:, 1].min():.0f} N, |f_x| up to {np.abs(self.force[:, 0]).max():.0f} N; least margins "
            f"slip {worst[0]:.1f} N, tip back {worst[1]:.2f} N m, tip forward {worst[2]:.2f} N m, "
            f"lift-off {worst[3]:.1f} N",
            f"box moved {1000 * self.box_moved:.2f} mm before the impact; rose {100 * self.box_rise:.1f} cm at the end",
            f"CoP margin: {1000 * self.cop_before:.0f} mm (feet and box, before), "
            f"{1000 * self.cop_impact:.1f} mm (feet, {1000 * IMPACT_WINDOW:.0f} ms after the impact; "
            f"{self.unloaded} steps without a foot force), {1000 * self.cop_after:.0f} mm (feet, after that)",
            f"feet: slide {1000 * self.slide:.2f} mm, lift {1000 * self.lift:.2f} mm, "
            f"tilt {np.degrees(self.tilt):.2f} deg",
        ]


def _cop_margin(contacts, bodies, lo, hi) -> float | None:
    """The least distance [m] of the x of the centre of pressure of ``contacts`` on ``bodies`` inside
    [lo, hi] (None without a normal force)."""
    sel = [c for c in contacts if c["body_a"] in bodies]
    fz = sum(c["force"][2] for c in sel)
    if fz <= 0:
        return None
    x = sum(c["point"][0] * c["force"][2] for c in sel) / fz
    return min(x - lo, hi - x)


def play_box_lift(
    settings: BoxLiftSettings | None = None,
    swing: float = SWING_DURATION,
    robot_name: str = "hrp2",
    settle: float = 0.5,
    after: float = 1.0,
    stiffness: float = GRASP_STIFFNESS,
    gain_scale: float = WALK_GAIN_SCALE,
    feed_forward: bool = True,
    force_control: bool = True,
    velocities: bool = True,
    impulse: bool = True,
    record: Callable | None = None,
) -> BoxLiftPlayback:
    """Plan the box lift (`plan_box_lift`, `plan_box_swing`), play it in the simulator and measure
    it (module docstring). ``feed_forward``, ``force_control``, ``velocities``, ``impulse``: the
    joint torques, the hands' force control, the samples' velocities and the impact's impulse
    (module docstring), each on by default; off, they measure what each does. ``record``: called
    with the world once it is set up, it returns a `humanoid_sim.runtime.recording.Recorder` that
    records the run (the box included; closed at the end, also on an error)."""
    from humanoid_sim.stages.actuators import JointTrajectory
    from humanoid_sim.world import World

    settings = settings or BoxLiftSettings()
    robot = load_robot(robot_name)
    chain = SagittalChain(robot)
    motion = plan_box_lift(chain, settings)
    after_impact = plan_box_swing(chain, motion, swing)
    t_imp = float(motion.t[-1])
    t = np.concatenate([motion.t, t_imp + after_impact.t[1:]])
    theta = np.vstack([motion.theta, after_impact.theta[1:]])
    box = settings.box
    overrides = {"box.mass": box.mass, "box.friction": box.friction, "box.depth": box.depth}
    overrides |= {"box.height": 2.0 * settings.hand_height, "box.near": motion.box_x}
    world = World.from_scene(SCENE, robot=robot, overrides=overrides)
    model = robot.model
    nq = model.nq
    q0 = chain.configuration(theta[0])
    world.q[:nq], world.q_start[:nq] = q0, q0
    world.v[:], world.v_start[:] = 0.0, 0.0
    stiffen(world.actuator, gain_scale)
    world.actuator.set_position(q0[7:])
    full = np.array([chain.configuration(th) for th in theta])
    Q = full[:, 7:]
    n_pre = len(motion.t)
    _reserve, planned = hold_reserve(chain, motion, hand_moment=False, feet_margin=True)  # (f_hx, f_hz, 0) on the box
    # The reference's velocities: central differences through the whole motion (at the impact's
    # sample the mean of the velocities either side: a PD cannot follow a velocity jump). The feed-
    # forward's accelerations: each phase's own (one-sided at the impact, so that nothing decelerates
    # before it), the impact's velocity jump made over the first interval after it (``impulse``).
    imp = n_pre - 1
    v, _acc = finite_rates(model, full, t)
    pre, post = finite_rates(model, full[: imp + 1], t[: imp + 1]), finite_rates(model, full[imp:], t[imp:])
    v_ff, acc = np.vstack([pre[0][:-1], post[0]]), np.vstack([pre[1][:-1], post[1]])
    first = t[imp + 1] - t[imp]  # the first interval after the impact [s]
    if impulse:
        acc[imp] += (post[0][0] - pre[0][-1]) / first
    hand_locs = [robot.contact_locations[n] for n in chain.joints.hand]
    hands = [(model.getFrameId(loc.body), np.asarray(loc.point, float)) for loc in hand_locs]
    feet = [model.getFrameId(robot.contact_locations[n].body) for n in chain.joints.sole]
    on_robot = np.zeros((len(t), 3))
    on_robot[:imp, [0, 2]] = -0.5 * planned[:imp, :2]
    # from the impact on each hand carries half the box, m_o (g − a) at the grasp, the box a point mass
    # moving with the hands; with ``impulse`` its jump from rest is made over the first interval too
    data = model.createData()
    v_box = np.zeros((len(t) - imp, 3))
    frame, point = hands[0]
    for k, i in enumerate(range(imp, len(t))):
        pin.forwardKinematics(model, data, full[i], v_ff[i])
        pin.updateFramePlacements(model, data)
        vf = pin.getFrameVelocity(model, data, frame, pin.LOCAL_WORLD_ALIGNED)
        v_box[k] = vf.linear + np.cross(vf.angular, data.oMf[frame].rotation @ point)
    a_box = np.gradient(v_box, t[imp:], axis=0)
    if impulse:
        a_box[0] += v_box[0] / first
    gravity = np.array([0.0, 0.0, -9.81])
    on_robot[imp:] = 0.5 * box.mass * (gravity - a_box)
    tau_ff = feedforward(model, full, v_ff, acc, hands, on_robot, feet) if feed_forward else np.zeros_like(Q)
    grasps, rest = [], []
    pin.framesForwardKinematics(model, data, q0)
    box_pose = world.body_state(BOX)
    qx, qy, qz, qw = box_pose.quaternion
    R0 = pin.Quaternion(qw, qx, qy, qz).toRotationMatrix()
    for loc, (frame, point) in zip(hand_locs, hands, strict=True):
        rest.append(R0.T @ (data.oMf[frame].act(point) - np.asarray(box_pose.position)))
        grasps.append(world.grasp(loc.body, BOX, point=point, body_point=rest[-1], stiffness=stiffness))
    # the hands' force control: each grasp's set-point on the box is offset by the planned force on
    # the box over k, so that k (x_a − x_b) is that force where the hand is where planned
    offset = (-on_robot / stiffness) @ R0 if force_control else np.zeros_like(on_robot)

    def hold(i):
        for g, r in zip(grasps, rest, strict=True):
            g.point_b = r - offset[i]

    sole_links = {model.frames[f].name for f in feet}
    data = model.createData()
    pin.framesForwardKinematics(model, data, q0)
    start = [data.oMf[f].translation.copy() for f in feet]
    box_q = world.body_joint[BOX]
    box_at = world.model.joints[box_q].idx_q
    box0 = world.q[box_at : box_at + 3].copy()
    hulls = [np.asarray(robot.contact_locations[n].hull, float) for n in chain.joints.sole]
    soles = list(zip(feet, hulls, strict=True))
    far = motion.box_x + box.depth
    x_h, z_h = float(motion.grasp[0] - motion.box_x), float(motion.grasp[1])
    slide = lift = tilt = moved = 0.0
    cop_before = cop_impact = cop_after = np.inf
    unloaded = 0
    force, trace = [], []
    fallen = False
    steps_settle = int(round(settle / world.dt))
    steps = steps_settle + int(round((t[-1] + after) / world.dt))
    begin = None
    act = world.actuator
    act.tau_ff = tau_ff[0].copy()
    hold(0)
    with record(world) if record is not None else nullcontext() as rec:
        for k in range(steps):
            if begin is not None:
                i = int(np.searchsorted(t, world.t - begin + 1e-9, side="right")) - 1  # the sample in force
                act.tau_ff = tau_ff[i].copy()
                hold(i)
            if k == steps_settle:
                begin = world.t
                world.actuator.set_trajectory(JointTrajectory(t, Q, v[:, 6:] if velocities else None), t_start=begin)
            world.step()
            if rec is not None:
                rec.maybe_record()
            before = begin is None or world.t - begin <= t_imp + 0.5 * world.dt
            pin.framesForwardKinematics(model, data, world.q[:nq])
            s, li, ti = foot_motion(data, feet, start)
            slide, lift, tilt = max(slide, s), max(lift, li), max(tilt, ti)
            contacts = world.contact_list()
            # the feet's heel and toe where the feet are now (they slide by a fraction of a millimetre)
            xs = np.concatenate([[data.oMf[f].act(p)[0] for p in hull] for f, hull in soles])
            heel, toe = float(xs.min()), float(xs.max())
            if before:
                w = sum(g.wrench for g in grasps)
                force.append((w[0], w[2], -w[4]))
                moved = max(moved, float(np.linalg.norm(world.q[box_at : box_at + 3] - box0)))
                m = _cop_margin(contacts, sole_links | {BOX}, heel, far)
                if m is not None:
                    cop_before = min(cop_before, m)
            else:
                m = _cop_margin(contacts, sole_links, heel, toe)
                transient = world.t - begin <= t_imp + IMPACT_WINDOW + 0.5 * world.dt
                if m is None:
                    unloaded += 1
                elif transient:
                    cop_impact = min(cop_impact, m)
                else:
                    cop_after = min(cop_after, m)
            cop_now = m if m is not None else np.nan
            trace.append((world.t - settle, s, li, cop_now, world.q[box_at + 2]))
            if lift > FALLEN_LIFT:
                fallen = True
                break
    force = np.array(force)
    margins = hold_margins(box, force[:, :2], force[:, 2], x_h, z_h)
    rise = float(world.q[box_at + 2] - box0[2])
    return BoxLiftPlayback(
        t_imp,
        world.t,
        force,
        margins,
        moved,
        cop_before,
        cop_impact,
        unloaded,
        cop_after,
        slide,
        lift,
        tilt,
        rise,
        fallen,
        np.array(trace),
        overrides,
    )
