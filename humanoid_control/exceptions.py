"""Exceptions of the control package (all `humanoid_model.exceptions.HumanoidStackError`)."""

from humanoid_model.exceptions import HumanoidStackError

__all__ = ["ControlError", "BridgeError"]


class ControlError(HumanoidStackError):
    """Base class of the controllers' errors (bad gains, references or limits)."""


class BridgeError(ControlError):
    """The robot bridge cannot read a plan or build a trajectory (bad file, bad shapes); the
    message names the source, the field and the value. Unsafe trajectories are not errors: they
    give a `humanoid_control.bridge.ValidationReport` with its refusals."""
