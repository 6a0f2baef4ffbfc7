"""Slowing a motion for balance (`humanoid_control.wbc.retime`) on HRP-2 references built by hand.

The dynamic reference: the whole robot, at half-sitting, slides along x as x(t) = X sin(ω t) on
its left sole (a translation: no angular momentum). Its centre of pressure, by hand: the contact
force is m (c̈ − g), so about the sole's frame origin p the CoP is at
    x_cop = (c − p)_x − (c − p)_z c̈_x / g,    y_cop = (c − p)_y,
and followed at rate r (c̈ scaled by r²) it stays SLACK inside the sole's polygon shrunk by the
controller's CoP margin, |x_cop − (c − p)_x| <= w − margin − SLACK for a polygon of half-length w
centred below the CoM, while r <= r* = sqrt((w − margin − SLACK) g / ((c − p)_z |c̈_x|)).
The friction pyramid (|c̈_x| r² <= μ g / √2 = 2.77 m/s²) is never the binding limit here."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.wbc.controller import WholeBodyController
from humanoid_control.wbc.reference import ContactPhase, MotionReference
from humanoid_control.wbc.retime import R_MIN, SLACK, SLEW, balance_rates, retime
from humanoid_model.robot import load_robot

DT = 0.01  # [s] between samples
W = np.pi  # [rad/s]
HALF = 0.04  # [m] the half-length along x of the polygon the left sole touches with
G = 9.81


@pytest.fixture(scope="module")
def robot():
    return load_robot("hrp2")


@pytest.fixture(scope="module")
def ctrl(robot):
    return WholeBodyController(robot)


def _frames(ctrl):
    return {name: fid for name, (_, fid) in ctrl.locations.items()}


def _sliding(robot, ctrl, peak, offset=0.0):
    """(reference, t, c̈_x (N,), (c − p) (3,)): the robot sliding with peak acceleration ``peak``
    [m/s²] over 2 s on its left sole, which touches with a polygon centred below the CoM, or
    ``offset`` [m] behind it along x (the CoM that much nearer the polygon's front edge)."""
    model = ctrl.model
    data = model.createData()
    q0 = robot.q()
    c = pin.centerOfMass(model, data, q0)
    pin.framesForwardKinematics(model, data, q0)
    fid = ctrl.locations["l_sole"][1]
    sole = data.oMf[fid]
    assert np.allclose(sole.rotation, np.eye(3), atol=1e-12)  # the sole's frame has the world's axes
    d = c - sole.translation
    polygon = np.array([[-HALF, -0.2], [HALF, -0.2], [HALF, 0.2], [-HALF, 0.2]]) + d[:2] - [offset, 0.0]
    t = np.arange(0.0, 2.0 + DT / 2, DT)
    x = peak / W**2 * np.sin(W * t)
    q = np.tile(q0, (len(t), 1))
    q[:, 0] += x
    phases = [ContactPhase("l_sole", -np.inf, np.inf, polygon=polygon)]
    ref = MotionReference(model, t, q, phases, _frames(ctrl))
    return ref, t, -peak * np.sin(W * t), d


def _expected_rates(ctrl, acc, d, slack=SLACK):
    limit = HALF - ctrl.settings.cop_margin - slack
    with np.errstate(divide="ignore"):
        r = np.sqrt(limit * G / (d[2] * np.abs(acc)))
    return np.clip(r, R_MIN, 1.0), d[2] * np.abs(acc) / G / limit  # rates, CoP shift over its limit


def test_rates_fall_below_one_exactly_where_the_cop_would_leave_the_sole_and_match_the_hand_rate(robot, ctrl):
    ref, t, acc, d = _sliding(robot, ctrl, peak=1.0)
    rates = balance_rates(ref, ctrl)
    expected, excess = _expected_rates(ctrl, acc, d)
    inner = slice(2, -2)  # the ends' accelerations are one-sided differences
    needed = excess[inner] > 1 + 1e-3
    free = excess[inner] < 1 - 1e-3
    assert needed.sum() > 50 and free.sum() > 50
    assert np.all(rates[inner][needed] < 1.0)
    assert np.all(rates[inner][free] == 1.0)
    # the bisection's step 0.8 / 2^12 = 2e-4 and the differences' relative error (ω Δ)² / 3 = 3e-4
    assert np.allclose(rates[inner], expected[inner], rtol=0, atol=5e-4)


def test_a_retimed_motion_is_longer_and_keeps_its_samples_and_its_contact(robot, ctrl):
    ref, t, acc, d = _sliding(robot, ctrl, peak=1.0)
    slow = retime(ref, balance_rates(ref, ctrl))
    assert slow is not ref
    assert slow.duration > ref.duration * 1.1
    assert np.array_equal(slow.q, ref.q) and slow.start == ref.start
    assert slow.nominal_duration == ref.duration and np.array_equal(slow.nominal_t, ref.t)  # the file's times
    assert np.all(np.diff(slow.t) >= np.diff(ref.t) - 1e-15)  # never faster
    assert [p.location for p in slow.phases] == ["l_sole"]
    assert np.array_equal(slow.phases[0].polygon, ref.phases[0].polygon)


def test_retiming_lowers_the_rates_to_an_envelope_of_bounded_slope_and_maps_the_phases(robot, ctrl):
    model = ctrl.model
    step = 0.125  # binary fractions: exact sums
    t = np.arange(0.0, 4.0 + step / 2, step)
    q = np.tile(robot.q(), (len(t), 1))
    phases = [
        ContactPhase("l_sole", -np.inf, np.inf),
        ContactPhase("r_sole", -np.inf, 1.0, 0.0, 0.25),
        ContactPhase("r_sole", 2.0, np.inf, 0.25, 0.0),
    ]
    ref = MotionReference(model, t, q, phases, _frames(ctrl))
    rates = np.ones(len(t))
    rates[t == 2.0] = 0.5
    assert SLEW == 1.0
    slow = retime(ref, rates)
    # the envelope by hand: 0.5 at t = 2, rising by 1 per second either side: 1 - (0.5 - |t - 2|)
    envelope = np.minimum(1.0, 0.5 + np.abs(t - 2.0))
    expected = np.concatenate([[0.0], np.cumsum(step / envelope[:-1])])
    assert np.allclose(slow.t, expected, rtol=0, atol=1e-12)
    lift, land = slow.phases[1], slow.phases[2]
    assert (lift.start, lift.end, lift.ramp_out) == (-np.inf, 1.0, 0.25)  # before the slow-down: as it was
    assert land.start == pytest.approx(expected[t == 2.0][0], abs=1e-12)
    ramp_end = expected[t == 2.25][0]
    assert land.ramp_in == pytest.approx(ramp_end - land.start, abs=1e-12) and land.end == np.inf
    assert land.ramp_in == pytest.approx(0.125 / 0.5 + 0.125 / 0.625, abs=1e-12)


def test_a_static_reference_is_not_retimed(robot, ctrl):
    t = np.arange(0.0, 1.0 + DT / 2, 0.1)
    q = np.tile(robot.q(), (len(t), 1))
    phases = [ContactPhase("l_sole", -np.inf, np.inf), ContactPhase("r_sole", -np.inf, np.inf)]
    ref = MotionReference(ctrl.model, t, q, phases, _frames(ctrl))
    rates = balance_rates(ref, ctrl)
    assert np.array_equal(rates, np.ones(len(t)))
    assert retime(ref, rates) is ref


def test_rates_never_go_below_r_min_and_a_sample_hopeless_even_then_keeps_its_rate(robot, ctrl):
    ref, t, acc, d = _sliding(robot, ctrl, peak=20.0)  # too fast at places even 5 times slower
    rates = balance_rates(ref, ctrl)
    expected, excess = _expected_rates(ctrl, acc, d)
    bare, bare_excess = _expected_rates(ctrl, acc, d, slack=0.0)  # the second try, without SLACK
    assert np.all(rates >= R_MIN)
    hopeless = bare_excess * R_MIN**2 > 1 + 1e-2  # the CoP leaves even at R_MIN: slowing cannot help
    helped = (excess > 1 + 1e-2) & (excess * R_MIN**2 < 1 - 1e-2)
    barely = (excess * R_MIN**2 > 1 + 1e-2) & (bare_excess * R_MIN**2 < 1 - 1e-2)  # only without SLACK
    assert hopeless.sum() > 20 and helped.sum() > 20 and barely.sum() >= 2
    assert np.all(rates[hopeless] == 1.0)
    inner = np.zeros(len(t), bool)
    inner[2:-2] = True
    assert np.allclose(rates[helped & inner], expected[helped & inner], rtol=0, atol=5e-4)
    assert np.allclose(rates[barely & inner], bare[barely & inner], rtol=0, atol=5e-4)


def test_a_sample_whose_static_cop_is_within_the_slack_of_the_edge_is_slowed_without_the_slack(robot, ctrl):
    """The CoM SLACK / 2 from the front edge of the sole's polygon shrunk by the CoP margin: no
    rate keeps the CoP SLACK inside, so the rate is the one that keeps it inside the shrunk
    polygon, r* = sqrt((SLACK / 2) g / ((c − p)_z |c̈_x|)) while the CoP moves forward (c̈_x < 0);
    moving backward it has the whole polygon and keeps rate 1."""
    room = SLACK / 2
    offset = HALF - ctrl.settings.cop_margin - room
    ref, t, acc, d = _sliding(robot, ctrl, peak=0.1, offset=offset)
    rates = balance_rates(ref, ctrl)
    with np.errstate(divide="ignore"):
        expected = np.clip(np.sqrt(room * G / (d[2] * np.abs(acc))), R_MIN, 1.0)
    inner = np.zeros(len(t), bool)
    inner[2:-2] = True
    forward = inner & (acc < 0)
    slowed = forward & (expected < 1 - 1e-2)
    assert slowed.sum() > 30 and expected[forward].min() > R_MIN  # r* = 0.55 at the peak
    assert np.allclose(rates[forward], expected[forward], rtol=0, atol=5e-4)
    assert np.all(rates[inner & (acc > 0)] == 1.0)


# ---------------------------------------------------------------------- contacts in two planes
def _lifted(robot, ctrl, peak, lift):
    """The sliding robot held on both soles, its right foot raised by bending the knee by ``lift``
    [rad] and the ankle back (the sole stays level): contacts in two parallel planes."""
    ref, t, acc, d = _sliding(robot, ctrl, peak)
    model = ctrl.model
    q = ref.q.copy()
    q[:, model.joints[model.getJointId("RLEG_JOINT3")].idx_q] += lift
    q[:, model.joints[model.getJointId("RLEG_JOINT4")].idx_q] -= lift
    phases = [ContactPhase("l_sole", -np.inf, np.inf), ContactPhase("r_sole", -np.inf, np.inf)]
    return MotionReference(model, t, q, phases, _frames(ctrl)), t, acc


def _carried(robot, ctrl, q, acc_x, r):
    """Whether corner forces in the soles' friction pyramids (the soles' hulls shrunk by the CoP
    margin and SLACK, by hand) make the wrench of the sliding robot at rate r: an LP of scipy."""
    from scipy.optimize import linprog

    model = robot.model
    data = model.createData()
    c = pin.centerOfMass(model, data, q)
    pin.framesForwardKinematics(model, data, q)
    e = ctrl.settings.cop_margin + SLACK
    m = ctrl.settings.mu / np.sqrt(2.0)
    columns, rows = [], []
    for foot in ("l_sole", "r_sole"):
        loc = robot.contact_locations[foot]
        hull = np.asarray(loc.hull)
        (x0, y0), (x1, y1) = hull[:, :2].min(axis=0) + e, hull[:, :2].max(axis=0) - e
        oMb = data.oMf[model.getFrameId(loc.body)]
        R = oMb.rotation
        for x in (x0, x1):
            for y in (y0, y1):
                arm = oMb.act(np.array([x, y, hull[0, 2]])) - c
                columns.append(np.vstack([R, np.cross(arm, R.T).T]))  # force and moment about the CoM
                rows.append(np.array([[1, 0, -m], [-1, 0, -m], [0, 1, -m], [0, -1, -m], [0, 0, -1.0]]) @ R.T)
    A_eq = np.hstack(columns)
    A_ub = np.zeros((5 * len(rows), A_eq.shape[1]))
    for i, block in enumerate(rows):
        A_ub[5 * i : 5 * i + 5, 3 * i : 3 * i + 3] = block
    mass = sum(i.mass for i in model.inertias)
    wrench = np.r_[mass * r * r * acc_x, 0.0, mass * G, 0.0, 0.0, 0.0]  # translation only: no L̇
    res = linprog(
        np.zeros(A_eq.shape[1]), A_ub=A_ub, b_ub=np.zeros(len(A_ub)), A_eq=A_eq, b_eq=wrench, bounds=(None, None)
    )
    return res.status == 0


_TWO_PLANES = {}


def _two_plane_rates(robot, ctrl):
    """(times, the module's rates, the LP's rates) at every 10th sample of the lifted-foot slide
    (peak 5 m/s²): the LP's rate by its own bisection to 1e-4 (1 when carried as planned)."""
    if not _TWO_PLANES:
        ref, t, acc = _lifted(robot, ctrl, peak=5.0, lift=0.3)
        assert ref.frames["r_sole"][1][0][2] - ref.frames["l_sole"][1][0][2] > 0.01  # not one plane
        rates = balance_rates(ref, ctrl)
        ks = np.arange(5, len(t) - 5, 10)
        lp = []
        for k in ks:
            lo, hi = R_MIN, 1.0
            if _carried(robot, ctrl, ref.q[k], acc[k], hi):
                lo = hi
            assert _carried(robot, ctrl, ref.q[k], acc[k], lo)  # never hopeless here
            while hi - lo > 1e-4:
                mid = 0.5 * (lo + hi)
                lo, hi = (mid, hi) if _carried(robot, ctrl, ref.q[k], acc[k], mid) else (lo, mid)
            lp.append(lo)
        _TWO_PLANES.update(t=t[ks], rates=rates[ks], lp=np.array(lp))
    return _TWO_PLANES["t"], _TWO_PLANES["rates"], _TWO_PLANES["lp"]


def test_contacts_in_two_planes_are_slowed_and_never_faster_than_their_friction_pyramids_allow(robot, ctrl):
    t, rates, lp = _two_plane_rates(robot, ctrl)
    assert np.sum(lp < 0.9) >= 8 and np.sum(lp == 1.0) >= 4
    assert np.all(rates[lp == 1.0] == 1.0)
    assert np.all(rates <= lp + 1e-3)  # 1e-3: the bisections' steps and the differences' errors
    assert np.all(rates >= lp - 6e-3)


def test_contacts_in_two_planes_are_slowed_to_the_rate_their_friction_pyramids_allow(robot, ctrl):
    # the module's QP (DAQP) and HiGHS's LP agree on which wrenches the pyramids carry: the rates
    # differ by the bisections' last step (at most 1e-4 measured); 1e-3 leaves room for the
    # differences' errors. A QP refusing feasible wrenches at its tolerance (ProxQP at its default
    # 1e-4 infeasibility threshold) gives rates 0.003 to 0.005 lower where the acceleration is positive
    t, rates, lp = _two_plane_rates(robot, ctrl)
    assert np.allclose(rates, lp, rtol=0, atol=1e-3)
