"""Stand-in for `launch_ros.actions`."""

from launch._record import Recorded, generic


class Node(Recorded):
    """Records a node action: package, executable, name, parameters, arguments, condition..."""

    def __init__(
        self,
        *,
        executable,
        package=None,
        name=None,
        namespace=None,
        parameters=None,
        arguments=None,
        remappings=None,
        condition=None,
        output=None,
        **kwargs,
    ):
        super().__init__(
            executable=executable,
            package=package,
            name=name,
            namespace=namespace,
            parameters=parameters,
            arguments=arguments,
            remappings=remappings,
            condition=condition,
            output=output,
            **kwargs,
        )
        self.package = package
        self.executable = executable
        self.name = name
        self.namespace = namespace
        self.parameters = list(parameters or [])
        self.arguments = list(arguments or [])
        self.remappings = list(remappings or [])
        self.condition = condition


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return generic(name)
