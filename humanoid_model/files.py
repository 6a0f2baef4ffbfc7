"""The one way the project reads an input file and writes an output file.

Reading (`read_bytes`, `read_text`, `open_input`): only a regular file, never more than a bound.
A FIFO, a device (``/dev/zero``), a socket or a directory is refused at once, without blocking
(the open is non-blocking, and the file's kind is checked on the open descriptor, so a path
swapped between a check and the open cannot slip through); a file larger than the bound is
refused before anything is read. Every failure is the caller's error class in one line naming the
file.

Writing (`write_text`, `write_bytes`): atomically. The data go to a temporary file beside the
target, are flushed to disk, then renamed over the target: a reader sees the old file or the
whole new one, never a truncated one (a full disk, Ctrl-C or a crash leave the old file, or none,
and no temporary behind). The target's folder must exist: nothing is created on the user's behalf.
`check_output` makes the writer's checks early (before a long computation), and `clear_output`
also removes the file a previous run left there, so that a run that fails or is interrupted
leaves no older file at the path to be taken for its result.

    text = read_text(path, "scene YAML file", SceneError)
    write_text(path, json.dumps(doc), "PLAN.json", PlanningError)
    clear_output(path, "PLAN.json", ConfigError)   # a command, before its computation
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from pathlib import Path

__all__ = [
    "MAX_INPUT_BYTES",
    "MAX_LINE_BYTES",
    "check_input",
    "check_output",
    "clear_output",
    "open_input",
    "read_bytes",
    "read_text",
    "write_bytes",
    "write_text",
]

# [bytes] (chosen) the largest input file read: 4 x the 300 s HRP-2 recording at the default rate
# (80 MB, docs/recording.md); every other input (URDF, YAML, MAD, PLAN.json, GAIT.json) is far smaller
MAX_INPUT_BYTES = 512 * 1024 * 1024
# [bytes] (chosen) the longest line of a line-by-line input (JSON Lines): a recording frame of
# HRP-2 with its contacts is a few kB; 64 MiB leaves room for the largest scene and stays bounded
MAX_LINE_BYTES = 64 * 1024 * 1024


def _describe(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a directory"),
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def open_input(path, kind: str, error: type[Exception], limit: int | None = MAX_INPUT_BYTES):
    """A binary file object on the regular file ``path`` (the caller closes it); ``error`` when it
    cannot be opened, is not a regular file, or holds more than ``limit`` bytes (None: no bound on
    the size, for a reader that reads a bounded amount at a time). ``kind`` names the file in
    messages ("replay file", "MAD file", ...)."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise error(f"{path}: cannot read the {kind}: {exc.strerror or exc}") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise error(f"{path}: {_describe(info.st_mode)}, not a regular file: not read as a {kind}")
        if limit is not None and info.st_size > limit:
            raise error(
                f"{path}: {info.st_size} bytes, more than the {limit} bytes read at most from a {kind} "
                f"(humanoid_model.files.MAX_INPUT_BYTES)"
            )
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_bytes(path, kind: str, error: type[Exception], limit: int = MAX_INPUT_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them (`open_input`'s checks;
    a file that grows past ``limit`` while it is read is refused too)."""
    with open_input(path, kind, error, limit) as f:
        try:
            data = f.read(limit + 1)
        except OSError as exc:
            raise error(f"{path}: cannot read the {kind}: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise error(f"{path}: more than the {limit} bytes read at most from a {kind}")
    return data


def check_input(path, kind: str, error: type[Exception], limit: int = MAX_INPUT_BYTES) -> Path:
    """``path`` when it is a regular file of at most ``limit`` bytes (`open_input`'s checks, the
    file opened and closed again), for a reader outside the project that opens the file by its
    name (Pinocchio's and coal's mesh loaders, trimesh); ``error`` otherwise."""
    open_input(path, kind, error, limit).close()
    return Path(path)


def read_text(path, kind: str, error: type[Exception], limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text of the regular file ``path`` (`read_bytes`); ``error`` when it is not text."""
    try:
        return read_bytes(path, kind, error, limit).decode("utf-8")
    except UnicodeDecodeError:
        raise error(f"{path}: not a text (UTF-8) file, so not a {kind}") from None


def _umask() -> int:
    """The process's umask, read without changing it (Linux: /proc/self/status; else 0o022)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0o022


def _output_target(path: Path, kind: str, error: type[Exception], regular: bool) -> Path:
    """Where an output named ``path`` goes (a symbolic link followed to the file it names), after
    `check_output`'s checks."""
    try:
        info = os.stat(path)  # follows links
    except FileNotFoundError:
        info = None
    except OSError as exc:
        raise error(f"{path}: cannot write the {kind}: {exc.strerror or exc}") from None
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise error(f"{path}: is a directory: cannot write the {kind} there")
    if info is not None and regular and not stat.S_ISREG(info.st_mode):
        raise error(
            f"{path}: {_describe(info.st_mode)}, not a regular file: not written as the {kind} "
            "(an output file is replaced whole; give a file name)"
        )
    target = path.resolve() if path.is_symlink() else path
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise error(f"{path}: folder {folder} does not exist: cannot write the {kind} (create it first)")
    return target


def check_output(path, kind: str, error: type[Exception], regular: bool = True) -> Path:
    """``path`` when `write_bytes` could write there: its folder exists, and it is a regular file or
    nothing yet (a link is followed to the file it names); ``error`` in one line otherwise. A
    device, a FIFO or a socket is refused (``/dev/null`` too): the atomic writer renames a new file
    over the target, which would replace the device node itself. ``regular`` False (a stream
    written in place, such as a simulator recording): anything but a directory. Nothing is created
    or changed."""
    _output_target(Path(path), kind, error, regular)
    return Path(path)


def clear_output(path, kind: str, error: type[Exception]) -> Path:
    """`check_output`, then remove the regular file at ``path`` (the file a link names) if there is
    one: a command calls it before its computation, so that the path holds a file only once the run
    wrote its result (an older one is never taken for it after a failure or Ctrl-C). ``error`` when
    it cannot be removed."""
    target = _output_target(Path(path), kind, error, True)
    try:
        target.unlink(missing_ok=True)
    except OSError as exc:
        raise error(f"{path}: cannot remove the previous {kind}: {exc.strerror or exc}") from None
    return Path(path)


def write_bytes(path, data: bytes, kind: str, error: type[Exception]) -> Path:
    """Write ``data`` to ``path`` (a regular file or nothing yet: `check_output`) atomically and
    return the path; ``error`` in one line when the folder is missing, ``path`` is not a regular
    file, or the write fails (a full disk, no permission): the target is then as it was, and no
    temporary file is left. A link is followed: the file it names is replaced, the link stays."""
    path = Path(path)
    target = _output_target(path, kind, error, True)
    folder = target.parent if str(target.parent) else Path(".")
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
        os.fchmod(fd, 0o666 & ~_umask())  # the mode a plain open() would give, not mkstemp's 0600
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
        tmp = None
    except OSError as exc:
        raise error(f"{path}: cannot write the {kind}: {exc.strerror or exc}") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    return path


def write_text(path, text: str, kind: str, error: type[Exception]) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (`write_bytes`) and return the path."""
    return write_bytes(path, text.encode("utf-8"), kind, error)
