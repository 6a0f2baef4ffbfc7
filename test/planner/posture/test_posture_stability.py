"""Static stability A (CoM in the support polygon, (3.63), Escande 2008, §3.4.4) and B (existence
of contact forces, (3.68)-(3.70), §3.4.5, `ForceStability`).

For coplanar horizontal contacts (§3.4.4, where (3.63) is derived from the forces), the verdict of
`ComInPolygon` on `support_polygon` equals that of the force-existence problem (3.68)-(3.70) with
unlimited torques. On one horizontal plane zero tangential forces suffice (any mu >= 0), so the
forces exist iff f >= 0 solves sum f_i = m g, sum f_i c_i^xy = m g G^xy over the placed hull points
c_i (not their convex hull): solved here by non-negative least squares (residual 0 <=> feasible),
independently of the polygon code.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import linprog, nnls

from humanoid_planner.posture import (
    ComInPolygon,
    ComPosition,
    EnvironmentFrame,
    ForceStability,
    LightContact,
    PostureProblem,
    ReferencePosture,
    RobotContactFrame,
    StrongContact,
    contacts_at,
    solve,
    stance_constraints,
    support_polygon,
)
from humanoid_planner.posture import kinematics as kin
from humanoid_planner.posture.support_polygon import placed_hull

SAMPLES = 10_000  # chosen: 10^4 random CoMs (acceptance test 001 A10)
BOUNDARY = 1e-3  # [m] (chosen) samples closer than this to an edge line are skipped


def _forces_exist(points, g):
    """Whether f >= 0 with sum f = 1 and sum f c = g exists (mass-normalised)."""
    A = np.vstack([np.ones(len(points)), points[:, 0], points[:, 1]])
    return nnls(A, np.array([1.0, g[0], g[1]]))[1] <= 1e-10


@pytest.mark.spec("001", "A10")
@pytest.mark.parametrize("seed", range(10))
def test_com_polygon_verdict_equals_force_existence(robot, floor, seed):
    rng = np.random.default_rng(seed)
    loc = robot.contact_locations
    names = ["r_sole", "l_sole"] if seed % 3 else ["r_sole", "l_sole", "r_hand"]  # a hand on the floor too
    contacts = []
    for name in names:
        x, y, th = rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4), rng.uniform(-np.pi, np.pi)
        contacts.append((loc[name], EnvironmentFrame.on_surface(floor, x, y, th), floor))
    poly = support_polygon(contacts)
    points = np.concatenate([placed_hull(lc, env) for lc, env, _ in contacts])
    assert np.allclose(points[:, 2], 0.0)
    con = ComInPolygon(robot.model, poly)
    lo, hi = points[:, :2].min(axis=0) - 0.1, points[:, :2].max(axis=0) + 0.1
    data = SimpleNamespace(com=[np.zeros(3)], Jcom=np.zeros((3, robot.model.nv)))
    n_in = n_out = 0
    for g in rng.uniform(lo, hi, size=(SAMPLES // 10, 2)):
        data.com[0][:2] = g
        rows = con.value(None, data)
        if abs(rows.max()) < BOUNDARY:
            continue
        stable = bool(rows.max() <= 0)
        assert stable == _forces_exist(points, g), (g, rows)
        n_in += stable
        n_out += not stable
    assert n_in > 50 and n_out > 50  # both verdicts are exercised


def test_margin_shrinks_the_polygon():
    """``margin`` keeps the CoM at least that far inside every edge: on the unit square with a 2 cm
    margin, a CoM 1 cm inside an edge violates its row by 1 cm, one 3 cm inside satisfies it with
    1 cm to spare (the margin shrinks the polygon, never grows it)."""
    square = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    con = ComInPolygon(None, square, margin=0.02)
    data = SimpleNamespace(com=[np.array([0.5, 0.01, 0.8])], Jcom=np.zeros((3, 6)))
    c, _ = con.evaluate(None, data)
    assert c.max() == pytest.approx(0.01, abs=1e-12)  # the y = 0 edge: 0.02 - 0.01
    data.com[0][1] = 0.03
    c, _ = con.evaluate(None, data)
    assert c.max() == pytest.approx(-0.01, abs=1e-12)


# --- Static stability B: existence of contact forces ((3.68)-(3.70), `ForceStability`)


def _cone_lp_feasible(mass, points, normals, mus, com, inner: bool) -> bool:
    """Independent check of force existence (unlimited torques): forces at ``points`` (world) in
    8-sided pyramids inscribed in (``inner``) or circumscribing the friction cones balance the
    weight at ``com`` (scipy linprog). Inner feasible => forces exist; outer infeasible => none."""
    gens, pts = [], []
    for p, n, mu in zip(points, normals, mus):
        t1 = np.cross(n, [0.0, 0.0, 1.0]) if abs(n[2]) < 0.9 else np.cross(n, [1.0, 0.0, 0.0])
        t1 /= np.linalg.norm(t1)
        t2 = np.cross(n, t1)
        mu_e = mu if inner else mu / np.cos(np.pi / 8)
        for a in np.arange(8) * np.pi / 4:
            gens.append(n + mu_e * (np.cos(a) * t1 + np.sin(a) * t2))
            pts.append(p)
    G, P = np.array(gens), np.array(pts)
    W = np.array([0.0, 0.0, mass * 9.81])
    A = np.vstack([G.T, np.cross(P, G).T])
    return linprog(np.zeros(len(G)), A_eq=A, b_eq=np.concatenate([W, np.cross(com, W)]), bounds=(0, None)).status == 0


@pytest.fixture(scope="module")
def leaning(robot, floor):
    """HRP-2 on both soles with the right hand on a vertical wall 0.6 m ahead (outward normal -x)
    and the CoM 5 cm ahead of the toes (chosen: beyond the feet's polygon, reachable with the feet
    fixed): a geometric witness (hand as a light contact on the wall, then fixed where it is)."""
    m, loc = robot.model, robot.contact_locations
    feet = contacts_at(m, loc, robot.q(), ["r_sole", "l_sole"], floor)
    soles = stance_constraints(m, loc, feet, stability=False)
    toe = max(env.point[0] for _, env, _ in feet) + 0.115  # urdf/hrp2.yaml: the sole hull ends 0.115 m ahead of P
    wall = EnvironmentFrame.make([0.6, -0.2, 1.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0])
    rf = RobotContactFrame.from_location(loc["r_hand"])
    light = LightContact(m, rf, wall, name="hand")
    res = solve(
        PostureProblem(m, soles + [light, ComPosition(m, [toe + 0.05], axes=(0,))], robot.q(), ReferencePosture(m))
    )
    assert res.success, res.message
    d = m.createData()
    kin.update(m, d, res.q, com=True)
    M = d.oMf[m.getFrameId(rf.body)]
    hand_env = EnvironmentFrame.make(M.act(rf.point), wall.n, M.rotation @ rf.d)
    hand = StrongContact(m, rf, hand_env, name="hand")
    return dict(q=res.q, com=d.com[0].copy(), feet=feet, soles=soles, hand=hand, hand_env=hand_env, data=d)


def _force_problem(robot, leaning, mu_feet, mu_hand):
    m, loc = robot.model, robot.contact_locations
    fs = ForceStability(m, [(loc["r_sole"], mu_feet), (loc["l_sole"], mu_feet), (loc["r_hand"], mu_hand)])
    cons = leaning["soles"] + [leaning["hand"], ComPosition(m, leaning["com"][:2]), fs]
    return fs, solve(PostureProblem(m, cons, leaning["q"], ReferencePosture(m)))


def _placed(robot, leaning, mus):
    loc = robot.contact_locations
    frames = [("r_sole", leaning["feet"][0][1]), ("l_sole", leaning["feet"][1][1]), ("r_hand", leaning["hand_env"])]
    pts, nrm, mu = [], [], []
    for (name, env), m_ in zip(frames, mus):
        for p in placed_hull(loc[name], env):
            pts.append(p), nrm.append(env.n), mu.append(m_)
    return pts, nrm, mu


def test_force_stability_holds_a_lean_on_a_wall_that_the_com_polygon_rejects(robot, leaning):
    """CoM 5 cm ahead of the toes, hand on the wall, mu = 0.5: the feet's polygon (3.63) says
    unstable; the force constraint finds forces (SUCCESS with the CoM pinned there), confirmed by
    the independent inscribed-pyramid LP, and its forces balance the weight (Newton's law from
    the returned forces, world frame) inside the cones."""
    m, loc = robot.model, robot.contact_locations
    poly = support_polygon([(loc[n], env, s) for n, env, s in leaning["feet"]])
    assert ComInPolygon(m, poly).evaluate(leaning["q"], leaning["data"])[0].max() > 0.049  # 5 cm out
    fs, res = _force_problem(robot, leaning, 0.5, 0.5)
    assert res.success, (res.outcome, res.message)
    pts, nrm, mus = _placed(robot, leaning, [0.5, 0.5, 0.5])
    assert _cone_lp_feasible(robot.mass, pts, nrm, mus, leaning["com"], inner=True)
    F = fs.forces(res.extra["force_stability"])  # contact frames; here (d_P, b_P, n_P) = (d_E, b_E, n_E)
    envs = [leaning["feet"][0][1]] * 4 + [leaning["feet"][1][1]] * 4 + [leaning["hand_env"]] * 4
    Fw = np.array([env.rotation @ f for env, f in zip(envs, F)])
    assert np.all(F[:, 2] >= -1e-6) and np.all(np.hypot(F[:, 0], F[:, 1]) <= 0.5 * F[:, 2] + 1e-4)
    kin.update(m, leaning["data"], res.q, com=True)
    g = leaning["data"].com[0]
    weight = np.array([0.0, 0.0, -robot.mass * 9.81])
    np.testing.assert_allclose(Fw.sum(axis=0), -weight, atol=1e-3)
    np.testing.assert_allclose(np.cross(np.array(pts), Fw).sum(axis=0), -np.cross(g, weight), atol=1e-3)
    assert Fw[8:, 0].sum() < -10.0  # the wall pushes the robot back [N]


def test_force_stability_rejects_a_lean_on_a_frictionless_floor_that_the_polygon_accepts(robot, leaning):
    """The same lean with frictionless soles (mu 0, the hand's 0.5): the polygon of all contacts
    projected horizontally (3.63, valid only for horizontal contacts) contains the CoM, but the
    wall's push cannot be balanced: the force constraint fails, as the circumscribed-pyramid LP
    says (no forces at all)."""
    m, loc = robot.model, robot.contact_locations
    placed = [(loc[n], env, s) for n, env, s in leaning["feet"]] + [(loc["r_hand"], leaning["hand_env"], None)]
    assert ComInPolygon(m, support_polygon(placed)).evaluate(leaning["q"], leaning["data"])[0].max() < -0.05
    _, res = _force_problem(robot, leaning, 0.0, 0.5)
    assert not res.success and not res.feasible
    pts, nrm, mus = _placed(robot, leaning, [0.0, 0.0, 0.5])
    assert not _cone_lp_feasible(robot.mass, pts, nrm, mus, leaning["com"], inner=False)


@pytest.mark.spec("001", "A10")
@pytest.mark.parametrize("dx, inside", [(0.0, True), (0.1, True), (-0.08, True), (0.16, False), (-0.14, False)])
def test_force_stability_equals_the_polygon_on_flat_ground(robot, floor, dx, inside):
    """The equivalence of §3.4.4 through the force constraint itself: both soles on the floor, mu = 0,
    the CoM pinned at x = sole point + dx (the sole hulls span +-0.115 m about it, urdf/hrp2.yaml):
    SUCCESS exactly when (3.63) says inside (> 1 cm from the edge)."""
    m, loc = robot.model, robot.contact_locations
    feet = contacts_at(m, loc, robot.q(), ["r_sole", "l_sole"], floor)
    x0 = feet[0][1].point[0]
    fs = ForceStability(m, [(loc["r_sole"], 0.0), (loc["l_sole"], 0.0)])
    com = ComPosition(m, [x0 + dx, 0.0])
    res = solve(PostureProblem(m, stance_constraints(m, loc, feet, stability=False) + [com, fs], robot.q()))
    poly = support_polygon([(loc[n], env, s) for n, env, s in feet])
    data = SimpleNamespace(com=[np.array([x0 + dx, 0.0, 0.8])], Jcom=np.zeros((3, m.nv)))
    rows = ComInPolygon(m, poly).value(None, data)
    assert (rows.max() < -0.01) == inside and (rows.max() > 0.01) == (not inside)
    assert res.success == inside, (res.outcome, res.message)


def test_force_stability_with_torque_limits(robot, floor):
    """(3.8), (3.11): standing on both soles (mu 0.5) with HRP-2's effort limits, the solve succeeds
    and its torques are the static torques of its forces (Pinocchio's RNEA with those forces,
    independent of the constraint's rows) within the limits; with every limit at 2 N m and the CoM
    held at its half-sitting height (bent knees: straight legs would need almost no torque, and
    the solver finds them) no forces and torques exist: the solve fails."""
    import pinocchio as pin

    m, loc = robot.model, robot.contact_locations
    feet = contacts_at(m, loc, robot.q(), ["r_sole", "l_sole"], floor)
    soles = stance_constraints(m, loc, feet, stability=False)
    limits = (-robot.effort_max, robot.effort_max)
    fs = ForceStability(m, [(loc["r_sole"], 0.5), (loc["l_sole"], 0.5)], limits)
    res = solve(PostureProblem(m, soles + [fs], robot.q(), ReferencePosture(m)))
    assert res.success, res.message
    z = res.extra["force_stability"]
    tau = z[24:] * fs.weight
    F = fs.forces(z)
    fext = [pin.Force.Zero() for _ in range(m.njoints)]
    for (joint, p, R, _), f in zip(fs.points, F):
        fext[joint] += pin.Force(R @ f, np.cross(p, R @ f))
    tau_rnea = pin.rnea(m, m.createData(), res.q, np.zeros(m.nv), np.zeros(m.nv), fext)
    np.testing.assert_allclose(tau_rnea[:6], 0.0, atol=1e-3)
    np.testing.assert_allclose(tau_rnea[6:], tau, atol=1e-3)
    assert np.all(np.abs(tau) <= robot.effort_max + 1e-6)
    weak = ForceStability(
        m, [(loc["r_sole"], 0.5), (loc["l_sole"], 0.5)], (-2.0 * np.ones(m.nv - 6), 2.0 * np.ones(m.nv - 6))
    )
    d = m.createData()
    kin.update(m, d, robot.q(), com=True)
    crouch = ComPosition(m, d.com[0].copy(), axes=(0, 1, 2))
    assert solve(PostureProblem(m, soles + [crouch, fs], robot.q(), ReferencePosture(m))).success
    assert not solve(PostureProblem(m, soles + [crouch, weak], robot.q(), ReferencePosture(m))).success
