"""The scene robot's start configuration: one rule for the simulator, the planners and the viewer.

`scene_robot_q(robot, spec)` is the configuration (nq,) of ``robot`` placed as the scene's
robot entry ``spec`` (a `humanoid_model.scene_types.RobotSpec`, or None: the robot's default
posture where its sidecar puts it):

1. the posture: ``spec.posture``, else the robot's default posture (`start_posture_name`);
2. the joint overrides ``spec.joints`` [rad] or [m] (`Robot.with_angles`: a ball joint's URDF
   angle sets that angle of the ball joint, the other two kept);
3. the base: the posture's base pose composed with ``spec.placement``, or the absolute
   ``spec.base`` (`RobotSpec.base_pose`, docs/scenes.md);
4. the lift: ``lift`` [m] added to the base height. The simulator lifts a robot on FEM soles by
   the thickest sole (`sole_lift`): the soles hang below the feet and, undeformed, touch the
   ground where the rigid feet would. The planners and the viewer place the rigid robot (no lift).

Users and where they differ (each keeps its rule):

* `humanoid_sim.world.World` (the start state): with the lift of its FEM soles. A robot given in
  place of the scene's gets the entry of `spec_for_robot` (the scene's posture if it knows it, the
  overrides of the joints it has, the scene's placement).
* `humanoid_planner.planning.problem.scene_start_q` (walk problems, the contact-planner node): no
  lift; a robot given in place of the scene's gets the entry of `spec_for_robot`, as in the
  simulator; a posture the scene's own robot does not have is a `PlanningError`.
* `humanoid_planner.contact.scene_problem.start_configuration` (scene planning sections): no lift;
  a robot other than the scene's (another URDF) starts at its default posture without the
  overrides, placed by the scene.
* `humanoid_viewer.app.Viewer`: no lift; a posture chosen by the caller or in the GUI replaces
  the scene's and drops its overrides; a robot other than the scene's is not placed by the scene.
"""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["scene_robot_q", "start_posture_name", "sole_lift", "spec_for_robot"]


def start_posture_name(robot, spec=None) -> str:
    """The name of the start posture: the scene entry's ``posture``, else the robot's default."""
    return spec.posture if spec is not None and spec.posture else robot.default_posture


def scene_robot_q(robot, spec=None, *, posture: str | None = None, joints=None, lift: float = 0.0) -> np.ndarray:
    """The configuration (nq,) of ``robot`` (a `humanoid_model.robot.Robot`) placed as the scene's
    robot entry ``spec`` (module docstring).

    posture: a posture name replacing the entry's (None: `start_posture_name`). joints: joint
    overrides (name -> [rad] or [m]) replacing the entry's (None: ``spec.joints``; ``{}``: none).
    lift [m]: added to the base height after the placement (`sole_lift`). `ModelError` for a
    posture or a joint the robot does not have."""
    q = robot.q(posture if posture is not None else start_posture_name(robot, spec))
    angles = (spec.joints if spec is not None else None) if joints is None else joints
    if angles:
        q = robot.with_angles(q, angles)
    if spec is not None:
        q[:7] = spec.base_pose(q[:7])
    if lift:
        q[2] += lift
    return q


def sole_lift(soles) -> float:
    """The base lift [m] of a robot on the FEM soles ``soles`` (`humanoid_model.sole_spec.SoleSpec`
    sequence): the thickest sole's thickness, 0 without soles."""
    return max((s.thickness for s in soles), default=0.0)


def spec_for_robot(spec, robot):
    """The scene's robot entry ``spec`` for ``robot`` replacing the scene's robot: the posture kept
    only if ``robot`` has a posture of that name (else its default), the joint overrides only for
    joints it has; the placement unchanged. ``spec`` itself when nothing changes (or None)."""
    if spec is None:
        return None
    posture = spec.posture if spec.posture in robot.postures else None
    joints = {j: v for j, v in spec.joints.items() if j in robot.joint_names}
    if posture != spec.posture or joints != spec.joints:
        return dataclasses.replace(spec, posture=posture, joints=joints)
    return spec
