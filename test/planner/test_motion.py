"""Motion from a contact plan (`humanoid_planner.motion`, Escande 2008, §7.1).

On the flat walk (conftest's `flat_walk_plan`: HRP-2 walks 0.4 m by Contacts-VBFP, k = 20),
everything is checked from Pinocchio's forward kinematics, independently of the constraints the
projections used: the trajectory passes through every witness posture and ends at the goal posture;
a contact body stays where its contact is while the stance holds it (< 1 mm, a bound we choose);
joint speeds stay under the 10 deg/s cap (and reach it: the law is not slower than it must be); the
velocity is zero where contacts are made and broken; the bodies that make or break a contact move >=
2 cm along the surface normal, straight (§7.1.2). The pieces are also checked alone: the time law
against its closed form (7.3), the body path's junctions and rise, the five cases of moving bodies
(§7.1.2), the projection criterion's gradient by central differences.
"""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_planner.contact import Contact, Stance
from humanoid_planner.motion import LEAD_IN, BodyPath, plan_segments, sinusoidal_samples
from humanoid_planner.posture import ConfigurationDistance

CAP = np.deg2rad(10.0)  # [rad/s] the thesis's joint-speed cap (Escande 2008, §7.1.2, Fig. 7.2)


@pytest.fixture(scope="module")
def walk(flat_walk_plan):
    r = flat_walk_plan["result"]
    return r, r.motion, r.planner.feas


@pytest.fixture(scope="module")
def scene_motion(scene_plan):
    """``scene_motion(name)`` -> (ScenePlanning, Plan, Motion): the shared plan of a shipped scene
    (conftest ``scene_plan``) and its motion (default settings), made once per module."""
    from humanoid_planner.motion import generate_motion

    made = {}

    def get(name):
        if name not in made:
            sp, plan = scene_plan(name)
            made[name] = (sp, plan, generate_motion(sp.planner.feas, plan.nodes, plan.goal_q))
        return made[name]

    return get


def test_motion_problems_finds_a_sample_pushed_into_the_table_and_nothing_else(scene_motion):
    """The can's motion with one sample's base moved 0.3 m forward, into the table (its top at
    x >= 0.45 m, 0.7 m high, the robot at x ~0.15 m): `motion_problems` names that sample and a
    geometry inside ``table_top``, and nothing at the other samples checked; a stride < 1 is refused."""
    import dataclasses

    from humanoid_planner.contact import motion_problems

    sp, _, m = scene_motion("table_can")
    k = int(np.searchsorted(m.t, m.witness_times[1]))  # the first witness: both soles, the right hand on the table
    q = m.q.copy()
    q[k, 0] += 0.3
    pushed = dataclasses.replace(m, q=q)
    found = motion_problems(sp.planner, pushed, stride=50)
    assert found and all(f"sample {k} " in f for f in found), found[:3]
    assert any("penetrates obstacle table_top" in f for f in found), found
    with pytest.raises(ValueError, match="stride"):
        motion_problems(sp.planner, m, stride=0)


def _point(robot, data, q, name):
    """World position of location ``name``'s point and its body's rotation at ``q`` (FK)."""
    loc = robot.contact_locations[name]
    pin.framesForwardKinematics(robot.model, data, q)
    M = data.oMf[robot.model.getFrameId(loc.body)]
    return M.act(np.asarray(loc.point, float)), M.rotation.copy()


def _window(m, k):
    return (m.t >= m.witness_times[k] - 1e-9) & (m.t <= m.witness_times[k + 1] + 1e-9)


@pytest.mark.spec("001", "A22")
def test_trajectory_passes_through_every_witness_posture_and_ends_at_the_goal(walk):
    r, m, _ = walk
    nodes = r.plan.nodes
    assert len(m.witness_times) == len(nodes) + 1  # every node, then the goal posture
    for n, t in zip(nodes, m.witness_times):
        i = int(np.argmin(np.abs(m.t - t)))
        assert abs(m.t[i] - t) < 1e-9
        np.testing.assert_allclose(m.q[i], n.q, atol=1e-12)
    np.testing.assert_allclose(m.q[-1], r.plan.goal_q, atol=1e-12)
    np.testing.assert_allclose(np.diff(m.t), 0.005, atol=1e-12)  # the control period, HRP-2's 5 ms
    # the motion starts where the robot stands (the problem's start posture), not at the root's
    # witness (the posture generator's projection of it, its root 21 cm forward): the lead-in
    # joins them in the start stance, over [0, witness_times[0]]
    assert m.t[0] == 0.0 and m.witness_times[0] > 0.5
    np.testing.assert_allclose(m.q[0], r.problem.start_q, atol=1e-12)
    assert m.lead_in.index == LEAD_IN and m.lead_in.fixed == nodes[0].stance.contacts and not m.lead_in.changes
    assert np.linalg.norm(nodes[0].q[:2] - r.problem.start_q[:2]) > 0.1  # a lead-in there is to make
    # all projections succeed, k - 1 per segment (the lead-in's too), none retried
    assert dict(m.stats.calls) == {("interpolation", "SUCCESS"): 19 * (len(m.segments) + 1)}


