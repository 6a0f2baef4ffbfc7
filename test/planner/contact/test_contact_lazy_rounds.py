"""The lazy self-collision rounds of the contact planner started over from the warm start
(`Feasibility._run`, module docstring "Lazy rounds started over"; the under-table scene, Escande
2008, §6.3.3).

A request whose first round (no self-collision rows) ends with two of HRP-2's boxes inside each
other, gone on with from that solution only, i.e. from inside the boxes, fails in phase 1. The
case below is an addition the under-table search loses so in its first 30 s without the restart:
the right hand on the floor, standing on both soles, from the father's witness (rounded to 1e-6;
the quaternion renormalised). Started over from the witness with the pairs met and their 3 cm
neighbours, it succeeds, and its posture keeps every geometry pair of the robot its margin apart.
The robot is HRP-2 with a single waist box (`_single_box_waist`): with the URDF's two waist boxes
the same request succeeds in its first round (the thigh does not meet the waist), so the case
would not exercise the restart.
"""

import coal
import numpy as np
import pinocchio as pin

from humanoid_model import load_robot
from humanoid_model.scene import load_scene
from humanoid_planner.contact import scene_planning
from humanoid_planner.contact.boxes import Box
from humanoid_planner.contact.stance import Contact, Stance
from humanoid_planner.posture import kinematics as kin

STANCE = Stance(
    [
        Contact("l_sole", "floor", -1.475510, 0.105000, 0.000000),
        Contact("r_sole", "floor", -0.899122, -0.076069, 0.186558),
    ]
)
POLYGON = [(-0.506816, -0.915197), (-0.506816, 0.959549), (-2.381562, 0.959549), (-2.381562, -0.915197)]
Q0 = np.array(
    [
        0.113931,
        -0.009213,
        0.507031,
        -0.051832,
        0.336633,
        0.213556,
        0.915634,
        0.765391,
        1.027198,
        -0.154439,
        0.247026,
        -0.908325,
        0.125984,
        0.413650,
        -0.110319,
        -0.789736,
        0.035094,
        0.043864,
        -1.357009,
        -0.527472,
        0.318700,
        -0.057903,
        -0.273471,
        -0.100682,
        0.050714,
        -0.352065,
        0.270206,
        -1.281932,
        1.618077,
        -1.000693,
        -0.036983,
        -0.310193,
        0.022705,
        -1.605716,
        0.213120,
        0.713038,
        0.131301,
    ]
)


def _single_box_waist():
    """HRP-2 with the waist as one 0.22 x 0.26 x 0.27 m box from 0.075 m above the hip axes (the two
    boxes of the URDF in one, urdf/README.md)."""
    robot = load_robot("hrp2")
    cm = robot.collision_model
    cm.removeGeometryObject("BODY_1")
    waist = cm.geometryObjects[cm.getGeometryId("BODY_0")]
    waist.geometry = coal.Box(0.22, 0.26, 0.27)
    waist.placement = pin.SE3(np.eye(3), np.array([-0.01, 0.0, 0.21]))
    return robot


def test_an_addition_lost_inside_the_boxes_is_solved_from_its_warm_start():
    sp = scene_planning(load_scene("under_table"), _single_box_waist())
    feas = sp.planner.feas
    q0 = Q0.copy()
    q0[3:7] /= np.linalg.norm(q0[3:7])
    box = Box(feas.surfaces["floor"], np.array(POLYGON), (-np.pi, np.pi))
    kin.update(feas.model, feas._data, q0)
    assert not len(feas.self_collision.closer(feas._data, feas.self_collision.margin))  # a clear warm start
    calls = []
    rounds = feas._rounds

    def spy(purpose, rows, q, active, active_self, restart):
        out = rounds(purpose, rows, q, active, active_self, restart)
        calls.append((restart is not None, out[0].success, out[1] is not None))
        return out

    feas._rounds = spy
    res, contact = feas.addition(STANCE, "r_hand", box, q0)
    # the rounds from the solutions fail and hand over their pairs; started over, the request succeeds
    assert calls == [(False, False, True), (True, True, False)], calls
    assert contact is not None and contact.location == "r_hand", res.outcome
    kin.update(feas.model, feas._data, res.q)
    d = feas.self_collision.distances(feas._data)[0]
    assert np.all(d >= feas.self_collision.margin - feas.settings.tolerance), d.min()
