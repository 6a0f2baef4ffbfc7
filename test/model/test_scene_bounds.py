"""Physical bounds of scene fields (docs/scenes.md "Bounds"): an out-of-bound size, position, mass,
gravity, velocity or wrench is refused with an error that names the field and the bound. Without
the bounds, `--set free_bodies.0.radius=1e300` escapes as an OverflowError traceback (in
`sphere_inertia`) and `--set gravity=[0,0,-1e300]` fails later with an error about the JSON
output that names no scene field."""

import pytest

from humanoid_model.exceptions import SceneError
from humanoid_model.scene import load_scene
from humanoid_stack.cli import main

SCENE = """\
name: bounds
gravity: [0, 0, -9.81]
ground: {height: 0.0}
bodies:
  - {name: step, shape: box, size: [0.4, 0.4, 0.1], pose: {xyz: [1, 0, 0.05]}}
free_bodies:
  - name: ball
    shape: sphere
    radius: 0.05
    mass: 1.0
    pose: {xyz: [0, 0, 0.5]}
    velocity: {linear: [0, 0, 0], angular: [0, 0, 0]}
  - name: crate
    shape: box
    size: [0.1, 0.2, 0.3]
    mass: 2.0
    pose: {xyz: [0.5, 0, 0.5]}
wrenches:
  - {body: ball, force: [1, 0, 0], torque: [0, 0, 0], point: [0, 0, 0], start: 0.0, end: 0.1}
"""


@pytest.fixture
def scene(tmp_path):
    path = tmp_path / "bounds.yaml"
    path.write_text(SCENE)
    return path


# (override, field named in the error, words of the bound); the values are just beyond the
# documented bounds (docs/scenes.md "Bounds")
BEYOND = [
    ("free_bodies.ball.radius", 1.01e4, "free_bodies[0].radius", "[1e-06, 10000] [m]"),
    ("free_bodies.ball.radius", 0.99e-6, "free_bodies[0].radius", "[1e-06, 10000] [m]"),
    ("free_bodies.crate.size", [0.1, 2e4, 0.3], "free_bodies[1].size", "[1e-06, 10000] [m]"),
    ("bodies.step.size", [0.4, 0.4, 1e-7], "bodies[0].size", "[1e-06, 10000] [m]"),
    ("free_bodies.crate.mass", 1.01e6, "free_bodies[1].mass", "[1e-06, 1e+06] [kg]"),
    ("free_bodies.crate.mass", 0.99e-6, "free_bodies[1].mass", "[1e-06, 1e+06] [kg]"),
    ("free_bodies.ball.pose.xyz", [0, 0, 1.01e4], "free_bodies[0].pose.xyz", "±10000 [m]"),
    ("ground.height", -1.01e4, "ground.height", "±10000 [m]"),
    ("gravity", [0, 600, -900], "gravity", "<= 1000 [m/s^2]"),
    ("free_bodies.ball.velocity.linear", [1.01e4, 0, 0], "free_bodies[0].velocity.linear", "<= 10000 [m/s]"),
    ("free_bodies.ball.velocity.angular", [0, 0, 1.01e4], "free_bodies[0].velocity.angular", "<= 10000 [rad/s]"),
    ("wrenches.0.force", [1.01e6, 0, 0], "wrenches[0].force", "<= 1e+06 [N]"),
    ("wrenches.0.torque", [0, 1.01e6, 0], "wrenches[0].torque", "<= 1e+06 [N m]"),
    ("wrenches.0.point", [0, 0, 1.01e4], "wrenches[0].point", "±10000 [m]"),
]


@pytest.mark.parametrize("path, value, field, bound", BEYOND, ids=[f"{b[0]}={b[1]}" for b in BEYOND])
def test_out_of_bound_fields_are_refused_naming_field_and_bound(scene, path, value, field, bound):
    with pytest.raises(SceneError) as e:
        load_scene(scene, {path: value})
    assert f"field '{field}'" in str(e.value) and bound in str(e.value)


def test_values_at_the_bounds_load(scene):
    """The bounds are inclusive: the largest documented values load."""
    s = load_scene(
        scene,
        {
            "free_bodies.ball.radius": 1e4,
            "free_bodies.crate.mass": 1e6,
            "free_bodies.ball.pose.xyz": [0, 0, 1e4],
            "gravity": [0, 600, -800],  # norm 1000
            "free_bodies.ball.velocity.linear": [6e3, 8e3, 0],  # norm 1e4
            "wrenches.0.force": [0, 0, 1e6],
        },
    )
    assert s.free_bodies[0].shape == "sphere" and s.free_bodies[1].mass == 1e6
    assert list(s.gravity) == [0, 600, -800]


@pytest.mark.parametrize(
    "override, field",
    [("free_bodies.0.radius=1e300", "free_bodies[0].radius"), ("gravity=[0,0,-1e300]", "gravity")],
)
def test_simulate_set_beyond_the_bounds_exits_2_naming_the_field(tmp_path, capsys, override, field):
    out = tmp_path / "r.json"
    argv = ["simulate", "sphere_drop", "--set", override, "--duration", "0.01", "--quiet", "--output", str(out)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert f"field '{field}'" in err and "sphere_drop.yaml" in err
    assert not out.exists()


def test_gravel_count_beyond_the_bound_is_refused_before_generating(tmp_path):
    """count: 10^12 is one error, before any stone is generated (else they fill the memory)."""
    from humanoid_model.scene_generators import MAX_STONES

    path = tmp_path / "g.yaml"
    path.write_text(
        "name: g\nground: {height: 0.0}\ngenerate:\n"
        "  - {type: gravel, seed: 1, count: 1000000000000, center: [1, 0], extent: [1, 1],"
        " size_min: 0.01, size_max: 0.02}\n"
    )
    with pytest.raises(SceneError, match=rf"field 'generate\[0\]\.count'.*<= {MAX_STONES}"):
        load_scene(path)
    assert len(load_scene(path, {"generate.0.count": MAX_STONES}).bodies) == MAX_STONES
