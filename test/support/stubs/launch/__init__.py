"""Stand-in for ROS 2 `launch` (records only; see test/support/stubs/README.md)."""

from launch._record import EvaluationContext, Recorded, evaluate, generic  # noqa: F401


class LaunchDescription(Recorded):
    """Holds the list of entities given to it."""

    def __init__(self, initial_entities=None, **kwargs):
        super().__init__(initial_entities, **kwargs)
        self.entities = list(initial_entities or [])

    def add_action(self, action):
        self.entities.append(action)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return generic(name)
