"""Collision stage (`humanoid_sim.collision`, `humanoid_sim.collision.geometry`; Chardonnet
2009, §3.1.5) against analytic contact geometry: box on a plane
(its 4 corners, exact gap and normal), sphere–sphere and sphere–plane gaps and normals, patches of
an overhanging box and an offset box stack (the analytic overlap polygons), a box on a tilted
plane equal to coal's, the
candidate pair rules (no parent/child or adjacent links, no pair overlapping at q0), the HRP-2
self-pair set of docs/simulator.md (223 pairs per category) with a self contact detected, and the
joint placements the stage reads."""

from collections import Counter

import coal
import numpy as np
import pinocchio as pin
import pytest

from humanoid_sim.collision.detector import CollisionDetector
from humanoid_sim.collision.geometry import MobileGeom, StaticGeom, bounding_radius, halfspace
from humanoid_sim.collision.narrow_phase import NarrowPhase, with_perimeters
from humanoid_sim.collision.pairs import MIN_SELF_JOINTS, candidate_pairs
from humanoid_sim.world import World

TOL = 1e-9  # [m] analytic geometry, coal's GJK/EPA on boxes, spheres and half-spaces (chosen)


def _world(tmp_path, text):
    p = tmp_path / "scene.yaml"
    p.write_text(text)
    return World.from_scene(p)


def _detect(w):
    """The contact batch of the world's current configuration."""
    pin.forwardKinematics(w.model, w.data, w.q)
    return w.detector.detect(*w.detector.joint_placements(w.data))


def _box_corners(centre, size, yaw_deg):
    """World xy of the 4 bottom corners of a box yawed about z [m]."""
    c, s = np.cos(np.radians(yaw_deg)), np.sin(np.radians(yaw_deg))
    R = np.array([[c, -s], [s, c]])
    h = 0.5 * np.asarray(size[:2])
    return np.array([np.asarray(centre[:2]) + R @ (h * [sx, sy]) for sx in (-1, 1) for sy in (-1, 1)])


def _same_set(P, Q, tol=TOL):
    assert len(P) == len(Q)
    for p in P:
        assert np.min(np.linalg.norm(Q - p, axis=1)) < tol


@pytest.mark.parametrize("bottom", [0.002, 0.0, -0.001])
def test_box_on_plane_gives_its_four_bottom_corners_with_the_exact_gap(tmp_path, bottom):
    """0.2 × 0.1 × 0.1 m box yawed 30° with its bottom face at z = bottom (a 2 mm gap, touching, a
    1 mm penetration; chosen within the 5 mm margin): 4 contacts at the corners, normal +z, every
    gap = bottom, each point midway between the box face and the plane."""
    size, centre = (0.2, 0.1, 0.1), (1.0, 0.5, 0.05 + bottom)
    w = _world(
        tmp_path,
        f"""
gravity: [0, 0, -9.81]
ground: {{height: 0.0}}
free_bodies:
  - {{name: box, shape: box, size: [0.2, 0.1, 0.1], mass: 1.0, pose: {{xyz: {list(centre)}, rpy_deg: [0, 0, 30]}}}}
""",
    )
    b = _detect(w)
    assert b.m == 4 and np.all(b.b_static) and np.all(b.geom_a == 0)
    assert w.static[b.geom_b[0]].name == "ground"
    np.testing.assert_allclose(b.normals, np.tile([0.0, 0.0, 1.0], (4, 1)), atol=TOL)
    np.testing.assert_allclose(b.gaps, bottom, atol=TOL)
    np.testing.assert_allclose(b.points[:, 2], 0.5 * bottom, atol=TOL)
    _same_set(b.points[:, :2], _box_corners(centre, size, 30.0))


def test_box_beyond_the_margin_has_no_contact(tmp_path):
    w = _world(
        tmp_path,
        """
gravity: [0, 0, -9.81]
ground: {height: 0.0}
free_bodies:
  - {name: box, shape: box, size: [0.1, 0.1, 0.1], mass: 1.0, pose: {xyz: [0, 0, 0.06]}}
""",
    )
    assert w.detector.margin == pytest.approx(0.005)
    assert _detect(w).m == 0  # 10 mm above the plane, margin 5 mm


