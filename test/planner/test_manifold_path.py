"""The path planned on a segment's stance manifold (`humanoid_planner.motion.manifold_path`): the
fallback of the motion for the segments whose projections cannot keep clear.

The case: HRP-2 stands on the flat floor on both soles (the flat scene's start stance) under a
2 cm plate (0.3 x 0.4 m, its top 0.81 m high, in front of the left arm); the left hand goes from
under the plate to over it. The straight path between the two postures takes the arm through the
plate (checked below with `motion_problems`, coal on the URDF shapes). The motion of that segment,
with the projections made to fail so that the planner is asked, is checked independently of the
planner's own rows: every sample keeps both soles within 1 mm of their place at the start
(Pinocchio's forward kinematics), the robot's joint limits (the URDF's), the CoM over the soles'
rectangle, and every fifth is clear of the plate, of the ground and of itself (`motion_problems`); the
segment is not listed as unclear. A planner given too few state checks fails with its reason and
the segment is then unclear (the thesis's projections). On the flat walk's first step, planned,
the sole leaves and lands along the floor's normal and never goes below the floor. A real
segment: BIP's two-tread step on the stairs, clear.
"""

from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model import load_robot
from humanoid_model.scene import load_scene, resolve_scene_path
from humanoid_planner.contact import Node, motion_problems
from humanoid_planner.motion import Motion, generate_motion, plan_on_stance, project_on_stance
from humanoid_planner.motion import generate as generate_module
from humanoid_planner.motion.manifold_path import StanceRows
from humanoid_planner.motion.segments import Segment
from humanoid_planner.planning import problem_for

PLATE = """bodies:
  - name: plate
    shape: box
    size: [0.30, 0.40, 0.02]
    pose: {xyz: [0.35, 0.30, 0.80]}
"""
#: every 5th sample for the collisions: 25 ms at dt 5 ms, a body point moves < 0.5 mm at the 10 deg/s cap
#: (the contact benchmark's stride); every sample costs ~3 ms
STRIDE = 5
BELOW, ABOVE = (0.30, 0.30, 0.68), (0.30, 0.30, 0.92)  # the left hand's point [m]


@pytest.fixture(scope="module")
def plate(tmp_path_factory):
    """(problem, segment): the flat scene with the plate, and the segment from the left hand under
    the plate to over it in the start stance (both postures projected with the collision rows)."""
    path = Path(tmp_path_factory.mktemp("scene")) / "flat.yaml"
    path.write_text(resolve_scene_path("flat").read_text() + PLATE)
    problem = problem_for(load_scene(path), load_robot("hrp2"))
    feas, fixed = problem.planner.feas, problem.start.contacts
    ends = []
    for target in (BELOW, ABOVE):
        res = project_on_stance(feas, fixed, [("l_hand", None, np.array(target))], problem.start_q, problem.start_q)
        assert res.max_violation < 1e-4, res.outcome
        ends.append(res.q)
    return problem, Segment(0, ends[0], ends[1], fixed)


def _samples_motion(seg, q):
    """A one-segment `Motion` of the samples ``q`` (m, nq) for `motion_problems`."""
    t = np.arange(len(q)) * 0.005
    return Motion(t, q, [q[[0, -1]]], [0.0, float(t[-1])], [seg])


def test_the_straight_path_takes_the_arm_through_the_plate(plate):
    problem, seg = plate
    m = problem.planner.feas.model
    q = np.array([pin.interpolate(m, seg.q_start, seg.q_end, u) for u in np.linspace(0.0, 1.0, 41)])
    found = motion_problems(problem.planner, _samples_motion(seg, q))
    assert any("plate" in p for p in found), found


def _sole_places(robot, q):
    model, data = robot.model, robot.model.createData()
    pin.framesForwardKinematics(model, data, q)
    out = {}
    for name in ("l_sole", "r_sole"):
        loc = robot.contact_locations[name]
        M = data.oMf[model.getFrameId(loc.body)]
        out[name] = M.act(np.asarray(loc.point, float)), M.rotation.copy()
    return out


