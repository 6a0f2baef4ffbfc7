"""ROS 2 interface types by name, messages filled from YAML and printed as YAML (the `humanoid-stack
ros` commands; what `rosidl_runtime_py` does for the ros2 CLI, which PyPI does not have).

    cls = interface_type("geometry_msgs/msg/Twist", "msg")
    msg = set_fields(cls(), parse_values("{linear: {x: 0.5}}"))
    print(to_yaml(msg))

A type is ``pkg/msg/Name`` (``pkg/srv/Name``, ``pkg/action/Name``) or ``pkg/Name``, imported with
importlib. `set_fields` fills a message from a dict recursively by field name, converting each
value to its field's type (an integer to a double, a list to a sequence or an array); an unknown
field or a value of the wrong type raises `RosToolError` naming the field's path
(``pose.position.x``). Every failure is one line.
"""

from __future__ import annotations

import importlib
import math
import re

from humanoid_model.documents import parse_text
from humanoid_model.validation import did_you_mean, message
from humanoid_stack.exceptions import RosToolError

__all__ = ["KINDS", "interface_type", "parse_values", "set_fields", "to_dict", "to_yaml", "type_name"]

#: what each kind of interface is called in messages, by its folder in a type name
KINDS = {"msg": "message", "srv": "service", "action": "action"}
_ARTICLES = {"msg": "a", "srv": "a", "action": "an"}

_NAME = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)/(?:(msg|srv|action)/)?([A-Z][A-Za-z0-9]*)$")
_INTEGERS = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "int64": (-(2**63), 2**63 - 1),
    "uint8": (0, 2**8 - 1),
    "uint16": (0, 2**16 - 1),
    "uint32": (0, 2**32 - 1),
    "uint64": (0, 2**64 - 1),
    "char": (0, 2**8 - 1),
    "byte": (0, 2**8 - 1),
}
_FLOATS = {"float": 3.4028234663852886e38, "double": math.inf}  # largest finite magnitude (IEEE-754 binary32)
_SEQUENCE = re.compile(r"^sequence<(.+?)(?:,\s*(\d+))?>$")
_ARRAY = re.compile(r"^(.+)\[(\d+)\]$")
_STRING = re.compile(r"^w?string(?:<=(\d+))?$")


def interface_type(name: str, kind: str):
    """The class of the interface ``name`` (``pkg/KIND/Name`` or ``pkg/Name``) of ``kind`` ("msg",
    "srv" or "action"), imported from ``pkg.KIND``; `RosToolError` when the name is malformed, of
    another kind, or names nothing importable."""
    match = _NAME.match(str(name))
    what = KINDS[kind]
    if not match:
        raise RosToolError(f"{what} type '{name}' must be written pkg/{kind}/Name (e.g. std_msgs/{kind}/String)")
    package, folder, type_name = match.groups()
    if folder and folder != kind:
        raise RosToolError(
            f"'{name}' is {_ARTICLES[folder]} {KINDS[folder]} type, not {_ARTICLES[kind]} {what} type (pkg/{kind}/Name)"
        )
    try:
        module = importlib.import_module(f"{package}.{kind}")
    except ImportError:
        raise RosToolError(f"unknown {what} type '{name}': no Python package '{package}.{kind}' is installed") from None
    cls = getattr(module, type_name, None)
    if not isinstance(cls, type):
        raise RosToolError(f"unknown {what} type '{name}': '{package}.{kind}' has no '{type_name}'")
    return cls


def parse_values(text: str | None, source: str = "values"):
    """The YAML mapping ``text`` (``"{linear: {x: 0.5}}"``; None or empty: no field set) as a dict;
    `RosToolError` when it is not YAML or not a mapping."""
    if text is None or not str(text).strip():
        return {}
    values = parse_text(str(text), "YAML", source, "message", RosToolError)
    if values is None:
        return {}
    if not isinstance(values, dict):
        raise RosToolError(f"{source}: must be a YAML mapping of field names, like '{{data: 1}}'; value {text!r}")
    return values


def _message_class(type_name: str):
    package, _, name = type_name.partition("/")
    name = name.rsplit("/", 1)[-1]
    return getattr(importlib.import_module(f"{package}.msg"), name)


def _fail(source, path, requirement, value):
    raise RosToolError(message(source, path, requirement, value))


