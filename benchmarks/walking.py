"""D4 walking shock attenuation and D5 sole-material sweep (Chardonnet 2009, §4.4; acceptance tests
000 D4 and D5).

D4: HRP-2 executes one walking plan, by default the thesis's generator's settings
(`WalkParameters.walkgen_2008`: 6 steps of 0.15 m, 0.78 s single + 0.02 s double support, 5.8 s from
the first weight shift to the end), with rigid feet, flexible ankles, FEM soles (E = 3 MPa,
nu = 0.4) and two-layer pad soles (1.5 cm at 3 MPa over 0.5 cm at 1 MPa, nu = 0.25), the same PD joint
trajectory controller in all four (`humanoid_control.walking_ik.stiffen`, or --gains jsk; --controller wbc: the
whole-body controller in closed loop, `humanoid_execution.walk_record`), and prints the peak vertical
acceleration of the torso's centre of mass at the foot strikes against the thesis's
50 / 30 / 5 / 2 m/s² (Chardonnet 2009, §4.4.2 and §4.6), the torso's vertical oscillation and the
offset of each trace from the rigid one.

D5: the sole materials E in {1, 3, 10} MPa x nu in {0.01, 0.25, 0.4, 0.49}, the thesis's two criteria
(Chardonnet 2009, §4.4.1): the peak vertical acceleration of the base (the hips' centre) when HRP-2,
all joints at zero, drops from 1 cm, and the torso-inclination error when the torso is tilted
slowly to 15.3 deg with the legs vertical; plus (--d5-walk) the D4 walk's strike peak per material.
The runs are independent: they go to Ray tasks over the cores (--jobs CPUs of an embedded local Ray,
`humanoid_execution.sweep.tasks`, docs/sweeps.md).

    .venv/bin/python benchmarks/walking.py [--steps 6] [--cases rigid,flexible,sole,pads] [--d5] [--d5-walk]
        [--no-d4] [--jobs N] [--generator walkgen2008|smooth] [--gains walk|jsk] [--controller pd|wbc]
        [--json OUT.json]

Acceleration and strikes: `humanoid_sim.runtime.plan_replay` (the torso CoM's vertical velocity differentiated
over one 1 ms step, raw; the strike window [-20 ms, +150 ms]); also averaged over 5 ms (HRP-2's control
period, Chardonnet 2009, §5.1.2.5, [HRP2-T1]). Method and results: docs/walking.md.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time

import numpy as np

from humanoid_control.walking_ik import WALK_GAIN_SCALE, plan_json, solve_walking_ik, stiffen
from humanoid_execution.sole_tilt import torso_tilt
from humanoid_execution.sweep.tasks import cluster, run_tasks
from humanoid_execution.walk_record import walk_in_closed_loop
from humanoid_model import load_robot
from humanoid_model.sole_spec import PAD_LAYERS, SoleLayer
from humanoid_planner.walking_pattern import WalkParameters, foot_geometry, plan_pattern
from humanoid_sim.runtime.plan_replay import replay, strike_peak_times, strike_peaks
from humanoid_sim.world import World

THESIS = {"rigid": 50.0, "flexible": 30.0, "sole": 5.0, "pads": 2.0}  # [m/s²] Chardonnet 2009, §4.4.2, §4.6
E_SWEEP = (1e6, 3e6, 10e6)  # [Pa] Chardonnet 2009, §4.4.1
NU_SWEEP = (0.01, 0.25, 0.4, 0.49)  # the range of Chardonnet 2009, §4.4.1, at its ends and two points between
FALLEN = 0.55  # [m] base height below which HRP-2 has fallen (planned >= 0.64 m; chosen)
AVERAGE = 0.005  # [s] HRP-2's control period (Chardonnet 2009, §5.1.2.5; [HRP2-T1])
DROP = 0.01  # [m] Chardonnet 2009, §4.4.1
DROP_TIME = 0.12  # [s] touchdown at ~45 ms, the first compression and rebound (as test_soles_drop)
#: JSK's HRP-2 simulation PD gains (start-jsk/rtmros_tutorials, hrpsys_ros_bridge_tutorials/models/HRP2JSK.PDgain.dat):
#: leg joints 0-5 P [N·m/rad], all D 500 [N·m·s/rad]; chest pitch/yaw P 8000 / 13080 (--gains jsk; the thesis does not
#: give its gains)
JSK_LEG_P, JSK_CHEST_P, JSK_D = (1800.0, 21500.0, 8250.0, 18450.0, 4840.0, 3750.0), (8000.0, 13080.0), 500.0


def soles_with(layers, resolution=None) -> list:
    """HRP-2's declared soles (urdf/hrp2.yaml) with other ``layers`` (and mesh ``resolution``)."""
    out = []
    for s in load_robot("hrp2").soles.values():
        s = dataclasses.replace(s, layers=tuple(layers))
        out.append(dataclasses.replace(s, resolution=tuple(resolution)) if resolution is not None else s)
    return out


