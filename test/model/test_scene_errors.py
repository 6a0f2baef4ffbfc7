"""Bad scene input (`humanoid_model.scene`; docs/scenes.md "Errors"): every kind
raises a SceneError (a HumanoidStackError) naming the file, the field and the value: free-body
fields, polygons, surfaces, robot name/posture/joints, unknown keys, --set paths and values,
expressions, wrenches, meshes, generators; a non-scene or binary file gives a short message; a
plane whose normal is horizontal or points down (an incline of 90° or more, or a plane against
gravity) is refused while inclines below 90° load."""

from __future__ import annotations

import math

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError, HumanoidStackError, SceneError
from humanoid_model.scene import load_scene, parse_set_args
from humanoid_model.scene_geometry import convex_polygon


@pytest.mark.parametrize(
    "body, field, value, needle",
    [
        ("{name: b, shape: box, size: [0.1, 0.1, 0.1]}", "free_bodies[0].mass", None, "missing"),
        ("{name: b, shape: box, size: [0.1, 0.1, 0.1], mass: -2.5}", "free_bodies[0].mass", "-2.5", "> 0"),
        (
            "{name: b, shape: box, size: [0.1, 0.1, 0.1], mass: 1, friction: -0.3}",
            "free_bodies[0].friction",
            "-0.3",
            ">= 0",
        ),
        ("{name: b, shape: cone, mass: 1}", "free_bodies[0].shape", "'cone'", "unknown shape"),
        (
            "{name: b, shape: sphere, radius: 0.1, mass: 1, masss: 2}",
            "free_bodies[0].masss",
            "2",
            "did you mean 'mass'",
        ),
        (
            "{name: b, shape: sphere, radius: 0.1, mass: 1, restitution: 1.5}",
            "free_bodies[0].restitution",
            "1.5",
            ">= 0 and <= 1",
        ),
        (
            "{name: b, shape: sphere, radius: 0.1, mass: 1, pose: {quat: [0, 0, 0, 2]}}",
            "free_bodies[0].pose.quat",
            "[0, 0, 0, 2]",
            "unit norm",
        ),
        (
            "{name: b, shape: compound, parts: [{name: p, shape: box, size: [1, 1, 1], mass: -1}]}",
            "free_bodies[0].parts[0].mass",
            "-1",
            "> 0",
        ),
    ],
)
def test_free_body_errors_name_file_field_value(tmp_path, body, field, value, needle, scene_file, scene_error):
    p = scene_file(f"free_bodies:\n  - {body}\n")
    msg = scene_error(p)
    assert str(p) in msg and f"'{field}'" in msg and needle in msg
    if value is not None:
        assert value in msg


@pytest.mark.parametrize(
    "vertices, needle",
    [
        ("[[0, 0, 0], [1, 0, 0], [0.2, 0.2, 0], [0, 1, 0]]", "not convex"),  # reflex vertex
        ("[[0, 0, 0], [1, 1, 0], [1, 0, 0], [0, 1, 0]]", "degenerate"),  # symmetric bow tie: zero net area
        ("[[0, 0, 0], [2, 2, 0], [2, 0, 0], [0, 1, 0]]", "not convex"),  # bow tie
        ("[[0, 0, 0], [1, 0, 0], [2, 0, 0]]", "degenerate"),  # collinear: zero area
        ("[[0, 0, 0], [1, 0, 0], [2, 0, 0], [2, 1, 0]]", "degenerate"),  # collinear consecutive vertices
        ("[[0, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0]]", "coincide"),  # repeated vertex
        ("[[0, 0, 0], [1, 0, 0], [1, 1, 0.1], [0, 1, 0]]", "not planar"),
        ("[[0, 0, 0], [1, 0, 0]]", "at least 3"),
    ],
)
def test_bad_polygons_name_the_field_and_the_defect(tmp_path, vertices, needle, scene_file, scene_error):
    p = scene_file(f"surfaces:\n  - {{name: s, vertices: {vertices}}}\n")
    msg = scene_error(p)
    assert str(p) in msg and "'surfaces[0].vertices'" in msg and needle in msg and "[0, 0, 0]" in msg


