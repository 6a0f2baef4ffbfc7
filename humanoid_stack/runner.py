"""Node-set runner: start the nodes of a ROS 2 parameter file in ONE process, without ros2 launch.

A parameter file (``config/NAME.yaml``) is an ordinary ROS 2 parameter file, loadable with
``--ros-args --params-file``. The set of nodes to start is a string-array parameter of a
pseudo-node ``humanoid_stack_up`` in the same file, so the file stays valid for rcl (a top-level
key holding a plain list is rejected by rcl's YAML parser)::

    humanoid_stack_up:
      ros__parameters:
        nodes: [state_publisher, viewer]      # names from NODE_CLASSES, or "module:Class"
    state_publisher:
      ros__parameters:
        robot: hrp2
    viewer:
      ros__parameters:
        port: 8080

The runner initialises rclpy with ``--ros-args --params-file FILE`` plus one
``-p NODE:PARAM:=VALUE`` per ``--set NODE.PARAM=VALUE`` override: exactly the parameters a launch
file would pass, applied by rcl when each node declares them. ``--namespace NS`` adds
``-r __ns:=/NS`` (every node of the set in NS) and reads a copy of FILE whose sections are the
namespaced nodes', with the overrides in it (`humanoid_stack.namespaces`); each
``--remap FROM:=TO`` adds ``-r FROM:=TO``. The nodes spin in a `MultiThreadedExecutor`; Ctrl-C
(SIGINT), SIGTERM or the end of ``duration`` stops them and returns 0.

Lifecycle (managed) nodes (the robot bridge) are configured and activated once every node is
constructed, in the order of the list (a failed transition stops the start with the node's reason,
exit 2), unless the node set's ``lifecycle`` (``humanoid_stack_up.ros__parameters.lifecycle``) or
``--lifecycle`` says ``inactive`` (configured only) or ``unconfigured``; their services then take
the transitions (`humanoid-stack lifecycle`). At the stop, while the executor still spins and the
context is valid (the runner handles SIGINT and SIGTERM itself, not rclpy), the active ones are
deactivated (the bridge stops and holds a motion in progress), then every managed node is shut
down, closed and destroyed.

Nothing here is imported by the libraries; rclpy is imported only inside `run_nodes`.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_stack.interruptible import wait_interruptibly

LIFECYCLE_STATES = ("active", "inactive", "unconfigured")
"""States `up` may leave its lifecycle nodes in (`humanoid_ros.lifecycle.STATES`, without importing rclpy)."""

UP_KEY = "humanoid_stack_up"
"""Top-level key (pseudo-node) of a parameter file whose ``nodes`` parameter lists the nodes to start."""

NODE_CLASSES = {
    "state_publisher": "humanoid_ros.state_publisher:StatePublisherNode",
    "viewer": "humanoid_ros.viewer:ViewerNode",
    "gait_generator": "humanoid_ros.gait_generator:GaitGeneratorNode",
    "simulator": "humanoid_ros.simulator:SimulatorNode",
    "robot_bridge": "humanoid_ros.robot_bridge:RobotBridgeNode",
    "pilot": "humanoid_ros.pilot:PilotNode",
    "contact_planner": "humanoid_ros.contact_planner:ContactPlannerNode",
}
"""Registered node classes: name in a ``nodes:`` list -> ``module:Class`` (the nodes live in
`humanoid_ros`, one module per node). Add new nodes here (and their executables to setup.py's
NODES). A ``nodes:`` entry may also be ``module:Class``."""

_PARAM_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


@dataclass
class NodeSet:
    """A parsed parameter file: which node classes to start, the rcl arguments to pass and the
    lifecycle state its managed nodes are brought to (`humanoid_ros.lifecycle.STATES`)."""

    path: Path
    nodes: list[str]  # entries of the nodes list
    parameters: dict  # the whole YAML mapping
    overrides: list[tuple[str, str, object]] = field(default_factory=list)  # (node, param, value)
    namespace: str = "/"  # absolute (`humanoid_stack.namespaces.check_namespace`); "/" = the root
    remaps: list[tuple[str, str]] = field(default_factory=list)  # ([NODE:]FROM, TO)
    lifecycle: str = "active"

    def ros_args(self, namespaced_file=None) -> list[str]:
        """rcl arguments: the parameter file, then the --set overrides (which win), the namespace
        and the remappings. In a namespace, ``namespaced_file`` is the parameter file's copy for it
        (`humanoid_stack.namespaces.namespaced_parameter_file`, the overrides written in)."""
        if self.namespace != "/":
            if namespaced_file is None:
                raise ValueError("a node set in a namespace reads the namespaced copy of its parameter file")
            args = ["--ros-args", "--params-file", str(namespaced_file), "-r", f"__ns:={self.namespace}"]
        else:
            args = ["--ros-args", "--params-file", str(self.path)]
            for node, param, value in self.overrides:
                args += ["-p", f"{node}:{param}:={_yaml_scalar(value)}"]
        for source, target in self.remaps:
            args += ["-r", f"{source}:={target}"]
        return args


def add_run_options(parser, set_help: str = "override one node parameter (VALUE read as YAML); repeatable"):
    """The options every node-set command shares: ``--duration S`` and repeatable ``--set NODE.PARAM=VALUE``."""
    parser.add_argument(
        "--duration", type=float, default=None, metavar="S", help="stop after S seconds [s] (default: run until Ctrl-C)"
    )
    parser.add_argument("--set", dest="sets", action="append", default=[], metavar="NODE.PARAM=VALUE", help=set_help)
    parser.add_argument(
        "--lifecycle",
        choices=LIFECYCLE_STATES,
        default=None,
        help="the state the lifecycle nodes (robot_bridge) are brought to at the start: active (default, or the "
        "node set's humanoid_stack_up.lifecycle), inactive (configured: it refuses motions until activated) or "
        "unconfigured; 'humanoid-stack lifecycle NODE TRANSITION' then drives them",
    )


def check_duration(duration: float | None) -> None:
    """ConfigError unless ``duration`` is None (run until Ctrl-C) or > 0 [s]."""
    if duration is not None and not duration > 0:
        raise ConfigError(f"--duration must be > 0 [s], got {duration}")


def _yaml_scalar(value) -> str:
    text = yaml.safe_dump(value, default_flow_style=True).strip()
    return text[:-4].strip() if text.endswith("\n...") else text.removesuffix("...").strip()


def resolve_params_file(name_or_path: str) -> Path:
    """An existing parameter file, else ``config/NAME.yaml`` of a shipped node set (rule of
    `humanoid_model.paths.resolve`); ConfigError when neither."""
    from humanoid_model.paths import config_dir, resolve, shipped_files

    return resolve(
        name_or_path,
        shipped_files(config_dir(), ".yaml"),
        "node set",
        (".yaml", ".yml"),
        ConfigError,
        file_kind="parameter file",
    )


def load_node_set(
    name_or_path: str, sets: list[str] | None = None, namespace: str = "", remaps: list[str] | None = None
) -> NodeSet:
    """Read and check a parameter file, the ``--set NODE.PARAM=VALUE`` overrides, the
    ``--namespace`` and the ``--remap FROM:=TO`` rules (`humanoid_stack.namespaces`)."""
    from humanoid_model.yaml_file import read_yaml
    from humanoid_stack.namespaces import check_namespace, check_remap

    namespace = check_namespace(namespace)
    remap_rules = [check_remap(r) for r in remaps or []]

    path = resolve_params_file(name_or_path)
    data = read_yaml(path, "parameter file", ConfigError)
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping 'node_name: {{ros__parameters: ...}}' at the top level")
    for key, value in data.items():
        if not _has_parameters(value):
            raise ConfigError(f"{path}: top-level key '{key}' has no 'ros__parameters' mapping")
    up = (data.get(UP_KEY) or {}).get("ros__parameters") or {}
    nodes = up.get("nodes")
    if not isinstance(nodes, list) or not nodes or not all(isinstance(n, str) and n for n in nodes):
        raise ConfigError(
            f"{path}: field {UP_KEY}.ros__parameters.nodes must be a non-empty list of node "
            f"names (registered: {', '.join(NODE_CLASSES)}), got {nodes!r}"
        )
    for entry in nodes:
        if entry not in NODE_CLASSES and ":" not in entry:
            raise ConfigError(
                f"{path}: {UP_KEY}.ros__parameters.nodes: unknown node '{entry}'; registered "
                f"nodes: {', '.join(NODE_CLASSES)} (or give 'module:Class')"
            )
    lifecycle = up.get("lifecycle", "active")
    if lifecycle not in LIFECYCLE_STATES:
        raise ConfigError(
            f"{path}: field {UP_KEY}.ros__parameters.lifecycle must be one of {', '.join(LIFECYCLE_STATES)}; "
            f"value {lifecycle!r}"
        )
    node_set = NodeSet(
        path=path, nodes=list(nodes), parameters=data, namespace=namespace, remaps=remap_rules, lifecycle=lifecycle
    )
    for item in sets or []:
        node_set.overrides.append(parse_set(item, path, data))
    check_against_tables(node_set)
    return node_set


# rclpy's own parameters, accepted in any node's section besides the node's table
_RCLPY_PARAMETERS = ("use_sim_time", "start_type_description_service")


def check_against_tables(node_set: NodeSet) -> None:
    """Refuse, before rclpy starts, a parameter the node does not declare (a typo) and an
    override of the wrong type or out of range: rcl would keep the file's value without a word
    (a ``-p`` override whose type differs from the file's is dropped). Nodes with a declarative
    table (`humanoid_ros.parameters.TABLES`) only; ``ConfigError`` names the file or the --set."""
    from humanoid_model.scene_params import flatten_params
    from humanoid_model.validation import did_you_mean
    from humanoid_ros.parameters import TABLES, load_table

    sets = {(n, p): v for n, p, v in node_set.overrides}
    converted = {}
    for node in node_set.nodes:
        if node not in TABLES or node not in node_set.parameters:
            continue
        table = load_table(node)
        try:  # nested mappings are dotted ROS names (push: {link: x} -> push.link)
            given = flatten_params((node_set.parameters[node] or {}).get("ros__parameters") or {})
        except OverflowError as exc:  # YAML aliases that expand
            raise ConfigError(f"{node_set.path}: {node}.ros__parameters: {exc}") from None
        given.update({p: v for (n, p), v in sets.items() if n == node})
        for name, value in given.items():
            where = (
                f"--set {node}.{name}" if (node, name) in sets else f"{node_set.path}: {node}.ros__parameters.{name}"
            )
            if name not in table:
                if name in _RCLPY_PARAMETERS or name.startswith("qos_overrides"):
                    continue
                raise ConfigError(
                    f"{where}: node '{node}' has no parameter '{name}'{did_you_mean(name, table.names)}; "
                    f"its parameters: {', '.join(table.names)}"
                )
            if (node, name) in sets:
                try:
                    converted[node, name] = table[name].check(value, node)
                except ConfigError as exc:
                    raise ConfigError(f"{where}: {exc}") from None
    # as the declared type (dt=1 -> 1.0): rcl drops an int override of a double
    node_set.overrides = [(n, p, converted.get((n, p), v)) for n, p, v in node_set.overrides]


def _has_parameters(section) -> bool:
    """A node section ({ros__parameters: {...}}) or a namespace holding node sections."""
    if not isinstance(section, dict):
        return False
    if "ros__parameters" in section:
        return isinstance(section["ros__parameters"], dict)
    return bool(section) and all(_has_parameters(v) for v in section.values())


def parse_set(item: str, path: Path, data: dict) -> tuple[str, str, object]:
    """``NODE.PARAM=VALUE`` -> (node, param, value); VALUE is read as YAML (numbers, bools, lists)."""
    target, sep, text = item.partition("=")
    node, dot, param = target.strip().partition(".")
    if not sep or not dot or not node or not _PARAM_NAME.match(param or "-"):
        raise ConfigError(f"--set '{item}': expected NODE.PARAM=VALUE, e.g. viewer.port=8081")
    if node not in data or node == UP_KEY:
        nodes = [k for k in data if k != UP_KEY]
        raise ConfigError(
            f"--set '{item}': node '{node}' has no parameters in {path} (nodes there: {', '.join(nodes) or 'none'})"
        )
    try:
        value = yaml.safe_load(text) if text.strip() else ""
    except yaml.YAMLError:
        raise ConfigError(f"--set '{item}': value '{text}' is not a valid YAML scalar") from None
    if isinstance(value, dict) or value is None:
        raise ConfigError(f"--set '{item}': value '{text}' must be a number, a bool, a string or a list")
    return node, param, value


def node_class(entry: str):
    """Import a registered node class (name from NODE_CLASSES or ``module:Class``)."""
    target = NODE_CLASSES.get(entry, entry)
    module_name, _, class_name = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and module_name.startswith(exc.name):
            raise ConfigError(
                f"node '{entry}': module {module_name} is not available ({exc}); "
                "is this node implemented in this version?"
            ) from None
        raise
    cls = getattr(module, class_name, None)
    if cls is None:
        raise ConfigError(f"node '{entry}': module {module_name} has no class {class_name}")
    return cls


def localhost_by_default(env) -> str:
    """Keep DDS discovery on this machine unless the user chose otherwise: sets
    ``ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST`` in ``env`` when neither it nor the older
    ``ROS_LOCALHOST_ONLY`` is set, and returns the line that says so ("" when left alone). Fast DDS
    binds every interface, so without it the command topics and ~/reset of a running simulator
    can be reached from the local network (docs/ros.md "Exposure")."""
    if "ROS_AUTOMATIC_DISCOVERY_RANGE" in env or "ROS_LOCALHOST_ONLY" in env:
        return ""
    env["ROS_AUTOMATIC_DISCOVERY_RANGE"] = "LOCALHOST"
    return (
        "ROS_AUTOMATIC_DISCOVERY_RANGE=LOCALHOST (default of up/demo: nodes on other machines do not "
        "see these; set ROS_AUTOMATIC_DISCOVERY_RANGE=SUBNET and a ROS_DOMAIN_ID to share them)"
    )


def run_nodes(node_set: NodeSet, duration: float | None = None, lifecycle: str | None = None) -> int:
    """Start every node of `node_set` in one process, bring its lifecycle nodes to ``lifecycle``
    (default: the node set's) and spin them until Ctrl-C, SIGTERM or `duration` [s] (module
    docstring).

    Returns 0 on a clean stop. Uses rclpy's default context, so call it once per process.
    """
    classes = [node_class(entry) for entry in node_set.nodes]  # fail before touching rclpy
    target = lifecycle or node_set.lifecycle

    note = localhost_by_default(os.environ)
    if note:
        print(f"humanoid-stack: {note}", flush=True)

    import rclpy

    from humanoid_stack.namespaces import namespaced_parameter_file

    copy = None
    if node_set.namespace != "/":
        copy = namespaced_parameter_file(node_set.path, node_set.namespace, node_set.overrides)
    try:
        return _spin(node_set, classes, node_set.ros_args(copy), duration, rclpy, target)
    finally:
        if copy is not None:
            copy.unlink(missing_ok=True)


def _spin(node_set: NodeSet, classes, ros_args: list[str], duration: float | None, rclpy, target: str) -> int:
    """`run_nodes` once the arguments are known: init, build the nodes, bring the lifecycle nodes
    to ``target``, spin, tear down."""
    from rclpy.exceptions import ParameterException
    from rclpy.executors import MultiThreadedExecutor
    from rclpy.signals import SignalHandlerOptions

    from humanoid_ros.lifecycle import bring_to, is_lifecycle

    try:  # the default context, so that node classes need no context argument; the signals are ours
        rclpy.init(args=["humanoid-stack-up", *ros_args], signal_handler_options=SignalHandlerOptions.NO)
    except Exception as exc:  # rcl rejects the parameter file or an override
        raise ConfigError(f"{node_set.path}: rclpy/rcl rejected the arguments {ros_args}: {exc}") from None
    executor = MultiThreadedExecutor(num_threads=EXECUTOR_THREADS)
    nodes, stop, spinner = [], _Stop(), None
    previous = stop.install()
    try:
        for entry, cls in zip(node_set.nodes, classes):
            try:
                nodes.append(cls())
            except ParameterException as exc:  # e.g. a parameter of the wrong type in the file
                raise ConfigError(f"{node_set.path}: node '{entry}': {type(exc).__name__}: {exc}") from None
            except HumanoidStackError as exc:  # bad parameter value, e.g. an unknown robot
                raise type(exc)(_in_file(node_set, entry, exc)) from None
            executor.add_node(nodes[-1])
        for entry, node in zip(node_set.nodes, nodes):
            if is_lifecycle(node):
                try:
                    bring_to(node, target)
                except HumanoidStackError as exc:
                    raise type(exc)(_in_file(node_set, entry, exc)) from None
                print(f"humanoid-stack up: {node.get_name()}: {target}", flush=True)
        spinner = stop.spin(executor)
        stop.wait(duration)
    except KeyboardInterrupt:
        pass
    except HumanoidStackError:
        raise
    except Exception:
        # the context shut down while the nodes start (a node's constructor, or rcl, did): an rcl
        # call raised RCLError ("context is not valid"): a requested stop, not a crash.
        if rclpy.ok():
            raise
    finally:
        stop.stopping = True
        _stop_nodes(nodes, executor, spinner, rclpy)
        stop.restore(previous)
    if stop.failure is not None:
        raise stop.failure
    return 0


def _in_file(node_set: NodeSet, entry: str, exc: Exception) -> str:
    text = str(exc)  # node errors already start with "node '<name>': "
    prefix = "" if text.startswith(f"node '{entry}': ") else f"node '{entry}': "
    return f"{node_set.path}: {prefix}{text}"


EXECUTOR_THREADS = 8
"""Threads of `up`'s executor (chosen: a plan, a gait solve and each FollowJointTrajectory goal hold
one for their whole run, `humanoid_ros.common.ThreadWork`; rclpy's default is the core count)."""


class _Stop:
    """The stop of `run_nodes`: SIGINT and SIGTERM set it (during the start they interrupt it, as
    Ctrl-C does), the executor spins in a thread of its own meanwhile, and an exception it raises
    is kept (``failure``) and stops the set too."""

    SIGNALS = ("SIGINT", "SIGTERM")

    def __init__(self):
        self.event = threading.Event()
        self.started = self.stopping = False
        self.failure: BaseException | None = None

    def install(self) -> dict:
        import signal

        previous = {}
        if threading.current_thread() is not threading.main_thread():
            return previous  # signals reach the main thread only: its handlers stay
        for name in self.SIGNALS:
            number = getattr(signal, name)
            previous[number] = signal.signal(number, self._on_signal)
        return previous

    def restore(self, previous: dict) -> None:
        import signal

        for number, handler in previous.items():
            signal.signal(number, handler)

    def _on_signal(self, signum, frame):
        self.event.set()
        if not self.started and not self.stopping:
            raise KeyboardInterrupt  # during the start: stop it where it is

    def spin(self, executor) -> threading.Thread:
        from rclpy.executors import ExternalShutdownException

        def run():
            try:
                executor.spin()
            except ExternalShutdownException:
                pass
            except Exception as exc:  # noqa: BLE001 - re-raised by run_nodes after the clean stop
                import rclpy

                # once the stop destroys the nodes, a wait may still touch one of their guard
                # conditions (rclpy's InvalidHandle, "destruction was requested"): the stop's, not a failure
                if rclpy.ok() and not self.stopping:
                    self.failure = exc
            finally:
                self.event.set()

        thread = threading.Thread(target=run, name="humanoid-stack-up-executor", daemon=True)
        self.started = True
        thread.start()
        return thread

    def wait(self, duration: float | None) -> None:
        """Until a signal or the executor's end sets the stop, or ``duration`` [s] (None: forever),
        in slices, so that a SIGINT the kernel delivers to another thread still ends it
        (`humanoid_stack.interruptible`)."""
        wait_interruptibly(self.event, None if duration is None else float(duration))


def _stop_nodes(nodes, executor, spinner, rclpy) -> None:
    """Deactivate the active lifecycle nodes while the executor still spins, stop it, then shut
    down, close and destroy every node (a failure of one is printed and the others go on)."""
    from humanoid_ros.lifecycle import is_lifecycle, state_of

    def attempt(node, what, call):
        try:
            call()
        except Exception as exc:  # a failing step must not hide the others
            print(f"humanoid-stack up: {node.get_name()}: {what} failed: {exc}", file=sys.stderr)

    if rclpy.ok():
        for node in reversed(nodes):
            if is_lifecycle(node) and state_of(node) == "active":
                attempt(node, "deactivate", node.trigger_deactivate)
    executor.shutdown()
    if spinner is not None:
        spinner.join(10.0)
    for node in reversed(nodes):
        if is_lifecycle(node) and rclpy.ok() and state_of(node) in ("unconfigured", "inactive", "active"):
            attempt(node, "shutdown", node.trigger_shutdown)
        close = getattr(node, "close", None)
        if callable(close):
            attempt(node, "close", close)
        executor.remove_node(node)
        node.destroy_node()
    rclpy.try_shutdown()


__all__ = [
    "LIFECYCLE_STATES",
    "NODE_CLASSES",
    "UP_KEY",
    "NodeSet",
    "load_node_set",
    "node_class",
    "parse_set",
    "resolve_params_file",
    "run_nodes",
    "HumanoidStackError",
]
