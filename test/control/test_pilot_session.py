"""The piloting session as the `pilot` node runs it (`humanoid_control.piloting`, without ROS): a
held twist (`HeldTwist`), goals reached without the app's rate limit (``max_step`` None), one solve
per cycle (``corrections`` 0), frames held where they are, a start from a measured configuration,
and the tracking state of each cycle. Checks use independent Pinocchio FK."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics import FrameTarget, load_structure
from humanoid_control.pilot_limits import POSITION_MARGIN
from humanoid_control.piloting import HeldTwist, PilotSession, loop_gap, tracking_state

FOOT_TOL = 1e-4  # [m] both feet welded
HAND_TOL = 1e-3  # [m] the node's tracking tolerance
#: cycles at 50 Hz to reach a hand target 11 cm away (chosen: twice the 21 measured within the joint
#: limits; the unlimited solver took 3, moving the arm at 2.3 times its speed limit and 375 rad/s²)
REACH_CYCLES = 40
#: cycles at 50 Hz for the arm to stretch toward a target 3 m away and stop getting closer (chosen:
#: twice the 105 measured within the joint limits; the unlimited solver, at 2.4 times its speed
#: limits and 153 rad/s², took 31)
STRETCH_CYCLES = 200


def node_session(structure, frame="r_hand", rate=50.0, **kw):
    """A session set up as the `pilot` node sets it up."""
    held = [f for f in structure.driven_frames() if f != frame]
    return PilotSession(structure, frames=[frame], held=held, max_step=None, corrections=0, rate=rate, **kw)


def placement(s, q, frame):
    data = s.model.createData()
    pin.framesForwardKinematics(s.model, data, q)
    return data.oMf[s.model.getFrameId(frame)].copy()


def test_held_twist_increment_timeout_and_clear():
    held = HeldTwist()
    assert held.increment(0.0, 0.1, (0.1, 0.5), 0.02) is None  # nothing yet
    held.set([1.0, 0, 0, 0, 0, -2.0], now=10.0)
    np.testing.assert_allclose(held.increment(10.05, 0.1, (0.1, 0.5), 0.02), [0.002, 0, 0, 0, 0, -0.02])
    assert held.increment(10.11, 0.1, (0.1, 0.5), 0.02) is None  # older than the timeout
    held.clear()
    assert held.increment(10.05, 0.1, (0.1, 0.5), 0.02) is None  # zero: no increment


def test_tracking_states():
    assert tracking_state(0.5, 1e-4, 1e-3) == "tracking"
    assert tracking_state(0.5, 0.4, 1e-3) == "approaching"
    assert tracking_state(0.4, 0.3995, 1e-3) == "out_of_reach"


def test_a_target_is_the_solvers_at_once_and_each_cycle_solves_once():
    s = load_structure("hrp2")
    session = node_session(s)
    T = session.goal("r_hand")
    T.translation = T.translation + [0.08, -0.05, 0.05]
    assert session.set_target("r_hand", T)
    assert session.targets["r_hand"].target.isApprox(T, 1e-15)  # no rate limit: the solver's target now
    soles = {f: placement(s, s.q0, f) for f in ("r_sole", "l_sole")}
    # reached within REACH_CYCLES: as fast as the joints' speed and acceleration limits allow
    states = [session.step() for _ in range(REACH_CYCLES)]
    assert all(st.solves == 1 for st in states)
    assert states[0].tracking == "approaching" and states[-1].tracking == "tracking"
    hand = placement(s, states[-1].q, "r_hand")
    assert np.linalg.norm(hand.translation - T.translation) < HAND_TOL
    assert states[-1].errors["r_hand"][0] == pytest.approx(np.linalg.norm(hand.translation - T.translation), abs=1e-12)
    for f, M0 in soles.items():
        assert np.linalg.norm(placement(s, states[-1].q, f).translation - M0.translation) < FOOT_TOL


def test_an_unreachable_target_is_out_of_reach():
    s = load_structure("hrp2")
    session = node_session(s)
    T = session.goal("r_hand")
    T.translation = T.translation + [3.0, 0.0, 0.0]
    session.set_target("r_hand", T)
    states = [session.step() for _ in range(STRETCH_CYCLES)]
    assert states[0].tracking == "approaching" and states[-1].tracking == "out_of_reach"
    assert 1.5 < states[-1].residual < 3.0


@pytest.mark.parametrize("command_frame", ["world", "tool", "view"])
def test_move_applies_the_increment_in_the_command_axes_about_the_frames_origin(command_frame):
    s = load_structure("hrp2")
    session = node_session(s)
    camera = pin.rpy.rpyToMatrix(0.4, -1.1, 2.2)
    inc = np.array([0.01, -0.02, 0.005, 0.05, 0.0, -0.1])
    T0 = session.goal("r_hand")
    assert session.move("r_hand", inc, command_frame, camera)
    ref = FrameTarget(s, "r_hand", target=T0)
    if command_frame == "view":  # the camera's axes, as world increments
        ref.move(np.concatenate([camera @ inc[:3], camera @ inc[3:]]), "world")
    else:
        ref.move(inc, command_frame)
    assert np.abs(session.goal("r_hand").homogeneous - ref.target.homogeneous).max() < 1e-15
    assert session.targets["r_hand"].target.isApprox(ref.target, 1e-15)


def test_move_refusals():
    s = load_structure("hrp2")
    session = node_session(s)
    assert not session.move("r_hand", [np.nan, 0, 0, 0, 0, 0])
    assert "twist" in session.last_refusal and "finite" in session.last_refusal
    assert not session.move("r_hnd", np.zeros(6))
    assert "did you mean 'r_hand'" in session.last_refusal
    session.set_control("direct")
    assert not session.move("r_hand", np.zeros(6))
    assert "direct mode" in session.last_refusal and session.refused == 3


def test_a_start_from_a_measured_configuration_holds_it():
    """The node's `start_from: measured`: the measured joints (an unknown name and a NaN ignored,
    values clipped to the limits) become the start; the feet are welded where they are there, so
    the first cycles do not move the robot."""
    s = load_structure("hrp2")
    session = node_session(s)
    moved = {"RARM_JOINT0": -0.4, "CHEST_JOINT0": 0.15, "RLEG_JOINT3": 0.9, "LARM_JOINT1": 0.3, "NOT_A_JOINT": 0.0}
    names = [*moved, "HEAD_JOINT0"]
    joints = session.known_joints(names, [*moved.values(), float("nan")])
    assert set(joints) == set(moved) - {"NOT_A_JOINT"}
    q = session.configuration(joints)
    assert q[s.joint_index("RARM_JOINT0")[0]] == -0.4
    session.reset(q)
    assert loop_gap(s, session.q)[0] < 1e-12  # the welds re-anchored there
    for _ in range(3):
        state = session.step()
    assert np.abs(state.q - q).max() < 1e-6
    assert session.lead(joints) < 1e-6 and session.lead({}) is None
    far = session.configuration({"RARM_JOINT0": 100.0})  # clipped to the upper limit
    assert far[s.joint_index("RARM_JOINT0")[0]] == s.upper[list(s.lim_q).index(s.joint_index("RARM_JOINT0")[0])]


def test_held_frames_stay_where_they_are_while_the_driven_frame_moves():
    """A frame whose sidecar source is active (the left hand, selected) is held while the right
    hand follows its target."""
    s = load_structure("hrp2")
    s.select("l_hand", "mouse")
    session = node_session(s)
    assert session.frames == ["r_hand"] and list(session.held) == ["l_hand"]
    left = placement(s, session.q, "l_hand")
    T = session.goal("r_hand")
    T.translation = T.translation + [0.05, 0.0, 0.05]
    session.set_target("r_hand", T)
    for _ in range(15):
        state = session.step()
    assert np.linalg.norm(placement(s, state.q, "r_hand").translation - T.translation) < HAND_TOL
    assert np.linalg.norm(placement(s, state.q, "l_hand").translation - left.translation) < HAND_TOL
    assert set(state.errors) == {"r_hand"}  # the held frame is not a command


def test_bad_options_are_refused():
    s = load_structure("hybrid_planar")
    with pytest.raises(KinematicsError, match="corrections"):
        PilotSession(s, corrections=-1)
    with pytest.raises(KinematicsError, match="tolerance"):
        PilotSession(s, tolerance=0.0)
    with pytest.raises(KinematicsError, match="frame"):
        PilotSession(s, held=["no_such_frame"])


# --------------------------------------------------------------------------- bounds of the commands
RATE = 25.0  # [Hz] the node's default rate
SLACK = 1e-9  # (chosen) relative rounding allowed on a limit: the limiter clips to the last bit


def within_limits(s, qs, rate=RATE) -> tuple[float, float]:
    """(largest joint speed / its URDF limit, largest joint acceleration / `ACCELERATION`) over the
    steps between the configurations ``qs`` (the first from rest)."""
    from humanoid_control.pilot_limits import ACCELERATION, speed_limits

    v = speed_limits(s)
    limited = np.isfinite(v)
    steps = [np.zeros(s.model.nv)] + [pin.difference(s.model, a, b) for a, b in zip(qs, qs[1:])]
    speed = max(float(np.max(np.abs(d[limited]) * rate / v[limited])) for d in steps)
    accel = max(float(np.max(np.abs(b - a)[limited])) * rate**2 / ACCELERATION for a, b in zip(steps, steps[1:]))
    return speed, accel


def run(session, cycles, until=None):
    """[q] of the session's start and of each cycle, stopping early once ``until(state)``."""
    qs = [session.q.copy()]
    for _ in range(cycles):
        state = session.step()
        qs.append(state.q.copy())
        if until is not None and until(state):
            break
    return qs, state


