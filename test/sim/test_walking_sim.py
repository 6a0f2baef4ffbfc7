"""HRP-2 executes a 2-step walking plan in the simulator with rigid feet, flexible ankles
(`load_robot("hrp2", ankle="flexible")`) and FEM soles: the plan's joint trajectory through the
world's joint trajectory controller (PD at three times the standing gains' natural frequency,
`humanoid_control.walking_ik.stiffen`), open loop (no stabilizer), replayed and measured by
`humanoid_sim.runtime.plan_replay`. It does not fall, its feet land near their footprints, and the shock
at the foot strikes is attenuated in the thesis's order (Chardonnet 2009, §4.4.2): rigid
feet > flexible ankles > soles, with the soles' torso trace the rigid one lifted by the sole
thickness, and the flexible ankles ring after each touchdown where rigid ankles do not (D7). Bounds and
measured values: docs/walking.md."""

import dataclasses

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.walking_ik import solve_walking_ik, stiffen
from humanoid_model import load_robot
from humanoid_model.flexible_ankle import PLATE_MASS
from humanoid_model.scene import load_scene
from humanoid_planner.walking_pattern import WalkParameters, foot_geometry, plan_pattern
from humanoid_sim.runtime.plan_replay import replay, strike_peaks
from humanoid_sim.world import World

FOOT_LANDING_TOLERANCE = 0.002  # [m] chosen, measured 0.1-0.6 mm (2 steps, 30 Hz gains)
BASE_HEIGHT_FLOOR = 0.60  # [m] planned base height >= 0.644 m; a fall drops the base by decimetres
SOLE_RESOLUTION = (0.074, 0.13, 0.01)  # [m] 8 ground nodes per sole (chosen: the test's cost, as test_soles_drop)
SOLE_THICKNESS = 0.02  # [m] the thesis's 22 x 13 x 2 cm block, Chardonnet 2009, §4.4
# [m] the soles' CoM trace = the rigid one + 2 cm ± 3 mm (chosen: the thesis's torso oscillates ~2 mm with soles,
# Chardonnet 2009, §4.4.2)
TRACE_TOLERANCE = 0.003
CASES = ("rigid", "flexible", "sole")
OSCILLATION_WINDOW = 0.25  # [s] after a strike: the flexible ankle's oscillation dies within ~150 ms (measured)


@pytest.fixture(scope="module")
def plan():
    pattern = plan_pattern(WalkParameters(n_steps=2, step_length=0.2, t_end=0.5), foot_geometry(load_robot("hrp2")))
    return pattern, solve_walking_ik(pattern.com, pattern.feet)


def world(case):
    if case == "flexible":
        return World.from_scene("flat", robot=load_robot("hrp2", ankle="flexible"))
    if case == "sole":
        soles = [dataclasses.replace(s, resolution=SOLE_RESOLUTION) for s in load_robot("hrp2").soles.values()]
        return World.from_scene("flat", soles=soles)
    return World.from_scene("flat")


@pytest.fixture(scope="module")
def walks(plan):
    """case -> (ReplayRecord, strike peaks (2,) [m/s²]) of the same plan."""
    pattern, ik = plan
    out = {}
    for case in CASES:
        w = world(case)
        stiffen(w.actuator, keep=w.robot.springs or ())
        rec = replay(w, pattern.t, ik.joint_positions(), ik.joint_names)
        steps = pattern.steps
        _, peaks = strike_peaks(rec, [s.t_lift for s in steps], pattern.params.t_ss, [s.foot for s in steps])
        out[case] = rec, peaks
    return out


def test_the_plan_starts_at_the_robots_initial_posture(plan):
    w = World.from_scene("flat")
    names = w.robot.joint_names
    q0 = w.q[w.act_q][[names.index(n) for n in plan[1].joint_names]]
    assert np.abs(plan[1].joint_positions()[0] - q0).max() < 1e-5  # no jump at t = 0


@pytest.mark.parametrize("case", CASES)
def test_hrp2_walks_two_steps_without_falling(walks, case):
    rec, _ = walks[case]
    lift = SOLE_THICKNESS if case == "sole" else 0.0  # the world raises the robot onto its soles
    assert not rec.stopped
    assert rec.base_z.min() - lift > BASE_HEIGHT_FLOOR
    assert rec.tilt.max() < 0.01  # [rad] waist from vertical (chosen; measured <= 0.006)


@pytest.mark.parametrize("case", CASES)
def test_feet_end_near_their_footprints(plan, walks, case):
    """Sole centres at the end vs the last footprints, in x-y, and the soles' yaw at every step
    (measured <= 0.0015 rad; at the default 10 Hz gains the feet turned by 8-12 degrees)."""
    pattern, rec = plan[0], walks[case][0]
    for i, k in enumerate(("r", "l")):
        assert np.linalg.norm(rec.soles[-1, i, :2] - pattern.feet[k][-1, :2]) < FOOT_LANDING_TOLERANCE
    assert np.abs(rec.soles[:, :, 5]).max() < 0.005  # [rad] chosen


