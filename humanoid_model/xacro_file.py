"""Robot files written in xacro (``NAME.urdf.xacro``, ``NAME.xacro``), as ROS packages ship them.

A robot argument names such a file like a URDF, optionally followed by the file's arguments in
xacro's own ``name:=value`` form, separated by spaces (quoted on a shell)::

    humanoid-stack info "my_arm.urdf.xacro prefix:=left_ use_gripper:=true"

`split_robot_argument` separates the file from its arguments; `XacroPath` is the file's path
carrying them, so that every reader of the robot (`humanoid_model.urdf_description.read_urdf`, the
robot loader, the scene loader) expands the same document; `expand` runs the PyPI ``xacro``
package on the file (read through `humanoid_model.files`; its ``<xacro:include>`` files are opened
by xacro itself) and returns the URDF text. An argument the file does not declare
(``<xacro:arg>``) is refused (xacro itself ignores it: a misspelt name would silently keep the
default); a xacro error (an undefined property, a missing include, ``$(find pkg)`` of a package
that cannot be found) gives one line naming the file. The robot's name and its sidecar are those
of the file without ``.xacro`` and ``.urdf`` (`robot_stem`: ``my_arm.urdf.xacro`` -> ``my_arm``,
``my_arm.yaml``).
"""

from __future__ import annotations

import contextlib
import io
import threading
from pathlib import Path

from humanoid_model import files
from humanoid_model.exceptions import ModelError

__all__ = ["XACRO_SUFFIX", "XacroPath", "expand", "is_xacro", "robot_stem", "split_robot_argument", "with_arguments"]

XACRO_SUFFIX = ".xacro"
_LOCK = threading.Lock()  # the xacro package keeps its state in module globals: one expansion at a time


class XacroPath(type(Path())):
    """The path of a xacro file with the arguments it is expanded with (``xacro_args``: sorted
    (name, value) pairs; a path derived from it, such as its parent, carries none)."""

    xacro_args: tuple = ()

    def __reduce__(self):  # keep the arguments through pickling (the planner's worker processes)
        return _xacro_path, (str(self), self.xacro_args)


def _xacro_path(path: str, args: tuple) -> XacroPath:
    p = XacroPath(path)
    p.xacro_args = tuple(args)
    return p


def is_xacro(path) -> bool:
    """Whether ``path`` names a xacro file (its name ends with ``.xacro``, any case)."""
    return str(path).lower().endswith(XACRO_SUFFIX)


def robot_stem(path) -> str:
    """The robot's name of a URDF or xacro file: its name without ``.xacro`` and ``.urdf``."""
    name = Path(path).name
    for suffix in (XACRO_SUFFIX, ".urdf"):
        if name.lower().endswith(suffix):
            name = name[: -len(suffix)]
    return name


def split_robot_argument(text: str, error=ModelError) -> tuple[str, dict[str, str]]:
    """(the file or name, {argument: value}) of a robot argument ``"FILE.urdf.xacro a:=1 b:=x"``
    (module docstring). A text without ``:=`` is returned whole (a path may hold spaces then);
    `error` for a malformed argument or arguments after a file that is not a xacro file."""
    if ":=" not in text:
        return text, {}
    head, *tokens = text.split()
    args: dict[str, str] = {}
    for token in tokens:
        name, sep, value = token.partition(":=")
        if not sep or not name.isidentifier():
            raise error(f"robot '{text}': '{token}' is not a xacro argument name:=value")
        args[name] = value
    if ":=" in head or not is_xacro(head):
        raise error(f"robot '{text}': xacro arguments name:=value follow a .xacro file, not '{head}'")
    return head, args


def with_arguments(path: Path, args: dict[str, str]) -> Path:
    """``path`` carrying ``args`` (an `XacroPath`; ``path`` itself when there are none)."""
    return _xacro_path(str(path), tuple(sorted(args.items()))) if args else path


class _Asked(dict):
    """The arguments given, recording the names xacro asks about: xacro tests each declared
    ``<xacro:arg>`` against this mapping before it sets the default."""

    def __init__(self, given):
        super().__init__(given)
        self.declared: set[str] = set()

    def __contains__(self, name):
        self.declared.add(name)
        return super().__contains__(name)


def expand(path: Path) -> str:
    """The URDF text of the xacro file ``path`` with its arguments (``path.xacro_args`` for an
    `XacroPath`); `ModelError` with one line naming the file on any failure."""
    try:
        import xacro
    except ImportError:  # pragma: no cover - the package is in requirements.txt
        raise ModelError(f"{path}: a xacro file needs the 'xacro' Python package (pip install xacro)") from None
    text = files.read_text(path, "xacro file", ModelError)
    args = _Asked(dict(getattr(path, "xacro_args", ())))
    given = set(args)
    stderr = io.StringIO()
    with _LOCK:
        try:
            with contextlib.redirect_stderr(stderr):
                xacro.init_stacks(str(path))
                doc = xacro.parse(text)
                xacro.process_doc(doc, mappings=args)
                out = doc.toxml()
        except Exception as exc:  # xacro raises XacroException, ExpatError, NameError, KeyError, OSError...
            detail = " ".join(f"{exc}".split()) or type(exc).__name__
            raise ModelError(f"{path}: xacro cannot expand this file: {detail}") from None
    unknown = sorted(given - args.declared)
    if unknown:
        declared = ", ".join(sorted(args.declared)) or "none"
        raise ModelError(f"{path}: unknown xacro argument(s) {', '.join(unknown)} (the file declares: {declared})")
    return out