def test_contact_bodies_stay_fixed_while_in_contact(robot, walk):
    """Every contact of a segment's stance: its point within 1 mm of the contact's environment
    point E and the body axes within 1e-3 rad of the contact frame at every sample (the
    projections hold it to 1e-6; the samples between them are interpolated)."""
    r, m, feas = walk
    data = robot.model.createData()
    worst = 0.0
    assert m.windows()[0][0] is m.lead_in  # the lead-in holds the start stance too
    for seg, t0, t1 in m.windows():
        assert len(seg.fixed) >= 1
        for c in seg.fixed:
            env, rf = feas.env_frame(c), feas.robot_frame(c.location)
            for q in m.q[(m.t >= t0 - 1e-9) & (m.t <= t1 + 1e-9)]:
                p, R = _point(robot, data, q, c.location)
                worst = max(worst, float(np.linalg.norm(p - env.point)))
                assert np.linalg.norm(pin.log3(env.rotation.T @ R @ rf.rotation)) < 1e-3
    assert worst < 1e-3


def test_the_walk_stays_clear_of_the_ground_and_of_itself(walk):
    """Every 10th sample of the walk's motion: no robot geometry inside the ground (the soles'
    pairs of each segment's contacts left out) and no two overlapping (URDF shapes,
    `contact.motion_problems`); every segment kept its collision rows."""
    from humanoid_planner.contact import motion_problems

    r, m, _ = walk
    assert m.unclear == []
    assert motion_problems(r.planner, m, stride=10) == []


@pytest.mark.spec("001", "A22")
def test_joint_speeds_stay_under_the_cap_and_reach_it(walk):
    _, m, _ = walk
    speed = np.abs(np.diff(m.q[:, 7:], axis=0)) / np.diff(m.t)[:, None]
    assert speed.max() <= CAP * (1 + 1e-9)
    assert speed.max() > 0.95 * CAP  # the time law is as fast as the cap allows


def test_joint_accelerations_stay_small_on_the_c2_path(walk):
    """The spline through the projections has no velocity jumps at them: sampled joint
    accelerations stay below 1 rad/s² (the piecewise-linear path of the thesis reached 16 rad/s²
    at its knots on this plan, above a robot bridge's default 10 rad/s²)."""
    _, m, _ = walk
    acc = np.abs(np.diff(m.q[:, 7:], n=2, axis=0)) / 0.005**2
    assert acc.max() < 1.0


@pytest.mark.spec("001", "A22")
def test_velocity_is_zero_where_contacts_are_made_and_broken(walk):
    """Sinusoidal law (7.3): at each witness time the first and last steps of the adjacent segments
    move the joints by far less than the cap would (a(dt) = L pi² dt² / 4T² ~ 0)."""
    _, m, _ = walk
    for t in m.witness_times:
        i = int(np.argmin(np.abs(m.t - t)))
        for j in (i - 1, i + 1):
            if 0 <= j < len(m.t):
                step = np.max(np.abs(m.q[j, 7:] - m.q[i, 7:]))
                assert step < 0.02 * CAP * 0.005


@pytest.mark.spec("001", "A22")
def test_bodies_leave_and_approach_along_the_surface_normal_by_2_cm(robot, walk):
    """For each contact broken and made: the body's point rises >= 2 cm above the contact plane
    (Escande 2008, §7.1.2), and while it is within 2 cm of the plane its tangential offset from the contact point
    stays < 1 mm and its orientation that of the contact (a straight normal segment)."""
    _, m, feas = walk
    data = robot.model.createData()
    events = 0
    for k, seg in enumerate(m.segments):
        for c in (seg.leaving, seg.arriving):
            if c is None:
                continue
            events += 1
            env, rf = feas.env_frame(c), feas.robot_frame(c.location)
            qs = m.q[_window(m, k)]
            if c is seg.arriving:
                qs = qs[::-1]  # from the contact back up, in reverse time
            P = np.array([_point(robot, data, q, c.location)[0] for q in qs])
            h = (P - env.point) @ env.n
            assert h.max() >= 0.02 - 1e-6
            first_above = int(np.argmax(h >= 0.02 - 1e-6))
            for q, p in zip(qs[: first_above + 1], P[: first_above + 1]):
                off = (p - env.point) - ((p - env.point) @ env.n) * env.n
                assert np.linalg.norm(off) < 1e-3
                R = _point(robot, data, q, c.location)[1]
                assert np.linalg.norm(pin.log3(env.rotation.T @ R @ rf.rotation)) < 1e-3
    assert events == 4  # two steps: each sole leaves once and arrives once


