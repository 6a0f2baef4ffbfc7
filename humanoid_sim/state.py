"""What a `humanoid_sim.World` hands out: its state (`WorldState`, `BodyState`) and the result of
its last step (`StepResult`, `World.last`). Units SI, world frame, quaternions xyzw."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

__all__ = ["BodyState", "WorldState", "StepResult"]


@dataclass
class BodyState:
    """World pose and velocity of a body frame: position (3,) [m], quaternion (4,) xyzw,
    linear_velocity (3,) of the frame origin [m/s], angular_velocity (3,) [rad/s], world axes."""

    position: np.ndarray
    quaternion: np.ndarray
    linear_velocity: np.ndarray
    angular_velocity: np.ndarray


@dataclass
class WorldState:
    """Time t [s], configuration q and velocity v of the combined model, the free bodies' and the
    robot base's `BodyState` by name, and (with a robot) the actuated joints' names, positions
    [rad], velocities [rad/s] and applied torques [N·m]."""

    t: float
    q: np.ndarray
    v: np.ndarray
    bodies: dict[str, BodyState]
    joint_names: list[str] = field(default_factory=list)
    joint_positions: np.ndarray = None
    joint_velocities: np.ndarray = None
    joint_torques: np.ndarray = None


@dataclass(slots=True)
class StepResult:
    """The outputs of one `World.step` (read by the sensors, the node and the tests).

    batch: the `humanoid_sim.collision.batch.ContactBatch` of the step (m contacts); frames (m, 3, 3):
    contact frames, rows (n, t1, t2) in the world frame; forces (m, 3): contact forces [N] in
    those frames (on body A); groups: the collision groups (`humanoid_sim.stages.contacts.Group`, a
    joint-limit-only group included); limit_torques: joint name -> torque of its active limit
    [N·m]; iterations: solver sweeps of the step (all groups)."""

    batch: object
    frames: np.ndarray
    forces: np.ndarray
    groups: list
    limit_torques: dict
    iterations: int

    @property
    def m(self) -> int:
        """Number of point contacts."""
        return self.batch.m

    def forces_world(self) -> np.ndarray:
        """(m, 3) world-frame contact forces on body A [N] (−force on body B)."""
        return np.einsum("mi,mij->mj", self.forces, self.frames)


@dataclass
class WorldSnapshot:
    """Everything a `World` carries from one step to the next (`World.get_state` /
    `World.set_state`): restoring it and stepping gives the same trajectory to the last bit.
    Picklable, so a run can be saved to disk, restored, branched and replayed. Copies only: the
    world and the snapshot never share arrays.

    t [s], steps, q, v, q_start, v_start: time and state (the start of the last step too);
    armature (nv,): the model's armature (it carries the implicit PD damping); actuator: the
    actuator's attributes (mode, set-points, trajectory, gains); actuation: the actuation's
    per-step memory; warm_start: (keys, forces, local) of the last contacts; limits: the joint
    limits' previous forces and torques; wrenches: the user wrenches and their end times;
    tau_applied: the last applied torques; nq, nv: the model sizes it fits; soles: the FEM soles'
    surface displacements (`humanoid_sim.soles.world_coupling.FemSoles.memory`) or None; grasps:
    the grasps (`humanoid_sim.stages.grasp.Grasps.memory`: bodies, points, rest orientation,
    gains, last wrench), None in a world that never grasped (and in snapshots saved before grasps
    were part of the state)."""

    t: float
    steps: int
    q: np.ndarray
    v: np.ndarray
    q_start: np.ndarray
    v_start: np.ndarray
    armature: np.ndarray
    actuator: dict | None
    actuation: dict | None
    warm_start: tuple
    limits: tuple | None
    wrenches: tuple
    tau_applied: np.ndarray
    nq: int
    nv: int
    soles: list | None = None
    grasps: list | None = None
