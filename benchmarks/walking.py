"""D4 walking shock attenuation (issue 12, 000_chardonnet.md:1054-1057): HRP-2 executes the same
`humanoid-stack walk` plan (6 steps in 6 s by default) with rigid feet, flexible ankles, FEM soles
(E = 3 MPa, nu = 0.4) and two-layer pad soles (3 MPa / 1 MPa, nu = 0.25, 1 cm + 1 cm chosen), the
same PD joint trajectory controller in all four (the standing gains at three times their natural
frequency, 30 Hz); prints the peak vertical torso (waist, BODY)
acceleration at the foot strikes against the thesis's 50 / 30 / 5 / 2 m/s², the torso's vertical
oscillation and the offset of each trace from the rigid one.

    .venv/bin/python benchmarks/walking.py [--steps 6] [--cases rigid,flexible,sole,pads] [--json OUT.json]

Acceleration: the waist's vertical velocity (pinocchio, LOCAL_WORLD_ALIGNED) differentiated over
one step (dt = 1 ms, raw) and averaged over 5 ms (HRP-2's control period, hrp2_data.md C1). Foot
strikes are detected in the run: the first time after mid-swing that the swing sole's lowest hull
corner comes within 1 mm of its height at rest (the PD lags the plan: the feet land up to ~0.3 s
after the planned touch-down, often on an edge); the window is [strike - 20 ms, strike + 150 ms]
(chosen). Method and results: docs/walking.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time

import numpy as np
import pinocchio as pin

from humanoid_control.walking import WALK_GAIN_SCALE, solve_walk, stiffen
from humanoid_model import load_robot
from humanoid_model.sole_spec import SoleLayer
from humanoid_planner.walking import WalkParameters, foot_geometry, plan_pattern
from humanoid_sim.actuators import JointTrajectory
from humanoid_sim.world import World

THESIS = {"rigid": 50.0, "flexible": 30.0, "sole": 5.0, "pads": 2.0}  # [m/s²] 000_chardonnet.md:1055
PADS = (SoleLayer(0.01, 3e6, 0.25), SoleLayer(0.01, 1e6, 0.25))  # 000_chardonnet.md:820; thicknesses chosen
WINDOW = (-0.02, 0.15)  # [s] about each detected strike (chosen)
FALLEN = 0.55  # [m] base height below which HRP-2 has fallen (planned >= 0.643 m; chosen)
STRIKE_HEIGHT = 1e-3  # [m] a sole corner this close to its rest height has struck (chosen)
AVERAGE = 0.005  # [s] HRP-2's control period (hrp2_data.md C1)


def world_for(case: str) -> World:
    if case == "rigid":
        return World.from_scene("flat")
    if case == "flexible":
        return World.from_scene("flat", robot=load_robot("hrp2", ankle="flexible"))
    if case == "sole":
        return World.from_scene("flat", soles="fem")
    if case == "pads":
        specs = [dataclasses.replace(s, layers=PADS) for s in load_robot("hrp2").soles.values()]
        return World.from_scene("flat", soles=specs)
    raise SystemExit(f"walking benchmark: unknown case {case!r}; choose among {', '.join(THESIS)}")


def run_case(case: str, pattern, ik, scale=WALK_GAIN_SCALE) -> dict:
    w = world_for(case)
    stiffen(w.actuator, scale, keep=w.robot.springs or ())
    names = w.robot.joint_names
    P = np.zeros((len(pattern.t), len(names)))  # the flexible ankle's spring joints are held at 0
    Pik = ik.joint_positions()
    for j, n in enumerate(ik.joint_names):
        P[:, names.index(n)] = Pik[:, j]
    w.actuator.set_trajectory(JointTrajectory(pattern.t, P), t_start=w.t)
    m, d = w.model, w.model.createData()
    body = m.getFrameId("BODY")
    soles = [m.getFrameId(n) for n in ("RLEG_SOLE", "LLEG_SOLE")]
    locs = [w.robot.contact_locations[n] for n in ("r_sole", "l_sole")]
    hulls = [(m.getFrameId(loc.body), np.asarray(loc.hull, float)) for loc in locs]
    K = int(round(pattern.t[-1] / w.dt))
    z, vz, base, feet, low = np.empty(K), np.empty(K), np.empty(K), np.empty((K, 2, 3)), np.empty((K, 2))
    t0 = time.perf_counter()
    for k in range(K):
        w.step(1)
        pin.forwardKinematics(m, d, w.q, w.v)
        pin.updateFramePlacements(m, d)
        z[k] = d.oMf[body].translation[2]
        vz[k] = pin.getFrameVelocity(m, d, body, pin.LOCAL_WORLD_ALIGNED).linear[2]
        base[k] = w.q[2]
        feet[k] = [d.oMf[f].translation for f in soles]
        low[k] = [(d.oMf[f].rotation[2] @ h.T).min() + d.oMf[f].translation[2] for f, h in hulls]
    wall = time.perf_counter() - t0
    t = (np.arange(K) + 1) * w.dt
    acc = np.diff(vz, prepend=vz[0]) / w.dt
    n_avg = max(1, int(round(AVERAGE / w.dt)))
    acc_avg = np.convolve(acc, np.ones(n_avg) / n_avg, mode="same")
    peaks, peaks_avg = [], []
    fell = np.nonzero(base < FALLEN)[0]
    fell_at = float(t[fell[0]]) if fell.size else None
    strikes = []
    for s in pattern.steps:
        i = "rl".index(s.foot)
        after = np.nonzero((t >= s.t_lift + pattern.params.t_ss / 2) & (low[:, i] < low[0, i] + STRIKE_HEIGHT))[0]
        strikes.append(float(t[after[0]]) if after.size else float("nan"))
        if not after.size or (fell_at is not None and strikes[-1] > fell_at - WINDOW[1]):
            continue
        m_ = (t >= strikes[-1] + WINDOW[0]) & (t <= strikes[-1] + WINDOW[1])
        peaks.append(float(np.abs(acc[m_]).max()))
        peaks_avg.append(float(np.abs(acc_avg[m_]).max()))
    walking = (t >= pattern.steps[0].t_lift) & (t <= pattern.steps[-1].t_land + pattern.params.t_ds)
    final = {f: pattern.feet[f][-1, :2] for f in "rl"}
    return {
        "case": case,
        "peak_acc": max(peaks, default=float("nan")),
        "median_strike_peak": float(np.median(peaks)) if peaks else float("nan"),
        "peak_acc_5ms": max(peaks_avg, default=float("nan")),
        "strike_peaks": peaks,
        "strike_delay": [a - s.t_land for a, s in zip(strikes, pattern.steps, strict=True)],
        "torso_ptp": float(np.ptp(z[walking])),
        "torso_mean": float(z[walking].mean()),
        "base_min": float(base.min()),
        "fell_at": fell_at,
        "strikes_counted": len(peaks),
        "foot_end_error": [float(np.linalg.norm(feet[-1, i, :2] - final[f])) for i, f in enumerate("rl")],
        "unconverged": int(w.stats()["unconverged_solves"]),
        "wall_s": wall,
        "sim_s": float(t[-1]),
        "z": z.tolist(),
        "walking": np.nonzero(walking)[0][[0, -1]].tolist(),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--step-length", type=float, default=0.2)
    ap.add_argument("--cases", default="rigid,flexible,sole,pads")
    ap.add_argument("--json", default=None)
    ap.add_argument("--gain-scale", type=float, default=WALK_GAIN_SCALE, help="PD natural frequency factor")
    a = ap.parse_args(argv)
    pattern = plan_pattern(
        WalkParameters(n_steps=a.steps, step_length=a.step_length), foot_geometry(load_robot("hrp2"))
    )
    ik = solve_walk(pattern.com, pattern.feet)
    print(
        f"plan: {a.steps} steps of {a.step_length} m, {pattern.t[-1]:.2f} s; IK sole error {ik.foot_error.max():.1e} m"
    )
    rows = []
    for case in a.cases.split(","):
        r = run_case(case, pattern, ik, a.gain_scale)
        rows.append(r)
        print(
            f"  {case}: peak {r['peak_acc']:.1f} m/s² (5 ms mean {r['peak_acc_5ms']:.1f}), "
            f"base min {r['base_min']:.3f} m, {r['wall_s']:.0f} s wall for {r['sim_s']:.1f} s",
            flush=True,
        )
    rigid = next((r for r in rows if r["case"] == "rigid"), None)
    print(
        "\n| case | thesis [m/s²] | peak at strikes [m/s²] | median strike peak | 5 ms mean peak | torso z p-p [mm] "
        "| mean z - rigid [mm] | (z - rigid) p-p [mm] | fell at [s] | strikes before | feet end error [mm] "
        "| max strike delay [s] | unconverged solves |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        off, dev = "-", "-"
        if rigid:
            i0, i1 = r["walking"]
            diff = np.asarray(r["z"][i0 : i1 + 1]) - np.asarray(rigid["z"][i0 : i1 + 1])
            off, dev = f"{1e3 * diff.mean():+.1f}", f"{1e3 * np.ptp(diff):.2f}"
        print(
            f"| {r['case']} | {THESIS[r['case']]:.0f} | {r['peak_acc']:.1f} | {r['median_strike_peak']:.1f} | "
            f"{r['peak_acc_5ms']:.1f} | {1e3 * r['torso_ptp']:.1f} | {off} | {dev} | {r['fell_at']} | "
            f"{r['strikes_counted']} | "
            f"{1e3 * max(r['foot_end_error']):.0f} | {np.nanmax(r['strike_delay']):.2f} | {r['unconverged']} |"
        )
    peaks = [r["peak_acc"] for r in rows]
    order = all(x > y for x, y in zip(peaks, peaks[1:], strict=False))
    within = [0.5 <= r["peak_acc"] / THESIS[r["case"]] <= 2.0 for r in rows]
    verdict = dict(zip([r["case"] for r in rows], within, strict=True))
    print(f"\nD4: strict ordering {order}; within a factor 2 of the thesis: {verdict}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
