"""Contact with triangle meshes: a static mesh slab holds primitives still with the
right force and never pulls, a mesh slope gives the primitive slope's answer, a mesh body gets a
full patch on the ground, and Talos's mesh feet stand (with the optional ``robots`` extra).

Meshes are written with trimesh into a temporary folder; the slab's dimensions (4 × 4 × 0.25 m)
are exact in the float32 of an STL file, so its top face is exactly the plane the scenes name."""

import sys
from pathlib import Path

import numpy as np
import pytest
import trimesh
import yaml

from humanoid_model.paths import scenes_dir
from humanoid_sim.world import World

SLAB = (4.0, 4.0, 0.25)  # [m] full extents (chosen: exact in float32)
SETTLE = 500  # steps (0.5 s) of rest checked every step


@pytest.fixture(scope="module")
def meshes(tmp_path_factory):
    d = tmp_path_factory.mktemp("meshes")
    trimesh.creation.box(extents=SLAB).export(d / "slab.stl")
    trimesh.creation.box(extents=[0.2, 0.2, 0.1]).export(d / "block.stl")
    return d


def _scene(folder: Path, text: str, name="scene.yaml") -> Path:
    p = folder / name
    p.write_text(text)
    return p


def _body_forces(w, body):
    """(number of points, world force on the body [N]) of the last step's contacts on ``body``."""
    b = w.last.batch
    sel = [k for k in range(b.m) if w.mobile[b.geom_a[k]].body == body]
    return len(sel), w.last.forces_world()[sel].sum(axis=0), w.last.forces_world()[sel]


def _rest(w, names, steps=SETTLE):
    """Per body: max speed [m/s], max displacement [m], least upward point force [N], min / max
    point count, over ``steps`` steps; then the last step's total force on each body."""
    p0 = {n: w.state.bodies[n].position.copy() for n in names}
    out = {n: dict(v=0.0, d=0.0, fmin=np.inf, nmin=10**9, nmax=0) for n in names}
    for _ in range(steps):
        w.step()
        for n in names:
            s, o = w.state.bodies[n], out[n]
            o["v"] = max(o["v"], float(np.linalg.norm(s.linear_velocity)))
            o["d"] = max(o["d"], float(np.linalg.norm(s.position - p0[n])))
            k, _, F = _body_forces(w, n)
            o["nmin"], o["nmax"] = min(o["nmin"], k), max(o["nmax"], k)
            if k:
                o["fmin"] = min(o["fmin"], float(F[:, 2].min()))
    for n in names:
        out[n]["F"] = _body_forces(w, n)[1]
    return out


# ----------------------------------------------------------------------- primitives on a mesh slab
@pytest.fixture(scope="module")
def on_slab(meshes):
    path = _scene(
        meshes,
        f"""
name: mesh_slab
ground: null
bodies:
  - {{name: slab, shape: mesh, file: slab.stl, pose: {{xyz: [0, 0, {-SLAB[2] / 2}]}}}}
free_bodies:
  - {{name: box, shape: box, size: [0.1, 0.1, 0.1], mass: 1, pose: {{xyz: [0.1, 0.05, 0.05]}}}}
  - {{name: ball, shape: sphere, radius: 0.05, mass: 2, pose: {{xyz: [-0.5, 0.3, 0.05]}}}}
  - {{name: can, shape: cylinder, radius: 0.05, length: 0.1, mass: 0.5, pose: {{xyz: [0.5, -0.4, 0.05]}}}}
""",
    )
    w = World.from_scene(path)
    return w, _rest(w, ["box", "ball", "can"])


@pytest.mark.parametrize("body, points", [("box", 4), ("ball", 1), ("can", 8)])
def test_primitives_rest_on_a_mesh_slab_without_pulling(on_slab, body, points):
    """No pulling force: a contact that pulls makes the bodies chatter at 10-17 m/s under 18-32 kN
    (measured)."""
    w, out = on_slab
    o = out[body]
    m = w.scene.free_body(body).mass
    g = float(np.linalg.norm(w.scene.gravity))
    assert o["v"] < 1e-6 and o["d"] < 1e-6  # still, every step
    assert o["fmin"] >= 0.0  # no pulling force at any point of any step
    assert o["F"][2] == pytest.approx(m * g, rel=5e-3)  # sum f_n = m g to 0.5 %
    # the flat face's patch: a box's 4 corners, a cylinder's rim octagon (PATCH_MAX_POINTS), one point
    assert o["nmin"] == o["nmax"] == points


