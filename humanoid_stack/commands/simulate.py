"""`humanoid-stack simulate`: headless simulator run recorded as a rosbag2 bag (MCAP) or a JSON Lines
stream (docs/recording.md)."""

from __future__ import annotations

HELP = "run the physics simulator headless on a scene and write a recording (rosbag2 MCAP or JSON Lines)"
DESCRIPTION = """\
Run the simulator (humanoid_sim.World) on a scene as fast as possible, with a progress bar,
and write a recording as it runs (constant memory, however long the run).

--record-format mcap (the default unless OUTPUT ends in .jsonl or .json) writes a rosbag2 bag, the folder
OUTPUT/ with OUTPUT.mcap and metadata.yaml, that ROS tools read (ros2 bag play, RViz, Foxglove):
/joint_states, /odom, /tf and /tf_static, /free_bodies, /imu, /<sensor>/wrench, /contacts
(MarkerArray), stamped with the simulated time; OUTPUT must not exist yet.

--record-format jsonl (the default for OUTPUT.jsonl) streams a JSON Lines recording:
a header line, then one line per recorded frame (times, poses and velocities of every free body
and of the robot base, joint positions/velocities/torques, contacts: points, normals, forces,
gaps), then an end line with the timing statistics. A run cut off (Ctrl-C: exit 130, one line; killed)
keeps every frame written so far and has no end line, which is how a reader tells it from a
complete run ('view --replay' warns). Formats: docs/recording.md. Replay either with
'humanoid-stack view --replay OUTPUT'. The output's folder must exist.

Bounds: at most 10,000,000 steps (--duration / --dt) and 150,000 recorded frames (steps /
--record-every), so that a run ends and its recording stays readable (docs/recording.md).

SCENE is a scene file or a shipped scene name (config/scenes/NAME.yaml). The robot is the
scene's (held in its posture by the PD actuators), or --robot NAME, or none for a scene of
free bodies only.

examples:
  humanoid-stack simulate flat --duration 2 --output stand          # the bag stand/stand.mcap
  humanoid-stack simulate sphere_drop --duration 1 --output drop.jsonl
  humanoid-stack simulate incline --set incline.angle_deg=25 --output slide.jsonl
  humanoid-stack simulate flat --duration 10 --record-every 10 --solver nsgs --output stand.jsonl
"""


def add_arguments(parser):
    parser.add_argument("scene", metavar="SCENE", help="scene YAML file or shipped scene name")
    parser.add_argument(
        "--robot",
        default=None,
        metavar="NAME",
        help="robot name or URDF path (default: the scene's robot; 'none': no robot)",
    )
    parser.add_argument("--duration", type=float, default=1.0, metavar="S", help="simulated time [s] (default 1)")
    parser.add_argument("--dt", type=float, default=1e-3, metavar="S", help="time step [s] (default 0.001)")
    parser.add_argument(
        "--solver",
        default=None,
        metavar="NAME",
        help="contact solver (default nsgs_newton; also nsgs, projection, lemke_lcp, pinocchio_admm, pinocchio_pgs)",
    )
    parser.add_argument("--record-every", type=int, default=10, metavar="N", help="record every N steps (default 10)")
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="scene override, e.g. incline.angle_deg=25 (repeatable)",
    )
    parser.add_argument("--no-contacts", action="store_true", help="do not record contacts")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument(
        "--output", "-o", required=True, metavar="OUTPUT", help="output: a bag folder (mcap) or RUN.jsonl (jsonl)"
    )
    parser.add_argument(
        "--record-format",
        choices=("mcap", "jsonl"),
        default=None,
        help="recording format (default: jsonl when OUTPUT ends in .jsonl or .json, else mcap)",
    )


#: (chosen) steps of a run at most: 10,000 s at the default 1 ms step
MAX_STEPS = 10_000_000
#: (chosen) recorded frames at most: HRP-2's frames of ~2.7 kB (80 MB for its 300 s at the default rate,
#: docs/recording.md) make ~400 MB, under the 512 MiB a replay reads (humanoid_model.files.MAX_INPUT_BYTES)
MAX_FRAMES = 150_000
INTERRUPTED = "the recording holds the frames written so far, without its end line"


def run(args) -> int:
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.scene import load_scene, parse_set_args
    from humanoid_model.validation import finite_number, integer, message
    from humanoid_sim.runtime.recording import check_recording_output, record_run
    from humanoid_sim.world import MAX_DT, World

    source = "command line"
    finite_number(args.duration, source, "--duration", minimum=0.0, strict=True, unit="s")
    finite_number(args.dt, source, "--dt", minimum=0.0, strict=True, maximum=MAX_DT, unit="s")
    integer(args.record_every, source, "--record-every", minimum=1)
    steps = args.duration / args.dt
    if round(steps) < 1:
        raise ConfigError(message(source, "--duration", f"at least one step (--dt {args.dt!r} s)", args.duration))
    if steps > MAX_STEPS:
        bound = f"at most {MAX_STEPS} steps of --dt {args.dt!r} s"
        raise ConfigError(message(source, "--duration", bound, args.duration))
    if steps / args.record_every > MAX_FRAMES:
        raise ConfigError(
            message(
                source,
                "--record-every",
                f"at least {int(steps // MAX_FRAMES) + 1}: at most {MAX_FRAMES} frames are recorded",
                args.record_every,
            )
        )
    if args.solver is not None and not args.solver.strip():
        raise ConfigError(message(source, "--solver", "a solver name", args.solver))
    record_format = check_recording_output(args.output, args.record_format)
    overrides = parse_set_args(args.set)
    scene = load_scene(args.scene, overrides)
    robot = args.robot
    if robot is not None and robot.lower() == "none":
        scene.robot = None
        robot = None
    # another robot than the scene's: World.from_scene keeps the scene's posture and joint
    # overrides only where the new robot knows them
    world = World.from_scene(scene, robot=robot, solver=args.solver, dt=args.dt)
    steps = int(round(args.duration / args.dt))
    bar = None
    if not args.quiet:
        from tqdm import tqdm

        bar = tqdm(total=steps, unit="step", desc=f"simulate {scene.name}", mininterval=0.5)
    chunk = max(1, steps // 200)

    def progress(k):
        if bar is not None and k % chunk == 0:
            bar.update(chunk)

    try:
        contacts, report = not args.no_contacts, progress if bar is not None else None
        path = record_run(world, steps, args.output, args.record_every, contacts, progress=report, format=record_format)
    except KeyboardInterrupt:
        if bar is not None:
            bar.close()
        print(f"humanoid-stack simulate: interrupted at t = {world.t:g} s; {args.output} holds the frames so far")
        raise  # exit 130 (humanoid_stack.cli)
    if bar is not None:
        bar.update(steps - bar.n)
        bar.close()
    s = world.stats()
    print(
        f"wrote {path}: {steps} steps of {args.dt * 1e3:g} ms, median step "
        f"{s['median_step_time'] * 1e3:.3f} ms, solver {s['solver']} "
        f"({s['iterations_total'] / max(steps, 1):.1f} iterations/step)"
    )
    return 0
