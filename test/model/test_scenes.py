"""Scenes (docs/scenes.md): every shipped scene loads, overrides change the real geometry, gravel
is reproducible, stairs/table/chair dimensions match Escande 2008 (§5.4.1, §5.4.2, §7.3.1, §7.4.1),
compound inertia matches
a hand calculation, the robot's start posture does not penetrate the environment, and the loading
details (the docs example, a robot given by URDF path with a placement, mesh paths relative to
the scene file). Bad input and its messages: test_scene_errors.py."""

from __future__ import annotations

import math

import numpy as np
import pytest

from humanoid_model.scene import available_scenes, load_scene, parse_set_args
from humanoid_model.scene_geometry import box_inertia, convex_polygon

SHIPPED = [
    "flat",
    "incline",
    "stairs",
    "table_can",
    "chair_table",
    "glass",
    "under_table",
    "gravel",
    "sphere_drop",
    "box_push",
    "table_static",
    "cube_stack",
]
ROBOT_SCENES = ["flat", "stairs", "table_can", "chair_table", "glass", "under_table", "gravel"]


@pytest.fixture(scope="session")
def scenes():
    return {name: load_scene(name) for name in available_scenes()}


# ============================================================================ shipped scenes
def test_every_required_scene_is_shipped():
    assert set(SHIPPED) <= set(available_scenes())


@pytest.mark.parametrize("name", SHIPPED)
def test_shipped_scene_loads_and_is_consistent(scenes, name):
    s = scenes[name]
    assert s.name == name and s.source.name == f"{name}.yaml"
    np.testing.assert_allclose(s.gravity, [0, 0, -9.81])
    for surf in s.surfaces:
        # counter-clockwise about the unit outward normal, d0 not collinear with it
        assert np.isclose(np.linalg.norm(surf.normal), 1.0)
        V, n, area = convex_polygon(surf.vertices, surf.normal)
        np.testing.assert_array_equal(V, surf.vertices)
        assert area == pytest.approx(surf.area) and area > 0
        assert abs(surf.d0 @ surf.normal) < 0.999
        assert surf.contains(surf.centroid)
        np.testing.assert_allclose(surf.rotation.T @ surf.rotation, np.eye(3), atol=1e-12)
    for fb in s.free_bodies:
        assert fb.mass > 0 and np.all(np.linalg.eigvalsh(fb.inertia) > 0)
    robot_scene = name in ROBOT_SCENES
    assert (s.robot is not None) == robot_scene
    if robot_scene:
        assert s.robot.name == "hrp2" and s.robot.posture == "half-sitting"
        assert s.surfaces, "scenes with a robot have planner surfaces"


def test_flat_is_hrp2_half_sitting_with_a_floor(scenes):
    s = scenes["flat"]
    assert s.ground.height == 0.0 and s.ground.friction == pytest.approx(0.4)
    assert [x.name for x in s.surfaces] == ["floor"]
    np.testing.assert_allclose(s.surface("floor").normal, [0, 0, 1])


@pytest.mark.parametrize("angle", [20.0, 25.0, 35.0])
def test_incline_override_tilts_the_real_geometry(angle):
    s = load_scene("incline", None if angle == 20.0 else {"incline.angle_deg": angle})
    a = math.radians(angle)
    n = np.array([-math.sin(a), 0.0, math.cos(a)])
    assert s.params["incline.angle_deg"] == angle
    np.testing.assert_allclose(s.gravity, [0, 0, -9.81])  # not rotated gravity
    np.testing.assert_allclose(s.body("slope").normal, n, atol=1e-12)
    np.testing.assert_allclose(s.surface("slope").normal, n, atol=1e-12)
    # the slope surface rises along +x at the angle: its far edge is 3 m up the slope
    assert s.surface("slope").vertices[:, 2].max() == pytest.approx(3 * math.sin(a))
    box = s.free_body("box")
    assert box.mass == 1.0 and box.friction == pytest.approx(0.4) and s.body("slope").friction == pytest.approx(0.4)
    # the box's bottom face lies on the plane: centre at size/2 along n, box axes tilted like it
    assert box.pose.xyz @ n == pytest.approx(0.05, abs=1e-12)
    np.testing.assert_allclose(box.pose.rotation[:, 2], n, atol=1e-12)
    assert s.surface("slope").contains(box.pose.xyz)
    assert s.robot is None


