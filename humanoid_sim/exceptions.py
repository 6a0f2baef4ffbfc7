"""Exceptions of the simulator package (all `humanoid_model.exceptions.HumanoidStackError`).

`SolverError` (bad contact-solver input) and `ConfigError` (bad simulator settings) are shared
with other packages and live in `humanoid_model.exceptions`; they are re-exported here so that
simulator code can import every error it raises from one place.
"""

from humanoid_model.exceptions import ConfigError, HumanoidStackError, SolverError

__all__ = ["SimulatorError", "CommandError", "NonFiniteStateError", "SolverError", "ConfigError"]


class SimulatorError(HumanoidStackError):
    """Base class of the simulator's own errors."""


class CommandError(SimulatorError):
    """A joint command was rejected (the previous command continues)."""


class NonFiniteStateError(SimulatorError):
    """A step met or made a NaN or infinite state; the message names the stage. The world keeps
    the last finite state (the failing step is not committed)."""
