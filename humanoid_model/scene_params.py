"""Scene parameters: ``params:`` mapping, ``${...}`` expressions, ``--set`` overrides.

A scene file may declare named numbers under a top-level ``params:`` mapping (nested mappings
allowed) and refer to them anywhere else with a string that is one whole expression::

    params:
      incline: {angle_deg: 20}
    bodies:
      - {name: slope, shape: plane, pose: {rpy_deg: [0, "${-incline.angle_deg}", 0]}}

An expression is Python-like arithmetic on numbers and dotted parameter names: ``+ - * / // %
**``, unary minus, parentheses, the constant ``pi`` and the functions in `FUNCTIONS`. A parameter
may itself be an expression of other parameters (cycles are an error).

Overrides (``--set PATH=VALUE`` on the command line, or the ``overrides`` dict of
`load_scene`) change a parameter (``incline.angle_deg=25``) or, when PATH is not a parameter,
any number in the document by its dotted path: ``free_bodies.0.mass=2`` (list items by index or
by their ``name``: ``free_bodies.box.mass=2``). Values are numbers or lists of numbers.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Iterable, Mapping
from typing import Any

from humanoid_model.exceptions import SceneOverrideError
from humanoid_model.validation import did_you_mean

FUNCTIONS = {
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "atan2": math.atan2,
    "sqrt": math.sqrt,
    "radians": math.radians,
    "degrees": math.degrees,
    "abs": abs,
    "min": min,
    "max": max,
    "floor": math.floor,
    "ceil": math.ceil,
    "round": round,
}
CONSTANTS = {"pi": math.pi}
# Bounds on what a scene document may make the loader do (without them, `${10**10**10}` hangs,
# `${10**100000 // 3}` raises OverflowError, a 639-byte YAML alias bomb under params takes 92 s and
# 5 GB). Chosen: far beyond any real scene (the largest shipped one has 31 parameters and about
# 400 values), small enough to answer in well under a second.
MAX_MAGNITUDE = 1e308  # [-] an intermediate of an expression beyond this is refused (float range)
MAX_EXPRESSION = 1000  # [characters] of one ${...} expression
MAX_PARAMS = 10_000  # parameters after flattening (aliases expanded)
MAX_VALUES = 100_000  # values visited when resolving the document (aliases expanded)


def _bounded(value):
    """``value`` when an int or float of magnitude ≤ MAX_MAGNITUDE, else OverflowError."""
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > MAX_MAGNITUDE:
        raise OverflowError(f"an intermediate value exceeds {MAX_MAGNITUDE:g}")
    return value


def _power(base, exponent):
    """``base ** exponent`` with a bounded cost: an integer power whose result would exceed
    MAX_MAGNITUDE is refused before it is computed (10**10**10 would take hours)."""
    ints = isinstance(base, int) and isinstance(exponent, int)
    if ints and abs(base) > 1 and exponent > 0 and exponent * math.log10(abs(base)) > math.log10(MAX_MAGNITUDE):
        raise OverflowError(f"{base} ** {exponent} exceeds {MAX_MAGNITUDE:g}")
    return base**exponent


_BINOPS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.FloorDiv: operator.floordiv,
    ast.Mod: operator.mod,
    ast.Pow: _power,
}
_UNOPS = {ast.USub: operator.neg, ast.UAdd: operator.pos}


def is_number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def is_expression(value) -> bool:
    return isinstance(value, str) and value.strip().startswith("${") and value.strip().endswith("}")


def flatten_params(params: Mapping, prefix: str = "", _flat: dict | None = None) -> dict[str, Any]:
    """{'a': {'b': 1}} -> {'a.b': 1}; OverflowError beyond MAX_PARAMS (an alias bomb)."""
    flat = {} if _flat is None else _flat
    for key, value in params.items():
        name = f"{prefix}{key}"
        if isinstance(value, Mapping):
            flatten_params(value, name + ".", flat)
        else:
            flat[name] = value
            if len(flat) > MAX_PARAMS:
                raise OverflowError(f"more than {MAX_PARAMS} parameters (YAML aliases that expand?)")
    return flat


class ParamResolver:
    """Evaluates ``${...}`` expressions against a scene's parameters (lazily, cycle-checked)."""

    def __init__(self, params: Mapping, fail):
        """``fail(field, value, problem)`` raises the scene's error (it names the file)."""
        try:
            self.raw = flatten_params(params)
        except OverflowError as exc:
            fail("params", f"{type(params).__name__} of {len(params)} entries", str(exc))
        self.values: dict[str, float] = {}
        self._visited = 0
        self._stack: list[str] = []
        self._fail = fail
        for name, value in self.raw.items():
            if not (is_number(value) or is_expression(value)):
                fail(f"params.{name}", value, "a parameter must be a finite number or a ${...} expression")

    def param(self, name: str, where: str) -> float:
        if name in self.values:
            return self.values[name]
        if name not in self.raw:
            known = ", ".join(sorted(self.raw)) or "none"
            self._fail(where, name, f"unknown parameter '{name}' (parameters: {known})")
        if name in self._stack:
            self._fail(
                f"params.{name}",
                self.raw[name],
                "parameters refer to each other in a cycle: " + " -> ".join(self._stack + [name]),
            )
        self._stack.append(name)
        try:
            value = self.raw[name]
            value = self.evaluate(value, f"params.{name}") if is_expression(value) else value
        finally:
            self._stack.pop()
        self.values[name] = value
        return value

    def evaluate(self, text: str, where: str) -> float:
        """Value of the expression string ``${...}`` found at field ``where``."""
        expr = text.strip()[2:-1].strip()
        if len(expr) > MAX_EXPRESSION:
            self._fail(where, text, f"an expression is at most {MAX_EXPRESSION} characters")
        try:
            tree = ast.parse(expr, mode="eval")
        except (SyntaxError, RecursionError, MemoryError):
            self._fail(where, text, "not a valid expression")
        try:
            value = self._eval(tree.body, text, where)
        except (ArithmeticError, ValueError, TypeError, RecursionError) as exc:
            self._fail(where, text, f"cannot evaluate ({exc})")
        if not is_number(value):
            self._fail(where, text, f"evaluates to {value!r}, not a finite number")
        return value

    def _dotted(self, node) -> str:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return self._dotted(node.value) + "." + node.attr
        raise TypeError("not a name")

    def _eval(self, node, text, where):
        if isinstance(node, ast.Constant) and is_number(node.value):
            return _bounded(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _BINOPS:
            left, right = self._eval(node.left, text, where), self._eval(node.right, text, where)
            return _bounded(_BINOPS[type(node.op)](left, right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _UNOPS:
            return _UNOPS[type(node.op)](self._eval(node.operand, text, where))
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = self._dotted(node)
            if name in CONSTANTS and name not in self.raw:
                return CONSTANTS[name]
            return self.param(name, where)
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in FUNCTIONS
            and not node.keywords
        ):
            return _bounded(FUNCTIONS[node.func.id](*(self._eval(a, text, where) for a in node.args)))
        self._fail(
            where,
            text,
            f"unsupported element '{ast.unparse(node)}' in expression "
            f"(numbers, parameter names, + - * / // % **, {', '.join(FUNCTIONS)})",
        )

    def resolve(self, doc, where: str = ""):
        """Copy of ``doc`` (YAML data) with every ``${...}`` string replaced by its value."""
        self._visited += 1
        if self._visited > MAX_VALUES:
            self._fail(
                where or "(top level)", "...", f"the document expands to more than {MAX_VALUES} values (YAML aliases?)"
            )
        if isinstance(doc, Mapping):
            return {k: self.resolve(v, f"{where}.{k}" if where else str(k)) for k, v in doc.items()}
        if isinstance(doc, list):
            return [self.resolve(v, f"{where}[{i}]") for i, v in enumerate(doc)]
        if is_expression(doc):
            return self.evaluate(doc, where)
        if isinstance(doc, str) and "${" in doc:
            self._fail(where, doc, "a ${...} expression must be the whole value")
        return doc


# ------------------------------------------------------------------------------ overrides
def _override_value(path: str, value, source: str):
    if is_number(value):
        return value
    if isinstance(value, list) and value and all(is_number(v) for v in value):
        return list(value)
    raise SceneOverrideError(
        f"{source}: --set {path}={value}: value {value!r} is not numeric "
        f"(a finite number or a list of numbers, e.g. {path}=1.5)"
    )


def _parse_number(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _parse_value(text: str):
    """'25' -> 25, '1e-3' -> 0.001, '[0, 0, -1.62]' -> [0, 0, -1.62]; anything else unchanged."""
    text = text.strip()
    if text.startswith("[") and text.endswith("]"):
        items = [t.strip() for t in text[1:-1].split(",")]
        return [_parse_number(t) for t in items] if all(items) else text
    return _parse_number(text)


def parse_set_args(items: Iterable[str]) -> dict[str, Any]:
    """Parse ``["a.b=1", "gravity=[0,0,-1.62]"]`` (the CLI's ``--set`` values) into
    ``{"a.b": 1, "gravity": [0, 0, -1.62]}``. Raises `SceneOverrideError` for a missing ``=``,
    an empty path or a non-numeric value."""
    out: dict[str, Any] = {}
    for item in items or ():
        if "=" not in str(item):
            raise SceneOverrideError(f"command line: --set {item!r}: expected PATH=VALUE, e.g. incline.angle_deg=25")
        path, text = (s.strip() for s in str(item).split("=", 1))
        if not path or any(not part for part in path.split(".")):
            raise SceneOverrideError(f"command line: --set {item!r}: empty or malformed path '{path}'")
        out[path] = _override_value(path, _parse_value(text), "command line")
    return out


def apply_overrides(doc: dict, overrides: Mapping[str, Any], source: str) -> dict:
    """Apply ``overrides`` in place to the raw YAML ``doc`` (see module docstring); ``source``
    names the scene file in error messages. Returns ``doc``."""
    if not overrides:
        return doc
    params = doc.get("params") or {}
    try:
        flat = flatten_params(params) if isinstance(params, Mapping) else {}
    except OverflowError as exc:
        raise SceneOverrideError(f"{source}: field 'params': {exc}") from None
    for path, value in overrides.items():
        path = str(path)
        value = _override_value(path, value, source)
        parts = path.split(".")
        if path in flat:
            node = params
            for p in parts[:-1]:
                node = node[p]
            node[parts[-1]] = value
            continue
        if parts[0] == "params":
            node = params
            target = ".".join(parts[1:])
            if target in flat:
                for p in parts[1:-1]:
                    node = node[p]
                node[parts[-1]] = value
                continue
        if parts[0] != "params" and parts[0] in doc:
            _set_document_path(doc, parts, value, path, source, flat)
            continue
        raise SceneOverrideError(_bad_path(path, source, flat, doc))
    return doc


def _bad_path(path: str, source: str, flat: Mapping, doc: Mapping) -> str:
    names = sorted(flat)
    return (
        f"{source}: --set {path}: no such parameter or field{did_you_mean(path, names)}"
        + f"; parameters: {', '.join(names) or 'none'}; top-level fields: "
        + ", ".join(k for k in doc if k != "params")
    )


def _set_document_path(doc, parts: list[str], value, path: str, source: str, flat) -> None:
    node = doc
    for _depth, part in enumerate(parts[:-1]):
        if isinstance(node, Mapping) and part in node:
            node = node[part]
        elif isinstance(node, list):
            node = _list_item(node, part, path, source, flat, doc)
        else:
            raise SceneOverrideError(_bad_path(path, source, flat, doc))
    last = parts[-1]
    if isinstance(node, dict):
        node[last] = value  # a new key is checked later by the schema (unknown field)
    elif isinstance(node, list):
        idx = _list_index(node, last, path, source, flat, doc)
        node[idx] = value
    else:
        raise SceneOverrideError(_bad_path(path, source, flat, doc))


def _list_index(node: list, part: str, path, source, flat, doc) -> int:
    if part.lstrip("-").isdigit() and -len(node) <= int(part) < len(node):
        return int(part)
    for i, item in enumerate(node):
        if isinstance(item, Mapping) and str(item.get("name")) == part:
            return i
    raise SceneOverrideError(_bad_path(path, source, flat, doc))


def _list_item(node: list, part: str, path, source, flat, doc):
    return node[_list_index(node, part, path, source, flat, doc)]
