"""Exceptions of the `humanoid_stack` package (the command line), derived from
`humanoid_model.exceptions.HumanoidStackError`: the CLI prints the message in one line and exits 2."""

from humanoid_model.exceptions import HumanoidStackError

__all__ = ["RosToolError"]


class RosToolError(HumanoidStackError):
    """A `humanoid-stack ros` command refused its input (unknown type, bad YAML, unknown field,
    wrong value type) or got no answer in time (no publisher, no server, no node)."""
