"""Where a simulator step's time goes: each stage of `World._step` split into the time inside its
compiled calls (numba kernels, their dispatch included, and Pinocchio's and coal's functions) and
the Python between them.

    .venv/bin/python benchmarks/step_split.py [--steps 2000] [--reps 3] [--points 0|8] [--robot R] [--stages]

HRP-2 (or ``--robot``) standing on 'flat' as in `sim_step.py` (half-sitting held by the World's
PD, dt = 1 ms, settled for 300 steps; ``--points 0``: the 8 sole corners, 8: 16 points). Every
numba dispatcher that a `humanoid_sim` or `humanoid_model` module holds as a global, and every
function of the `pinocchio`, `pinocchio.cholesky` and `coal` modules, is wrapped by a timer that
adds its call's wall time to the stage running it (the stage functions of `humanoid_sim.world`
are wrapped too; the contacts, Delassus and solve stages' one compiled call,
`humanoid_sim.contact_pipeline`, is charged to the solve stage, as the step statistics charge
it, and ``--stages`` turns it off: the three stages split one by one). Kernels called from other
kernels run inside their caller's time. The wrappers
themselves cost about half a microsecond a call, counted in the Python column: the "calls"
column says how many.

The last line is the step's floor without any Python: the sum of its compiled calls, and, with
MuJoCo installed (the ``peers`` extra, benchmarks/README.md), that floor over MuJoCo's elliptic
`mj_step` on the same robot, measured in the same repetitions (`sim_step.MujocoLoop`).
A second table lists the costliest compiled calls (``--top``). Uninstrumented step times come
from `sim_step.py`; this script only splits them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from humanoid_sim.step_stats import STAGES  # noqa: E402

DT = 1e-3


class Split:
    """Per-stage accumulators: wall time, time in compiled calls and their count."""

    def __init__(self):
        self.stage = None
        self.total = dict.fromkeys(STAGES, 0.0)
        self.compiled = dict.fromkeys((*STAGES, None), 0.0)
        self.calls = dict.fromkeys((*STAGES, None), 0)
        self.by_function = {}  # (stage, function name) -> time [s]

    def reset(self):
        self.__init__()

    def timed(self, fn, label):
        """``fn`` with its wall time added to the running stage's compiled time (and to ``label``'s)."""
        split = self

        def call(*a, **k):
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                d = time.perf_counter() - t
                split.compiled[split.stage] += d
                split.calls[split.stage] += 1
                key = (split.stage, label)
                split.by_function[key] = split.by_function.get(key, 0.0) + d

        call.__wrapped__ = fn
        return call

    def stage_fn(self, name, fn):
        """A stage function of `humanoid_sim.world` timed as stage ``name``."""
        split = self

        def call(*a, **k):
            split.stage = name
            t = time.perf_counter()
            try:
                return fn(*a, **k)
            finally:
                split.total[name] += time.perf_counter() - t
                split.stage = None

        return call


def instrument(split: Split) -> int:
    """Wrap the compiled entry points (module docstring); returns how many were wrapped."""
    import coal
    import pinocchio as pin
    from numba.core.registry import CPUDispatcher

    import humanoid_sim.world as world_module

    wrapped = {}
    count = 0
    for name, mod in list(sys.modules.items()):
        if not name.startswith(("humanoid_sim", "humanoid_model")) or mod is None:
            continue
        for attr, obj in list(vars(mod).items()):
            if isinstance(obj, CPUDispatcher):
                if id(obj) not in wrapped:
                    wrapped[id(obj)] = split.timed(obj, f"{obj.py_func.__module__}.{obj.py_func.__name__}")
                setattr(mod, attr, wrapped[id(obj)])
                count += 1
    for mod in (pin, pin.cholesky, coal):
        for attr, obj in list(vars(mod).items()):
            if type(obj).__name__ in ("function", "builtin_function_or_method") and not attr.startswith("_"):
                setattr(mod, attr, split.timed(obj, f"{mod.__name__}.{attr}"))  # Boost.Python's and nanobind's
                count += 1
    for stage in STAGES:  # `humanoid_sim.world` calls each stage's function by the stage's name
        setattr(world_module, stage, split.stage_fn(stage, getattr(world_module, stage)))
    # the contacts, Delassus and solve stages in one compiled call: the solve stage's time (`StepStats`)
    world_module.contact_pipeline = split.stage_fn("solve", world_module.contact_pipeline)
    return count


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--points", type=int, default=0, choices=(0, 8))
    ap.add_argument("--robot", default=None)
    ap.add_argument("--top", type=int, default=12, help="compiled calls listed by cost")
    ap.add_argument("--stages", action="store_true", help="without the contact pipeline (module docstring)")
    args = ap.parse_args()

    from humanoid_sim.world import World

    world = World.from_scene("flat", robot=args.robot, dt=DT, patch_points=args.points)
    world.pipeline = world.pipeline and not args.stages
    world.step(300)
    try:
        from sim_step import MujocoLoop

        peer = MujocoLoop(world, "elliptic")
    except ImportError:
        peer = None
    split = Split()
    n_wrapped = instrument(split)
    world.step(50)  # every wrapped path once
    rows, floors, peers = [], [], []
    for rep in range(args.reps):
        split.reset()
        t0 = time.perf_counter()
        world.step(args.steps)
        step = (time.perf_counter() - t0) / args.steps
        rows.append((step, dict(split.total), dict(split.compiled), dict(split.calls), dict(split.by_function)))
        floors.append(sum(split.compiled.values()) / args.steps)
        if peer is not None:
            peers.append(peer.run(args.steps)["median_us"] * 1e-6)
        print(f"repetition {rep + 1}/{args.reps} done", file=sys.stderr, flush=True)

    def med(f):
        return 1e6 * statistics.median(f(r) for r in rows)

    n = args.steps
    print(f"{n_wrapped} compiled entry points wrapped; {args.reps} repetitions of {n} steps, medians [µs per step]")
    print()
    print("| stage | stage time | in compiled calls | compiled calls per step | Python between | Python share |")
    print("|---|---|---|---|---|---|")
    for s in STAGES:
        total, comp = med(lambda r, s=s: r[1][s] / n), med(lambda r, s=s: r[2][s] / n)
        calls = statistics.median(r[3][s] / n for r in rows)
        share = f"{(total - comp) / total:.0%}" if total > 0 else "-"  # 0: a stage inside the pipeline call
        name = s if total > 0 or s not in ("contacts", "delassus") else f"{s} (in the solve stage's pipeline call)"
        print(f"| {name} | {total:.1f} | {comp:.1f} | {calls:.1f} | {total - comp:.1f} | {share} |")
    step = med(lambda r: r[0])
    comp_all = 1e6 * statistics.median(floors)
    outside = med(lambda r: r[0] - sum(r[1].values()) / n)
    print(f"| (between the stages: `World._step`, statistics) | {outside:.1f} | | | {outside:.1f} | |")
    print(f"| **step (instrumented)** | **{step:.1f}** | **{comp_all:.1f}** | | **{step - comp_all:.1f}** | "
          f"**{(step - comp_all) / step:.0%}** |")  # fmt: skip
    print()
    line = f"The step without any Python would take at least {comp_all:.1f} µs (its compiled calls)"
    if peers:
        mj = 1e6 * statistics.median(peers)
        line += f": {comp_all / mj:.1f}× MuJoCo's elliptic mj_step ({mj:.1f} µs) in the same repetitions"
    print(line + ".")
    print()
    print(f"The {args.top} costliest compiled calls [µs per step, median]:")
    print()
    print("| stage | function | µs per step |")
    print("|---|---|---|")
    keys = {k for r in rows for k in r[4]}
    costs = sorted(((med(lambda r, k=k: r[4].get(k, 0.0) / n), k) for k in keys), reverse=True)
    for cost, (stage, label) in costs[: args.top]:
        print(f"| {stage} | `{label}` | {cost:.1f} |")


if __name__ == "__main__":
    main()
