"""Benchmark of the simulator node's /clock: its real-time factor running as fast as possible
(`real_time_factor: 0`) on the flat scene, HRP-2 standing, with /clock published at every step
(`clock_rate: 0`, the default) and thinned to the state rate (`clock_rate: 50`), each with no
subscriber and with a /clock subscriber in another process (a `use_sim_time` node's view).

The cases alternate in every repetition (a shared machine is noisy); each builds its node, lets it
run 1 s, then reads the simulated time over `--seconds` of wall clock. Median RTF per case.

Run:  .venv/bin/python benchmarks/sim_clock.py [--repeat 3] [--seconds 5]
Timings are wall-clock on whatever machine runs it (not a test).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SUBSCRIBER = """
import rclpy
from rclpy.node import Node
from rosgraph_msgs.msg import Clock
rclpy.init()
node = Node("clock_listener")
node.create_subscription(Clock, "/clock", lambda msg: None, 10)
try:
    rclpy.spin(node)
except Exception:  # the benchmark's SIGTERM
    pass
"""


def rtf(clock_rate: float, seconds: float) -> float:
    import rclpy
    from rclpy.executors import SingleThreadedExecutor
    from rclpy.parameter import Parameter

    from humanoid_ros.simulator import SimulatorNode

    context = rclpy.Context()
    rclpy.init(context=context)
    node = SimulatorNode(
        context=context,
        parameter_overrides=[
            Parameter("scene", value="flat"),
            Parameter("real_time_factor", value=0.0),
            Parameter("clock_rate", value=clock_rate),
        ],
    )
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    try:
        end = time.monotonic() + 1.0
        while time.monotonic() < end:
            executor.spin_once(timeout_sec=0.05)
        t0, w0 = node.world.t, time.monotonic()
        while time.monotonic() < w0 + seconds:
            executor.spin_once(timeout_sec=0.05)
        return (node.world.t - t0) / (time.monotonic() - w0)
    finally:
        node.close()
        executor.remove_node(node)
        node.destroy_node()
        executor.shutdown()
        rclpy.shutdown(context=context)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="repetitions of every case (default 3)")
    parser.add_argument("--seconds", type=float, default=5.0, help="wall seconds measured per case (default 5)")
    args = parser.parse_args(argv)
    os.environ.setdefault("ROS_AUTOMATIC_DISCOVERY_RANGE", "LOCALHOST")
    cases = [(0.0, False), (50.0, False), (0.0, True), (50.0, True)]
    results = {c: [] for c in cases}
    for _ in range(args.repeat):
        for clock_rate, subscribed in cases:
            listener = None
            if subscribed:
                listener = subprocess.Popen([sys.executable, "-c", SUBSCRIBER], cwd=ROOT)
                time.sleep(2.0)  # its discovery
            try:
                results[clock_rate, subscribed].append(rtf(clock_rate, args.seconds))
            finally:
                if listener is not None:
                    listener.terminate()
                    listener.wait(timeout=30)
    print(f"simulator /clock cost, HRP-2 standing on flat, dt 1 ms, {platform.processor() or platform.machine()}")
    print()
    print("| /clock | subscriber | median RTF | runs |")
    print("|---|---|---|---|")
    for (clock_rate, subscribed), values in results.items():
        label = "every step (clock_rate 0)" if clock_rate == 0 else f"{clock_rate:g} Hz"
        runs = ", ".join(f"{v:.3f}" for v in values)
        who = "one, another process" if subscribed else "none"
        print(f"| {label} | {who} | {statistics.median(values):.3f} | {runs} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
