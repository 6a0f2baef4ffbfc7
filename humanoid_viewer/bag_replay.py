"""Replaying a rosbag2 bag (MCAP or SQLite storage, `humanoid_model.formats.bag`) by seeking: the
recordings of ``humanoid-stack simulate`` and ``execute`` (``--record-format mcap``), and a user's
own bag with /joint_states.

    rec = load_bag_recording("run", robot)      # reads the times of /joint_states only
    q, bodies, contacts, soles = rec.frame(i)   # decodes the window of frames around i

`BagRecording` has the interface of `humanoid_viewer.replay.Recording` that the replay player
uses (``t``, ``frame(i)``, ``index_at``, ``duration``, ``nq``, ``stances``, ``source``, ``scene``,
``robot``) but holds no frame in memory beyond a few windows of `BLOCK` frames
(`CACHED_BLOCKS`): a 300 s run replays in bounded memory (docs/recording.md).

What a frame is made of (each topic optional except /joint_states):

* the timeline: one frame per /joint_states message, at its log time (from the first one's);
* the joints: every /joint_states message up to the frame (a joint keeps its last value, so
  several publishers of subsets combine), matched to the robot's joints by name (a robot with ball
  joints: the URDF's revolute triples, turned into the ball joints' quaternions); names the robot
  does not have are reported once to ``warn`` and ignored; joints never given keep the default
  posture;
* the base: the last /odom pose, else the last /tf transform whose child is the robot's root link
  (its parent taken as the world), else the default posture's;
* free bodies: /free_bodies (nav_msgs/Odometry, child_frame_id = the body's name);
* contacts: /contacts (MarkerArray: the ARROWs of namespace ``forces``); FEM soles: its
  TRIANGLE_LISTs of namespace ``soles``.

A message is held until the next one of its topic, looking back at most `HOLD` seconds before the
first frame of a window.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

import numpy as np

from humanoid_model.formats import bag_messages as bm
from humanoid_model.formats.bag import JOINT_STATES, BagReader
from humanoid_model.formats.recording import RecordedContact, read_plan
from humanoid_model.tf_tree import KinematicTree
from humanoid_viewer.exceptions import RecordingError
from humanoid_viewer.replay import index_at

__all__ = ["BagRecording", "load_bag_recording", "bag_document", "BLOCK", "CACHED_BLOCKS", "HOLD"]

BLOCK = 200  # frames decoded together (chosen: the HOLD look-back a quarter of a window at 100 Hz)
CACHED_BLOCKS = 3  # windows kept (chosen: the one shown, the one before, the next)
HOLD = 0.5  # [s] (chosen) how far before a window a held message (a slower /odom, a subset of joints) is looked for


class BagRecording:
    """A bag replayed by seeking (module docstring); ``robot`` a `humanoid_model.Robot`; ``warn``
    takes a one-line note (names not in the robot). Each read goes through ``reader``
    (`BagReader`, its ``decoded`` counts the messages decoded)."""

    def __init__(self, path, robot, warn=None):
        if robot is None:
            raise RecordingError(f"{path}: field '{JOINT_STATES}': joint states need a robot: give ROBOT")
        self.source = str(path)
        self.reader = BagReader(path, RecordingError)
        try:
            self._load(robot, warn)
        except BaseException:
            self.reader.close()
            raise

    def _load(self, robot, warn):
        reader = self.reader
        reader.require(JOINT_STATES, "the robot's joint positions")
        header, self.stats = reader.recording_info()
        self.header = header
        self.scene = header.get("scene") if header and isinstance(header.get("scene"), str) else None
        self.robot = header.get("robot") if header and isinstance(header.get("robot"), str) else None
        self.stances = None
        if header and "plan" in header:
            plan = read_plan(header, self.source, RecordingError)
            self.stances = plan.stances if plan is not None else None
        self._log_t = reader.times(JOINT_STATES)
        self.t = self._log_t - self._log_t[0]
        if np.any(np.diff(self.t) < 0):
            raise RecordingError(f"{self.source}: field '{JOINT_STATES}': log times decrease")
        # a robot with ball joints: /joint_states names the URDF's revolute triples (the simulator
        # node's and the bag writer's), mapped back to the ball joints' quaternions
        self._merge = robot.spherical
        self._nq = int(robot.model.nq)
        self.tree = KinematicTree(robot.model if self._merge is None else self._merge.urdf_model)
        self._q0 = robot.q() if self._merge is None else self._merge.angles(robot.q())
        self._known = set(self.tree.joint_names)
        self._warn, self._unknown_reported = warn, False
        topics = reader.topics
        self._base_topic = "/odom" if "/odom" in topics else ("/tf" if "/tf" in topics else None)
        self._topics = [JOINT_STATES] + [x for x in (self._base_topic, "/free_bodies", "/contacts") if x in topics]
        self.has_contacts = "/contacts" in topics
        self._blocks: OrderedDict[int, list] = OrderedDict()
        self._lock = threading.Lock()
        first = self.frame(0)  # the free bodies' and soles' names, and the first check of every topic
        self.bodies_names = sorted(first[1])

    # ------------------------------------------------------------------ the Recording interface
    def __len__(self) -> int:
        return len(self.t)

    @property
    def nq(self) -> int:
        """Values per configuration (the robot's nq)."""
        return self._nq

    @property
    def duration(self) -> float:
        return float(self.t[-1] - self.t[0]) if len(self.t) else 0.0

    def index_at(self, time: float) -> int:
        """Index of the last frame at or before ``time`` [s] (clamped)."""
        return index_at(self.t, time)

    def frame(self, i: int):
        """(q (nq,), free bodies name -> (position, quaternion xyzw), contacts (a list of
        `RecordedContact`, or None without /contacts), soles name -> (triangles, points)) of frame ``i``."""
        i = int(min(max(i, 0), len(self.t) - 1))
        b = i // BLOCK
        with self._lock:
            block = self._blocks.get(b)
            if block is None:
                block = self._read_block(b)
                self._blocks[b] = block
                while len(self._blocks) > CACHED_BLOCKS:
                    self._blocks.popitem(last=False)
            else:
                self._blocks.move_to_end(b)
        return block[i - b * BLOCK]

    def close(self) -> None:
        self.reader.close()

    # ------------------------------------------------------------------ reading a window
    def _read_block(self, b: int) -> list:
        lo, hi = b * BLOCK, min((b + 1) * BLOCK, len(self.t))
        times = self._log_t[lo:hi]
        start = None if lo == 0 else times[0] - HOLD
        stop = times[-1] + 1e-6  # [s] past the last frame's messages (log times are whole nanoseconds)
        state = _State(self._q0)
        frames, k = [], 0
        for topic, t, msg in self.reader.messages(self._topics, start, stop):
            while k < len(times) and times[k] < t:
                frames.append(self._frame_of(state))
                k += 1
            self._apply(state, topic, msg)
        while k < len(times):
            frames.append(self._frame_of(state))
            k += 1
        return frames

    def _apply(self, state, topic, msg):
        if topic == JOINT_STATES:
            names, positions, _, _ = bm.decode_joint_state(msg)
            if len(positions) != len(names):
                raise RecordingError(
                    f"{self.source}: field '{JOINT_STATES}.position': {len(positions)} values for {len(names)} names"
                )
            state.joints.update(zip(names, positions))
            unknown = [n for n in names if n not in self._known]
            if unknown and not self._unknown_reported:
                self._unknown_reported = True
                self._note(f"joints not in robot '{self.tree.model.name}' ignored: {', '.join(sorted(unknown))}")
        elif topic == "/odom":
            _, _, position, quaternion, _ = bm.decode_odometry(msg)
            state.base = np.concatenate([position, quaternion])
        elif topic == "/tf":
            root = self.tree.root_link
            for _, child, translation, rotation in bm.decode_transforms(msg):
                if child == root or child.endswith("/" + root):
                    state.base = np.concatenate([translation, rotation])
        elif topic == "/free_bodies":
            _, child, position, quaternion, _ = bm.decode_odometry(msg)
            state.bodies[child] = (position, quaternion)
        elif topic == "/contacts":
            state.contacts = [
                RecordedContact(point=c["point"], normal=_unit(c.get("normal")), force=c["force"])
                for c in bm.decode_contacts(msg)
            ]
            corners = bm.decode_soles(msg)
            state.soles = {k: (np.arange(len(v)).reshape(-1, 3), v) for k, v in corners.items()}

    def _frame_of(self, state):
        q, _ = self.tree.configuration(self._q0, state.joints, state.base)
        if self._merge is not None:
            q = self._merge.configuration(q)
        contacts = (state.contacts or []) if self.has_contacts else None
        return q, dict(state.bodies), contacts, dict(state.soles)

    def _note(self, text):
        text = f"{self.source}: {text}"
        if self._warn is not None:
            self._warn(text)
        else:
            import warnings

            from humanoid_viewer.exceptions import RecordingWarning

            warnings.warn(text, RecordingWarning, stacklevel=4)


class _State:
    """What the messages read so far give (held until the next message of their topic)."""

    def __init__(self, q0):
        self.joints: dict[str, float] = {}
        self.base = None
        self.bodies: dict = {}
        self.contacts: list | None = None
        self.soles: dict = {}


def _unit(normal) -> np.ndarray:
    n = np.asarray(normal if normal is not None else (0.0, 0.0, 1.0), dtype=float).reshape(-1)
    norm = np.linalg.norm(n) if n.shape == (3,) else 0.0
    return n / norm if norm > 1e-12 else np.array([0.0, 0.0, 1.0])


def load_bag_recording(path, robot, warn=None) -> BagRecording:
    """The bag ``path`` for ``robot``, replayed by seeking (`BagRecording`)."""
    return BagRecording(path, robot, warn)


def bag_document(path) -> dict:
    """What the viewer chooses its scene and robot from, before loading the bag for a robot: the
    header's ``scene`` and ``robot`` (of a bag of ours; absent otherwise) and ``joints`` (the bag
    has /joint_states, checked here: `RecordingError` in one line otherwise)."""
    with BagReader(path, RecordingError) as reader:
        reader.require(JOINT_STATES, "the robot's joint positions")
        header, _ = reader.recording_info()
    doc = {k: header[k] for k in ("scene", "robot") if header and isinstance(header.get(k), str)}
    doc["joints"] = header.get("joints", {}) if header else {}
    return doc
