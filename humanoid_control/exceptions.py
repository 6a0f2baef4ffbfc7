"""Exceptions of the control package (all `humanoid_model.exceptions.HumanoidStackError`)."""

from humanoid_model.exceptions import HumanoidStackError

__all__ = ["ControlError", "BridgeError", "KinematicsError"]


class ControlError(HumanoidStackError):
    """Base class of the controllers' errors (bad gains, references or limits)."""


class BridgeError(ControlError):
    """The robot bridge cannot read a plan or build a trajectory (bad file, bad shapes); the
    message names the source, the field and the value. Unsafe trajectories are not errors: they
    give a `humanoid_control.bridge.ValidationReport` with its refusals."""


class KinematicsError(ControlError):
    """The kinematic generator cannot load a structure (bad sidecar field, unknown link, joint or
    frame name) or refuses a solver input (NaN target, unknown task frame); the one-line message
    names the file or source, the field and the value. An unreachable target is not an error: the
    solver reports its residual (humanoid_control.kinematics)."""


class MadError(KinematicsError):
    """A MAD file (the thesis's robot description, `humanoid_control.kinematics.mad`) is malformed:
    the one-line message is ``FILE:LINE: what; found 'TOKEN'``."""
