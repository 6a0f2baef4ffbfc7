"""Stand-in for `launch_ros.substitutions`."""

from launch._record import Recorded, evaluate, generic


class FindPackageShare(Recorded):
    def __init__(self, package):
        super().__init__(package)
        self.package = package

    def perform(self, context):
        package = evaluate(self.package, context)
        if package not in context.share_dirs:
            raise KeyError(f"package '{package}' not known to the test")
        return str(context.share_dirs[package])


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return generic(name)