def test_set_on_document_paths_by_index_and_by_name():
    base = load_scene("incline").free_body("box")
    for key in ("free_bodies.0.mass", "free_bodies.box.mass"):
        fb = load_scene("incline", {key: 2.0}).free_body("box")
        assert fb.mass == 2.0
        np.testing.assert_allclose(fb.inertia, 2.0 * base.inertia)
    s = load_scene("flat", parse_set_args(["gravity=[0, 0, -1.62]", "ground.friction=0.9"]))
    np.testing.assert_allclose(s.gravity, [0, 0, -1.62])
    assert s.ground.friction == 0.9 and s.surface("floor").friction == 0.9


def test_parse_set_args_reads_yaml_values():
    assert parse_set_args(["incline.angle_deg=25", "a.b = 1e-3", "g=[1, 2, 3]", "n=-4"]) == {
        "incline.angle_deg": 25,
        "a.b": 1e-3,
        "g": [1, 2, 3],
        "n": -4,
    }
    assert parse_set_args([]) == {}


def test_derived_parameters_follow_overrides():
    s = load_scene("incline", {"incline.angle_deg": 30})
    assert s.params["incline.angle"] == pytest.approx(math.radians(30))


def test_gravel_is_reproducible_from_its_seed():
    a, b = load_scene("gravel"), load_scene("gravel")
    c = load_scene("gravel", {"gravel.seed": 2})

    def stones(s):
        return [x for x in s.bodies if x.name.startswith("stone_")]

    assert len(stones(a)) == 60
    for x, y in zip(stones(a), stones(b)):
        np.testing.assert_array_equal(x.pose.xyz, y.pose.xyz)
        np.testing.assert_array_equal(x.pose.quat, y.pose.quat)
        np.testing.assert_array_equal(x.shape.size, y.shape.size)
    assert not np.allclose([x.pose.xyz for x in stones(a)], [x.pose.xyz for x in stones(c)])
    assert len(stones(load_scene("gravel", {"gravel.count": 7}))) == 7
    for st in stones(a):
        assert np.all((st.shape.size >= 0.01) & (st.shape.size <= 0.03))
        corners = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)]) * st.shape.size / 2
        z = st.pose.apply(corners)[:, 2]
        assert z.min() == pytest.approx(0.0, abs=1e-12)  # resting on the ground
        assert 0.5 <= st.pose.xyz[0] <= 2.0 and abs(st.pose.xyz[1]) <= 0.4


def test_stairs_have_five_15_cm_steps_80_cm_wide_30_cm_deep(scenes):
    # 5 steps 15 cm high, 80 cm wide, 30 cm deep (Escande 2008, §5.4.2)
    s = scenes["stairs"]
    assert [x.name for x in s.surfaces] == ["floor"] + [f"step{i}_top" for i in range(1, 6)]
    prev_front = s.params["stairs.start_x"]
    for i in range(1, 6):
        top = s.surface(f"step{i}_top")
        np.testing.assert_allclose(top.vertices[:, 2], 0.15 * i, atol=1e-12)
        np.testing.assert_allclose(top.normal, [0, 0, 1])
        lo, hi = top.vertices.min(axis=0), top.vertices.max(axis=0)
        assert hi[0] - lo[0] == pytest.approx(0.30) and hi[1] - lo[1] == pytest.approx(0.80)
        assert lo[0] == pytest.approx(prev_front)  # treads follow without gaps
        prev_front = hi[0]
        assert top.area == pytest.approx(0.24)
    s2 = load_scene("stairs", {"stairs.step_height": 0.18})
    assert s2.surface("step5_top").vertices[0, 2] == pytest.approx(0.90)


def test_table_can_table_and_platform_heights_match_the_spec(scenes):
    # table 70 cm, platform 10 cm (Escande 2008, §5.4.1)
    s = scenes["table_can"]
    assert {x.name for x in s.surfaces} == {"table_top", "table_edge", "platform_top", "floor"}
    np.testing.assert_allclose(s.surface("table_top").vertices[:, 2], 0.70, atol=1e-12)
    np.testing.assert_allclose(s.surface("platform_top").vertices[:, 2], 0.10, atol=1e-12)
    edge = s.surface("table_edge")
    np.testing.assert_allclose(edge.normal, [-1, 0, 0], atol=1e-12)  # faces the robot
    can = s.free_body("can")
    assert can.pose.xyz[2] - can.parts[0].shape.length / 2 == pytest.approx(0.70)
    assert s.surface("table_top").contains(can.pose.xyz)
    np.testing.assert_allclose(s.robot.placement.xyz, [0, 0, 0.10])


