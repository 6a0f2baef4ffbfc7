"""FEM soles in the World: configuration (robot YAML, scene switch, rigid default) and the
state (get_state / set_state replay bit for bit with the soles' displacements in the snapshot).
docs/soles.md "In the simulator". The settled standing claims are
in test_soles_world.py."""

import dataclasses
import json
import pickle

import numpy as np
import pytest

from humanoid_model import load_robot
from humanoid_model.exceptions import ConfigError, SceneError
from humanoid_model.scene import load_scene, scene_from_dict
from humanoid_sim.world import World

RESOLUTION = (0.074, 0.13, 0.01)  # [m] 3 × 1 × 2 cells, 8 ground nodes per sole (chosen: the test's cost)


def coarse_specs(robot):
    return [dataclasses.replace(s, resolution=RESOLUTION) for s in robot.soles.values()]


def test_rigid_soles_stay_the_default():
    assert load_scene("flat").robot.soles == "rigid"
    assert World.from_scene("flat").soles is None


def test_a_scene_switches_the_fem_soles_on_and_a_bad_value_is_refused(tmp_path):
    doc = {"ground": {}, "robot": {"name": "hrp2", "soles": "fem"}}
    assert scene_from_dict(doc, tmp_path / "s.yaml").robot.soles == "fem"
    with pytest.raises(SceneError, match="robot.soles"):
        scene_from_dict({"ground": {}, "robot": {"name": "hrp2", "soles": "foam"}}, tmp_path / "s.yaml")
    with pytest.raises(SceneError, match="declares no soles"):
        scene_from_dict({"ground": {}, "robot": {"name": "bip", "soles": "fem"}}, tmp_path / "s.yaml")
    with pytest.raises(ConfigError, match="soles"):
        World.from_scene("flat", soles="foam")


def test_the_robot_yaml_declares_the_thesis_sole():
    """The thesis's sole (Chardonnet 2009, §4.4, §4.4.1): 22 × 13 × 2 cm, E = 3 MPa, ν = 0.4, under
    both feet."""
    soles = load_robot("hrp2").soles
    assert sorted(soles) == ["l_sole", "r_sole"]
    for s in soles.values():
        assert (s.length, s.width, s.thickness) == (0.22, 0.13, 0.02)
        assert [(x.E, x.nu) for x in s.layers] == [(3e6, 0.4)]
        assert s.body in ("RLEG_LINK5", "LLEG_LINK5")


def test_get_state_set_state_replay_bit_for_bit_with_soles():
    robot = load_robot("hrp2")
    w = World.from_scene("flat", robot=robot, soles=coarse_specs(robot))
    w.step(150)
    w.apply_wrench("BODY", force=(60.0, 0.0, 0.0), duration=0.05)  # the sole shears and deforms unevenly
    w.step(20)
    snap = w.get_state()
    assert snap.soles is not None and np.abs(np.concatenate(snap.soles)).max() > 1e-6

    def run(world, n):
        out = []
        for _ in range(n):
            world.step()
            out.append(np.concatenate([world.q, world.v, *world.soles.memory()]))
        return np.array(out)

    first = run(w, 200)
    w.set_state(snap)
    assert np.array_equal(run(w, 200), first)
    fresh = World.from_scene("flat", robot=robot, soles=coarse_specs(robot))
    fresh.set_state(pickle.loads(pickle.dumps(snap)))
    assert np.array_equal(run(fresh, 100), first[:100])
    with pytest.raises(ConfigError, match="FEM soles"):
        World.from_scene("flat", robot=robot).set_state(snap)


def test_a_recording_holds_the_deformed_sole_surfaces_and_the_viewer_draws_them(tmp_path):
    """The viewer and the recording show the deformed sole surface: the header has each
    sole's surface triangles, each frame the world points of its deformed surface nodes; the
    viewer's replay draws them as one mesh per sole, and the simulator node's /contacts markers
    (`humanoid_sim.runtime.markers.sole_triangles`, ns "soles") carry the same triangles."""
    from humanoid_sim.runtime.markers import sole_triangles
    from humanoid_sim.runtime.recording import record_run
    from humanoid_viewer.app import Viewer
    from humanoid_viewer.replay import load_recording, read_recording_document

    robot = load_robot("hrp2")
    w = World.from_scene("flat", robot=robot, soles=coarse_specs(robot))
    path = record_run(w, 200, tmp_path / "run.jsonl", every=100)
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    tri = np.array(lines[0]["soles"]["r_sole"]["triangles"])
    pts = np.array(lines[-2]["soles"]["r_sole"])  # the last frame (t = 0.2 s)
    assert lines[0]["soles"]["r_sole"]["body"] == "RLEG_LINK5" and tri.max() == len(pts) - 1
    now = w.soles.surface_points(w.model, w.q)["r_sole"]
    np.testing.assert_allclose(pts, now, atol=1e-9)  # rounded to 1e-9 m
    s = w.soles.soles[0]
    bottom = np.searchsorted(np.unique(s.sole.mesh.surface), s.sole.mesh.bottom_nodes)
    assert np.abs(pts[bottom, 2]).max() < 2e-6  # the loaded ground face is deformed onto z = 0 (µm)
    assert np.all(s.U.reshape(-1, 3)[np.searchsorted(s.sole.mesh.surface_nodes, s.sole.mesh.bottom_nodes), 2] > 1e-6)
    doc = read_recording_document(path)
    assert len(doc["soles"]["r_sole"]) == 3  # one column entry per frame (t = 0, 0.1, 0.2 s)
    markers = sole_triangles(w.soles, w.model, w.q)  # the live markers: every sole's triangles, 3 points each
    left = np.array(lines[-2]["soles"]["l_sole"])[np.array(lines[0]["soles"]["l_sole"]["triangles"]).reshape(-1)]
    np.testing.assert_allclose(markers, np.vstack([pts[tri.reshape(-1)], left]), atol=1e-9)
    rec = load_recording(path, robot)
    with Viewer(robot, scene="flat", port=0, verbose=False) as v:
        v.load_replay(rec)
        v.show_index(2)
        props = v.replay.sole_handles["r_sole"]._impl.props
        np.testing.assert_allclose(props.vertices, pts, atol=1e-6)  # float32 in the page
        np.testing.assert_array_equal(props.faces, tri)


def test_a_bag_recording_carries_the_deformed_soles(tmp_path):
    """The bag (`--record-format mcap`) holds each FEM sole as a TRIANGLE_LIST of /contacts (ns
    "soles"); its replay gives the triangles' corners of the world's deformed surface."""
    from humanoid_sim.runtime.recording import record_run
    from humanoid_viewer.bag_replay import load_bag_recording

    robot = load_robot("hrp2")
    w = World.from_scene("flat", robot=robot, soles=coarse_specs(robot))
    path = record_run(w, 200, tmp_path / "run", every=100, format="mcap")
    rec = load_bag_recording(path, robot)
    assert len(rec) == 3
    _, _, contacts, soles = rec.frame(2)
    now = w.soles.surface_points(w.model, w.q)
    triangles = w.soles.surface_triangles()
    assert set(soles) == set(now) == {"r_sole", "l_sole"} and contacts
    for name, (tri, pts) in soles.items():
        corners = now[name][np.array(triangles[name]["triangles"]).reshape(-1)]
        np.testing.assert_allclose(pts[tri.reshape(-1)], corners, atol=1e-12)
