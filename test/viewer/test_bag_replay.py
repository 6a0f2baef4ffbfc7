"""Replaying rosbag2 bags by seeking (`humanoid_viewer.bag_replay`, docs/recording.md): the bag of a
short `simulate` replays the same frames as the JSON Lines recording of the same run; the replay
decodes windows of frames, not the whole bag; a user's bag, written here with rosbags and another
ROS 2 distribution's message definitions, with its joints in another order, a joint the robot does
not have and a slower /tf for the base, replays its joints by name and holds the base pose between
its /tf messages; a bag without /joint_states or cut in half is one line; the viewer plays a bag."""

import shutil

import numpy as np
import pytest

from humanoid_model import load_robot
from humanoid_model.tf_tree import KinematicTree
from humanoid_viewer import bag_replay
from humanoid_viewer.app import Viewer
from humanoid_viewer.bag_replay import HOLD, bag_document, load_bag_recording
from humanoid_viewer.exceptions import RecordingError
from humanoid_viewer.replay import load_recording


@pytest.fixture(scope="module")
def hrp2():
    return load_robot("hrp2")


def test_a_bag_replays_the_frames_of_the_json_lines_recording(hrp2_stand_bag, hrp2_stand_jsonl, hrp2):
    bag = load_bag_recording(hrp2_stand_bag[0], hrp2)
    ref = load_recording(hrp2_stand_jsonl, hrp2)
    assert len(bag) == len(ref) and bag.t == pytest.approx(ref.t, abs=1e-9)
    assert (bag.scene, bag.robot, bag.nq) == (ref.scene, ref.robot, ref.nq)
    for i in range(len(ref)):
        q, bodies, contacts, soles = bag.frame(i)
        q_ref, _, contacts_ref, _ = ref.frame(i)
        assert q == pytest.approx(q_ref, abs=1e-8), i  # JSON Lines rounds to 1e-9 (quaternions 1e-12)
        assert len(contacts) == len(contacts_ref), i
        for c, r in zip(contacts, contacts_ref):
            assert c.point == pytest.approx(r.point, abs=1e-8) and c.force == pytest.approx(r.force, abs=1e-6)
            assert c.normal == pytest.approx(r.normal, abs=1e-8)
        assert bodies == {} and soles == {}


def test_a_bag_replay_decodes_windows_not_the_whole_bag(hrp2_stand_bag, hrp2, monkeypatch):
    block = 16  # frames per window, so that the 1 s run has several
    monkeypatch.setattr(bag_replay, "BLOCK", block)
    rec = bag_replay.load_bag_recording(hrp2_stand_bag[0], hrp2)
    total = sum(count for _, count in rec.reader.topics.values())
    replayed = 3  # /joint_states, /odom, /contacts: /tf, /imu and the wrenches are never decoded
    header = 2
    assert rec.reader.decoded == header + replayed * block  # loading: the header and the first window
    before = rec.reader.decoded
    rec.frame(len(rec) - 1)  # the last window, with the messages of the HOLD seconds before it
    last = len(rec) - (len(rec) - 1) // block * block
    hold = int(np.ceil(HOLD / (rec.t[1] - rec.t[0]))) + 1  # frames looked back at
    assert rec.reader.decoded - before <= replayed * (last + hold)
    assert rec.reader.decoded < header + replayed * len(rec) < total
    before = rec.reader.decoded
    rec.frame(len(rec) - 2)  # in the window read: nothing decoded
    assert rec.reader.decoded == before