def test_refinement_adds_projections_until_every_chord_holds_the_contacts(robot, walk):
    """The first step of the walk (root, release, addition), k = 5, with a 20 µm drift bound: more
    than the k + 1 = 6 knots in the swing segment, every chord midpoint within 20 µm of the held
    contact (FK), and the sampled motion too (k = 20 uniform projections give 54 µm at a chord
    midpoint)."""
    from humanoid_planner.motion import MotionSettings, generate_motion

    r, _, feas = walk
    m = generate_motion(feas, r.plan.nodes[:3], None, MotionSettings(steps=5, drift=2e-5))
    seg, knots = m.segments[1], m.knots[1]
    assert seg.moving == ("r_sole",) and len(knots) > 6
    data = robot.model.createData()

    def drift(q):
        return max(np.linalg.norm(_point(robot, data, q, c.location)[0] - feas.env_frame(c).point) for c in seg.fixed)

    assert max(drift(pin.interpolate(robot.model, a, b, 0.5)) for a, b in zip(knots[:-1], knots[1:])) <= 2e-5
    assert max(drift(q) for q in m.q[_window(m, 1)]) <= 2e-5


def test_a_projection_that_fails_twice_ends_the_motion_with_the_segment_and_step(robot, walk):
    """A segment whose held contacts include the right hand 3 m ahead of the feet (no posture holds
    it): the projection at step 1 of 2 fails, is retried once from the interpolated configuration,
    fails again, and so does every fallback (with and without collision rows; no moving body, so
    no path to drop): `PlanningError` naming segment 0 and step 1/2. (A hand 3 m away as the
    *arriving* body does not end the motion: the last fallback interpolates it without a path.)"""
    from humanoid_planner.contact import Node
    from humanoid_planner.contact.node import RELEASED, ROOT
    from humanoid_planner.exceptions import PlanningError
    from humanoid_planner.motion import MotionSettings, generate_motion

    r, _, feas = walk
    root = r.plan.nodes[0]
    hand = Contact("r_hand", "floor", 3.0, 0.0, 0.0)
    held = Node(root.stance.with_contact(hand), root.q, 0.0, None, ROOT, None)
    moved = root.q.copy()
    moved[7] += 0.1  # one joint moves: the segment needs its projection
    nodes = [held, Node(root.stance, moved, 0.0, held, RELEASED, hand)]
    with pytest.raises(PlanningError, match=r"motion: segment 0 step 1/2: projection failed"):
        generate_motion(feas, nodes, None, MotionSettings(steps=2))


@pytest.mark.parametrize("value", [-0.1, float("nan"), float("inf")])
def test_motion_settings_refuse_a_clearance_that_is_not_a_share(value):
    from humanoid_planner.exceptions import PlanningError
    from humanoid_planner.motion import MotionSettings

    with pytest.raises(PlanningError, match="field 'clearance'"):
        MotionSettings(clearance=value)
    assert MotionSettings(clearance=0.0).clearance == 0.0  # refine only where capsules touch


def test_time_law_is_the_closed_form_sinusoid(robot):
    """One joint moving by 0.3 rad on a single piece: T = ceil(pi L / 2 / dt) dt with L = 0.3 / cap
    and q(t) = q0 + (0.3 / 2)(1 - cos(pi t / T)) exactly (7.3)."""
    q0 = robot.q()
    q1 = q0.copy()
    j = robot.model.joints[robot.model.getJointId("RLEG_JOINT3")].idx_q
    q1[j] += 0.3
    dt = 0.005
    t, q = sinusoidal_samples(robot.model, np.array([q0, q1]), dt, CAP, 0.1, CAP)
    T = np.ceil(np.pi * (0.3 / CAP) / 2 / dt) * dt
    assert t[-1] == pytest.approx(T)
    np.testing.assert_allclose(q[:, j], q0[j] + 0.15 * (1 - np.cos(np.pi * t / T)), atol=1e-12)
    others = np.delete(np.arange(robot.model.nq), j)
    np.testing.assert_allclose(q[:, others], np.tile(q0[others], (len(t), 1)), atol=1e-12)


