"""The piloting session as the `pilot` node runs it (`humanoid_control.piloting`, without ROS): a
held twist (`HeldTwist`), goals reached without the app's rate limit (``max_step`` None), one solve
per cycle (``corrections`` 0), frames held where they are, a start from a measured configuration,
and the tracking state of each cycle. Checks use independent Pinocchio FK."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics import FrameTarget, load_structure
from humanoid_control.piloting import HeldTwist, PilotSession, loop_gap, tracking_state

FOOT_TOL = 1e-4  # [m] both feet welded
HAND_TOL = 1e-3  # [m] the node's tracking tolerance


def node_session(structure, frame="r_hand", **kw):
    """A session set up as the `pilot` node sets it up."""
    held = [f for f in structure.driven_frames() if f != frame]
    return PilotSession(structure, frames=[frame], held=held, max_step=None, corrections=0, rate=50.0, **kw)


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
    states = [session.step() for _ in range(15)]
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
    states = [session.step() for _ in range(80)]
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
