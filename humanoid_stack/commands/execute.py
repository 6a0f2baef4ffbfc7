"""`humanoid-stack execute`: a motion file executed in closed loop in the simulator, as on a
robot, with a report (docs/execution.md)."""

from __future__ import annotations

HELP = "execute a motion (PLAN.json, WALK.json, GAIT.json) in the simulator in closed loop and report"
DESCRIPTION = """\
Run a motion in the simulator the way a robot would perform it, and report how well it was done.

The whole-body controller (--controller wbc, default; docs/execution.md) computes the joint
torques every simulator step (1 kHz) from the measured state: task-space inverse dynamics, one QP
over the joint accelerations and the contact forces (floating-base dynamics, contacts held with
forces in their friction cones and the centre of pressure inside each sole, torque and joint
limits; tasks: the CoM, the base's orientation, the moving contacts, the posture). The motion's
contact schedule follows the measured state: a contact made early or late is handled, a contact is
unloaded before it is broken. A contact plan is slowed where its dynamics would need more than the
support gives. --controller pd instead sends the joint trajectory alone to the simulator's PD
actuators, the way the robot bridge drives a position-controlled robot: no balance (--gain-scale
stiffens them: 3 is the walking plans' servos).

A robot link outside the motion's contacts loaded on the environment for 50 ms is a fall and ends
the run; --through-touches lets the run go on (only the base's fall ends it) to show what happens
next, a leg against a table say. --until T ends the run T seconds after the motion's start.

The scene is the motion's (PLAN.json's; flat for WALK.json and GAIT.json) unless --scene is
given; the motion must start where the scene puts the robot. The report gives success or the
reason (a fall, a safe hold), each contact made and held at the end against its planned placement,
the CoM's tracking error (RMS, max), the smallest centre-of-pressure margin, the largest
force-to-cone ratio, torque saturation, how far each contact lifted and slid while the plan held
it, the base's rotation away from the plan, the other links that touched the environment, the
controller's cycle time and the run's real-time factor.
--output writes a recording that 'view --replay' plays (a rosbag2 bag folder with MCAP storage, or
JSON Lines for OUTPUT.jsonl or --record-format jsonl; docs/recording.md); --json the report as JSON.

Exit status: 0 the motion was done, 1 it was not (a fall or a safe hold: the reason is printed),
2 bad input (one line), 130 Ctrl-C (the recording keeps the frames written so far).

examples:
  humanoid-stack plan flat --goal 0.8,0 --output PLAN.json
  humanoid-stack execute PLAN.json --output RUN          # the bag RUN/RUN.mcap (RUN.jsonl: JSON Lines)
  humanoid-stack walk --steps 6 --output WALK.json && humanoid-stack execute WALK.json --push 4.2,0,60,0
  humanoid-stack execute PLAN.json --controller pd         # the trajectory alone: HRP-2 falls
  humanoid-stack plan table_can -o CAN.json && humanoid-stack execute CAN.json --controller pd \
      --gain-scale 3 --no-retime --through-touches --until 72     # the unsafe reach (docs/execution.md)
  humanoid-stack view --replay RUN
"""

INTERRUPTED = "the recording holds the frames written so far, without its end line"


