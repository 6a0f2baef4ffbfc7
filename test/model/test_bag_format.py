"""The recording bag (`humanoid_model.formats.bag`, docs/recording.md): a rosbag2 bag with MCAP
storage written by `humanoid-stack simulate` (HRP-2 standing, the session fixture `hrp2_stand_bag`)
read back with `BagReader` (the pure-Python rosbags library, no rclpy): each topic's message count
follows from the duration and the rates, the time stamps are the simulated clock in order, /tf is
the state publisher's tree at /joint_states and /odom, the contacts carry the weight; a time window
decodes only its messages; the writer's messages decode to what it was given; a truncated bag and a
bag without /joint_states are refused in one line."""

import shutil

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model import load_robot
from humanoid_model.exceptions import ConfigError
from humanoid_model.formats import bag_messages as bm
from humanoid_model.formats.bag import FORMAT, BagReader, BagWriter
from humanoid_model.tf_tree import KinematicTree, Transform

G = 9.81  # [m/s²] the scene's gravity (flat)


@pytest.fixture(scope="module")
def hrp2():
    return load_robot("hrp2")


def _frames(duration, dt, every):
    """Recorded frames of a run: t = 0 and every ``every`` steps of ``dt`` up to ``duration``."""
    return int(round(duration / dt)) // every + 1


def test_each_topic_has_one_message_per_recorded_frame(hrp2_stand_bag, hrp2):
    path, (duration, dt, every) = hrp2_stand_bag
    n = _frames(duration, dt, every)
    sensors = hrp2.sensors["force_torque"]
    with BagReader(path, ConfigError) as bag:
        counts = {topic: count for topic, (_, count) in bag.topics.items()}
        types = {topic: msgtype for topic, (msgtype, _) in bag.topics.items()}
    expected = {"/joint_states": n, "/odom": n, "/tf": n, "/contacts": n, "/tf_static": 1}
    expected["/humanoid_stack/recording"] = 2  # the header and the end line
    # sensor readings are of the step just taken: none at t = 0
    expected["/imu"] = n - 1
    expected.update({f"/{name}/wrench": n - 1 for name in sensors})
    assert counts == expected
    assert types["/joint_states"] == "sensor_msgs/msg/JointState"
    assert types["/tf"] == types["/tf_static"] == "tf2_msgs/msg/TFMessage"
    assert types["/odom"] == "nav_msgs/msg/Odometry" and types["/imu"] == "sensor_msgs/msg/Imu"
    assert types["/contacts"] == "visualization_msgs/msg/MarkerArray"
    assert all(types[f"/{name}/wrench"] == "geometry_msgs/msg/WrenchStamped" for name in sensors)


def test_time_stamps_are_the_simulated_clock_in_order(hrp2_stand_bag):
    path, (duration, dt, every) = hrp2_stand_bag
    period = dt * every
    with BagReader(path, ConfigError) as bag:
        for topic in ("/joint_states", "/odom", "/tf", "/contacts", "/imu"):
            t = bag.times(topic)
            assert np.all(np.diff(t) > 0), topic
            first = 0.0 if topic != "/imu" else period
            assert t == pytest.approx(np.arange(first, duration + period / 2, period), abs=1e-9), topic
        header_stamps = [
            (t, bm.seconds(msg.header.stamp)) for _, t, msg in bag.messages(["/joint_states", "/odom", "/imu"])
        ]
    assert all(abs(log - stamp) < 1e-9 for log, stamp in header_stamps)


def test_the_header_and_stats_name_the_run(hrp2_stand_bag, hrp2):
    path, (duration, dt, every) = hrp2_stand_bag
    with BagReader(path, ConfigError) as bag:
        header, stats = bag.recording_info()
    assert header["format"] == FORMAT and header["robot"] == "hrp2" and header["scene_name"] == "flat"
    assert header["dt"] == dt and header["record_every"] == every
    assert header["joints"]["names"] == list(hrp2.joint_names)
    assert stats["steps"] == int(round(duration / dt))


def test_tf_is_the_state_publisher_tree_at_the_joint_states_and_odom(hrp2_stand_bag, hrp2):
    """/tf recomputed from /joint_states and /odom by `KinematicTree` (the state publisher's code)."""
    path, _ = hrp2_stand_bag
    tree = KinematicTree(hrp2.model)
    with BagReader(path, ConfigError) as bag:
        msgs = {topic: msg for topic, _, msg in bag.messages(["/joint_states", "/odom", "/tf"], 0.5, 0.5 + 1e-6)}
        static = next(bag.messages(["/tf_static"]))[2]
    names, positions, _, _ = bm.decode_joint_state(msgs["/joint_states"])
    frame, child, position, quaternion, _ = bm.decode_odometry(msgs["/odom"])
    assert (frame, child) == ("odom", tree.root_link)
    q, skipped = tree.configuration(hrp2.q(), dict(zip(names, positions)), np.concatenate([position, quaternion]))
    assert skipped == []
    expected = {(tf.parent, tf.child): tf for tf in tree.moving_transforms(q)}
    got = bm.decode_transforms(msgs["/tf"])
    assert {(p, c) for p, c, _, _ in got} == set(expected)
    for parent, child, translation, rotation in got:
        tf = expected[(parent, child)]
        assert translation == pytest.approx(tf.translation, abs=1e-12)
        assert abs(abs(float(np.dot(rotation, tf.rotation))) - 1.0) < 1e-12
    assert {(p, c) for p, c, _, _ in bm.decode_transforms(static)} == {
        (tf.parent, tf.child) for tf in tree.static_transforms()
    }


