"""Kinematics stage of a World step: the world placements and world-frame Jacobians of every joint
of the combined model at the step's start configuration (``pin.computeJointJacobians``:
``data.oMi`` and ``data.J``), which every later stage reads."""

from __future__ import annotations

import pinocchio as pin

__all__ = ["kinematics"]


def kinematics(world, q) -> None:
    """Fill ``world.data`` (``oMi``, ``J``) of ``world.model`` at configuration ``q``."""
    pin.computeJointJacobians(world.model, world.data, q)
