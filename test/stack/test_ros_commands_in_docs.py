"""The ROS commands the docs cite work on the default install: every `humanoid-stack ros ...`
command in a code block of docs/*.md, README.md, DEVELOPERS.md or a node's module docstring parses
(argument parsing only, no DDS), and every `ros2 topic|param|service|action|node VERB` there has
its `humanoid-stack ros` equivalent within a few lines (in a code block: with the same arguments),
unless those lines say it needs a system ROS 2."""

import ast
import contextlib
import io
import re
import shlex

import pytest
from support import REPO

from humanoid_stack.cli import build_parser

WINDOW = 3  # [lines] how far from a ros2 command its equivalent may stand (chosen: the next lines of a pair)
SYSTEM_ONLY = re.compile(r"(needs|with|from) a (sourced )?system ROS 2|with a ROS 2 install", re.IGNORECASE)
OURS = re.compile(r"(?:[\w./-]*/)?humanoid-stack ros\b")
ROS2 = re.compile(r"\bros2 (topic|param|service|action|node) (\w+)")
VERBS = {"topic": {"list", "echo", "pub"}, "param": {"get", "set", "list"}, "service": {"call"}}
VERBS |= {"action": {"send_goal"}, "node": {"list"}}


def documents():
    """(name, lines, code) of every text to check; ``code[i]`` says whether line i is code (inside a
    fence of a page; the whole module docstring of a node)."""
    pages = [REPO / "README.md", REPO / "DEVELOPERS.md", *sorted((REPO / "docs").glob("*.md"))]
    for path in pages:
        lines, code, inside = path.read_text().splitlines(), [], False
        for line in lines:
            fence = line.lstrip().startswith("```")
            inside = inside != fence
            code.append(inside and not fence)
        yield path.relative_to(REPO).as_posix(), lines, code
    for path in sorted((REPO / "humanoid_ros").glob("*.py")):
        lines = (ast.get_docstring(ast.parse(path.read_text())) or "").splitlines()
        yield path.relative_to(REPO).as_posix(), lines, [True] * len(lines)


def command_at(lines, i, start):
    """The shell words of the command starting at column ``start`` of line ``i``, with its
    continuation lines (a trailing backslash, or a quote still open) and without a trailing comment."""
    return command_span(lines, i, start)[0]


def command_span(lines, i, start):
    """(`command_at`'s words, the index of the command's last line)."""
    text = lines[i][start:]
    for j in range(i + 1, len(lines) + 1):
        try:
            words = shlex.split(text.replace("\\\n", " "), comments=True)
        except ValueError:  # a quote still open
            words = None
        if words is not None and not text.rstrip().endswith("\\"):
            return words, j - 1
        if j == len(lines):
            break
        text += "\n" + lines[j]
    raise AssertionError(f"unterminated command: {lines[i][start:]}")


def cited(pattern):
    """(where, words after the command name) of each code-block command matching ``pattern``."""
    found = []
    for name, lines, code in documents():
        for i, line in enumerate(lines):
            if not code[i]:
                continue
            for match in pattern.finditer(line):
                words = command_at(lines, i, match.start())
                skip = 2 if pattern is ROS2 or words[0].endswith("humanoid-stack") else 1
                found.append((f"{name}:{i + 1}", words[skip:]))
    return found


OUR_COMMANDS = cited(OURS)


def test_the_docs_cite_humanoid_stack_ros():
    groups = {words[0] for _, words in OUR_COMMANDS if words}
    assert len(OUR_COMMANDS) >= 15 and {"topic", "param", "service"} <= groups  # the scan finds them


@pytest.mark.parametrize("where, words", OUR_COMMANDS, ids=[w for w, _ in OUR_COMMANDS])
def test_every_cited_humanoid_stack_ros_command_parses(where, words):
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        try:
            args = build_parser().parse_args(["ros", *words])
        except SystemExit:
            pytest.fail(f"{where}: humanoid-stack ros {shlex.join(words)}: {err.getvalue().strip()}")
    assert args.ros_verb


def equivalents_near(lines, code, around):
    """The `humanoid-stack ros` commands on the lines ``around`` (words after `ros`; in prose, the
    words of its backquoted span)."""
    found = []
    for j in around:
        for match in OURS.finditer(lines[j]):
            if code[j]:
                found.append(command_at(lines, j, match.start())[2:])
            else:
                span = lines[j][match.end() :].split("`")[0]
                found.append(re.split(r"\s+|\\?\|", span.strip()))  # `param get\|set` in a table: each verb
    return found


def ros2_commands():
    """(where, group, verb, words, system_only, equivalents) of each `ros2 GROUP VERB` in the texts:
    words (after `ros2`) only for a code-block command, whether the lines around it say it needs a
    system ROS 2, and the `humanoid-stack ros` commands around it."""
    found = []
    for name, lines, code in documents():
        for i, line in enumerate(lines):
            for match in ROS2.finditer(line):
                group, verb = match.groups()
                words, last = command_span(lines, i, match.start()) if code[i] else (None, i)
                around = range(max(0, i - WINDOW), min(len(lines), last + WINDOW + 1))
                marked = any(SYSTEM_ONLY.search(lines[j]) for j in around)
                where = f"{name}:{i + 1}"
                found.append((where, group, verb, words and words[1:], marked, equivalents_near(lines, code, around)))
    return found


ROS2_COMMANDS = ros2_commands()


@pytest.mark.parametrize(
    "where, group, verb, words, marked, equivalents", ROS2_COMMANDS, ids=[c[0] for c in ROS2_COMMANDS]
)
def test_every_ros2_command_has_its_default_install_equivalent(where, group, verb, words, marked, equivalents):
    assert verb in VERBS[group], f"{where}: ros2 {group} {verb} has no humanoid-stack ros verb"
    if marked:
        return
    if words is None:  # prose: the same verb nearby
        near = any(e[:1] == [group] and verb in e[1:] for e in equivalents)
        assert near, f"{where}: ros2 {group} {verb} without humanoid-stack ros"
    else:
        assert words in equivalents, f"{where}: no 'humanoid-stack ros {shlex.join(words)}' within {WINDOW} lines"
