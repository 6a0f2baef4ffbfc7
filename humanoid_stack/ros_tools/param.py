"""`ros param get|set|list`: a node's parameters through its parameter services
(rcl_interfaces), as `ros2 param` reaches them."""

from __future__ import annotations

import yaml
from rcl_interfaces.msg import Parameter as ParameterMsg
from rcl_interfaces.msg import ParameterType, ParameterValue
from rclpy.parameter import get_parameter_value, parameter_value_to_python
from rclpy.parameter_client import AsyncParameterClient

from humanoid_model.validation import did_you_mean
from humanoid_stack.exceptions import RosToolError
from humanoid_stack.ros_tools.graph import node_names
from humanoid_stack.ros_tools.session import RosSession

__all__ = ["get", "set_", "list_", "value_for"]

#: how `ros2 param get` names each type ("Double value is: 0.5", "String values are: [...]")
TYPE_WORDS = {
    ParameterType.PARAMETER_BOOL: "Boolean value is",
    ParameterType.PARAMETER_INTEGER: "Integer value is",
    ParameterType.PARAMETER_DOUBLE: "Double value is",
    ParameterType.PARAMETER_STRING: "String value is",
    ParameterType.PARAMETER_BYTE_ARRAY: "Byte values are",
    ParameterType.PARAMETER_BOOL_ARRAY: "Boolean values are",
    ParameterType.PARAMETER_INTEGER_ARRAY: "Integer values are",
    ParameterType.PARAMETER_DOUBLE_ARRAY: "Double values are",
    ParameterType.PARAMETER_STRING_ARRAY: "String values are",
}
_TYPE_NAMES = {
    ParameterType.PARAMETER_NOT_SET: "not set",
    ParameterType.PARAMETER_BOOL: "a bool",
    ParameterType.PARAMETER_INTEGER: "an integer",
    ParameterType.PARAMETER_DOUBLE: "a double",
    ParameterType.PARAMETER_STRING: "a string",
    ParameterType.PARAMETER_BYTE_ARRAY: "a byte array",
    ParameterType.PARAMETER_BOOL_ARRAY: "a bool array",
    ParameterType.PARAMETER_INTEGER_ARRAY: "an integer array",
    ParameterType.PARAMETER_DOUBLE_ARRAY: "a double array",
    ParameterType.PARAMETER_STRING_ARRAY: "a string array",
}
_ARRAYS = {
    ParameterType.PARAMETER_BYTE_ARRAY: "byte_array_value",
    ParameterType.PARAMETER_BOOL_ARRAY: "bool_array_value",
    ParameterType.PARAMETER_INTEGER_ARRAY: "integer_array_value",
    ParameterType.PARAMETER_DOUBLE_ARRAY: "double_array_value",
    ParameterType.PARAMETER_STRING_ARRAY: "string_array_value",
}


def _client(ros: RosSession, node: str, timeout: float) -> AsyncParameterClient:
    client = AsyncParameterClient(ros.node, node)
    ros.wait_until(
        client.services_are_ready,
        timeout,
        f"node {node}: no parameter services after {timeout:g} s (is it running? humanoid-stack ros node list)",
    )
    return client


def _call(ros: RosSession, future, node: str, what: str, timeout: float):
    return ros.wait_future(future, timeout, f"node {node}: no answer to {what} after {timeout:g} s")


def _current(ros, client, node, name, timeout) -> ParameterValue:
    """The value of ``name`` on ``node``; `RosToolError` when the node has no such parameter."""
    values = _call(ros, client.get_parameters([name]), node, "get_parameters", timeout).values
    value = values[0] if values else ParameterValue()  # no value: not declared (a node refusing undeclared ones)
    if value.type == ParameterType.PARAMETER_NOT_SET:
        names = _call(ros, client.list_parameters(), node, "list_parameters", timeout).result.names
        raise RosToolError(f"node {node}: no parameter '{name}'{did_you_mean(name, names)}")
    return value


def value_for(text: str, current: int = ParameterType.PARAMETER_NOT_SET) -> ParameterValue:
    """The parameter value of the command-line ``text``, read as YAML as `ros2 param set` reads it
    (0.5: double, 3: integer, true: bool, [1, 2]: integer array, anything else: string). Given the
    parameter's ``current`` type, an integer becomes a double and an empty list takes the array
    type, as the node declared them."""
    try:
        value = get_parameter_value(text)
    except yaml.YAMLError:  # not YAML: the text itself, as a string
        value = ParameterValue(type=ParameterType.PARAMETER_STRING, string_value=text)
    except (AssertionError, TypeError):  # a mapping or another YAML node no parameter type holds
        raise RosToolError(
            f"parameter value must be a bool, a number, a string or a list of one of them; value {text!r}"
        ) from None
    integers = {ParameterType.PARAMETER_INTEGER, ParameterType.PARAMETER_INTEGER_ARRAY}
    if current == ParameterType.PARAMETER_DOUBLE and value.type == ParameterType.PARAMETER_INTEGER:
        return ParameterValue(type=current, double_value=float(value.integer_value))
    if current == ParameterType.PARAMETER_DOUBLE_ARRAY and value.type in integers | set(_ARRAYS):
        items = parameter_value_to_python(value)
        if isinstance(items, list) and all(isinstance(v, int) and not isinstance(v, bool) for v in items):
            return ParameterValue(type=current, double_array_value=[float(v) for v in items])
    if current in _ARRAYS and value.type in _ARRAYS and not parameter_value_to_python(value):
        return ParameterValue(type=current)  # [] of the declared array type
    return value


def get(args) -> int:
    with RosSession() as ros:
        client = _client(ros, args.node, args.timeout)
        value = _current(ros, client, args.node, args.name, args.timeout)
    print(f"{TYPE_WORDS[value.type]}: {parameter_value_to_python(value)}")
    return 0


def set_(args) -> int:
    with RosSession() as ros:
        client = _client(ros, args.node, args.timeout)
        current = _current(ros, client, args.node, args.name, args.timeout)
        msg = ParameterMsg(name=args.name, value=value_for(args.value, current.type))
        result = _call(ros, client.set_parameters([msg]), args.node, "set_parameters", args.timeout).results[0]
    if not result.successful:
        reason = " ".join(result.reason.split()) or "no reason given"
        if msg.value.type != current.type:
            reason += f" (the parameter is {_TYPE_NAMES[current.type]}; {args.value!r} reads as "
            reason += f"{_TYPE_NAMES[msg.value.type]})"
        raise RosToolError(f"node {args.node}: setting {args.name} to {args.value!r} refused: {reason}")
    print("Set parameter successful")
    return 0


def _names(ros, node, timeout) -> list[str]:
    client = _client(ros, node, timeout)
    return sorted(_call(ros, client.list_parameters(), node, "list_parameters", timeout).result.names)


def list_(args) -> int:
    with RosSession() as ros:
        if args.node:
            for name in _names(ros, args.node, args.timeout):
                print(f"  {name}")
            return 0
        ros.spin_for(args.spin_time)
        for node in node_names(ros):
            print(f"{node}:")
            for name in _names(ros, node, args.timeout):
                print(f"  {name}")
    return 0
