"""The commands' ``--help`` states the bounds each command and its library check: every number of
`humanoid_planner.bounds` a command takes, and the commands' own constants, read here from the code
and looked for in the help text in one of the forms a reader sees (200,000 or 200000, 0.0001,
4294967295). A bound changed in the code and not in the help fails here."""

import math
import re

import pytest

from humanoid_planner import bounds
from humanoid_stack.cli import main
from humanoid_stack.commands import dynmodel, simulate


def _forms(value) -> set[str]:
    """The ways a help text writes ``value``."""
    if isinstance(value, int):
        return {str(value), f"{value:,}"}
    forms = {f"{value:g}", repr(value), re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{value:.0e}")}  # 1e-3
    if value == int(value):
        forms |= {str(int(value)), f"{int(value):,}"}
    return forms


def _states(text: str, value) -> bool:
    """Whether ``text`` writes ``value`` as a number of its own (2 is not found in 2002 or 0.2)."""
    return any(re.search(rf"(?<![\w,])(?<!\d\.){re.escape(form)}(?![\w]|[.,]\d)", text) for form in _forms(value))


BOUNDS = {
    "plan": {
        "MAX_MOTION_STEPS": bounds.MAX_MOTION_STEPS,
        "MIN_DT": bounds.MIN_DT,
        "MAX_DT": bounds.MAX_DT,
        "MIN_SPEED": bounds.MIN_SPEED,
        "MAX_SAMPLES": bounds.MAX_SAMPLES,
        "MAX_TIME_LIMIT": bounds.MAX_TIME_LIMIT,
        "MAX_SEED": bounds.MAX_SEED,
        "MAX_WORKERS": bounds.MAX_WORKERS,
        "MAX_CANDIDATES": bounds.MAX_CANDIDATES,
        "MAX_EXPANDED": bounds.MAX_EXPANDED,
        "MAX_DENSITY": bounds.MAX_DENSITY,
        "MAX_SOLVER_ITERATIONS": bounds.MAX_SOLVER_ITERATIONS,
    },
    "walk": {
        "MAX_WALK_STEPS": bounds.MAX_WALK_STEPS,
        "MAX_WALK_SAMPLES": bounds.MAX_WALK_SAMPLES,
        "MAX_WALK_PHASE": bounds.MAX_WALK_PHASE,
    },
    "simulate": {"MAX_STEPS": simulate.MAX_STEPS, "MAX_FRAMES": simulate.MAX_FRAMES},
    "gait": {
        "MIN_PHASE_DURATION": bounds.MIN_PHASE_DURATION,
        "MAX_PHASE_DURATION": bounds.MAX_PHASE_DURATION,
        "MAX_CYCLIC_STEPS": bounds.MAX_CYCLIC_STEPS,
    },
    "dynmodel": {"MAX_SYMPY_DOF": dynmodel.MAX_SYMPY_DOF},
}


def _help(command, capsys) -> str:
    with pytest.raises(SystemExit) as exit_:
        main([command, "--help"])
    assert exit_.value.code == 0
    return " ".join(capsys.readouterr().out.split())  # argparse's line wrapping undone


@pytest.mark.parametrize("command", list(BOUNDS))
def test_help_states_the_commands_bounds(command, capsys):
    text = _help(command, capsys)
    missing = [name for name, value in BOUNDS[command].items() if not _states(text, value)]
    assert not missing, f"'{command} --help' does not state {missing}"


def test_plan_help_states_the_joint_speed_bound_in_degrees(capsys):
    """--joint-speed is given in deg/s: its lower bound (the library's, in rad/s) is stated so too."""
    assert f"{math.degrees(bounds.MIN_SPEED):.3g} deg/s" in _help("plan", capsys)