def test_a_flipped_hand_target_is_reached_within_the_joint_speed_and_acceleration_limits():
    """The hand turned by pi about its own x axis (reachable): the solver's step asks RARM_JOINT3
    for about 6 times its 2.24 rad/s; every commanded step stays within v_max·dt and the
    acceleration limit, the hand still gets there, the feet stay welded."""
    s = load_structure("hrp2")
    session = node_session(s, rate=RATE)
    T = session.goal("r_hand")
    T.rotation = T.rotation @ pin.utils.rotate("x", np.pi)
    assert session.set_target("r_hand", T)
    qs, state = run(session, 400, lambda st: st.tracking == "tracking")
    speed, accel = within_limits(s, qs)
    assert speed <= 1 + SLACK and accel <= 1 + SLACK, (speed, accel)
    assert state.tracking == "tracking", state.residual
    assert np.linalg.norm(pin.log3(T.rotation.T @ placement(s, state.q, "r_hand").rotation)) < 1e-2
    for f in ("r_sole", "l_sole"):
        assert np.linalg.norm(placement(s, state.q, f).translation - placement(s, s.q0, f).translation) < FOOT_TOL


def test_an_alternating_target_flood_stays_within_the_joint_limits():
    """A new target every cycle, alternating 0.3 and 0.5 m forward (world orientation, as the
    docs' example): the steps stay within the speed and acceleration limits; held on the last
    target, the hand reaches it."""
    s = load_structure("hrp2")
    session = node_session(s, rate=RATE)
    qs = [session.q.copy()]
    for k in range(100):
        assert session.set_target("r_hand", pin.SE3(np.eye(3), np.array([0.3 + 0.2 * (k % 2), -0.3, 0.8])))
        qs.append(session.step().q.copy())
    more, state = run(session, 400, lambda st: st.tracking == "tracking")
    speed, accel = within_limits(s, qs + more[1:])
    assert speed <= 1 + SLACK and accel <= 1 + SLACK, (speed, accel)
    assert state.tracking == "tracking", state.residual


