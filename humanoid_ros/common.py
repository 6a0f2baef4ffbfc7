"""ROS helpers shared by the nodes (and only by them): QoS, entry point, /tf messages, time stamps,
/diagnostics, warn-once logging.

    LATCHED                   QoS of /robot_description and /tf_static (reliable, transient local)
    SENSOR_QOS                QoS of the subscriptions to measurements (joint_states, odom, imu, ...):
                              best effort, so reliable and best-effort publishers both reach them
    namespace_frame_prefix    the frame prefix of a node in a namespace ("/r1" -> "r1/")
    prefix_frames             transforms with their frames prefixed (the fixed frame kept)
    TFMessage                 tf2_msgs/TFMessage, or None when tf2_msgs is not installed (the PyPI
                              ROS 2 wheels lack it: nodes then skip /tf and /tf_static)
    run_node(factory, name)   the `main()` of every node executable: init, spin, clean exit
    transform_stamped_list    `humanoid_model.tf_tree.Transform` records -> TransformStamped list
    stamp(t), duration(t)     seconds [s] -> builtin_interfaces Time / Duration
    seconds(msg)              Time or Duration -> seconds [s]
    diagnostic_array(...)     one-status diagnostic_msgs/DiagnosticArray
    odometry(...)             nav_msgs/Odometry of a body's pose and twist (/odom, /free_bodies)
    WarnOnce                  log each warning key once (bad input keeps the node running)

Libraries never import this module: it imports rclpy.
"""

from __future__ import annotations

import math
import sys
import threading
from dataclasses import replace

import rclpy
from builtin_interfaces.msg import Duration, Time
from diagnostic_msgs.msg import DiagnosticArray, DiagnosticStatus, KeyValue
from geometry_msgs.msg import TransformStamped
from nav_msgs.msg import Odometry
from rclpy.qos import DurabilityPolicy, QoSProfile, ReliabilityPolicy, qos_profile_sensor_data

from humanoid_model.exceptions import HumanoidStackError

try:  # tf2_msgs is not among the PyPI ROS 2 wheels; a system ROS 2 has it.
    from tf2_msgs.msg import TFMessage
except ImportError:  # pragma: no cover - depends on the install
    TFMessage = None

__all__ = [
    "ThreadWork",
    "LATCHED",
    "SENSOR_QOS",
    "TFMessage",
    "WarnOnce",
    "diagnostic_array",
    "duration",
    "namespace_frame_prefix",
    "odometry",
    "prefix_frames",
    "run_node",
    "seconds",
    "stamp",
    "transform_stamped_list",
]

LATCHED = QoSProfile(depth=1, reliability=ReliabilityPolicy.RELIABLE, durability=DurabilityPolicy.TRANSIENT_LOCAL)
"""QoS of /robot_description and /tf_static (same as robot_state_publisher's): late subscribers
get the last message."""

SENSOR_QOS = qos_profile_sensor_data
"""QoS of every subscription to a measurement stream (joint_states, odom, free_bodies, imu, F/T
wrenches): rclpy's sensor-data profile (best effort, keep last 5, volatile). A best-effort
subscription matches reliable and best-effort publishers alike (a reliable one would ignore a
best-effort driver's topic), and only the newest message matters to its readers: the state
publisher, the viewer and the pilot keep the latest, the robot bridge's watchdog ages the newest
and stops a motion when it grows stale (docs/ros.md "Quality of service")."""

_NANO = 1_000_000_000  # nanoseconds per second


def _split(t: float) -> tuple[int, int]:
    sec = int(math.floor(t))
    return sec, min(int(round((t - sec) * 1e9)), _NANO - 1)


def stamp(t: float) -> Time:
    """builtin_interfaces/Time of `t` [s] (simulated or wall time)."""
    sec, nanosec = _split(t)
    return Time(sec=sec, nanosec=nanosec)


def duration(t: float) -> Duration:
    """builtin_interfaces/Duration of `t` [s] (e.g. a trajectory point's time_from_start)."""
    sec, nanosec = _split(t)
    return Duration(sec=sec, nanosec=nanosec)


def seconds(msg) -> float:
    """Seconds [s] of a builtin_interfaces Time or Duration message."""
    return float(msg.sec) + 1e-9 * float(msg.nanosec)


def odometry(stamp_msg, frame_id: str, child_frame_id: str, position, quaternion_xyzw, twist) -> Odometry:
    """nav_msgs/Odometry: pose of ``child_frame_id`` in ``frame_id`` (position (3,) [m], quaternion
    xyzw (4,)) and its twist (6,) [m/s, rad/s], linear then angular, in the child frame (REP 105)."""
    od = Odometry()
    od.header.stamp = stamp_msg
    od.header.frame_id, od.child_frame_id = frame_id, child_frame_id
    p, o = od.pose.pose.position, od.pose.pose.orientation
    p.x, p.y, p.z = map(float, position)
    o.x, o.y, o.z, o.w = map(float, quaternion_xyzw)
    lin, ang = od.twist.twist.linear, od.twist.twist.angular
    lin.x, lin.y, lin.z = map(float, twist[:3])
    ang.x, ang.y, ang.z = map(float, twist[3:])
    return od


def namespace_frame_prefix(namespace: str, frame_prefix: str = "") -> str:
    """The prefix of the frames a node publishes: ``frame_prefix`` when given, else the node's
    ``namespace`` without its leading slash and with a trailing one ("/r1" -> "r1/", "/" -> ""),
    so that robots in two namespaces publish distinct frames on the global /tf."""
    if frame_prefix:
        return frame_prefix
    ns = namespace.strip("/")
    return f"{ns}/" if ns else ""