def world_for(case: str, material=None, implicit_pd: bool = False) -> World:
    """The world of a D4 case; ``material`` (E, nu) replaces the sole's for the D5 walk; ``implicit_pd``:
    the servos' stiffness integrated implicitly (`World(implicit_pd=True)`, docs/simulator.md)."""
    if case == "rigid":
        return World.from_scene("flat", implicit_pd=implicit_pd)
    if case == "flexible":
        return World.from_scene("flat", robot=load_robot("hrp2", ankle="flexible"), implicit_pd=implicit_pd)
    if case == "sole":
        if material is None:
            return World.from_scene("flat", soles="fem", implicit_pd=implicit_pd)
        return World.from_scene("flat", soles=soles_with([SoleLayer(0.02, *material)]), implicit_pd=implicit_pd)
    if case == "pads":
        return World.from_scene("flat", soles=soles_with(PAD_LAYERS), implicit_pd=implicit_pd)
    raise SystemExit(f"walking benchmark: unknown case {case!r}; choose among {', '.join(THESIS)}")


def jsk_gains(actuator, servo_scale: float = 1.0) -> None:
    """Legs' and chest's PD gains to JSK's (``JSK_LEG_P``; the others as they are), P and D both times
    ``servo_scale`` (the stiff-servo sweep of docs/walking.md; 1: JSK's own)."""
    for i, n in enumerate(actuator.names):
        if n[1:].startswith("LEG_JOINT") and n[-1].isdigit():
            actuator.kp[i], actuator.kv[i] = servo_scale * JSK_LEG_P[int(n[-1])], servo_scale * JSK_D
        elif n.startswith("CHEST_JOINT"):
            actuator.kp[i], actuator.kv[i] = servo_scale * JSK_CHEST_P[int(n[-1])], servo_scale * JSK_D


@dataclasses.dataclass(frozen=True)
class Servo:
    """The controller of a D4 run, the same in all four cases: ``gains`` "walk" (`stiffen` by ``scale``) or
    "jsk" (JSK's legs and chest times ``servo_scale``); ``implicit_pd`` (stiffness integrated implicitly);
    ``saturation`` False: no effort limit (diagnostic: the explicit clip chatters, docs/walking.md)."""

    gains: str = "walk"
    scale: float = WALK_GAIN_SCALE
    servo_scale: float = 1.0
    implicit_pd: bool = False
    saturation: bool = True


def run_case(case: str, pattern, joints: dict, servo: Servo = Servo(), material=None) -> dict:
    """Execute the plan (``joints``: name -> (K,) positions at ``pattern.t``) in the world of ``case``
    with the controller ``servo``."""
    w = world_for(case, material, servo.implicit_pd)
    stiffen(w.actuator, servo.scale, keep=w.robot.springs or ())
    if servo.gains == "jsk":
        jsk_gains(w.actuator, servo.servo_scale)
    if not servo.saturation:
        w.actuator.effort_max = np.full_like(w.actuator.effort_max, np.inf)
    t0 = time.perf_counter()
    rec = replay(w, pattern.t, np.column_stack(list(joints.values())), list(joints))
    return measure(case, material, w, rec, time.perf_counter() - t0, pattern)


def run_case_wbc(case: str, doc: dict, pattern, material=None) -> dict:
    """Execute the WALK.json ``doc`` of ``pattern`` with the whole-body controller (closed loop,
    `humanoid_execution.walk_record`) in the world of ``case``."""
    w = world_for(case, material)
    t0 = time.perf_counter()
    rec, report = walk_in_closed_loop(w, doc)
    out = measure(case, material, w, rec, time.perf_counter() - t0, pattern)
    out["report"] = report.reason
    return out