def _failing_projections(monkeypatch):
    """The motion's projections with collision rows made to fail (the segments the fallback is for)."""
    real = generate_module._knots_on

    def failing(feas, seg, s, stats, paths, collision):
        if collision:
            raise generate_module.PlanningError("made to fail")
        return real(feas, seg, s, stats, paths, collision)

    monkeypatch.setattr(generate_module, "_knots_on", failing)


def test_a_segment_the_projections_cannot_clear_follows_a_planned_path_that_holds_the_soles_and_keeps_clear(
    plate, monkeypatch
):
    problem, seg = plate
    robot, feas = problem.robot, problem.planner.feas
    _failing_projections(monkeypatch)
    lines = []
    motion = generate_motion(feas, [Node(problem.start, seg.q_start, 0.0)], seg.q_end, progress=lines.append)
    assert motion.unclear == []
    assert [(p.index, p.found) for p in motion.planned] == [(0, True)]
    assert any("path planned" in line for line in lines), lines
    np.testing.assert_allclose(motion.q[0], seg.q_start, atol=1e-12)
    np.testing.assert_allclose(motion.q[-1], seg.q_end, atol=1e-12)
    # independent checks on every sample: forward kinematics, the URDF's limits, coal on the URDF shapes
    start = _sole_places(robot, seg.q_start)
    lo, hi = robot.model.lowerPositionLimit[7:], robot.model.upperPositionLimit[7:]
    model, data = robot.model, robot.model.createData()
    corners = np.vstack([robot.contact_locations[n].hull for n in ("l_sole", "r_sole")])
    for q in motion.q:
        for name, (p, R) in _sole_places(robot, q).items():
            assert np.linalg.norm(p - start[name][0]) < 1e-3, name
            assert np.linalg.norm(R - start[name][1]) < 1e-2, name
        assert np.all(q[7:] >= lo - 1e-9) and np.all(q[7:] <= hi + 1e-9)
        com = pin.centerOfMass(model, data, q)
        feet = np.array([start[n][0] for n in ("l_sole", "r_sole")])
        half = np.abs(corners[:, :2]).max(axis=0)  # the soles' half-size, about their points
        assert feet[:, 0].min() - half[0] <= com[0] <= feet[:, 0].max() + half[0]
        assert feet[:, 1].min() - half[1] <= com[1] <= feet[:, 1].max() + half[1]
    assert motion_problems(problem.planner, motion, stride=STRIDE) == []
    # the hand really went from under the plate to over it
    hand = robot.contact_locations["l_hand"]
    for q, target in ((motion.q[0], BELOW), (motion.q[-1], ABOVE)):
        pin.framesForwardKinematics(model, data, q)
        p = data.oMf[model.getFrameId(hand.body)].act(np.asarray(hand.point, float))
        np.testing.assert_allclose(p, target, atol=1e-4)


def test_a_planner_out_of_state_checks_fails_with_its_reason_and_the_segment_stays_unclear(plate, monkeypatch):
    problem, seg = plate
    feas = problem.planner.feas
    found = plan_on_stance(feas, seg, max_checks=50)
    assert found.knots is None
    assert found.reason == "no path in 50 state checks"
    real = generate_module.plan_on_stance
    monkeypatch.setattr(generate_module, "plan_on_stance", lambda f, s, t: real(f, s, t, max_checks=50))
    _failing_projections(monkeypatch)
    motion = generate_motion(feas, [Node(problem.start, seg.q_start, 0.0)], seg.q_end)
    assert motion.unclear == [0]
    assert [(p.index, p.found, p.reason) for p in motion.planned] == [(0, False, "no path in 50 state checks")]


def test_a_witness_inside_an_obstacle_is_refused_at_once(plate):
    problem, seg = plate
    feas = problem.planner.feas
    # the straight path's middle, on the stance: the arm in the plate
    inside = StanceRows(feas, seg).project(pin.interpolate(feas.model, seg.q_start, seg.q_end, 0.5))
    assert any("plate" in p for p in motion_problems(problem.planner, _samples_motion(seg, inside[None])))
    found = plan_on_stance(feas, Segment(0, seg.q_start, inside, seg.fixed))
    assert found.knots is None and found.reason == "the end witness is not a valid state"


