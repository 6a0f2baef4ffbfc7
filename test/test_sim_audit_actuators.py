"""Acceptance audit of issue 3: bad actuator commands raise HumanoidStackError naming the field
(never a NumPy error): NaN/inf trajectory times (accepted before the audit), non-numeric or
ragged points, NaN velocities, a rejected command that stopped the running trajectory or
switched to torque mode (before the audit), a trajectory of the wrong width (before: a
broadcast error at the next step), a NaN start time, non-numeric position commands."""
import numpy as np
import pytest

from humanoid_model.exceptions import HumanoidStackError
from humanoid_sim.actuators import JointTrajectory, PDActuator


@pytest.mark.parametrize("args, field", [
    (([0.0, np.nan], [[0.0], [1.0]]), "time_from_start"),
    (([0.0, np.inf], [[0.0], [1.0]]), "time_from_start"),
    (("ab", [[0.0]]), "time_from_start"),
    (([0.0, 1.0, 2.0], [[0.0], [1.0]]), "positions"),
    (([0.0, 1.0], [[0.0, 1.0], [1.0]]), "positions"),
    (([0.0, 1.0], [[0.0], [1.0]], [[np.nan], [0.0]]), "velocities"),
    (([0.0, 1.0], [[0.0], [1.0]], [[1.0, 2.0, 3.0]]), "velocities"),
])
def test_bad_trajectory(args, field):
    with pytest.raises(HumanoidStackError, match=field):
        JointTrajectory(*args)


def test_bad_actuator_commands():
    a = PDActuator(["j1", "j2"], kp=1.0, kv=1.0, effort_max=[10.0, 10.0])
    with pytest.raises(HumanoidStackError, match="positions"):
        a.set_trajectory(JointTrajectory([0.0, 1.0], [[0.0], [1.0]]), 0.0)      # 1 of 2 joints
    with pytest.raises(HumanoidStackError, match="t_start"):
        a.set_trajectory(JointTrajectory([0.0, 1.0], np.zeros((2, 2))), float("nan"))
    with pytest.raises(HumanoidStackError, match="positions"):
        a.set_position("abc")
    # the previous command is kept after a rejection
    a.set_position([0.1, 0.2])
    with pytest.raises(HumanoidStackError):
        a.set_position([np.nan, 0.0])
    assert np.allclose(a.q_d, [0.1, 0.2])
    # a rejected command does not stop a running trajectory nor switch the mode
    tr = JointTrajectory([0.0, 1.0], [[0.0, 0.0], [1.0, 1.0]])
    a.set_trajectory(tr, 0.0)
    for bad in (lambda: a.set_position([np.nan, 0.0]), lambda: a.set_torque([np.inf, 0.0]),
                lambda: a.set_position([0.0, 0.0], tau_ff=[np.nan, 0.0])):
        with pytest.raises(HumanoidStackError):
            bad()
        assert a.trajectory is tr and a.mode == "pd"
    # a flat list of k*n values is still one row per point
    tr = JointTrajectory([0.0, 1.0, 3.0], [0.0, 1.0, 0.0])
    assert tr.p.shape == (3, 1) and tr.sample(0.5)[0][0] == pytest.approx(0.5)