def measure(case, material, w, rec, wall, pattern) -> dict:
    """The D4 row of a run's `ReplayRecord` ``rec`` of ``pattern`` (its world ``w``, ``wall`` seconds)."""
    steps, params = pattern.steps, pattern.params
    fell_at = rec.fell_at(FALLEN)
    t_ss = params.t_ss
    lifts, feet = [s.t_lift for s in steps], [s.foot for s in steps]
    strikes, peaks = strike_peaks(rec, lifts, t_ss, feet, until=fell_at)
    n_avg = max(1, int(round(AVERAGE / w.dt)))
    avg = dataclasses.replace(rec, torso_vz=np.convolve(rec.torso_vz, np.ones(n_avg) / n_avg, mode="same"))
    _, peaks_avg = strike_peaks(avg, lifts, t_ss, feet, until=fell_at)
    t = rec.t
    walking = (t >= steps[0].t_lift) & (t <= min(steps[-1].t_land + params.t_ds, t[-1]))
    ok = peaks[np.isfinite(peaks)]
    return {
        "case": case,
        "material": material,
        "peak_acc": float(ok.max()) if ok.size else float("nan"),
        "median_strike_peak": float(np.median(ok)) if ok.size else float("nan"),
        "peak_acc_5ms": float(np.nanmax(peaks_avg)) if np.isfinite(peaks_avg).any() else float("nan"),
        "strike_peaks": ok.tolist(),
        "strike_delay": [a - s.t_land for a, s in zip(strikes, steps, strict=True)],
        "peak_after_landing": [p - s.t_land for p, s in zip(strike_peak_times(rec, strikes), steps, strict=True)],
        "torso_ptp": float(np.ptp(rec.torso_z[walking])),
        "tilt_max": float(np.degrees(rec.tilt.max())),
        "base_min": float(rec.base_z.min()),
        "fell_at": fell_at,
        "strikes_counted": int(ok.size),
        "foot_end_error": [
            float(np.linalg.norm(rec.soles[-1, i, :2] - pattern.feet[f][-1, :2])) for i, f in enumerate("rl")
        ],
        "unconverged": int(w.stats()["unconverged_solves"]),
        "wall_s": wall,
        "sim_s": float(t[-1]),
        "z": rec.torso_z.tolist(),
        "acc": rec.torso_acc.tolist(),
        "walking": np.nonzero(walking)[0][[0, -1]].tolist(),
    }


def drop_peak(material) -> float:
    """D5 drop: peak |vertical acceleration| [m/s²] of the base (the hips' centre, Chardonnet 2009, §4.4.1)
    when HRP-2 at all joints zero is released 1 cm above 'flat' on soles of ``material`` (E, nu)
    (None: rigid feet); 8-node soles as `test/sim/test_soles_drop.py`."""
    from humanoid_model.scene import load_scene
    from humanoid_model.scene_types import Pose

    sc = load_scene("flat")
    sc = dataclasses.replace(
        sc,
        robot=dataclasses.replace(
            sc.robot, posture="zero", placement=Pose(np.array([0, 0, DROP]), np.r_[0, 0, 0, 1.0])
        ),
    )
    soles = "rigid" if material is None else soles_with([SoleLayer(0.02, *material)], (0.074, 0.13, 0.01))
    w = World(sc, load_robot("hrp2"), soles=soles)
    vz = []
    for _ in range(round(DROP_TIME / w.dt)):
        w.step()
        vz.append(w.body_state("base").linear_velocity[2])
    return float(np.abs(np.diff(vz)).max() / w.dt)


def tilt_error(material) -> dict:
    """D5 tilt (`humanoid_execution.sole_tilt.torso_tilt`) on 8-node soles of ``material`` (E, nu) (None:
    rigid feet): ``end`` the torso's error over the hold, ``feet`` the feet's pitch, ``max`` the largest
    error [deg]."""
    soles = "rigid" if material is None else soles_with([SoleLayer(0.02, *material)], (0.074, 0.13, 0.01))
    r = torso_tilt(soles)
    return {"end": r.error, "feet": r.feet_pitch, "max": r.max_error}


def _d5_one(material):
    return material, drop_peak(material), tilt_error(material)