def test_sphere_sphere_gap_normal_and_point(tmp_path):
    """Spheres r_A = 0.1 m at the origin and r_B = 0.05 m at c_B (chosen 3.6 mm apart): one
    contact, gap |c_B| − r_A − r_B, normal from B into A, point midway between the surfaces."""
    cB = np.array([0.1, 0.1, 0.06])
    w = _world(
        tmp_path,
        f"""
gravity: [0, 0, 0]
ground: null
free_bodies:
  - {{name: big, shape: sphere, radius: 0.1, mass: 1.0}}
  - {{name: small, shape: sphere, radius: 0.05, mass: 1.0, pose: {{xyz: {cB.tolist()}}}}}
""",
    )
    b = _detect(w)
    assert b.m == 1 and not b.b_static[0]
    assert (w.mobile[b.geom_a[0]].body, w.mobile[b.geom_b[0]].body) == ("big", "small")
    d = np.linalg.norm(cB)
    gap = d - 0.15
    n = -cB / d  # from B (small) into A (big)
    assert b.gaps[0] == pytest.approx(gap, abs=TOL)
    np.testing.assert_allclose(b.normals[0], n, atol=TOL)
    np.testing.assert_allclose(b.points[0], cB + n * (0.05 + 0.5 * gap), atol=TOL)


@pytest.mark.parametrize("tilt_deg", [0.0, 20.0])
def test_sphere_on_plane_gap_and_normal(tmp_path, tilt_deg):
    """Sphere r = 0.1 m whose centre is 0.103 m from a plane through the origin tilted about y
    (chosen): gap 3 mm, normal = the plane's, point 1.5 mm off the plane below the centre."""
    a = np.radians(tilt_deg)
    n = np.array([np.sin(a), 0.0, np.cos(a)])  # R_y(a) e_z
    c = np.array([0.2, -0.1, 0.0]) + 0.103 * n - np.array([0.2, -0.1, 0.0]) @ n * n
    w = _world(
        tmp_path,
        f"""
gravity: [0, 0, -9.81]
ground: null
bodies:
  - {{name: slope, shape: plane, pose: {{rpy_deg: [0, {tilt_deg}, 0]}}}}
free_bodies:
  - {{name: ball, shape: sphere, radius: 0.1, mass: 1.0, pose: {{xyz: {c.tolist()}}}}}
""",
    )
    b = _detect(w)
    assert b.m == 1 and b.b_static[0]
    assert b.gaps[0] == pytest.approx(0.003, abs=TOL)
    np.testing.assert_allclose(b.normals[0], n, atol=TOL)
    np.testing.assert_allclose(b.points[0], c - n * (0.1 + 0.0015), atol=TOL)


def test_stack_mobile_and_static_pairs_in_one_batch(tmp_path):
    """A cube resting on a cube on the ground: the one narrow-phase loop reports the cube–ground
    corners (B static) and the cube–cube corners (B mobile, normal from the lower cube into the
    upper one) in one batch, 4 each, gaps 0."""
    w = _world(
        tmp_path,
        """
gravity: [0, 0, -9.81]
ground: {height: 0.0}
free_bodies:
  - {name: lower, shape: box, size: [0.1, 0.1, 0.1], mass: 1.0, pose: {xyz: [0, 0, 0.05]}}
  - {name: upper, shape: box, size: [0.1, 0.1, 0.1], mass: 1.0, pose: {xyz: [0, 0, 0.15]}}
""",
    )
    b = _detect(w)
    body = lambda i: w.mobile[i].body  # noqa: E731
    static = [k for k in range(b.m) if b.b_static[k]]
    mobile = [k for k in range(b.m) if not b.b_static[k]]
    assert len(static) == 4 and {body(b.geom_a[k]) for k in static} == {"lower"}
    assert len(mobile) == 4
    for k in mobile:
        a, g = body(b.geom_a[k]), body(b.geom_b[k])
        sign = 1.0 if (a, g) == ("upper", "lower") else -1.0
        assert {a, g} == {"upper", "lower"}
        np.testing.assert_allclose(b.normals[k], [0.0, 0.0, sign], atol=TOL)
    np.testing.assert_allclose(b.gaps, 0.0, atol=TOL)
    np.testing.assert_allclose(b.points[mobile, 2], 0.1, atol=TOL)


def test_joint_placements_are_the_joints_world_placements():
    """The stage's input: rotations and positions of every joint carrying geometry equal data.oMi."""
    w = World.from_scene("flat")
    pin.forwardKinematics(w.model, w.data, pin.randomConfiguration(w.model, -np.ones(w.model.nq), np.ones(w.model.nq)))
    R, p = w.detector.joint_placements(w.data)
    joints = sorted({g.joint for g in w.mobile})
    for j in joints:
        np.testing.assert_array_equal(R[j], w.data.oMi[j].rotation)
        np.testing.assert_array_equal(p[j], w.data.oMi[j].translation)