def test_body_path_is_c1_at_the_junctions_and_rises_a_quarter_chord():
    """Leaving and returning to a floor (normal z) 0.3 m apart: the straight segments are normal,
    the spline's tangents at the junctions are along the normal (C¹ directions), it peaks a
    quarter chord above the 2 cm line at mid-spline, and the orientation is constant on the
    segments and the geodesic midpoint at mid-spline."""
    n = np.array([0.0, 0.0, 1.0])
    R0, R1 = np.eye(3), pin.exp3(np.array([0.0, 0.0, 0.4]))
    bp = BodyPath(R0, np.zeros(3), R1, np.array([0.3, 0.0, 0.0]), n, n)
    assert bp.s_leave == pytest.approx(0.2) and bp.s_arrive == pytest.approx(0.8)
    np.testing.assert_allclose(bp.position(0.1), [0, 0, 0.01], atol=1e-15)
    np.testing.assert_allclose(bp.position(0.2), [0, 0, 0.02], atol=1e-15)
    e = 1e-7
    for s, sign in ((0.2, 1), (0.8, -1)):
        for side in (-1, 1):
            d = (bp.position(s + side * e) - bp.position(s)) * side
            assert np.linalg.norm(np.cross(d / np.linalg.norm(d), sign * n)) < 1e-5
    np.testing.assert_allclose(bp.position(0.5), [0.15, 0, 0.02 + 0.3 / 4], atol=1e-12)
    np.testing.assert_allclose(bp.rotation(0.1), R0, atol=1e-15)
    np.testing.assert_allclose(bp.rotation(0.9), R1, atol=1e-12)
    np.testing.assert_allclose(bp.rotation(0.5), pin.exp3(np.array([0.0, 0.0, 0.2])), atol=1e-12)


def test_a_lifted_and_bent_body_path_rises_lift_quarter_chords_bends_by_its_offset_and_stays_c1():
    """The same 0.3 m floor-to-floor path with ``lift`` 2 and a sideways ``offset`` of 0.1 m: the
    Hermite tangents 2 x chord along the normals give a rise of 2 x 0.3 / 4 at mid-spline (closed
    form: h10(1/2) - h11(1/2) = 1/4 per tangent length), the bend 16 u^2 (1 - u)^2 offset is the
    whole offset there; the straight segments and the C¹ directions at the junctions are those of
    the plain path (the bend has zero value and slope at the spline's ends)."""
    n = np.array([0.0, 0.0, 1.0])
    off = np.array([0.0, 0.1, 0.0])
    bp = BodyPath(np.eye(3), np.zeros(3), np.eye(3), np.array([0.3, 0.0, 0.0]), n, n, lift=2.0, offset=off)
    np.testing.assert_allclose(bp.position(0.5), [0.15, 0.1, 0.02 + 2 * 0.3 / 4], atol=1e-12)
    np.testing.assert_allclose(bp.position(0.1), [0, 0, 0.01], atol=1e-15)
    np.testing.assert_allclose(bp.position(0.8), [0.3, 0, 0.02], atol=1e-15)
    u = 0.3  # the spline's own parameter at s = 0.2 + 0.3 * 0.6
    plain = BodyPath(np.eye(3), np.zeros(3), np.eye(3), np.array([0.3, 0.0, 0.0]), n, n, lift=2.0)
    np.testing.assert_allclose(bp.position(0.38) - plain.position(0.38), 16 * u**2 * (1 - u) ** 2 * off, atol=1e-15)
    e = 1e-7
    for s, sign in ((0.2, 1), (0.8, -1)):
        for side in (-1, 1):
            d = (bp.position(s + side * e) - bp.position(s)) * side
            assert np.linalg.norm(np.cross(d / np.linalg.norm(d), sign * n)) < 1e-5
    from humanoid_planner.exceptions import PlanningError

    with pytest.raises(PlanningError, match="lift"):
        BodyPath(np.eye(3), np.zeros(3), np.eye(3), np.ones(3), n, n, lift=0.5)


def _node(stance, kind="root", changed=None):
    from humanoid_planner.contact import Node

    return Node(stance, np.zeros(3), 0.0, kind=kind, changed=changed)


