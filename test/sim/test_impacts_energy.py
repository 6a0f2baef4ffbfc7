"""Impacts never add energy: a ball hitting static geometry faster than the
activation margin allows (5 mm / 1 ms = 5 m/s) must not penetrate and be thrown back by the
penetration correction, nor tunnel through a thin body. Speculative activation
(`humanoid_sim.stages.impacts.SweptMargins`) is what makes this hold; its sweep must bound the speed
of every point of every shape.

Each drop starts the ball's lowest point 5.5 mm + 3 steps of travel above the surface, so that
three free steps later it is just outside the fixed 5 mm margin, the case in which a fixed margin
alone lets it penetrate by a whole step's travel less 5.5 mm (0.9 m/s rebound at 10 m/s, 9.5 m/s
at 60 m/s, tunnelling through 2 cm at 40 m/s without the sweep)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model.scene import scene_from_dict
from humanoid_sim.world import World

SPEEDS = (1.0, 5.0, 10.0, 20.0, 40.0, 60.0)  # [m/s] chosen: up to 12 times the margin's 5 m/s
R_BALL = 0.05  # [m] the sphere_drop ball (config/scenes/sphere_drop.yaml)
R_SMALL = 0.01  # [m] a ball that fits through the 2 cm slab in one step at >= 40 m/s (4 cm travel)
SLAB = 0.02  # [m] static slab thickness (chosen), top face at z = 0
G = 9.81
DT = 1e-3
AFTER = 100  # steps simulated after the impact (0.1 s)


def _drop(v, e, radius, slab):
    """(world, impact speed, steps to run): a ball of ``radius`` falling at ``v`` onto the ground,
    or with no ground onto a static 2 cm slab, restitution ``e`` on both sides."""
    h = 0.0055 + 3 * v * DT  # lowest point above the surface at release [m] (module docstring)
    steps = int(np.ceil(h / (v * DT))) + AFTER
    return _ball(v, e, radius, slab, h), np.sqrt(v * v + 2 * G * h), steps


def _ball(v, e, radius, slab, h):
    """World of a ball whose lowest point is ``h`` [m] above the surface, falling at ``v``."""
    mat = {"friction": 0.4, "restitution": e}
    doc = {
        "name": "impact",
        "gravity": [0, 0, -G],
        "ground": None if slab else dict(mat),
        "bodies": [{"name": "slab", "shape": "box", "size": [1, 1, SLAB], "pose": {"xyz": [0, 0, -SLAB / 2]}, **mat}]
        if slab
        else [],
        "free_bodies": [
            {
                "name": "ball",
                "shape": "sphere",
                "radius": radius,
                "mass": 1.0,
                "pose": {"xyz": [0, 0, h + radius]},
                "velocity": {"linear": [0, 0, -v]},
                **mat,
            }
        ],
    }
    return World(scene_from_dict(doc, "test_impacts_energy"), dt=DT)


def _run(w, steps):
    z, vz = np.empty(steps), np.empty(steps)
    for i in range(steps):
        w.step()
        b = w.state.bodies["ball"]
        z[i], vz[i] = b.position[2], b.linear_velocity[2]
    return z, vz


@pytest.mark.parametrize("v", SPEEDS)
def test_plastic_impact_on_the_ground_neither_bounces_nor_penetrates(v):
    w, _, steps = _drop(v, 0.0, R_BALL, slab=False)
    z, vz = _run(w, steps)
    assert np.max(vz) < 0.05  # rebound speed [m/s] (chosen bound)
    assert R_BALL - np.min(z) < 1e-3  # penetration, at every step, < 1 mm (chosen bound)
    assert abs(z[-1] - R_BALL) < 1e-3 and abs(vz[-1]) < 0.05  # at rest on the ground


@pytest.mark.parametrize("v", SPEEDS)
def test_no_tunnelling_through_a_thin_static_slab(v):
    w, _, steps = _drop(v, 0.0, R_SMALL, slab=True)
    z, vz = _run(w, steps)
    assert R_SMALL - np.min(z) < 1e-3  # never more than 1 mm into the slab, let alone through it
    assert abs(z[-1] - R_SMALL) < 1e-3  # resting on its top face
    assert np.max(vz) < 0.05


@pytest.mark.parametrize("v", SPEEDS)
def test_restitution_half_rebounds_at_half_the_impact_speed(v):
    w, v_imp, steps = _drop(v, 0.5, R_BALL, slab=False)
    z, vz = _run(w, steps)
    k = int(np.argmax(vz > 0))  # the first step after the impact
    assert vz[k - 1] < -0.99 * v_imp
    assert vz[k] == pytest.approx(0.5 * v_imp, rel=0.02)  # chosen tolerance
    assert R_BALL - np.min(z) < 1e-3


def test_penetration_is_removed_without_launching_the_body():
    """A ball placed 2 cm deep in the ground (e = 0, at rest) comes out without speed: a
    β·gap/dt correction in the velocities would throw it up at 0.2 × 2 cm / 1 ms = 4 m/s (a 0.8 m
    hop)."""
    w = _ball(0.0, 0.0, R_BALL, slab=False, h=-0.02)
    b = w.scene.free_bodies[0]
    z, vz = _run(w, 200)
    assert np.max(np.abs(vz)) < 0.05 and np.max(z) < R_BALL + 1e-4  # never leaves the ground
    assert abs(z[-1] - R_BALL) < 1e-6  # the penetration is gone (β = 0.2 per step)
    assert b.restitution == 0.0 and w.solve.splits > 0


def test_tilted_spinning_box_at_60_m_s_does_not_fly_off():
    """Speculative contacts stop the nearest corner; other corners of a tilted, spinning box can
    still go in by up to a step's travel (6 cm at 60 m/s). Removing that must not launch the box:
    with the one-pass β·gap/dt correction it flew 2.6 m high after the impact."""
    doc = {
        "name": "box",
        "gravity": [0, 0, -G],
        "ground": {"friction": 0.4, "restitution": 0.0},
        "free_bodies": [
            {
                "name": "box",
                "shape": "box",
                "size": [0.2, 0.1, 0.05],
                "mass": 1.0,
                "friction": 0.4,
                "pose": {"xyz": [0, 0, 0.3], "rpy_deg": [20, 35, 10]},
                "velocity": {"linear": [0.5, 0, -60.0], "angular": [3, 5, 0]},
            }
        ],
    }
    w = World(scene_from_dict(doc, "test_impacts_energy"), dt=DT)
    half_diagonal = 0.5 * np.linalg.norm([0.2, 0.1, 0.05])  # highest resting COM [m]
    z = []
    for _ in range(600):
        w.step()
        z.append(w.state.bodies["box"].position[2])
    first = int(np.argmax(np.array(z) < half_diagonal))  # the box reaches the ground
    assert first > 0
    assert np.max(z[first:]) < half_diagonal
    assert abs(z[-1] - 0.025) < 1e-3  # at rest on its largest face


def test_sweep_bounds_the_speed_of_every_point_of_every_shape():
    """For HRP-2 and a free body moving at random velocities, the finite-difference speed of 7
    points of each shape (its origin and ±bounding radius along its axes) never exceeds
    sweep/dt, and for the purely translating free body the bound is its speed exactly."""
    doc = {
        "name": "sweep",
        "robot": "hrp2",
        "free_bodies": [
            {"name": "box", "shape": "box", "size": [0.3, 0.2, 0.1], "mass": 1.0, "pose": {"xyz": [2, 0, 1]}}
        ],
    }
    w = World.from_scene(scene_from_dict(doc, "test_impacts_energy"), dt=DT)
    assert len(w.tree_cols) == 2 and len(w.mobile) > 20  # HRP-2 and the box
    model, data = w.model, w.data
    rng = np.random.default_rng(0)
    eps = 1e-7  # [s] finite-difference step: second-order error ~ eps |ω|² reach, < 1e-9 relative here
    axes = np.vstack([np.zeros(3), np.eye(3), -np.eye(3)])
    for trial in range(5):
        v = rng.normal(scale=3.0, size=model.nv)
        box = w.tree_cols[-1]
        if trial == 0:
            v[box[3:]] = 0.0  # the free body translates only
        pin.computeJointJacobians(model, data, w.q)
        R, p = w.detector.joint_placements(data)
        sweep = w.sweeps.distances(data.J, p, v)
        pts0 = _shape_points(w, w.q, axes)
        pts1 = _shape_points(w, pin.integrate(model, w.q, eps * v), axes)
        speed = np.linalg.norm(pts1 - pts0, axis=2).max(axis=1) / eps
        assert np.all(speed <= sweep / DT * (1 + 1e-6) + 1e-9)
        if trial == 0:
            k = len(w.mobile) - 1  # the box's one shape
            assert sweep[k] / DT == pytest.approx(np.linalg.norm(v[box[:3]]), rel=1e-12)


def _shape_points(w, q, axes):
    """(n_shapes, 7, 3) world points at distance 0 and the bounding radius along ± each shape
    axis, at configuration q."""
    data = w.model.createData()
    pin.forwardKinematics(w.model, data, q)
    out = np.empty((len(w.mobile), axes.shape[0], 3))
    for k, g in enumerate(w.mobile):
        oMi = data.oMi[g.joint]
        Rs = oMi.rotation @ g.placement_R
        out[k] = oMi.translation + oMi.rotation @ g.placement_p + (Rs @ (g.radius * axes).T).T
    return out
