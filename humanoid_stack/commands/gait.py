"""`humanoid-stack gait`: optimal walking gaits of the BIP biped (Chessé 2002), written to JSON."""

from __future__ import annotations

import math

BIP_PHASES = ("start", "cyclic", "stop", "walk", "ds", "ss")
HELP = "optimal gait generator (BIP, RABBIT, the five-bar; closed chains): solve phases, write GAIT.json"
DESCRIPTION = """Optimal walking of the sagittal BIP biped (Chessé 2002; docs/gait.md).

--robot rabbit: RABBIT's cyclic step from the thesis's data, --phase ds, ss or cyclic;
--robot five_bar: the bilateral five-bar's rest-to-rest transfers, --phase small, large or
transfers (both). These take no other option but --output and --verbose.

Phases: start (SS from rest), cyclic (DS + SS), stop (pre-stop DS + SS to rest), walk (all five),
ds / ss (one cyclic phase). Methods: direct (collocation + IPOPT) or pmp (indirect, the cyclic
phases: ds, ss or cyclic). A walk has one cyclic step (3 footsteps: start, cyclic, stop);
--cyclic-steps N repeats it N times (N + 2 footsteps), the periodic step solved once.

GAIT.json records for each phase whether its solver converged ("converged"); a phase that did not
is a warning and exit 1 (the file is still written; the robot bridge refuses it unless told to
send it, and 'view --replay' warns). --ds and --ss are durations from 0.02 to 2 s. Once the options
are checked, a file already at the output path is removed and GAIT.json is written (atomically)
at the end: Ctrl-C stops the solve (exit 130, one line) and leaves no file there.

examples:
  humanoid-stack gait --robot bip --phase walk --output GAIT.json --plot plots/
  humanoid-stack gait --phase walk --params urdf --cyclic-steps 3 -o GAIT.json && humanoid-stack execute GAIT.json
"""


PMP_PHASES = ("ds", "ss", "cyclic")  # the phases the PMP is tested on (test_gait_pmp.py)
INTERRUPTED = "no GAIT.json written (one left at the output path by an earlier run was removed)"


def add_arguments(parser):
    from humanoid_planner.bounds import MAX_CYCLIC_STEPS

    parser.add_argument("--robot", default="bip", help="robot: bip, rabbit or five_bar (the thesis's three)")
    parser.add_argument(
        "--phase",
        default=None,
        choices=[*BIP_PHASES, "small", "large", "transfers"],
        help="bip: start, cyclic, stop, walk (default), ds, ss; rabbit: ds, ss, cyclic (default); "
        "five_bar: small, large, transfers (default)",
    )
    parser.add_argument(
        "--step-length", type=float, default=None, metavar="M", help="step length LPAS, toe to toe [m] (default 0.5)"
    )
    parser.add_argument(
        "--ds", type=float, default=None, metavar="S", help="double-support duration [s], 0.02..2 (default 0.17)"
    )
    parser.add_argument(
        "--ss", type=float, default=None, metavar="S", help="single-support duration [s], 0.02..2 (default 0.5)"
    )
    parser.add_argument(
        "--cyclic-steps",
        type=int,
        default=None,
        metavar="N",
        help=f"with --phase walk: repeat the cyclic step N times, 1..{MAX_CYCLIC_STEPS} (default 1); "
        "the walk has N + 2 footsteps",
    )
    parser.add_argument("--method", default="direct", choices=["direct", "pmp"])
    parser.add_argument(
        "--params",
        default="thesis",
        choices=["thesis", "urdf"],
        help="parameter set: thesis-literal Table III-3 or the URDF (HuMAnS) data",
    )
    parser.add_argument(
        "--thesis-contacts",
        action="store_true",
        help="check friction and rear-toe unilaterality only a posteriori, as the "
        "thesis (default: also as NLP constraints)",
    )
    parser.add_argument("--output", "-o", default="GAIT.json", help="output JSON file (its folder must exist)")
    parser.add_argument(
        "--plot", default=None, metavar="DIR", help="write PNG plots into DIR (created in an existing folder)"
    )
    parser.add_argument("--verbose", action="store_true", help="show the IPOPT iterations")


