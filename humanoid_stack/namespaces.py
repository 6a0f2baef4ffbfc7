"""Namespaces and remapping of a node set: the checks of ``--namespace`` and ``--remap``, and a
parameter file moved into a namespace (docs/ros.md "Namespaces and remapping").

    check_namespace("r1")                     # "/r1"  (ConfigError on a name ROS refuses)
    check_remap("joint_states:=/hrp2/joint_states")      # ("joint_states", "/hrp2/joint_states")
    namespaced_parameter_file(path, "/r1", overrides)   # a copy whose sections are /r1/NODE's

rcl matches a parameter file's node sections, and the ``-p NODE:PARAM:=VALUE`` overrides, against
the node's fully qualified name: a section ``simulator:`` is the node ``/simulator`` and does not
reach ``/r1/simulator``. So a node set started in a namespace reads a copy of its parameter file
whose sections carry the namespace, with the overrides written into it. `humanoid_stack.runner`
uses it for ``humanoid-stack up --namespace``, the launch files for their ``namespace`` argument
(`launch_parameters`). Nothing here imports rclpy.
"""

from __future__ import annotations

import atexit
import os
import re
import tempfile
from pathlib import Path

import yaml

from humanoid_model.exceptions import ConfigError

__all__ = ["check_namespace", "check_remap", "namespaced_parameter_file", "launch_parameters"]

_TOKEN = r"[A-Za-z_][A-Za-z0-9_]*"
_NAMESPACE = re.compile(rf"^/?({_TOKEN}(/{_TOKEN})*)?$")
_NAME = re.compile(rf"^(/|~/)?{_TOKEN}(/{_TOKEN})*$")
_NODE = re.compile(rf"^{_TOKEN}$")
MAX_NAMESPACE = 200
"""[characters] the longest namespace accepted (chosen: rmw's limit on a fully qualified node name
is 255, and the node and topic names follow)."""


def check_namespace(text: str) -> str:
    """The absolute namespace of ``--namespace`` ``text`` ("r1" and "/r1" -> "/r1"; "" and "/" ->
    "/", the root); ConfigError naming the rule when ROS would refuse it: tokens of letters,
    digits and underscores, not starting with a digit, separated by single slashes, no trailing
    slash, at most `MAX_NAMESPACE` characters."""
    if len(text) > MAX_NAMESPACE or not _NAMESPACE.match(text):
        raise ConfigError(
            f"--namespace {text!r}: not a ROS namespace (tokens of letters, digits and '_', not starting with "
            f"a digit, separated by single '/', no trailing '/', at most {MAX_NAMESPACE} characters), "
            "e.g. r1 or /robots/r1"
        )
    return "/" + text.strip("/")


def check_remap(text: str) -> tuple[str, str]:
    """``[NODE:]FROM:=TO`` -> (``[NODE:]FROM``, ``TO``): a topic or service remapping passed to
    rcl (``-r``), for every node or only NODE; names relative, absolute or private (``~/``).
    ConfigError on another form (a namespace is `--namespace`'s, not a remapping's)."""
    source, sep, target = text.partition(":=")
    node, colon, name = source.rpartition(":")
    if not sep or not _NAME.match(name) or not _NAME.match(target) or (colon and not _NODE.match(node)):
        raise ConfigError(
            f"--remap {text!r}: expected [NODE:]FROM:=TO with ROS names (tokens of letters, digits and '_', "
            "relative, absolute '/...' or private '~/...'), e.g. joint_states:=/hrp2/joint_states"
        )
    return source, target


def _section_key(key: str, namespace: str) -> str:
    if key.startswith("/"):  # already a fully qualified name (or a wildcard): left as written
        return key
    return f"{namespace.rstrip('/')}/{key}"


def namespaced_parameter_file(path, namespace: str, overrides=(), directory=None) -> Path:
    """A copy of parameter file ``path`` (an ordinary ROS 2 parameter file) for nodes in
    ``namespace`` (absolute, `check_namespace`): each top-level section ``NODE`` becomes
    ``/NS/NODE`` (a section already absolute stays), and ``overrides`` ((node, parameter, value)
    triples) are written into their node's section, where they win. Written to a new temporary
    file (in ``directory``, default the system's); the caller removes it."""
    from humanoid_model.files import read_text
    from humanoid_model.scene_params import flatten_params

    data = yaml.safe_load(read_text(path, "parameter file", ConfigError)) or {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping 'node_name: {{ros__parameters: ...}}' at the top level")
    for node, name, value in overrides:  # dotted names, as rcl reads them (push: {link: x} is push.link)
        section = data.setdefault(node, {})
        section["ros__parameters"] = {**flatten_params(section.get("ros__parameters") or {}), name: value}
    moved = {_section_key(str(key), namespace): value for key, value in data.items()}
    fd, tmp = tempfile.mkstemp(prefix="humanoid-stack-params-", suffix=".yaml", dir=directory)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        yaml.dump(moved, out, Dumper=_QuotingDumper, default_flow_style=False, sort_keys=False)
    return Path(tmp)


class _QuotingDumper(yaml.SafeDumper):
    """Writes every string quoted: rcl's YAML reader takes a plain ``y`` or ``on`` for a bool
    where PyYAML wrote a string, and a quoted scalar is a string to both."""


_QuotingDumper.add_representer(str, lambda dumper, text: dumper.represent_scalar("tag:yaml.org,2002:str", text, "'"))


def launch_parameters(path, namespace):
    """A launch substitution (``ros2 launch``) for a node's parameter file: ``path`` itself in the
    root namespace, else a `namespaced_parameter_file` copy for the namespace, removed when the
    launch process exits. ``path`` and ``namespace`` are substitutions (or text)."""
    from launch import Substitution

    class NamespacedParameterFile(Substitution):
        def __init__(self):
            super().__init__()

        def perform(self, context):
            file = _perform(path, context)
            ns = _perform(namespace, context)
            if ns.strip("/") == "":
                return file
            copy = namespaced_parameter_file(file, check_namespace(ns))
            atexit.register(copy.unlink, missing_ok=True)
            return str(copy)

        def describe(self):
            return "parameter file in the namespace"

    return NamespacedParameterFile()


def _perform(value, context) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple)):
        return "".join(_perform(v, context) for v in value)
    return value.perform(context)