def test_the_five_cases_of_moving_bodies():
    """Escande 2008, §7.1.2: s- ⊂ s ⊂ s+ one arriving; s- ⊃ s ⊃ s+ one leaving; s- ⊂ s ⊃ s+ none;
    s- ⊃ s ⊂ s+ the same body leaving and returning (one path) or two bodies (two paths)."""
    a, b, c = (Contact(n, "floor", x, 0, 0) for n, x in (("l_sole", 0), ("r_sole", 0.1), ("r_hand", 0.5)))
    a2 = Contact("l_sole", "floor", 0.3, 0, 0)
    S = Stance

    def moving(nodes):
        return [s.moving for s in plan_segments(nodes)]

    # s0 ⊂ s1 ⊂ s2: segment 1 has the second addition arriving
    n = [_node(S([a])), _node(S([a, b]), "added", b), _node(S([a, b, c]), "added", c)]
    assert moving(n) == [("r_sole",), ("r_hand",)]
    # s0 ⊃ s1 ⊃ s2: segment 1 has the first release leaving
    n = [_node(S([a, b, c])), _node(S([a, b]), "released", c), _node(S([a]), "released", b)]
    assert moving(n) == [(), ("r_hand",)]
    # s0 ⊂ s1 ⊃ s2: none in segment 1
    n = [_node(S([a])), _node(S([a, b]), "added", b), _node(S([b]), "released", a)]
    assert moving(n) == [("r_sole",), ()]
    # s0 ⊃ s1 ⊂ s2, same body (a step): one path, leaving and arriving
    n = [_node(S([a, b])), _node(S([b]), "released", a), _node(S([a2, b]), "added", a2)]
    segs = plan_segments(n)
    assert segs[1].moving == ("l_sole",) and segs[1].leaving == a and segs[1].arriving == a2
    # s0 ⊃ s1 ⊂ s2, two bodies: two paths
    n = [_node(S([a, b])), _node(S([b]), "released", a), _node(S([b, c]), "added", c)]
    assert plan_segments(n)[1].moving == ("l_sole", "r_hand")


def test_projection_criterion_gradient_matches_central_differences(robot):
    rng = np.random.default_rng(3)
    m = robot.model
    p = pin.randomConfiguration(m, -np.ones(m.nq), np.ones(m.nq))
    q = pin.randomConfiguration(m, -np.ones(m.nq), np.ones(m.nq))
    crit = ConfigurationDistance(m, p)
    f, g = crit.evaluate(q)
    assert f == pytest.approx(0.5 * np.sum(pin.difference(m, p, q) ** 2))
    for _ in range(3):
        v = rng.normal(size=m.nv)
        h = 1e-6
        fd = (crit(pin.integrate(m, q, h * v)) - crit(pin.integrate(m, q, -h * v))) / (2 * h)
        assert fd == pytest.approx(g @ v, rel=1e-6, abs=1e-9)


def _sole_held(robot, q, q_ref):
    """``q`` with its base moved so that the left sole's frame is where it is at ``q_ref``."""
    m = robot.model
    data = m.createData()
    fid = m.getFrameId(robot.contact_locations["l_sole"].body)
    pin.framesForwardKinematics(m, data, q_ref)
    want = data.oMf[fid].copy()
    pin.framesForwardKinematics(m, data, q)
    base = pin.XYZQUATToSE3(q[:7])
    out = q.copy()
    out[:7] = pin.SE3ToXYZQUAT(want * data.oMf[fid].inverse() * base)
    return out


def test_a_body_three_joints_from_a_held_contact_follows_its_position_not_its_pose(robot, walk):
    """The thesis gives paths to hands and feet only, more bodies over-constraining the projection,
    for instance two bodies of the same HRP-2 limb (Escande 2008, §7.1.2). The left thigh with the
    left sole held moves by the knee and the two ankle axes (`freedom` 3). Between two such thigh
    poses (knee +0.3 rad, ankle pitch -0.2 rad), the mid pose of its path is out of reach of the
    projection (> 1 mm left), its mid position is reached; so `body_paths` gives the arriving thigh
    its position alone and the leaving right sole (12 joints from the left sole) its pose."""
    from humanoid_planner.motion import MotionSettings, body_paths
    from humanoid_planner.motion.generate import freedom
    from humanoid_planner.motion.segments import Segment
    from humanoid_planner.posture import FrameOrientation, FramePosition, PostureProblem, solve

    _, _, feas = walk
    m, L = robot.model, robot.contact_locations
    assert freedom(m, L["l_thigh"].body, L["l_sole"].body) == 3
    assert freedom(m, L["r_sole"].body, L["l_sole"].body) == 12
    qa = robot.q()
    qb = qa.copy()
    for joint, dq in (("LLEG_JOINT3", 0.3), ("LLEG_JOINT4", -0.2)):
        qb[m.joints[m.getJointId(joint)].idx_q] += dq
    qb = _sole_held(robot, qb, qa)
    held = feas.contacts_at(qa, ["l_sole"], "floor")
    thigh = feas.contacts_at(qb, ["l_thigh"], "floor")[0]  # any surface: its normal is not used here
    seg = Segment(0, qa, qb, tuple(held), feas.contacts_at(qa, ["r_sole"], "floor")[0], thigh)
    paths = body_paths(feas, seg, MotionSettings())
    assert paths["l_thigh"].orientation is False and paths["r_sole"].orientation is True
    bp = paths["l_thigh"]
    loc, p = L["l_thigh"], pin.interpolate(m, qa, qb, 0.5)
    violation = {}
    for pose in (True, False):
        cons = [feas.strong(held[0]), FramePosition(m, loc.body, bp.position(0.5), point=loc.point)]
        if pose:
            cons.append(FrameOrientation(m, loc.body, bp.rotation(0.5)))
        violation[pose] = solve(PostureProblem(m, cons, p, ConfigurationDistance(m, p))).max_violation
    assert violation[True] > 1e-3 and violation[False] < 1e-6