def add_arguments(parser):
    parser.add_argument("motion", metavar="FILE", help="PLAN.json, WALK.json or GAIT.json")
    parser.add_argument("--scene", default=None, help="scene name or file (default: the motion's; flat for a walk)")
    parser.add_argument("--controller", default="wbc", choices=("wbc", "pd"), help="controller (default wbc)")
    parser.add_argument(
        "--output", "-o", default=None, metavar="OUTPUT", help="recording: a bag folder (mcap) or RUN.jsonl (jsonl)"
    )
    parser.add_argument(
        "--record-format",
        choices=("mcap", "jsonl"),
        default=None,
        help="recording format (default: jsonl when OUTPUT ends in .jsonl or .json, else mcap; docs/recording.md)",
    )
    parser.add_argument("--json", default=None, metavar="REPORT.json", help="write the report as JSON")
    parser.add_argument(
        "--push",
        action="append",
        default=[],
        metavar="T,FX,FY,FZ[,DURATION[,LINK]]",
        help="push the robot at T [s] with a world force [N] for DURATION [s] (default 0.1) on LINK "
        "(default the base); repeatable",
    )
    parser.add_argument(
        "--model-error",
        type=float,
        default=0.0,
        metavar="E",
        help="every mass in the controller's model off by a random factor within +-E (0..0.9; default 0)",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="N", help="seed of --model-error's draw (default 0)")
    parser.add_argument(
        "--extra-time", type=float, default=1.0, metavar="S", help="time simulated after the motion [s] (default 1)"
    )
    parser.add_argument("--record-every", type=int, default=10, metavar="N", help="record every N steps (default 10)")
    parser.add_argument("--no-retime", action="store_true", help="follow a plan at its own timing, never slowed")
    parser.add_argument(
        "--gain-scale",
        type=float,
        default=1.0,
        metavar="S",
        help="--controller pd: the PD servos' natural frequency times S (0 < S <= 10; default 1: 10 Hz)",
    )
    parser.add_argument(
        "--through-touches",
        action="store_true",
        help="a link touching the environment outside the motion's contacts does not end the run",
    )
    parser.add_argument(
        "--until", type=float, default=None, metavar="T", help="end the run T [s] after the motion's start"
    )
    parser.add_argument(
        "--robot",
        default=None,
        metavar="ROBOT",
        help="the robot that executes the motion: a shipped name or a URDF file, its name the motion's "
        "(default: the motion's robot, a shipped one; a plan of example-robot-data's Talos needs its URDF here)",
    )
    parser.add_argument(
        "--allow-unconverged", action="store_true", help="execute a gait with a phase its solver did not converge on"
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")


def _push(text: str):
    from humanoid_execution.run import Push
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.validation import message

    parts = [p.strip() for p in text.split(",")]
    try:
        if len(parts) not in (4, 5, 6):
            raise ValueError
        t, fx, fy, fz = (float(p) for p in parts[:4])
        duration = float(parts[4]) if len(parts) > 4 else 0.1
    except ValueError:
        raise ConfigError(message("command line", "--push", "T,FX,FY,FZ[,DURATION[,LINK]] (numbers)", text)) from None
    return Push(t, (fx, fy, fz), duration, parts[5] if len(parts) > 5 else "")


def run(args) -> int:
    import json

    from humanoid_execution.run import MAX_GAIN_SCALE, RunSettings, execute
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.files import check_input, clear_output, write_text
    from humanoid_model.validation import finite_number, integer, message
    from humanoid_sim.runtime.recording import check_recording_output

    source = "command line"
    check_input(args.motion, "motion file", ConfigError)
    finite_number(args.model_error, source, "--model-error", minimum=0.0, maximum=0.9)
    integer(args.seed, source, "--seed", minimum=0, maximum=2**32 - 1)
    finite_number(args.extra_time, source, "--extra-time", minimum=0.0, maximum=60.0, unit="s")
    integer(args.record_every, source, "--record-every", minimum=1, maximum=1000)
    finite_number(args.gain_scale, source, "--gain-scale", minimum=0.0, strict=True, maximum=MAX_GAIN_SCALE)
    if args.gain_scale != 1.0 and args.controller != "pd":
        expected = "1 with --controller wbc (it commands torques)"
        raise ConfigError(message(source, "--gain-scale", expected, args.gain_scale))
    if args.until is not None:
        finite_number(args.until, source, "--until", minimum=0.0, strict=True, unit="s")
    pushes = [_push(p) for p in args.push]
    record_format = None
    if args.output is not None:
        record_format = check_recording_output(args.output, args.record_format)
    if args.json is not None:
        clear_output(args.json, "report", ConfigError)
    settings = RunSettings(
        controller=args.controller,
        scene=args.scene,
        extra_time=args.extra_time,
        model_error=args.model_error,
        seed=args.seed,
        pushes=pushes,
        allow_unconverged=args.allow_unconverged,
        record_every=args.record_every,
        record_format=record_format,
        retime=not args.no_retime,
        gain_scale=args.gain_scale,
        through_touches=args.through_touches,
        until=args.until,
        robot=args.robot,
    )
    bar = None
    last = [0.0]

    def progress(t, end):
        nonlocal bar
        if args.quiet:
            return
        if bar is None:
            from tqdm import tqdm

            bar = tqdm(
                total=round(end, 1),
                unit="s",
                desc="execute",
                mininterval=0.5,
                bar_format="{l_bar}{bar}| {n:.1f}/{total} s [{elapsed}<{remaining}]",
            )
        t = min(t, bar.total)  # the last step may end a sample past the rounded total
        bar.update(round(t - last[0], 3))
        last[0] = t

    print(f"execute {args.motion}: controller {args.controller}", flush=True)
    try:
        run = execute(args.motion, settings, output=args.output, progress=progress)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        where = f"; {args.output}: {INTERRUPTED}" if args.output else ""
        print(f"humanoid-stack execute: interrupted{where}")
        raise
    if bar is not None:
        bar.close()
    ref = run.reference
    if ref.duration > ref.nominal_duration + 1e-6:
        print(
            f"the plan was slowed where its dynamics would push the centre of pressure out of the support: "
            f"{ref.nominal_duration:.2f} s -> {ref.duration:.2f} s"
        )
    print("\n".join(run.report.lines()))
    if args.output is not None:
        print(f"wrote {args.output} (replay: humanoid-stack view --replay {args.output})")
    if args.json is not None:
        write_text(args.json, json.dumps(run.report.as_dict(), indent=1) + "\n", "report", ConfigError)
        print(f"wrote {args.json}")
    return 0 if run.report.success else 1