def prefix_frames(transforms, prefix: str, fixed_frame: str) -> list:
    """`humanoid_model.tf_tree.Transform` records with ``prefix`` before every frame name but
    ``fixed_frame`` (odom: the world frame that robots share, as `robot_state_publisher`'s
    frame_prefix leaves the frames it does not publish)."""
    if not prefix:
        return list(transforms)

    def name(frame):
        return frame if frame == fixed_frame else prefix + frame

    return [replace(tf, parent=name(tf.parent), child=name(tf.child)) for tf in transforms]


def transform_stamped_list(transforms, stamp_msg) -> list:
    """TransformStamped messages (the content of a /tf or /tf_static message) for
    `humanoid_model.tf_tree.Transform` records, all with header stamp `stamp_msg`
    (builtin_interfaces/Time); translations [m], rotations as quaternions xyzw."""
    out = []
    for tf in transforms:
        msg = TransformStamped()
        msg.header.stamp = stamp_msg
        msg.header.frame_id = tf.parent
        msg.child_frame_id = tf.child
        tr, r = msg.transform.translation, msg.transform.rotation
        tr.x, tr.y, tr.z = map(float, tf.translation)
        r.x, r.y, r.z, r.w = map(float, tf.rotation)
        out.append(msg)
    return out


def diagnostic_array(
    stamp_msg, name: str, level, message: str, hardware_id: str = "", values: dict | None = None
) -> DiagnosticArray:
    """A /diagnostics message with one status: `level` is a `DiagnosticStatus` level (OK, WARN,
    ERROR), `values` maps keys (units in the key, e.g. ``energy_J``) to their text."""
    status = DiagnosticStatus(level=level, name=name, message=message, hardware_id=hardware_id)
    status.values = [KeyValue(key=k, value=str(v)) for k, v in (values or {}).items()]
    arr = DiagnosticArray(status=[status])
    arr.header.stamp = stamp_msg
    return arr


def destroy_actions(node) -> None:
    """Destroy the action servers and clients of ``node``. rclpy's ``Node.destroy_node`` leaves
    them (they are waitables): a node destroyed in a process that goes on would keep answering
    discovery as a server that never replies (a client then sends its goal there and waits)."""
    from rclpy.action import ActionClient, ActionServer

    for waitable in list(node.waitables):
        if isinstance(waitable, (ActionServer, ActionClient)):
            waitable.destroy()


class WarnOnce:
    """Logs each warning once per key (a bad message repeated at 1 kHz must not flood the log).

    ``warn_once(key, text)`` logs `text` the first time `key` is seen and returns True then;
    `keys` is the set of keys reported so far (tests read it).
    """

    def __init__(self, logger):
        self._logger = logger
        self._keys: set[str] = set()

    def __call__(self, key: str, text: str) -> bool:
        if key in self._keys:
            return False
        self._keys.add(key)
        self._logger.warning(text)
        return True

    @property
    def keys(self) -> frozenset[str]:
        """Keys of the warnings logged so far."""
        return frozenset(self._keys)


class ThreadWork:
    """Long work off the executor: ``await ThreadWork(node).run(fn, *args)`` in a coroutine callback
    runs ``fn(*args)`` in a daemon thread and resumes with its result (or raises its exception); the
    thread wakes the node's executor through a guard condition when done, so a single-threaded
    executor keeps serving the node's other callbacks meanwhile. Under a multi-threaded executor
    (`humanoid-stack up`) the callback already has a thread of its own: ``fn`` runs there. The
    callback needs a reentrant callback group (rclpy keeps a coroutine's group taken until it ends)."""

    def __init__(self, node, name: str = "work"):
        self.name = name
        self._node = node
        self._wake = node.create_guard_condition(lambda: None)

    def _target(self, future, fn, args):
        try:
            future.set_result(fn(*args))
        except Exception as exc:  # noqa: BLE001 - handed to the awaiting coroutine
            future.set_exception(exc)
        finally:
            self._wake.trigger()

    async def run(self, fn, *args):
        from rclpy.executors import MultiThreadedExecutor
        from rclpy.task import Future

        if isinstance(self._node.executor, MultiThreadedExecutor):
            # this callback runs in one of the executor's threads: block it. Awaiting a future there
            # is polled (rclpy yields a pending task at every wait, and the multi-threaded executor
            # keeps each yield in a list it scans every time: the one-process node sets of `up`
            # slowed down the longer a plan ran)
            return fn(*args)
        future = Future()
        threading.Thread(target=self._target, args=(future, fn, args), name=self.name, daemon=True).start()
        return await future


def run_node(node_factory, name: str, args=None) -> int:
    """Shared entry point of the node executables: init, spin, clean exit.

    Returns 0 on Ctrl-C / shutdown, 2 (with a one-line message) when the node rejects its
    parameters with a `HumanoidStackError`. Calls the node's ``close()`` (if any) before
    destroying it.
    """
    from rclpy.executors import ExternalShutdownException, SingleThreadedExecutor

    rclpy.init(args=args)
    node = None
    # The executor exists before the node, so that a Ctrl-C during start-up fails an rcl call of
    # the node's constructor (handled below) rather than half-building rclpy.spin's executor.
    executor = SingleThreadedExecutor()
    try:
        node = node_factory()
        executor.add_node(node)
        executor.spin()
    except HumanoidStackError as exc:
        print(f"{name}: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, ExternalShutdownException):
        pass
    except Exception:
        # Ctrl-C during start-up: rclpy's SIGINT handler shuts the context down, and the next
        # rcl call (e.g. creating a publisher) raises RCLError "context is not valid". That is
        # a requested stop, not a crash; any other error is re-raised.
        if rclpy.ok():
            raise
    finally:
        if node is not None:
            if hasattr(node, "close"):
                node.close()
            executor.remove_node(node)
            node.destroy_node()
        executor.shutdown()
        rclpy.try_shutdown()
    return 0