def test_a_goal_posture_equal_to_the_last_witness_needs_no_projection(walk):
    """The last segment of a plan whose goal posture is its last witness (the glass scene's): two
    knots, both that posture, and no projection logged for it (SLSQP started at the answer can
    end in a line-search failure there)."""
    from humanoid_planner.motion import MotionSettings, generate_motion

    r, _, feas = walk
    nodes = r.plan.nodes[:2]
    m = generate_motion(feas, nodes, nodes[-1].q, MotionSettings(steps=4))
    assert len(m.knots[-1]) == 2 and np.array_equal(m.knots[-1][0], m.knots[-1][1])
    assert sum(m.stats.calls.values()) == 3  # the first segment's k - 1 = 3 projections only


def test_a_feasible_line_search_failure_is_a_projection_and_an_infeasible_one_is_not(walk, monkeypatch):
    """SLSQP's exit 8 at a point meeting every constraint is taken (the motion goes on); the same
    exit with a violated constraint is retried once and ends the motion (the path planner off: it
    would plan that segment instead)."""
    import dataclasses

    from humanoid_planner.exceptions import PlanningError
    from humanoid_planner.motion import MotionSettings, generate, generate_motion
    from humanoid_planner.posture.solver.outcome import Outcome

    r, _, feas = walk
    real = generate.project_on_stance

    def failing(feasible):
        def project(*args, **kwargs):
            res = real(*args, **kwargs)
            return dataclasses.replace(
                res, outcome=Outcome.LINE_SEARCH_FAILURE, feasible=feasible, max_violation=0.0 if feasible else 1e-3
            )

        return project

    monkeypatch.setattr(generate, "project_on_stance", failing(True))
    m = generate_motion(feas, r.plan.nodes[:2], None, MotionSettings(steps=3))
    assert len(m.knots[0]) == 4 and sum(m.stats.calls.values()) == 2  # both taken at once, no retry
    monkeypatch.setattr(generate, "project_on_stance", failing(False))
    with pytest.raises(PlanningError, match="LINE_SEARCH_FAILURE"):  # without the path planner (step 7)
        generate_motion(feas, r.plan.nodes[:2], None, MotionSettings(steps=3, plan_time=0.0))


@pytest.mark.spec("001", "A22")
@pytest.mark.parametrize("name", ["table_can", "stairs"])
def test_the_scene_plans_motions_pass_the_witnesses_hold_the_contacts_and_keep_the_cap(name, robot, scene_motion):
    """The motions of the can and stairs plans (every plan the tests produce is checked), from
    forward kinematics: every witness posture is a sample, every held contact's point stays within 1
    mm of its contact at every sample, joints under 10 deg/s. On the can the right arm reaches its
    wrist limit and its elbow turns 1 rad between two projections: the chord between them lets the
    held soles slide 2.6 mm, and refinements at p(u) would keep landing on either side; a refinement
    projects the chord's (the spline's) midpoint instead."""
    from humanoid_planner.contact import motion_problems

    sp, plan, m = scene_motion(name)
    feas = sp.planner.feas
    for n, t in zip(plan.nodes, m.witness_times):
        i = int(np.argmin(np.abs(m.t - t)))
        np.testing.assert_allclose(m.q[i], n.q, atol=1e-12)
    data = robot.model.createData()
    worst = 0.0
    for k, seg in enumerate(m.segments):
        for q in m.q[_window(m, k)]:
            for c in seg.fixed:
                worst = max(
                    worst, float(np.linalg.norm(_point(robot, data, q, c.location)[0] - feas.env_frame(c).point))
                )
    assert worst < 1e-3
    speed = np.abs(np.diff(m.q[:, 7:], axis=0)) / np.diff(m.t)[:, None]
    assert speed.max() <= CAP * (1 + 1e-9)
    # clear of the obstacles and of itself (URDF shapes, every 10th sample: 50 ms, < 1 mm of any
    # body point at 10 deg/s): the thesis's projections, without collision rows, let the can's
    # left hand 0.3 mm into the table top and the stairs' crossing steps a sole 15 mm into the
    # other shin (docs/planning.md, "Motion")
    assert m.unclear == []
    assert motion_problems(sp.planner, m, stride=10) == []


