"""Stand-in for `launch.actions`."""

from launch._record import Recorded, generic


class DeclareLaunchArgument(Recorded):
    def __init__(self, name, default_value=None, description="", choices=None, **kwargs):
        super().__init__(name, default_value=default_value, description=description, choices=choices, **kwargs)
        self.name = name
        self.default_value = default_value
        self.description = description
        self.choices = choices


class ExecuteProcess(Recorded):
    def __init__(self, *, cmd, condition=None, **kwargs):
        super().__init__(cmd=cmd, condition=condition, **kwargs)
        self.cmd = cmd
        self.condition = condition


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return generic(name)
