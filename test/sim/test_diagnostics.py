"""The simulator's physics report for /diagnostics (`humanoid_sim.runtime.diagnostics`, ROS-free): OK while
running, WARN with the count of unconverged solves, ERROR with a step failure; the values come
from the drained step statistics."""

import pytest

from humanoid_sim.runtime import diagnostics
from humanoid_sim.solvers import SolverSettings
from humanoid_sim.world import World


def test_physics_report_levels_and_values():
    """/diagnostics content (`humanoid_sim.runtime.diagnostics`): OK while running, WARN with the count of
    unconverged solves, ERROR with a step failure; values from the drained statistics."""
    w = World.from_scene("table_static", solver_settings=SolverSettings(max_iterations=1))
    w.step(20)
    s = w.step_stats.drain()
    assert s.unconverged_solves > 0
    r = diagnostics.physics_report(s, w, 2.0, 0.02, max_iterations=1, unconverged_total=7, controller="c")
    assert r.level == diagnostics.WARN and f"{s.unconverged_solves} contact solves in 20 steps" in r.message
    v = r.values
    assert v["steps"] == "20" and v["unconverged_solves_total"] == "7" and v["real_time_factor"] == "0.010"
    assert v["contacts"] == str(w.last.batch.m) and v["solver"] == w.solver.name and v["controller"] == "c"
    assert float(v["solver_iterations_mean"]) == pytest.approx(s.iterations_total / 20, abs=0.005)
    assert float(v["penetration_max_m"]) == pytest.approx(max(0.0, -s.min_gap), rel=1e-3)
    ok = diagnostics.physics_report(w.step_stats.drain(), w, 1.0, 0.0, max_iterations=1, unconverged_total=7)
    assert ok.level == diagnostics.OK and ok.message == "running" and ok.values["steps"] == "0"
    assert ok.values["accepted_commands"] == "0" and ok.values["last_command_time_s"] == ""  # none yet
    fed = diagnostics.physics_report(
        s, w, 1.0, 0.0, max_iterations=1, unconverged_total=0, accepted_commands=3, last_command_time=0.0125
    )
    assert fed.values["accepted_commands"] == "3" and fed.values["last_command_time_s"] == "0.012500"
    err = diagnostics.physics_report(s, w, 1.0, 0.0, max_iterations=1, unconverged_total=7, error="boom")
    assert err.level == diagnostics.ERROR and err.message == "boom"
