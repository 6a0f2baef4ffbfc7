"""`humanoid_planner.gait.phase_sequence.plan_walk` (the library side of the gait generator's ~/plan_walk):
every refusal happens before any solve, with the node's message; an accepted distance asks for
the right number of cyclic steps and refuses an unconverged solve. No optimisation runs here (the
solver is replaced); the real solve is tested by test_ros_gait_generator.py."""

import math
from types import SimpleNamespace

import pytest

from humanoid_model.exceptions import PlanningError
from humanoid_planner.gait import phase_sequence
from humanoid_planner.gait.phase_sequence import MAX_CYCLIC, plan_walk


@pytest.fixture
def no_solve(monkeypatch):
    """Fail the test if plan_walk reaches the solver."""

    def solve(*args, **kwargs):
        raise AssertionError("plan_walk solved a request it should have refused")

    monkeypatch.setattr(phase_sequence, "solve_cyclic_gait_sequence", solve)


@pytest.mark.parametrize(
    "distance, tolerance, message",
    [
        (0.6, None, "gives a distance of 0.600 m; a walk from rest to rest with n >= 1 cyclic steps of 0.5 m"),
        (0.6, None, "tolerance 0.250 m"),  # default: half a step
        (0.0, None, "gives a distance of 0.000 m"),
        (-2.0, None, "gives a distance of -2.000 m"),
        (30.0, None, f"(at most {(MAX_CYCLIC + 1) * 0.5:.1f} m)"),
        (1.3, 0.1, "gives a distance of 1.300 m"),  # 1.5 m is the nearest walk, 0.2 m away
        (math.nan, None, "gives a distance of nan m"),
    ],
)
def test_distances_no_walk_covers_are_refused_before_solving(no_solve, distance, tolerance, message):
    with pytest.raises(PlanningError) as info:
        plan_walk(distance, tolerance, step_length=0.5)
    text = str(info.value)
    assert text.startswith("plan_walk: field 'distance' gives a distance of ")
    assert message in text


def test_the_message_names_the_callers_field(no_solve):
    with pytest.raises(PlanningError, match=r"^plan_walk: field 'goal.pose.position.x' gives a distance of 0.550 m"):
        plan_walk(0.55, field="goal.pose.position.x")


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(step_length=0.0), "gait: field 'step_length' must be a positive number, got 0.0"),
        (dict(step_length=-0.5), "gait: field 'step_length' must be a positive number, got -0.5"),
        (dict(step_length=math.nan), "gait: field 'step_length' must be a positive number, got nan"),
        (dict(tolerance=-0.1), "plan_walk: field 'tolerance' must be a finite number >= 0 [m], got -0.1"),
        (dict(tolerance=math.inf), "plan_walk: field 'tolerance' must be a finite number >= 0 [m], got inf"),
        (dict(t_ds=-1.0), "gait: field 't_ds' must be a positive number, got -1.0"),
    ],
)
def test_bad_settings_are_refused_before_solving(no_solve, kwargs, message):
    with pytest.raises(PlanningError) as info:
        plan_walk(1.5, **kwargs)
    assert str(info.value) == message


def test_accepted_distance_solves_n_cyclic_steps_and_checks_convergence(monkeypatch):
    calls = []

    def solve(problem, n_cyclic, progress=None):
        calls.append((problem.gait.step_length, problem.gait.t_ds, n_cyclic))
        if progress:
            progress("solving")
        return [SimpleNamespace(success=True, phase=SimpleNamespace(name="cyclic_ds"))]

    monkeypatch.setattr(phase_sequence, "solve_cyclic_gait_sequence", solve)
    monkeypatch.setattr(phase_sequence, "gait_json", lambda problem, sols: {"phases": [], "n_solutions": len(sols)})
    lines = []
    data = plan_walk(2.3, 0.2, step_length=0.4, t_ds=0.2, progress=lines.append)
    assert calls == [(0.4, 0.2, 5)]  # round(2.3 / 0.4) - 1 = 5 cyclic steps
    assert data["distance"] == pytest.approx(2.4)  # (5 + 1) x 0.4 m, 0.1 m from the goal
    assert data["n_solutions"] == 1 and lines == ["solving"]
    assert plan_walk(1.5)["distance"] == pytest.approx(1.5)  # defaults: the thesis's 0.5 m step
    assert calls[-1][0] == 0.5 and calls[-1][2] == 2

    def unconverged(problem, n_cyclic, progress=None):
        return [SimpleNamespace(success=False, phase=SimpleNamespace(name=n)) for n in ("stop_ss", "start_ss")]

    monkeypatch.setattr(phase_sequence, "solve_cyclic_gait_sequence", unconverged)
    with pytest.raises(
        PlanningError, match=r"^plan_walk: the solver did not converge for phase\(s\) \['start_ss', 'stop_ss'\]$"
    ):
        plan_walk(1.5)