def d5(jobs: int, walk_args=None) -> dict:
    """The D5 sweep as Ray tasks on ``jobs`` CPUs; ``walk_args`` (pattern, joints, `Servo`) adds the D4 walk per
    material."""
    mats = [None] + [(E, nu) for E in E_SWEEP for nu in NU_SWEEP]
    out = {}
    with cluster(jobs):
        for o in run_tasks(_d5_one, [(mat,) for mat in mats], workers=jobs, progress=False):
            mat, peak, tilt = o.result()
            out[mat] = {"drop_peak": peak, "tilt": tilt}
        if walk_args is not None:
            pattern, joints, servo = walk_args
            walks = [("sole", pattern, joints, servo, mat) for mat in mats[1:]]
            for mat, o in zip(mats[1:], run_tasks(run_case, walks, workers=jobs, progress=False), strict=True):
                out[mat]["walk_peak"] = o.result()["peak_acc"]
    return out


def _d5_value(row: dict, key: str) -> float:
    return row["tilt"]["end"] if key == "tilt" else row["tilt"]["feet"] if key == "feet" else row[key]


def print_d5(res: dict) -> None:
    rigid = res.pop(None)
    print(
        f"\nD5 (rigid feet: drop peak {rigid['drop_peak']:.1f} m/s², torso tilt error {rigid['tilt']['end']:+.4f} deg, "
        f"feet pitch {rigid['tilt']['feet']:+.4f} deg)"
    )
    keys = [
        ("drop_peak", "drop peak [m/s²]"),
        ("tilt", "torso tilt error at 15.3 deg [deg]"),
        ("feet", "feet pitch at 15.3 deg [deg]"),
    ]
    if any("walk_peak" in v for v in res.values()):
        keys.append(("walk_peak", "walk strike peak [m/s²]"))
    for key, title in keys:
        print(f"\n{title}\n\n| nu \\ E | " + " | ".join(f"{E / 1e6:g} MPa" for E in E_SWEEP) + " |")
        print("|---|" + "---|" * len(E_SWEEP))
        for nu in NU_SWEEP:
            vals = [_d5_value(res[(E, nu)], key) for E in E_SWEEP]
            print(f"| {nu} | " + " | ".join(f"{v:.4f}" if key in ("tilt", "feet") else f"{v:.1f}" for v in vals) + " |")
    for key in [k for k, _ in keys]:
        val = {k: _d5_value(v, key) for k, v in res.items()}
        soft_e = all(val[(E_SWEEP[i], nu)] < val[(E_SWEEP[i + 1], nu)] for nu in NU_SWEEP for i in range(2))
        stiff_e = all(val[(E_SWEEP[i], nu)] > val[(E_SWEEP[i + 1], nu)] for nu in NU_SWEEP for i in range(2))
        print(f"{key}: increases with E at every nu: {soft_e}; decreases with E at every nu: {stiff_e}")
    res[None] = rigid


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=6)
    ap.add_argument("--step-length", type=float, default=None, help="[m] (default 0.15 walkgen2008, 0.2 smooth)")
    ap.add_argument("--generator", default="walkgen2008", choices=("walkgen2008", "smooth"))
    ap.add_argument("--cases", default="rigid,flexible,sole,pads")
    ap.add_argument("--jobs", type=int, default=os.cpu_count(), help="Ray's CPUs (default: the cores)")
    ap.add_argument("--d5", action="store_true", help="run the D5 material sweep too")
    ap.add_argument("--d5-walk", action="store_true", help="add the walk per material to D5 (12 sole walks)")
    ap.add_argument("--no-d4", action="store_true", help="skip the D4 walks")
    ap.add_argument("--json", default=None)
    ap.add_argument("--gain-scale", type=float, default=WALK_GAIN_SCALE, help="PD natural frequency factor")
    ap.add_argument("--gains", default="walk", choices=("walk", "jsk"), help="walk: stiffened (default); jsk: JSK's")
    ap.add_argument("--servo-scale", type=float, default=1.0, help="with --gains jsk: P and D times this")
    ap.add_argument("--implicit-pd", action="store_true", help="integrate the servos' stiffness implicitly")
    ap.add_argument("--no-saturation", action="store_true", help="no effort limit (diagnostic)")
    ap.add_argument(
        "--controller", default="pd", choices=("pd", "wbc"), help="pd: the plan's joints (default); wbc: closed loop"
    )
    a = ap.parse_args(argv)
    servo = Servo(a.gains, a.gain_scale, a.servo_scale, a.implicit_pd, not a.no_saturation)
    if a.generator == "walkgen2008":
        params = WalkParameters.walkgen_2008(n_steps=a.steps, step_length=a.step_length or 0.15)
    else:
        params = WalkParameters(n_steps=a.steps, step_length=a.step_length or 0.2)
    pattern = plan_pattern(params, foot_geometry(load_robot("hrp2")))
    ik = solve_walking_ik(pattern.com, pattern.feet, hold=params.hold)
    joints = dict(zip(ik.joint_names, ik.joint_positions().T, strict=True))
    print(
        f"plan ({a.generator}): {a.steps} steps of {params.step_length} m, {pattern.t[-1]:.2f} s "
        f"(moving from {params.t_start - params.t_ds:.2f} s); IK sole error {ik.foot_error.max():.1e} m; "
        f"CoM speed <= {np.abs(pattern.com_vel[:, 0]).max():.3f} m/s forward; waist z p-p {np.ptp(ik.waist_z):.1e} m",
        flush=True,
    )
    rows, report = [], {}
    if not a.no_d4:
        cases = a.cases.split(",")
        if a.controller == "wbc":
            doc = plan_json("hrp2", pattern.t, ik, pattern.summary())
            runs, fn = [(case, doc, pattern) for case in cases], run_case_wbc
        else:
            runs, fn = [(case, pattern, joints, servo) for case in cases], run_case
        rows = [o.result() for o in run_tasks(fn, runs, workers=min(a.jobs, len(cases)), progress=False)]
        print_d4(rows)
        report["d4"] = rows
    if a.d5 or a.d5_walk:
        res = d5(a.jobs, (pattern, joints, servo) if a.d5_walk else None)
        print_d5(res)
        report["d5"] = [{"material": k, **v} for k, v in res.items()]
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f)
    return 0


