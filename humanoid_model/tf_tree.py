"""ROS-free core of the state publisher: the link tree of a URDF robot as a list of transforms,
and the URDF text for /robot_description.

What `robot_state_publisher` does, with Pinocchio forward kinematics:

* every URDF joint is an edge ``parent link -> child link``;
* edges of movable joints change with the joint angles (published on ``/tf``), edges of fixed
  joints never change (published once on ``/tf_static``);
* the floating base is one more moving edge ``odom -> root link`` (the free-flyer pose).

The tree is read from the Pinocchio model built from the URDF with a free-flyer root joint named
``root_joint`` (as `humanoid_model.load_robot` does): for a BODY frame (a URDF link) its
``parentFrame`` is the frame of the URDF joint that created it (type JOINT or FIXED_JOINT), whose
``parentFrame`` in turn is the parent link. Nothing here imports rclpy.

Units: translations [m], rotations as unit quaternions (x, y, z, w), joint angles [rad].
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import ModelError

ODOM_FRAME = "odom"
"""Fixed frame of the floating base (REP 105 name); RViz's fixed frame in rviz/humanoid.rviz."""


@dataclass(frozen=True)
class Transform:
    """Pose of frame `child` expressed in frame `parent`."""

    parent: str
    child: str
    translation: np.ndarray  # (3,) [m]
    rotation: np.ndarray  # (4,) unit quaternion x, y, z, w

    def homogeneous(self) -> np.ndarray:
        """4x4 homogeneous matrix of the transform."""
        x, y, z, w = self.rotation
        out = np.eye(4)
        out[:3, :3] = pin.Quaternion(w, x, y, z).toRotationMatrix()
        out[:3, 3] = self.translation
        return out


@dataclass(frozen=True)
class _Edge:
    joint: str  # URDF joint name ("root_joint" for the floating base)
    parent_frame: int  # Pinocchio frame id of the parent link (0 = universe, i.e. odom)
    child_frame: int  # Pinocchio frame id of the child link
    moving: bool


def _to_transform(parent: str, child: str, se3: pin.SE3) -> Transform:
    quat = pin.Quaternion(se3.rotation)
    quat.normalize()
    return Transform(parent, child, np.array(se3.translation, dtype=float), np.array(quat.coeffs(), dtype=float))


class KinematicTree:
    """Link tree of a free-flyer Pinocchio model, evaluated into parent -> child transforms.

    Parameters
    ----------
    model:
        Pinocchio model with a free-flyer root joint (nq = 7 + n), e.g. ``load_robot(...).model``.
    odom_frame:
        Name given to the world frame (parent of the root link).
    """

    def __init__(self, model: pin.Model, odom_frame: str = ODOM_FRAME):
        if model.njoints < 2 or model.joints[1].nq != 7:
            raise ModelError(
                f"model '{model.name}': joint 1 ('{model.names[1] if model.njoints > 1 else ''}') "
                "is not a free-flyer; build it with load_robot() (free-flyer root_joint)"
            )
        self.model = model
        self.data = model.createData()
        self.odom_frame = odom_frame
        frames = model.frames
        edges = []
        for child_id, frame in enumerate(frames):
            if frame.type != pin.FrameType.BODY:
                continue
            joint_frame = frames[frame.parentFrame]
            if joint_frame.type not in (pin.FrameType.JOINT, pin.FrameType.FIXED_JOINT):
                continue  # a body frame added by hand, not a URDF link
            parent_id = joint_frame.parentFrame
            if parent_id == 0 and joint_frame.name != "root_joint":
                continue  # link fixed to the universe (URDF "world" link): not part of the robot tree
            moving = joint_frame.type == pin.FrameType.JOINT
            edges.append(_Edge(joint_frame.name, parent_id, child_id, moving))
        self._edges = edges
        self.root_link = next(frames[e.child_frame].name for e in edges if e.joint == "root_joint")
        # Actuated 1-DoF joints: name -> (index in q, nq) ; nq == 2 for unbounded revolute joints.
        self._joint_q = {}
        for jid in range(2, model.njoints):
            joint = model.joints[jid]
            if joint.nv == 1:
                self._joint_q[model.names[jid]] = (joint.idx_q, joint.nq)
        self._static = self._evaluate(pin.neutral(model), moving=False)

    # ------------------------------------------------------------------ configuration
    @property
    def joint_names(self) -> list[str]:
        """Names of the 1-DoF joints that a JointState may set, in model order."""
        return list(self._joint_q)

    def configuration(
        self, q_default: np.ndarray, positions: dict | None = None, base_pose: np.ndarray | None = None
    ) -> tuple[np.ndarray, list[str]]:
        """Full configuration q (nq,) from a default q, joint angles and an optional base pose.

        Parameters
        ----------
        q_default: (nq,) configuration used for every joint not in `positions` (and for the
            base when `base_pose` is None).
        positions: joint name -> angle [rad] (or displacement [m] for prismatic joints).
            Names not in the model and non-finite values are skipped and returned as unknown.
        base_pose: (7,) x, y, z [m] + quaternion x, y, z, w of the root link in the odom frame.

        Returns (q, skipped) where `skipped` lists the names that were ignored.
        """
        q = np.array(q_default, dtype=float, copy=True)
        if q.shape != (self.model.nq,):
            raise ModelError(
                f"model '{self.model.name}': default configuration has shape {q.shape}, expected ({self.model.nq},)"
            )
        skipped = []
        for name, value in (positions or {}).items():
            slot = self._joint_q.get(name)
            value = float(value)
            if slot is None or not math.isfinite(value):
                skipped.append(name)
                continue
            idx, nq = slot
            if nq == 1:
                q[idx] = value
            else:  # unbounded revolute joint stored as (cos, sin)
                q[idx], q[idx + 1] = math.cos(value), math.sin(value)
        if base_pose is not None:
            pose = np.asarray(base_pose, dtype=float)
            norm = np.linalg.norm(pose[3:7])
            if pose.shape == (7,) and np.all(np.isfinite(pose)) and norm > 1e-9:
                q[:3] = pose[:3]
                q[3:7] = pose[3:7] / norm
            else:
                skipped.append("base_pose")
        return q, skipped

    # ------------------------------------------------------------------ transforms
    def _evaluate(self, q: np.ndarray, moving: bool) -> list[Transform]:
        pin.framesForwardKinematics(self.model, self.data, q)
        frames, placements = self.model.frames, self.data.oMf
        out = []
        for edge in self._edges:
            if edge.moving != moving:
                continue
            child = frames[edge.child_frame].name
            if edge.parent_frame == 0:
                out.append(_to_transform(self.odom_frame, child, placements[edge.child_frame]))
            else:
                rel = placements[edge.parent_frame].actInv(placements[edge.child_frame])
                out.append(_to_transform(frames[edge.parent_frame].name, child, rel))
        return out

    def moving_transforms(self, q: np.ndarray) -> list[Transform]:
        """Transforms of the movable joints and of the floating base (odom -> root link) at q."""
        q = np.asarray(q, dtype=float)
        if q.shape != (self.model.nq,) or not np.all(np.isfinite(q)):
            raise ModelError(
                f"model '{self.model.name}': configuration must be {self.model.nq} finite numbers, got shape {q.shape}"
            )
        return self._evaluate(q, moving=True)

    def static_transforms(self) -> list[Transform]:
        """Transforms of the fixed joints (constant, for /tf_static)."""
        return list(self._static)


