"""The ROS 2 messages of a recording bag (`humanoid_model.formats.bag`), built and decoded with the
pure-Python `rosbags` typestore (no rclpy): plain numbers in, message objects out, and back.

    ts = typestore()                                   # ROS 2 Kilted's message types
    msg = joint_state(ts, t, names, positions, velocities, efforts)
    names, position, velocity, effort = decode_joint_state(msg)

Units: SI, quaternions x y z w, time stamps the simulated time [s] (`stamp`). The contact and
sole markers are the simulator node's /contacts layout (docs/recording.md): one ARROW per contact
in namespace ``forces`` from the contact point to point + `FORCE_SCALE` x force, its ``text`` the
contact's other fields as JSON; one TRIANGLE_LIST per FEM sole in namespace ``soles``.
"""

from __future__ import annotations

import json
import math

import numpy as np

from humanoid_model.display import FORCE_SCALE

__all__ = [
    "STORE",
    "typestore",
    "stamp",
    "seconds",
    "joint_state",
    "odometry",
    "tf_message",
    "imu",
    "wrench",
    "contact_markers",
    "text",
    "decode_joint_state",
    "decode_odometry",
    "decode_transforms",
    "decode_contacts",
    "decode_soles",
]

STORE = "ros2_kilted"  # the ROS 2 distribution whose message definitions are written (requirements-ros.txt)
CONTACTS_NS = "forces"  # marker namespace of the contact arrows (the simulator node's /contacts)
SOLES_NS = "soles"  # marker namespace of the FEM soles' surfaces (the simulator node's /contacts)
ARROW, TRIANGLE_LIST, DELETEALL = 0, 11, 3  # visualization_msgs/Marker type and action constants
_NANO = 1_000_000_000
_ARROW_STYLE = ((0.01, 0.02, 0.0), (0.9, 0.1, 0.1, 1.0))  # the simulator node's force arrows
_SOLE_STYLE = ((1.0, 1.0, 1.0), (0.35, 0.35, 0.35, 1.0))  # the simulator node's soles


def typestore():
    """The `rosbags` typestore of the message types written (`STORE`)."""
    from rosbags.typesys import Stores, get_typestore

    return get_typestore(Stores(STORE))


def stamp(ts, t: float):
    """builtin_interfaces/Time of ``t`` [s] (>= 0)."""
    sec = int(math.floor(t))
    return ts.types["builtin_interfaces/msg/Time"](sec=sec, nanosec=min(int(round((t - sec) * 1e9)), _NANO - 1))


def seconds(time_msg) -> float:
    """[s] of a builtin_interfaces Time."""
    return float(time_msg.sec) + 1e-9 * float(time_msg.nanosec)


def _header(ts, t, frame_id):
    return ts.types["std_msgs/msg/Header"](stamp=stamp(ts, t), frame_id=str(frame_id))


def _vector(ts, v, kind="Vector3"):
    x, y, z = (float(c) for c in v)
    return ts.types[f"geometry_msgs/msg/{kind}"](x=x, y=y, z=z)


def _quaternion(ts, q):
    x, y, z, w = (float(c) for c in q)
    return ts.types["geometry_msgs/msg/Quaternion"](x=x, y=y, z=z, w=w)


def _array(values) -> np.ndarray:
    return np.asarray(values, dtype=np.float64).reshape(-1)


# ---------------------------------------------------------------------- building
def joint_state(ts, t, names, positions, velocities, efforts):
    """sensor_msgs/JointState at ``t`` [s]: positions [rad or m], velocities, efforts [N·m or N]."""
    return ts.types["sensor_msgs/msg/JointState"](
        header=_header(ts, t, ""),
        name=[str(n) for n in names],
        position=_array(positions),
        velocity=_array(velocities),
        effort=_array(efforts),
    )