# ----------------------------------------------------------------------------- patches equal coal's
def _patch_reference(world, ia, static=None, ib=None):
    """coal's own contact patch of mobile geometry ia against static geometry `static` or mobile
    geometry ib at the world's configuration (collide with the activation margin, then
    computeContactPatch)."""
    pin.forwardKinematics(world.model, world.data, world.q)
    R, p = world.detector.placements(*world.detector.joint_placements(world.data))
    A = world.mobile[ia]
    TA = coal.Transform3s(R[ia], p[ia])
    if static is not None:
        s = world.static[static]
        B, TB = s.shape, coal.Transform3s(s.R, s.p)
    else:
        B, TB = world.mobile[ib].shape, coal.Transform3s(R[ib], p[ib])
    req = coal.CollisionRequest()
    req.security_margin = world.detector.margin
    res = coal.CollisionResult()
    assert coal.collide(A.shape, TA, B, TB, req, res)
    pres = coal.ContactPatchResult()
    coal.computeContactPatch(A.shape, TA, B, TB, res, coal.ContactPatchRequest(), pres)
    patch = pres.getContactPatch(0)
    return np.array([patch.getPoint(i) for i in range(patch.size())])


EDGE = """
gravity: [0, 0, -9.81]
ground: null
bodies:
  - {name: table, shape: box, size: [1.0, 1.0, 0.7], pose: {xyz: [0, 0, 0.35]}}
free_bodies:
  - {name: box, shape: box, size: [0.2, 0.1, 0.1], mass: 1.0, pose: {xyz: [0.45, 0, 0.75]}}
  - {name: top, shape: box, size: [0.1, 0.1, 0.1], mass: 1.0,
     pose: {xyz: [-0.2, 0.2, 0.75]}}
  - {name: upper, shape: box, size: [0.1, 0.1, 0.1], mass: 1.0,
     pose: {xyz: [-0.17, 0.22, 0.85], rpy_deg: [0, 0, 30]}}
"""


def _square_overlap(c1, yaw1, c2, yaw2, side):
    """Corners (k, 2) of the overlap of two squares of one side length [m] (centres, yaws [deg]):
    the first square clipped by the second's four edge half-planes (written here, independently
    of `humanoid_sim.collision`)."""

    def cross(u, v):
        return u[0] * v[1] - u[1] * v[0]

    P = [tuple(p) for p in _box_corners(c1, (side, side), yaw1)[[0, 1, 3, 2]]]
    Q = _box_corners(c2, (side, side), yaw2)[[0, 1, 3, 2]]
    if cross(Q[1] - Q[0], Q[2] - Q[1]) < 0:
        Q = Q[::-1]
    for i in range(4):
        a, b = Q[i], Q[(i + 1) % 4]
        inside = [cross(b - a, np.asarray(p) - a) >= 0 for p in P]
        out = []
        for j in range(len(P)):
            p, q = np.asarray(P[j]), np.asarray(P[(j + 1) % len(P)])
            if inside[j]:
                out.append(p)
            if inside[j] != inside[(j + 1) % len(P)]:
                sp, sq = cross(b - a, p - a), cross(b - a, q - a)
                out.append(p + (q - p) * sp / (sp - sq))
        P = out
    return np.array(P)


def test_overhang_and_offset_stack_patches_are_the_overlap_polygons(tmp_path):
    """A box overhanging a table edge and an offset, rotated box on a box: the contact
    points are the vertices of the analytic overlap polygon, on the touching faces, gap 0.

    Not compared with coal's own patch: the boxes touch at a distance of 0, where coal's normal
    is skewed (here by 2e-5 rad for the overhang, its patch points 2.7 µm off the table top;
    `CollisionDetector._patch` uses the boxes' face normal)."""
    w = _world(tmp_path, EDGE)
    b = _detect(w)
    # box overhanging the table edge (x = 0.5): patch = the part over the table, x in [0.35, 0.5]
    sel = (b.geom_a == 0) & b.b_static
    P = b.points[sel]
    assert len(P) == 4
    _same_set(P[:, :2], np.array([[x, y] for x in (0.35, 0.5) for y in (-0.05, 0.05)]))
    np.testing.assert_allclose(P[:, 2], 0.7, atol=TOL)
    np.testing.assert_allclose(b.normals[sel], np.tile([0.0, 0.0, 1.0], (4, 1)), atol=TOL)
    np.testing.assert_allclose(b.gaps[sel], 0.0, atol=TOL)
    # offset, rotated box on box: the overlap of the two 0.1 m squares at z = 0.8
    pairs = [(a, g) for a, g, s in zip(b.geom_a, b.geom_b, b.b_static) if not s]
    assert pairs
    a, g = pairs[0]
    sel = (b.geom_a == a) & (b.geom_b == g) & ~b.b_static
    P = b.points[sel]
    ref = _square_overlap((-0.2, 0.2), 0.0, (-0.17, 0.22), 30.0, 0.1)
    assert len(P) == len(ref) == 5
    _same_set(P[:, :2], ref)
    np.testing.assert_allclose(P[:, 2], 0.8, atol=TOL)
    np.testing.assert_allclose(np.abs(b.normals[sel][:, 2]), 1.0, atol=TOL)
    np.testing.assert_allclose(b.gaps[sel], 0.0, atol=TOL)


