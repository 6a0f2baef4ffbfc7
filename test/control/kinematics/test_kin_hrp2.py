"""HRP-2 with the prioritized solver (the humanoid cases of piloting): both feet welded to the ground
as level-1 closures with the CoM (balance), hands and driven joints at level 2, posture at level 3.

Every check is independent of the solver: plain Pinocchio forward kinematics of the returned
configuration against the world placement of the soles at half-sitting, the commanded target,
the URDF limits and the soles' contact hulls of urdf/hrp2.yaml."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics import (
    ComTask,
    FrameTarget,
    JointTask,
    PostureTask,
    load_structure,
    prioritized,
    support_polygon,
)
from humanoid_model import load_robot
from humanoid_model.planar_polygon import inside

FOOT_TOL = 1e-4  # [m] (chosen) foot error < 0.1 mm: the feet must not slip while piloting
FOOT_ROT_TOL = 1e-4  # [rad] (chosen: 0.1 mm at 1 m)
HAND_TOL = 1e-3  # [m] (chosen) hand tracking error < 1 mm
LIMIT_TOL = 1e-12  # [rad] joints within limits (rounding only)


@pytest.fixture(scope="module")
def robot():
    return load_robot("hrp2")


@pytest.fixture
def hrp2():
    return load_structure("hrp2")


class Check:
    """Independent checks of one configuration."""

    def __init__(self, s, robot):
        self.s, self.model, self.data = s, s.model, s.model.createData()
        self.soles = {f: s.placement(s.q0, f) for f in ("r_sole", "l_sole")}
        hulls = {c.body: c.hull for k, c in robot.contact_locations.items() if c.kind == "sole"}
        self.polygon = support_polygon(s, s.q0, hulls)
        self.lower, self.upper = robot.q_lower, robot.q_upper

    def feet(self, q):
        pin.framesForwardKinematics(self.model, self.data, q)
        pos, rot = 0.0, 0.0
        for f, M0 in self.soles.items():
            M = self.data.oMf[self.model.getFrameId(f)]
            pos = max(pos, float(np.linalg.norm(M.translation - M0.translation)))
            rot = max(rot, float(np.linalg.norm(pin.log3(M0.rotation.T @ M.rotation))))
        return pos, rot

    def point(self, q, frame):
        pin.framesForwardKinematics(self.model, self.data, q)
        return self.data.oMf[self.model.getFrameId(frame)].translation.copy()

    def within_limits(self, q):
        return bool(np.all(q[7:] >= self.lower - LIMIT_TOL) and np.all(q[7:] <= self.upper + LIMIT_TOL))

    def com_inside(self, q, margin=0.0):
        return inside(self.polygon, pin.centerOfMass(self.model, self.data, q)[:2], margin)


def _square(start, side=0.2, step=0.002):
    """The corners start, +x, +x+z, +z (a 20 cm square in front of the hand, in the sagittal
    plane), sampled every ``step`` metres."""
    corners = [start + np.array(c) * side for c in ([0, 0, 0], [1, 0, 0], [1, 0, 1], [0, 0, 1], [0, 0, 0])]
    points = []
    for a, b in zip(corners[:-1], corners[1:]):
        n = round(side / step)
        points += [a + (b - a) * (k + 1) / n for k in range(n)]
    return points


def test_right_hand_follows_a_20cm_square_with_both_feet_welded(hrp2, robot):
    """Foot error < 0.1 mm, hand tracking error < 1 mm, joint limits respected, CoM
    inside the support polygon throughout (2 mm per cycle: 5 cm/s at 25 Hz)."""
    check = Check(hrp2, robot)
    hand = FrameTarget(hrp2, "r_hand", mode="position")
    tasks = (hand, FrameTarget(hrp2, "l_hand", mode="position"), ComTask(hrp2), PostureTask(hrp2))
    q = hrp2.q0.copy()
    start = hand.target.translation.copy()
    worst = dict(foot=0.0, foot_rot=0.0, hand=0.0)
    path = _square(start)
    for p in path:
        hand.set_target(p)
        q, report = prioritized.solve(hrp2, q, *tasks)
        pos, rot = check.feet(q)
        worst["foot"], worst["foot_rot"] = max(worst["foot"], pos), max(worst["foot_rot"], rot)
        worst["hand"] = max(worst["hand"], float(np.linalg.norm(check.point(q, "r_hand") - p)))
        assert check.within_limits(q)
        assert check.com_inside(q)
    assert worst["foot"] < FOOT_TOL and worst["foot_rot"] < FOOT_ROT_TOL, worst
    assert worst["hand"] < HAND_TOL, worst
    assert np.linalg.norm(check.point(q, "r_hand") - start) < HAND_TOL  # back at the start corner
    assert len(path) == 400


def test_chest_joint_driven_in_direct_mode_with_both_feet_welded(hrp2, robot):
    """Closed-loop direct mode (Flückiger 1998, §3.4.3.3): the chest yaw joint follows a slider from 0
    to 0.4 rad while the feet stay welded (< 0.1 mm) and the legs keep the CoM where it was; the
    upper body turns (the head moves), the legs move too."""
    check = Check(hrp2, robot)
    chest = JointTask(hrp2, {"CHEST_JOINT0": 0.0})
    com = ComTask(hrp2)
    tasks = (chest, com, PostureTask(hrp2))
    q = hrp2.q0.copy()
    iq = hrp2.joint_index("CHEST_JOINT0")[0]
    hand0 = check.point(q, "r_hand")
    com0 = pin.centerOfMass(hrp2.model, check.data, q)[:2].copy()
    for value in np.linspace(0.01, 0.4, 40):
        chest.set_target([value])
        q, _ = prioritized.solve(hrp2, q, *tasks)
        assert abs(q[iq] - value) < 1e-6
        pos, rot = check.feet(q)
        assert pos < FOOT_TOL and rot < FOOT_ROT_TOL
        assert check.within_limits(q)
    com = pin.centerOfMass(hrp2.model, check.data, q)[:2]
    assert np.linalg.norm(com - com0) < 1e-4
    assert np.linalg.norm(check.point(q, "r_hand") - hand0) > 0.05  # the upper body turned
    legs = [hrp2.joint_index(f"RLEG_JOINT{i}")[0] for i in range(6)]
    assert np.abs(q[legs] - hrp2.q0[legs]).max() > 1e-3


def test_foot_loop_removed_and_added_at_runtime(hrp2, robot):
    """A foot loses ground contact (closure removed: it lifts 5 cm), then gains it again where it
    is (closure added at the current configuration); the model is never rebuilt."""
    check = Check(hrp2, robot)
    model = hrp2.model
    q = hrp2.q0.copy()
    post = PostureTask(hrp2)
    com = ComTask(hrp2, target=hrp2.placement(q, "r_sole").translation[:2])  # over the right foot first
    for _ in range(60):
        q, _ = prioritized.solve(hrp2, q, com, post)
    hrp2.remove_closure("l_foot")
    assert list(hrp2.closures) == ["r_foot"]
    foot = FrameTarget(hrp2, "l_sole", mode="pose")
    lifted = foot.target.copy()
    lifted.translation = lifted.translation + [0, 0, 0.05]
    foot.set_target(lifted)
    for _ in range(30):
        q, report = prioritized.solve(hrp2, q, foot, com, post)
    assert "l_foot" not in report.errors
    assert np.linalg.norm(check.point(q, "l_sole") - lifted.translation) < 1e-6
    M_r = hrp2.placement(q, "r_sole")
    assert np.linalg.norm(M_r.translation - check.soles["r_sole"].translation) < FOOT_TOL
    hrp2.add_closure("l_foot", "weld", "l_sole", "world", q=q)
    hand = FrameTarget(hrp2, "r_hand", mode="position")
    hand.set_target(hand.target.translation + [0.1, -0.05, 0.1])
    for _ in range(30):
        q, report = prioritized.solve(hrp2, q, hand, com, post)
    assert "l_foot" in report.errors
    assert np.linalg.norm(check.point(q, "l_sole") - lifted.translation) < FOOT_TOL
    assert np.linalg.norm(check.point(q, "r_hand") - hand.target.translation) < HAND_TOL
    assert hrp2.model is model and model.nq == 37
    with pytest.raises(KinematicsError, match="unknown closure 'l_fot'.*did you mean 'l_foot'"):
        hrp2.remove_closure("l_fot")
    with pytest.raises(KinematicsError, match="exists already"):
        hrp2.add_closure("l_foot", "weld", "l_sole")


def test_sources_rebound_at_runtime(hrp2):
    hrp2.select("r_hand", "mouse")
    assert hrp2.driven_frames() == {"r_hand": "mouse"}
    hrp2.bind("l_hand", ["joy", "none"])
    assert hrp2.driven_frames() == {"r_hand": "mouse", "l_hand": "joy"}
    hrp2.select("r_hand", "none")
    assert hrp2.driven_frames() == {"l_hand": "joy"}
    with pytest.raises(KinematicsError, match="not among"):
        hrp2.select("l_hand", "mouse")
    with pytest.raises(KinematicsError, match="unknown frame 'r_hnd'"):
        hrp2.bind("r_hnd", ["mouse"])


def test_unreachable_target_reports_residual_and_stays_at_the_closest_pose(hrp2, robot):
    """A hand target 3 m away: no exception, the feet stay welded, the joints within limits, the
    hand settles (the arm stretched toward the target) and the report's residual is the remaining
    distance."""
    check = Check(hrp2, robot)
    hand = FrameTarget(hrp2, "r_hand", mode="position")
    target = hand.target.translation + np.array([0.0, -3.0, 0.0])
    hand.set_target(target)
    tasks = (hand, ComTask(hrp2), PostureTask(hrp2))
    q = hrp2.q0.copy()
    d0 = np.linalg.norm(check.point(q, "r_hand") - target)
    history = []
    for _ in range(300):
        q, report = prioritized.solve(hrp2, q, *tasks)
        assert np.all(np.isfinite(q)) and check.within_limits(q)
        history.append(np.linalg.norm(check.point(q, "r_hand") - target))
    q_last, report = prioritized.solve(hrp2, q, *tasks)
    assert np.linalg.norm(report.errors["r_hand"]) == pytest.approx(history[-1], abs=1e-12)
    assert report.level_residual[2] >= history[-1]
    assert history[-1] < d0 - 0.3  # moved toward it (arm + lean)
    assert max(history[-20:]) - min(history[-20:]) < 1e-4  # settled: no oscillation beyond 0.1 mm
    assert np.abs(pin.difference(hrp2.model, q, q_last)).max() < 5e-3  # at rest: < 5 mrad per cycle (chosen)
    pos, rot = check.feet(q)
    assert pos < FOOT_TOL and rot < FOOT_ROT_TOL
    assert check.com_inside(q)


def test_nan_target_and_nan_configuration_are_refused(hrp2):
    hand = FrameTarget(hrp2, "r_hand", mode="position")
    before = hand.target.copy()
    with pytest.raises(KinematicsError, match=r"frame target 'r_hand': field 'target' must be 3 finite numbers.*nan"):
        hand.set_target([np.nan, 0.0, 0.0])
    assert hand.target == before
    pose = FrameTarget(hrp2, "l_hand")
    with pytest.raises(KinematicsError, match="field 'twist'"):
        pose.move([0, 0, np.inf, 0, 0, 0])
    q = hrp2.q0.copy()
    q[10] = np.nan
    with pytest.raises(KinematicsError, match="field 'q'.*index 10 is nan"):
        prioritized.solve(hrp2, q, hand)
    with pytest.raises(KinematicsError, match="unknown frame 'r_hnad'.*did you mean 'r_hand'"):
        FrameTarget(hrp2, "r_hnad")