def odometry(ts, t, frame_id, child_frame_id, position, quaternion, twist):
    """nav_msgs/Odometry: the pose of ``child_frame_id`` in ``frame_id`` and its twist (6,) [m/s,
    rad/s], linear then angular, in the child frame (REP 105); zero covariances."""
    g = ts.types
    pose = g["geometry_msgs/msg/Pose"](position=_vector(ts, position, "Point"), orientation=_quaternion(ts, quaternion))
    twist_msg = g["geometry_msgs/msg/Twist"](linear=_vector(ts, twist[:3]), angular=_vector(ts, twist[3:]))
    return g["nav_msgs/msg/Odometry"](
        header=_header(ts, t, frame_id),
        child_frame_id=str(child_frame_id),
        pose=g["geometry_msgs/msg/PoseWithCovariance"](pose=pose, covariance=np.zeros(36)),
        twist=g["geometry_msgs/msg/TwistWithCovariance"](twist=twist_msg, covariance=np.zeros(36)),
    )


def tf_message(ts, t, transforms):
    """tf2_msgs/TFMessage of `humanoid_model.tf_tree.Transform` records, stamped ``t`` [s]."""
    g = ts.types
    out = []
    for tf in transforms:
        transform = g["geometry_msgs/msg/Transform"](
            translation=_vector(ts, tf.translation), rotation=_quaternion(ts, tf.rotation)
        )
        out.append(
            g["geometry_msgs/msg/TransformStamped"](
                header=_header(ts, t, tf.parent), child_frame_id=str(tf.child), transform=transform
            )
        )
    return g["tf2_msgs/msg/TFMessage"](transforms=out)


def imu(ts, t, frame_id, reading: dict):
    """sensor_msgs/Imu of a `humanoid_sim` IMU reading (orientation xyzw in the world, angular
    velocity [rad/s] and proper acceleration [m/s²] in the IMU frame); covariances zero (unknown)."""
    return ts.types["sensor_msgs/msg/Imu"](
        header=_header(ts, t, frame_id),
        orientation=_quaternion(ts, reading["orientation"]),
        orientation_covariance=np.zeros(9),
        angular_velocity=_vector(ts, reading["angular_velocity"]),
        angular_velocity_covariance=np.zeros(9),
        linear_acceleration=_vector(ts, reading["linear_acceleration"]),
        linear_acceleration_covariance=np.zeros(9),
    )


def wrench(ts, t, frame_id, force, torque):
    """geometry_msgs/WrenchStamped: force [N] and torque [N·m] in ``frame_id``."""
    g = ts.types
    w = g["geometry_msgs/msg/Wrench"](force=_vector(ts, force), torque=_vector(ts, torque))
    return g["geometry_msgs/msg/WrenchStamped"](header=_header(ts, t, frame_id), wrench=w)


def _marker(ts, t, frame_id, ns, mid, mtype, points, style, label=""):
    g = ts.types
    (sx, sy, sz), (r, gr, b, a) = style
    return g["visualization_msgs/msg/Marker"](
        header=_header(ts, t, frame_id),
        ns=ns,
        id=int(mid),
        type=mtype,
        action=0,
        pose=g["geometry_msgs/msg/Pose"](
            position=_vector(ts, (0, 0, 0), "Point"), orientation=_quaternion(ts, (0, 0, 0, 1))
        ),
        scale=_vector(ts, (sx, sy, sz)),
        color=g["std_msgs/msg/ColorRGBA"](r=r, g=gr, b=b, a=a),
        lifetime=g["builtin_interfaces/msg/Duration"](sec=0, nanosec=0),
        frame_locked=False,
        points=[_vector(ts, p, "Point") for p in points],
        colors=[],
        texture_resource="",
        texture=g["sensor_msgs/msg/CompressedImage"](
            header=_header(ts, 0.0, ""), format="", data=np.zeros(0, np.uint8)
        ),
        uv_coordinates=[],
        text=label,
        mesh_resource="",
        mesh_file=g["visualization_msgs/msg/MeshFile"](filename="", data=np.zeros(0, np.uint8)),
        mesh_use_embedded_materials=False,
    )