BASE_LINK = "base_link"
"""REP 105 / REP 120 name of the frame fixed to the robot's base (here: the root link's frame)."""


def robot_frames(root_link: str, contact_locations: dict, link_names) -> list[Transform]:
    """The REP 120 frames the URDF lacks, as constant transforms (for /tf_static).

    * ``base_link`` on the root link (identity), unless the URDF has a link of that name;
    * one frame per contact location, named as the location (``r_sole``, ``l_sole``, ``r_hand``,
      ...: REP 120's sole names for the soles), on its body at its reference point: z along the
      inward normal (for a sole: up, into the foot, as REP 120's ``*_sole``), x along its tangent.

    ``contact_locations``: name -> `humanoid_model.contact_location.ContactLocation`;
    ``link_names``: the URDF's link names (a frame of an existing link's name is not added).
    """
    links = set(link_names)
    out = []
    if BASE_LINK not in links:
        out.append(Transform(root_link, BASE_LINK, np.zeros(3), np.array([0.0, 0.0, 0.0, 1.0])))
    for name, loc in sorted(contact_locations.items()):
        if name in links:
            continue
        z = np.asarray(loc.normal, dtype=float)
        x = np.asarray(loc.tangent, dtype=float)
        rotation = np.column_stack([x, np.cross(z, x), z])
        quat = pin.Quaternion(rotation)
        quat.normalize()
        out.append(Transform(loc.body, name, np.asarray(loc.point, dtype=float).copy(), quat.coeffs().copy()))
    return out


def static_frames(tree: KinematicTree, contact_locations: dict) -> list[Transform]:
    """Everything /tf_static carries for a robot: ``tree``'s fixed joints and `robot_frames`."""
    links = [f.name for f in tree.model.frames if f.type == pin.FrameType.BODY]
    return tree.static_transforms() + robot_frames(tree.root_link, contact_locations, links)


_MESH_ATTR = re.compile(r'(<mesh\b[^>]*?\bfilename\s*=\s*)(["\'])(.*?)\2', re.S)


def description_with_uris(urdf_text: str) -> str:
    """URDF text for /robot_description: absolute mesh paths become ``file://`` URIs.

    `load_robot` already resolves ``package://`` and relative mesh names to absolute paths
    (`Robot.urdf_text`); RViz's resource retriever wants URIs, so plain absolute paths are
    rewritten as ``file:///...``. Names that already are URIs are left unchanged.
    """

    def replace(match: re.Match) -> str:
        name = match.group(3)
        if "://" in name or not Path(name).is_absolute():
            return match.group(0)
        return f"{match.group(1)}{match.group(2)}{Path(name).as_uri()}{match.group(2)}"

    return _MESH_ATTR.sub(replace, urdf_text)
