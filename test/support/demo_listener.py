"""Child process of test_demo.py: starts a node set (`humanoid-stack demo` or `up standing`), listens
to /joint_states, /contacts, /odom, the planner's stances and the whole-body controller's status,
polls the viewer's URL, and writes what it saw as JSON (argv: port, duration, startup bound, log
path, output path, then the command's words after `humanoid-stack`).

It runs apart from pytest because rclpy / Fast DDS can segfault in `spin_once` here (about once in
four fresh-clone runs, never reproduced in isolation): in a child process such a crash is one failed
attempt that the test can see and retry, not the end of the whole pytest session."""

import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.request

import rclpy
from nav_msgs.msg import Odometry
from rclpy.executors import SingleThreadedExecutor
from sensor_msgs.msg import JointState
from std_msgs.msg import String
from visualization_msgs.msg import MarkerArray


def http_status(url):
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return response.status
    except (urllib.error.URLError, OSError):
        return None


def main(port, duration, startup, log_path, out_path, command):
    url = f"http://127.0.0.1:{port}/"
    context = rclpy.Context()
    rclpy.init(context=context)
    node = rclpy.create_node("test_demo_listener", context=context)
    received = []
    node.create_subscription(JointState, "/joint_states", received.append, 10)
    contacts = []
    node.create_subscription(MarkerArray, "/contacts", contacts.append, 10)
    odom, stances, motion = [], [], []
    node.create_subscription(Odometry, "/odom", lambda m: odom.append(m.pose.pose.position.x), 10)
    node.create_subscription(MarkerArray, "/contact_planner/stances", stances.append, 1)
    node.create_subscription(String, "/whole_body_controller/status", lambda m: motion.append(json.loads(m.data)), 10)
    executor = SingleThreadedExecutor(context=context)
    executor.add_node(node)
    status, description_publishers = None, {0}
    with open(log_path, "w") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "humanoid_stack", *command],
            env=dict(os.environ),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            deadline = time.monotonic() + startup + duration
            while proc.poll() is None and time.monotonic() < deadline:
                executor.spin_once(timeout_sec=0.1)
                if status != 200:
                    status = http_status(url)
                description_publishers.add(node.count_publishers("/robot_description"))
            rc = proc.wait(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
            node.destroy_node()
            context.try_shutdown()
    last = received[-1] if received else None
    result = {
        "url": url,
        "rc": rc,
        "status": status,
        "joint_states": len(received),
        "last_names": list(last.name) if last else [],
        "last_positions": list(last.position) if last else [],
        "description_publishers": max(description_publishers),
        "contact_namespaces": sorted({m.ns for arr in contacts for m in arr.markers}),
        "contacts": len(contacts),
        "odom_x": [odom[0], odom[-1]] if odom else [],
        "stances": len(stances[-1].markers) if stances else 0,
        "motion": motion[-1] if motion else None,
        "states": sorted({x["state"] for x in motion}),
    }
    with open(out_path, "w") as f:
        json.dump(result, f)


if __name__ == "__main__":
    main(int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6:])
