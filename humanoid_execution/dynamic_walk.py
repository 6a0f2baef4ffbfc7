"""A contact plan on the soles walked at robot speed: its dynamic motion
(`humanoid_planner.motion.dynamic`: the centroidal trajectory through its stances, the swing
feet) made whole-body by the walking IK (`humanoid_control.walking_ik`, HRP-2's kinematic
structure) and written as a WALK.json document, which `execute`, the robot bridge and the viewer
read as they read `humanoid-stack walk`'s (docs/walking.md): the footsteps' lift-off and landing
times and targets under ``walking``, with the centroidal trajectory's CoM and durations.

This is the simulator thesis's posture playback at robot speed (Chardonnet 2009, §4.18, F4: the
contact planner's stances, a dynamically stable CoM trajectory, postures every 5 ms; a 4-step
walk of 10.8 s). Limits: the stances must hold the soles only (the walking IK tracks the two
feet and the CoM); HRP-2 only (the robot with a walking structure).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_control.walking_ik import WalkingIK, plan_json, solve_walking_ik
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.motion.centroidal import CentroidalSettings
from humanoid_planner.motion.dynamic import DynamicMotion, dynamic_motion

__all__ = ["DynamicWalk", "dynamic_walk"]

FEET = {"r_sole": "r", "l_sole": "l"}  #: the plan's sole locations -> the walking IK's feet
DT = 0.005  #: s, the postures' period (Chardonnet 2009, §4.18: every 5 ms)


@dataclass
class DynamicWalk:
    """The WALK.json ``doc``, the `DynamicMotion` it follows and the walking IK's result."""

    doc: dict
    motion: DynamicMotion
    ik: WalkingIK


def dynamic_walk(
    planner, plan, start_q, settings: CentroidalSettings | None = None, dt: float = DT, progress=None
) -> DynamicWalk:
    """The dynamic walk of ``plan`` (a `contact.search.Plan` of ``planner``, a `ContactPlanner` of
    HRP-2; module docstring) from the plan's ``start_q``, postures every ``dt`` [s]; ``progress``
    a callable given a line per stage."""
    robot = planner.robot
    if robot.name != "hrp2":
        raise PlanningError(f"dynamic walk: robot {robot.name!r} has no walking structure; only 'hrp2'")
    held = {c.location for node in plan.nodes for c in node.stance.contacts}
    if not held <= set(FEET):
        raise PlanningError(
            f"dynamic walk: the stances must hold the soles {sorted(FEET)} only; "
            f"they hold {sorted(held - set(FEET))} too"
        )
    mass = float(pin.computeTotalMass(robot.model))
    motion = dynamic_motion(planner.feas, plan.nodes, mass, settings, dt, start_q=start_q)
    c = motion.centroidal
    if progress is not None:
        progress(
            f"centroidal trajectory: {len(c.durations)} stances, {c.duration:.2f} s, {c.iterations} IPOPT "
            f"iterations, {c.time:.2f} s; dynamics residual {max(c.residual['c'], c.residual['v']):.1e} m(/s)"
        )
    feet = {FEET[name]: motion.frames[name][0] for name in FEET}
    rotations = {FEET[name]: motion.frames[name][1] for name in FEET}
    ik = solve_walking_ik(motion.com, feet, robot="hrp2", progress=progress, rotations=rotations)
    durations = c.durations
    extra = {
        "source": "dynamic",
        "parameters": {"t_ds": float(min(durations[::2]))},  # the shortest stance on both soles
        "footsteps": [
            {
                "index": i,
                "foot": FEET[m.location],
                "target": m.target.translation[:2].tolist(),
                "t_lift": m.t_lift,
                "t_land": m.t_land,
            }
            for i, m in enumerate(motion.moves)
        ],
        "durations": durations.tolist(),
        "com": motion.com.tolist(),
        "feet": {k: v.tolist() for k, v in feet.items()},
    }
    return DynamicWalk(plan_json("hrp2", motion.t, ik, extra), motion, ik)


def com_tracking(walk: DynamicWalk, log_t, log_com) -> tuple[float, float]:
    """(RMS, largest) [m] of the horizontal and vertical CoM error of a run (its times ``log_t``
    and CoM ``log_com`` (n, 3)) against the walk's planned CoM at the same times."""
    t = np.asarray(log_t, float)
    ref = np.column_stack([np.interp(t, walk.motion.t, walk.motion.com[:, k]) for k in range(3)])
    e = np.linalg.norm(np.asarray(log_com, float) - ref, axis=1)
    return float(np.sqrt(np.mean(e**2))), float(e.max())
