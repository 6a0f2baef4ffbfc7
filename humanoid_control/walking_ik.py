"""Whole-body inverse kinematics of a walking pattern: joint trajectories that put
the soles where the footstep plan puts them, the CoM on the preview controller's trajectory
and the waist upright, with the project's prioritized solver (`humanoid_control.kinematics`).

The pattern itself (footsteps, ZMP preview control, swing feet) is `humanoid_planner.walking_pattern`,
which this module does not import (same layer): it takes plain arrays, and
`humanoid-stack walk` composes both.

`solve_walking_ik` solves it; the tasks are `humanoid_control.kinematics`'s, by level (docs/walking.md):
1. both soles' 6-D poses (`FrameTarget` pose, flat feet) and the 3-D CoM (`CenterOfMassTask`), or
   with ``hold="waist"`` the CoM's x-y (`ComTask`) and the waist's height (`FrameHeightTask`, the
   thesis's generator keeps the torso at constant height): the hard constraints of walking; the
   structure's sole welds are removed (a foot in the air follows its swing trajectory, a foot on
   the ground is held by its target);
2. the waist (`BODY`) orientation: upright, heading straight;
3. the rest posture (half-sitting), `PostureTask`.
Each sample starts from the previous one and is iterated until the level-1 errors are below
`TOLERANCE` (or `MAX_ITERATIONS` cycles), with the solver's damping narrowed to `SETTINGS`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import ControlError
from humanoid_control.kinematics import (
    CenterOfMassTask,
    ComTask,
    FrameHeightTask,
    FrameTarget,
    PostureTask,
    load_structure,
    prioritized,
)
from humanoid_control.kinematics.prioritized import PrioritizedSettings
from humanoid_model.formats.trajectory import trajectory_samples, walk_document
from humanoid_model.validation import finite_rows

__all__ = [
    "WalkingIK",
    "solve_walking_ik",
    "plan_json",
    "stiffen",
    "TOLERANCE",
    "MAX_ITERATIONS",
    "TORSO_FRAME",
    "WALK_GAIN_SCALE",
]

#: [m] level-1 error (sole positions, CoM) that ends a sample's iterations (chosen: 100x below the 0.1 mm
#: foot accuracy of the kinematic generator's HRP-2 tests; below ~1e-7 the posture task's null-space steps
#: keep it from settling)
TOLERANCE = 1e-6
MAX_ITERATIONS = 10  # solver cycles per sample at most (chosen; docs/walking.md gives the measured counts)
#: damping threshold ε = λmax = 0.02 m/rad (chosen): with the default 0.1 the level-1 rows (soles + CoM) are damped
#: every cycle and 10 cycles leave 3e-5 m; at 0.02 the walk is solved as without damping (1.4 cycles per sample,
#: errors < 1e-6 m) and a stretched leg would still be damped (docs/walking.md)
SETTINGS = PrioritizedSettings(damping_threshold=0.02, damping_max=0.02)
TORSO_FRAME = "BODY"  # HRP-2's waist link, the free-flyer's body
SOLES = {"r": "r_sole", "l": "l_sole"}  # frames of urdf/kinematics/hrp2.kin.yaml
WELDS = ("r_foot", "l_foot")


@dataclass
class WalkingIK:
    """``q`` (K, nq) configurations; ``joint_names``; per-sample level-1 errors: ``foot_error``
    (K,) the larger sole position error [m], ``foot_rotation_error`` (K,) [rad], ``com_error`` (K,)
    [m] (3-D, or x-y with ``hold="waist"``); ``torso_tilt`` (K,) angle of the waist's z axis from
    vertical [rad]; ``waist_z`` (K,) the waist's height [m]; ``iterations`` (K,)."""

    q: np.ndarray
    joint_names: list
    foot_error: np.ndarray
    foot_rotation_error: np.ndarray
    com_error: np.ndarray
    torso_tilt: np.ndarray
    iterations: np.ndarray
    structure: object = None
    waist_z: np.ndarray = None

    def joint_positions(self) -> np.ndarray:
        """(K, n) the joints' part of ``q`` in ``joint_names`` order."""
        s = self.structure
        return self.q[:, [s.joint_index(j)[0] for j in self.joint_names]]


