"""HRP-2 with flexible ankles (`load_robot("hrp2", ankle="flexible")`, docs/soles.md) executes the
same 2-step walking plan as the rigid robot (test_walking_sim.py): it does not fall and its feet
end near their footprints. Bounds: docs/walking.md."""

import numpy as np
import pytest
from test_walking_sim import BASE_HEIGHT_FLOOR, FOOT_LANDING_TOLERANCE, walk_in_world

from humanoid_model import load_robot
from humanoid_planner.walking import WalkParameters


@pytest.fixture(scope="module")
def walked():
    return walk_in_world(WalkParameters(n_steps=2, step_length=0.2, t_end=0.5), load_robot("hrp2", ankle="flexible"))


def test_hrp2_with_flexible_ankles_walks_two_steps_without_falling(walked):
    assert walked["base"].min() > BASE_HEIGHT_FLOOR
    assert walked["tilt"].max() < 0.01  # [rad] waist from vertical (chosen, as the rigid robot's)


def test_flexible_ankle_feet_end_near_their_footprints(walked):
    feet, pattern = walked["feet"], walked["pattern"]
    for i, k in enumerate(("r", "l")):
        assert np.linalg.norm(feet[-1, i, :2] - pattern.feet[k][-1, :2]) < FOOT_LANDING_TOLERANCE