def test_box_on_tilted_plane_gives_four_corners():
    """The 'incline' scene at 35°: the box's 4 corners on the slope, normal = the slope's, equal to
    coal's patch."""
    w = World.from_scene("incline", overrides={"incline.angle_deg": 35})
    b = _detect(w)
    slope = [i for i, s in enumerate(w.static) if s.name == "slope"][0]
    sel = b.b_static & (b.geom_b == slope)
    P = b.points[sel]
    assert len(P) == 4
    a = np.radians(35)
    n = np.array([-np.sin(a), 0, np.cos(a)])
    assert np.allclose(b.normals[sel], n, atol=1e-9)
    assert np.allclose(P @ n, 0.0, atol=1e-9)
    _same_set(P, _patch_reference(w, 0, static=slope))


# ----------------------------------------------------------------------------- candidate pairs
def _chain(parents, j):
    """The joints from j up to the root (excluded)."""
    out = set()
    while j > 0:
        out.add(j)
        j = parents[j]
    return out


def test_hrp2_self_pairs_are_robot_links_at_least_three_joints_apart():
    """Every HRP-2 pair on 'flat' (no free body: all are robot self pairs, tree 0) is at least
    MIN_SELF_JOINTS joints apart (the chains' symmetric difference): never one joint, a joint and
    its parent (robot links are never checked against their parent, and adjacent-link pairs are
    excluded), two siblings on one joint or two joints two apart. Without
    self-collision a single tree has no pair."""
    w = World.from_scene("flat")
    parents = w.model.parents
    pairs = w.detector.mobile_pairs
    assert pairs.shape[1] == 2 and len(pairs) > 0
    for a, b in pairs.tolist():
        A, B = w.mobile[a], w.mobile[b]
        assert A.tree == B.tree == 0  # flat has no free body
        ja, jb = A.joint, B.joint
        assert ja != jb and parents[ja] != jb and parents[jb] != ja  # not itself, not its parent
        assert parents[ja] != parents[jb] or parents[ja] == 0  # nor siblings on one joint
        assert len(_chain(parents, ja) ^ _chain(parents, jb)) >= MIN_SELF_JOINTS
    no_self = candidate_pairs(w.mobile, parents, self_collision=False)
    assert no_self.shape == (0, 2)  # one tree only: nothing without self-collision


def _limb(body):
    """Limb of an HRP-2 link name (RARM, LARM, RLEG, LLEG, CHEST, HEAD or BODY)."""
    for k in ("RARM", "LARM", "RLEG", "LLEG", "CHEST", "HEAD", "BODY"):
        if body.startswith(k):
            return k
    return body


def _category(model, j):
    """(category, side) of an HRP-2 joint: arm, leg, head, torso (chest) or waist."""
    n = model.names[j].upper()
    if n.startswith(("RARM", "LARM")):
        return "arm", n[:4]
    if n.startswith(("RLEG", "LLEG")):
        return "leg", n[:4]
    if n.startswith("HEAD"):
        return "head", "head"
    if n.startswith("CHEST"):
        return "torso", "torso"
    return "waist", "waist"


def test_hrp2_self_pair_set_matches_the_documented_categories():
    """docs/simulator.md lists the HRP-2 self pairs per category (223 in all): same numbers here;
    the documented categories (leg–leg, arms–torso, arms–legs) are all present."""
    w = World.from_scene("flat")
    mob = w.detector.mobile
    c = Counter()
    kinds = set()
    for a, b in w.detector.mobile_pairs.tolist():
        (ca, sa), (cb, sb) = _category(w.model, mob[a].joint), _category(w.model, mob[b].joint)
        key = "-".join(sorted((ca, cb)))
        if ca == cb:
            key += " same" if sa == sb else " lr"
        c[key] += 1
        kinds.add(tuple(sorted((_limb(mob[a].body), _limb(mob[b].body)))))
    assert ("LLEG", "RLEG") in kinds  # leg–leg
    assert {("CHEST", "RARM"), ("CHEST", "LARM")} <= kinds  # arms–torso
    assert {("RARM", "RLEG"), ("LARM", "LLEG"), ("LARM", "RLEG"), ("LLEG", "RARM")} <= kinds  # arms–legs
    assert dict(c) == {
        "arm-leg": 80,
        "leg-leg lr": 25,
        "leg-leg same": 4,
        "arm-arm lr": 16,
        "arm-arm same": 6,
        "leg-torso": 20,
        "arm-torso": 16,
        "head-leg": 10,
        "leg-waist": 20,
        "arm-head": 8,
        "arm-waist": 16,
        "head-waist": 2,
    }
    assert sum(c.values()) == 223


