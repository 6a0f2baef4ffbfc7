"""Boundary states (Chessé 2002, Annex A), transition maps (§III.3.2.1, Fig. III-25), the mean
speed of the cyclic step (§III.3.2.8) and the thesis -> URDF joint map."""

import math

import numpy as np
import pinocchio as pin
import pytest

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.gait import boundary as bd
from humanoid_planner.gait.boundary import (
    GaitData,
    ds_boundary_state,
    ds_to_ss,
    ds_to_ss_inverse,
    rest_state_ss,
    ss_to_ds,
    urdf_joint_angles,
)
from humanoid_planner.gait.model import ds_model, ss_model
from humanoid_planner.gait.params import get_params

PARAMS = ["thesis", "urdf"]


@pytest.fixture(scope="module", params=PARAMS)
def setup(request):
    p = get_params(request.param)
    return p, ds_model(p), ss_model(p)


@pytest.mark.spec("003", "A6")
def test_ds_boundary_states_meet_the_heel_hip_and_foot_conditions(setup):
    """Heel at (LPAS - l_pied, 0) with zero velocity at both ends, delta(t0) = 11 deg,
    delta(t1) = 0, qd1 = 0 -> -5 rad/s, qd6 = qd5 at t0, qd6 = 0 at t1, the hip data of the
    cyclic step (Chessé 2002, §III.3.2.8) reproduced including v4f = 0.05 m/s."""
    p, ds, _ = setup
    g = GaitData()
    heel_target = np.array([g.step_length - p.foot.l_pied, 0.0])
    for end, hip, hipv in ((0, g.hip0, g.hipv0), (1, g.hip1, g.hipv1)):
        q, v = ds_boundary_state(p, g, end)
        assert np.max(np.abs(ds.point("heel", q) - heel_target)) < 1e-9
        assert np.max(np.abs(ds.point_velocity("heel", q, v))) < 1e-9
        assert np.max(np.abs(ds.point("hip", q) - np.array(hip))) < 1e-9
        assert np.max(np.abs(ds.point_velocity("hip", q, v) - np.array(hipv))) < 1e-9
        assert np.max(np.abs(ds.point("rear_toe", q))) < 1e-12
        delta = q[5] + math.pi - p.foot.beta_p  # Chessé 2002, eq. (III.20b)
        assert delta == pytest.approx(math.radians(11.0) if end == 0 else 0.0, abs=1e-9)
        # knee forward, no counter-flexion: both knees flexed forward of the hip-ankle line
        assert math.sin(q[2] - q[1]) > 0 and math.sin(q[3] - q[4]) > 0
    q0, v0 = ds_boundary_state(p, g, 0)
    q1, v1 = ds_boundary_state(p, g, 1)
    assert v0[0] == 0.0 and v1[0] == pytest.approx(-5.0, abs=1e-12)
    assert v0[5] == pytest.approx(v0[4], abs=1e-12) and v1[5] == 0.0
    # rear foot flat at t0: its heel on the ground; toe on the ground at t1 (pivot)
    assert ds.point("rear_heel", q0)[1] == pytest.approx(0.0, abs=1e-12)
    assert ds.point("rear_heel", q1)[1] > 0.05
    # front foot flat at t1: toe at LPAS on the ground
    assert np.max(np.abs(ds.point("toe", q1) - np.array([g.step_length, 0.0]))) < 1e-9
    assert v1[6] == 0.0 and q1[6] == pytest.approx(math.pi / 2)


