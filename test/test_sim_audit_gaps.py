"""Issue 3 audit gaps: World input validation, another robot's scene, scene-file checks."""
import math

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError, HumanoidStackError, SceneError
from humanoid_model.scene import load_scene
from humanoid_sim.solvers import SolverSettings
from humanoid_sim.world import World


@pytest.fixture(scope="module")
def drop():
    return World.from_scene("sphere_drop")


@pytest.mark.parametrize("kw, arg, shown", [
    ({"force": (1, 2)}, "force", "(1, 2)"),
    ({"force": "abc"}, "force", "'abc'"),
    ({"torque": (1, 2, 3, 4)}, "torque", "(1, 2, 3, 4)"),
    ({"point": (0, math.nan, 0)}, "point", "nan"),
    ({"force": [[1, 2, 3]]}, "force", "[[1, 2, 3]]"),
])
def test_apply_wrench_bad_vectors_name_argument_and_value(drop, kw, arg, shown):
    body = drop.scene.free_bodies[0].name
    with pytest.raises(ConfigError) as e:
        drop.apply_wrench(body, **kw)
    assert f"'{arg}'" in str(e.value) and shown in str(e.value) and body in str(e.value)
    assert body not in drop.user_wrenches          # nothing half-applied


def test_apply_wrench_unknown_body_and_good_call(drop):
    with pytest.raises(ConfigError, match="'BODY'"):
        drop.apply_wrench("BODY", force=(1, 2, 3))
    with pytest.raises(ConfigError, match="body"):
        drop.apply_wrench(None, force=(1, 2, 3))
    body = drop.scene.free_bodies[0].name
    drop.apply_wrench(body, force=[1, 2, 3])
    assert np.array_equal(drop.user_wrenches[body][0], [1.0, 2.0, 3.0])
    drop.clear_wrenches()


@pytest.mark.parametrize("n", [-1, 0, 1.5, "3", True, None])
def test_step_count_must_be_positive_int(drop, n):
    t = drop.t
    with pytest.raises(ConfigError, match="step"):
        drop.step(n)
    assert drop.t == t


def test_step_accepts_numpy_int(drop):
    t = drop.t
    drop.step(np.int64(2))
    assert drop.t == pytest.approx(t + 2 * drop.dt, abs=1e-15)


@pytest.mark.parametrize("kw, field", [
    ({"dt": 1.0}, "dt"), ({"dt": 0.1000001}, "dt"), ({"dt": 0.0}, "dt"), ({"dt": -1e-3}, "dt"),
    ({"dt": math.nan}, "dt"), ({"dt": "1e-3"}, "dt"),
    ({"margin": -1}, "margin"), ({"margin": math.inf}, "margin"), ({"margin": "0.01"}, "margin"),
    ({"solver_settings": "fast"}, "solver_settings"),
    ({"solver_settings": {"max_iter": 10}}, "max_iter"),
])
def test_world_constructor_rejects_bad_values(kw, field):
    with pytest.raises(ConfigError) as e:
        World.from_scene("sphere_drop", **kw)
    assert field in str(e.value)


def test_world_constructor_accepts_edge_values():
    w = World.from_scene("sphere_drop", dt=0.1, margin=0.0,
                         solver_settings={"max_iterations": 50, "tol_rel": 1e-8})
    assert isinstance(w.solver_settings, SolverSettings)
    assert w.solver_settings.max_iterations == 50 and w.solver_settings.tol_rel == 1e-8
    w.step(2)
    assert w.t == pytest.approx(0.2)


# ----------------------------------------------------------------- another robot's scene
def test_from_scene_with_another_robot_uses_its_default_posture():
    """The flat scene is written for HRP-2 in 'half-sitting', a posture BIP does not have: BIP
    starts in its own default posture, placed by the scene's rule (placement composed with the
    posture's base pose)."""
    from humanoid_model.robot import load_robot

    scene = load_scene("flat")
    assert scene.robot is not None and scene.robot.posture == "half-sitting"
    bip = load_robot("bip")
    assert "half-sitting" not in bip.postures
    w = World.from_scene(scene, robot="bip")
    assert w.robot.name == bip.name
    qr = bip.q(bip.default_posture)
    nq = bip.model.nq
    assert np.allclose(w.q[7:nq], qr[7:])
    assert np.allclose(w.q[:7], scene.robot.base_pose(qr[:7]))
    assert scene.robot.posture == "half-sitting"     # the caller's scene is not modified
    w.step(2)
    assert np.all(np.isfinite(w.q))