def solve_walking_ik(
    com, feet: dict, robot: str = "hrp2", structure=None, progress=None, hold: str = "com", rotations=None
) -> WalkingIK:
    """Whole-body IK along ``com`` (K, 3) [m] and ``feet`` {'r', 'l': (K, 3) sole centres [m]},
    the soles flat and along x, or turned as ``rotations`` {'r', 'l': (K, 3, 3)} say (a dynamic
    motion's footholds, `humanoid_planner.motion.dynamic`). ``robot`` names the kinematic
    structure (``load_structure``), or pass one. ``hold``: "com" follows the 3-D ``com``; "waist"
    follows its x-y and keeps the waist at its initial height (``com``'s z is then not used)."""
    if hold not in ("com", "waist"):
        raise ControlError(f"walking ik: field 'hold' must be com or waist; value {hold!r}")
    com = finite_rows(com, 3, "walking ik", "com", error=ControlError)
    K = com.shape[0]
    feet = {k: finite_rows(feet.get(k), 3, "walking ik", f"feet.{k}", rows=K, error=ControlError) for k in SOLES}
    turned = {k: np.tile(np.eye(3), (K, 1, 1)) for k in SOLES}
    for k, R in (rotations or {}).items():
        R = np.asarray(R, float)
        if k not in SOLES or R.shape != (K, 3, 3) or not np.all(np.isfinite(R)):
            raise ControlError(f"walking ik: field 'rotations.{k}' must be ({K}, 3, 3) finite rotations of 'r' or 'l'")
        turned[k] = R
    s = structure if structure is not None else load_structure(robot)
    for w in WELDS:
        if w in s.closures:
            s.remove_closure(w)
    q = s.q0.copy()
    soles = {k: FrameTarget(s, name, mode="pose", level=1) for k, name in SOLES.items()}
    ctask = CenterOfMassTask(s) if hold == "com" else ComTask(s)
    cdim = ctask.dim
    height = (FrameHeightTask(s, TORSO_FRAME),) if hold == "waist" else ()
    torso = FrameTarget(s, TORSO_FRAME, target=np.eye(3), mode="orientation", level=2)
    tasks = (*soles.values(), ctask, *height, torso, PostureTask(s))
    data = s.model.createData()
    tid = s.frame_id(TORSO_FRAME)
    out = np.empty((K, s.model.nq))
    ferr, frot, cerr, tilt, iters, wz = (np.empty(K) for _ in range(6))
    for k in range(K):
        for f, T in soles.items():
            T.set_target(pin.SE3(turned[f][k], feet[f][k]))
        ctask.set_target(com[k, :cdim])
        for it in range(1, MAX_ITERATIONS + 1):  # noqa: B007 (the count is reported)
            q, _ = prioritized.solve(s, q, *tasks, settings=SETTINGS)
            s.compute(q, data, com=True)
            fpos = max(
                float(np.linalg.norm(data.oMf[T.fid].translation - T.target.translation)) for T in soles.values()
            )
            ce = float(np.linalg.norm(data.com[0][:cdim] - com[k, :cdim]))
            he = abs(data.oMf[tid].translation[2] - height[0].target) if height else 0.0
            if max(fpos, ce, he) < TOLERANCE:
                break
        out[k] = q
        ferr[k] = fpos
        frot[k] = max(
            float(np.linalg.norm(pin.log3(T.target.rotation.T @ data.oMf[T.fid].rotation))) for T in soles.values()
        )
        cerr[k], iters[k] = ce, it
        z = data.oMf[tid].rotation[:, 2]
        tilt[k] = float(np.arctan2(np.linalg.norm(z[:2]), z[2]))
        wz[k] = data.oMf[tid].translation[2]
        if progress is not None and (k % 200 == 0 or k == K - 1):
            progress(f"ik {k + 1}/{K}: sole error {1e3 * ferr[k]:.2e} mm, CoM error {1e3 * ce:.2e} mm, {it} cycle(s)")
    return WalkingIK(out, list(s.joint_names), ferr, frot, cerr, tilt, iters, s, wz)


def plan_json(robot: str, t, ik: WalkingIK, extra: dict | None = None) -> dict:
    """The WALK.json document (`humanoid_model.formats.trajectory.walk_document`: the GAIT.json
    trajectory layout, docs/gait.md) that `humanoid_control.bridge.load_plan` and the viewer's
    replay read: ``robot``, ``joint_names``, ``trajectory: {t, joint_positions, base_pose,
    base_pose_format}``; ``extra`` goes under ``walking``."""
    samples = trajectory_samples(np.asarray(t, float), ik.joint_positions(), ik.q[:, :7])
    return walk_document(robot=robot, joint_names=ik.joint_names, trajectory=samples, walking=extra)


#: PD natural frequency factor for executing a walking plan (chosen, docs/walking.md): the simulator's default
#: 10 Hz standing gains lag the open-loop plan (feet land late and turn, 6 steps fall at the 4th); at x2 the
#: flexible ankle still fell; x3 (30 Hz) walks 6 steps with rigid feet, flexible ankles, FEM soles and the
#: 1.5 + 0.5 cm pad soles (with 1 + 1 cm pads HRP-2 fell)
WALK_GAIN_SCALE = 3.0


def stiffen(actuator, scale: float = WALK_GAIN_SCALE, keep=()) -> None:
    """Multiply a PD actuator's natural frequency by ``scale`` (K_p x scale², K_v x scale: the same
    damping ratio), except the joints named in ``keep`` (passive springs). ``actuator`` has
    ``names``, ``kp``, ``kv`` (e.g. `humanoid_sim.stages.actuators.PDActuator`)."""
    idx = [actuator.names.index(j) for j in keep]
    kp, kv = actuator.kp[idx].copy(), actuator.kv[idx].copy()
    actuator.kp *= scale**2
    actuator.kv *= scale
    actuator.kp[idx], actuator.kv[idx] = kp, kv
