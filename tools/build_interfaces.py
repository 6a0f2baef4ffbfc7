"""Build the ROS 2 interface packages of interfaces/ into the venv (`make` runs it; docs/ros.md, "Interfaces").

    .venv/bin/python tools/build_interfaces.py [--force]

- `humanoid_stack_interfaces` (the project's messages and actions) is always built.
- `tf2_msgs` and `control_msgs` (interfaces/upstream/: Kilted's definitions, so the same type hashes) are built
  only when no sourced ROS 2 provides them: a system ROS 2's own packages win.

colcon and the rosidl generators (ament_cmake and the rosidl wheels of requirements-ros.txt, or a sourced
ROS 2's) build them into the venv's prefix (merge install): the Python packages into its site-packages, the
libraries into its lib/, found at run time by their RPATH ($ORIGIN) and, with the PyPI wheels, by the
bootstrap that puts the venv's lib/ on the loader path. interfaces/cmake/wheel_include_dirs.cmake repairs
the wheels' exported include folders. A stamp in the venv records a hash of the sources: an unchanged tree is
not rebuilt. Prints the build's time; a failure prints colcon's output and exits 1.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
SOURCES = REPO / "interfaces"
UPSTREAM = ("tf2_msgs", "control_msgs")
OWN = "humanoid_stack_interfaces"
PREFIX = Path(sys.prefix)
STAMP = PREFIX / ".interfaces"
BUILD = REPO / "build" / "interfaces"


def sourced_prefixes() -> list[Path]:
    """The prefixes of a sourced ROS 2 (AMENT_PREFIX_PATH), the venv's own excluded."""
    parts = [Path(p) for p in os.environ.get("AMENT_PREFIX_PATH", "").split(os.pathsep) if p]
    return [p for p in parts if p.resolve() != PREFIX.resolve()]


def provided_by_system(package: str) -> Path | None:
    """The sourced ROS 2 prefix that has ``package``, or None."""
    for prefix in sourced_prefixes():
        if (prefix / "share" / package / "package.xml").is_file():
            return prefix
    return None


def packages_to_build() -> list[str]:
    return [p for p in UPSTREAM if provided_by_system(p) is None] + [OWN]


def sources_hash(packages: list[str]) -> str:
    h = hashlib.sha256()
    for package in packages:
        h.update(package.encode())
    for path in sorted(SOURCES.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(SOURCES)).encode())
            h.update(path.read_bytes())
    return h.hexdigest()


def package_paths(packages: list[str]) -> list[str]:
    return [str(SOURCES / "upstream" / p) if p in UPSTREAM else str(SOURCES / p) for p in packages]


def colcon_command(packages: list[str]) -> list[str]:
    colcon = shutil.which("colcon", path=str(Path(sys.executable).parent)) or shutil.which("colcon")
    if colcon is None:
        sys.exit("ERROR: colcon not found: it is pinned in requirements.txt (colcon-common-extensions)")
    return [
        colcon,
        "--log-base",
        str(BUILD / "log"),
        "build",
        "--paths",
        *package_paths(packages),
        "--build-base",
        str(BUILD / "build"),
        "--install-base",
        str(PREFIX),
        "--merge-install",
        "--event-handlers",
        "console_direct-",
        "console_stderr-",
        "--cmake-args",
        f"-DPython3_EXECUTABLE={sys.executable}",
        "-DBUILD_TESTING=OFF",
        "-DCMAKE_BUILD_TYPE=Release",
        f"-DCMAKE_PROJECT_INCLUDE={SOURCES / 'cmake' / 'wheel_include_dirs.cmake'}",
        "-DCMAKE_INSTALL_RPATH=$ORIGIN;$ORIGIN/../../..",
    ]


def build_environment() -> dict[str, str]:
    env = dict(os.environ)
    env["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}"
    for name in ("CMAKE_PREFIX_PATH", "AMENT_PREFIX_PATH"):
        env[name] = os.pathsep.join(p for p in (str(PREFIX), env.get(name, "")) if p)
    env.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    return env


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--force", action="store_true", help="rebuild even if the sources did not change")
    args = parser.parse_args(argv)
    packages = packages_to_build()
    for package in UPSTREAM:
        if package not in packages:
            print(f"== {package}: the sourced ROS 2's ({provided_by_system(package)})")
    key = sources_hash(packages)
    if not args.force and STAMP.is_file() and STAMP.read_text().strip() == key:
        print(f"== interfaces up to date in {PREFIX} ({', '.join(packages)})")
        return 0
    print(f"== building the ROS 2 interfaces {', '.join(packages)} into {PREFIX} (colcon)", flush=True)
    start = time.perf_counter()
    BUILD.mkdir(parents=True, exist_ok=True)
    result = subprocess.run(
        colcon_command(packages), env=build_environment(), cwd=BUILD, capture_output=True, text=True
    )
    if result.returncode != 0:
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        print(f"ERROR: building the interfaces failed (log: {BUILD / 'log'})", file=sys.stderr)
        return 1
    STAMP.write_text(key + "\n")
    print(f"== interfaces built in {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