def test_chair_table_heights_and_start_match_the_spec(scenes, hrp2):
    """Table 63.5 cm (Escande 2008, §7.3.1); the stand-up starts sitting (ibid.): the thighs'
    contact points on the seat (within 1 mm of its plane, inside its outline), the soles on the
    floor; the glass scene starts behind the chair, 40 cm to its side (§7.4.1)."""
    import pinocchio as pin

    for name in ("chair_table", "glass"):
        s = scenes[name]
        assert [x.name for x in s.surfaces] == ["floor", "seat", "table"]
        np.testing.assert_allclose(s.surface("table").vertices[:, 2], 0.635, atol=1e-12)
    s, seat = scenes["chair_table"], scenes["chair_table"].surface("seat")
    q = hrp2.q(s.robot.posture)
    for joint, value in s.robot.joints.items():
        q[hrp2.joint_index_q(joint)] = value
    q[:7] = s.robot.base_pose(q[:7])
    data = hrp2.model.createData()
    pin.framesForwardKinematics(hrp2.model, data, q)
    for name, height in (("l_thigh", seat.vertices[0, 2]), ("r_thigh", seat.vertices[0, 2]), ("l_sole", 0.0)):
        loc = hrp2.contact_locations[name]
        p = data.oMf[hrp2.model.getFrameId(loc.body)].act(loc.point)
        assert p[2] == pytest.approx(height, abs=1e-3), name
    p = data.oMf[hrp2.model.getFrameId(hrp2.contact_locations["l_thigh"].body)].act(
        hrp2.contact_locations["l_thigh"].point
    )
    assert seat.contains(p)
    g = scenes["glass"]
    assert g.robot.placement.xyz[1] - seat.centroid[1] == pytest.approx(0.40)
    assert g.robot.placement.xyz[0] < seat.vertices[:, 0].min()  # behind the chair


def test_under_table_clearance_is_80_cm(scenes):
    s = scenes["under_table"]
    top = s.body("table_top")
    assert top.pose.xyz[2] - top.shape.size[2] / 2 == pytest.approx(0.80)


def test_compound_table_mass_com_inertia_by_hand(scenes):
    t = scenes["table_static"].free_body("table")
    # hand calculation: top 0.6 kg, 0.60 x 0.40 x 0.02 m at z = 0.31; four legs 0.1 kg,
    # 0.02 x 0.02 x 0.30 m at (+-0.29, +-0.19, 0.15)
    zc = (0.6 * 0.31 + 4 * 0.1 * 0.15) / 1.0  # = 0.246 m
    ixx = (
        0.6 / 12 * (0.40**2 + 0.02**2)
        + 0.6 * (0.31 - zc) ** 2
        + 4 * (0.1 / 12 * (0.02**2 + 0.30**2) + 0.1 * (0.19**2 + (0.15 - zc) ** 2))
    )
    iyy = (
        0.6 / 12 * (0.60**2 + 0.02**2)
        + 0.6 * (0.31 - zc) ** 2
        + 4 * (0.1 / 12 * (0.02**2 + 0.30**2) + 0.1 * (0.29**2 + (0.15 - zc) ** 2))
    )
    izz = 0.6 / 12 * (0.60**2 + 0.40**2) + 4 * (0.1 / 12 * (2 * 0.02**2) + 0.1 * (0.29**2 + 0.19**2))
    assert t.mass == pytest.approx(1.0, abs=1e-12)  # 1 kg table (Chardonnet 2009, §2.3.2)
    np.testing.assert_allclose(t.com, [0, 0, 0.246], atol=1e-12)
    np.testing.assert_allclose(t.inertia, np.diag([ixx, iyy, izz]), atol=1e-12)
    assert izz == pytest.approx(0.07410667, abs=1e-8)  # the same sum, done on paper
    assert len(t.parts) == 5 and t.shape == "compound"
    # the legs touch the ground
    assert min(p.pose.xyz[2] - p.shape.size[2] / 2 for p in t.parts) == pytest.approx(0.0, abs=1e-12)


def test_compound_of_two_halves_equals_one_box_and_rotation_is_used(tmp_path, scene_file):
    p = scene_file(
        """
        free_bodies:
          - name: halves
            shape: compound
            parts:
              - {name: a, shape: box, size: [0.2, 0.3, 0.5], mass: 1.5, pose: {xyz: [-0.1, 0, 0]}}
              - {name: b, shape: box, size: [0.3, 0.2, 0.5], mass: 1.5, pose: {xyz: [0.1, 0, 0], rpy_deg: [0, 0, 90]}}
    """,
    )
    b = load_scene(p).free_body("halves")
    assert b.mass == 3.0
    np.testing.assert_allclose(b.com, 0, atol=1e-15)
    np.testing.assert_allclose(b.inertia, box_inertia(3.0, [0.4, 0.3, 0.5]), atol=1e-14)


