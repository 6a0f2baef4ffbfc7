"""How a sagittal gait is made a 3-D walk (`humanoid_execution.lateral`): the lateral ZMP reference
from the contact schedule and the swing feet's lift, on hand-made schedules (the closed-loop walk:
test_execute_gait.py)."""

from types import SimpleNamespace

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.wbc.reference import ContactPhase
from humanoid_execution.lateral import lift_swing_feet, zmp_reference

INF = np.inf
FEET = SimpleNamespace(link=lambda name: f"{name[0]}_foot")  # a controller's `link`: l_* on l_foot


def _phase(location, start, end, ramp_in, ramp_out, y):
    return ContactPhase(location, start, end, ramp_in, ramp_out, pin.SE3(np.eye(3), np.array([0.3, y, 0.0])))


def test_the_lateral_zmp_moves_from_the_foot_that_lifts_to_the_foot_that_lands_by_their_loads():
    """The left foot (y 0.1) unloads over 0.8..1.0 s while the right (y −0.1) lands on its heel at
    0.8 s and turns flat onto its sole at 0.9 s: the right foot's heel and sole are one landing,
    loaded over its 0.2 s ramp, so the ZMP crosses the middle at 0.9 s and ends on the right foot."""
    ref = SimpleNamespace(
        source="GAIT.json",
        phases=[
            _phase("l_sole", -INF, 1.0, 0.0, 0.2, 0.1),
            _phase("r_heel", 0.8, 0.9, 0.2, 0.0, -0.1),
            _phase("r_sole", 0.9, INF, 0.0, 0.0, -0.1),
        ],
    )
    t = np.array([0.0, 0.8, 0.85, 0.9, 0.95, 1.0, 2.0])
    assert zmp_reference(ref, FEET, t) == pytest.approx([0.1, 0.1, 0.05, 0.0, -0.05, -0.1, -0.1], abs=1e-12)


def test_where_no_foot_is_loaded_the_zmp_holds_its_last_value():
    ref = SimpleNamespace(
        source="GAIT.json",
        phases=[_phase("l_sole", -INF, 1.0, 0.0, 0.0, 0.1), _phase("r_sole", 1.5, INF, 0.0, 0.0, -0.1)],
    )
    assert zmp_reference(ref, FEET, np.array([0.5, 1.2, 1.6])) == pytest.approx([0.1, 0.1, -0.1])


def test_a_swing_foot_is_lifted_smoothly_between_lift_off_and_landing():
    """The right foot swings from 1.0 to 1.5 s: its frames are lifted by the height in the middle,
    not at lift-off nor landing, with the lift's speed and acceleration (those of its positions);
    the stance foot is not moved."""
    t = np.linspace(0.0, 2.0, 2001)

    def frames():
        return (np.tile(np.eye(3), (len(t), 1, 1)), np.zeros((len(t), 3)), np.zeros((len(t), 6)), np.zeros((len(t), 6)))

    ref = SimpleNamespace(
        t=t,
        phases=[
            _phase("r_toe", -INF, 1.0, 0.0, 0.1, -0.1),
            _phase("r_heel", 1.5, INF, 0.1, 0.0, -0.1),
            _phase("l_sole", -INF, INF, 0.0, 0.0, 0.1),
        ],
        locations={"r_toe": 0, "r_heel": 1, "r_sole": 2, "l_sole": 3},
        frames={name: frames() for name in ("r_toe", "r_heel", "r_sole", "l_sole")},
    )
    lift_swing_feet(ref, FEET, height=0.02, ramp=0.1)
    z, vz, az = ref.frames["r_sole"][1][:, 2], ref.frames["r_sole"][2][:, 2], ref.frames["r_sole"][3][:, 2]
    assert np.array_equal(z, ref.frames["r_toe"][1][:, 2]) and np.array_equal(z, ref.frames["r_heel"][1][:, 2])
    assert np.all(z[(t <= 1.0) | (t >= 1.5)] == 0.0) and np.allclose(z[(t >= 1.1) & (t <= 1.4)], 0.02)
    assert np.all(z >= 0.0) and not np.any(ref.frames["l_sole"][1])
    assert np.allclose(vz, np.gradient(z, t), atol=1e-3)  # central differences at 1 ms: 0.2 mm/s off
    assert np.allclose(az, np.gradient(vz, t), atol=0.5)  # 0.3 of 11.5 m/s², where the jerk starts
