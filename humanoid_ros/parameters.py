"""Declarative parameter tables: one `ParameterTable` per node, from which the declaration on the
rclpy node, the validation, the run-time change checks and the docs/ros.md rows all come.

The model is ros2_controllers' ``generate_parameter_library`` YAML: each `Parameter` gives its
name, type, default, description (units and thesis citations there), unit, validation (bounds,
open or closed; choices; fixed length or the length of another array; non-empty) and whether it
may change at run time (`dynamic`) or is read at start only.

    PARAMETERS = ParameterTable("state_publisher", [
        Parameter("robot", "string", "hrp2", "shipped robot name or path to a URDF", non_empty=True),
        Parameter("publish_frequency", "double", 20.0, "/tf rate (chosen)", unit="Hz",
                  minimum=0.0, exclusive_minimum=True),
    ])
    self.p = PARAMETERS.declare(self)                 # in the node's __init__: a plain dict
    self.add_on_set_parameters_callback(PARAMETERS.on_set_parameters(lambda: self.p, self.p.update))

Every refusal reads ``"node '<node>': parameter <name> must be <requirement>; value <value>"``
and raises `humanoid_model.exceptions.ConfigError` (a run-time change is refused with that text
as the reason instead). The docs tables are generated between markers in docs/ros.md::

    <!-- parameters: simulator -->
    | parameter | type | default | unit | valid values | changes | meaning |
    <!-- /parameters -->

    .venv/bin/python -m humanoid_ros.parameters --write docs/ros.md    # regenerate
    .venv/bin/python -m humanoid_ros.parameters --check docs/ros.md    # exit 1 when out of date

This module imports rclpy's message types only inside `declare` and `on_set_parameters`, so tables
can be built, validated and rendered without a ROS context.
"""

from __future__ import annotations

import argparse
import array
import importlib
import math
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import short

__all__ = ["Parameter", "ParameterTable", "TABLES", "load_table", "update_docs", "main"]

TYPES = ("bool", "int", "double", "string", "string_array", "double_array")
ARRAYS = ("string_array", "double_array")
NUMERIC = ("int", "double", "double_array")

TABLES = {
    "state_publisher": "humanoid_ros.state_publisher:PARAMETERS",
    "viewer": "humanoid_ros.viewer:PARAMETERS",
    "gait_generator": "humanoid_ros.gait_generator:PARAMETERS",
    "simulator": "humanoid_ros.simulator:PARAMETERS",
    "robot_bridge": "humanoid_ros.robot_bridge:PARAMETERS",
    "pilot": "humanoid_ros.pilot:PARAMETERS",
    "contact_planner": "humanoid_ros.contact_planner:PARAMETERS",
}
"""Every node's table (``module:attribute``), by node name: the docs generator reads these.
A new node adds its entry here (test/ros/test_ros_parameters.py checks it against the runner's
NODE_CLASSES and docs/ros.md)."""

DOCS_COMMAND = ".venv/bin/python -m humanoid_ros.parameters --write docs/ros.md"
_BLOCK = re.compile(r"(<!-- parameters: (?P<node>[A-Za-z_]\w*) -->\n)(?P<body>.*?)(<!-- /parameters -->)", re.DOTALL)
_HEADER = "| parameter | type | default | unit | valid values | changes | meaning |\n|---|---|---|---|---|---|---|\n"


def _is_number(x) -> bool:
    return not isinstance(x, (bool, np.bool_)) and isinstance(x, (int, float, np.integer, np.floating))


def _short_exponent(text: str) -> str:
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", text).replace("e+", "e")


def _number_text(x) -> str:
    """A default as written in the docs: 20.0, 0.001, 1e-6, 65535 (a double keeps its '.0')."""
    return _short_exponent(repr(int(x)) if isinstance(x, (int, np.integer)) else repr(float(x)))


