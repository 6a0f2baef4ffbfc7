"""Exceptions of the humanoid_stack libraries: the base class and the model package's own.

Every error a user can cause (bad file, bad field, unknown name, infeasible request) raises a
subclass of `HumanoidStackError` whose message names the source, the field and the value
(wording: `humanoid_model.validation`). Each package has an ``exceptions.py`` whose classes derive
from this base: `humanoid_sim.exceptions`, `humanoid_viewer.exceptions`,
`humanoid_planner.exceptions`, `humanoid_control.exceptions`. The CLI catches the base class,
prints the message without a traceback and exits 2.

`ConfigError`, `SolverError` and `PlanningError` live here because several packages raise them
(parameter files and command lines everywhere; the contact solvers, the simulator and the
planners' QPs; the gait node, the CLI and future planners), and `humanoid_model` is the one
package they all import (a re-export from a package above it would invert the layering).
"""


class HumanoidStackError(Exception):
    """Base class: a user-facing error with a readable message."""


class ModelError(HumanoidStackError):
    """A robot model (URDF, contact-location YAML, posture) is missing or malformed."""


class UnknownRobotError(ModelError):
    """The robot name is neither a shipped model nor an existing URDF path."""


class LatexParseError(ModelError, ValueError):
    """LaTeX outside the dynamic-model generator's grammar (`humanoid_model.dynmodel.latex_parse`).

    Also a `ValueError`, as before it joined this hierarchy."""


class SceneError(HumanoidStackError):
    """A scene file is malformed: the message names the file, the field and the value."""


class ConfigError(HumanoidStackError):
    """A parameter file or command-line override is malformed."""


class SceneOverrideError(SceneError, ConfigError):
    """A scene ``--set`` override is malformed (bad path or non-numeric value)."""


class SolverError(HumanoidStackError):
    """A numerical solver was given inconsistent input (wrong shapes, NaN, negative friction)."""


class PlanningError(HumanoidStackError):
    """A planning or optimisation request is infeasible; the message says why."""
