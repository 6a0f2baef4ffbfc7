"""Simulator validation with free bodies, the whole pipeline (acceptance tests of Chardonnet 2009,
marked `spec("000", ...)`): the incline sticks at 20° and slides at 25° with the contact-law
residuals met, restitution 0.5 and 0, the hyperstatic table in equilibrium without internal
friction (the thesis's four-legged table, §2.3.2), cube-stack interface loads, k collision groups
give the forces of one merged group (§3.2.5), breakaway within 1 % (the thesis's friction
measurement, §5.1.2.1), cone isotropy in 16 directions. Every expected value is computed from the
scene's own gravity."""

import numpy as np
import pytest

from humanoid_sim.world import World

MU = 0.4  # μ between all objects of the thesis's scenes (Chardonnet 2009, §3.1.6.1)


def _g(world):
    return float(np.linalg.norm(world.scene.gravity))


def _scene(tmp_path, text, name="s.yaml"):
    p = tmp_path / name
    p.write_text(text)
    return p


# ------------------------------------------------------------------------------- incline
@pytest.fixture(scope="module")
def incline_runs():
    out = {}
    for ang in (20.0, 25.0):
        w = World.from_scene("incline", overrides={"incline.angle_deg": ang})
        p0 = w.state.bodies["box"].position.copy()
        w.step(1000)
        out[ang] = (w, p0)
    return out


@pytest.mark.spec("000", "B3")
def test_incline_sticks_at_20_deg(incline_runs):
    w, p0 = incline_runs[20.0]
    disp = np.linalg.norm(w.state.bodies["box"].position - p0)
    assert disp < 1e-3  # < 1 mm over 1 s (chosen)
    assert np.linalg.norm(w.state.bodies["box"].linear_velocity) < 1e-5


@pytest.mark.spec("000", "B3", "B4")
def test_incline_slides_at_25_deg(incline_runs):
    w, p0 = incline_runs[25.0]
    a = np.radians(25.0)
    expected = _g(w) * (np.sin(a) - MU * np.cos(a))  # 0.589 m/s^2 with g = 9.8
    vel = w.state.bodies["box"].linear_velocity
    down = -np.array([np.cos(a), 0.0, np.sin(a)])
    acc = vel @ down / w.t  # semi-implicit Euler: v_N = N dt a exactly
    assert acc == pytest.approx(expected, rel=0.02)
    assert abs(vel @ np.array([-np.sin(a), 0, np.cos(a)])) < 1e-6  # no lift-off or sinking
    res = w.stats()["max_residuals"]  # the contact law on every step (solver thresholds)
    assert res["complementarity"] < 1e-6 and res["penetration"] < 1e-6
    assert res["cone"] < 1e-6 * 10 and res["dissipation"] < 1e-3


# ------------------------------------------------------------------------------- drop
@pytest.mark.spec("000", "B7")
def test_restitution_half_gives_half_impact_speed():
    w = World.from_scene("sphere_drop")
    h = w.scene.params["sphere.drop_height"]
    v_imp = np.sqrt(2 * _g(w) * h)  # 3.13 m/s with g = 9.8
    vz = []
    for _ in range(400):
        w.step()
        vz.append(w.state.bodies["sphere"].linear_velocity[2])
    vz = np.array(vz)
    k = int(np.argmax(vz > 0))  # first step after the impact
    assert vz[k - 1] < -0.99 * v_imp
    assert vz[k] == pytest.approx(0.5 * v_imp, rel=0.01)  # 1.565 m/s +- 1 %


@pytest.mark.spec("000", "B7")
def test_restitution_zero_no_bounce():
    w = World.from_scene("sphere_drop", overrides={"sphere.restitution": 0.0})
    r = w.scene.params["sphere.radius"]
    zs, vz = [], []
    for _ in range(500):
        w.step()
        b = w.state.bodies["sphere"]
        zs.append(b.position[2])
        vz.append(b.linear_velocity[2])
    k = int(np.argmax(np.array(zs) < r + 1e-3))
    assert np.max(np.abs(vz[k + 1 :])) < 1e-6
    assert np.min(zs) > r - 1e-4  # penetration bounded (< 0.1 mm)