def test_hrp2_standing_touches_only_the_ground_and_an_arm_on_the_chest_is_a_self_contact():
    """Standing on 'flat', only the 8 sole corners touch (the environment), no self contact. The
    right shoulder pitched 59° and rolled 9.9° inward (both within the joint limits; configuration
    found by a scan, chosen) puts the upper arm on the chest: a self contact is detected."""
    w = World.from_scene("flat")
    w.step()
    b = w.last.batch
    assert b.m == 8 and np.all(b.b_static)
    q = w.q.copy()
    for name, deg in (("RARM_JOINT0", 59.0), ("RARM_JOINT1", 9.9)):
        j = w.robot.joint_names.index(name)
        assert w.q_lower[j] <= np.radians(deg) <= w.q_upper[j]
        q[w.robot.joint_index_q(name)] = np.radians(deg)
    pin.forwardKinematics(w.model, w.data, q)
    b = w.detector.detect(*w.detector.joint_placements(w.data))
    self_pairs = {
        tuple(sorted((w.mobile[a].body, w.mobile[g].body)))
        for a, g, st in zip(b.geom_a, b.geom_b, b.b_static)
        if not st
    }
    assert ("CHEST_LINK1", "RARM_LINK2") in self_pairs


def _chain_model():
    """Four revolute-z joints along x, 0.1 m apart (our test numbers)."""
    model = pin.Model()
    parent = 0
    for k in range(4):
        parent = model.addJoint(parent, pin.JointModelRZ(), pin.SE3(np.eye(3), np.array([0.1, 0, 0])), f"j{k + 1}")
        model.appendBodyToJoint(parent, pin.Inertia.FromBox(1.0, 0.05, 0.05, 0.05), pin.SE3.Identity())
    return model


def _geom(name, joint, tree, p):
    shape = coal.Box(0.05, 0.05, 0.05)
    return MobileGeom(name, name, joint, tree, shape, np.eye(3), np.asarray(p, float), bounding_radius(shape))


def test_candidate_pairs_drop_same_tree_pairs_overlapping_at_q0():
    """Chain j1..j4 with a box on j1, j3 and j4, and a free box (another tree). j1–j3 are two
    joints apart (never a pair); j1–j4 are three apart but their boxes overlap at q0 (j4's box is
    placed back onto j1's): dropped when the q0 placements are given, kept otherwise. The free
    box overlaps j1's box too, but pairs of different trees always stay."""
    model = _chain_model()
    data = model.createData()
    pin.forwardKinematics(model, data, pin.neutral(model))
    mobile = [_geom("b1", 1, 0, [0, 0, 0]), _geom("b3", 3, 0, [0, 0, 0]), _geom("b4", 4, 0, [-0.3, 0, 0])]
    mobile.append(_geom("free", 1, 1, [0.01, 0, 0]))  # another tree (joint reused: only the tree matters)
    topological = candidate_pairs(mobile, model.parents)
    assert sorted(map(tuple, topological.tolist())) == [(0, 2), (0, 3), (1, 3), (2, 3)]
    clear = candidate_pairs(mobile, model.parents, data)
    assert sorted(map(tuple, clear.tolist())) == [(0, 3), (1, 3), (2, 3)]


def test_detector_against_a_hand_built_halfspace():
    """A detector built by hand (no World): a unit box 2 mm above a half-space z <= 0 placed at
    height 0.1 m gives its 4 corners with gap 0.002."""
    static = [StaticGeom("floor", halfspace(), np.eye(3), np.array([0, 0, 0.1]), np.inf, True, 0.5, 0.0)]
    mobile = [_geom("box", 1, 0, [0, 0, 0])]
    det = CollisionDetector(mobile, static, np.zeros((0, 2), np.int64))
    R = np.tile(np.eye(3), (2, 1, 1))
    p = np.array([[0, 0, 0], [0.3, 0.2, 0.1 + 0.025 + 0.002]])
    b = det.detect(R, p)
    assert b.m == 4
    np.testing.assert_allclose(b.gaps, 0.002, atol=TOL)
    np.testing.assert_allclose(b.mu, 0.5)
    _same_set(b.points[:, :2], _box_corners(p[1], (0.05, 0.05), 0.0))


