"""Checks of a retimed contact plan (`humanoid_planner.motion.contact_topp`) on its own samples,
independent of the retiming: the contact wrench the motion needs (Pinocchio's centroidal momentum
rate from finite differences of the postures, less the weight) against each piece's contact
wrench cone, and the held contacts against their placements (forward kinematics)."""

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import PlanningError
from humanoid_model.formats.plan import parse_contact_plan
from humanoid_planner.motion.contact_topp import ToppSettings, held_segments, stance_cone


def worst_wrench(doc, robot, scene, cop_margin: float = 0.0) -> tuple[float, int]:
    """(the largest F w over the samples inside each piece, divided by the weight; how many samples
    were checked): <= 0 when every sample's wrench is one the held contacts can apply with their
    polygons shrunk by ``cop_margin`` and the retiming's friction pyramid."""
    m, d = robot.model, robot.model.createData()
    mass = pin.computeTotalMass(m)
    plan = parse_contact_plan(doc, "retimed", PlanningError)
    t, q = np.asarray(plan.trajectory_t), np.asarray(plan.trajectory_q)
    h = t[1] - t[0]
    worst, checked = -np.inf, 0
    for a, b, held in held_segments(plan):
        F, c0 = stance_cone(held, scene, ToppSettings(cop_margin=cop_margin))
        for k in np.nonzero((t > a) & (t < b))[0]:
            if k == 0 or k == len(t) - 1:
                continue
            v = pin.difference(m, q[k - 1], q[k + 1]) / (2 * h)
            acc = (pin.difference(m, q[k], q[k + 1]) - pin.difference(m, q[k - 1], q[k])) / h**2
            pin.computeCentroidalMomentumTimeVariation(m, d, q[k], v, acc)
            f = d.dhg.linear - mass * m.gravity.linear
            w = np.concatenate([f, d.dhg.angular + np.cross(d.com[0] - c0, f)])
            worst = max(worst, float((F @ w).max()) / (mass * 9.81))
            checked += 1
    return worst, checked


def held_drift(doc, robot) -> float:
    """The largest distance [m] of a held contact point from its planned placement over the samples."""
    m, d = robot.model, robot.model.createData()
    plan = parse_contact_plan(doc, "retimed", PlanningError)
    t, q = np.asarray(plan.trajectory_t), np.asarray(plan.trajectory_q)
    worst = 0.0
    for a, b, held in held_segments(plan):
        for k in np.nonzero((t >= a) & (t <= b))[0]:
            pin.framesForwardKinematics(m, d, q[k])
            for c in held:
                loc = robot.contact_locations[c.location]
                point = d.oMf[m.getFrameId(loc.body)].act(np.asarray(loc.point, float))
                worst = max(worst, float(np.linalg.norm(point - c.position)))
    return worst


def check_retimed_walk(result) -> None:
    """A flat walk's planning ``result`` retimed (`retime_plan`): faster than planned, every 5 ms
    sample's contact wrench in the held soles' cone or no farther out than the quasi-static plan's
    own (a piece kept at the plan's timing keeps the plan's support: Talos's quasi-static walk
    itself asks 1.6 % of its weight outside its soles' cone at a sample), the soles held within 1 mm."""
    from humanoid_model.scene import load_scene
    from humanoid_planner.motion.contact_topp import retime_plan
    from humanoid_planner.planning import plan_document

    robot, flat = result.problem.robot, load_scene("flat")
    doc = plan_document(result)
    r = retime_plan(doc, robot, flat)
    assert r.after < r.before
    own = max(0.0, worst_wrench(doc, robot, flat)[0])
    assert worst_wrench(r.doc, robot, flat)[0] <= own + 1e-3
    assert held_drift(r.doc, robot) < 1e-3