def run(args) -> int:
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.files import clear_output
    from humanoid_model.formats.trajectory import write_trajectory_file
    from humanoid_model.validation import integer
    from humanoid_planner.bounds import MAX_CYCLIC_STEPS
    from humanoid_planner.exceptions import PlanningError
    from humanoid_planner.gait.chesse_robots import PHASES
    from humanoid_planner.gait.phase_sequence import (
        gait_json,
        make_problem,
        solve_cyclic_gait_sequence,
        solve_gait_sequence,
    )
    from humanoid_planner.gait.plots import check_plot_dir

    if args.robot in PHASES:
        return _run_chain(args)
    if args.robot != "bip":
        raise ConfigError(f"gait: option '--robot' = {args.robot!r}: expected bip, {' or '.join(PHASES)}")
    args.phase = args.phase or "walk"
    if args.phase not in BIP_PHASES:
        raise ConfigError(f"gait: option '--phase' = {args.phase!r} is not a phase of bip")
    if args.cyclic_steps is not None:
        integer(args.cyclic_steps, "command line", "--cyclic-steps", minimum=1, maximum=MAX_CYCLIC_STEPS)
        if args.phase != "walk" or args.method != "direct":
            raise ConfigError("gait: option '--cyclic-steps' repeats the cyclic step of '--phase walk' (method direct)")
    pb = make_problem(args.params, args.step_length, args.ds, args.ss, enforce_contacts=not args.thesis_contacts)
    if args.method == "pmp" and args.phase not in PMP_PHASES:
        raise PlanningError(
            f"gait: option '--method pmp' is implemented for the cyclic double- and single-support phases "
            f"only; use '--phase' {' / '.join(PMP_PHASES)}"
        )
    if args.plot:
        check_plot_dir(args.plot)
    clear_output(args.output, "GAIT.json", ConfigError)  # no older GAIT.json left to be taken for this run's

    def progress(msg):
        print(msg, flush=True)

    if args.method == "pmp":
        from humanoid_planner.gait.pmp import solve_pmp_phase

        phases = pb.phases(args.phase)
        sols = []
        for ph in phases:
            progress(f"solving {ph.name} by PMP (direct solution as initial guess) ...")
            sols.append(solve_pmp_phase(pb, ph, progress=progress))
    elif args.cyclic_steps is not None:
        sols = solve_cyclic_gait_sequence(pb, args.cyclic_steps, progress=progress)
    else:
        sols = solve_gait_sequence(pb, args.phase, verbose=args.verbose, progress=progress)
    bad = [s.phase.name for s in sols if not s.success]
    data = gait_json(pb, sols, args.method)
    out = write_trajectory_file(args.output, data, "GAIT.json", PlanningError)
    print(f"wrote {out}: {len(sols)} phase(s), total energy {data['total_energy']:.1f} J")
    for s in sols:
        c = s.checks
        print(
            f"  {s.phase.name:11s} {s.phase.duration:.3f} s  energy {c['energy']:7.1f} J  "
            f"mean power {c['mean_power']:6.1f} W  closure {1e3 * c['closure_residual_max']:.3f} mm"
            f"  |T|/N max {c['friction_ratio_max']:.3f}  unilateral {c['unilateral_ok']}"
        )
    if args.plot:
        from humanoid_planner.gait.plots import write_plots

        files = write_plots(pb, sols, args.plot)
        print(f"wrote {len(files)} plot(s) into {args.plot}")
    if bad:
        print(f"warning: solver did not converge for {bad}")
        return 1
    return 0


def _run_chain(args) -> int:
    """RABBIT's step or the five-bar's transfers (humanoid_planner.gait.chesse_robots)."""
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.files import clear_output
    from humanoid_model.formats.trajectory import write_trajectory_file
    from humanoid_planner.exceptions import PlanningError
    from humanoid_planner.gait.chesse_robots import PHASES, ChainProblem

    phases = PHASES[args.robot]
    args.phase = args.phase or phases[-1]
    if args.phase not in phases:
        raise ConfigError(f"gait: option '--phase' = {args.phase!r}: {args.robot} has {', '.join(phases)}")
    given = [o for o, v in (("--step-length", args.step_length), ("--ds", args.ds), ("--ss", args.ss)) if v is not None]
    given += [o for o, v in (("--cyclic-steps", args.cyclic_steps), ("--plot", args.plot)) if v is not None]
    given += [o for o, v in (("--method", args.method != "direct"), ("--params", args.params != "thesis")) if v]
    given += ["--thesis-contacts"] if args.thesis_contacts else []
    if given:
        raise ConfigError(f"gait: option '{given[0]}' is for bip; {args.robot} takes --phase, --output, --verbose")
    clear_output(args.output, "GAIT.json", ConfigError)
    pb = ChainProblem(args.robot)
    sols = pb.solve(args.phase, progress=lambda msg: print(msg, flush=True))
    data = pb.gait_json(sols)
    out = write_trajectory_file(args.output, data, "GAIT.json", PlanningError)
    print(f"wrote {out}: {len(sols)} phase(s), total energy {data['total_energy']:.1f} J")
    for s in sols:
        c = s.checks
        line = f"  {s.phase.name:15s} {s.phase.duration:.3f} s  energy {c['energy']:7.2f} J  "
        line += f"closure {1e3 * c['closure_residual_max']:.4f} mm  root normal {c['root_normal_min']:.0f}"
        line += f"..{c['root_normal_max']:.0f} N (weight {c['weight']:.1f} N)"
        line += f"  |tangential| max {c['root_tangential_max']:.0f} N"
        if "trunk_excursion_max" in c:
            line += f"  trunk {math.degrees(c['trunk_excursion_max']):.2f} deg"
        if "cut_normal_min" in c:
            line += f"  cut normal min {c['cut_normal_min']:.0f} N"
        print(line)
    bad = [s.phase.name for s in sols if not s.success]
    if bad:
        print(f"warning: solver did not converge for {bad}")
        return 1
    return 0
