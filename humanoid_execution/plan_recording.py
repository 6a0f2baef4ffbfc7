"""The planned stances a recording of an executed contact plan carries (the header's ``plan``,
docs/recording.md), so that ``view --replay RUN.jsonl`` draws the planned contacts against the
robot's.

    plan = recorded_plan(doc, src, reference, world.t)   # None for a WALK.json or GAIT.json
    Recorder(world, "RUN.jsonl", every=10, plan=plan)

Each stance is put at the time of the run's clock [s] at which the reference reaches its witness
posture: the plan's time mapped through the balance retiming (`humanoid_control.wbc.retime` gives
the same samples new times), counted from the run's start. These are the planned times: a contact
made late holds the executor's clock, and the robot then reaches a stance after its time.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from humanoid_control.exceptions import ControlError
from humanoid_model.formats.detect import document_kind
from humanoid_model.formats.plan import parse_contact_plan
from humanoid_model.formats.recording import plan_field

__all__ = ["recorded_plan"]


def recorded_plan(doc, src: str, reference, start: float) -> dict | None:
    """The header's ``plan`` field (`humanoid_model.formats.recording.plan_field`) of the decoded
    motion ``doc`` (read from ``src``) executed with ``reference`` (its `MotionReference`) from the
    run's time ``start`` [s] (module docstring); None when ``doc`` is not a contact plan."""
    if document_kind(doc) != "plan":
        return None
    plan = parse_contact_plan(doc, src, ControlError)
    planned, run = plan.trajectory_t, np.asarray(reference.t, float)
    if len(planned) != len(run):  # not a retiming of the plan's samples: the plan's own times
        planned, run = planned[[0, -1]], planned[[0, -1]]

    def clock(t):
        return None if t is None else start + float(np.interp(t, planned, run)) - float(run[0])

    return plan_field(src, [replace(s, t=clock(s.t)) for s in plan.stances])