def _bound_text(x) -> str:
    """A bound as written in a requirement: 0, 0.1, 65535, 1e-6."""
    return _short_exponent(f"{x:g}")


def _plain(value):
    """rclpy gives arrays as array.array or tuples: plain lists, for checks and messages."""
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, (tuple, array.array)):
        return list(value)
    return value


@dataclass(frozen=True)
class Parameter:
    """One node parameter: name, type, default, description and validation.

    `type` is one of bool, int, double, string, string_array, double_array. Numbers (and each
    element of a double_array) must lie within `minimum` / `maximum` (excluded when
    `exclusive_minimum` / `exclusive_maximum`); strings may be restricted to `choices` or be
    required `non_empty`; arrays may have a fixed `length` or the length of the earlier array
    parameter `length_of`. `dynamic` parameters may change at run time; the others are read at
    start only (read-only in their ROS descriptor). `unit` is the SI unit (``"s"``, ``"N·m/rad"``);
    `description` says what the value means and cites the thesis where a default comes from it.
    """

    name: str
    type: str
    default: object
    description: str
    unit: str = ""
    minimum: float | None = None
    maximum: float | None = None
    exclusive_minimum: bool = False
    exclusive_maximum: bool = False
    choices: tuple[str, ...] = ()
    length: int | None = None
    length_of: str | None = None
    non_empty: bool = False
    dynamic: bool = False

    def __post_init__(self):
        where = f"parameter table: parameter '{self.name}'"
        if self.type not in TYPES:
            raise ValueError(f"{where}: type must be one of {', '.join(TYPES)}; value {self.type!r}")
        if (self.minimum is not None or self.maximum is not None) and self.type not in NUMERIC:
            raise ValueError(f"{where}: bounds apply to numbers only (type {self.type})")
        if self.choices and self.type != "string":
            raise ValueError(f"{where}: choices apply to strings only (type {self.type})")
        if (self.length is not None or self.length_of) and self.type not in ARRAYS:
            raise ValueError(f"{where}: lengths apply to arrays only (type {self.type})")
        if self.length is not None and self.length_of:
            raise ValueError(f"{where}: give length or length_of, not both")
        object.__setattr__(self, "choices", tuple(self.choices))

    # ------------------------------------------------------------------ wording
    def bounds_text(self) -> str:
        """The bounds as text, e.g. ``"> 0 and <= 0.1"`` ("" when unbounded)."""
        parts = []
        if self.minimum is not None:
            parts.append(f"{'>' if self.exclusive_minimum else '>='} {_bound_text(self.minimum)}")
        if self.maximum is not None:
            parts.append(f"{'<' if self.exclusive_maximum else '<='} {_bound_text(self.maximum)}")
        return " and ".join(parts)

    def _in_bounds(self, x: float) -> bool:
        lo, hi = self.minimum, self.maximum
        if lo is not None and (x <= lo if self.exclusive_minimum else x < lo):
            return False
        return not (hi is not None and (x >= hi if self.exclusive_maximum else x > hi))

    def _unit(self) -> str:
        return f" [{self.unit}]" if self.unit else ""

    def valid_values(self, code: str = "") -> str:
        """What the validation accepts, in words (ROS additional_constraints; the docs column
        quotes names with ``code="`"``)."""
        parts = []
        if self.choices:
            parts.append("one of " + ", ".join(f"{code}{c}{code}" for c in self.choices))
        if self.non_empty:
            parts.append("non-empty")
        if self.length is not None:
            parts.append(f"{self.length} values")
        if self.length_of:
            parts.append(f"one per {code}{self.length_of}{code} entry")
        if self.bounds_text():
            parts.append(self.bounds_text() + (" each" if self.type in ARRAYS else ""))
        return "; ".join(parts)

    def _fail(self, node: str, requirement: str, value):
        raise ConfigError(f"node '{node}': parameter {self.name} must be {requirement}; value {short(_plain(value))}")

    # ------------------------------------------------------------------ validation
    def check(self, value, node: str, values: Mapping | None = None):
        """`value` converted to its plain Python type (str, bool, int, float, list), or
        `ConfigError` in the shared wording. `values` holds the already checked parameters (for
        `length_of`); `node` names the node in the message."""
        value = _plain(value)
        t = self.type
        if t == "string":
            if not isinstance(value, str):
                self._fail(node, "a string", value)
            if self.non_empty and not value.strip():
                self._fail(node, "a non-empty string", value)
            if self.choices and value not in self.choices:
                self._fail(node, "one of " + ", ".join(self.choices), value)
            return value
        if t == "bool":
            if not isinstance(value, (bool, np.bool_)):
                self._fail(node, "true or false", value)
            return bool(value)
        if t == "int":
            integral = _is_number(value) and math.isfinite(value) and float(value).is_integer()
            if not integral:
                self._fail(node, "an integer", value)
            if not self._in_bounds(value):
                self._fail(node, self.bounds_text() + self._unit(), value)
            return int(value)
        if t == "double":
            if not _is_number(value):
                self._fail(node, "a number", value)
            if not math.isfinite(value):
                self._fail(node, "finite", value)
            if not self._in_bounds(value):
                self._fail(node, self.bounds_text() + self._unit(), value)
            return float(value)
        # arrays: an unset (NOT_SET) array is empty
        items = [] if value is None else value
        n = self.length
        if self.length_of:
            n = len((values or {}).get(self.length_of, ()))
        if t == "string_array":
            count = "a list of" if n is None else str(n)
            requirement = f"{count} {'non-empty ' if self.non_empty else ''}strings"
            ok = isinstance(items, list) and all(
                isinstance(s, str) and (s.strip() or not self.non_empty) for s in items
            )
            if not ok or (n is not None and len(items) != n):
                self._fail(node, requirement, value)
            return list(items)
        requirement = ("a list of" if n is None else str(n)) + " finite numbers"
        if self.bounds_text():
            requirement += " " + self.bounds_text()
        requirement += self._unit() + (f" (one per {self.length_of} entry)" if self.length_of else "")
        ok = isinstance(items, list) and all(_is_number(x) and math.isfinite(x) and self._in_bounds(x) for x in items)
        if not ok or (n is not None and len(items) != n):
            self._fail(node, requirement, value)
        return [float(x) for x in items]

    # ------------------------------------------------------------------ ROS
    def ros_default(self):
        """The default as rclpy declares it (an empty array cannot carry its type: None, unset)."""
        if self.type in ARRAYS and not self.default:
            return None
        return list(self.default) if self.type in ARRAYS else self.default

    def descriptor(self, constraints: bool = True):
        """rcl_interfaces ParameterDescriptor: description (with the unit), the valid values as
        additional_constraints, dynamic typing (a double accepts an integer value; the table
        checks the type), and with `constraints` the ROS range (closed: ROS ranges cannot exclude
        a bound, the table does) and read_only for start-only parameters."""
        from rcl_interfaces.msg import FloatingPointRange, IntegerRange, ParameterDescriptor

        text = self.description + (f" [{self.unit}]" if self.unit else "")
        extra = [self.valid_values()] if self.valid_values() else []
        extra.append("may change at run time" if self.dynamic else "read at start only; restart the node to change it")
        d = ParameterDescriptor(
            name=self.name, description=text, additional_constraints="; ".join(extra), dynamic_typing=True
        )
        if not constraints:
            return d
        d.read_only = not self.dynamic
        lo, hi = self.minimum, self.maximum
        if self.type == "double" and (lo is not None or hi is not None):
            d.floating_point_range = [
                FloatingPointRange(
                    from_value=-math.inf if lo is None else float(lo),
                    to_value=math.inf if hi is None else float(hi),
                    step=0.0,
                )
            ]
        if self.type == "int" and (lo is not None or hi is not None):
            big = 2**63 - 1
            from_value = -big - 1 if lo is None else int(math.floor(lo)) + (1 if self.exclusive_minimum else 0)
            to_value = big if hi is None else int(math.ceil(hi)) - (1 if self.exclusive_maximum else 0)
            d.integer_range = [IntegerRange(from_value=from_value, to_value=to_value, step=1)]
        return d

    # ------------------------------------------------------------------ docs
    def markdown_row(self) -> str:
        """The docs/ros.md table row of this parameter."""

        def cell(text: str) -> str:
            return text.replace("|", "\\|").replace("\n", " ")

        if self.type in ARRAYS:
            items = [f'"{s}"' if self.type == "string_array" else _number_text(s) for s in self.default]
            default = "[" + ", ".join(items) + "]"
        elif self.type == "string":
            default = f'"{self.default}"' if self.default == "" else str(self.default)
        elif self.type == "bool":
            default = "true" if self.default else "false"
        else:
            default = _number_text(self.default)
        type_text = {"string_array": "string[]", "double_array": "double[]"}.get(self.type, self.type)
        if self.length is not None:
            type_text = f"double[{self.length}]" if self.type == "double_array" else f"string[{self.length}]"
        valid = self.valid_values(code="`")
        return (
            f"| `{self.name}` | {type_text} | `{default}` | {self.unit or ''} | {cell(valid)} | "
            f"{'dynamic' if self.dynamic else 'start only'} | {cell(self.description)} |"
        )


