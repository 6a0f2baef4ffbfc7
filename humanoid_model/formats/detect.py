"""Which file format a file holds: `read_format_file` reads a JSON document or a simulator
recording's JSON Lines stream (gathered into its /1 layout), and `document_kind` names the
layout of a decoded document, in the order the readers try them:

- ``"plan"``: PLAN.json (``format`` = `humanoid_model.formats.plan.FORMAT`);
- ``"trajectory"``: GAIT.json / WALK.json concatenated samples (``trajectory`` a mapping);
- ``"phases"``: GAIT.json-style ``phases`` of joint rows;
- ``"configurations"``: ``t`` and ``q``;
- ``"recording"``: a simulator recording's /1 layout (``t`` with ``joints`` or ``bodies``).

    doc, stream = read_format_file(path, "replay file", RecordingError)
    kind = document_kind(doc)
"""

from __future__ import annotations

from collections.abc import Collection

from humanoid_model.documents import read_document
from humanoid_model.formats.configurations import is_configurations_document
from humanoid_model.formats.plan import is_contact_plan
from humanoid_model.formats.recording import (
    RecordingStream,
    check_recording_version,
    is_recording_document,
    read_recording_stream,
    recording_stream_header,
)
from humanoid_model.formats.trajectory import is_phases_document, is_trajectory_document

__all__ = ["KINDS", "document_kind", "read_format_file"]

KINDS = ("plan", "trajectory", "phases", "configurations", "recording")


def document_kind(doc) -> str | None:
    """The layout of the decoded document ``doc`` (one of `KINDS`), or None when it is none."""
    tests = (is_contact_plan, is_trajectory_document, is_phases_document, is_configurations_document)
    for kind, test in zip(KINDS, (*tests, is_recording_document)):
        if test(doc):
            return kind
    return None


def read_format_file(
    path, kind: str, error, keys: Collection[str] | None = None
) -> tuple[object, RecordingStream | None]:
    """(the decoded document, the `RecordingStream` or None) of ``path``: a simulator recording's
    JSON Lines stream gathered into its /1 layout (``keys``: the frame fields gathered besides
    ``t``, None: all), else the JSON document (any value). ``kind`` names the file in messages
    ("replay file", "plan file"); every failure to read raises ``error`` in one line."""
    header = recording_stream_header(path)
    if header is None:
        check_recording_version(path, error)
        return read_document(path, kind, error, "JSON"), None
    stream = read_recording_stream(path, error, header, keys)
    return stream.doc, stream
