"""`humanoid-stack lift`: HRP-2's overhead lift of a heavy object (Chardonnet 2009, §5.2.2), optimised
with IPOPT and written as a joint trajectory (LIFT.json, the WALK.json layout the viewer replays);
``--play`` also plays it in the simulator (`humanoid_execution.lift_playback`)."""

from __future__ import annotations

from humanoid_stack.commands.play_record import add_record_arguments, recorder

HELP = "overhead lift of a heavy object (HRP-2, Chardonnet 2009 §5.2.2): B-splines optimised with IPOPT; LIFT.json"
DESCRIPTION = """HRP-2 lifts an object held in both hands from arms down to arms up, crouching under it
(method, constants and results: docs/lifting.md).

The thesis's end postures, a symmetric seven-joint sagittal model from the URDF, joint B-splines
optimised with IPOPT for the actuators' energy under the DC-motor limits, the ZMP in the feet, the
feet's friction and the wrist sensors' loads. The constraints are then measured every millisecond
and printed. --play plays the lift in the simulator with the object on the hands and prints what
happened; the exit code is 1 if the robot fell. --record RUN also writes the simulated run as a
recording, a bag folder or RUN.jsonl (docs/recording.md), which `humanoid-stack view --replay RUN` plays.

LIFT.json holds the full configurations at --rate (the WALK.json layout): `humanoid-stack view hrp2
--replay LIFT.json` shows it (without the object). The output's folder must exist; a file already
at the output path is removed once the options are checked.

example:
  humanoid-stack lift --output LIFT.json
  humanoid-stack lift --mass 8.4 --play --output LIFT.json
  humanoid-stack lift --play --record lift_run.jsonl
"""

RATES = (200, 1000)  # [Hz] HRP-2's 5 ms control period, or 1 ms
MAX_MASS = 30.0  # [kg] (chosen) above the thesis's heaviest object, 23.4 kg (§5.2.2.4)


def add_arguments(parser):
    parser.add_argument(
        "--mass", type=float, default=8.4, metavar="KG", help=f"object mass [kg], 0..{MAX_MASS} (default 8.4)"
    )
    parser.add_argument("--width", type=float, default=0.15, metavar="M", help="object width [m] (default 0.15)")
    parser.add_argument("--height", type=float, default=0.3, metavar="M", help="object height [m] (default 0.3)")
    parser.add_argument("--t-max", type=float, default=3.0, metavar="S", help="longest transition t_m [s] (3)")
    parser.add_argument("--samples", type=int, default=41, metavar="N", help="constraint instants, 5..400 (default 41)")
    parser.add_argument("--rate", type=int, default=200, choices=RATES, help="trajectory rate [Hz] (default 200)")
    parser.add_argument("--play", action="store_true", help="also play the lift in the simulator")
    add_record_arguments(parser)
    parser.add_argument("--output", "-o", default="LIFT.json", help="output JSON file (its folder must exist)")


def run(args) -> int:

    from humanoid_model import load_robot
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.files import clear_output
    from humanoid_model.formats.trajectory import write_trajectory_file
    from humanoid_model.validation import finite_number, integer
    from humanoid_planner.lifting.overhead import LiftSettings, check_lift, optimise_lift, thesis_postures
    from humanoid_planner.lifting.sagittal import CarriedObject, SagittalChain

    mass = finite_number(args.mass, "lift", "--mass", minimum=0.0, maximum=MAX_MASS, unit="kg")
    width = finite_number(args.width, "lift", "--width", minimum=0.0, maximum=1.0, unit="m")
    height = finite_number(args.height, "lift", "--height", minimum=0.0, maximum=1.0, unit="m")
    t_max = finite_number(args.t_max, "lift", "--t-max", minimum=0.0, strict=True, maximum=60.0, unit="s")
    samples = integer(args.samples, "lift", "--samples", 5, maximum=400)
    record = recorder(args, "lift")
    clear_output(args.output, "LIFT.json", ConfigError)
    robot = load_robot("hrp2")
    chain = SagittalChain(robot, CarriedObject(mass, width, height))
    postures = thesis_postures(chain)
    for name, r in postures.residual.items():
        print(f"{name} posture: {1000 * max(r['hip'], r['shoulder'], r['object']):.1f} mm from the thesis's points")
    settings = LiftSettings(t_max=t_max, t_min=min(LiftSettings().t_min, t_max), samples=samples)
    print("optimising the lift (IPOPT) ...", flush=True)
    lift = optimise_lift(chain, postures, settings)
    print(f"t_f {lift.t_f:.3f} s, E_r {lift.energy:.1f} J, {lift.iterations} iterations in {lift.seconds:.1f} s")
    check = check_lift(chain, lift, settings)
    print("\n".join(check.lines()), flush=True)
    over = check.exceeded()
    if over:
        print(f"warning: {', '.join(over)} exceeded between the optimiser's instants: try more --samples", flush=True)
    t, theta, _thd, _thdd = lift.sample(1.0 / args.rate)
    doc = chain.trajectory_document(t, theta)
    doc["lift"] = {
        "object": {"mass": mass, "width": width, "height": height},
        "t_f": lift.t_f,
        "energy": lift.energy,
        "sagittal_joints": [list(g) for g in chain.joints.names],
        "theta": theta.tolist(),
    }
    out = write_trajectory_file(args.output, doc, "LIFT.json", ConfigError)
    print(f"wrote {out}: {len(t)} points at {args.rate} Hz")
    if not args.play:
        return 0
    from humanoid_execution.lift_playback import play_lift

    print("playing it in the simulator ...", flush=True)
    played = play_lift(chain, lift, record=record)
    print("\n".join(played.lines()))
    if record is not None:
        print(f"wrote the run to {args.record}: humanoid-stack view hrp2 --replay {args.record}")
    return 1 if played.fallen else 0