@pytest.mark.spec("000", "D4")
def test_strike_accelerations_are_attenuated_rigid_flexible_sole(walks):
    """The thesis's ordering (Chardonnet 2009, §4.4.2) on the same plan and controller: the peak
    vertical torso acceleration at a foot strike is largest with rigid feet (an impact: a velocity
    jump in one step), lower with the flexible ankle's spring-dampers, lowest with the FEM soles (a
    finite force): strictly at the first strike (measured 2.58 > 2.33 > 1.03 m/s²); at the second,
    the walk's last (measured 9.13, 2.79, 3.01 m/s²), rigid feet are still far above both, but
    flexible ankle and soles are within the 2-3 m/s² that every landing gives the PD-driven body
    (docs/walking.md)."""
    peaks = {case: walks[case][1] for case in CASES}
    assert all(np.isfinite(p).all() for p in peaks.values())  # both strikes detected in every case
    assert peaks["rigid"][0] > peaks["flexible"][0] > peaks["sole"][0]
    assert (peaks["rigid"] > 2 * np.maximum(peaks["flexible"], peaks["sole"])).any()
    assert (peaks["rigid"] > np.maximum(peaks["flexible"], peaks["sole"])).all()


@pytest.mark.spec("000", "D6")
def test_soles_land_without_a_velocity_jump(walks):
    """With soles no impact model is needed (Chardonnet 2009, §4.3.5): the torso's vertical velocity
    changes by less than g·δt in every step of each strike's window, i.e. |a_z| < g (measured 1.0
    and 3.0 mm/s per 1 ms step against 9.8; docs/soles.md): a finite force, no
    impact."""
    peaks = walks["sole"][1]
    assert (peaks < np.linalg.norm(load_scene("flat").gravity)).all()  # |Δv| = |a|·δt < g·δt


@pytest.mark.spec("000", "D4")
def test_sole_torso_trace_is_the_rigid_one_lifted_by_the_sole(plan, walks):
    """With soles the torso's height follows the rigid trace shifted by the 2 cm sole thickness,
    ± 3 mm, during the walk (the soles keep their shape in stance, Chardonnet 2009, §4.4.2)."""
    pattern = plan[0]
    rigid, sole = walks["rigid"][0], walks["sole"][0]
    t = rigid.t
    m = (t >= pattern.steps[0].t_lift) & (t <= pattern.steps[-1].t_land + pattern.params.t_ds)
    diff = sole.torso_z[m] - rigid.torso_z[m]
    assert np.abs(diff - SOLE_THICKNESS).max() < TRACE_TOLERANCE


def _touchdown_lobes(rec, strike, half_band):
    """The torso CoM's vertical velocity in [strike, strike + OSCILLATION_WINDOW], minus its centred mean over the
    one-spring period 2 max(half_band) / 1.2 (a high-pass that keeps the ankle mode): the peaks |v| of the
    consecutive lobes (between zero crossings) from the largest complete one while each lasts a half period
    within ``half_band`` (lo, hi) [s]."""
    n = round(2 * half_band[1] / 1.2 / rec.dt)
    hp = rec.torso_vz - np.convolve(rec.torso_vz, np.ones(n) / n, mode="same")
    k = int(np.searchsorted(rec.t, strike))
    seg = hp[k : k + round(OSCILLATION_WINDOW / rec.dt)]
    bounds = np.r_[0, np.nonzero(np.sign(seg[1:]) != np.sign(seg[:-1]))[0] + 1, len(seg)]
    lobes = [((b - a) * rec.dt, float(np.abs(seg[a:b]).max())) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]
    i = 1 + int(np.argmax([p for _, p in lobes[1:-1]]))  # complete lobes only
    run = []
    while i < len(lobes) - 1 and half_band[0] <= lobes[i][0] <= half_band[1]:
        run.append(lobes[i][1])
        i += 1
    return run


@pytest.mark.spec("000", "D7")
def test_flexible_ankles_ring_and_decay_after_each_touchdown_and_rigid_ankles_do_not(plan, walks):
    """Walking touchdowns (Chardonnet 2009, §4.4.2; acceptance test 000 D7): after each strike the flexible
    ankle's torso oscillates in the vertical mode of the body on its ankle springs, at least 3 half periods
    each shorter in amplitude than the one before; the rigid ankles show no such oscillation. A half period of
    that mode lies between the body on two springs in parallel (double support, the legs rigid:
    π √((m − 2 m_plate) / 2 k_z) = 23.5 ms) and on one spring (single support, π √((m − m_plate) / k_z) =
    33.3 ms), lengthened by the legs' PD compliance: the band is [23.5, 1.2 x 33.3] ms (1.2 chosen).
    Measured: flexible 4 and 6 decaying half periods of 26-32 ms (20.3 -> 1.8 and 23.4 -> 0.4 mm/s),
    rigid none (its largest lobe lasts 16-20 ms and the next ones are irregular)."""
    robot = load_robot("hrp2", ankle="flexible")
    k_z = robot.springs["RLEG_LINK5_FLEX_Z"][0]
    m = pin.computeTotalMass(robot.model)
    band = (np.pi * np.sqrt((m - 2 * PLATE_MASS) / (2 * k_z)), 1.2 * np.pi * np.sqrt((m - PLATE_MASS) / k_z))
    pattern = plan[0]
    steps = pattern.steps
    for case, ringing in (("flexible", True), ("rigid", False)):
        rec = walks[case][0]
        strikes, _ = strike_peaks(rec, [s.t_lift for s in steps], pattern.params.t_ss, [s.foot for s in steps])
        for strike in strikes:
            run = _touchdown_lobes(rec, strike, band)
            if ringing:
                assert len(run) >= 3, (strike, run)
                assert all(b < a for a, b in zip(run, run[1:], strict=False)), (strike, run)
            else:
                assert len(run) < 3, (strike, run)
