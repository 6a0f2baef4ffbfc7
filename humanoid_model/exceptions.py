"""Exceptions of the humanoid_stack libraries (one module for all packages' user-facing errors).

Every error a user can cause (bad file, bad field, unknown name, infeasible request) raises a
subclass of `HumanoidStackError` whose message names the file, the field and the value.
"""


class HumanoidStackError(Exception):
    """Base class: a user-facing error with a readable message."""


class ModelError(HumanoidStackError):
    """A robot model (URDF, contact-location YAML, posture) is missing or malformed."""


class UnknownRobotError(ModelError):
    """The robot name is neither a shipped model nor an existing URDF path."""


class SceneError(HumanoidStackError):
    """A scene file is malformed: the message names the file, the field and the value."""


class ConfigError(HumanoidStackError):
    """A parameter file or command-line override is malformed."""


class SolverError(HumanoidStackError):
    """A numerical solver was given inconsistent input (wrong shapes, NaN, negative friction)."""


class PlanningError(HumanoidStackError):
    """A planning or optimisation request is infeasible; the message says why."""