def test_pentagram_is_not_convex():
    star = [[math.cos(a), math.sin(a), 0.0] for a in np.radians(90 + 144 * np.arange(5))]
    with pytest.raises(ValueError, match="winds 2"):
        convex_polygon(star)


def test_surface_normal_orders_vertices_and_d0_is_checked(tmp_path, scene_file, scene_error):
    p = scene_file(
        """
        surfaces:
          - {name: s, vertices: [[0, 0, 0], [0, 1, 0], [1, 1, 0], [1, 0, 0]], normal: [0, 0, 1]}
          - {name: t, frame: {xyz: [0, 0, 1], rpy_deg: [90, 0, 0]}, vertices: [[0, 0], [1, 0], [1, 1], [0, 1]]}
    """,
    )
    s = load_scene(p)
    np.testing.assert_allclose(
        s.surface("s").vertices, [[1, 0, 0], [1, 1, 0], [0, 1, 0], [0, 0, 0]]
    )  # reversed: counter-clockwise
    np.testing.assert_allclose(s.surface("t").normal, [0, -1, 0], atol=1e-12)
    np.testing.assert_allclose(s.surface("t").vertices[2], [1, 0, 2], atol=1e-12)
    bad = scene_file("surfaces:\n  - {name: s, vertices: [[0,0,0],[1,0,0],[0,1,0]], d0: [0, 0, -2]}\n", "d0.yaml")
    msg = scene_error(bad)
    assert "'surfaces[0].d0'" in msg and "[0, 0, -2]" in msg and "collinear" in msg
    tilted = scene_file("surfaces:\n  - {name: s, vertices: [[0,0,0],[1,0,0],[0,1,0]], normal: [1, 0, 0]}\n", "n.yaml")
    assert "not perpendicular" in scene_error(tilted)


def test_unknown_robot_posture_or_joint_is_refused_naming_it(tmp_path, scene_file, scene_error):
    msg = scene_error(scene_file("robot: {name: hrp3}\n"))
    assert "'robot.name'" in msg and "'hrp3'" in msg and "unknown robot" in msg and "hrp2" in msg
    msg = scene_error(scene_file("robot: {name: hrp2, posture: sitting}\n", "p.yaml"))
    assert "'robot.posture'" in msg and "'sitting'" in msg and "half-sitting" in msg
    msg = scene_error(scene_file("robot: {name: hrp2, joints: {RLEG_JOINT9: 0.1}}\n", "j.yaml"))
    assert "'robot.joints.RLEG_JOINT9'" in msg and "0.1" in msg
    msg = scene_error(scene_file("robot: {name: hrp2, joints: {RLEG_JOINT3: -1.0}}\n", "l.yaml"))
    assert "'robot.joints.RLEG_JOINT3'" in msg and "-1.0" in msg and "limits" in msg  # knee bends one way


def test_unknown_top_level_key_suggests_the_nearest(tmp_path, scene_file, scene_error):
    p = scene_file("gravity: [0, 0, -9.81]\nfree_bodys: []\n")
    msg = scene_error(p)
    assert str(p) in msg and "'free_bodys'" in msg and "did you mean 'free_bodies'" in msg


def test_bad_set_path_or_value_is_refused_naming_it(scene_error):
    msg = scene_error("incline", {"incline.angel_deg": 25})
    assert "incline.yaml" in msg and "incline.angel_deg" in msg and "did you mean 'incline.angle_deg'" in msg
    assert "no such parameter" in scene_error("incline", {"free_bodies.7.mass": 2})
    assert "no such parameter" in scene_error("incline", {"nothing.at.all": 2})
    for args in (
        ["incline.angle_deg=steep"],
        ["incline.angle_deg=nan"],
        ["incline.angle_deg=true"],
        ["incline.angle_deg"],
        ["=3"],
        ["a..b=1"],
    ):
        with pytest.raises(SceneError) as exc:
            parse_set_args(args)
        assert isinstance(exc.value, ConfigError) and args[0] in str(exc.value)
    assert "not numeric" in scene_error("incline", {"incline.angle_deg": "steep"})