def contact_markers(ts, t, frame_id, contacts, soles=None):
    """visualization_msgs/MarkerArray: DELETEALL, then per contact (a dict {body_a, body_b, point,
    normal, force, gap}, world frame) one ARROW in namespace ``forces`` from the point to point +
    `FORCE_SCALE` x force (a zero force: a zero-length arrow), its ``text`` the JSON of {body_a,
    body_b, normal, gap}; per FEM sole (``soles``: name -> (triangles (T, 3), points (V, 3))) one
    TRIANGLE_LIST in namespace ``soles``, its ``text`` the sole's name."""
    clear = _marker(ts, t, frame_id, "", 0, ARROW, [], ((0, 0, 0), (0, 0, 0, 0)))
    clear.action = DELETEALL
    out = [clear]
    for k, c in enumerate(contacts or ()):
        p = np.asarray(c["point"], float)
        end = p + FORCE_SCALE * np.asarray(c["force"], float)
        label = json.dumps(
            {
                "body_a": c.get("body_a"),
                "body_b": c.get("body_b"),
                "normal": list(map(float, c.get("normal", (0, 0, 1)))),
                "gap": c.get("gap"),
            }
        )
        out.append(_marker(ts, t, frame_id, CONTACTS_NS, k, ARROW, [p, end], _ARROW_STYLE, label))
    for k, (name, (tri, pts)) in enumerate((soles or {}).items()):
        corners = np.asarray(pts, float)[np.asarray(tri, int).reshape(-1)]
        out.append(_marker(ts, t, frame_id, SOLES_NS, k, TRIANGLE_LIST, corners, _SOLE_STYLE, str(name)))
    return ts.types["visualization_msgs/msg/MarkerArray"](markers=out)


def text(ts, value: str):
    """std_msgs/String."""
    return ts.types["std_msgs/msg/String"](data=value)


# ---------------------------------------------------------------------- decoding
def _xyz(v) -> np.ndarray:
    return np.array([v.x, v.y, v.z], dtype=float)


def _xyzw(q) -> np.ndarray:
    return np.array([q.x, q.y, q.z, q.w], dtype=float)


def decode_joint_state(msg) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray]:
    """(names, positions, velocities, efforts) of a sensor_msgs/JointState (velocities and efforts
    may be empty, as the message allows)."""
    return list(msg.name), _array(msg.position), _array(msg.velocity), _array(msg.effort)


def decode_odometry(msg) -> tuple[str, str, np.ndarray, np.ndarray, np.ndarray]:
    """(frame_id, child_frame_id, position (3,), quaternion xyzw (4,), twist (6,)) of a nav_msgs/Odometry."""
    pose, tw = msg.pose.pose, msg.twist.twist
    twist = np.concatenate([_xyz(tw.linear), _xyz(tw.angular)])
    return msg.header.frame_id, msg.child_frame_id, _xyz(pose.position), _xyzw(pose.orientation), twist


def decode_transforms(msg) -> list[tuple[str, str, np.ndarray, np.ndarray]]:
    """(parent, child, translation (3,), rotation xyzw (4,)) of each transform of a tf2_msgs/TFMessage."""
    return [
        (t.header.frame_id, t.child_frame_id, _xyz(t.transform.translation), _xyzw(t.transform.rotation))
        for t in msg.transforms
    ]


def decode_contacts(msg) -> list[dict]:
    """The contacts of a MarkerArray (`contact_markers`, or the simulator node's /contacts at the
    default force scale): per ARROW of namespace ``forces`` with two points, {point, force, normal?,
    body_a?, body_b?, gap?} (world frame [m], [N]); other markers are skipped."""
    out = []
    for m in msg.markers:
        if m.ns != CONTACTS_NS or m.type != ARROW or m.action == DELETEALL or len(m.points) != 2:
            continue
        p0, p1 = _xyz(m.points[0]), _xyz(m.points[1])
        c = {"point": p0, "force": (p1 - p0) / FORCE_SCALE}
        try:
            extra = json.loads(m.text) if m.text else {}
        except ValueError:
            extra = {}
        if isinstance(extra, dict):
            c.update({k: extra[k] for k in ("body_a", "body_b", "normal", "gap") if k in extra})
        out.append(c)
    return out


def decode_soles(msg) -> dict[str, np.ndarray]:
    """Sole name -> (3T, 3) triangle corners [m] of each TRIANGLE_LIST of namespace ``soles``."""
    return {
        (m.text or f"sole{m.id}"): np.array([_xyz(p) for p in m.points]).reshape(-1, 3)
        for m in msg.markers
        if m.ns == SOLES_NS and m.type == TRIANGLE_LIST and m.action != DELETEALL
    }