@pytest.mark.parametrize("solver", ["prioritized", "svd"])
def test_either_solver_keeps_the_joints_the_margin_inside_their_limits(solver):
    """A hand target 0.6 m forward and 0.9 m up that the arm cannot reach within its limits: with
    either solver every commanded joint stays `POSITION_MARGIN` inside its URDF limits (the thesis's
    svd method, unclipped, takes a joint 0.13 rad past its limit within 100 cycles; measured)."""
    s = load_structure("hrp2")
    session = node_session(s, rate=50.0, solver=solver)
    assert session.set_target("r_hand", pin.SE3(session.placement("r_hand").rotation, np.array([0.6, -0.4, 0.9])))
    least = np.inf
    for _ in range(100):
        q = session.step().q[s.lim_q]
        least = min(least, float(np.min(np.minimum(q - s.lower, s.upper - q))))
    assert least >= POSITION_MARGIN - 1e-12, least


@pytest.mark.parametrize(
    "command",
    [
        ("move", [1e300, 0, 0, 0, 0, 0], "world"),
        ("move", [0, 0, 0, 0, 1e300, 0], "world"),
        ("move", [-1e300, 1e300, 1e300, 1e300, 1e300, 1e300], "tool"),
        ("target", [1e300, -1e300, 0.0], None),
        ("target", [-1.7e308, 1.7e308, 1.0], None),
    ],
    ids=["twist-linear", "twist-angular", "twist-tool", "target", "target-overflow"],
)
def test_a_huge_twist_or_target_is_bounded_and_every_command_finite(command):
    """A finite but huge increment or target (a 1e300 twist overflowed the integrated target, the
    solver answered NaN): accepted and bounded, the goal at most TARGET_BOUND from the hand (a
    rotation increment at most pi), counted in ``bounded``; every command finite and within the
    joint limits."""
    from humanoid_control.pilot_limits import TARGET_BOUND

    s = load_structure("hrp2")
    session = node_session(s)
    hand = session.placement("r_hand")
    kind, values, axes = command
    if kind == "move":
        assert session.move("r_hand", values, axes)
    else:
        assert session.set_target("r_hand", pin.SE3(hand.rotation, np.array(values)))
    goal = session.goal("r_hand")
    assert np.isfinite(goal.homogeneous).all() and np.allclose(goal.rotation @ goal.rotation.T, np.eye(3))
    assert np.linalg.norm(goal.translation - hand.translation) <= TARGET_BOUND + 1e-9
    assert session.bounded == 1 and "bounded" in session.last_bound
    qs, state = run(session, 40)
    assert all(np.isfinite(q).all() for q in qs) and state.fault == ""
    speed, accel = within_limits(s, qs, session.rate)
    assert speed <= 1 + SLACK and accel <= 1 + SLACK, (speed, accel)


