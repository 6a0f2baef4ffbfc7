"""`humanoid-stack demo`: the demo, i.e. `humanoid-stack up demo` (config/demo.yaml): HRP-2 plans,
checks and climbs the stairs in the simulator, in the web viewer."""

from __future__ import annotations

HELP = "run the demo: HRP-2 plans, checks and climbs the stairs in the simulator, in the web viewer (= 'up demo')"
DESCRIPTION = """\
Run the demo node set (config/demo.yaml), the whole stack on one robot: the web viewer serves at
once (its URL is printed: open it in a browser); the contact planner plans the stairs scene's
problem (five 15 cm steps, Escande 2008, section 5.4.2) from where the simulated HRP-2 stands, and
the viewer draws its stances; the robot bridge checks the plan (joint limits, speeds,
accelerations, the start state) and sends it to the simulator's whole-body controller, which climbs
the stairs under balance control, contact forces drawn. Each stage is a line of the log.
Ctrl-C stops it (exit 0). Same as 'humanoid-stack up demo [--set viewer.port=N]'.
HRP-2 standing and pushed: 'humanoid-stack up standing' (make demo-standing); BIP's gait:
make demo-gait.
"""

DEMO = "demo"


def add_arguments(parser):
    from humanoid_stack.runner import add_run_options

    add_run_options(parser, set_help="override one node parameter, as for 'up'; repeatable")
    parser.add_argument(
        "--port", type=int, default=None, metavar="N", help="web viewer port (default: the 'port' in config/demo.yaml)"
    )


def run(args) -> int:
    from humanoid_model.exceptions import ConfigError
    from humanoid_stack.runner import check_duration, load_node_set, run_nodes

    check_duration(args.duration)
    sets = list(args.sets)
    if args.port is not None:
        if not 0 < args.port < 65536:
            raise ConfigError(f"--port must be in 1..65535, got {args.port}")
        sets.append(f"viewer.port={args.port}")
    node_set = load_node_set(DEMO, sets)
    from humanoid_ros.viewer import PARAMETERS  # the viewer node's table: its defaults

    viewer = {**PARAMETERS.defaults(), **((node_set.parameters.get("viewer") or {}).get("ros__parameters") or {})}
    for node, param, value in node_set.overrides:
        if node == "viewer":
            viewer[param] = value
    host, port = viewer["host"], viewer["port"]
    print(
        f"humanoid-stack demo: HRP-2 plans and climbs the stairs; web viewer at http://{host}:{port}  (Ctrl-C to stop)",
        flush=True,
    )
    return run_nodes(node_set, duration=args.duration, lifecycle=args.lifecycle)
