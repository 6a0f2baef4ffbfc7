"""The pilot's input devices and display aids (`humanoid_control.piloting` re-exports them): the
gizmo axes, the held twist of a 6-DOF mouse or a joystick (`HeldTwist`) and the joint-speed spheres.

Gizmo axes (`command_axes`; the thesis's command frames, Flückiger 1998, §3.4.3.1 and §6.1.2.2):
a gizmo sits at the driven frame's origin with the axes of the command frame (world, the frame's
own "tool" axes, or the camera's "view" axes); `gizmo_target` turns its dragged pose into the
absolute target, rotations pivoting about the frame's origin (Pinocchio's LOCAL_WORLD_ALIGNED
semantics, as `FrameTarget.move`).

The joint-speed spheres (`speed_spheres`): a sphere at each joint's origin of radius proportional
to its speed (Flückiger 1998, §6.2.2, Fig. 6-9), drawn by the pilot's viewer and markers.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import KinematicsError

__all__ = ["COMMAND_FRAMES", "SPEED_SPHERE_SCALE", "HeldTwist", "command_axes", "gizmo_target", "speed_spheres"]

COMMAND_FRAMES = ("world", "tool", "view")
#: [m per rad/s] (chosen) radius of a joint-speed sphere per unit joint speed (radius proportional
#: to |q̇_i|, Flückiger 1998, §6.2.2, Fig. 6-9): 1 rad/s draws a 5 cm sphere, a hand's size
SPEED_SPHERE_SCALE = 0.05


def command_axes(command_frame: str, frame_rotation, camera_rotation=None) -> np.ndarray:
    """Rotation (3, 3) of a gizmo's axes in the world: the world's (``world``), the driven frame's
    (``tool``) or the camera's (``view``; world axes until a camera is known)."""
    if command_frame == "world" or (command_frame == "view" and camera_rotation is None):
        return np.eye(3)
    if command_frame == "tool":
        return np.array(frame_rotation, float)
    if command_frame == "view":
        return np.array(camera_rotation, float)
    raise KinematicsError(
        f"pilot: field 'command_frame' must be one of {', '.join(COMMAND_FRAMES)}; value {command_frame!r}"
    )


def gizmo_target(axes0, target0: pin.SE3, position, rotation) -> pin.SE3:
    """The absolute target of a gizmo placed at ``target0``'s origin with axes ``axes0`` (3, 3)
    and dragged to (``position`` (3,), ``rotation`` (3, 3)): the origin follows the gizmo, and the
    gizmo's rotation, taken about its own origin, turns the target (R = Rg·Rg0ᵀ·R0)."""
    R = np.asarray(rotation, float) @ np.asarray(axes0, float).T @ target0.rotation
    return pin.SE3(R, np.asarray(position, float))


def speed_spheres(structure, q, speeds, scale: float = SPEED_SPHERE_SCALE, data=None) -> list:
    """[(joint, centre (3,) [m], radius [m])] per 1-DOF joint: a sphere at the joint's origin of
    radius ``scale`` × |q̇_i| (Flückiger 1998, §6.2.2, Fig. 6-9). ``speeds`` (nv,) [rad/s] or [m/s]
    (`SolveReport.joint_speeds`)."""
    model = structure.model
    data = model.createData() if data is None else data
    pin.forwardKinematics(model, data, q)
    speeds = np.abs(np.asarray(speeds, float))
    out = []
    for name in structure.joint_names:
        jid = model.getJointId(name)
        iv = structure.joint_index(name)[1]
        out.append((name, data.oMi[jid].translation.copy(), float(scale * speeds[iv])))
    return out


class HeldTwist:
    """The latest unit twist [vx vy vz wx wy wz] of a 6-DOF mouse or a joystick (per unit of
    deflection) and when it came [s]: the devices repeat a held command, so it moves the target
    until it is older than a timeout (`increment`)."""

    def __init__(self):
        self.twist = np.zeros(6)
        self.at: float | None = None

    def set(self, twist, now: float) -> None:
        """A new command (6,), received at ``now`` [s]."""
        self.twist, self.at = np.asarray(twist, float), now

    def clear(self) -> None:
        """Stop: the held command becomes zero."""
        self.twist[:] = 0.0

    def increment(self, now: float, timeout: float, sensitivity, dt: float) -> np.ndarray | None:
        """The target increment (6,) [m, rad] of a cycle of ``dt`` [s] at ``now``: the twist times
        ``sensitivity`` ([linear m/s, angular rad/s] per unit) times ``dt``; None when there is no
        command, a zero one, or one older than ``timeout`` [s]."""
        if self.at is None or now - self.at > timeout:
            return None
        if not self.twist.any():
            return None
        lin, ang = sensitivity
        return np.concatenate([lin * self.twist[:3], ang * self.twist[3:]]) * dt
