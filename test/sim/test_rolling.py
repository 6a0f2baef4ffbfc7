"""Rolling bodies on flat ground: the simulator must never add energy.

A ball rolling without slip on flat ground is, for the simulator, a body in contact whose contact
point does not move: the contact forces do no work, so its energy is constant, its centre stays at
one radius above the ground and the normal force carries its weight. A ball (cylinder) thrown
without spin slides until its contact point stops, then rolls; with Coulomb friction (any μ) the
angular momentum about the contact point is conserved through the slip phase, m v₀ r = m v r + I ω
with v = ω r, so v = v₀ / (1 + I / (m r²)): 5/7 v₀ for a solid sphere (I = 2/5 m r²), 2/3 v₀ for a
solid cylinder rolling on its side (I = 1/2 m r²), and the energy only decreases.

Two things break both (so `integrator.carry` and the straight-line free-flyer position update
avoid them): the explicit Coriolis term of Pinocchio's body-frame linear velocity scales the speed
by √(1 + (ω dt)²) per step, and the SE(3) exponential moves the centre on an arc about the contact
point, into the ground. With them a 5 cm ball rolling at 1.41 m/s reaches 3.73 m/s after 1.5 s
(centre 0.69 mm into the ground, Σf_z = 1.053 mg); thrown at 1 m/s without spin it rolls at
0.80 m/s instead of 0.714 m/s (measured).

Tolerances. Energy: the only work the contact may do is what the solver's stopping tests leave,
a normal velocity up to ``tol_penetration`` under the normal force and a complementarity residual
up to ``tol_complementarity`` (SolverSettings defaults), so over T seconds
|ΔE| ≤ T (m g tol_penetration + tol_complementarity) (a factor 2 of margin below); per step the
same power times dt bounds any increase. Height: 1e-5 m (the gap correction removes what a step
penetrates; rolling without slip on flat ground has nothing to penetrate). Σf_n = m g to 0.5 %.
Rolling speed: 1 % (the step where the slip ends may leave at most one step of friction impulse,
μ g dt = 3.9 mm/s, 0.55 % of 5/7 m/s).
"""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_sim.solvers.base import SolverSettings
from humanoid_sim.world import World

RADIUS = 0.05  # [m]
MASS = 1.0  # [kg]
MU = 0.4  # ground and body friction (the scene default, docs/scenes.md)
HEADING = np.radians(30.0)  # rolling direction in the ground plane, off the axes
SETTINGS = SolverSettings()

# shape -> (scene fields, body rpy [deg] putting a cylinder's axis horizontal, I / (m r²) about the rolling axis)
SHAPES = {
    "sphere": (f"shape: sphere, radius: {RADIUS}", [10, 20, 30], 2 / 5),
    "cylinder": (f"shape: cylinder, radius: {RADIUS}, length: 0.1", [90, 0, 30], 1 / 2),
}


def _run(tmp_path, shape, v0, rolling, duration):
    fields, rpy, k = SHAPES[shape]
    d = np.array([np.cos(HEADING), np.sin(HEADING), 0.0])
    lin = v0 * d
    ang = np.cross([0, 0, 1.0], d) * (v0 / RADIUS) if rolling else np.zeros(3)  # ω × (−r z) = v: no slip
    p = tmp_path / f"{shape}_{rolling}.yaml"
    p.write_text(
        f"ground: {{friction: {MU}}}\n"
        "free_bodies:\n"
        f"  - {{name: b, {fields}, mass: {MASS}, friction: {MU}, "
        f"pose: {{xyz: [-1, -0.5, {RADIUS}], rpy_deg: {rpy}}}, "
        f"velocity: {{linear: {lin.tolist()}, angular: {ang.tolist()}}}}}\n"
    )
    w = World.from_scene(p)
    g = np.asarray(w.scene.gravity, float)
    inertia = np.asarray(w.scene.free_body("b").inertia, float)
    out = {"speed": [], "vz": [], "height": [], "energy": [], "fn": [], "slip": [], "w": w, "k": k, "v0": v0}
    for _ in range(int(round(duration / w.dt))):
        w.step()
        b = w.state.bodies["b"]
        rot = pin.Quaternion(b.quaternion[3], *b.quaternion[:3]).toRotationMatrix()
        om = rot.T @ b.angular_velocity
        out["speed"].append(np.linalg.norm(b.linear_velocity))
        out["vz"].append(b.linear_velocity[2])
        out["height"].append(b.position[2])
        out["energy"].append(
            0.5 * MASS * b.linear_velocity @ b.linear_velocity + 0.5 * om @ inertia @ om - MASS * g @ b.position
        )
        r = w.last
        out["fn"].append(float(r.forces_world().sum(0)[2]) if r.batch.m else 0.0)
        out["slip"].append(np.linalg.norm(b.linear_velocity + np.cross(b.angular_velocity, [0, 0, -RADIUS])))
    return {key: (np.array(val) if isinstance(val, list) else val) for key, val in out.items()}


