"""ROS-free parts of the simulator node: command checks (`humanoid_sim.commands`) and the
/contacts marker geometry (`humanoid_sim.markers`)."""
import numpy as np
import pytest

from humanoid_sim.commands import (CommandError, TrajectoryPoint, build_trajectory, check_efforts,
                                   check_positions)
from humanoid_sim.markers import CONE_SEGMENTS, contact_markers

NAMES = ["a", "b", "c"]
LO, HI = np.array([-1.0, -2.0, 0.0]), np.array([1.0, 2.0, 3.0])
CUR = np.array([0.1, 0.2, 0.3])


def test_positions_and_efforts_checked():
    np.testing.assert_array_equal(check_positions([0.5, -2.0, 3.0], NAMES, LO, HI), [0.5, -2.0, 3.0])
    with pytest.raises(CommandError, match="non-finite value nan at index 1"):
        check_positions([0.0, np.nan, 1.0], NAMES, LO, HI, "/fpc")
    with pytest.raises(CommandError, match="joint 'c' is outside its limits"):
        check_positions([0.0, 0.0, 3.01], NAMES, LO, HI)
    with pytest.raises(CommandError, match="has 2 values; expected 3"):
        check_positions([0.0, 0.0], NAMES, LO, HI)
    em = np.array([10.0, 0.0, 5.0])   # 0 = no limit
    np.testing.assert_array_equal(check_efforts([-10.0, 1e6, 5.0], NAMES, em), [-10.0, 1e6, 5.0])
    with pytest.raises(CommandError, match="joint 'a'"):
        check_efforts([-10.5, 0, 0], NAMES, em)
    with pytest.raises(CommandError, match="non-finite"):
        check_efforts([0, np.inf, 0], NAMES, em)


def pts(*items):
    return [TrajectoryPoint(p, t) for p, t in items]


def test_trajectory_semantics():
    # partial goal, first point at t > 0: starts from the current set-point, unnamed joints hold
    traj, start = build_trajectory(["c", "a"], pts(([1.3, 0.5], 1.0), ([2.3, -0.5], 2.0)), NAMES, LO, HI,
                                   CUR, stamp=0.0, now=4.2)
    assert start == 4.2                                        # zero stamp = start on receipt
    np.testing.assert_allclose(traj.sample(0.0)[0], CUR)
    np.testing.assert_allclose(traj.sample(0.5)[0], [0.3, 0.2, 0.8])   # halfway to the first point
    np.testing.assert_allclose(traj.sample(1.5)[0], [0.0, 0.2, 1.8])
    np.testing.assert_allclose(traj.sample(9.0)[0], [-0.5, 0.2, 2.3])  # held at the end
    _, start = build_trajectory(["a"], pts(([0.0], 0.0)), NAMES, LO, HI, CUR, stamp=7.5, now=4.2)
    assert start == 7.5                                        # nonzero stamp = that /clock time


@pytest.mark.parametrize("names, points, message", [
    (["a", "zz"], pts(([0, 0], 1.0)), "unknown joint 'zz'"),
    (["a", "a"], pts(([0, 0], 1.0)), "names joint 'a' twice"),
    (["a"], pts(([0.1], 1.0), ([0.2], 1.0)), "strictly increasing"),
    (["a"], pts(([0.1], 1.0), ([0.2], 0.5)), "strictly increasing"),
    (["a"], pts(([np.nan], 1.0)), "non-finite"),
    (["a"], pts(([1.5], 1.0)), "outside its limits"),
    (["a", "b"], pts(([0.1], 1.0)), "1 values for 2 joint_names"),
    (["a"], [], "'points' is empty"),
    ([], pts(([0.1], 1.0)), "'joint_names' is empty"),
])
def test_bad_trajectories_rejected(names, points, message):
    with pytest.raises(CommandError, match=message):
        build_trajectory(names, points, NAMES, LO, HI, CUR, stamp=0.0, now=0.0)


def test_contact_marker_geometry():
    """Arrow = scale·f (world); cone apex at the point, axis n, height scale·f_n, radius μ·height;
    a force on the cone boundary (sliding) ends on the cone's rim circle."""
    s, mu = 0.002, 0.5
    n = np.array([0.0, 0.0, 1.0])
    frames = np.array([[n, [1.0, 0, 0], [0, 1.0, 0]], [n, [1.0, 0, 0], [0, 1.0, 0]]])
    P = np.array([[0.1, 0.2, 0.0], [0.5, 0.0, 0.0]])
    f = np.array([[100.0, 50.0, 0.0], [0.0, 0.0, 0.0]])   # second contact carries nothing
    cm = contact_markers(P, frames, f, [mu, mu], force_scale=s)
    assert cm.points.shape == (2, 3) and cm.arrows.shape == (1, 2, 3)
    np.testing.assert_allclose(cm.arrows[0, 1] - cm.arrows[0, 0], s * np.array([50.0, 0.0, 100.0]))
    tri = cm.cones.reshape(-1, 3, 3)
    assert tri.shape[0] == CONE_SEGMENTS
    np.testing.assert_allclose(tri[:, 0], np.tile(P[0], (CONE_SEGMENTS, 1)))   # apex
    rim = tri[:, 1] - P[0]
    np.testing.assert_allclose(rim[:, 2], s * 100.0)                            # height
    np.testing.assert_allclose(np.linalg.norm(rim[:, :2], axis=1), mu * s * 100.0)
    # the sliding force's arrow tip lies on the rim circle: |f_t| = mu f_n
    tip = cm.arrows[0, 1] - P[0]
    assert np.isclose(np.linalg.norm(tip[:2]), mu * tip[2])
