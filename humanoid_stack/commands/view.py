"""`humanoid-stack view`: the web viewer without ROS (robot, scene, postures, sliders, replay)."""

from __future__ import annotations

HELP = "show a robot (and a scene, or a replay) in the web viewer"
DESCRIPTION = """\
Serve the web viewer (viser) and print its URL; open it in a browser. It shows the robot from
its URDF geometry with a posture selector, one slider per joint and a "show robot" checkbox, and
the scene (ground, bodies, free bodies, planner surfaces). No ROS is needed.

With --replay FILE it replays a recording: a 'humanoid-stack simulate' or 'execute' recording
(a rosbag2 bag, read by seeking in bounded memory, or any bag with /joint_states and optionally
/odom or /tf for the base, its joints matched to the robot's by name; or JSON Lines, where a run
cut off replays up to its last complete frame, with a warning; an executed
plan's stances are drawn as a plan's, at their times in the run), a contact plan
('humanoid-stack plan' PLAN.json: the motion, and the stances' contact frames and support
polygons with a stance selector that shows each witness posture), or any JSON with times
't' plus robot configurations ('q', the simulator's 'joints' + 'bodies', or a gait's
'phases'), with a timeline slider, play/pause, and contact forces as arrows when the file has
'contacts'. Formats: docs/viewer.md, docs/planning.md.

ROBOT is a shipped robot name (hrp2, bip) or a URDF path; 'none' shows a scene or a replay
without a robot. Default: none for a replay without robot configurations (free bodies only),
else the replay file's 'robot', else the scene's robot, else hrp2.
Ctrl-C stops the viewer (exit code 0).

examples:
  humanoid-stack view hrp2 --scene flat --posture half-sitting
  humanoid-stack view bip --port 8081
  humanoid-stack view hrp2 --scene incline --set incline.angle_deg=25
  humanoid-stack view hrp2 --replay run.jsonl
  humanoid-stack view hrp2 --replay run            # a bag folder (or run/run.mcap)
  humanoid-stack view hrp2 --host 0.0.0.0 --allow-origin https://robot.example
"""


def add_arguments(parser):
    parser.add_argument(
        "robot",
        nargs="?",
        default=None,
        metavar="ROBOT|URDF",
        help="shipped robot name or URDF path; 'none' for no robot (default: see above)",
    )
    parser.add_argument(
        "--scene",
        default=None,
        metavar="FILE|NAME",
        help="scene name (config/scenes/NAME.yaml) or YAML file (default: the replay's 'scene', else flat)",
    )
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="PATH=VALUE",
        help="scene override, e.g. incline.angle_deg=25 (repeatable; docs/scenes.md)",
    )
    parser.add_argument(
        "--posture",
        default=None,
        metavar="NAME",
        help="initial posture (default: the scene's robot posture, else the robot's default)",
    )
    parser.add_argument(
        "--replay",
        default=None,
        metavar="FILE",
        help="recording to replay (a rosbag2 bag, simulate's JSON Lines, or JSON; docs/recording.md, docs/viewer.md)",
    )
    add_server_arguments(parser)


def add_server_arguments(parser):
    """The web server's options, shared by the commands that serve the viewer (view, pilot):
    --port, --host, --allow-origin, --duration (`check_server_arguments` checks them)."""
    parser.add_argument(
        "--port",
        type=int,
        default=8080,
        metavar="N",
        help="HTTP port (default 8080; 0 picks a free port; a busy port is an error, exit 2)",
    )
    parser.add_argument(
        "--host", default="127.0.0.1", metavar="H", help="address to serve on (default 127.0.0.1: this machine only)"
    )
    parser.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="URL",
        help="also serve pages of this origin, scheme://host[:port] (repeatable; e.g. a reverse proxy's "
        "https://robot.example). Without it, requests whose Origin is not the viewer's own page or whose "
        "Host is not this machine get HTTP 403. '*' allows any (unsafe)",
    )
    parser.add_argument(
        "--duration",
        type=float,
        default=None,
        metavar="S",
        help="exit after S seconds [s] (for tests; default: run until Ctrl-C)",
    )


