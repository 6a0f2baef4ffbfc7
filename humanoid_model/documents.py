"""The one reader of the project's text documents: YAML (scenes, robot sidecars, node-set parameter
files, through `humanoid_model.yaml_file.read_yaml`), JSON (replay files) and JSON Lines (simulator
recordings, `humanoid_model.formats.recording`). Every way reading can fail becomes the caller's error class
with a one-line message naming the file (and the line of a JSON Lines file), never a traceback
(left to the parsers, a binary file raises UnicodeDecodeError, a deeply nested one RecursionError).

    doc = read_document(path, "replay file", RecordingError, "JSON")
    for number, value in read_json_lines(path, "recording", RecordingError): ...
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import yaml

from humanoid_model import files

__all__ = [
    "LANGUAGES",
    "read_text",
    "parse_text",
    "parse_message",
    "read_document",
    "read_json_lines",
    "IncompleteLine",
]

LANGUAGES = ("YAML", "JSON")


def read_text(path: Path, kind: str, error: type[Exception]) -> str:
    """The UTF-8 text of the regular file ``path`` (`humanoid_model.files.read_text`: bounded,
    never a FIFO or a device); ``error`` when it cannot be read or is not text. ``kind`` names the
    file in messages ("scene YAML file", "replay file", ...)."""
    return files.read_text(path, kind, error)


def parse_text(text: str, language: str, path, kind: str, error: type[Exception], line: int | None = None):
    """The decoded ``language`` ("YAML" or "JSON") document of ``text`` read from ``path`` (line
    ``line`` of it for JSON Lines); ``error`` when it is not valid or nested too deeply for the
    reader (Python's recursion limit)."""
    where = f"{path}: line {line}" if line is not None else f"{path}"
    try:
        if language == "YAML":
            return yaml.safe_load(text)
        if language == "JSON":
            return json.loads(text)
    except yaml.YAMLError as exc:
        raise error(f"{where}: not valid YAML: {_one_line(exc)}") from None
    except json.JSONDecodeError as exc:
        at = f"column {exc.colno}" if line is not None else f"line {exc.lineno}, column {exc.colno}"
        raise error(f"{where}: not valid JSON ({at}: {exc.msg})") from None
    except ValueError as exc:  # e.g. an integer of more than 4300 digits (sys.int_info)
        raise error(f"{where}: not valid JSON: {_one_line(exc)}") from None
    except RecursionError:
        raise error(f"{where}: nested too deeply to be a {kind} (the {language} reader's recursion limit)") from None
    raise ValueError(f"parse_text: 'language' must be one of {LANGUAGES}; value {language!r}")


def parse_message(text: str, source: str, kind: str, error: type[Exception], max_bytes: int):
    """The decoded JSON document of a message's ``text`` received on ``source`` (a topic): ``error``
    in one line when it is longer than ``max_bytes`` (a ``kind``'s bound) or not valid JSON
    (`parse_text`)."""
    if len(text) > max_bytes:
        raise error(f"{source}: {len(text)} bytes, more than the {max_bytes} of a {kind}")
    return parse_text(text, "JSON", source, kind, error)


def read_document(path: Path, kind: str, error: type[Exception], language: str = "YAML"):
    """The decoded document of the ``language`` file ``path`` (YAML: None when empty): any failure
    raises ``error`` in one line (unreadable, not UTF-8 text, not valid, nested too deeply)."""
    return parse_text(read_text(path, kind, error), language, path, kind, error)


class IncompleteLine:
    """What `read_json_lines` yields for a last line that does not parse and has no line end: a
    writer cut off mid-line. ``number``: its line number; ``text``: its first characters."""

    def __init__(self, number: int, text: str):
        self.number, self.text = number, text


def read_json_lines(path: Path, kind: str, error: type[Exception], first: int = 1) -> Iterator[tuple[int, object]]:
    """(line number, decoded value) of each non-blank line of the JSON Lines file ``path`` (a
    regular file, `humanoid_model.files.open_input`), read one line at a time (bounded memory: a
    line of more than `files.MAX_LINE_BYTES` is refused), from line ``first`` on. A last
    line that has no line end and does not parse (a run cut off while writing it) is yielded as
    (number, `IncompleteLine`) for the caller to report; any other bad line raises ``error``
    naming the file and the line."""
    f = files.open_input(path, kind, error, limit=None)  # read a line at a time: any length
    with f:
        number = 0
        while True:
            try:
                raw = f.readline(files.MAX_LINE_BYTES + 1)
            except OSError as exc:
                raise error(f"{path}: cannot read the {kind}: {exc.strerror or exc}") from None
            if not raw:
                return
            number += 1
            if len(raw) > files.MAX_LINE_BYTES:
                raise error(f"{path}: line {number}: longer than {files.MAX_LINE_BYTES} bytes, so not a {kind} line")
            if number < first or not raw.strip():
                continue
            try:
                text = raw.decode("utf-8").rstrip("\r\n")  # columns in messages count from the line's start
            except UnicodeDecodeError:
                if not raw.endswith(b"\n"):  # cut inside a multi-byte character
                    yield number, IncompleteLine(number, raw[:40].decode("utf-8", "replace"))
                    return
                raise error(f"{path}: line {number}: not a text (UTF-8) line, so not a {kind}") from None
            if raw.endswith(b"\n"):
                yield number, parse_text(text, "JSON", path, kind, error, line=number)
                continue
            try:  # the last line, without its end: complete if it parses
                value = parse_text(text, "JSON", path, kind, error, line=number)
            except error:
                yield number, IncompleteLine(number, text[:40])
                return
            yield number, value


def _one_line(exc) -> str:
    return " ".join(str(exc).split())