def test_a_convex_hull_reaches_the_narrow_phase_against_a_plane_exactly_when_coal_finds_it_within_the_margin():
    """The broad phase tests a convex hull against a half-space by its lowest vertex, coal's own
    convex–half-space distance: over random poses of an elongated hull (a foot's proportions), the
    pairs it keeps are those coal reports within the margin, to 1e-9 m; its bounding sphere alone
    would keep many more."""
    from humanoid_sim.collision.geometry import convex_hull

    rng = np.random.default_rng(3)
    import trimesh

    tm = trimesh.convex.convex_hull(rng.normal(size=(200, 3)) * [0.11, 0.07, 0.04])  # [m]
    mesh = coal.BVHModelOBBRSS()
    mesh.beginModel(len(tm.faces), len(tm.vertices))
    mesh.addVertices(np.asarray(tm.vertices, float))
    mesh.addTriangles(np.asarray(tm.faces, np.int64))
    mesh.endModel()
    hull = convex_hull(mesh)
    radius = bounding_radius(hull)
    plane = StaticGeom("ground", halfspace(), np.eye(3), np.zeros(3), np.inf, True, 0.4, 0.0)
    geom = MobileGeom("hull", "body", 1, 0, hull, np.eye(3), np.zeros(3), radius)
    det = CollisionDetector([geom], [plane], np.zeros((0, 2), np.int64))
    req, res = coal.CollisionRequest(), coal.CollisionResult()
    req.security_margin = det.margin
    kept = sphere = 0
    for _ in range(400):
        R = pin.exp3(rng.normal(size=3))
        p = np.array([0.0, 0.0, rng.uniform(-0.02, radius)])
        mobile, _, _ = det.broad_phase(p[None], R[None])
        res.clear()
        found = coal.collide(hull, coal.Transform3s(R, p), plane.shape, coal.Transform3s(), req, res)
        lowest = float((np.asarray(hull.points()) @ R.T + p)[:, 2].min())
        candidate = mobile.size > 0
        if abs(lowest - det.margin) > 1e-9:
            assert candidate == found == (lowest <= det.margin), (lowest, candidate, found)
        kept += candidate
        sphere += p[2] - radius <= det.margin
    assert kept < sphere  # the sphere test alone keeps more


def test_a_box_reaches_the_narrow_phase_against_a_static_box_whenever_coal_finds_it_within_the_margin():
    """A sole-sized box against a stair step (a static box): the broad phase's separating-axis test
    (`broad_phase._box_gap`) is a lower bound of the boxes' distance, so every pose coal finds
    within the margin is kept; it drops most of the poses the bounding spheres alone keep."""
    from humanoid_sim.collision.broad_phase import _box_gap

    rng = np.random.default_rng(5)
    sole = coal.Box(0.24, 0.14, 0.02)  # [m] full sides
    step = coal.Box(1.0, 0.3, 0.15)
    Rs = pin.exp3(np.array([0.0, 0.0, 0.3]))
    ps = np.array([0.1, -0.05, 0.075])
    static = StaticGeom("step", step, Rs, ps, bounding_radius(step), False, 0.4, 0.0)
    geom = MobileGeom("sole", "body", 1, 0, sole, np.eye(3), np.zeros(3), bounding_radius(sole))
    det = CollisionDetector([geom], [static], np.zeros((0, 2), np.int64))
    req, res = coal.CollisionRequest(), coal.CollisionResult()
    req.security_margin = det.margin
    found_n = kept = sphere = 0
    for _ in range(2000):
        R = pin.exp3(rng.normal(size=3) * 0.5)
        p = ps + rng.uniform([-0.7, -0.4, -0.2], [0.7, 0.4, 0.3])
        mobile, _, _ = det.broad_phase(p[None], R[None])
        res.clear()
        found = coal.collide(sole, coal.Transform3s(R, p), step, coal.Transform3s(Rs, ps), req, res)
        assert mobile.size > 0 or not found, p  # no pair within the margin is dropped
        gap = _box_gap(R, p, np.asarray(sole.halfSide), Rs, ps, np.asarray(step.halfSide))
        if not found:
            res.clear()
            distance = coal.distance(sole, coal.Transform3s(R, p), step, coal.Transform3s(Rs, ps),
                                     coal.DistanceRequest(), coal.DistanceResult())  # fmt: skip
            assert gap <= distance + 1e-9  # a lower bound of the distance
        found_n += found
        kept += mobile.size > 0
        sphere += np.linalg.norm(p - ps) - bounding_radius(sole) - bounding_radius(step) <= det.margin
    assert found_n > 100  # the poses cover contact
    assert kept < 0.6 * sphere  # the spheres alone keep many more


def _sole_hull(bottom_xy, height=0.04):
    """A sole-like convex hull: the polygon ``bottom_xy`` (k, 2) [m] at z = 0 and its copy 0.8 times
    as large at z = height (coal's qhull build of the prism's points)."""
    from humanoid_sim.collision.geometry import convex_hull

    bottom = np.column_stack([bottom_xy, np.zeros(len(bottom_xy))])
    top = np.column_stack([0.8 * bottom_xy, np.full(len(bottom_xy), height)])
    V = np.vstack([bottom, top])
    import trimesh

    tm = trimesh.convex.convex_hull(V)
    mesh = coal.BVHModelOBBRSS()
    mesh.beginModel(len(tm.faces), len(tm.vertices))
    mesh.addVertices(np.asarray(tm.vertices, float))
    mesh.addTriangles(np.asarray(tm.faces, np.int64))
    mesh.endModel()
    return convex_hull(mesh)