def test_mesh_contact_normal_and_gap_follow_the_primitive_convention(meshes):
    """A ball 1 mm above a mesh slab and above a box slab: one contact, normal +z (from the
    environment into the ball), gap +1 mm, in both cases."""
    got = []
    for slab in (
        "{name: slab, shape: mesh, file: slab.stl, pose: {xyz: [0, 0, -0.125]}}",
        "{name: slab, shape: box, size: [4, 4, 0.25], pose: {xyz: [0, 0, -0.125]}}",
    ):
        path = _scene(
            meshes,
            f"ground: null\nbodies: [{slab}]\n"
            "free_bodies: [{name: ball, shape: sphere, radius: 0.05, mass: 1, pose: {xyz: [0.3, 0.2, 0.051]}}]\n",
            "probe.yaml",
        )
        w = World.from_scene(path)
        b = w.detector.detect(*w.detector.joint_placements(w.data))
        got.append(b)
        assert b.m == 1
        np.testing.assert_allclose(b.normals[0], [0, 0, 1], atol=1e-12)
        assert b.gaps[0] == pytest.approx(1e-3, abs=1e-9)
    np.testing.assert_allclose(got[0].points, got[1].points, atol=1e-9)


def test_a_box_over_the_mesh_edge_is_held_only_where_the_mesh_is(meshes):
    """A box half over the slab's edge (x = 2 m): its patch is clipped to the slab (the points
    lie at x <= 2 m), as for the primitive box slab, so it tips over the edge."""
    half = SLAB[0] / 2
    pts = []
    for slab in (
        "{name: slab, shape: mesh, file: slab.stl, pose: {xyz: [0, 0, -0.125]}}",
        "{name: slab, shape: box, size: [4, 4, 0.25], pose: {xyz: [0, 0, -0.125]}}",
    ):
        path = _scene(
            meshes,
            f"ground: null\nbodies: [{slab}]\n"
            f"free_bodies: [{{name: b, shape: box, size: [0.2, 0.2, 0.1], mass: 1, pose: {{xyz: [{half}, 0, 0.049]}}}}]\n",
            "edge.yaml",
        )
        w = World.from_scene(path)
        b = w.detector.detect(*w.detector.joint_placements(w.data))
        assert np.all(b.points[:, 0] <= half + 1e-9)
        np.testing.assert_allclose(b.normals, np.tile([0, 0, 1.0], (b.m, 1)), atol=1e-9)
        pts.append(np.unique(np.round(b.points, 9), axis=0))
    np.testing.assert_allclose(pts[0], pts[1], atol=1e-9)


# ----------------------------------------------------------------------- incline on a mesh slope
def _mesh_incline(folder: Path) -> Path:
    """The shipped incline scene with its slope plane replaced by the mesh slab, whose top face is
    the slope's plane (slab centre 1 m up the slope, half a thickness below it)."""
    doc = yaml.safe_load((scenes_dir() / "incline.yaml").read_text())
    t = SLAB[2] / 2
    doc["bodies"] = [
        {
            "name": "slope",
            "shape": "mesh",
            "file": "slab.stl",
            "friction": "${incline.friction}",
            "pose": {
                "xyz": [
                    f"${{cos(incline.angle) + {t} * sin(incline.angle)}}",
                    0,
                    f"${{sin(incline.angle) - {t} * cos(incline.angle)}}",
                ],
                "rpy_deg": [0, "${-incline.angle_deg}", 0],
            },
        }
    ]
    doc["surfaces"] = []  # planner surfaces name the plane body; the simulator does not use them
    return _scene(folder, yaml.safe_dump(doc), "incline_mesh.yaml")


@pytest.mark.spec("000", "B3")
@pytest.mark.parametrize("angle", [20.0, 25.0])
def test_incline_on_a_mesh_slope_gives_the_primitive_slope_answer(meshes, angle):
    """The incline test (test_free_bodies.py: sticks at 20 deg, slides at 25 deg) on a mesh
    slope: the box's position and velocity after 1 s equal the primitive slope's to 1e-6."""
    runs = []
    for scene in ("incline", _mesh_incline(meshes)):
        w = World.from_scene(scene, overrides={"incline.angle_deg": angle})
        w.step(1000)
        s = w.state.bodies["box"]
        runs.append((s.position.copy(), s.linear_velocity.copy(), w.last.m))
    (p0, v0, m0), (p1, v1, m1) = runs
    assert m0 == m1 == 4
    np.testing.assert_allclose(p1, p0, rtol=0, atol=1e-6)
    np.testing.assert_allclose(v1, v0, rtol=0, atol=1e-6)


