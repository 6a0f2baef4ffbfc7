"""`humanoid-stack walk`: an HRP-2 walking pattern (ZMP preview control + whole-body IK) written
as a joint trajectory plan, WALK.json (`humanoid_model.formats.trajectory`: the GAIT.json trajectory
layout the bridge and the viewer read)."""

from __future__ import annotations

from humanoid_planner.bounds import MAX_WALK_STEPS

HELP = "walking pattern generator (HRP-2): ZMP preview control, swing feet, whole-body IK; write WALK.json"
DESCRIPTION = """Straight walking of HRP-2 (method and constants: docs/walking.md).

The CoM follows Kajita's ZMP preview control (2003) of the footsteps' reference ZMP, the feet
their swing profiles, and the prioritized kinematic solver turns both into joint trajectories.

--generator walkgen2008 takes the settings of the generator the thesis walked HRP-2 with
(Stasse et al. 2008): 0.78 s / 0.02 s single / double support, 0.12 m steps high, its swing
profile, the waist at constant height; --ss, --ds and --step-height still override them.

At most 100 footsteps and 150,000 samples (--rate x the walk's duration); --ss and --ds up to
10 s. Once the options are checked, a file already at the output path is removed, and WALK.json
is written (atomically) at the end: after Ctrl-C (exit 130, one line) or an error no file is there.
The output's folder must exist.

example:
  humanoid-stack walk --robot hrp2 --steps 6 --step-length 0.2 --output WALK.json
  humanoid-stack walk --generator walkgen2008 --steps 6 --step-length 0.15 --output WALK.json
"""

INTERRUPTED = "no WALK.json written (one left at the output path by an earlier run was removed)"
RATES = (200, 1000)  # [Hz] trajectory sampling rates offered (HRP-2's 5 ms control period [HRP2-T1], or 1 ms)
GENERATORS = ("kajita", "walkgen2008")  # WalkParameters() / WalkParameters.walkgen_2008() (docs/walking.md)


def add_arguments(parser):
    parser.add_argument("--robot", default="hrp2", help="robot (only 'hrp2' has a walking structure)")
    parser.add_argument(
        "--steps", type=int, default=6, metavar="N", help=f"number of footsteps, 1..{MAX_WALK_STEPS} (default 6)"
    )
    parser.add_argument(
        "--step-length", type=float, default=0.2, metavar="M", help="distance between footprints [m] (default 0.2)"
    )
    parser.add_argument(
        "--generator",
        default="kajita",
        choices=GENERATORS,
        help="kajita: this generator's defaults; walkgen2008: the thesis's generator's (default kajita)",
    )
    parser.add_argument(
        "--ss", type=float, default=None, metavar="S", help="single-support duration [s], up to 10 (0.8, 0.78)"
    )
    parser.add_argument(
        "--ds", type=float, default=None, metavar="S", help="double-support duration [s], up to 10 (0.2, 0.02)"
    )
    parser.add_argument("--step-height", type=float, default=None, metavar="M", help="swing-foot apex [m] (0.05, 0.12)")
    parser.add_argument("--rate", type=int, default=200, choices=RATES, help="trajectory rate [Hz] (default 200)")
    parser.add_argument("--output", "-o", default="WALK.json", help="output JSON file (its folder must exist)")


def run(args) -> int:
    import numpy as np

    from humanoid_control.walking_ik import plan_json, solve_walking_ik
    from humanoid_model import load_robot
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.files import clear_output
    from humanoid_model.formats.trajectory import write_trajectory_file
    from humanoid_planner.walking_pattern import WalkParameters, foot_geometry, plan_pattern

    if args.robot != "hrp2":
        raise ConfigError(f"walk: option '--robot' = {args.robot!r}: only 'hrp2' has a walking structure")
    given = {"t_ss": args.ss, "t_ds": args.ds, "step_height": args.step_height}
    kw = {"n_steps": args.steps, "step_length": args.step_length, "dt": 1.0 / args.rate}
    kw.update({k: v for k, v in given.items() if v is not None})
    params = WalkParameters.walkgen_2008(**kw) if args.generator == "walkgen2008" else WalkParameters(**kw)
    clear_output(args.output, "WALK.json", ConfigError)  # no older WALK.json left to be taken for this run's
    robot = load_robot(args.robot)
    pattern = plan_pattern(params, foot_geometry(robot))
    zmp_err = abs(pattern.zmp - pattern.zmp_ref).max()
    print(
        f"pattern: {params.n_steps} steps of {params.step_length} m, {params.duration:.2f} s, "
        f"{len(pattern.t)} samples; ZMP tracking error {1e3 * zmp_err:.2f} mm",
        flush=True,
    )
    ik = solve_walking_ik(
        pattern.com, pattern.feet, robot=args.robot, progress=lambda m: print(m, flush=True), hold=params.hold
    )
    extra = pattern.summary()
    out = write_trajectory_file(args.output, plan_json(args.robot, pattern.t, ik, extra), "WALK.json", ConfigError)
    print(
        f"wrote {out}: {len(pattern.t)} points at {args.rate} Hz; max sole error {1e3 * ik.foot_error.max():.4f} mm, "
        f"CoM error {1e3 * ik.com_error.max():.4f} mm, waist tilt {ik.torso_tilt.max():.2e} rad, "
        f"waist height p-p {1e3 * np.ptp(ik.waist_z):.4f} mm"
    )
    return 0