def test_bad_expressions_are_refused_with_the_reason(tmp_path, scene_file, scene_error):
    msg = scene_error(scene_file("params: {a: 1}\ngravity: [0, 0, '${-b}']\n"))
    assert "'gravity[2]'" in msg and "unknown parameter 'b'" in msg
    msg = scene_error(scene_file("params: {a: '${b}', b: '${a + 1}'}\n", "c.yaml"))
    assert "cycle" in msg
    msg = scene_error(scene_file("params: {a: 1}\ngravity: [0, 0, '${__import__(\"os\")}']\n", "i.yaml"))
    assert "unsupported" in msg
    msg = scene_error(scene_file("params: {a: 0}\ngravity: [0, 0, '${1 / a}']\n", "z.yaml"))
    assert "cannot evaluate" in msg


def test_other_bad_fields_name_the_file_and_the_field(tmp_path, scene_file, scene_error):
    cases = {
        "wrench_time": (
            "free_bodies: [{name: b, shape: sphere, radius: 0.1, mass: 1}]\n"
            "wrenches: [{body: b, force: [1, 0, 0], start: 2, end: 1}]\n",
            "'wrenches[0].end'",
        ),
        "wrench_body": ("wrenches: [{body: ghost, start: 0, end: 1}]\n", "'wrenches[0].body'"),
        "mesh": ("bodies: [{name: m, shape: mesh, file: meshes/none.stl}]\n", "'bodies[0].file'"),
        "box_size": ("bodies: [{name: m, shape: box, size: [1, 0, 1]}]\n", "'bodies[0].size'"),
        "dup": ("bodies: [{name: m, shape: plane}, {name: m, shape: plane}]\n", "'bodies[1].name'"),
        "face": (
            "bodies: [{name: m, shape: plane}]\nsurfaces: [{name: s, body: m, face: '+z'}]\n",
            "'surfaces[0].body'",
        ),
        "gen": ("generate: [{type: sand, seed: 1}]\n", "'generate[0].type'"),
        "seed": (
            "generate: [{type: gravel, seed: 1.5, count: 3, center: [0, 0], extent: [1, 1], "
            "size_min: 0.01, size_max: 0.02}]\n",
            "'generate[0].seed'",
        ),
    }
    for key, (text, field) in cases.items():
        p = scene_file(text, f"{key}.yaml")
        msg = scene_error(p)
        assert str(p) in msg and field in msg, (key, msg)
    not_a_mapping = scene_file("x" * 5000 + "\n", "text.yaml")  # e.g. a non-YAML file: one long string
    msg = scene_error(not_a_mapping)
    assert str(not_a_mapping) in msg and "not a mapping" in msg and len(msg) < 400
    # a file that is not a scene (../../etc/passwd) is named, its content never shown
    secret = scene_file("root:x:0:0:root:/root:/bin/bash\n", "passwd")
    msg = scene_error(secret)
    assert msg.startswith(f"{secret}: not a scene file: its top level is str") and "root" not in msg.replace(
        str(secret), ""
    )
    # a YAML mapping that is no scene (a config file with a secret) is not echoed either
    for text in ("password: hunter2\n", "db: {password: hunter2}\n"):
        msg = scene_error(scene_file(text, "config.yaml"))
        assert "not a scene file" in msg and "hunter2" not in msg and "password" not in msg, msg
    typo = scene_error(scene_file("gravty: [0, 0, -9.81]\n", "typo.yaml"))  # one key, close to a section
    assert "did you mean 'gravity'" in typo
    near = scene_error(scene_file("gravity: [0, 0, -9.81]\ngrond: null\n", "near.yaml"))
    assert "grond" in near and "ground" in near  # a scene with a typo still gets its hint
    bad_yaml = scene_file("gravity: [0, 0\n", "syntax.yaml")
    assert "not valid YAML" in scene_error(bad_yaml)
    assert "not a shipped scene" in scene_error("no_such_scene")


def test_scene_error_is_a_humanoid_stack_error():
    assert issubclass(SceneError, HumanoidStackError)


# ============================================================================ non-scene files, plane orientation
def test_scene_error_truncates_a_non_scene_file(tmp_path):
    p = tmp_path / "big.txt"
    p.write_text("x" * 5000 + "\n")
    with pytest.raises(SceneError) as e:
        load_scene(p)
    assert len(str(e.value)) < len(str(p)) + 300


def test_scene_error_on_a_binary_file_names_it_briefly(tmp_path):
    p = tmp_path / "bin.yaml"
    p.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(SceneError) as e:
        load_scene(p)
    assert str(p) in str(e.value) and len(str(e.value)) < len(str(p)) + 200