# ----------------------------------------------------------------------- a mesh body on the ground
def test_mesh_body_gets_a_full_patch_and_rests_on_the_ground(meshes):
    """A convex mesh block (0.2 × 0.2 × 0.1 m) on the primitive ground: its 4 bottom corners
    (with 1 point the block rocks and sinks), still, sum f_n = m g."""
    path = _scene(
        meshes,
        "free_bodies: [{name: block, shape: mesh, file: block.stl, mass: 3, pose: {xyz: [0.3, -0.2, 0.05]}}]\n",
        "block.yaml",
    )
    w = World.from_scene(path)
    fb = w.scene.free_body("block")
    np.testing.assert_allclose(fb.inertia, np.diag([0.0125, 0.0125, 0.02]), rtol=1e-6)
    o = _rest(w, ["block"])["block"]
    assert o["nmin"] >= 3 and o["nmax"] == 4
    assert o["v"] < 1e-6 and o["d"] < 1e-6 and o["fmin"] >= 0.0
    assert o["F"][2] == pytest.approx(3 * float(np.linalg.norm(w.scene.gravity)), rel=5e-3)


def test_a_mesh_free_body_must_be_closed(meshes, scene_error):
    open_mesh = trimesh.creation.box(extents=[0.1, 0.1, 0.1])
    open_mesh.update_faces(np.arange(len(open_mesh.faces)) > 0)  # one triangle removed
    open_mesh.export(meshes / "open.stl")
    path = _scene(meshes, "free_bodies: [{name: o, shape: mesh, file: open.stl, mass: 1}]\n", "open.yaml")
    msg = scene_error(path)
    assert "free_bodies[0].file" in msg and "must be closed" in msg and "\n" not in msg


# ----------------------------------------------------------------------- Talos's mesh feet
def _erd_robots_dir():
    """example-robot-data's robots folder (the optional ``robots`` extra), or None."""
    for p in sys.path:
        d = Path(p) / "cmeel.prefix" / "share" / "example-robot-data" / "robots"
        if d.is_dir():
            return d
    return None


@pytest.mark.slow
@pytest.mark.skipif(
    _erd_robots_dir() is None, reason="optional extra example-robot-data not installed (pip install '.[robots]')"
)
def test_talos_mesh_feet_stand_2_s_without_slip(tmp_path):
    """Talos (talos_reduced.urdf: mesh soles) on flat ground at its `zero` posture: the feet, convex
    hulls of the sole meshes, keep a full patch each and do not slip over 2 s (with
    one point per foot the robot falls within the 2 s). (`flat` names the posture half-sitting, which
    Talos's SRDF also has: a scene of its own keeps the straight legs this test is about.)"""
    import pinocchio as pin

    urdf = _erd_robots_dir() / "talos_data/robots/talos_reduced.urdf"
    scene = tmp_path / "talos_flat.yaml"
    scene.write_text(
        "name: talos_flat\ngravity: [0, 0, -9.81]\nground: {height: 0.0, friction: 0.4, restitution: 0.0}\n"
        f"robot: {{name: '{urdf}', posture: zero}}\n"
    )
    w = World.from_scene(str(scene))
    feet = [w.model.getFrameId(c.body) for c in w.robot.contact_locations.values() if c.kind == "sole"]

    def feet_xyz():
        pin.framesForwardKinematics(w.model, w.data, w.q)
        return np.array([w.data.oMf[f].translation for f in feet])

    p0, z0 = feet_xyz(), w.q[2]
    fewest = 10**9
    for _ in range(2000):
        w.step()
        b = w.last.batch
        for f in feet:
            body = w.model.frames[f].name
            fewest = min(fewest, sum(w.mobile[i].body == body for i in b.geom_a))
    assert fewest >= 3  # a full patch under each foot, every step
    assert np.abs(feet_xyz() - p0).max() < 1e-4  # no slip (0.1 mm, chosen)
    assert abs(w.q[2] - z0) < 0.01  # still standing
