"""Helpers shared by the tests (not test modules themselves):

- `REPO`: the repository root;
- `browser`: headless Chromium screenshots of the web viewer and viser client messages;
- `kin_planar`: small planar kinematic structures written as URDF + sidecar;
- `ros_up`: start a node set with `humanoid-stack up` in a child process, a private ROS client;
- `ros_bridge_stack`: the robot bridge and the simulator in one process, for the bridge's ROS tests;
- `demo_listener.py`: the child process of the demo test (run as a script);
- `robot_data`: the example-robot-data humanoids (Talos, G1) of the optional extra, or None;
- `stubs/`: stand-in `launch` / `launch_ros` modules for importing the launch files without ROS.
"""

from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