def _scalar(type_name: str, value, source: str, path: str):
    """``value`` converted to the primitive ROS type ``type_name`` (a field of path ``path``)."""
    if type_name == "boolean":
        if not isinstance(value, bool):
            _fail(source, path, "true or false", value)
        return value
    if type_name in _INTEGERS:
        lo, hi = _INTEGERS[type_name]
        if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
            _fail(source, path, f"an integer in [{lo}, {hi}] ({type_name})", value)
        return value
    if type_name == "octet":
        if isinstance(value, bytes) and len(value) == 1:
            return value
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 255:
            _fail(source, path, "an integer in [0, 255] (octet)", value)
        return bytes([value])
    if type_name in _FLOATS:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            _fail(source, path, f"a number ({type_name})", value)
        value = float(value)
        if math.isfinite(value) and abs(value) > _FLOATS[type_name]:
            _fail(source, path, f"a number within the range of a {type_name}", value)
        return value
    bound = _STRING.match(type_name)
    if bound:
        if not isinstance(value, str):
            _fail(source, path, "a string", value)
        if bound.group(1) and len(value) > int(bound.group(1)):
            _fail(source, path, f"a string of at most {bound.group(1)} characters", value)
        return value
    raise RosToolError(f"{source}: field '{path}' has the type '{type_name}', which this command cannot fill")


def _value(type_name: str, value, source: str, path: str):
    """``value`` (from YAML) converted to the field type ``type_name`` (a string of
    `get_fields_and_field_types`)."""
    sequence, array = _SEQUENCE.match(type_name), _ARRAY.match(type_name)
    if sequence or array:
        item_type = (sequence or array).group(1)
        size = int((sequence or array).group(2) or 0)
        if not isinstance(value, (list, tuple)):
            _fail(source, path, f"a list ({type_name})", value)
        if array and len(value) != size:
            _fail(source, path, f"a list of {size} values ({type_name})", value)
        if sequence and size and len(value) > size:
            _fail(source, path, f"a list of at most {size} values ({type_name})", value)
        return [_value(item_type, item, source, f"{path}[{i}]") for i, item in enumerate(value)]
    if "/" in type_name:
        if not isinstance(value, dict):
            _fail(source, path, f"a mapping of the fields of {type_name}", value)
        return set_fields(_message_class(type_name)(), value, source, f"{path}.")
    return _scalar(type_name, value, source, path)


def set_fields(msg, values: dict, source: str = "values", prefix: str = ""):
    """``msg`` (a ROS message, request or goal instance) with the fields of the dict ``values`` set,
    recursively by field name, each converted to its field's type; returns ``msg``. `RosToolError`
    naming the field's path for an unknown field or a value of the wrong type."""
    fields = msg.get_fields_and_field_types()
    if not isinstance(values, dict):
        _fail(source, prefix.rstrip(".") or "values", "a mapping of field names", values)
    for name, value in values.items():
        path = f"{prefix}{name}"
        if name not in fields:
            known = ", ".join(fields) or "none"
            raise RosToolError(
                f"{source}: unknown field '{path}' of {type_name(msg)}{did_you_mean(name, fields)} (fields: {known})"
            )
        converted = _value(fields[name], value, source, path)
        try:
            setattr(msg, name, converted)
        except (AssertionError, TypeError, ValueError) as exc:  # what rosidl's own setter checks
            detail = " ".join(str(exc).split()) or type(exc).__name__
            raise RosToolError(f"{source}: field '{path}': {detail}; value {value!r}") from None
    return msg


def type_name(cls) -> str:
    """``pkg/KIND/Name`` of an interface class or of a message instance (as the graph names types)."""
    cls = cls if isinstance(cls, type) else type(cls)
    module = cls.__module__.split(".")
    return f"{module[0]}/{module[1]}/{cls.__name__}" if len(module) > 1 else cls.__name__


def to_dict(msg):
    """The plain Python value of a ROS message (a dict by field name, in the message's order) or of a
    field value: lists for sequences and arrays, ints for octets, so it prints as YAML."""
    if hasattr(msg, "get_fields_and_field_types"):
        return {name: to_dict(getattr(msg, name)) for name in msg.get_fields_and_field_types()}
    if isinstance(msg, bytes):
        return msg[0] if len(msg) == 1 else list(msg)
    if isinstance(msg, (str, bool, int, float)) or msg is None:
        return msg
    if hasattr(msg, "tolist"):  # numpy arrays (fixed-size arrays) and their scalars, array.array (sequences)
        return to_dict(msg.tolist())
    if isinstance(msg, (list, tuple)):
        return [to_dict(item) for item in msg]
    return msg


def to_yaml(msg) -> str:
    """A ROS message as block YAML (fields in the message's order), as `ros2 topic echo` prints it."""
    import yaml

    return yaml.safe_dump(to_dict(msg), sort_keys=False, default_flow_style=False, allow_unicode=True)
