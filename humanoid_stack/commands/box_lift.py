"""`humanoid-stack box-lift`: HRP-2's dynamic lift of a 4.5 kg box (Chardonnet 2009, §5.2.1): the
preliminary motion to the impact, the impact that leaves the feet still, the swing back over the feet,
measured and written as a joint trajectory (BOXLIFT.json, the WALK.json layout the viewer replays);
``--play`` also plays it in the simulator with the box as a body (`humanoid_execution.box_lift_playback`)."""

from __future__ import annotations

from humanoid_stack.commands.play_record import add_record_arguments, recorder

HELP = "dynamic box lift (HRP-2, Chardonnet 2009 §5.2.1): impact design and cam-profile motion; BOXLIFT.json"
DESCRIPTION = """HRP-2 leans on a 4.5 kg box standing ahead of its feet, too far for a static lift, and
lifts it in one swing (method, choices and numbers: docs/lifting.md).

The impact is designed so that the foot centre is its centre of percussion and the robot and box
then come to rest over the feet as an inverted pendulum; the preliminary motion reaches it with the
cam profile every 5 ms; after it the legs swing the robot and the box back over the feet. Printed:
the design, the ZMP of robot and box against the feet and box before the impact, the hold reserve
(>= 0: a hand force keeps the box from sliding, tipping or lifting and the feet still, (5.19)-(5.24)),
the ZMP against the feet after it, and how high the box ends. The exit code is 1 if a measure fails.

BOXLIFT.json holds the full configurations every 5 ms (the WALK.json layout): `humanoid-stack view
hrp2 --replay BOXLIFT.json` shows it (without the box). The output's folder must exist; a file already
at the output path is removed once the options are checked.

--play also plays it in the simulator: the box a free body on the floor held by the hands (a point
grasp, our model), the joints' torques and the hands' force fed forward from the plan; printed: the
hand force on the box against (5.19)-(5.22) at every step before the impact, the box's motion, the
centre of pressure of the feet (and box) before, just after and after the impact, the feet's slide,
lift and tilt. The exit code is then also 1 if the robot falls or a hold margin is negative.
--record RUN writes the simulated run (the box included) as a recording, a bag folder or RUN.jsonl
(docs/recording.md), which `humanoid-stack view --replay RUN` plays; with other --lean or --path the
command prints the --set the viewer needs to draw the box where the run put it.

example:
  humanoid-stack box-lift --output BOXLIFT.json
  humanoid-stack box-lift --lean 8 --swing 1.5
  humanoid-stack box-lift --play --record lift.jsonl
"""


def add_arguments(parser):
    parser.add_argument(
        "--lean", type=float, default=10.0, metavar="DEG", help="robot and box ahead of the foot centre at the impact"
    )
    parser.add_argument("--path", type=float, default=0.12, metavar="M", help="centre of mass travel to the impact")
    parser.add_argument("--swing", type=float, default=1.0, metavar="S", help="swing from the impact to rest [s]")
    parser.add_argument("--output", "-o", default="BOXLIFT.json", help="output JSON file (its folder must exist)")
    parser.add_argument("--play", action="store_true", help="also play the lift in the simulator, the box a body")
    add_record_arguments(parser)


def run(args) -> int:
    import numpy as np

    from humanoid_model import load_robot
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.files import clear_output
    from humanoid_model.formats.trajectory import write_trajectory_file
    from humanoid_model.validation import finite_number
    from humanoid_planner.lifting.box_lift import BoxLiftSettings, hold_reserve, plan_box_lift
    from humanoid_planner.lifting.box_swing import carrying_chain, plan_box_swing
    from humanoid_planner.lifting.sagittal import SagittalChain

    lean = finite_number(args.lean, "box-lift", "--lean", minimum=0.0, maximum=45.0, strict=True, unit="deg")
    path = finite_number(args.path, "box-lift", "--path", minimum=0.0, maximum=0.5, strict=True, unit="m")
    swing_time = finite_number(args.swing, "box-lift", "--swing", minimum=0.0, maximum=10.0, strict=True, unit="s")
    record = recorder(args, "box-lift")
    clear_output(args.output, "BOXLIFT.json", ConfigError)
    robot = load_robot("hrp2")
    chain = SagittalChain(robot)
    settings = BoxLiftSettings(lean=np.radians(lean), path=path)
    motion = plan_box_lift(chain, settings)
    d = motion.design
    print(
        f"impact: robot and box {np.degrees(d.lean):.1f} deg ahead of the foot centre ({d.arm:.3f} m), "
        f"robot at {d.robot_velocity:.3f} m/s, then {d.omega:.3f} rad/s about the foot centre"
    )
    print(f"preliminary motion: {motion.t[-1]:.3f} s (t_f {motion.t_f:.3f} s, alpha {motion.alpha:.3f} m)")
    zmp, (lo, hi) = motion.support_zmp, motion.support
    reserve, _force = hold_reserve(chain, motion)
    before = bool(np.all((zmp > lo) & (zmp < hi)))
    print(f"  ZMP of robot and box {zmp.min():.3f} to {zmp.max():.3f} m (feet and box: {lo:.3f} to {hi:.3f} m)")
    print(f"  hold reserve {reserve.min():.1f} N (>= 0: a hand force keeps (5.19)-(5.24))")
    carrying = carrying_chain(chain, motion)
    swing = plan_box_swing(chain, motion, swing_time, carrying=carrying)
    heel, toe = chain.foot_x
    after = bool(np.all((swing.zmp > heel) & (swing.zmp < toe)))
    gain = float(carrying.point("grasp", swing.theta[-1])[1] - motion.grasp[1])
    print(f"swing: {swing_time:.3f} s, ZMP {swing.zmp.min():.3f} to {swing.zmp.max():.3f} m (feet: {heel} to {toe} m)")
    print(f"  the box ends {100 * gain:.1f} cm off the floor")
    t = np.concatenate([motion.t, motion.t[-1] + swing.t[1:]])
    theta = np.vstack([motion.theta, swing.theta[1:]])
    doc = chain.trajectory_document(t, theta)
    doc["box_lift"] = {
        "box": {"mass": settings.box.mass, "depth": settings.box.depth, "friction": settings.box.friction},
        "grasp": motion.grasp.tolist(),
        "impact_time": float(motion.t[-1]),
        "impact_speed": d.robot_velocity,
        "sagittal_joints": [list(g) for g in chain.joints.names],
        "theta": theta.tolist(),
    }
    out = write_trajectory_file(args.output, doc, "BOXLIFT.json", ConfigError)
    print(f"wrote {out}: {len(t)} points at {1 / settings.sample:.0f} Hz")
    ok = before and after and reserve.min() >= 0
    if args.play:
        from humanoid_execution.box_lift_playback import play_box_lift

        print("playing it in the simulator ...", flush=True)
        played = play_box_lift(settings, swing_time, record=record)
        print("\n".join(played.lines()))
        if record is not None:
            view = f"humanoid-stack view hrp2 --replay {args.record}{_viewer_sets(played)}"
            print(f"wrote the run to {args.record}: {view}")
        ok = ok and not played.fallen and bool(played.margins.min() >= 0)
    if not ok:
        print("a measure failed: see the lines above")
    return 0 if ok else 1


def _viewer_sets(played) -> str:
    """The viewer's ``--set`` options that draw the box_lift scene's box as the run had it: its
    parameters the run set to other values than the scene file's."""
    from humanoid_model.scene import load_scene

    defaults = load_scene("box_lift").params
    return "".join(f" --set {k}={v:.6g}" for k, v in played.scene_overrides.items() if abs(v - defaults[k]) > 1e-9)