def test_the_chair_seat_off_motion_drops_the_leaving_thighs_position_path():
    """The chair's first two releases (the start of the thesis's chair plan, Escande 2008, §7.3.2:
    the left thigh, then the right one, the soles held): in segment 1 the left thigh leaves the seat
    while the right thigh and both soles are held. With the thigh's position path (3 rows, 3 joints
    from its sole) the first projection fails (SLSQP's singular subproblem); `_knots` then generates
    the segment without it, and the motion holds every contact of the segment within 1 mm at every
    knot."""
    from humanoid_model.scene import load_scene
    from humanoid_planner.contact import scene_planning
    from humanoid_planner.contact.node import RELEASED, ROOT, Node
    from humanoid_planner.contact.stance import Stance
    from humanoid_planner.motion.segments import plan_segments

    sp = scene_planning(load_scene("chair_table"))
    feas = sp.planner.feas
    start = sp.start.contacts
    q0 = feas.transition(start, start, sp.start_q).q
    feet = tuple(c for c in start if c.location.endswith("sole"))
    right = tuple(c for c in start if c.location == "r_thigh")
    left = next(c for c in start if c.location == "l_thigh")
    r1 = feas.transition(start, feet + right, q0)
    r2 = feas.transition(feet + right, feet, r1.q)
    assert r1.success and r2.success
    n0 = Node(Stance(start), q0, 0.0, None, ROOT, None)
    n1 = Node(Stance(feet + right), r1.q, 0.0, n0, RELEASED, left)
    n2 = Node(Stance(feet), r2.q, 0.0, n1, RELEASED, right[0])
    seg = plan_segments([n0, n1, n2])[1]
    _fallback_knots(feas, seg, "l_thigh", False, "segment 1 step 1/20")


def _fallback_knots(feas, seg, moving, posed, failure):
    """The knots of segment ``seg`` by `_knots`, once its first try (``moving``'s path, with its
    pose if ``posed``) is shown to fail with the message ``failure``; every knot holds the
    segment's contacts within 1 mm."""
    from humanoid_planner.contact.feasibility import Stats
    from humanoid_planner.exceptions import PlanningError
    from humanoid_planner.motion import MotionSettings, body_paths, contact_drift
    from humanoid_planner.motion import generate as gen

    s = MotionSettings()
    paths = body_paths(feas, seg, s)
    assert set(paths) == {moving} and paths[moving].orientation is posed
    with pytest.raises(PlanningError, match=failure):
        gen._knots_on(feas, seg, s, Stats(), paths, True)
    knots, clear = gen._knots(feas, seg, s, Stats(), [])
    assert clear  # a fallback with the collision rows, not the last one without them
    assert len(knots) >= s.steps + 1
    assert max(contact_drift(feas, seg.fixed, q) for q in knots) < 1e-3
    return knots


# Segment 14 of an under-table plan (25 stances): the right sole lands on the floor
# turned 1.70 rad while the left hand and the left sole hold the crouch (witnesses rounded to 1e-6)
UT_Q_START = [
    2.014154,
    0.047584,
    0.291079,
    -0.327155,
    0.227765,
    0.073652,
    0.914149,
    0.630241,
    1.027198,
    0.243439,
    0.765398,
    -0.774381,
    -0.113122,
    -0.537272,
    -1.117182,
    -1.350096,
    0.716341,
    0.148286,
    0.122522,
    -0.521768,
    -1.585703,
    -0.636733,
    -0.55649,
    -0.670444,
    0.058186,
    -0.060002,
    0.590865,
    -2.13218,
    2.597994,
    -0.913189,
    0.111357,
    -0.765398,
    -0.2245,
    -0.675627,
    -0.014907,
    -1.288997,
    0.590865,
]
UT_Q_END = [
    2.01297,
    0.089113,
    0.287302,
    -0.398445,
    0.200981,
    0.22914,
    0.865068,
    0.405998,
    1.027198,
    0.121484,
    0.312096,
    -0.89449,
    -0.110486,
    -0.911002,
    -0.981109,
    -1.25569,
    1.154956,
    0.062161,
    -0.128542,
    -1.13151,
    -0.372068,
    -0.058891,
    -0.577996,
    -0.232193,
    0.099315,
    -0.503599,
    0.590865,
    -1.985985,
    2.591758,
    -0.792359,
    0.317047,
    0.503599,
    -0.590864,
    -0.305813,
    0.460178,
    -1.288997,
    0.590865,
]


