"""Joint commands of the simulator node, ROS-free (`humanoid_sim.runtime.commands`; ros2_control-style
topics): forward position/effort commands are checked against the joint limits and the effort
limits; a JointTrajectory follows joint_trajectory_controller's start semantics (zero stamp =
start on receipt, a partial goal holds the unnamed joints, a first point after 0 starts from the
current set-point); bad commands raise CommandError naming the topic, the field and the value."""

import numpy as np
import pytest

from humanoid_sim.exceptions import CommandError
from humanoid_sim.runtime.commands import TrajectoryPoint, build_trajectory, check_efforts, check_positions

NAMES = ["a", "b", "c"]
LO, HI = np.array([-1.0, -2.0, 0.0]), np.array([1.0, 2.0, 3.0])
CUR = np.array([0.1, 0.2, 0.3])


def test_positions_and_efforts_are_checked_against_the_limits():
    np.testing.assert_array_equal(check_positions([0.5, -2.0, 3.0], NAMES, LO, HI), [0.5, -2.0, 3.0])
    with pytest.raises(CommandError, match=r"/fpc: field 'data' must be a list of finite numbers.*\(index 1 is nan\)"):
        check_positions([0.0, np.nan, 1.0], NAMES, LO, HI, "/fpc")
    with pytest.raises(CommandError, match="joint 'c' is outside its limits"):
        check_positions([0.0, 0.0, 3.01], NAMES, LO, HI)
    with pytest.raises(CommandError, match="has 2 values; expected 3"):
        check_positions([0.0, 0.0], NAMES, LO, HI)
    em = np.array([10.0, 0.0, 5.0])  # 0 = no limit
    np.testing.assert_array_equal(check_efforts([-10.0, 1e6, 5.0], NAMES, em), [-10.0, 1e6, 5.0])
    with pytest.raises(CommandError, match="joint 'a'"):
        check_efforts([-10.5, 0, 0], NAMES, em)
    with pytest.raises(CommandError, match=r"finite numbers.*\(index 1 is inf\)"):
        check_efforts([0, np.inf, 0], NAMES, em)


def pts(*items):
    return [TrajectoryPoint(p, t) for p, t in items]


def test_trajectory_starts_from_the_set_point_holds_unnamed_joints_and_honours_the_stamp():
    # partial goal, first point at t > 0: starts from the current set-point, unnamed joints hold
    traj, start = build_trajectory(
        ["c", "a"], pts(([1.3, 0.5], 1.0), ([2.3, -0.5], 2.0)), NAMES, LO, HI, CUR, stamp=0.0, now=4.2
    )
    assert start == 4.2  # zero stamp = start on receipt
    np.testing.assert_allclose(traj.sample(0.0)[0], CUR)
    np.testing.assert_allclose(traj.sample(0.5)[0], [0.3, 0.2, 0.8])  # halfway to the first point
    np.testing.assert_allclose(traj.sample(1.5)[0], [0.0, 0.2, 1.8])
    np.testing.assert_allclose(traj.sample(9.0)[0], [-0.5, 0.2, 2.3])  # held at the end
    _, start = build_trajectory(["a"], pts(([0.0], 0.0)), NAMES, LO, HI, CUR, stamp=7.5, now=4.2)
    assert start == 7.5  # nonzero stamp = that /clock time


@pytest.mark.parametrize(
    "names, points, message",
    [
        (["a", "zz"], pts(([0, 0], 1.0)), "unknown joint 'zz'"),
        (["a", "a"], pts(([0, 0], 1.0)), "names joint 'a' twice"),
        (["a"], pts(([0.1], 1.0), ([0.2], 1.0)), "strictly increasing"),
        (["a"], pts(([0.1], 1.0), ([0.2], 0.5)), "strictly increasing"),
        (["a"], pts(([np.nan], 1.0)), r"field 'points\[0\].positions' must be a list of finite numbers"),
        (["a"], pts(([1.5], 1.0)), "outside its limits"),
        (["a", "b"], pts(([0.1], 1.0)), "1 values for 2 joint_names"),
        (["a"], [], "'points' is empty"),
        ([], pts(([0.1], 1.0)), "'joint_names' is empty"),
    ],
)
def test_bad_trajectories_are_rejected_with_the_reason(names, points, message):
    with pytest.raises(CommandError, match=message):
        build_trajectory(names, points, NAMES, LO, HI, CUR, stamp=0.0, now=0.0)


def test_trajectory_velocities_are_checked_against_the_urdf_velocity_limits():
    """Velocities beyond the URDF limit (HRP-2: 2.2–9.1 rad/s) are refused like
    positions beyond theirs; a limit of 0 (URDF: not given) or inf checks nothing."""
    vmax = np.array([2.0, 0.0, np.inf])
    ok = [TrajectoryPoint([0.5, 0.0, 1.0], 1.0, velocities=[-2.0, 1e3, 1e3])]
    traj, _ = build_trajectory(NAMES, ok, NAMES, LO, HI, CUR, stamp=0.0, now=0.0, v_max=vmax)
    assert traj is not None
    fast = [TrajectoryPoint([0.5, 0.0, 1.0], 1.0, velocities=[2.01, 0.0, 0.0])]
    with pytest.raises(
        CommandError,
        match=r"/jtc: field 'points\[0\]\.velocities' value 2\.01 rad/s for joint 'a' is outside its limits \[-2, 2\]",
    ):
        build_trajectory(NAMES, fast, NAMES, LO, HI, CUR, stamp=0.0, now=0.0, topic="/jtc", v_max=vmax)


def test_a_huge_joint_name_is_shortened_in_the_rejection():
    """A 100 kB joint name is shortened in the message, not echoed whole into the log and every
    /diagnostics."""
    huge = "x" * 100_000
    for names in ([huge], [huge, huge]):
        with pytest.raises(CommandError) as e:
            build_trajectory(names, pts(([0.0] * len(names), 1.0)), NAMES, LO, HI, CUR, stamp=0.0, now=0.0)
        assert len(str(e.value)) < 300 and "(100002 characters)" in str(e.value)
