"""A contact plan's dynamic motion: its centroidal trajectory (`centroidal`) sampled at the
motion's period, with the paths of the contacts that move between stances.

A location held in stance j - 1 and j + 1 but not in stance j swings during phase j: it lifts at
the phase's start from its placement in stance j - 1 and lands at its end on its placement in
stance j + 1, along `walking_pattern.swing.swing_path` (the walking pattern's ``smooth`` profile:
the quintic minimum-jerk progress, a sin² lift of ``step_height``, zero velocity at both ends; a
stair's height change over the first half of the swing going up, the second going down), its
orientation turned by the same progress about the axis of the relative rotation. A location held
from the start keeps its placement until it swings; the whole-body motion that follows the result
tracks the CoM and these paths (`humanoid_execution`).

Limits: a location added without having been held before (a hand's first contact) or released
for good has no path here (its pose is the whole-body motion's business) and is refused by
`dynamic_motion`, which handles stance sequences whose locations all swing from one placement to
the next (walks, stairs).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_model.validation import finite_number
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.walking_pattern.swing import swing_path, swing_profile

from .centroidal import CentroidalMotion, CentroidalSettings, optimise_centroidal, phases_from_plan, swinging

__all__ = ["ContactMove", "DynamicMotion", "dynamic_motion"]

STEP_HEIGHT = 0.05  #: m, the swing's apex (the walking pattern's default, docs/walking.md)


@dataclass(frozen=True)
class ContactMove:
    """``location`` leaves its ``start`` placement (`pin.SE3`) at ``t_lift`` [s] and is on its
    ``target`` at ``t_land``."""

    location: str
    t_lift: float
    t_land: float
    start: pin.SE3
    target: pin.SE3


@dataclass
class DynamicMotion:
    """Samples at ``t`` (K,) [s]: ``com``, ``com_vel``, ``com_acc`` (K, 3); ``frames`` location ->
    (positions (K, 3) [m], rotations (K, 3, 3)) of the contact frames held at some time; the
    ``moves`` (`ContactMove`) in time order; the ``centroidal`` solution."""

    t: np.ndarray
    com: np.ndarray
    com_vel: np.ndarray
    com_acc: np.ndarray
    frames: dict
    moves: list
    centroidal: CentroidalMotion

    @property
    def duration(self) -> float:
        return float(self.t[-1])


def _placements(feas, nodes) -> list[dict]:
    out = []
    for node in nodes:
        held = {}
        for c in node.stance.contacts:
            env = feas.env_frame(c)
            held[c.location] = pin.SE3(np.column_stack([env.d, env.b, env.n]), np.asarray(env.point, float))
        out.append(held)
    return out


def dynamic_motion(
    feas,
    nodes,
    mass: float,
    settings: CentroidalSettings | None = None,
    dt: float = 0.005,
    step_height: float = STEP_HEIGHT,
    start_q=None,
) -> DynamicMotion:
    """The dynamic motion of the plan ``nodes`` (root -> last, `contact.Node`) of the planner whose
    `Feasibility` is ``feas``, for a robot of ``mass`` [kg]: `optimise_centroidal` on
    `phases_from_plan`, sampled every ``dt`` [s], with the swings (module docstring); from the
    plan's ``start_q`` (its CoM at rest, its height kept above the stances) when given, else from
    the root's witness."""
    dt = finite_number(dt, "dynamic motion", "dt", minimum=0.0, strict=True, error=PlanningError)
    step_height = finite_number(step_height, "dynamic motion", "step_height", minimum=0.0, error=PlanningError)
    nodes = list(nodes)
    placed = _placements(feas, nodes)
    first = set(placed[0])
    for j, held in enumerate(placed):
        for name in sorted(set(held) - first):
            raise PlanningError(
                f"dynamic motion: location {name!r} is first held at stance {j}; only locations held "
                f"from the start and moved from one placement to the next have a path (module docstring)"
            )
    for name in sorted(first - set(placed[-1])):
        raise PlanningError(f"dynamic motion: location {name!r} is released for good; the plan must end holding it")
    for j, held in enumerate(placed):  # checked before the optimisation: a swing lasts one stance here
        for name in sorted(first - set(held) - set(swinging(placed, j))):
            raise PlanningError(
                f"dynamic motion: location {name!r} is free over more than one stance (stance {j}); "
                f"a swing lasts one stance here"
            )
    phases = phases_from_plan(feas, nodes, settings, start_q)
    start_com = None
    if start_q is not None:
        start_com = pin.centerOfMass(feas.model, feas.model.createData(), np.asarray(start_q, float)).copy()
    centroidal = optimise_centroidal(phases, mass, settings, start_com=start_com)
    t, com, vel, acc = centroidal.sample(dt)
    starts = np.concatenate([[0.0], np.cumsum(centroidal.durations)])
    moves = [
        ContactMove(name, float(starts[j]), float(starts[j + 1]), placed[j - 1][name], placed[j + 1][name])
        for j in range(len(nodes))
        for name in swinging(placed, j)
    ]
    frames = {name: _path(t, placed[0][name], [m for m in moves if m.location == name], step_height) for name in first}
    return DynamicMotion(t, com, vel, acc, frames, moves, centroidal)


def _path(t, start: pin.SE3, moves, step_height: float) -> tuple[np.ndarray, np.ndarray]:
    """(positions (K, 3), rotations (K, 3, 3)) of a location held at ``start`` and moved by
    ``moves`` (module docstring)."""
    P = np.tile(start.translation, (len(t), 1))
    R = np.tile(start.rotation, (len(t), 1, 1))
    for m in moves:
        during = (t > m.t_lift) & (t < m.t_land)
        tau = (t[during] - m.t_lift) / (m.t_land - m.t_lift)
        s = swing_profile(tau)[0]
        a, b = m.start.translation, m.target.translation
        P[during] = swing_path(a, b, tau, step_height)
        w = pin.log3(m.start.rotation.T @ m.target.rotation)
        R[during] = [m.start.rotation @ pin.exp3(si * w) for si in s]
        after = t >= m.t_land
        P[after], R[after] = b, m.target.rotation
    return P, R