def test_a_landing_sole_whose_pose_path_folds_follows_its_position_path():
    """The under-table plan's segment 14: with the sole's pose (6 rows) on its path the projections
    fold at the start of the landing's straight segment (NO_PROGRESS at u = 0.8, forward and
    backward); `_knots` then holds the position alone, which still descends the last 2 cm along
    the floor's normal, and the held hand and sole stay within 1 mm at every knot."""
    from humanoid_model.scene import load_scene
    from humanoid_planner.contact import scene_planning
    from humanoid_planner.contact.stance import Contact
    from humanoid_planner.motion import contact_drift
    from humanoid_planner.motion.segments import Segment

    feas = scene_planning(load_scene("under_table")).planner.feas
    qs = []
    for q in (UT_Q_START, UT_Q_END):
        q = np.array(q)
        q[3:7] /= np.linalg.norm(q[3:7])
        qs.append(feas.clipped(q))  # the rounding put joints at their limits 1e-7 outside
    fixed = (
        Contact("l_hand", "floor", 0.6115030213703418, 0.2775057630129064, -0.6319818719578483),
        Contact("l_sole", "floor", 0.5731393024899121, 0.12121575224518027, -0.014147010061389409),
    )
    landing = Contact("r_sole", "floor", 0.8085680721542086, -0.40919650986870204, 1.703647566553542)
    seg = Segment(14, qs[0], qs[1], fixed, None, landing)
    assert max(contact_drift(feas, fixed, q) for q in qs) < 1e-5
    knots = _fallback_knots(feas, seg, "r_sole", True, r"segment 14 step \d+/20: projection failed")
    # the sole's point on the landing's straight segment: on the floor's normal, 2 cm -> 0 above E
    n, e = feas.env_frame(landing).n, feas.env_frame(landing).point
    data = feas.model.createData()
    loc = feas.locations["r_sole"]
    for j in range(16, 20):  # u = 0.80 .. 0.95, the landing's 20 % of the segment
        pin.framesForwardKinematics(feas.model, data, knots[j])
        x = data.oMf[feas.model.getFrameId(loc.body)].act(np.asarray(loc.point, float))
        height = (x - e) @ n
        assert abs(height - 0.02 * (1 - (j / 20 - 0.8) / 0.2)) < 1e-4, (j, height)
        assert np.linalg.norm((x - e) - height * n) < 1e-4


def test_lead_in_only_where_the_start_is_not_the_root_witness(walk):
    """`lead_in_segment`: none without a start posture or when it is the root's witness (nothing to
    move; the motion then starts at the witness, as before the lead-in); a start of the wrong size
    or not finite is refused naming the field; otherwise the start stance held, nothing made or broken."""
    from humanoid_planner.exceptions import PlanningError
    from humanoid_planner.motion import lead_in_segment

    r, m, feas = walk
    nodes = r.plan.nodes
    assert lead_in_segment(feas.model, nodes, None) is None
    assert lead_in_segment(feas.model, nodes, nodes[0].q.copy()) is None
    seg = lead_in_segment(feas.model, nodes, r.problem.start_q)
    np.testing.assert_array_equal(seg.q_start, r.problem.start_q)
    np.testing.assert_array_equal(seg.q_end, nodes[0].q)
    assert seg.fixed == nodes[0].stance.contacts and seg.leaving is None and seg.arriving is None
    for bad in (r.problem.start_q[:-1], np.full(feas.model.nq, np.nan)):
        with pytest.raises(PlanningError, match="start_q"):
            lead_in_segment(feas.model, nodes, bad)
    with pytest.raises(PlanningError, match="nodes"):
        lead_in_segment(feas.model, [], r.problem.start_q)


@pytest.mark.parametrize("name", ["table_can", "stairs"])
def test_the_scene_lead_ins_start_at_the_scene_posture_and_stay_clear(name, robot, scene_motion):
    """The lead-in of the can and stairs plans (the root alone, from the scene's start
    posture): it starts there and ends at the root's witness, holds the start stance's contacts
    within 1 mm at every sample, keeps its collision rows (not in ``unclear``) and touches nothing
    (every 10th sample, URDF shapes)."""
    from humanoid_planner.contact import motion_problems
    from humanoid_planner.motion import generate_motion

    sp, plan, _ = scene_motion(name)
    feas = sp.planner.feas
    m = generate_motion(feas, plan.nodes[:1], None, start_q=sp.start_q)
    assert m.lead_in is not None and m.segments == [] and m.unclear == []
    np.testing.assert_allclose(m.q[0], sp.start_q, atol=1e-12)
    np.testing.assert_allclose(m.q[-1], plan.nodes[0].q, atol=1e-12)
    assert m.witness_times == [m.t[-1]]  # the root's witness ends it
    data = robot.model.createData()
    worst = max(
        float(np.linalg.norm(_point(robot, data, q, c.location)[0] - feas.env_frame(c).point))
        for q in m.q
        for c in m.lead_in.fixed
    )
    assert worst < 1e-3
    assert motion_problems(sp.planner, m, stride=10) == []
