"""The common IK problem of the benchmarks' peers (benchmarks/peers/ik_problem.py) is the robot our
solvers load: the peers build HRP-2 from the URDF and the sidecar without this package, so their
model must order the configuration as `humanoid_model.load_robot` and the kinematic structure do,
and start from the same half-sitting, or the seeded starts and targets would differ."""

import numpy as np

from benchmarks.peers import ik_problem


def test_peers_model_and_half_sitting_are_ours(robot):
    from humanoid_control.kinematics import load_structure

    model, q0 = ik_problem.load_model()
    structure = load_structure("hrp2")
    for ours, q_ours in ((robot.model, robot.q()), (structure.model, structure.q0)):
        assert list(ours.names) == list(model.names)
        np.testing.assert_array_equal(ours.lowerPositionLimit, model.lowerPositionLimit)
        np.testing.assert_array_equal(ours.upperPositionLimit, model.upperPositionLimit)
        np.testing.assert_array_equal(q_ours, q0)


def test_starts_are_off_the_constraints_and_half_sitting_is_on():
    """Every start fails the check, half-sitting with its own hand as target passes it, and a
    start is reproducible (seeded per trial)."""
    model, q0 = ik_problem.load_model()
    target = ik_problem.canonical_target(model, q0)
    assert ik_problem.Check(model, q0, ik_problem.hand_position(model, q0)).ok(q0)
    check = ik_problem.Check(model, q0, target)
    assert np.isclose(np.linalg.norm(target - ik_problem.hand_position(model, q0)), ik_problem.REACH)
    for trial in range(0, ik_problem.STARTS, 10):
        q = ik_problem.random_start(model, q0, trial)
        assert not check.ok(q)
        np.testing.assert_array_equal(q, ik_problem.random_start(model, q0, trial))
    assert all(d[0] >= 0 and np.isclose(np.linalg.norm(d), 1) for d in ik_problem.directions())
