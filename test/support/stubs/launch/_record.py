"""Recording base class shared by the stand-in launch modules (see test/support/stubs/README.md)."""


class Recorded:
    """Keeps the positional and keyword arguments it was built with."""

    def __init__(self, *args, **kwargs):
        self.args = args
        self.kwargs = kwargs

    def __repr__(self):
        return f"{type(self).__name__}(args={self.args!r}, kwargs={self.kwargs!r})"


def generic(name):
    """A recording class named `name` for parts of the API the stand-ins do not spell out."""
    return type(name, (Recorded,), {})


class EvaluationContext:
    """What evaluating substitutions needs: package share folders and launch-argument values."""

    def __init__(self, share_dirs, arguments):
        self.share_dirs = dict(share_dirs)
        self.arguments = dict(arguments)


def evaluate(value, context):
    """A recorded substitution (or list of them, or plain text) as a string."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "".join(evaluate(v, context) for v in value)
    if hasattr(value, "perform"):
        return value.perform(context)
    raise TypeError(f"cannot evaluate {value!r}")
