"""`humanoid-stack walk`: an HRP-2 walking pattern (ZMP preview control + whole-body IK) written
as a joint trajectory plan (the GAIT.json trajectory layout the bridge and the viewer read)."""

from __future__ import annotations

HELP = "walking pattern generator (HRP-2): ZMP preview control, swing feet, whole-body IK; write WALK.json"
DESCRIPTION = """Straight walking of HRP-2 (issue 12; method and constants: docs/walking.md).

The CoM follows Kajita's ZMP preview control (2003) of the footsteps' reference ZMP, the feet
their swing profiles, and the prioritized kinematic solver turns both into joint trajectories.

example:
  humanoid-stack walk --robot hrp2 --steps 6 --step-length 0.2 --output WALK.json
"""

RATES = (200, 1000)  # [Hz] trajectory sampling rates offered (issue 12: 1 kHz or 200 Hz)


def add_arguments(parser):
    parser.add_argument("--robot", default="hrp2", help="robot (only 'hrp2' has a walking structure)")
    parser.add_argument("--steps", type=int, default=6, metavar="N", help="number of footsteps (default 6)")
    parser.add_argument(
        "--step-length", type=float, default=0.2, metavar="M", help="distance between footprints [m] (default 0.2)"
    )
    parser.add_argument("--ss", type=float, default=0.8, metavar="S", help="single-support duration [s] (default 0.8)")
    parser.add_argument("--ds", type=float, default=0.2, metavar="S", help="double-support duration [s] (default 0.2)")
    parser.add_argument(
        "--step-height", type=float, default=0.05, metavar="M", help="swing-foot apex [m] (default 0.05)"
    )
    parser.add_argument("--rate", type=int, default=200, choices=RATES, help="trajectory rate [Hz] (default 200)")
    parser.add_argument("--output", "-o", default="WALK.json", help="output JSON file")


def run(args) -> int:
    import json
    from pathlib import Path

    from humanoid_control.walking import plan_json, solve_walk
    from humanoid_model import load_robot
    from humanoid_model.exceptions import ConfigError
    from humanoid_planner.walking import WalkParameters, foot_geometry, plan_pattern

    if args.robot != "hrp2":
        raise ConfigError(f"walk: option '--robot' = {args.robot!r}: only 'hrp2' has a walking structure")
    params = WalkParameters(
        n_steps=args.steps,
        step_length=args.step_length,
        t_ss=args.ss,
        t_ds=args.ds,
        step_height=args.step_height,
        dt=1.0 / args.rate,
    )
    robot = load_robot(args.robot)
    pattern = plan_pattern(params, foot_geometry(robot))
    zmp_err = abs(pattern.zmp - pattern.zmp_ref).max()
    print(
        f"pattern: {params.n_steps} steps of {params.step_length} m, {params.duration:.2f} s, "
        f"{len(pattern.t)} samples; ZMP tracking error {1e3 * zmp_err:.2f} mm",
        flush=True,
    )
    ik = solve_walk(pattern.com, pattern.feet, robot=args.robot, progress=lambda m: print(m, flush=True))
    extra = {
        "parameters": {k: getattr(params, k) for k in params.__dataclass_fields__},
        "footsteps": [
            {"index": s.index, "foot": s.foot, "target": list(s.target), "t_lift": s.t_lift, "t_land": s.t_land}
            for s in pattern.steps
        ],
        "com": pattern.com.tolist(),
        "zmp_ref": pattern.zmp_ref.tolist(),
        "zmp": pattern.zmp.tolist(),
        "feet": {k: v.tolist() for k, v in pattern.feet.items()},
        "support": pattern.support.tolist(),
    }
    out = Path(args.output)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(plan_json(args.robot, pattern.t, ik, extra)))
    print(
        f"wrote {out}: {len(pattern.t)} points at {args.rate} Hz; max sole error {1e3 * ik.foot_error.max():.4f} mm, "
        f"CoM error {1e3 * ik.com_error.max():.4f} mm, waist tilt {ik.torso_tilt.max():.2e} rad"
    )
    return 0
