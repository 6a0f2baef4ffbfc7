"""PLAN.json of a planning run: `plan_document(result)` fills the plan file's writer
(`humanoid_model.formats.plan`, which holds the format, docs/planning.md) with a
`run.PlanningResult`:

- ``stances``: per plan node its ``contacts`` (location, surface, x, y, theta, body, the world
  pose of the contact frame (E; d_E, b_E, n_E) as ``position`` and ``quaternion`` xyzw, and the
  placed ``hull`` of the contact surface), ``witness_q`` (the trajectory's row layout),
  ``support_polygon`` (the stance's, (3.63)), ``t`` the witness's time in the trajectory,
  ``kind`` (root / added / released), ``changed`` (the location added or released) and
  ``potential``;
- ``transitions``: per consecutive pair the contact added or released, the stances' indices
  and the segment's times;
- ``goal_q``: the posture that meets the goal from the last stance;
- ``trajectory``: ``t`` [s], ``q`` rows of base xyz [m], base quaternion xyzw and the joint
  angles [rad] of ``joint_names`` (one value per joint, as the viewer's and the bridge's
  configuration files), ``dt`` [s];
- ``stats``: nodes generated and expanded, stances, times [s] of the search, the motion and the
  whole run, and the PG calls by outcome code (count, mean and total time) for the search, the
  motion and both (`stats.histogram_document`).

A run without a plan writes ``success: false``, its ``reason``, no stances and an empty
trajectory, and still the statistics. `humanoid_model.formats.plan.write_plan` writes the file.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pinocchio as pin

from humanoid_model.formats.plan import contact_entry, stance_entry, transition_entry
from humanoid_model.formats.plan import plan_document as plan_file_document
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import support_polygon
from humanoid_planner.posture.support_polygon import placed_hull

from .stats import histogram_document

__all__ = ["plan_document", "row", "motion_dt"]


def row(model, q) -> list[float]:
    """A configuration (nq,) as a plan row: base xyz, quaternion xyzw, one angle per joint
    (continuous joints' (cos, sin) as atan2)."""
    q = np.asarray(q, float)
    out = list(q[:7])
    for j in range(2, model.njoints):
        jm = model.joints[j]
        if jm.nq == 1:
            out.append(q[jm.idx_q])
        elif jm.nq == 2:
            out.append(math.atan2(q[jm.idx_q + 1], q[jm.idx_q]))
        else:
            raise PlanningError(f"plan file: joint {model.names[j]!r} has {jm.nq} coordinates; only 1-DOF joints")
    return [float(v) for v in out]


def _contact(feas, c) -> dict:
    env = feas.env_frame(c)
    quat = pin.Quaternion(env.rotation).normalized()
    loc = feas.locations[c.location]
    return contact_entry(
        location=c.location,
        surface=c.surface,
        x=c.x,
        y=c.y,
        theta=c.theta,
        body=loc.body,
        position=env.point,
        quaternion=(quat.x, quat.y, quat.z, quat.w),
        hull=placed_hull(loc, env),
    )


def _stance(feas, model, node, t) -> dict:
    contacts = node.stance.contacts
    placed = [(feas.locations[c.location], feas.env_frame(c), feas.surfaces[c.surface]) for c in contacts]
    return stance_entry(
        contacts=[_contact(feas, c) for c in contacts],
        witness_q=row(model, node.q),
        support_polygon=support_polygon(placed),
        t=t,
        kind=node.kind,
        changed=node.changed.location if node.changed is not None else None,
        potential=node.potential,
    )


def _stats(result) -> dict:
    plan, motion = result.plan, result.motion
    return {
        "nodes_generated": int(plan.generated),
        "nodes_expanded": int(plan.expanded),
        "transitions_cut": int(plan.cut),
        "search_restarts": int(plan.restarts),
        "stances": len(plan.nodes),
        "search_time": float(plan.time),
        "motion_time": float(motion.time) if motion is not None else 0.0,
        "motion_planned_segments": [dataclasses.asdict(p) for p in motion.planned] if motion is not None else [],
        "total_time": float(result.time),
        "pg_calls": histogram_document(result.stat_entries("all")),
        "pg_calls_search": histogram_document(result.stat_entries("search")),
        "pg_calls_motion": histogram_document(result.stat_entries("motion")),
    }


def plan_document(result) -> dict:
    """The PLAN.json document of a `run.PlanningResult` (module docstring)."""
    problem, feas = result.problem, result.planner.feas
    model = problem.robot.model
    motion = result.motion
    ok = result.success
    nodes = result.plan.nodes if ok else []
    times = motion.witness_times if ok else [None] * len(nodes)
    return plan_file_document(
        scene=problem.scene,
        robot=problem.robot.name,
        algorithm=problem.settings.algorithm,
        seed=problem.seed,
        time_limit=problem.settings.time_limit,
        goal=problem.goal,
        success=ok,
        reason="" if ok else result.reason,
        stances=[_stance(feas, model, n, times[i]) for i, n in enumerate(nodes)],
        transitions=[
            transition_entry(
                start=i, kind=b.kind, location=b.changed.location, surface=b.changed.surface, t=(times[i], times[i + 1])
            )
            for i, b in enumerate(nodes[1:])
        ],
        goal_q=row(model, result.plan.goal_q) if ok else None,
        t=motion.t if ok else [],
        q=[row(model, q) for q in motion.q] if ok else [],
        joint_names=problem.robot.joint_names,
        dt=motion_dt(motion),
        unclear_segments=motion.unclear if ok else [],
        stats=_stats(result),
    )


def motion_dt(motion) -> float | None:
    """The trajectory's sampling period [s] (None without one)."""
    if motion is None or len(motion.t) < 2:
        return None
    return float(np.round(motion.t[1] - motion.t[0], 12))