def check_server_arguments(args) -> None:
    """`ConfigError` for a bad --duration or --port, `ViewerError` for a malformed --allow-origin:
    before anything loads."""
    from humanoid_model.exceptions import ConfigError
    from humanoid_viewer.serving import normalize_origin

    if args.duration is not None and not args.duration > 0:
        raise ConfigError(f"--duration must be > 0 [s], got {args.duration}")
    if not 0 <= args.port < 65536:
        raise ConfigError(f"--port must be in 0..65535, got {args.port}")
    for origin in args.allow_origin:  # a malformed origin fails before the robot loads
        normalize_origin(origin)


def run(args) -> int:
    import sys
    import threading

    check_server_arguments(args)

    from humanoid_model.formats.bag import is_bag
    from humanoid_model.scene import parse_set_args
    from humanoid_stack.interruptible import wait_interruptibly
    from humanoid_viewer.app import Viewer
    from humanoid_viewer.bag_replay import bag_document, load_bag_recording
    from humanoid_viewer.replay import parse_recording, read_recording_document

    overrides = parse_set_args(args.set)

    def warn(text):
        print(f"humanoid-stack view: warning: {text}", file=sys.stderr, flush=True)

    bag = args.replay is not None and is_bag(args.replay)
    if bag:  # a rosbag2 bag: replayed by seeking (humanoid_viewer.bag_replay)
        doc = bag_document(args.replay)
    else:
        doc = read_recording_document(args.replay, warn) if args.replay else None
    scene_arg = args.scene
    if scene_arg is None and isinstance(doc, dict) and isinstance(doc.get("scene"), str):
        scene_arg = doc["scene"]
    if scene_arg is None:
        scene_arg = "flat"
    scene = _load_scene(scene_arg, overrides)

    robot_arg = choose_robot(args.robot, doc, scene)
    robot = None
    if str(robot_arg).lower() != "none":
        from humanoid_model.robot import load_robot

        robot = load_robot(robot_arg)

    if bag:
        recording = load_bag_recording(args.replay, robot, warn)
    else:
        recording = parse_recording(doc, robot, args.replay) if doc is not None else None
    from humanoid_viewer.serving import exposure_warning

    exposure = exposure_warning(args.host, args.allow_origin)
    if exposure:
        print(f"humanoid-stack view: warning: {exposure}", file=sys.stderr, flush=True)
    viewer = Viewer(
        robot,
        scene,
        posture=args.posture,
        host=args.host,
        port=args.port,
        verbose=False,
        allow_origins=args.allow_origin,
    )
    stop = threading.Event()
    try:
        if recording is not None:
            viewer.load_replay(recording)
            viewer.play()
        print(f"humanoid-stack view: {viewer.url}  (Ctrl-C to stop)", flush=True)
        wait_interruptibly(stop, args.duration)  # None: until Ctrl-C
    except KeyboardInterrupt:
        pass
    finally:
        close_within(viewer, CLOSE_TIMEOUT)
    return 0


def choose_robot(robot_arg, doc, scene) -> str:
    """The robot to show: ``robot_arg`` when given; else 'none' for a replay without robot
    configurations (free bodies only), the replay's 'robot', the scene's robot, or hrp2."""
    if robot_arg is not None:
        return robot_arg
    scene_robot = getattr(scene, "robot", None) if scene is not None else None
    if isinstance(doc, dict) and not any(k in doc for k in ("q", "joints", "phases", "trajectory")):
        return "none"  # a recording of free bodies only
    if isinstance(doc, dict) and isinstance(doc.get("robot"), str):
        return doc["robot"]
    if scene_robot is not None and getattr(scene_robot, "name", None):
        return scene_robot.name
    return "hrp2"


CLOSE_TIMEOUT = 5.0  # [s] chosen: the web server normally stops in well under 1 s


def close_within(viewer, timeout):
    """Stop the viewer; if its web server does not stop within `timeout` [s] (a client still
    connected on a loaded machine), end the process anyway with exit code 0 instead of hanging
    on the server's remaining threads at interpreter shutdown."""
    import os
    import sys
    import threading

    closer = threading.Thread(target=viewer.close, name="viewer-close", daemon=True)
    closer.start()
    closer.join(timeout)
    if closer.is_alive():
        print(f"humanoid-stack view: web server did not stop within {timeout:g} s; exiting", file=sys.stderr)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)


def _load_scene(name, overrides=None):
    from humanoid_model.scene import load_scene

    return load_scene(name, overrides or None)