# (shape, rolling) -> (v0 [m/s], duration [s]); the rolling sphere is the review's ball (ω dt = 0.028)
CASES = {("sphere", True): (np.sqrt(2.0), 2.0), ("sphere", False): (1.0, 1.5)}
CASES |= {("cylinder", True): (1.0, 2.0), ("cylinder", False): (1.0, 1.5)}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Each case run once, when a test first asks for it (a run that fails fails its tests only)."""
    tmp, done = tmp_path_factory.mktemp("rolling"), {}

    def get(shape, rolling):
        if (shape, rolling) not in done:
            done[(shape, rolling)] = _run(tmp, shape, *CASES[(shape, rolling)][:1], rolling, CASES[(shape, rolling)][1])
        return done[(shape, rolling)]

    return get


def _power_bound(w):
    """[W] the most power the contact may put in within the solver's stopping tests (module docstring)."""
    g = float(np.linalg.norm(w.scene.gravity))
    return 2.0 * (MASS * g * SETTINGS.tol_penetration + SETTINGS.tol_complementarity)


@pytest.mark.parametrize("shape", list(SHAPES))
def test_rolling_without_slip_keeps_its_energy_height_and_weight(runs, shape):
    r = runs(shape, True)
    w = r["w"]
    e = r["energy"]
    assert np.abs(e - e[0]).max() <= _power_bound(w) * w.t  # 2 s: 4e-5 J of 1.9 J (sphere)
    assert np.abs(r["height"] - RADIUS).max() < 1e-5  # no sinking
    g = float(np.linalg.norm(w.scene.gravity))
    assert np.abs(r["fn"][1:] / (MASS * g) - 1.0).max() < 5e-3  # from the second step (first contact)
    assert r["speed"][-1] == pytest.approx(r["v0"], rel=1e-3)
    assert r["slip"].max() < 1e-3  # [m/s] it rolls
    # the state's velocity is that of the motion the step made: horizontal (the solved velocity
    # turned by the step's rotation would point ω dt v = 0.04 m/s downwards for the sphere)
    assert np.abs(r["vz"][1:]).max() < 1e-6


@pytest.mark.parametrize("shape", list(SHAPES))
def test_thrown_without_spin_rolls_at_the_analytic_speed(runs, shape):
    r = runs(shape, False)
    w = r["w"]
    expected = r["v0"] / (1.0 + r["k"])  # 5/7 v0 (sphere), 2/3 v0 (cylinder)
    assert r["speed"][-1] == pytest.approx(expected, rel=0.01)
    slip_time = r["v0"] * r["k"] / ((1 + r["k"]) * MU * float(np.linalg.norm(w.scene.gravity)))  # 73 / 85 ms
    late = int(round(2 * slip_time / w.dt))
    assert r["slip"][late:].max() < 1e-3  # rolls after twice the analytic slip time
    assert np.ptp(r["speed"][late:]) < 0.01 * expected  # and keeps its speed
    assert np.diff(r["energy"]).max() <= _power_bound(w) * w.dt  # the energy never increases
    assert np.abs(r["height"] - RADIUS).max() < 1e-5