def test_closed_form_velocities_match_jacobian_solution(setup):
    """The closed forms (A.12)-(A.13), (A.22)-(A.23) of Chessé 2002, Annex A (with the v4 terms)
    equal a direct 2x2 Jacobian solve."""
    p, ds, _ = setup
    g = GaitData()
    for end in (0, 1):
        q, v = ds_boundary_state(p, g, end)
        # solve: hip velocity from the rear chain and heel velocity of the front chain
        J = np.zeros((4, 4))

        # unknowns qd2, qd3, qd4, qd5 (qd6 = qd5 at t0, 0 at t1); qd1 known
        def jac(name, qq):
            h = 1e-7
            cols = []
            for i in range(7):
                e = np.zeros(7)
                e[i] = h
                cols.append((ds.point(name, qq + e) - ds.point(name, qq - e)) / (2 * h))
            return np.array(cols).T

        Jh, Jb = jac("hip", q), jac("heel", q)
        tie = np.zeros(7)
        tie[5] = 1.0 if end == 0 else 0.0
        J[:2, :] = Jh[:, 1:5]
        rhs_h = np.array(g.hip0 if end == 0 else g.hip1)
        rhs_h = np.array(g.hipv0 if end == 0 else g.hipv1) - Jh[:, 0] * v[0]
        Jb_eff = Jb[:, 1:5].copy()
        Jb_eff[:, 3] += Jb[:, 5] * tie[5]
        J[2:, :] = Jb_eff
        rhs = np.concatenate([rhs_h, -Jb[:, 0] * v[0]])
        sol = np.linalg.solve(J, rhs)
        assert np.max(np.abs(sol - v[1:5])) < 1e-6


@pytest.mark.spec("003", "A7")
def test_transition_maps_keep_angles_velocities_and_points_continuous(setup):
    """DS end -> SS start and SS end -> DS start: continuous physical joint angles, joint
    velocities and point positions/velocities (the impactless transitions of Chessé 2002,
    §III.3.2.1), to 1e-12."""
    p, ds, ss = setup
    g = GaitData()
    q1, v1 = ds_boundary_state(p, g, 1)
    qs, vs = ds_to_ss(p, q1, v1)
    # physical joint angles are the same before and after the relabelling
    ja_ds, pitch_ds = urdf_joint_angles(p, "ds", q1, "l")
    ja_ss, pitch_ss = urdf_joint_angles(p, "ss", qs, "r")
    for k in ja_ds:
        assert ja_ss[k] == pytest.approx(ja_ds[k], abs=1e-12), k
    assert pitch_ss == pytest.approx(pitch_ds, abs=1e-12)
    # joint velocities: relative joint rates of the trees agree (DS front leg = SS stance leg)
    rel_ds = ds.relative(v1)  # toe, r ankle, r knee, r hip, f hip, f knee, f ankle
    rel_ss = ss.relative(vs)  # st ankle, st knee, st hip, sw hip, sw knee, sw ankle
    assert rel_ss[0] == pytest.approx(-rel_ds[6], abs=1e-12)  # ankle (front foot flat, fixed)
    assert rel_ss[1] == pytest.approx(-rel_ds[5], abs=1e-12)
    assert rel_ss[2] == pytest.approx(-rel_ds[4], abs=1e-12)
    assert rel_ss[3] == pytest.approx(-rel_ds[3], abs=1e-12)
    assert rel_ss[4] == pytest.approx(-rel_ds[2], abs=1e-12)
    assert rel_ss[5] == pytest.approx(-rel_ds[1], abs=1e-12)
    # positions: SS frame origin = DS front heel
    off = ds.point("heel", q1)
    assert np.max(np.abs(ss.point("hip", qs) + off - ds.point("hip", q1))) < 1e-12
    assert np.max(np.abs(ss.point("swing_toe", qs) + off - ds.point("rear_toe", q1))) < 1e-12
    assert np.max(np.abs(ss.point_velocity("hip", qs, vs) - ds.point_velocity("hip", q1, v1))) < 1e-12
    # SS end maps back to the DS start
    q0, v0 = ds_boundary_state(p, g, 0)
    qe, ve = ds_to_ss_inverse(p, q0, v0)
    qn, vn = ss_to_ds(p, qe, ve)
    assert np.max(np.abs(qn - q0)) < 1e-12 and np.max(np.abs(vn - v0)) < 1e-12
    off2 = ds.point("rear_heel", q0)  # SS origin (stance heel) in the DS frame
    assert np.max(np.abs(ss.point("hip", qe) + off2 - ds.point("hip", q0))) < 1e-12
    assert np.max(np.abs(ss.point("swing_heel", qe) + off2 - ds.point("heel", q0))) < 1e-12
    ja_e, _ = urdf_joint_angles(p, "ss", qe, "l")
    ja_0, _ = urdf_joint_angles(p, "ds", q0, "l")
    for k in ja_0:
        assert ja_e[k] == pytest.approx(ja_0[k], abs=1e-12), k