def _patches_against_coal(hull, floor, poses=300, seed=7, patch_points=0):
    """Detect a hull on the half-space ``floor`` with the compiled patches (`hull_plane`) and
    through coal alone, over ``poses`` poses from exactly flat to 0.3 rad tilts, 3 mm deep to 6 mm apart;
    asserts the same pairs found and the same points in coal's order (a patch of 3 points or
    more; exactly flat, two vertices may tie for the first), each with the same normal and gap; ``patch_points``: the detectors' perimeter points
    (`NarrowPhase.finish`). Returns (poses in contact, largest patch)."""
    geom = MobileGeom("hull", "body", 1, 0, hull, np.eye(3), np.zeros(3), bounding_radius(hull))
    fast = CollisionDetector([geom], [floor], np.zeros((0, 2), np.int64), patch_points=patch_points)
    ref = CollisionDetector([geom], [floor], np.zeros((0, 2), np.int64), patch_points=patch_points)
    ref._polytope[:] = False  # every pair through coal
    rng = np.random.default_rng(seed)
    n, o = floor.R[:, 2], floor.p
    V = fast.hull_v  # the hull's vertices, a box's corners
    found = largest = 0
    for k in range(poses):
        R = floor.R @ pin.exp3(rng.normal(size=3) * [0.0, 1e-4, 3e-3, 1e-2, 0.3][k % 5])  # 0: exactly flat
        p = o + rng.normal(size=3)  # up to a few metres from the floor frame
        p += n * (-((V @ R.T) @ n).min() - (p - o) @ n + rng.uniform(-0.003, 0.006))
        Rs, ps = np.stack([np.eye(3), R]), np.stack([np.zeros(3), p])
        b, c = fast.detect(Rs, ps), ref.detect(Rs, ps)
        assert (b.m > 0) == (c.m > 0)
        if not b.m:
            continue
        found += 1
        largest = max(largest, c.m)
        assert b.m == c.m
        match = np.linalg.norm(b.points[:, None] - c.points[None], axis=2).argmin(axis=1)
        assert sorted(match) == list(range(c.m))
        if c.m >= 3:  # coal's order (a segment's is coal's vertex enumeration), from the same
            # vertex unless two tie for the least y (the exactly flat poses)
            assert list((match - match[0]) % c.m) == list(range(c.m))
            assert match[0] == 0 or k % 5 == 0
        np.testing.assert_allclose(b.points, c.points[match], atol=1e-12)
        np.testing.assert_allclose(b.normals, c.normals[match], atol=1e-12)
        np.testing.assert_allclose(b.gaps, c.gaps[match], atol=1e-12)
    return found, largest


@pytest.mark.parametrize("sole", ["box", "rectangle", "hexagon, edges split", "16-gon"])
def test_hull_on_plane_patches_are_coals_polygons(sole):
    """The compiled hull–half-space patches (`hull_plane`) against coal's (collide, then
    computeContactPatch), over 300 poses per sole (a box, and hulls of sole shapes) from exactly flat to 0.3 rad tilts, 3 mm deep to
    6 mm apart, on a floor tilted 10 deg (`_patches_against_coal`). A polygon of more vertices than a
    patch keeps (the 16-gon) goes to coal unchanged."""
    a = np.linspace(0, 2 * np.pi, 16, endpoint=False)
    bottoms = {
        "rectangle": np.array([[0.11, 0.07], [-0.09, 0.07], [-0.09, -0.07], [0.11, -0.07]]),
        # a hexagon with two edges split at points 1 µm outside them (a mesh's nearly collinear vertices)
        "hexagon, edges split": np.array(
            [
                [0.12, 0.0],
                [0.11, 0.030001],
                [0.1, 0.06],
                [-0.08, 0.06],
                [-0.1, 0.0],
                [-0.08, -0.06],
                [0.01, -0.060001],
                [0.1, -0.06],
            ]
        ),
        "16-gon": 0.08 * np.column_stack([np.cos(a), np.sin(a)]),
    }
    hull = coal.Box(0.2, 0.14, 0.04) if sole == "box" else _sole_hull(bottoms[sole])
    bottoms["box"] = bottoms["rectangle"]
    floor = StaticGeom(
        "floor",
        halfspace(),
        pin.exp3(np.array([np.radians(10.0), 0.0, 0.0])),
        np.array([0, 0, 0.05]),
        np.inf,
        True,
        0.4,
        0,
    )
    found, sizes = _patches_against_coal(hull, floor)
    assert found > 100
    # the flat poses: the sole's vertices (the 16-gon's through coal, kept to PATCH_MAX_POINTS = 8)
    assert sizes == min(len(bottoms[sole]), 8)