# ------------------------------------------------------------------------------- table
@pytest.mark.spec("000", "B1")
def test_hyperstatic_table_is_in_equilibrium_without_internal_friction():
    w = World.from_scene("table_static")
    w.step(500)  # 0.5 s (chosen)
    m = w.scene.free_bodies[0].mass
    pts, f = w.contact_forces_world()
    fn = w.last.forces[:, 0]
    assert np.sum(f[:, 2]) == pytest.approx(m * _g(w), rel=5e-3)
    assert np.all(fn >= -1e-9)
    # |f_t| < 1e-6 N (chosen): the hyperstatic set admits internal tangential forces; new
    # contacts start from the frictionless solution and warm starts follow the points.
    assert np.max(np.abs(w.last.forces[:, 1:])) < 1e-6
    b = w.state.bodies["table"]
    assert np.linalg.norm(b.linear_velocity) < 1e-5 and np.linalg.norm(b.angular_velocity) < 1e-5
    com = b.position + w.scene.free_bodies[0].com
    grav = m * np.asarray(w.scene.gravity)
    # equilibrium of forces and moments to 1e-6 (chosen)
    assert np.linalg.norm(f.sum(0) + grav) < 1e-6
    moment = np.cross(pts - com, f).sum(0)
    assert np.linalg.norm(moment) < 1e-6
    assert len({tuple(np.round(p[:2], 6)) for p in pts}) >= 4  # several points per leg patch


# ------------------------------------------------------------------------------- stack
def test_cube_stack_interface_loads_are_3mg_2mg_mg():
    from humanoid_sim.solvers import SolverSettings

    # solved tightly (chosen thresholds) so the check is on the pipeline, not on the solver's
    # default stopping rule
    w = World.from_scene("cube_stack", solver_settings=SolverSettings(tol_rel=1e-12, max_iterations=2000))
    w.step(200)
    g = _g(w)
    b = w.last.batch
    _, f = w.contact_forces_world()
    groups = w.last.groups
    assert len(groups) == 1 and len(groups[0].trees) == 3
    body_a = np.array([w.mobile[a].body for a in b.geom_a])
    body_b = np.array(["ground" if s else w.mobile[j].body for j, s in zip(b.geom_b, b.b_static)])
    # interface loads from the bottom up: 3 m g (ground), 2 m g, m g (m = 1 kg)
    for k, (lo, hi) in enumerate([("ground", "cube1"), ("cube1", "cube2"), ("cube2", "cube3")]):
        on_hi = np.where((body_a == hi) & (body_b == lo), 1.0, 0.0) - np.where(
            (body_a == lo) & (body_b == hi), 1.0, 0.0
        )
        assert np.sum(on_hi * f[:, 2]) == pytest.approx((3 - k) * 1.0 * g, rel=1e-6)
    for name in ("cube1", "cube2", "cube3"):
        assert np.linalg.norm(w.state.bodies[name].linear_velocity) < 1e-6


# ------------------------------------------------------------------------------- collision groups
CUBES = """
gravity: [0, 0, -9.81]
ground: {{height: 0.0, friction: 0.4}}
free_bodies:
{bodies}
"""


def _cubes_scene(tmp_path, k):
    rows = []
    for i in range(k):
        rows.append(
            f"  - {{name: c{i}, shape: box, size: [0.1, 0.1, 0.1], mass: 1.0, friction: 0.4,"
            f" pose: {{xyz: [{0.3 * i}, {0.05 * (i % 2)}, 0.05], rpy_deg: [0, 0, {7 * i}]}},"
            f" velocity: {{linear: [{0.1 * (i % 3)}, 0, 0]}}}}"
        )
    return _scene(tmp_path, CUBES.format(bodies="\n".join(rows)), f"cubes{k}.yaml")


@pytest.mark.spec("000", "A5")
def test_k_groups_give_the_forces_of_one_merged_group(tmp_path):
    """5 cubes (1 kg, 0.1 m) on the floor (the thesis's collision-group benchmark, Chardonnet 2009,
    §3.2.5), one group per cube or one merged group: every contact force agrees to 1e-8 N in every
    one of 60 steps, and so does each cube's resultant. Measured: 1.0e-12 N at most. Both modes are solved to tight true-residual
    thresholds (chosen: 1e-13 relative change, 1e-14 residuals, 1000 sweeps): W of the merged
    group is block-diagonal with exactly zero off-diagonal blocks, so the one-group solve is the
    k per-cube solves run side by side. At the default stopping thresholds the per-contact split
    of each cube's hyperstatic 4 corners is not unique (a 6-dimensional null space of W per
    cube), and the merged group, which sweeps every cube until the slowest converges, stops at
    another point of it: up to 4.8e-5 N apart with the active-set step, 1.2 N with plain
    Gauss–Seidel, and the cubes' resultants up to 1.0e-4 N (measured over the same 60 steps; each
    mode stops at its own iterate within the default thresholds; docs/simulator.md, validation)."""
    from humanoid_sim.solvers import SolverSettings

    tight = SolverSettings(
        max_iterations=1000, tol_rel=1e-13, tol_complementarity=1e-14, tol_penetration=1e-14, tol_cone=1e-14
    )
    path = _cubes_scene(tmp_path, 5)
    runs = [World.from_scene(path, merge_groups=merge, solver_settings=tight) for merge in (False, True)]
    worst = 0.0
    for _ in range(60):
        for w in runs:
            w.step()
        assert [len(w.last.groups) for w in runs] == [5, 1]
        f1, f2 = runs[0].last.forces, runs[1].last.forces
        assert f1.shape == f2.shape and f1.shape[0] == 5 * 4  # 4 corners per cube
        worst = max(worst, np.max(np.abs(f1 - f2)))
    assert worst < 1e-8
    # per cube, the resultant (force and moment) too
    w = runs[0]
    P, F1 = w.contact_forces_world()
    _, F2 = runs[1].contact_forces_world()
    body = np.array([w.mobile[a].body for a in w.last.batch.geom_a])
    for name in set(body.tolist()):
        sel = body == name
        c = w.state.bodies[name].position
        assert np.linalg.norm(F1[sel].sum(0) - F2[sel].sum(0)) < 1e-8
        assert np.linalg.norm(np.cross(P[sel] - c, F1[sel] - F2[sel]).sum(0)) < 1e-8
    assert np.max(np.abs(runs[0].q - runs[1].q)) < 1e-12