@pytest.mark.parametrize(
    "expression, problem",
    [
        ("10**100000 // 3", "10 ** 100000 exceeds 1e+308"),  # unbounded: an OverflowError traceback
        ("10**10**10", "10 ** 10000000000 exceeds 1e+308"),  # unbounded: hours of bignum
        ("9**9**9**9", "9 ** 387420489 exceeds 1e+308"),  # unbounded: never ends
        ("2**1023 * 4", "an intermediate value exceeds 1e+308"),
        ("1e308 * 10", "an intermediate value exceeds 1e+308"),
        ("(" * 600 + "1" + ")" * 600, "an expression is at most 1000 characters"),
    ],
)
def test_expressions_are_evaluated_with_a_bounded_cost(scene_file, scene_error, expression, problem):
    """Parameters are evaluated with every intermediate within the float range and
    an integer power refused before it is computed; each case answers at once with the field."""
    p = scene_file(f"params: {{g: '${{{expression}}}'}}\ngravity: [0, 0, '${{g}}']\n", "expr.yaml")
    msg = scene_error(p)
    assert "params.g" in msg and problem in msg, msg


def test_an_alias_bomb_is_refused_at_once(scene_file, scene_error):
    """639 bytes of YAML aliases under params would take 92 s and 5 GB before a MemoryError; in
    the document itself they would make the resolver walk 10^8 values."""
    keys = "abcdefgh"
    lines = ["  a: &a {" + ", ".join(f"x{i}: 1" for i in range(10)) + "}"]
    for prev, key in zip(keys, keys[1:]):
        lines.append(f"  {key}: &{key} {{" + ", ".join(f"{key}{i}: *{prev}" for i in range(10)) + "}")
    text = "params:\n" + "\n".join(lines) + "\n"
    assert len(text) < 1000
    assert "more than 10000 parameters (YAML aliases that expand?)" in scene_error(scene_file(text, "bomb.yaml"))
    level = "&L0 [" + ", ".join(["0"] * 10) + "]"  # each level: its first item defines the anchor below
    for k in range(1, 8):
        level = f"&L{k} [{level}, " + ", ".join([f"*L{k - 1}"] * 9) + "]"
    text = f"bodies: [{level}]\n"
    assert len(text) < 1000
    msg = scene_error(scene_file(text, "bomb2.yaml"))
    assert "the document expands to more than 100000 values (YAML aliases?)" in msg, msg


def test_a_deeply_nested_yaml_file_is_refused_in_one_line(tmp_path):
    """5000 nested lists: one line, not a RecursionError traceback."""
    p = tmp_path / "deep.yaml"
    p.write_text("params: " + "[" * 5000 + "]" * 5000 + "\n")
    with pytest.raises(SceneError, match=r"deep\.yaml: nested too deeply to be a scene YAML file"):
        load_scene(p)


@pytest.mark.parametrize("angle", [90, 95, 180, -95, -90])
def test_incline_normal_must_point_up(angle):
    with pytest.raises(SceneError) as e:
        load_scene("incline", {"incline.angle_deg": angle})
    msg = str(e.value)
    assert "bodies[0].pose" in msg and "normal" in msg and f"{abs(angle):g} deg" in msg


@pytest.mark.parametrize("angle", [0, 25, 89.9, -60])
def test_incline_below_90_deg_is_accepted(angle):
    s = load_scene("incline", {"incline.angle_deg": angle})
    n = s.bodies[0].normal
    assert n[2] == pytest.approx(math.cos(math.radians(angle)), abs=1e-12)


def test_plane_up_follows_gravity(tmp_path):
    p = tmp_path / "down.yaml"
    p.write_text("gravity: [0, 0, 9.81]\nbodies:\n  - {name: roof, shape: plane, pose: {rpy_deg: [180, 0, 0]}}\n")
    assert load_scene(p).bodies[0].normal[2] == pytest.approx(-1.0)
    p.write_text("gravity: [0, 0, 9.81]\nbodies:\n  - {name: floor, shape: plane}\n")
    with pytest.raises(HumanoidStackError, match="bodies\\[0\\].pose"):
        load_scene(p)
