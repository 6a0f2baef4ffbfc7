"""Step length as an input (issue 13): the cyclic step at 0.4 m by continuation from the solved
0.5 m step (003_chesse.md:638); 0.3 and 0.6 m are in `benchmarks/gait.py --step-lengths` (too slow
for the suite).  One module fixture: the 0.5 m step and the 0.4 m step (about 25 s)."""

import numpy as np
import pytest

from humanoid_planner.gait import boundary as bd
from humanoid_planner.gait.walk import continue_step_length, make_problem


@pytest.fixture(scope="module")
def steps():
    problem, sols, path = continue_step_length(0.4, "cyclic")
    return problem, dict(path)


def test_scaling_keeps_the_thesis_step_and_moves_the_heel_target():
    """scaled_to(0.5) is the thesis's data; at 0.4 m the DS boundary states put the front heel at
    LPAS - l_pied with zero velocity (A6's condition, 003_chesse.md:706) and the hip travel and
    speed scale by 0.8."""
    pb5, pb4 = make_problem("thesis"), make_problem("thesis", step_length=0.4)
    assert pb5.gait == bd.GaitData()
    g = pb4.gait
    assert g.step_length == 0.4 and g.hip0[1] == bd.GaitData().hip0[1]
    assert g.hip1[0] - g.hip0[0] == pytest.approx(0.8 * 0.13, abs=1e-12)
    assert g.hipv0[0] == pytest.approx(0.8 * 0.75, abs=1e-12)
    for q, v in bd.ds_boundary_states(pb4.params, g):
        np.testing.assert_allclose(pb4.ds.point("heel", q), [0.4 - pb4.params.foot.l_pied, 0.0], atol=1e-9)
        np.testing.assert_allclose(pb4.ds.point_velocity("heel", q, v), [0.0, 0.0], atol=1e-9)


def test_continued_step_converges_with_closure_and_feasible_contacts(steps):
    _, path = steps
    assert sorted(path) == [0.4, 0.5]
    for L, (ds, ss) in path.items():
        for s in (ds, ss):
            assert s.success, (L, s.phase.name, s.status)
            assert np.isfinite(s.cost) and s.cost > 0
            assert s.checks["unilateral_ok"] and s.checks["friction_ok"], (L, s.phase.name)
        # A9 (003_chesse.md:709): closure residual <= 1 mm at r_d = 150
        assert 0 < ds.checks["closure_residual_max"] <= 1e-3, L


def test_hip_advances_one_step_length_per_step(steps):
    """A8's relation at any step length: the hip advances LPAS over T_DS + T_SS."""
    problem, path = steps
    ds, ss = path[0.4]
    hip0 = problem.world_points(ds, "hip")[0, 0]
    hip1 = problem.world_points(ss, "hip")[-1, 0]
    assert hip1 - hip0 == pytest.approx(0.4, abs=1e-9)


def test_single_support_effort_grows_with_the_step_length(steps):
    """In the fixed 0.5 s SS the swing foot travels 2 LPAS and the hip LPAS, with the horizontal
    speeds scaled by LPAS / 0.5: the accelerations to produce grow with the step, and so do the SS
    cost and energy (the DS, whose cost is dominated by the contact forces and the imposed rear-foot
    rotation, has no such monotone trend)."""
    _, path = steps
    ss4, ss5 = path[0.4][1], path[0.5][1]
    assert ss4.cost < ss5.cost
    assert ss4.checks["energy"] < ss5.checks["energy"]
