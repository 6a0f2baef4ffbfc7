"""The whole piloting cycle of every thesis robot and a humanoid in one scene, at >= 25 Hz (<= 40 ms
per cycle; the thesis's real-time loop, Flückiger 1998, §5.1; acceptance test 002 A18), with the
solver's share reported per robot.

The scene: the four MAD robots of urdf/kinematics (hybrid planar, MacDac, Cross-Delta, redundant
6R; Cross-Delta's 18x15 J_aug is the largest), the 3-RPR (Flückiger 1998, §6.3.4) and HRP-2
with both feet welded (2 loops), the CoM held and both hands following targets. Each structure owns
its model and data (`KinematicStructure`); a cycle is, for the whole scene, what the `pilot` node
does per cycle:

  1. read inputs: the newest geometry_msgs/Twist taken by a real rclpy subscription (a publisher
     in the same process sends one per cycle; `spin_once` delivers it);
  2. solve: every driven frame's absolute target moved by the twist (`FrameTarget.move`), then one
     `prioritized.solve` per structure (closures, targets, CoM, posture); the 3-RPR in direct
     mode (its actuators follow a slow sine);
  3. publish: one sensor_msgs/JointState per structure (what robot_state_publisher turns into TF
     for RViz) and one visualization_msgs/MarkerArray (targets + joint-speed spheres, the thesis's
     augmented virtuality, Flückiger 1998, §6.2.2).

Printed: per-cycle time of the whole loop (median, p90, p99, max) against the 40 ms budget, and
each robot's solver time (median). Wall-clock on whatever machine runs it; not a test (the suite
never asserts a time).

Run:  .venv/bin/python benchmarks/kinematics_realtime.py [--cycles 500] [--json OUT.json]
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")
os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
os.environ.setdefault("ROS_DOMAIN_ID", "77")

import argparse  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from humanoid_control.kinematics import (  # noqa: E402
    ComTask,
    FrameTarget,
    JointTask,
    PostureTask,
    load_structure,
    prioritized,
)
from humanoid_model.paths import urdf_dir  # noqa: E402

BUDGET_MS = 40.0  # >= 25 Hz (acceptance test 002 A18)
SPEED = 0.02  # [m/s] (chosen) the twist's translation: a slow hand motion
RATE = 25.0  # [Hz] the cycle period the twist is integrated over


def scene():
    """[(name, structure, tasks, driven targets, actuator task)] of the real-time scene."""
    kin = urdf_dir() / "kinematics"
    out = []
    for name in ("hybrid_planar", "macdac", "cross_delta", "redundant_6r"):
        s = load_structure(kin / f"{name}.kin.yaml")
        for _ in range(4):  # close the loops of the initial configuration
            s.q0, _ = prioritized.solve(s, s.q0)
        for frame, sources in s.sources.items():  # the frames' first device (their lists start with "none")
            s.select(frame, next(x for x in sources if x != "none"))
        targets = [FrameTarget(s, f, target=s.placement(s.q0, f)) for f in s.driven_frames()]
        out.append((name, s, [*targets, PostureTask(s)], targets, None))
    s = load_structure(kin / "three_rpr.kin.yaml")
    legs = JointTask(s, {"rho1": 0.1498, "rho2": 0.18, "rho3": 0.234}, name="actuators")
    for _ in range(3):
        s.q0, _ = prioritized.solve(s, s.q0, legs)
    out.append(("three_rpr", s, [legs], [], legs))
    s = load_structure("hrp2")
    hands = [FrameTarget(s, f, target=s.placement(s.q0, f).translation, mode="position") for f in ("r_hand", "l_hand")]
    out.append(("hrp2", s, [ComTask(s), *hands, PostureTask(s)], hands, None))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cycles", type=int, default=500, help="cycles to time (default 500)")
    ap.add_argument("--json", default=None, help="also write the cycle's percentiles [ms] and its median / budget")
    args = ap.parse_args(argv)

    import rclpy
    from geometry_msgs.msg import Twist
    from sensor_msgs.msg import JointState
    from visualization_msgs.msg import Marker, MarkerArray

    robots = scene()
    rclpy.init()
    node = rclpy.create_node("a18_bench")
    inbox = []
    node.create_subscription(Twist, "a18/twist", inbox.append, 10)
    device = node.create_publisher(Twist, "a18/twist", 10)
    js_pubs = {name: node.create_publisher(JointState, f"a18/{name}/joint_states", 10) for name, *_ in robots}
    marker_pub = node.create_publisher(MarkerArray, "a18/markers", 10)
    q = {name: s.q0.copy() for name, s, *_ in robots}
    solve_us = {name: [] for name, *_ in robots}
    cycle_ms, stage_ms, received = [], {"read": [], "solve": [], "publish": []}, 0
    print(f"real-time scene: {', '.join(n for n, *_ in robots)}; {args.cycles} cycles; {platform.processor() or ''}")
    warm = 20
    for k in range(args.cycles + warm):
        t = 2 * np.pi * k / 100.0
        msg = Twist()
        msg.linear.x, msg.linear.z = SPEED * np.cos(t), SPEED * np.sin(t)
        device.publish(msg)
        t0 = time.perf_counter()
        rclpy.spin_once(node, timeout_sec=0.005)  # 1. read inputs
        t1 = time.perf_counter()
        solve_s = 0.0
        twist = np.zeros(6)
        if inbox:
            m = inbox[-1]
            twist[:3] = (m.linear.x / RATE, m.linear.y / RATE, m.linear.z / RATE)
            received += len(inbox)
            inbox.clear()
        markers = MarkerArray()
        stamp = node.get_clock().now().to_msg()
        for name, s, tasks, targets, legs in robots:  # 2. solve
            for tg in targets:
                tg.move(twist)
            if legs is not None:
                legs.set_target(np.array([0.1498, 0.18, 0.234]) + 0.005 * np.sin(t))
            a = time.perf_counter()
            q_new, report = prioritized.solve(s, q[name], *tasks)
            solve_us[name].append((time.perf_counter() - a) * 1e6)
            solve_s += time.perf_counter() - a
            speeds = np.abs(report.dq) * RATE
            q[name] = q_new
            js = JointState()  # 3. publish
            js.header.stamp, js.name = stamp, list(s.joint_names)
            js.position = [float(q_new[s.joint_index(j)[0]]) for j in s.joint_names]
            js_pubs[name].publish(js)
            for i, v in enumerate(speeds[: len(s.joint_names)]):
                mk = Marker()
                mk.header.stamp, mk.header.frame_id = stamp, f"{name}/base"
                mk.ns, mk.id, mk.type = name, i, Marker.SPHERE
                mk.scale.x = mk.scale.y = mk.scale.z = 0.01 + 0.05 * float(v)
                markers.markers.append(mk)
        marker_pub.publish(markers)
        if k >= warm:
            t2 = time.perf_counter()
            cycle_ms.append((t2 - t0) * 1e3)
            stage_ms["read"].append((t1 - t0) * 1e3)
            stage_ms["solve"].append(solve_s * 1e3)
            stage_ms["publish"].append((t2 - t1 - solve_s) * 1e3)
    node.destroy_node()
    rclpy.shutdown()

    c = np.array(cycle_ms)
    print(f"twists received: {received} of {args.cycles + warm} sent")
    print("\n| ms per cycle | median | p90 | p99 | max | budget |")
    print("|---|---|---|---|---|---|")
    p = np.percentile(c, [50, 90, 99])
    print(f"| whole cycle | {p[0]:.2f} | {p[1]:.2f} | {p[2]:.2f} | {c.max():.2f} | {BUDGET_MS:.0f} |")
    for stage, v in stage_ms.items():
        v = np.array(v)
        m, p90, p99 = np.median(v), np.percentile(v, 90), np.percentile(v, 99)
        print(f"| {stage} | {m:.2f} | {p90:.2f} | {p99:.2f} | {v.max():.2f} | |")
    print(f"\ncycles over budget: {(c > BUDGET_MS).sum()} of {c.size}; rate at the median: {1e3 / p[0]:.0f} Hz")
    print("\n| robot | J_aug | solver µs, median | p90 |")
    print("|---|---|---|---|")
    for name, s, tasks, *_ in robots:
        m = sum(t.dim for t in prioritized.tasks_of(s, tasks))
        u = np.array(solve_us[name][warm:])
        print(f"| {name} | {m}x{s.model.nv} | {np.median(u):.0f} | {np.percentile(u, 90):.0f} |")
    if args.json:
        doc = {"benchmark": "kinematics_realtime", "cycle_ms": {"median": p[0], "p90": p[1], "p99": p[2]}}
        doc["median/budget"] = p[0] / BUDGET_MS
        Path(args.json).write_text(json.dumps(doc, indent=1, default=float))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
