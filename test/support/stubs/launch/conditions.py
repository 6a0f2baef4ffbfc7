"""Stand-in for `launch.conditions`."""

from launch._record import Recorded, evaluate, generic

_TRUE = {"true", "1", "yes", "on"}


class IfCondition(Recorded):
    def __init__(self, predicate_expression):
        super().__init__(predicate_expression)
        self.predicate = predicate_expression

    def holds(self, context):
        return evaluate(self.predicate, context).strip().lower() in _TRUE


class UnlessCondition(IfCondition):
    def holds(self, context):
        return not super().holds(context)


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return generic(name)
