"""Stand-in for `launch.substitutions`."""

import os

from launch._record import Recorded, evaluate, generic


class LaunchConfiguration(Recorded):
    def __init__(self, variable_name, default=None):
        super().__init__(variable_name, default=default)
        self.variable_name = variable_name
        self.default = default

    def perform(self, context):
        if self.variable_name in context.arguments:
            return evaluate(context.arguments[self.variable_name], context)
        if self.default is None:
            raise KeyError(f"launch argument '{self.variable_name}' has no value")
        return evaluate(self.default, context)


class PathJoinSubstitution(Recorded):
    def __init__(self, substitutions):
        super().__init__(substitutions)
        self.substitutions = list(substitutions)

    def perform(self, context):
        return os.path.join(*[evaluate(s, context) for s in self.substitutions])


class TextSubstitution(Recorded):
    def __init__(self, *, text):
        super().__init__(text=text)
        self.text = text

    def perform(self, context):
        return self.text


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return generic(name)