def print_d4(rows) -> None:
    for r in rows:
        print(
            f"  {r['case']}: peak {r['peak_acc']:.1f} m/s² (5 ms mean {r['peak_acc_5ms']:.1f}), "
            f"base min {r['base_min']:.3f} m, {r['wall_s']:.0f} s wall for {r['sim_s']:.1f} s",
            flush=True,
        )
    rigid = next((r for r in rows if r["case"] == "rigid"), None)
    print(
        "\n| case | thesis [m/s²] | peak at strikes [m/s²] | median strike peak | 5 ms mean peak | torso z p-p [mm] "
        "| mean z - rigid [mm] | (z - rigid) p-p [mm] | fell at [s] | strikes counted | feet end error [mm] "
        "| max strike delay [s] | unconverged solves | waist tilt max [deg] | peak after the planned landing [ms] |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        off, dev = "-", "-"
        if rigid and r["fell_at"] is None and rigid["fell_at"] is None:
            i0, i1 = r["walking"]
            diff = np.asarray(r["z"][i0 : i1 + 1]) - np.asarray(rigid["z"][i0 : i1 + 1])
            off, dev = f"{1e3 * diff.mean():+.1f}", f"{1e3 * np.ptp(diff):.2f}"
        print(
            f"| {r['case']} | {THESIS[r['case']]:.0f} | {r['peak_acc']:.2f} | {r['median_strike_peak']:.2f} | "
            f"{r['peak_acc_5ms']:.2f} | {1e3 * r['torso_ptp']:.1f} | {off} | {dev} | {r['fell_at']} | "
            f"{r['strikes_counted']} | "
            f"{1e3 * max(r['foot_end_error']):.0f} | {np.nanmax(r['strike_delay']):.2f} | {r['unconverged']} | "
            f"{r['tilt_max']:.2f} | {', '.join(f'{1e3 * x:.0f}' for x in r['peak_after_landing'])} |"
        )
    peaks = [r["peak_acc"] for r in rows]
    order = all(x > y for x, y in zip(peaks, peaks[1:], strict=False))
    within = {r["case"]: bool(0.5 <= r["peak_acc"] / THESIS[r["case"]] <= 2.0) for r in rows}
    print(f"\nD4: strict ordering {order}; within a factor 2 of the thesis: {within}")


if __name__ == "__main__":
    raise SystemExit(main())