def test_sphere_and_can_inertias_are_the_closed_forms(scenes):
    sph = scenes["sphere_drop"].free_body("sphere")
    np.testing.assert_allclose(sph.inertia, 0.4 * 1.0 * 0.05**2 * np.eye(3))
    assert sph.pose.xyz[2] - 0.05 == pytest.approx(0.5)  # lowest point 0.5 m up
    assert sph.restitution == 0.5 == scenes["sphere_drop"].ground.restitution
    can = scenes["table_can"].free_body("can")
    m, r, h = 0.35, 0.033, 0.115
    np.testing.assert_allclose(np.diag(can.inertia), [m * (3 * r * r + h * h) / 12] * 2 + [m * r * r / 2])


def test_free_body_initial_velocity_is_read_and_checked(tmp_path, scene_file, scene_error):
    p = scene_file(
        """
        free_bodies:
          - {name: ball, shape: sphere, radius: 0.1, mass: 1, velocity: {linear: [0.5, 0, -1], angular: [0, 2, 0]}}
          - {name: rest, shape: box, size: [0.1, 0.1, 0.1], mass: 1}
    """,
    )
    s = load_scene(p)
    np.testing.assert_array_equal(s.free_body("ball").linear_velocity, [0.5, 0, -1])
    np.testing.assert_array_equal(s.free_body("ball").angular_velocity, [0, 2, 0])
    np.testing.assert_array_equal(s.free_body("rest").linear_velocity, 0)  # default: at rest
    np.testing.assert_array_equal(s.free_body("rest").angular_velocity, 0)
    msg = scene_error(
        scene_file(
            "free_bodies: [{name: b, shape: sphere, radius: 0.1, mass: 1, velocity: {linear: [1, 0]}}]\n",
            "v2.yaml",
        )
    )
    assert "'free_bodies[0].velocity.linear'" in msg and "[1, 0]" in msg
    msg = scene_error(
        scene_file(
            "free_bodies: [{name: b, shape: sphere, radius: 0.1, mass: 1, velocity: {spin: [1, 0, 0]}}]\n",
            "vk.yaml",
        )
    )
    assert "'free_bodies[0].velocity.spin'" in msg


def test_timed_wrench_acts_from_start_to_end_and_follows_overrides(scenes):
    s = scenes["box_push"]
    (w,) = s.wrenches
    assert w.body == "box" and w.active(0.0) and w.active(0.999) and not w.active(1.0)
    np.testing.assert_allclose(w.force, [5, 0, 0], atol=1e-12)
    w45 = load_scene("box_push", {"push.angle_deg": 45}).wrenches[0]
    np.testing.assert_allclose(w45.force, [5 / math.sqrt(2)] * 2 + [0], atol=1e-12)


def test_wrench_on_a_robot_link_is_accepted_and_an_unknown_link_refused(tmp_path, scene_file, scene_error):
    p = scene_file(
        """
        robot: hrp2
        wrenches: [{body: CHEST_LINK1, force: [30, 0, 0], point: [0.1, 0, 0.2], start: 1, end: 1.1}]
    """,
    )
    (w,) = load_scene(p).wrenches
    assert w.body == "CHEST_LINK1" and w.active(1.05) and not w.active(0.5)
    np.testing.assert_allclose(w.point, [0.1, 0, 0.2])
    assert "'wrenches[0].body'" in scene_error(
        scene_file("robot: {name: hrp2}\nwrenches: [{body: CHEST, start: 0, end: 1}]\n", "w.yaml")
    )


def test_cube_stack_faces_touch(scenes):
    cubes = scenes["cube_stack"].free_bodies
    z = [c.pose.xyz[2] for c in cubes]
    np.testing.assert_allclose(np.diff(z), 0.1)
    assert z[0] == pytest.approx(0.05)


# ============================================================================ robot placement
@pytest.fixture(scope="session")
def hrp2():
    from humanoid_model.robot import load_robot

    return load_robot("hrp2")


def _coal_shape(shape):
    import coal

    if shape.kind == "box":
        return coal.Box(*shape.size)
    if shape.kind == "cylinder":
        return coal.Cylinder(shape.radius, shape.length)
    if shape.kind == "sphere":
        return coal.Sphere(shape.radius)
    return coal.Halfspace(np.array([0.0, 0.0, 1.0]), 0.0)


