"""How far a configuration is from a segment's stance: the held contacts' drift and the planner's
extra tasks' violation (the bounds the motion's refinement keeps, `generate`)."""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.base import EQUALITY

__all__ = ["contact_drift", "task_error"]


def contact_drift(feas, fixed, q, data=None) -> float:
    """The largest distance [m] at ``q`` of a contact location's point from its contact's point E,
    over the contacts ``fixed`` (forward kinematics)."""
    model = feas.model
    data = model.createData() if data is None else data
    pin.framesForwardKinematics(model, data, q)
    worst = 0.0
    for c in fixed:
        loc = feas.locations[c.location]
        p = data.oMf[model.getFrameId(loc.body)].act(np.asarray(loc.point, float))
        worst = max(worst, float(np.linalg.norm(p - feas.env_frame(c).point)))
    return worst


def task_error(feas, q, data=None) -> float:
    """The largest violation at ``q`` of the planner's extra tasks (``feas.tasks``: |row| for an
    equality, its positive part for an inequality; 0 without tasks)."""
    if not feas.tasks:
        return 0.0
    model = feas.model
    data = model.createData() if data is None else data
    kin.update(model, data, q)
    worst = 0.0
    for t in feas.tasks:
        v = t.evaluate(q, data)[0]
        eq = np.array([k == EQUALITY for k in t.kinds])
        worst = max(worst, float(np.max(np.where(eq, np.abs(v), np.maximum(v, 0.0)), initial=0.0)))
    return worst