@pytest.mark.spec("003", "A8")
def test_gait_data_give_a_cyclic_mean_speed_of_0_746_m_s():
    """LPAS / (T_DS + T_SS) = 0.746 m/s (the thesis's "0.75 m/s", Chessé 2002, §III.3.2.8); the hip
    advances by exactly one step length over DS + SS (from the boundary data; the solved trajectory
    is checked in test_gait_direct.py)."""
    g = GaitData()
    assert g.step_length / (g.t_ds + g.t_ss) == pytest.approx(0.746, abs=5e-4)
    p = get_params("thesis")
    ds, ss = ds_model(p), ss_model(p)
    q0, v0 = ds_boundary_state(p, g, 0)
    q1, v1 = ds_boundary_state(p, g, 1)
    qe, _ = ds_to_ss_inverse(p, q0, v0)
    hip_start = ds.point("hip", q0)[0]
    # SS end hip in the next DS frame (one step further)
    hip_end_next = ss.point("hip", qe)[0] + ds.point("rear_heel", q0)[0] + g.step_length
    assert hip_end_next - hip_start == pytest.approx(g.step_length, abs=1e-12)


def test_rest_state_legs_together(setup):
    p, _, ss = setup
    q, v = rest_state_ss(p)
    assert np.all(v == 0)
    assert ss.point("hip", q)[1] == pytest.approx(bd.REST_HIP_HEIGHT, abs=1e-12)
    assert ss.point("hip", q)[0] == pytest.approx(p.foot.heel_to_ankle_x + bd.REST_HIP_DX, abs=1e-12)
    q2, _ = rest_state_ss(p, 0.85, 0.0)
    assert ss.point("hip", q2) == pytest.approx([p.foot.heel_to_ankle_x, 0.85], abs=1e-12)
    assert np.max(np.abs(ss.point("swing_heel", q))) < 1e-12
    assert np.max(np.abs(ss.point("swing_toe", q) - np.array([p.foot.l_pied, 0.0]))) < 1e-12


def test_unreachable_gait_data_is_a_planning_error():
    p = get_params("thesis")
    with pytest.raises(PlanningError, match="hip0"):
        ds_boundary_state(p, GaitData(hip0=(0.07, 1.2)), 0)


@pytest.fixture(scope="module")
def bip_urdf():
    from humanoid_model import load_robot

    return load_robot("bip", planar=True)


@pytest.mark.parametrize("phase", ["ds", "ss"])
def test_urdf_joint_map_fk_gives_the_thesis_points(bip_urdf, phase):
    """FK of the BIP URDF with the mapped joint angles and base pose gives the heel, toe and hip
    of the thesis model to 1e-9 (URDF-derived parameters: same foot geometry)."""
    p = get_params("urdf")
    tree = ds_model(p) if phase == "ds" else ss_model(p)
    g = GaitData()
    rng = np.random.default_rng(3)
    states = [ds_boundary_state(p, g, 0)[0], ds_boundary_state(p, g, 1)[0]]
    if phase == "ss":
        states = [ds_to_ss(p, *ds_boundary_state(p, g, 1))[0], rest_state_ss(p)[0]]
    states += [s + rng.normal(0, 0.2, s.size) for s in states]
    model, data = bip_urdf.model, bip_urdf.model.createData()
    for root in ("l", "r"):
        other = "r" if root == "l" else "l"
        for q in states:
            joints, pitch = urdf_joint_angles(p, phase, q, root)
            hip = tree.point("hip", q)
            qu = np.zeros(model.nq)
            qu[:3] = [hip[0], 0.0, hip[1]]
            qu[3:7] = [0.0, math.sin(pitch / 2), 0.0, math.cos(pitch / 2)]
            for name, val in joints.items():
                qu[bip_urdf.joint_index_q(name)] = val
            pin.framesForwardKinematics(model, data, qu)

            def xz(frame):
                t = data.oMf[model.getFrameId(frame)].translation
                return np.array([t[0], t[2]])

            if phase == "ds":
                pairs = {
                    f"{other}_heel": "heel",
                    f"{other}_toe": "toe",
                    f"{root}_toe": "rear_toe",
                    f"{root}_heel": "rear_heel",
                }
            else:
                pairs = {f"{other}_heel": "swing_heel", f"{other}_toe": "swing_toe"}
                # stance foot flat: heel at the SS origin, toe at l_pied
                assert np.max(np.abs(xz(f"{root}_heel"))) < 1e-9
                assert np.max(np.abs(xz(f"{root}_toe") - [p.foot.l_pied, 0.0])) < 1e-9
            for fu, ft in pairs.items():
                assert np.max(np.abs(xz(fu) - tree.point(ft, q))) < 1e-9, (fu, q)
            for leg in ("l", "r"):
                hp = data.oMf[model.getFrameId(f"{leg}_thigh")].translation
                assert np.max(np.abs(np.array([hp[0], hp[2]]) - hip)) < 1e-9


