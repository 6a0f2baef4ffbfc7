"""HRP-2 standing 10 s under the World's PD, with rigid feet, FEM soles (Chardonnet 2009, §4.3) or
flexible ankles (§4.2): it stands without slip, and the sole compression matches a static FEM
solve of the same load to 1 %.

    .venv/bin/python benchmarks/standing.py [--seconds 10] [--json OUT.json]

Cases, scene 'flat', half-sitting, dt = 1 ms: rigid feet (8 sole corners), FEM soles with 8 and 16
ground nodes per sole (docs/soles.md), flexible ankles. Per case: the soles' horizontal slip from
0.5 s to the end (the standing test's bound: 0.1 mm), the base's drift from 2 s on (bound 1 mm),
Σ f_n against m g at the end, the solves that ended on the sweep budget, and for the FEM soles the
largest relative difference between the compression the simulator holds and the static FEM solve
of the same node forces (`humanoid_sim.soles.static_check`; bound 1 %). The suite runs the 7 s FEM
and 10 s flexible-ankle versions (test_soles_world.py, test_flexible_ankle.py); this prints the 10 s
table for all four.
"""

import argparse
import dataclasses
import json
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import pinocchio as pin  # noqa: E402

from humanoid_model import load_robot  # noqa: E402
from humanoid_sim.soles.static_check import sole_sinks  # noqa: E402
from humanoid_sim.world import World  # noqa: E402

RESOLUTION = {8: (0.074, 0.13, 0.01), 16: (0.074, 0.044, 0.01)}  # [m] ground nodes per sole (docs/soles.md)


def worlds():
    hrp2 = load_robot("hrp2")
    yield "rigid feet", World.from_scene("flat", robot=hrp2)
    for n, res in RESOLUTION.items():
        soles = [dataclasses.replace(s, resolution=res) for s in hrp2.soles.values()]
        yield f"FEM soles, {n} nodes/sole", World.from_scene("flat", robot=hrp2, soles=soles)
    yield "flexible ankles", World.from_scene("flat", robot=load_robot("hrp2", ankle="flexible"))


def stand(w, seconds):
    m, d = w.model, w.model.createData()
    feet = [m.getFrameId(n) for n in ("RLEG_SOLE", "LLEG_SOLE")]

    def xy():
        pin.framesForwardKinematics(m, d, w.q)
        return np.array([d.oMf[f].translation[:2].copy() for f in feet])

    w.step_stats.keep_samples(int(round(seconds / w.dt)))
    w.step(500)
    xy0, base = xy(), []
    t0 = time.perf_counter()
    while w.t < seconds - 1e-9:
        w.step(100)
        if w.t >= 2.0 - 1e-9:
            base.append(w.q[:3].copy())
    wall = time.perf_counter() - t0
    base = np.array(base)
    mg = w.robot.mass * np.linalg.norm(w.scene.gravity)
    out = {
        "slip_m": float(np.abs(xy() - xy0).max()),
        "base_drift_after_2s_m": float(np.linalg.norm(base - base[0], axis=1).max()),
        "sum_fn_vs_mg": float(w.last.forces_world()[:, 2].sum() / mg - 1.0),
        "unconverged_solves": int(w.stats()["unconverged_solves"]),
        "contacts": int(w.last.batch.m),
        "median_step_us": 1e6 * statistics.median(w.step_stats.drain().samples[:, 0]),
        "wall_s": wall,
    }
    if w.soles is not None:
        sinks = sole_sinks(w)
        out["sink_vs_static_fem"] = max(s.relative_error for s in sinks)
        out["sink_um"] = [1e6 * float(s.sink.min()) for s in sinks] + [1e6 * float(s.sink.max()) for s in sinks]
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--json", default=None)
    args = ap.parse_args()
    rows = {}
    for name, w in worlds():
        rows[name] = stand(w, args.seconds)
        print(f"{name}: done", file=sys.stderr)
    print(
        "| case | contacts | slip from 0.5 s | base drift from 2 s | Σ f_n / m g − 1 | unconverged | "
        "sink vs static FEM | sink [µm] | median step |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for name, r in rows.items():
        fem = f"{r['sink_vs_static_fem']:.1e}" if "sink_vs_static_fem" in r else "—"
        sink = f"{min(r['sink_um']):.0f}–{max(r['sink_um']):.0f}" if "sink_um" in r else "—"
        print(
            f"| {name} | {r['contacts']} | {r['slip_m']:.1e} m | {r['base_drift_after_2s_m']:.1e} m | "
            f"{r['sum_fn_vs_mg']:.1e} | {r['unconverged_solves']} | {fem} | {sink} | {r['median_step_us']:.0f} µs |"
        )
    doc = {"benchmark": "standing", "seconds": args.seconds, "results": rows}
    print(json.dumps(doc))
    if args.json:
        Path(args.json).write_text(json.dumps(doc, indent=1))


if __name__ == "__main__":
    main()
