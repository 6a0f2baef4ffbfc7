"""`humanoid-stack pilot`: the kinematic solver and the web viewer in one process (no ROS)."""

from __future__ import annotations

HELP = "drag frames of a kinematic structure (HRP-2, a MAD robot, a URDF) in the web viewer, loops closed"
DESCRIPTION = """\
Start the kinematic solver (a loop at --rate, 25 Hz by default: the thesis's real-time
requirement) and the web viewer in one process, print the viewer's URL and run until Ctrl-C.

In the browser each driven frame has a transform gizmo: drag it and the frame follows (inverse
mode) while the structure's closures hold (HRP-2: both feet welded, the centre of mass kept over
them; the hybrid robot: its loop closed). Switch "control" to direct mode to move joints with the
sliders instead, the loops still closed. The readout shows the dexterity sigma_max/sigma_min, the
residual (how far the solved frames are from their gizmos) and the loop gap; orange spheres at the
joints grow with the joint speeds.

TARGET is a kinematic structure name (hrp2, hybrid_planar, macdac, cross_delta, redundant_6r:
urdf/kinematics/NAME.kin.yaml), a NAME.kin.yaml sidecar, a MAD file of the Flueckiger thesis
(converted on the fly, as 'humanoid-stack mad2urdf') or a URDF (fixed base, no closures, gizmos on
its end links). Formats and solver: docs/kinematics.md; this command: docs/piloting.md.

examples:
  humanoid-stack pilot hrp2
  humanoid-stack pilot urdf/kinematics/hybrid_planar.mad --mode position
  humanoid-stack pilot hrp2 --frames r_hand --command-frame tool --port 8081
"""


def add_arguments(parser):
    parser.add_argument("target", metavar="ROBOT|FILE.mad|FILE.kin.yaml|URDF", help="structure to pilot (see above)")
    parser.add_argument(
        "--frames",
        default=None,
        metavar="F1,F2",
        help="comma-separated frames that get a gizmo (default: the sidecar's source frames, HRP-2's hands; "
        "a URDF's end links)",
    )
    parser.add_argument(
        "--mode",
        default="pose",
        choices=("pose", "position", "orientation"),
        help="what of a frame follows its gizmo (default pose: position and orientation)",
    )
    parser.add_argument(
        "--command-frame",
        default="world",
        choices=("world", "tool", "view"),
        help="gizmo axes: the world's, the frame's own (tool) or the browser camera's (view); rotations pivot "
        "about the frame's origin (default world)",
    )
    parser.add_argument(
        "--solver", default="prioritized", choices=("prioritized", "svd"), help="kinematic solver (default prioritized)"
    )
    parser.add_argument(
        "--rate", type=float, default=25.0, metavar="HZ", help="solver cycles per second (default 25, the thesis's)"
    )
    from humanoid_stack.commands.view import add_server_arguments

    add_server_arguments(parser)


def run(args) -> int:
    import sys
    import threading

    from humanoid_model.exceptions import ConfigError
    from humanoid_stack.commands.view import CLOSE_TIMEOUT, check_server_arguments, close_within
    from humanoid_stack.interruptible import wait_interruptibly

    if not args.rate > 0 or args.rate > 1000:
        raise ConfigError(f"--rate must be in (0, 1000] [Hz], got {args.rate}")
    check_server_arguments(args)
    from humanoid_viewer.serving import exposure_warning

    frames = None
    if args.frames is not None:
        frames = [f.strip() for f in args.frames.split(",") if f.strip()]
        if not frames:
            raise ConfigError(f"--frames must name at least one frame, got {args.frames!r}")

    from humanoid_stack.pilot_app import PilotApp

    exposure = exposure_warning(args.host, args.allow_origin)
    if exposure:
        print(f"humanoid-stack pilot: warning: {exposure}", file=sys.stderr, flush=True)
    app = PilotApp(
        args.target,
        frames=frames,
        mode=args.mode,
        solver=args.solver,
        rate=args.rate,
        command_frame=args.command_frame,
        host=args.host,
        port=args.port,
        allow_origins=args.allow_origin,
    )
    stop = threading.Event()
    try:
        app.start()
        s = app.session
        gizmos = ", ".join(s.frames) or "none"
        print(
            f"humanoid-stack pilot: {app.viewer.url}  ({app.structure.name}: gizmos on {gizmos}, "
            f"closures {', '.join(app.structure.closures) or 'none'}, {s.solver} at {s.rate:g} Hz; Ctrl-C to stop)",
            flush=True,
        )
        wait_interruptibly(stop, args.duration)
    except KeyboardInterrupt:
        pass
    finally:
        app.loop.stop()
        close_within(app.viewer, CLOSE_TIMEOUT)
        app.close()
    return 0