def test_talos_soles_on_the_floor_give_coals_patches():
    """The same comparison on Talos's two sole meshes (example-robot-data, 156-vertex hulls) on the
    flat floor, with the patches as they are and with 8 points on each (the benchmark's 16-point
    standing set)."""
    from support.robot_data import TALOS, erd_robot

    if erd_robot(TALOS) is None:
        pytest.skip("example-robot-data (the robots extra) is not installed")
    w = World.from_scene("flat", robot=str(erd_robot(TALOS)))
    det = w.detector
    soles = [g for g in det.mobile if w.model.names[g.joint] in ("leg_left_6_joint", "leg_right_6_joint")]
    assert len(soles) == 2 and all(isinstance(g.shape, coal.ConvexBase) for g in soles)
    floor = next(s for s in det.static if s.halfspace)
    for k, g in enumerate(soles):
        found, largest = _patches_against_coal(g.shape, floor, poses=400, seed=k)
        assert found > 150 and largest >= 6
        found, largest = _patches_against_coal(g.shape, floor, poses=200, seed=k, patch_points=8)
        assert found > 75 and largest == 8


def test_with_perimeters_gives_each_compiled_patch_the_points_of_narrow_phase_finish():
    """`with_perimeters` (the compiled patches' perimeter points, one call) against
    `NarrowPhase.finish` patch by patch, the rule the coal patches keep: a patch of 3 points or
    more and fewer than k gets k, a segment or a point keeps its own, a patch of k keeps its k; the
    counts and mode of the rows follow, the other columns are unchanged."""
    rng = np.random.default_rng(3)
    sizes = [4, 2, 3, 8, 1, 6]
    P = rng.normal(size=(sum(sizes), 3))
    I = np.array([[i, 0, 1, c, 1] for i, c in enumerate(sizes)], np.int64)
    narrow = NarrowPhase(0.01, 8)
    out, J = with_perimeters(P, I, 8)
    want, off = [], 0
    for c in sizes:
        want.append(narrow.finish(P[off : off + c], np.zeros(3), 0.0)[0])
        off += c
    assert J[:, 3].tolist() == [w.shape[0] for w in want] == [8, 2, 8, 8, 1, 8]
    assert (J[:, 4] == 1).all() and (J[:, :3] == I[:, :3]).all()
    np.testing.assert_array_equal(out, np.concatenate(want))


def test_patch_points_are_coals_whether_or_not_a_pair_is_left_to_coal():
    """Perimeter points (8 a patch) of a box's compiled patch on a tilted floor, with a sphere
    beside it either on the floor (its pair goes to coal: the detector's Python assembly) or far
    above it (the patch alone: the compiled assembly), against a detector sending every pair to
    coal: the same points, normals and gaps."""
    floor = StaticGeom("floor", halfspace(), pin.exp3(np.array([0.17, 0.0, 0.0])), np.zeros(3), np.inf, True, 0.4, 0)
    box = coal.Box(0.2, 0.14, 0.04)
    geoms = [
        MobileGeom("box", "box", 1, 0, box, np.eye(3), np.zeros(3), bounding_radius(box)),
        MobileGeom("ball", "ball", 2, 1, coal.Sphere(0.05), np.eye(3), np.zeros(3), 0.05),
    ]
    fast = CollisionDetector(geoms, [floor], np.zeros((0, 2), np.int64), patch_points=8)
    ref = CollisionDetector(geoms, [floor], np.zeros((0, 2), np.int64), patch_points=8)
    ref._polytope[:] = False  # every pair through coal
    n = floor.R[:, 2]
    rng = np.random.default_rng(11)
    perimeters = [0, 0]  # poses with the box's 8 perimeter points: sphere apart, on the floor
    for k in range(40):
        R = floor.R @ pin.exp3(rng.normal(size=3) * [1e-4, 3e-3, 1e-2, 0.1][k % 4])
        p = rng.normal(size=3) * 0.3
        p += n * (-((fast.hull_v @ R.T) @ n).min() - p @ n + rng.uniform(-0.003, 0.004))
        ball = np.array([1.0, 0.0, 0.0]) + n * (0.05 - 0.002 if k % 2 else 2.0)  # on the floor, or far above
        b = fast.detect(np.stack([np.eye(3), R, np.eye(3)]), np.stack([np.zeros(3), p, ball]))
        c = ref.detect(np.stack([np.eye(3), R, np.eye(3)]), np.stack([np.zeros(3), p, ball]))
        assert b.m == c.m and (b.geom_a == 1).sum() == (k % 2)
        perimeters[k % 2] += int(b.m - k % 2 == 8)
        match = np.linalg.norm(b.points[:, None] - c.points[None], axis=2).argmin(axis=1)
        assert sorted(match) == list(range(c.m))
        np.testing.assert_allclose(b.points, c.points[match], atol=1e-12)
        np.testing.assert_allclose(b.normals, c.normals[match], atol=1e-12)
        np.testing.assert_allclose(b.gaps, c.gaps[match], atol=1e-12)
    assert min(perimeters) >= 8
