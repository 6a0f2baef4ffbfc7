"""Exceptions of the execution package (all `humanoid_model.exceptions.HumanoidStackError`)."""

from humanoid_model.exceptions import HumanoidStackError

__all__ = ["SweepError"]


class SweepError(HumanoidStackError):
    """A sweep cannot run (Ray cannot start or join its cluster) or a task's result was asked of a
    task that failed; the one-line message names the task or the cluster and the reason."""
