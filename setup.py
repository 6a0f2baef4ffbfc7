"""ament_python set-up for the humanoid_stack ROS 2 package (also a plain pip package)."""

from pathlib import Path

from setuptools import find_packages, setup

PACKAGE = "humanoid_stack"
HERE = Path(__file__).resolve().parent

# ROS 2 node executables: installed as console scripts and, through setup.cfg's
# script_dir, under lib/humanoid_stack/ so `ros2 run humanoid_stack <name>` finds them.
# Each node is a module humanoid_ros/<name>.py with a main() (DEVELOPERS.md, "Adding a node").
NODES = {
    "state_publisher": "humanoid_ros.state_publisher:main",
    "viewer": "humanoid_ros.viewer:main",
    "gait_generator": "humanoid_ros.gait_generator:main",
    "simulator": "humanoid_ros.simulator:main",
    "robot_bridge": "humanoid_ros.robot_bridge:main",
    "pilot": "humanoid_ros.pilot:main",
    "contact_planner": "humanoid_ros.contact_planner:main",
}


def tree(folder):
    """data_files entries installing `folder` under share/humanoid_stack, keeping sub-folders."""
    entries = {}
    for path in sorted((HERE / folder).rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts:
            rel = path.relative_to(HERE)
            entries.setdefault(str(Path("share") / PACKAGE / rel.parent), []).append(str(rel))
    return list(entries.items())


setup(
    name=PACKAGE,
    version="0.1.0",
    packages=find_packages(include=["humanoid_*", "humanoid_*.*"]),
    data_files=[
        ("share/ament_index/resource_index/packages", [f"resource/{PACKAGE}"]),
        (f"share/{PACKAGE}", ["package.xml"]),
        *tree("launch"),
        *tree("urdf"),
        *tree("config"),
        *tree("rviz"),
    ],
    include_package_data=True,
    package_data={"humanoid_model.dynmodel": ["data/*.urdf"]},
    install_requires=["setuptools"],
    # Optional: Talos, Romeo, iCub, G1... (about 400 MB), used by tests when installed.
    # peers: the benchmarks' side-by-side references (MuJoCo; pink + quadprog for benchmarks/kinematics.py).
    # Crocoddyl (benchmarks/gait.py --crocoddyl) is not here: its 3.2.1 binaries need pin 4.0.0 and misbehave
    # beside the project's pin 4.1.0, so it has its own venv (make venv-crocoddyl, requirements-crocoddyl.txt)
    extras_require={
        "robots": ["example-robot-data==6.0.0"],
        "peers": ["mujoco==4.0.0", "pin-pink==4.4.0", "qpsolvers[quadprog]==4.13.0"],
    },
    zip_safe=False,
    maintainer="humanoid_stack developers",
    maintainer_email="humanoid-stack@example.org",
    description="ROS 2 humanoid stack: simulator with frictional contact, planners, gait optimisation, "
    "kinematic piloting and dynamic-model generation (HRP-2, BIP, any URDF).",
    license="BSD-3-Clause",
    tests_require=["pytest"],
    entry_points={
        "console_scripts": [
            "humanoid-stack = humanoid_stack.cli:main",
            *[f"{name} = {target}" for name, target in NODES.items()],
        ],
    },
)
