"""A second biped gets an optimal cyclic step: HRP-2's sagittal reduction (urdf/hrp2.yaml
``planar``: the legs' pitch joints move, every other joint locked at half-sitting), its planar models
from the generated CasADi dynamics, the thesis's BIP step carried over by dynamic similarity
(`humanoid_planner.gait.biped`). One module fixture solves the cyclic DS and SS on grids half the
default ones (17 and 25 intervals, chosen for time: about 10 s)."""

import math

import numpy as np
import pytest

from humanoid_planner.gait import boundary as bd
from humanoid_planner.gait.biped import biped_params, biped_problem, joint_limits, similar_gait
from humanoid_planner.gait.params import get_params
from humanoid_planner.gait.phase_sequence import VIOLATION_MAX

GRID = {"ds": 17, "ss": 25}


@pytest.fixture(scope="module")
def hrp2_step():
    pb = biped_problem("hrp2")
    return pb, [pb.solve_phase(ph, N=GRID[ph.kind]) for ph in pb.phases("cyclic")]


def test_hrp2_geometry_comes_from_its_urdf_and_yaml():
    """Thigh = shank = 0.3 m (RLEG_JOINT3/4 origins), the foot triangle from the sole contact's hull
    (heel 0.10 m behind, toe 0.13 m ahead of the ankle, 0.105 m below it: urdf/hrp2.yaml), the
    URDF's joint ranges and speed limits of the leg's pitch joints."""
    p = biped_params("hrp2")
    assert p.r_leg == pytest.approx(0.3, abs=1e-12)
    assert p.foot.l_pied == pytest.approx(0.23, abs=1e-12)
    assert p.foot.ankle_height == pytest.approx(0.105, abs=1e-12)
    assert p.foot.heel_to_ankle_x == pytest.approx(0.10, abs=1e-12)
    ranges, speeds = joint_limits("hrp2")
    assert ranges["knee"] == pytest.approx((-0.034906585, 2.61799388))
    assert speeds["hip_pitch"] == pytest.approx(4.42233)


def test_similar_gait_is_the_thesis_step_for_bip_and_scales_by_the_straight_leg_height():
    """The similarity maps the thesis's own step to itself (k = 1); for HRP-2 k = 0.705 / 0.903
    (hips over the soles with straight legs): the step k x 0.5 m, durations sqrt(k) x 0.17 / 0.5 s,
    and the boundary states put the front heel at LPAS - l_pied at rest (the heel condition of
    Chessé 2002, Annex A)."""
    assert similar_gait(get_params("thesis")) == bd.GaitData()
    p = biped_params("hrp2")
    k = (0.6 + 0.105) / (0.82 + get_params("thesis").foot.ankle_height)
    g = similar_gait(p)
    assert g.step_length == pytest.approx(0.5 * k, abs=1e-12)
    assert g.t_ds == pytest.approx(0.17 * math.sqrt(k), abs=1e-12)
    assert g.t_ss == pytest.approx(0.5 * math.sqrt(k), abs=1e-12)
    assert g.omega1 == bd.GaitData().omega1 and g.delta == bd.GaitData().delta
    pb = biped_problem("hrp2")
    for q, v in bd.ds_boundary_states(p, g):
        np.testing.assert_allclose(pb.ds.point("heel", q), [g.step_length - p.foot.l_pied, 0.0], atol=1e-9)
        np.testing.assert_allclose(pb.ds.point_velocity("heel", q, v), [0.0, 0.0], atol=1e-9)


def test_hrp2_cyclic_step_converges_with_the_closure_contacts_and_limits(hrp2_step):
    """Both phases converge on the generated models; the closure is held (the BIP step's bound, 1 mm), the
    contact conditions are met (friction 0.25, unilaterality, toe force only on the ground), no
    joint range, speed limit or clearance is violated and every torque stays within the URDF's
    effort limit (the solver's choice: the NLP bound is 400 N m). Measured: closure 0.012 mm,
    torques <= 77 N m (efforts 131-168 N m), E_DS 19 J, E_SS 96 J."""
    pb, sols = hrp2_step
    effort = {"hip": 151.4, "knee": 168.3, "ankle": 131.6}  # urdf/hrp2.urdf RLEG_JOINT2/3/4
    for s in sols:
        c = s.checks
        assert s.success, (s.phase.name, s.status)
        assert c["unilateral_ok"] and c["friction_ok"], s.phase.name
        assert c["constraint_violation_max"] <= VIOLATION_MAX, s.phase.name
        roles = ["ankle", "knee", "hip", "hip", "knee", "ankle"]  # DS: rear ankle..front ankle; SS: stance..swing
        assert all(t < effort[r] for t, r in zip(c["max_abs_torque"], roles)), (s.phase.name, c["max_abs_torque"])
    ds = sols[0]
    assert 0 < ds.checks["closure_residual_max"] <= 1e-3
    toe = np.array([pb.ds.point("toe", q)[1] for q in ds.q])
    assert np.all(ds.u[toe > 1e-3, 7] < pb.weights.toe_contact_eps / 1e-3)


def test_hrp2_hip_advances_one_step_length_per_step(hrp2_step):
    """The cyclic step's relation for HRP-2: the hip advances LPAS over T_DS + T_SS."""
    pb, (ds, ss) = hrp2_step
    advance = pb.world_points(ss, "hip")[-1, 0] - pb.world_points(ds, "hip")[0, 0]
    assert advance == pytest.approx(pb.gait.step_length, abs=1e-9)
