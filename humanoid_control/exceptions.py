"""Exceptions of the control package (all `humanoid_model.exceptions.HumanoidStackError`)."""

from humanoid_model.exceptions import HumanoidStackError

__all__ = ["ControlError"]


class ControlError(HumanoidStackError):
    """Base class of the controllers' errors (bad gains, references or limits)."""