class ParameterTable:
    """The parameters of one node, in declaration order (see the module docstring)."""

    def __init__(self, node: str, parameters: Sequence[Parameter]):
        self.node = node
        self.parameters = tuple(parameters)
        seen: dict[str, Parameter] = {}
        for p in self.parameters:
            if p.name in seen:
                raise ValueError(f"parameter table '{node}': parameter '{p.name}' is listed twice")
            if p.length_of and (p.length_of not in seen or seen[p.length_of].type not in ARRAYS):
                raise ValueError(
                    f"parameter table '{node}': parameter '{p.name}': length_of must name an earlier "
                    f"array parameter; value {p.length_of!r}"
                )
            seen[p.name] = p
        self._by_name = seen
        self._defaults = self.validate({})  # a table whose defaults break its own rules is a bug

    def __iter__(self):
        return iter(self.parameters)

    def __len__(self) -> int:
        return len(self.parameters)

    def __getitem__(self, name: str) -> Parameter:
        return self._by_name[name]

    def __contains__(self, name) -> bool:
        return name in self._by_name

    @property
    def names(self) -> list[str]:
        """Parameter names in declaration order."""
        return [p.name for p in self.parameters]

    @property
    def dynamic_names(self) -> list[str]:
        """Names of the parameters that may change at run time."""
        return [p.name for p in self.parameters if p.dynamic]

    def defaults(self) -> dict:
        """The checked default values (a copy)."""
        return {k: list(v) if isinstance(v, list) else v for k, v in self._defaults.items()}

    # ------------------------------------------------------------------ validation
    def validate(self, raw: Mapping) -> dict:
        """Check every parameter's value (`raw[name]`, the default where absent) -> plain dict;
        `ConfigError` naming the node, the parameter and the value."""
        values: dict = {}
        for p in self.parameters:
            values[p.name] = p.check(raw.get(p.name, p.default), self.node, values)
        return values

    def validate_change(self, changes: Mapping, current: Mapping) -> dict:
        """Check a run-time change (name -> new value) against the `current` values -> the
        updates (plain values). A start-only parameter, or a value breaking its rule, raises
        `ConfigError`. Names outside the table (e.g. rclpy's use_sim_time) are not ours: ignored."""
        updates: dict = {}
        values = {**current}
        for name, value in changes.items():
            if name not in self._by_name:
                continue
            p = self._by_name[name]
            if not p.dynamic:
                dynamic = ", ".join(self.dynamic_names) or "none"
                raise ConfigError(
                    f"node '{self.node}': parameter {name} is read at start only (dynamic: {dynamic}); restart the node"
                )
            updates[name] = values[name] = p.check(value, self.node, values)
        return updates

    # ------------------------------------------------------------------ rclpy
    def declare(self, node) -> dict:
        """Declare every parameter on the rclpy `node` (overrides from the command line, a
        parameter file or `parameter_overrides` apply), check the values, then attach each
        descriptor's ROS range and read-only flag. Returns the checked values; raises
        `ConfigError` on the first bad one."""
        for p in self.parameters:
            node.declare_parameter(p.name, p.ros_default(), p.descriptor(constraints=False))
        values = self.validate({p.name: node.get_parameter(p.name).value for p in self.parameters})
        for p in self.parameters:  # checked first, so that our wording, not rclpy's, reports a bad value
            node.set_descriptor(p.name, p.descriptor())
        return values

    def on_set_parameters(self, current: Callable[[], Mapping], apply: Callable[[dict], None]):
        """A callback for ``node.add_on_set_parameters_callback``: checks a change with
        `validate_change` against ``current()`` and, when accepted, calls ``apply(updates)``
        before rclpy stores the new values. A refusal's reason is the ConfigError message."""
        from rcl_interfaces.msg import SetParametersResult

        def callback(params):
            try:
                updates = self.validate_change({prm.name: prm.value for prm in params}, current())
            except ConfigError as exc:
                return SetParametersResult(successful=False, reason=str(exc))
            if updates:
                apply(updates)
            return SetParametersResult(successful=True)

        return callback

    # ------------------------------------------------------------------ docs
    def markdown(self) -> str:
        """The docs/ros.md table of this node (header and one row per parameter)."""
        return _HEADER + "".join(p.markdown_row() + "\n" for p in self.parameters)