def test_from_scene_same_robot_keeps_scene_posture():
    scene = load_scene("flat")
    w = World.from_scene(scene, robot="hrp2")
    qr = w.robot.q("half-sitting")
    assert np.allclose(w.q[7:w.robot.model.nq], qr[7:])


def test_cli_has_no_posture_workaround():
    import inspect

    from humanoid_stack.commands import simulate

    src = inspect.getsource(simulate.run)
    assert "postures" not in src and "dataclasses" not in src


# ----------------------------------------------------------------- scene files
def test_scene_error_truncates_a_non_scene_file(tmp_path):
    p = tmp_path / "big.txt"
    p.write_text("x" * 5000 + "\n")
    with pytest.raises(SceneError) as e:
        load_scene(p)
    assert len(str(e.value)) < len(str(p)) + 300


def test_scene_error_on_binary_file(tmp_path):
    p = tmp_path / "bin.yaml"
    p.write_bytes(bytes(range(256)) * 40)
    with pytest.raises(SceneError) as e:
        load_scene(p)
    assert str(p) in str(e.value) and len(str(e.value)) < len(str(p)) + 200


@pytest.mark.parametrize("angle", [90, 95, 180, -95, -90])
def test_incline_normal_must_point_up(angle):
    with pytest.raises(SceneError) as e:
        load_scene("incline", {"incline.angle_deg": angle})
    msg = str(e.value)
    assert "bodies[0].pose" in msg and "normal" in msg and f"{abs(angle):g} deg" in msg


@pytest.mark.parametrize("angle", [0, 25, 89.9, -60])
def test_incline_below_90_deg_accepted(angle):
    s = load_scene("incline", {"incline.angle_deg": angle})
    n = s.bodies[0].normal
    assert n[2] == pytest.approx(math.cos(math.radians(angle)), abs=1e-12)


def test_plane_up_follows_gravity(tmp_path):
    p = tmp_path / "down.yaml"
    p.write_text("gravity: [0, 0, 9.81]\nbodies:\n  - {name: roof, shape: plane, "
                 "pose: {rpy_deg: [180, 0, 0]}}\n")
    assert load_scene(p).bodies[0].normal[2] == pytest.approx(-1.0)
    p.write_text("gravity: [0, 0, 9.81]\nbodies:\n  - {name: floor, shape: plane}\n")
    with pytest.raises(HumanoidStackError, match="bodies\\[0\\].pose"):
        load_scene(p)


# ----------------------------------------------------------------- documented self pairs
def _category(model, j):
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


def test_hrp2_self_collision_pair_set_matches_docs():
    """docs/simulator.md lists the HRP-2 self pairs per category (204 in all): same numbers here."""
    from collections import Counter

    w = World.from_scene("flat")
    mob = w.detector.mobile
    c = Counter()
    for a, b in w.detector.mobile_pairs.tolist():
        (ca, sa), (cb, sb) = _category(w.model, mob[a].joint), _category(w.model, mob[b].joint)
        assert mob[a].tree == mob[b].tree == 0
        key = "-".join(sorted((ca, cb)))
        if ca == cb:
            key += " same" if sa == sb else " lr"
        c[key] += 1
        # never a link and its parent or an adjacent link (>= 3 joints apart)
        ja, jb = mob[a].joint, mob[b].joint
        assert w.model.parents[ja] != jb and w.model.parents[jb] != ja
    assert dict(c) == {"arm-leg": 80, "leg-leg lr": 25, "leg-leg same": 4, "arm-arm lr": 16,
                       "arm-arm same": 6, "leg-torso": 20, "arm-torso": 16, "head-leg": 10,
                       "leg-waist": 10, "arm-head": 8, "arm-waist": 8, "head-waist": 1}
    assert sum(c.values()) == 204
