"""`make test` installs the optional ``robots`` extra (example-robot-data: Talos, G1), so the
robot and planning tests that need it run in CI: requirements.txt, which the Makefile installs,
pins the very version setup.py's ``robots`` extra asks for."""

import ast
import re

from support import REPO


def _extra(name: str) -> list[str]:
    tree = ast.parse((REPO / "setup.py").read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.keyword) and node.arg == "extras_require":
            return ast.literal_eval(node.value)[name]
    raise AssertionError("setup.py has no extras_require")


def test_requirements_pin_the_robots_extra_that_the_makefile_installs():
    pins = dict(
        re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line).groups()
        for line in (REPO / "requirements.txt").read_text().splitlines()
        if "==" in line and not line.lstrip().startswith("#")
    )
    for spec in _extra("robots"):
        name, version = spec.split("==")
        assert pins.get(name) == version, f"requirements.txt does not pin {spec}"
    assert "-r requirements.txt" in (REPO / "Makefile").read_text()