@pytest.mark.parametrize("name", ROBOT_SCENES)
def test_robot_start_posture_clears_the_environment(scenes, hrp2, name):
    """HRP-2 at the scene's start: soles on their support, nothing inside a static body."""
    import coal
    import pinocchio as pin

    s = scenes[name]
    q = hrp2.q(s.robot.posture)
    for joint, value in s.robot.joints.items():  # the scene's joint overrides (chair_table: sitting)
        q[hrp2.joint_index_q(joint)] = value
    q[:7] = s.robot.base_pose(q[:7])
    data, gdata = hrp2.model.createData(), pin.GeometryData(hrp2.collision_model)
    pin.updateGeometryPlacements(hrp2.model, data, hrp2.collision_model, gdata, q)
    support = {"table_can": 0.10}.get(name, 0.0)
    lowest = np.inf
    for geom, placement in zip(hrp2.collision_model.geometryObjects, gdata.oMg):
        for body in s.bodies:
            req, res = coal.DistanceRequest(), coal.DistanceResult()
            T = coal.Transform3s(body.pose.rotation, body.pose.xyz)
            d = coal.distance(
                geom.geometry,
                coal.Transform3s(placement.rotation, placement.translation),
                _coal_shape(body.shape),
                T,
                req,
                res,
            )
            assert d > -1e-4, f"{name}: robot geometry {geom.name} penetrates {body.name} by {-d:.4f} m"
        lowest = min(lowest, d_ground(geom, placement))
    assert lowest == pytest.approx(support, abs=2e-3)


def d_ground(geom, placement):
    """Lowest world z of a collision geometry (distance query against the half-space z <= -10)."""
    import coal

    far = coal.Halfspace(np.array([0.0, 0.0, 1.0]), -10.0)
    res = coal.DistanceResult()
    d = coal.distance(
        geom.geometry,
        coal.Transform3s(placement.rotation, placement.translation),
        far,
        coal.Transform3s(),
        coal.DistanceRequest(),
        res,
    )
    return d - 10.0


# ============================================================================ loading details
def test_docs_example_loads(repo_root):
    text = (repo_root / "docs" / "scenes.md").read_text()
    example = text.split("## Example", 1)[1].split("```yaml", 1)[1].split("```", 1)[0]
    p = repo_root / "docs" / "scenes.md"
    import yaml

    from humanoid_model.scene import scene_from_dict

    s = scene_from_dict(yaml.safe_load(example), p)
    assert s.free_body("table").mass == pytest.approx(1.0) and s.robot.joints == {"HEAD_JOINT1": 0.2}
    assert [x.name for x in s.surfaces] == ["step_top", "slope"] and s.wrenches[0].body == "ball"


def test_robot_by_urdf_path_and_placement(tmp_path, scene_file):
    from humanoid_model.paths import urdf_dir

    p = scene_file(
        f"""
        robot:
          name: {urdf_dir() / "hrp2.urdf"}
          joints: {{RLEG_JOINT3: 0.5}}
          placement: {{xyz: [1, 2, 0.1], rpy_deg: [0, 0, 90]}}
    """,
    )
    r = load_scene(p).robot
    assert r.urdf_path == (urdf_dir() / "hrp2.urdf").resolve() and r.joints == {"RLEG_JOINT3": 0.5}
    # the posture's base pose (x forward 0.2, z 0.6) is carried by the placement (yaw 90 deg)
    b = r.base_pose([0.2, 0.0, 0.6, 0, 0, 0, 1])
    np.testing.assert_allclose(b[:3], [1.0, 2.2, 0.7], atol=1e-12)
    np.testing.assert_allclose(b[3:], [0, 0, math.sqrt(0.5), math.sqrt(0.5)], atol=1e-12)


def test_mesh_path_is_relative_to_the_scene_file(tmp_path, scene_file):
    (tmp_path / "meshes").mkdir()
    (tmp_path / "meshes" / "tri.stl").write_text(
        "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\n"
        "endloop\nendfacet\nendsolid t\n"
    )
    p = scene_file("bodies: [{name: m, shape: mesh, file: meshes/tri.stl, scale: [2, 2, 2]}]\n")
    m = load_scene(p).body("m")
    assert m.shape.file == (tmp_path / "meshes" / "tri.stl").resolve()
    np.testing.assert_allclose(m.shape.scale, 2)
