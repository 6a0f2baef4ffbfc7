"""The layers (DEVELOPERS.md): only `humanoid_ros` (and `humanoid_stack` above it) imports rclpy or
ROS message packages; the libraries never import them, nor the nodes, with no exception; a node
never imports another node's module (nor its parameter table). Read from the source (ast), so it
needs no ROS install."""

import ast
from pathlib import Path

import pytest
from support import REPO

LIBRARIES = (
    "humanoid_model",
    "humanoid_sim",
    "humanoid_planner",
    "humanoid_control",
    "humanoid_viewer",
    "humanoid_execution",
)
ROS = {"rclpy", "rcl_interfaces", "builtin_interfaces", "tf2_msgs", "launch", "launch_ros"}
NODE_MODULES = ("state_publisher", "viewer", "gait_generator", "simulator")


def imports(path: Path) -> set[str]:
    """Absolute module names imported anywhere in `path` (also inside functions)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def is_ros(module: str) -> bool:
    top = module.split(".")[0]
    return top in ROS or top.endswith(("_msgs", "_srvs"))


@pytest.mark.parametrize("package", LIBRARIES)
def test_libraries_never_import_ros_or_the_nodes(package):
    bad = []
    for path in sorted((REPO / package).rglob("*.py")):
        rel = path.relative_to(REPO).as_posix()
        for module in sorted(imports(path)):
            if is_ros(module) or module.split(".")[0] in ("humanoid_ros", "humanoid_stack"):
                bad.append(f"{rel} imports {module}")
    assert not bad, "\n".join(bad)


def test_nodes_do_not_import_each_other():
    for name in NODE_MODULES:
        others = {f"humanoid_ros.{n}{part}" for n in NODE_MODULES if n != name for part in ("", "_parameters")}
        got = imports(REPO / "humanoid_ros" / f"{name}.py")
        assert not got & others, f"humanoid_ros/{name}.py imports {sorted(got & others)}"
        assert "humanoid_ros.common" in got  # the shared helpers come from one module