@pytest.mark.spec("003", "A5")
def test_rabbit_ds_boundary_inverse_kinematics_matches_the_reference_table():
    """RABBIT's DS boundary states from its step data (Chessé 2002, §III.3.1.6): angles and
    velocities as in the reference table (0.01 deg, 0.001 rad/s), FK returns hip and foot exactly,
    foot velocity 0."""
    from humanoid_planner.gait.boundary import rabbit_ds_boundary_state

    # derived from the step data by knee-forward 2-link inverse kinematics (the thesis prints no angles)
    table = {
        0: ((51.25, 104.06, -48.90, -85.14), (-0.755, -1.945, 0.354, -2.752)),
        1: ((48.61, 91.27, -49.73, -99.23), (-0.082, -2.439, -0.527, -2.125)),
    }
    data = {0: ((0.1532, 0.70), (0.99, 0.0)), 1: ((0.2556, 0.70), (1.0, 0.0))}  # §III.3.1.6
    r = 0.4
    for end, (hip, hipv) in data.items():
        q, qd = rabbit_ds_boundary_state(0.45, hip, hipv)
        angles, rates = table[end]
        assert np.max(np.abs(np.degrees(q) - angles)) <= 0.005 + 1e-9
        assert np.max(np.abs(qd - rates)) <= 0.0005 + 1e-9
        c, s = np.cos(q), np.sin(q)
        assert r * (c[0] + c[1]) == pytest.approx(hip[0], abs=1e-12)
        assert r * (s[0] + s[1]) == pytest.approx(hip[1], abs=1e-12)
        foot = np.array([hip[0] + r * (c[2] + c[3]), hip[1] + r * (s[2] + s[3])])
        assert np.max(np.abs(foot - [0.45, 0.0])) < 1e-12
        hv = r * np.array([-s[0] * qd[0] - s[1] * qd[1], c[0] * qd[0] + c[1] * qd[1]])
        fv = hv + r * np.array([-s[2] * qd[2] - s[3] * qd[3], c[2] * qd[2] + c[3] * qd[3]])
        assert np.max(np.abs(hv - hipv)) < 1e-12 and np.max(np.abs(fv)) < 1e-12


def test_problem_rest_posture_fields_set_start_and_stop_hips(setup):
    """GaitProblem.rest_hip_height / rest_hip_dx / rest_hip_dx_stop give the start's initial and
    the stop's final hip position exactly (stance-ankle frame of the SS model)."""
    from humanoid_planner.gait.phase_sequence import make_problem

    p, _, ss = setup
    pb = make_problem(p.name)
    pb.rest_hip_height, pb.rest_hip_dx, pb.rest_hip_dx_stop = 0.87, 0.07, 0.03
    phases = {ph.name: ph for ph in pb.phases("walk")}
    ax = p.foot.heel_to_ankle_x
    assert ss.point("hip", phases["start_ss"].q0) == pytest.approx([ax + 0.07, 0.87], abs=1e-12)
    assert ss.point("hip", phases["stop_ss"].q1) == pytest.approx([ax + 0.03, 0.87], abs=1e-12)
    assert np.all(phases["start_ss"].v0 == 0) and np.all(phases["stop_ss"].v1 == 0)
    pb.rest_hip_height = 0.95  # legs 2 x 0.41 m + ankle height: unreachable
    with pytest.raises(PlanningError, match="rest_hip_height"):
        pb.phases("walk")