def test_standing_contacts_carry_the_weight_and_the_imu_feels_gravity(hrp2_stand_bag, hrp2):
    path, (duration, _, _) = hrp2_stand_bag
    weight = pin.computeTotalMass(hrp2.model) * G
    with BagReader(path, ConfigError) as bag:
        last = {topic: msg for topic, _, msg in bag.messages(["/contacts", "/imu"], duration - 1e-6)}
    contacts = bm.decode_contacts(last["/contacts"])
    assert len(contacts) == 8 and {c["body_b"] for c in contacts} == {"ground"}
    assert sum(c["force"][2] for c in contacts) == pytest.approx(weight, rel=5e-3)
    assert all(np.linalg.norm(c["normal"]) == pytest.approx(1.0) for c in contacts)
    a = last["/imu"].linear_acceleration  # standing still: the proper acceleration is -g
    assert np.linalg.norm([a.x, a.y, a.z]) == pytest.approx(G, rel=1e-2)


def test_a_time_window_decodes_its_messages_only(hrp2_stand_bag):
    path, (duration, dt, every) = hrp2_stand_bag
    with BagReader(path, ConfigError) as bag:
        total = sum(count for _, count in bag.topics.values())
        got = list(bag.messages(["/joint_states"], 0.5, 0.55))
        assert [topic for topic, _, _ in got] == ["/joint_states"] * 5  # 0.50 ... 0.54
        assert bag.decoded == 5 < total


def test_written_messages_decode_to_what_was_given(tmp_path):
    contacts = [
        {"body_a": "box", "body_b": "ground", "point": [0.1, -0.2, 0.0], "normal": [0, 0, 1], "force": [1.5, -2, 30.0]},
        {"body_a": "box", "body_b": "ground", "point": [0.3, 0.2, 0.0], "normal": [0, 0, 1], "force": [0, 0, 0]},
    ]
    rotation = np.array([0.0, 0.0, np.sin(0.3), np.cos(0.3)])
    with BagWriter(tmp_path / "b", ConfigError) as out:
        out.write_header(scene="s", scene_name="s", robot=None, dt=0.002, record_every=1, contacts=True)
        for k in range(3):
            out.write_frame(
                0.002 * k,
                joints=(["b", "a"], [k, -k], [0.5, 0.25], [3.0, 4.0]),
                base=("base", [k, 0, 1], rotation, [1, 2, 3, 4, 5, 6]),
                transforms=[Transform("odom", "base", np.array([k, 0.0, 1.0]), rotation)],
                wrenches={"ft": ("FT", [1, 2, 3], [4, 5, 6])},
                contacts=contacts,
            )
        out.write_end({"steps": 2})
    with BagReader(tmp_path / "b", ConfigError) as bag:
        msgs = {topic: msg for topic, _, msg in bag.messages(list(bag.topics), 0.004)}
        header, stats = bag.recording_info()
    assert header["dt"] == 0.002 and stats == {"steps": 2}
    names, pos, vel, eff = bm.decode_joint_state(msgs["/joint_states"])
    assert names == ["b", "a"] and pos.tolist() == [2, -2] and vel.tolist() == [0.5, 0.25] and eff.tolist() == [3, 4]
    frame, child, p, quat, twist = bm.decode_odometry(msgs["/odom"])
    assert (frame, child, p.tolist(), twist.tolist()) == ("odom", "base", [2, 0, 1], [1, 2, 3, 4, 5, 6])
    assert quat == pytest.approx(rotation)
    w = msgs["/ft/wrench"]
    assert w.header.frame_id == "FT" and [w.wrench.torque.x, w.wrench.torque.y, w.wrench.torque.z] == [4, 5, 6]
    back = bm.decode_contacts(msgs["/contacts"])
    assert [c["body_a"] for c in back] == ["box", "box"]
    for c, given in zip(back, contacts):
        assert c["point"] == pytest.approx(given["point"], abs=1e-12)
        assert c["force"] == pytest.approx(given["force"], abs=1e-9)


def test_a_bag_that_exists_is_not_overwritten(tmp_path):
    (tmp_path / "b").mkdir()
    with pytest.raises(ConfigError, match="exists already"):
        BagWriter(tmp_path / "b", ConfigError)


def test_a_truncated_bag_is_one_line(hrp2_stand_bag, tmp_path):
    path, _ = hrp2_stand_bag
    cut = tmp_path / "cut"
    shutil.copytree(path, cut)
    mcap = next(cut.glob("*.mcap"))
    data = mcap.read_bytes()
    mcap.write_bytes(data[: len(data) // 2])
    for target in (cut, mcap):
        with pytest.raises(ConfigError) as err:
            BagReader(target, ConfigError)
        text = str(err.value)
        assert "\n" not in text and str(target) in text and "truncated" in text


def test_a_bag_without_joint_states_is_one_line(tmp_path):
    with BagWriter(tmp_path / "b", ConfigError) as out:
        out.write_frame(0.0, base=("base", [0, 0, 1], [0, 0, 0, 1], [0] * 6))
    expected = r"field '/joint_states': no messages on /joint_states.*topics: /odom$"
    with BagReader(tmp_path / "b", ConfigError) as bag, pytest.raises(ConfigError, match=expected):
        bag.require("/joint_states", "the joint positions")