def _user_bag(path, robot):
    """A bag as a user's robot would record it (rosbags Writer, ROS 2 Humble's definitions, time
    stamps from the epoch): /joint_states at 50 Hz with the joints in reverse order plus one the
    robot does not have, joint k at 0.01 k + 0.1 t [rad]; /tf at 25 Hz, odom -> root link at x = t."""
    from rosbags.rosbag2 import StoragePlugin, Writer
    from rosbags.typesys import Stores, get_typestore

    ts = get_typestore(Stores.ROS2_HUMBLE)
    T = ts.types
    names = [*reversed(robot.joint_names), "EXTRA_JOINT"]
    root = KinematicTree(robot.model).root_link
    t0 = 1_700_000_000 * 10**9  # [ns]

    def header(ns, frame=""):
        return T["std_msgs/msg/Header"](
            stamp=T["builtin_interfaces/msg/Time"](sec=ns // 10**9, nanosec=ns % 10**9), frame_id=frame
        )

    with Writer(path, version=8, storage_plugin=StoragePlugin.MCAP) as w:
        js = w.add_connection("/joint_states", "sensor_msgs/msg/JointState", typestore=ts)
        tf = w.add_connection("/tf", "tf2_msgs/msg/TFMessage", typestore=ts)
        for k in range(50):  # 1 s
            ns = t0 + k * 20_000_000
            t = k * 0.02
            values = np.array([0.01 * (len(names) - 1 - j) + 0.1 * t for j in range(len(names))])
            msg = T["sensor_msgs/msg/JointState"](
                header=header(ns), name=names, position=values, velocity=np.zeros(0), effort=np.zeros(0)
            )
            w.write(js, ns, ts.serialize_cdr(msg, msg.__msgtype__))
            if k % 2 == 0:
                transform = T["geometry_msgs/msg/Transform"](
                    translation=T["geometry_msgs/msg/Vector3"](x=t, y=0.0, z=0.6),
                    rotation=T["geometry_msgs/msg/Quaternion"](x=0.0, y=0.0, z=0.0, w=1.0),
                )
                stamped = T["geometry_msgs/msg/TransformStamped"](
                    header=header(ns, "odom"), child_frame_id=root, transform=transform
                )
                msg = T["tf2_msgs/msg/TFMessage"](transforms=[stamped])
                w.write(tf, ns + 1000, ts.serialize_cdr(msg, msg.__msgtype__))  # 1 µs after the joints
    return names


def test_a_users_bag_replays_its_joints_by_name_and_its_base_from_tf(tmp_path, hrp2):
    path = tmp_path / "robot_bag"
    names = _user_bag(path, hrp2)
    notes = []
    assert bag_document(path) == {"joints": {}}  # not ours: no scene nor robot named
    rec = load_bag_recording(path, hrp2, notes.append)
    assert len(rec) == 50 and rec.t[0] == 0.0 and rec.t[-1] == pytest.approx(0.98)
    model = hrp2.model
    for i in (0, 1, 2, 25, 49):
        q, _, contacts, _ = rec.frame(i)
        t = 0.02 * i
        for j, name in enumerate(names[:-1]):
            idx = model.joints[model.getJointId(name)].idx_q
            assert q[idx] == pytest.approx(0.01 * (len(names) - 1 - j) + 0.1 * t), (i, name)
        # the base: the last /tf at or before the frame (25 Hz, 1 µs after the even frames' joints)
        t_tf = 0.02 * (i - 1 - (i - 1) % 2) if i > 0 else None
        expected_x = hrp2.q()[0] if t_tf is None else t_tf
        assert q[0] == pytest.approx(expected_x), i
        assert contacts is None
    assert len(notes) == 1 and "EXTRA_JOINT" in notes[0] and "\n" not in notes[0]


def test_a_bag_without_joint_states_is_one_line(tmp_path, hrp2):
    from humanoid_model.exceptions import ConfigError
    from humanoid_model.formats.bag import BagWriter

    with BagWriter(tmp_path / "b", ConfigError) as out:
        out.write_frame(0.0, base=("BODY", [0, 0, 1], [0, 0, 0, 1], [0] * 6))
    for load in (bag_document, lambda p: load_bag_recording(p, hrp2)):
        with pytest.raises(RecordingError) as err:
            load(tmp_path / "b")
        assert "\n" not in str(err.value) and "no messages on /joint_states" in str(err.value)


def test_a_bag_cut_in_half_is_one_line(hrp2_stand_bag, tmp_path, hrp2):
    cut = tmp_path / "cut"
    shutil.copytree(hrp2_stand_bag[0], cut)
    mcap = next(cut.glob("*.mcap"))
    mcap.write_bytes(mcap.read_bytes()[: mcap.stat().st_size // 2])
    with pytest.raises(RecordingError) as err:
        load_bag_recording(cut, hrp2)
    assert "\n" not in str(err.value) and "truncated" in str(err.value)


def test_the_viewer_plays_a_bag(hrp2_stand_bag, hrp2):
    rec = load_bag_recording(hrp2_stand_bag[0], hrp2)
    with Viewer(hrp2, scene="flat", port=0, verbose=False) as viewer:
        viewer.load_replay(rec)
        viewer.replay.timeline.value = 0.5  # as dragging the timeline does
        i = viewer.replay_index
        assert rec.t[i] == pytest.approx(0.5)
        np.testing.assert_allclose(viewer.q, rec.frame(i)[0])
        assert len(viewer.contact_segments()) == 8