def test_a_planned_step_leaves_and_lands_along_the_floor_normal_and_never_dips_into_the_floor(
    flat_walk_plan, monkeypatch
):
    """The flat walk's first step (the right sole leaves the floor and lands 0.2 m ahead, the left
    sole held), its projections made to fail: the planned path starts and ends with the sole's
    2 cm normal leave and approach (its point moves < 1 mm sideways until it is first 2 cm up,
    and from when it is last 2 cm up), no point of the right sole's outline goes below the floor, the left sole
    stays within 1 mm of its place (forward kinematics), and the samples are clear."""
    r = flat_walk_plan["result"]
    robot, feas, nodes = r.planner.robot, r.planner.feas, r.plan.nodes
    assert (nodes[1].kind, nodes[1].changed.location, nodes[2].kind) == ("released", "r_sole", "added")
    _failing_projections(monkeypatch)
    motion = generate_motion(feas, nodes[1:3], None)
    assert motion.unclear == [] and [(p.index, p.found) for p in motion.planned] == [(0, True)]
    model, data = robot.model, robot.model.createData()
    sole, held = robot.contact_locations["r_sole"], robot.contact_locations["l_sole"]
    points, lowest, left = [], np.inf, []
    for q in motion.q:
        pin.framesForwardKinematics(model, data, q)
        M = data.oMf[model.getFrameId(sole.body)]
        points.append(M.act(np.asarray(sole.point, float)))
        lowest = min(lowest, float(np.min((np.asarray(sole.hull, float) @ M.rotation.T + M.translation)[:, 2])))
        left.append(data.oMf[model.getFrameId(held.body)].act(np.asarray(held.point, float)))
    points, left = np.array(points), np.array(left)
    assert lowest > -1e-3
    assert np.linalg.norm(left - left[0], axis=1).max() < 1e-3
    for run in (points, points[::-1]):  # from the start, and back from the end
        first = int(np.argmax(run[:, 2] - run[0, 2] >= 0.02 - 1e-4))  # the sole's point first 2 cm up
        assert first > 0
        assert np.linalg.norm(run[: first + 1, :2] - run[0, :2], axis=1).max() < 1e-3
    assert np.linalg.norm(points[-1][:2] - points[0][:2]) > 0.1  # the sole did step forward
    assert motion_problems(r.planner, motion, stride=STRIDE) == []


def test_bips_two_tread_step_on_the_stairs_is_clear():
    """BIP's stairs plan (the scene's BIP settings, 1000 nodes at most): its segment 5, the left
    foot from the first tread to the third past the right shank, which no projection keeps clear
    on the plan we find (without the path planner the segment is unclear; with it, planned in
    ~2 s): its motion is clear at every 5th sample (`motion_problems`), lists no unclear segment,
    and keeps the held right sole within 1 mm (forward kinematics). Where another machine plans
    another plan, the same is asked of its segment 5."""
    from humanoid_planner.contact import scene_planning

    sp = scene_planning(load_scene("stairs"), load_robot("bip"), max_expanded=1000)
    plan = sp.plan()
    assert plan.success, plan.reason
    robot, feas = sp.robot, sp.planner.feas
    motion = generate_motion(feas, plan.nodes[5:7], None)
    assert motion.unclear == []
    assert motion_problems(sp.planner, motion, stride=STRIDE) == []
    model, data = robot.model, robot.model.createData()
    for c in motion.segments[0].fixed:
        loc = robot.contact_locations[c.location]
        places = []
        for q in motion.q:
            pin.framesForwardKinematics(model, data, q)
            places.append(data.oMf[model.getFrameId(loc.body)].act(np.asarray(loc.point, float)))
        assert np.linalg.norm(np.array(places) - places[0], axis=1).max() < 1e-3, c.location
