"""Plans shared by the closed-loop execution tests (one per test session and worker).

The plans use brisk caps; the whole-body controller slows them where their dynamics need it
(`humanoid_control.wbc.retime`, docs/execution.md):

- ``flat_plan``: `humanoid-stack plan flat --goal 0.8,0` at 60 deg/s, 0.3 m/s, 30 deg/s;
- ``stairs_plan``: the stairs (Escande 2008, §5.4.2) at 45 deg/s, 0.25 m/s, 25 deg/s, sampled
  every 10 ms (the caps of `make demo`, config/demo.yaml).
"""

import pytest

from humanoid_stack.cli import main

FLAT = ["flat", "--goal", "0.8,0", "--joint-speed", "60", "--base-speed", "0.3", "--base-rotation-speed", "30"]
STAIRS = ["stairs", "--joint-speed", "45", "--base-speed", "0.25", "--base-rotation-speed", "25", "--dt", "0.01"]


def _plan(tmp_path_factory, name, argv):
    out = tmp_path_factory.mktemp(name) / "PLAN.json"
    assert main(["plan", *argv, "--quiet", "--output", str(out)]) == 0
    return out


@pytest.fixture(scope="session")
def flat_plan(tmp_path_factory):
    return _plan(tmp_path_factory, "flat", FLAT)


@pytest.fixture(scope="session")
def stairs_plan(tmp_path_factory):
    return _plan(tmp_path_factory, "stairs", STAIRS)