@pytest.mark.parametrize("failure", ["nan", "raise"])
def test_a_failed_or_non_finite_solve_holds_the_last_command(failure):
    """A solve that answers NaN or raises (numpy's LinAlgError): the cycle does not raise, the
    command stays finite (the previous step braked at the acceleration limit), the goals drop to
    where the frames are, ``fault`` says why; the next cycles solve again."""
    s = load_structure("hrp2")
    session = node_session(s)
    T = session.goal("r_hand")
    T.translation = T.translation + [0.05, 0.0, 0.0]
    session.set_target("r_hand", T)
    qs, _ = run(session, 5)
    solve = session._solve

    def broken(structure, q, *tasks):
        if failure == "raise":
            raise np.linalg.LinAlgError("SVD did not converge")
        return np.full_like(q, np.nan), solve(structure, q, *tasks)[1]

    session._solve = broken
    state = session.step()
    qs.append(state.q.copy())
    assert np.isfinite(state.q).all() and session.faults == 1
    assert ("non-finite" if failure == "nan" else "LinAlgError") in state.fault
    assert session.goal("r_hand").isApprox(session.placement("r_hand"), 1e-12)  # nothing pulls it on
    session._solve = solve
    more, state = run(session, 20)
    assert state.fault == "" and np.isfinite(state.q).all()
    speed, accel = within_limits(s, qs + more[1:], session.rate)
    assert speed <= 1 + SLACK and accel <= 1 + SLACK, (speed, accel)


def test_a_huge_slider_value_is_bounded_to_the_joint_limits():
    s = load_structure("hybrid_planar")
    session = PilotSession(s)
    session.set_control("direct")
    assert session.set_joint("joint2", 1e300)
    k = list(s.lim_q).index(s.joint_index("joint2")[0])
    assert session.joint_goals["joint2"] == s.upper[k] and session.bounded == 1
    assert all(np.isfinite(session.step().q).all() for _ in range(5))


def test_a_reset_after_the_start_travels_back_within_the_limits():
    """`reset(travel=True)` (the node's ~/reset) after the hand moved 8 cm: no jump; the steps
    stay within the limits and the structure comes back to its initial configuration."""
    s = load_structure("hrp2")
    session = node_session(s)
    T = session.goal("r_hand")
    T.translation = T.translation + [0.08, -0.05, 0.05]
    session.set_target("r_hand", T)
    qs, state = run(session, 200, lambda st: st.tracking == "tracking")
    assert state.tracking == "tracking"
    session.reset(travel=True)
    assert np.array_equal(session.q, qs[-1])  # not there at once
    more, state = run(session, 300)  # the hand is back in 25 cycles, the posture converges by 150
    speed, accel = within_limits(s, qs + more[1:], session.rate)
    assert speed <= 1 + SLACK and accel <= 1 + SLACK, (speed, accel)
    assert state.tracking == "tracking"
    assert np.abs(pin.difference(s.model, s.q0, state.q)[6:]).max() < 1e-6