@pytest.mark.parametrize(
    "distance, step, n_cyclic",
    [
        (2.3, 2.3 / 5, 4),  # 4.6 steps of 0.5 m: 5 of 0.46 m
        (1.4, 1.4 / 3, 2),  # 2.8: 3 of 0.467 m
        (0.9, 0.45, 1),  # the shortest walk: 2 steps
        (1.2, 0.6, 1),  # 2 of 0.6 m (3 of 0.4 m is as far from 0.5: the longer step wins)
        (0.6, 0.3, 1),  # 2 steps of 0.3 m
        (10.0, 0.5, 19),
    ],
)
def test_without_a_step_length_the_step_varies_to_cover_the_distance_exactly(monkeypatch, distance, step, n_cyclic):
    """plan_walk varies the step length, not only the step count: the step of 0.3-0.6 m
    (phase_sequence.STEP_RANGE) nearest the thesis's 0.5 m whose steps cover the distance exactly; a
    distance no such step covers keeps 0.5 m and its rounding (and tolerance)."""
    calls = []

    def solve(problem, n, progress=None):
        calls.append((problem.gait.step_length, n))
        return [SimpleNamespace(success=True, phase=SimpleNamespace(name="cyclic_ds"))]

    monkeypatch.setattr(phase_sequence, "solve_cyclic_gait_sequence", solve)
    monkeypatch.setattr(phase_sequence, "gait_json", lambda problem, sols: {})
    data = plan_walk(distance)
    assert calls == [(pytest.approx(step, abs=1e-12), n_cyclic)]
    assert data["distance"] == pytest.approx(distance, abs=1e-12)
    assert phase_sequence.STEP_RANGE[0] <= step <= phase_sequence.STEP_RANGE[1]


def test_a_distance_no_step_of_the_range_covers_keeps_the_thesis_step(no_solve):
    """0.55 m: two steps would be 0.275 m (< 0.3); with 0.5 m steps the nearest walk is 1 m."""
    with pytest.raises(PlanningError, match="cyclic steps of 0.5 m"):
        plan_walk(0.55)


def test_generate_gait_solves_the_asked_phase_and_refuses_an_unconverged_solve(monkeypatch):
    """`phase_sequence.generate_gait` (the gait generator's ~/generate): the requested phase of the problem
    built from the settings, GAIT.json data back, and the same refusal wording as the node had."""
    calls = []

    def solve(problem, which="walk", verbose=False, progress=None):
        calls.append((which, problem.gait.step_length))
        return [SimpleNamespace(success=which != "stop", phase=SimpleNamespace(name=f"{which}_ss"))]

    monkeypatch.setattr(phase_sequence, "solve_gait_sequence", solve)
    monkeypatch.setattr(phase_sequence, "gait_json", lambda problem, sols: {"phases": [s.phase.name for s in sols]})
    assert phase_sequence.generate_gait("cyclic", step_length=0.45) == {"phases": ["cyclic_ss"]}
    assert calls == [("cyclic", 0.45)]
    with pytest.raises(PlanningError, match=r"^gait: the solver did not converge for phase\(s\) \['stop_ss'\]$"):
        phase_sequence.generate_gait("stop")


def test_a_converged_walk_whose_penalties_decided_is_refused(monkeypatch):
    """IPOPT's success is not enough: a phase whose joint/speed/clearance penalties are violated by
    more than one scale unit, or whose closure exceeds 1 mm (3 x the thesis's 0.3 mm), is refused
    (the 0.6 m stop step of docs/gait.md ends 4.8e5 in penalty cost)."""

    def solve(problem, n_cyclic, progress=None):
        ok = {"constraint_violation_max": 0.001, "closure_residual_max": 4e-5}
        return [
            SimpleNamespace(success=True, phase=SimpleNamespace(name="cyclic_ds"), checks=ok),
            SimpleNamespace(
                success=True,
                phase=SimpleNamespace(name="stop_ss"),
                checks={"constraint_violation_max": 37.0, "closure_residual_max": 0.0},
            ),
            SimpleNamespace(
                success=True,
                phase=SimpleNamespace(name="prestop_ds"),
                checks={"constraint_violation_max": 0.0, "closure_residual_max": 2e-3},
            ),
        ]

    monkeypatch.setattr(phase_sequence, "solve_cyclic_gait_sequence", solve)
    monkeypatch.setattr(phase_sequence, "gait_json", lambda problem, sols: {})
    with pytest.raises(PlanningError) as info:
        plan_walk(1.5)
    text = str(info.value)
    assert text.startswith("plan_walk: phase(s) ['prestop_ds', 'stop_ss'] violate")
    assert "stop_ss: 37 scale units" in text and "prestop_ds: 0 scale units, closure 2 mm" in text
    assert "cyclic_ds" not in text
