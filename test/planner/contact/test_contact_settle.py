"""Settled releases (`children.removal_job` with ``settle``, `PlannerSettings.settle_releases`;
docs/contact_planner.md "Children"): a release child keeps the transition's witness, which still touches
the released contact, and takes its potential at a posture of its own stance, one more PG call
from the witness with the potential as criterion.

The case: the chair stand-up's seat-off (Escande 2008, §7.3): both soles and the right thigh geometric,
the soles stable. Its witness is still seated (the thigh's contact point on the seat), and the
guide's root progress scores it only a few millimetres of progress; settled on the soles alone the
robot rises toward the guide's standing key posture, so the potential is lower and the thigh is
off the seat.
"""

import pinocchio as pin

from humanoid_model.scene import load_scene
from humanoid_planner.contact import scene_planning
from humanoid_planner.contact.children import removal_job
from humanoid_planner.contact.stance import Stance


def test_a_settled_seat_off_scores_at_a_risen_posture_and_keeps_the_seated_witness():
    sp = scene_planning(load_scene("chair_table"))
    feas, potential = sp.planner.feas, sp.planner.potential
    start = sp.start.contacts
    q0 = feas.transition(start, start, sp.start_q).q
    feet = tuple(c for c in start if c.location.endswith("sole"))
    right_thigh = tuple(c for c in start if c.location == "r_thigh")
    seated = feas.transition(start, feet + right_thigh, q0)  # the left thigh released first
    assert seated.success
    plain, none = removal_job(feas, feet + right_thigh, feet, seated.q)
    res, settled = removal_job(feas, feet + right_thigh, feet, seated.q, settle=True)
    assert plain.success and none is None and res.success and settled is not None
    stance = Stance(feet)
    u_witness, u_settled = potential.total(stance, res.q), potential.total(stance, settled)
    assert u_settled < u_witness - 0.05  # > 10 cm of root progress at k = 0.5 m^-1 (guide.py)
    m, data = feas.model, feas.model.createData()
    loc = feas.locations["r_thigh"]
    seat_top = feas.surfaces["seat"].vertices[0, 2]
    heights = []
    for q in (res.q, settled):
        pin.framesForwardKinematics(m, data, q)
        heights.append(data.oMf[m.getFrameId(loc.body)].act(loc.point)[2] - seat_top)
    assert abs(heights[0]) < 1e-5  # the witness: the thigh still on the seat (geometry of the larger stance)
    assert heights[1] > 0.05  # settled: off the seat
    assert feas.stats.table() and any(p == "settle" for p, *_ in feas.stats.table())
