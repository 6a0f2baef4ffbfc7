"""The robot's SRDF as Pinocchio's own SRDF loaders read it: the postures (``<group_state>``) and
the collision exclusions (``<disable_collisions>``) that `humanoid_model.srdf` gives the robot
loader agree with `pinocchio.loadReferenceConfigurations` and `pinocchio.removeCollisionPairs`
on Talos's ``talos.srdf`` (example-robot-data, the optional ``robots`` extra), and a joint value
with the file's text read by a plain regular expression."""

from __future__ import annotations

import re

import numpy as np
import pinocchio as pin
import pytest
from support.robot_data import TALOS, TALOS_SRDF, erd_robot

from humanoid_model import load_robot

pytestmark = pytest.mark.skipif(
    erd_robot(TALOS) is None, reason="optional extra example-robot-data not installed (pip install '.[robots]')"
)


@pytest.fixture(scope="module")
def talos():
    return load_robot(erd_robot(TALOS))


def test_talos_half_sitting_is_pinocchios_reference_configuration(talos):
    model = pin.Model(talos.model)
    pin.loadReferenceConfigurations(model, str(erd_robot(TALOS_SRDF)), False)
    ref = model.referenceConfigurations["half_sitting"]
    np.testing.assert_allclose(talos.q("half-sitting"), ref, atol=1e-12)


def test_a_talos_knee_angle_is_the_one_written_in_the_srdf(talos):
    text = erd_robot(TALOS_SRDF).read_text()
    block = re.search(r'<group_state\s+name="half_sitting".*?</group_state>', text, re.S).group(0)
    value = float(re.search(r'<joint\s+name="leg_right_4_joint"\s+value="([^"]+)"', block).group(1))
    assert value > 0.3  # a bent knee: the posture is not the zero one
    assert talos.q("half-sitting")[talos.joint_index_q("leg_right_4_joint")] == pytest.approx(value, abs=1e-12)


def test_talos_collision_exclusions_are_the_pairs_pinocchio_removes(talos):
    geom = talos.collision_model.copy()
    geom.addAllCollisionPairs()
    before = {(p.first, p.second) for p in geom.collisionPairs}
    pin.removeCollisionPairs(talos.model, geom, str(erd_robot(TALOS_SRDF)), False)
    after = {(p.first, p.second) for p in geom.collisionPairs}
    link = [talos.model.frames[g.parentFrame].name for g in geom.geometryObjects]
    removed = {frozenset((link[a], link[b])) for a, b in before - after}
    kept = {frozenset((link[a], link[b])) for a, b in after}
    assert removed and removed <= talos.collision.exclude
    assert not kept & talos.collision.exclude