# ------------------------------------------------------------------------------- breakaway
BLOCK = """
gravity: [0, 0, -9.8]          # the g of the thesis's numbers (114.1 N = 0.983 x 11.84 x 9.8)
ground: {height: 0.0, friction: 0.983}
free_bodies:
  - {name: block, shape: box, size: [0.2, 0.15, 0.1], mass: 11.84, friction: 0.983,
     pose: {xyz: [0, 0, 0.05]}}
"""


@pytest.mark.spec("000", "C5")
def test_breakaway_not_before_the_band_and_inside_it(tmp_path):
    """The thesis's friction measurement replayed: 11.84 kg, μ = 0.983 (Chardonnet 2009, §5.1.2.1):
    breakaway at 0.983·11.84·g = 114.1 N ± 1 %. The ramp starts below the band, so that a breakaway
    inside it is measured, not assumed. A pull 2 % below the expected value (outside the band; our choice) is held for 0.3 s
    without motion; the ramp at 1 N/s then starts there (2.3 N, ~2300 steps) and the breakaway
    force must lie within 1 %."""
    p = tmp_path / "block.yaml"
    p.write_text(BLOCK)
    w = World.from_scene(p)
    g = float(np.linalg.norm(w.scene.gravity))
    expected = 0.983 * 11.84 * g
    w.step(50)
    F0 = 0.98 * expected
    w.apply_wrench("block", force=(F0, 0, 0))
    x0 = w.state.bodies["block"].position[0]
    w.step(300)
    assert np.linalg.norm(w.state.bodies["block"].linear_velocity) < 1e-6
    assert abs(w.state.bodies["block"].position[0] - x0) < 1e-6
    F = None
    for k in range(1, 4000):
        F = F0 + 1.0 * k * w.dt
        w.apply_wrench("block", force=(F, 0, 0))
        w.step()
        if w.state.bodies["block"].linear_velocity[0] > 1e-6:
            break
    assert pytest.approx(expected, rel=0.01) == F


# ------------------------------------------------------------------------------- isotropy
@pytest.mark.spec("000", "B2")
@pytest.mark.parametrize("force, moves", [(5.0, True), (3.5, False)])
def test_cone_isotropy_box_slides_or_sticks_alike_in_16_directions(force, moves):
    """1 kg box, mu = 0.4, horizontal force at the COM in 16 directions k 22.5 deg (an exact cone
    has no preferred direction; a 4-facet pyramid would fail along the diagonals): F = 5 N slides at (F - mu m g)/m (1.076 m/s^2
    with g = 9.81) +- 1 %, along F within 0.5 deg; F = 3.5 N sticks (|v| < 1e-4 m/s over 1 s),
    in all 16 directions too.
    Semi-implicit Euler slides at a constant acceleration from the first step, so 0.1 s of
    sliding measures it."""
    for k in range(16):
        ang = 22.5 * k
        w = World.from_scene("box_push", overrides={"push.force": force, "push.angle_deg": ang})
        m = w.scene.free_bodies[0].mass
        if moves:
            w.step(20)
            v0 = w.state.bodies["box"].linear_velocity.copy()
            w.step(100)
            a = (w.state.bodies["box"].linear_velocity - v0) / 0.1
            assert np.linalg.norm(a) == pytest.approx((force - MU * m * _g(w)) / m, rel=0.01)
            d = np.array([np.cos(np.radians(ang)), np.sin(np.radians(ang)), 0.0])
            assert np.degrees(np.arccos(np.clip(a @ d / np.linalg.norm(a), -1, 1))) < 0.5
        else:
            vmax = 0.0
            for _ in range(20):
                w.step(50)
                vmax = max(vmax, np.linalg.norm(w.state.bodies["box"].linear_velocity))
            assert vmax < 1e-4
