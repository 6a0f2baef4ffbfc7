"""package.xml: format 3, BSD-3-Clause like LICENSE, and a dependency key for every
third-party module the Python packages import (so `rosdep install` on a system ROS 2 brings them);
modules without a rosdep key must be pinned in requirements.txt and named in package.xml's comment."""

import ast
import sys
import xml.etree.ElementTree as ET

from support import REPO

PACKAGES = (
    "humanoid_model",
    "humanoid_sim",
    "humanoid_planner",
    "humanoid_control",
    "humanoid_viewer",
    "humanoid_ros",
    "humanoid_stack",
)
# Python module -> rosdep key, where the two differ. ROS 2 packages (rclpy, *_msgs, *_srvs, *_interfaces,
# ament_index_python, launch, launch_ros) use their own name as the key.
ROSDEP_KEY = {
    "numpy": "python3-numpy",
    "scipy": "python3-scipy",
    "yaml": "python3-yaml",
    "matplotlib": "python3-matplotlib",
    "sympy": "python3-sympy",
    "tqdm": "python3-tqdm",
    "numba": "python3-numba",
    "trimesh": "python3-trimesh",
    "pinocchio": "pinocchio",
    "coal": "coal",
}
# module -> PyPI distribution (requirements.txt)
PIP_ONLY = {
    "viser": "viser",
    "websockets": "websockets",
    "casadi": "casadi",
    "daqp": "daqp",
    "toppra": "toppra",
    "ruckig": "ruckig",
    "rosbags": "rosbags",
    "ompl": "ompl",
}
ROS_MODULES = ("rclpy", "ament_index_python", "launch", "launch_ros", "xacro")
# optional modules: imported inside a function, with a fallback when absent (not installed by make)
OPTIONAL = {"gmsh": "humanoid_sim.soles.mesh: the structured generator is the default (docs/soles.md)"}


def imported_top_level_modules():
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), str(path))):
                if isinstance(node, ast.Import):
                    names = [a.name for a in node.names]
                elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                    names = [node.module]
                else:
                    continue
                for name in names:
                    found.setdefault(name.split(".")[0], path.relative_to(REPO).as_posix())
    return {
        m: where for m, where in found.items() if m not in sys.stdlib_module_names and not m.startswith("humanoid_")
    }


def test_format_3_and_licence():
    root = ET.parse(REPO / "package.xml").getroot()
    assert root.get("format") == "3" and root.findtext("name") == "humanoid_stack"
    assert root.findtext("license") == "BSD-3-Clause"
    assert (REPO / "LICENSE").read_text().startswith("BSD 3-Clause License")
    assert root.find("export/build_type").text == "ament_python"


def test_every_imported_third_party_module_is_declared():
    text = (REPO / "package.xml").read_text()
    keys = {e.text for e in ET.fromstring(text) if e.tag.endswith("depend")}
    requirements = (REPO / "requirements.txt").read_text().lower()
    missing = []
    for module, where in sorted(imported_top_level_modules().items()):
        if module in OPTIONAL:
            continue
        if module in PIP_ONLY:
            assert f"{PIP_ONLY[module]}==" in requirements, f"{module} ({where}) is not pinned in requirements.txt"
            assert module in text, f"package.xml's comment does not name the PyPI-only {module}"
            continue
        if module in ROSDEP_KEY:
            key = ROSDEP_KEY[module]
        elif module in ROS_MODULES or module.endswith(("_msgs", "_srvs", "_interfaces")):
            key = module
        else:
            missing.append(
                f"{module} (imported by {where}): add its rosdep key to ROSDEP_KEY and package.xml, or to PIP_ONLY"
            )
            continue
        if key not in keys:
            missing.append(f"{module} (imported by {where}): package.xml lacks <exec_depend>{key}</exec_depend>")
    assert not missing, "\n".join(missing)
