"""Exceptions of the viewer package (all `humanoid_model.exceptions.HumanoidStackError`)."""

from humanoid_model.exceptions import HumanoidStackError

__all__ = ["ViewerError", "RecordingError", "MarkerError", "RecordingWarning"]


class ViewerError(HumanoidStackError):
    """Bad input to the viewer (wrong configuration size, unknown posture...); the package's base class."""


class RecordingError(ViewerError):
    """A replay file is missing a field or holds a malformed value."""


class MarkerError(ViewerError):
    """A marker cannot be interpreted (wrong shapes, NaN, unknown action)."""


class RecordingWarning(UserWarning):
    """A replay file that is readable but incomplete: a recording cut off mid-run (not an error)."""