# ---------------------------------------------------------------------- docs generation
def load_table(node: str) -> ParameterTable:
    """The table of a node registered in `TABLES`."""
    if node not in TABLES:
        raise ConfigError(f"parameters: unknown node '{node}'; tables: {', '.join(TABLES)}")
    module, _, attribute = TABLES[node].partition(":")
    return getattr(importlib.import_module(module), attribute)


def update_docs(text: str) -> str:
    """`text` with every ``<!-- parameters: NODE -->`` block replaced by NODE's generated table."""
    return _BLOCK.sub(lambda m: m.group(1) + load_table(m.group("node")).markdown() + m.group(4), text)


def documented_nodes(text: str) -> list[str]:
    """Node names of the parameter blocks in `text`, in order."""
    return [m.group("node") for m in _BLOCK.finditer(text)]


def main(argv=None) -> int:
    """``python -m humanoid_ros.parameters --write docs/ros.md`` (or ``--check``)."""
    parser = argparse.ArgumentParser(prog="python -m humanoid_ros.parameters", description=main.__doc__)
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", metavar="FILE", help="regenerate the parameter tables of FILE in place")
    mode.add_argument("--check", metavar="FILE", help="exit 1 when FILE's parameter tables are out of date")
    args = parser.parse_args(argv)
    from humanoid_model.files import read_text, write_text

    path = Path(args.write or args.check)
    try:
        text = read_text(path, "docs file", ConfigError)
        new = update_docs(text)
        if args.write and new != text:
            write_text(path, new, "docs file", ConfigError)
    except ConfigError as exc:
        print(f"python -m humanoid_ros.parameters: error: {exc}", file=sys.stderr)
        return 2
    if args.write:
        state = "updated" if new != text else "up to date"
        print(f"{path}: parameter tables of {', '.join(documented_nodes(text))} {state}")
        return 0
    if new != text:
        print(f"{path}: parameter tables are out of date; run: {DOCS_COMMAND}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
