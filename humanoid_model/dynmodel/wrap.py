"""Line wrapping of generated code: no generated line is longer than `WIDTH` characters.

An expression is cut only where its language allows a line break without changing its meaning:
before a binary ``+``/``-`` (written with spaces by the printers), after ``*`` or ``, ``, and in
LaTeX after a thin space ``\\,``. Python statements are put in parentheses first (implicit line
continuation); C needs nothing; LaTeX source newlines are spaces (continuation lines are
indented, which `humanoid_model.dynmodel.latex_parse.parse_equations` reads back).
"""

from __future__ import annotations

import re
import textwrap

__all__ = ["WIDTH", "wrap_text", "py_assign", "c_assign", "latex_line", "comment_lines"]

WIDTH = 120  # [characters] longest generated line (chosen: the repository's own line length, readable in a diff)
_CUT = {
    "code": re.compile(r"(?= [+-] )|(?<=\*)(?!\*)|(?<=, )"),
    "latex": re.compile(r"(?= [+-] )|(?<=\\, )"),
    "text": re.compile(r"(?<= )"),
}


def wrap_text(text: str, cont: str, kind: str = "code", width: int = WIDTH) -> list:
    """`text` (one line) as lines of at most `width` characters where a cut exists; continuation
    lines start with `cont`."""
    if len(text) <= width:
        return [text]
    cuts = [m.start() for m in _CUT[kind].finditer(text) if m.start() > 0]
    lines, start, offset = [], 0, 0  # offset: length of the prefix already on the current line
    prefix = ""
    while len(prefix) + len(text) - start > width:
        limit = start + width - len(prefix)
        best = None
        for c in cuts:
            if start < c <= limit:
                best = c
            elif c > limit:
                break
        if best is None:  # no cut fits: take the first one after the limit (rare: a long name)
            best = next((c for c in cuts if c > start), None)
            if best is None:
                break
        lines.append(prefix + text[start:best].rstrip())
        start = best
        while start < len(text) and text[start] == " ":
            start += 1
        prefix = cont
        offset += 1
    lines.append(prefix + text[start:])
    return lines


def py_assign(indent: str, lhs: str, rhs: str) -> list:
    """``lhs = rhs`` in Python, wrapped in parentheses when too long."""
    line = f"{indent}{lhs} = {rhs}"
    if len(line) <= WIDTH:
        return [line]
    return wrap_text(f"{indent}{lhs} = ({rhs})", indent + "    ")


def c_assign(indent: str, lhs: str, rhs: str) -> list:
    """``lhs = rhs;`` in C (``lhs`` may carry a declaration)."""
    return wrap_text(f"{indent}{lhs} = {rhs};", indent + "    ")


def latex_line(text: str) -> list:
    """One ``lhs &= rhs`` LaTeX line, continuation lines indented by four spaces."""
    return wrap_text(text, "    ", "latex", WIDTH - 3)  # room for the " \\\\" row end


def comment_lines(text: str, prefix: str, width: int = WIDTH) -> list:
    """A comment or docstring paragraph wrapped at word boundaries, each line with `prefix`."""
    return textwrap.wrap(text, width - len(prefix), initial_indent=prefix, subsequent_indent=prefix + "  ") or [prefix]
