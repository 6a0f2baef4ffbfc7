"""Step length as an input: the cyclic step at 0.3, 0.4 and 0.6 m by continuation from the solved
0.5 m step (Chessé 2002, §III.3.2.8; increments of at most 0.1 m, `continue_step_length`).  The
0.5 m reference is the session's walk (conftest `gait_walk`); one module fixture solves the six
phases (0.5 -> 0.4 -> 0.3 and 0.5 -> 0.6 m, each from the previous solution)."""

import numpy as np
import pytest

from humanoid_planner.gait import boundary as bd
from humanoid_planner.gait.phase_sequence import VIOLATION_MAX, continue_step_length, make_problem

LENGTHS = (0.3, 0.4, 0.6)


@pytest.fixture(scope="module")
def steps(gait_walk):
    """{step length: (DS, SS)} for 0.3, 0.4, 0.5, 0.6 m."""
    _, sols = gait_walk
    ref = [s for s in sols if s.phase.name in ("cyclic_ds", "cyclic_ss")]
    _, _, short = continue_step_length(0.3, "cyclic", reference=ref)  # 0.5 -> 0.4 -> 0.3
    _, _, long = continue_step_length(0.6, "cyclic", reference=ref)
    return {round(L, 9): tuple(s) for L, s in short + long}


def test_scaling_keeps_the_thesis_step_and_moves_the_heel_target():
    """scaled_to(0.5) is the thesis's data; at 0.4 m the DS boundary states put the front heel at
    LPAS - l_pied with zero velocity (the heel condition of Chessé 2002, Annex A) and the hip travel and
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


def test_continued_steps_converge_with_closure_feasible_contacts_and_free_torques(steps, gait_walk):
    """0.3, 0.4 and 0.6 m: converged, the closure held (<= 1 mm, as on the thesis's step), the contact
    conditions met, the penalised joint/speed/clearance limits within one scale unit (the walk's
    acceptance, `phase_sequence.VIOLATION_MAX`) and no torque at its bound (with the 6 N toe cap
    instead of the toe-force rate bound, the 0.4 m step needs 400 N m and the 0.3 m step leaves a
    41 mm closure residual: docs/gait.md)."""
    pb, _ = gait_walk
    assert sorted(steps) == [0.3, 0.4, 0.5, 0.6]
    for L in LENGTHS:
        for s in steps[L]:
            c = s.checks
            assert s.success, (L, s.phase.name, s.status)
            assert c["unilateral_ok"] and c["friction_ok"], (L, s.phase.name)
            assert c["constraint_violation_max"] <= VIOLATION_MAX, (L, s.phase.name)
            assert max(c["max_abs_torque"]) < 0.9 * pb.weights.tau_max, (L, s.phase.name)
        assert 0 < steps[L][0].checks["closure_residual_max"] <= 1e-3, L


def test_hip_advances_one_step_length_per_step(steps, gait_walk):
    """The cyclic step's relation at any step length: the hip advances LPAS over T_DS + T_SS."""
    pb, _ = gait_walk
    for L in LENGTHS:
        ds, ss = steps[L]
        advance = pb.world_points(ss, "hip")[-1, 0] - pb.world_points(ds, "hip")[0, 0]
        assert advance == pytest.approx(L, abs=1e-9), L


def test_single_support_effort_grows_with_the_step_length(steps):
    """In the fixed 0.5 s SS the swing foot travels 2 LPAS and the hip LPAS, with the horizontal
    speeds scaled by LPAS / 0.5: the accelerations to produce grow with the step, and so does the SS
    cost (measured 0.37 / 0.48 / 0.65 / 0.89) and, from 0.4 m on, its energy (the DS, whose cost is
    dominated by the contact forces and the imposed rear-foot rotation, has no such trend)."""
    costs = [steps[L][1].cost for L in (0.3, 0.4, 0.5, 0.6)]
    energies = [steps[L][1].checks["energy"] for L in (0.4, 0.5, 0.6)]
    assert np.all(np.diff(costs) > 0), costs
    assert np.all(np.diff(energies) > 0), energies
