"""The simulator recording as a rosbag2 bag with MCAP storage (``humanoid-stack simulate --output
RUN`` with ``--record-format mcap``, docs/recording.md): its writer and its reader, with the
pure-Python `rosbags` library (no rclpy: ROS tools such as ``ros2 bag play``, RViz or Foxglove read
the bag, and so does this module without ROS).

A bag is a folder ``RUN/`` holding ``RUN.mcap`` and ``metadata.yaml``. Topics (time stamps and log
times: the simulated time; messages of `humanoid_model.formats.bag_messages`):

    /joint_states        sensor_msgs/JointState: positions, velocities, efforts of the actuated joints
    /odom                nav_msgs/Odometry: odom -> the robot's root link, twist in the root link frame
    /tf, /tf_static      tf2_msgs/TFMessage: what the state publisher (`humanoid_model.tf_tree`)
                         broadcasts: odom -> root link and every movable joint; the fixed joints once
    /free_bodies         nav_msgs/Odometry per free body of the scene (child_frame_id = its name)
    /imu                 sensor_msgs/Imu (a robot with an IMU)
    /<sensor>/wrench     geometry_msgs/WrenchStamped per force/torque sensor, in the sensor frame
    /contacts            visualization_msgs/MarkerArray: an ARROW per contact (namespace "forces"),
                         a TRIANGLE_LIST per FEM sole (namespace "soles")
    /humanoid_stack/recording   std_msgs/String: the header (JSON, first) and the end line
                         (``{"stats": ...}``, last) of the JSON Lines recording

    with BagWriter("run") as out:                  # the simulator's `humanoid_sim.runtime.recording.Recorder`
        out.write_header(scene=..., robot=..., dt=..., record_every=..., contacts=True, ...)
        out.write_static(transforms, t)
        out.write_frame(t, joints=..., base=..., transforms=..., contacts=...)
        out.write_end(stats)

    with BagReader("run", RecordingError) as bag:  # ours, or any bag with /joint_states
        t = bag.times("/joint_states")             # log times [s], nothing decoded
        for topic, t, msg in bag.messages(["/joint_states", "/odom"], start, stop):   # a time window
            ...

The reader seeks: a time window reads the MCAP chunks that overlap it and decodes the messages
of the topics asked for in it, nothing else (`BagReader.decoded` counts the messages decoded).
Every failure (a missing file, a truncated bag, a message that does not decode) raises the
caller's error class with one line naming the file.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import ConfigError
from humanoid_model.formats import bag_messages as bm

__all__ = ["FORMAT", "RECORDING_TOPIC", "BagWriter", "BagReader", "is_bag"]

FORMAT = "humanoid_stack.sim_recording_bag/1"  # the header's format name
RECORDING_TOPIC = "/humanoid_stack/recording"
JOINT_STATES = "/joint_states"
VERSION = 9  # the rosbag2 metadata version written (ROS 2 Jazzy and later)
_NANO = 1_000_000_000
_MAGIC = b"\x89MCAP0\r\n"


def _ns(t: float) -> int:
    return int(round(float(t) * 1e9))


def is_bag(path) -> bool:
    """Whether ``path`` is a rosbag2 bag (a folder with metadata.yaml) or an MCAP file (its magic)."""
    p = Path(path)
    if p.is_dir():
        return (p / "metadata.yaml").is_file()
    if p.suffix == ".mcap":
        return True
    if not p.is_file():  # a FIFO or a device is never opened here (the JSON readers refuse it in one line)
        return False
    try:
        with open(p, "rb") as f:
            return f.read(len(_MAGIC)) == _MAGIC
    except OSError:
        return False


# ---------------------------------------------------------------------- writer
def _latched():
    from rosbags.interfaces import Qos, QosDurability, QosHistory, QosLiveliness, QosReliability, QosTime

    zero = QosTime(0, 0)
    return [
        Qos(
            QosHistory.KEEP_LAST,
            1,
            QosReliability.RELIABLE,
            QosDurability.TRANSIENT_LOCAL,
            zero,
            zero,
            QosLiveliness.AUTOMATIC,
            zero,
            False,
        )
    ]


class BagWriter:
    """Writes the rosbag2 bag (MCAP storage) ``path``, a folder that must not exist yet (its parent
    must). Messages are buffered in chunks of 1 MiB (rosbags' MCAP writer); `close` writes the
    summary (the chunk index a reader seeks with) and metadata.yaml: a run cut off by Ctrl-C or an
    exception closes the bag through the ``with`` block (no end line), a killed run leaves an MCAP
    file without its summary, which `BagReader` refuses as truncated. A failure raises ``error``
    naming the field 'output'."""

    def __init__(self, path, error=ConfigError):
        from rosbags.rosbag2 import CompressionFormat, CompressionMode, StoragePlugin, Writer

        self.path, self._error_class = Path(path), error
        folder = self.path.parent if str(self.path.parent) else Path(".")
        if not folder.is_dir():
            raise self._error(f"folder {str(folder)!r} does not exist (create it first)")
        if self.path.exists():
            raise self._error("exists already (a bag is a new folder: remove it or give another name)")
        self._ts = bm.typestore()
        self._connections: dict[str, object] = {}
        self._header: dict | None = None
        self._t0: float | None = None
        self._t_last = 0.0
        try:
            self._writer = Writer(self.path, version=VERSION, storage_plugin=StoragePlugin.MCAP)
            self._writer.set_compression(CompressionMode.STORAGE, CompressionFormat.ZSTD)  # MCAP's zstd chunks
            self._writer.open()
        except Exception as exc:  # rosbags' WriterError, OSError
            raise self._error(exc) from None
        self._closed = False

    def _error(self, exc):
        return self._error_class(f"recording: cannot write field 'output' = {str(self.path)!r}: {exc}")

    def _write(self, topic: str, t: float, msg, latched: bool = False) -> None:
        try:
            conn = self._connections.get(topic)
            if conn is None:
                qos = _latched() if latched else ()
                conn = self._writer.add_connection(topic, msg.__msgtype__, typestore=self._ts, offered_qos_profiles=qos)
                self._connections[topic] = conn
            self._writer.write(conn, _ns(t), self._ts.serialize_cdr(msg, msg.__msgtype__))
        except Exception as exc:  # OSError (a full disk), rosbags' errors, a value out of its type
            raise self._error(exc) from None

    def write_header(
        self, *, scene, scene_name, robot, dt, record_every, contacts: bool, joint_names=None, soles=None, plan=None
    ) -> None:
        """The recording's header (the JSON Lines header's fields, `humanoid_model.formats.recording`),
        written on `RECORDING_TOPIC` with the first frame."""
        self._header = {
            "format": FORMAT,
            "scene": scene,
            "scene_name": scene_name,
            "robot": robot,
            "dt": dt,
            "record_every": record_every,
            "contacts": bool(contacts),
        }
        if joint_names:
            self._header["joints"] = {"names": list(joint_names)}
        if soles is not None:
            self._header["soles"] = soles
        if plan is not None:
            self._header["plan"] = plan

    def _start(self, t: float) -> None:
        if self._t0 is None:
            self._t0 = float(t)
            if self._header is not None:
                self._write(RECORDING_TOPIC, t, bm.text(self._ts, json.dumps(self._header, allow_nan=False)), True)

    def write_static(self, transforms, t: float = 0.0) -> None:
        """/tf_static: the fixed joints' transforms (`humanoid_model.tf_tree.KinematicTree.static_transforms`)."""
        self._start(t)
        self._write("/tf_static", t, bm.tf_message(self._ts, t, transforms), latched=True)

    def write_frame(
        self,
        t: float,
        *,
        joints=None,
        base=None,
        free_bodies=None,
        transforms=(),
        imu=None,
        wrenches=None,
        contacts=None,
        soles=None,
        odom_frame: str = "odom",
    ) -> None:
        """One recorded frame at the simulated time ``t`` [s] (each part None or empty: not written):
        ``joints`` (names, positions, velocities, efforts); ``base`` (root link, position,
        quaternion xyzw, twist (6,) in the root link frame); ``free_bodies`` name -> (position,
        quaternion, twist in the body frame); ``transforms`` the /tf transforms; ``imu`` (frame,
        reading); ``wrenches`` sensor name -> (frame, force, torque); ``contacts`` a list of
        {body_a, body_b, point, normal, force, gap} (None: not recorded, [] none this frame);
        ``soles`` name -> (triangles, world points)."""
        ts = self._ts
        if self._t0 is not None and t < self._t_last:
            raise self._error(f"frame time {t!r} s before the previous one ({self._t_last!r} s)")
        self._start(t)
        self._t_last = float(t)
        if joints is not None:
            self._write(JOINT_STATES, t, bm.joint_state(ts, t, *joints))
        if base is not None:
            root, position, quaternion, twist = base
            self._write("/odom", t, bm.odometry(ts, t, odom_frame, root, position, quaternion, twist))
        for name, (position, quaternion, twist) in (free_bodies or {}).items():
            self._write("/free_bodies", t, bm.odometry(ts, t, odom_frame, name, position, quaternion, twist))
        if transforms:
            self._write("/tf", t, bm.tf_message(ts, t, transforms))
        if imu is not None:
            self._write("/imu", t, bm.imu(ts, t, *imu))
        for name, (frame, force, torque) in (wrenches or {}).items():
            self._write(f"/{name}/wrench", t, bm.wrench(ts, t, frame, force, torque))
        if contacts is not None or soles:
            self._write("/contacts", t, bm.contact_markers(ts, t, odom_frame, contacts, soles))

    def write_end(self, stats: dict) -> None:
        """The end line ``{"stats": ...}`` of a run that completed, on `RECORDING_TOPIC`."""
        self._write(RECORDING_TOPIC, self._t_last, bm.text(self._ts, json.dumps({"stats": stats}, allow_nan=False)))

    def flush(self) -> None:
        """Nothing: the MCAP writer writes whole chunks (the JSON Lines writer's interface)."""

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Write the summary and metadata.yaml and close (closing twice does nothing)."""
        if self._closed:
            return
        self._closed = True
        try:
            self._writer.close()
        except Exception as exc:
            raise self._error(exc) from None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


# ---------------------------------------------------------------------- reader
class BagReader:
    """A rosbag2 bag (a folder with metadata.yaml, or an .mcap file) opened for reading; ``error``
    the caller's error class. Message types are read from the bag's own definitions (any ROS 2
    distribution), else ROS 2 Kilted's. ``topics``: topic -> (message type, message count)."""

    def __init__(self, path, error):
        from rosbags.highlevel import AnyReader

        self.path, self._error_class = Path(path), error
        self.decoded = 0  # messages decoded so far (the reader seeks: a window decodes its own)
        if not self.path.exists():
            raise self._fail("no such file or folder")
        if not (self.path.is_dir() or self.path.is_file()):
            raise self._fail("not a folder nor a regular file (a FIFO or a device is not read)")
        try:
            self._reader = AnyReader([self.path], default_typestore=bm.typestore())
            self._reader.open()
        except Exception as exc:
            raise self._fail(self._why(exc)) from None
        self._by_topic: dict[str, list] = {}
        for c in self._reader.connections:
            self._by_topic.setdefault(c.topic, []).append(c)
        self.topics = {
            topic: (conns[0].msgtype, sum(c.msgcount for c in conns)) for topic, conns in self._by_topic.items()
        }

    def _fail(self, why: str):
        return self._error_class(f"{self.path}: not a readable rosbag2 bag: {why}")

    @staticmethod
    def _why(exc) -> str:
        text = " ".join(str(exc).split()).rstrip(".") or type(exc).__name__
        if "magic" in text.lower() or "footer" in text.lower() or "Unexpected EOF" in text or "short read" in text:
            return f"the MCAP file is truncated or damaged ({text}): a recording cut off before it was closed"
        return text

    def require(self, topic: str, why: str) -> None:
        """``error`` when the bag has no message on ``topic`` (``why`` says what needs it)."""
        if self.topics.get(topic, (None, 0))[1] == 0:
            have = ", ".join(sorted(self.topics)) or "none"
            raise self._error_class(f"{self.path}: field '{topic}': no messages on {topic} ({why}); topics: {have}")

    def times(self, topic: str) -> np.ndarray:
        """The log times [s] of ``topic``'s messages in order (no message decoded)."""
        conns = self._by_topic.get(topic, [])
        out = np.empty(self.topics.get(topic, (None, 0))[1], dtype=np.int64)
        n = 0
        try:
            for _, stamp_ns, _ in self._reader.messages(connections=conns) if conns else ():
                if n == len(out):
                    out = np.resize(out, 2 * n + 1)
                out[n] = stamp_ns
                n += 1
        except Exception as exc:
            raise self._fail(self._why(exc)) from None
        return out[:n] / _NANO

    def messages(self, topics, start: float | None = None, stop: float | None = None):
        """(topic, log time [s], decoded message) of ``topics`` with start <= t < stop [s] (None: no
        bound), in time order, reading only the chunks of that window."""
        conns = [c for topic in topics for c in self._by_topic.get(topic, [])]
        if not conns:
            return
        lo = None if start is None else _ns(start)
        hi = None if stop is None else _ns(stop)
        try:
            for conn, stamp_ns, raw in self._reader.messages(connections=conns, start=lo, stop=hi):
                msg = self._reader.deserialize(raw, conn.msgtype)
                self.decoded += 1
                yield conn.topic, stamp_ns / _NANO, msg
        except self._error_class:
            raise
        except Exception as exc:
            raise self._fail(self._why(exc)) from None

    def recording_info(self) -> tuple[dict | None, dict | None]:
        """(header, stats) of a bag written by `BagWriter` (`RECORDING_TOPIC`), None each when absent
        (a bag of another recorder, or a run cut off before its end)."""
        header = stats = None
        for _, _, msg in self.messages([RECORDING_TOPIC]):
            try:
                value = json.loads(msg.data)
            except (ValueError, AttributeError, RecursionError):
                continue
            if isinstance(value, dict) and value.get("format") == FORMAT:
                header = value
            elif isinstance(value, dict) and isinstance(value.get("stats"), dict):
                stats = value["stats"]
        return header, stats

    def close(self) -> None:
        try:
            if self._reader.stack is not None:
                self._reader.close()
        except Exception:  # closing a reader of a damaged file: nothing left to report
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
