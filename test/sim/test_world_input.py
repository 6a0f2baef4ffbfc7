"""What `World` accepts (`humanoid_sim.world`; docs/simulator.md "Checked input"): `World.from_scene`'s keywords (dt in (0, MAX_DT], margin >= 0, solver
settings, a known solver and robot; another robot than the scene's starts in its own default
posture), `step(n)` with a positive integer, `apply_wrench` with a known body and three finite
numbers per vector, actuator commands, body states. Bad input raises a HumanoidStackError
subclass whose message names the field and the value (never a deep NumPy traceback), and
nothing is half-applied."""

import math

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError, HumanoidStackError
from humanoid_model.robot import load_robot
from humanoid_model.scene import load_scene
from humanoid_sim.solvers import SolverSettings
from humanoid_sim.stages.actuators import JointTrajectory
from humanoid_sim.world import World


@pytest.fixture(scope="module")
def drop():
    """The 'sphere_drop' scene (one free body)."""
    return World.from_scene("sphere_drop")


@pytest.fixture(scope="module")
def flat():
    """HRP-2 on 'flat' (robot links as wrench bodies, actuator commands)."""
    return World.from_scene("flat")


# ----------------------------------------------------------------- constructor
@pytest.mark.parametrize(
    "kw, field",
    [
        ({"dt": 1.0}, "dt"),
        ({"dt": 0.1000001}, "dt"),
        ({"dt": 0.0}, "dt"),
        ({"dt": -1e-3}, "dt"),
        ({"dt": math.nan}, "dt"),
        ({"dt": "1e-3"}, "dt"),
        ({"margin": -1}, "margin"),
        ({"margin": math.inf}, "margin"),
        ({"margin": "0.01"}, "margin"),
        ({"solver_settings": "fast"}, "solver_settings"),
        ({"solver_settings": {"max_iter": 10}}, "max_iter"),
    ],
)
def test_world_constructor_rejects_bad_values_naming_the_field(kw, field):
    with pytest.raises(ConfigError) as e:
        World.from_scene("sphere_drop", **kw)
    assert field in str(e.value)


def test_world_constructor_accepts_the_edge_values():
    w = World.from_scene("sphere_drop", dt=0.1, margin=0.0, solver_settings={"max_iterations": 50, "tol_rel": 1e-8})
    assert isinstance(w.solver_settings, SolverSettings)
    assert w.solver_settings.max_iterations == 50 and w.solver_settings.tol_rel == 1e-8
    w.step(2)
    assert w.t == pytest.approx(0.2)


def test_unknown_solver_is_refused_naming_it():
    with pytest.raises(HumanoidStackError, match="magic"):
        World.from_scene("sphere_drop", solver="magic")


def test_unknown_robot_is_refused_naming_it():
    with pytest.raises(HumanoidStackError, match="no_such_robot"):
        World.from_scene("sphere_drop", robot="no_such_robot")


# ----------------------------------------------------------------- another robot than the scene's
def test_from_scene_with_another_robot_uses_its_default_posture():
    """The flat scene is written for HRP-2 in 'half-sitting', a posture BIP does not have: BIP
    starts in its own default posture, placed by the scene's rule (placement composed with the
    posture's base pose)."""
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
    assert scene.robot.posture == "half-sitting"  # the caller's scene is not modified
    w.step(2)
    assert np.all(np.isfinite(w.q))


def test_from_scene_with_the_same_robot_keeps_the_scene_posture():
    scene = load_scene("flat")
    w = World.from_scene(scene, robot="hrp2")
    qr = w.robot.q("half-sitting")
    assert np.allclose(w.q[7 : w.robot.model.nq], qr[7:])


# ----------------------------------------------------------------- step
@pytest.mark.parametrize("n", [-1, 0, 1.5, "3", True, None])
def test_step_count_must_be_a_positive_int(drop, n):
    t = drop.t
    with pytest.raises(ConfigError, match="step"):
        drop.step(n)
    assert drop.t == t


def test_step_accepts_numpy_int(drop):
    t = drop.t
    drop.step(np.int64(2))
    assert drop.t == pytest.approx(t + 2 * drop.dt, abs=1e-15)


# ----------------------------------------------------------------- apply_wrench
@pytest.mark.parametrize(
    "kw, arg, shown",
    [
        ({"force": (1, 2)}, "force", "(1, 2)"),
        ({"force": "abc"}, "force", "'abc'"),
        ({"torque": (1, 2, 3, 4)}, "torque", "(1, 2, 3, 4)"),
        ({"point": (0, math.nan, 0)}, "point", "nan"),
        ({"force": [[1, 2, 3]]}, "force", "[[1, 2, 3]]"),
        # 1e30 N is refused: the next steps would produce garbage
        ({"force": (1e30, 0, 0)}, "force", "magnitude <= 1e+06 [N]"),
        ({"torque": (0, 0, -2e6)}, "torque", "magnitude <= 1e+06 [N m]"),
    ],
)
def test_apply_wrench_bad_vectors_name_argument_and_value(drop, kw, arg, shown):
    body = drop.scene.free_bodies[0].name
    with pytest.raises(ConfigError) as e:
        drop.apply_wrench(body, **kw)
    assert f"'{arg}'" in str(e.value) and shown in str(e.value) and body in str(e.value)
    assert body not in drop.user_wrenches  # nothing half-applied


def test_apply_wrench_refuses_an_unknown_body_and_accepts_a_good_call(drop):
    with pytest.raises(ConfigError, match="'BODY'"):
        drop.apply_wrench("BODY", force=(1, 2, 3))
    with pytest.raises(ConfigError, match="body"):
        drop.apply_wrench(None, force=(1, 2, 3))
    body = drop.scene.free_bodies[0].name
    drop.apply_wrench(body, force=[1, 2, 3])
    assert np.array_equal(drop.user_wrenches[body][0], [1.0, 2.0, 3.0])
    drop.clear_wrenches()


def test_wrench_on_an_unknown_robot_link_is_refused_naming_it(flat):
    with pytest.raises(HumanoidStackError, match="NOT_A_LINK"):
        flat.apply_wrench("NOT_A_LINK", force=(1, 0, 0))


def test_nan_wrench_on_a_robot_link_is_refused(flat):
    with pytest.raises(HumanoidStackError, match="NaN"):
        flat.apply_wrench("RARM_LINK5", force=(np.nan, 0, 0))


def test_a_non_finite_state_stops_the_step_naming_where_and_keeps_the_last_finite_state():
    """NaN written into world.v does not step silently without contacts: the step raises
    NonFiniteStateError naming the start of the step and the bad index, and commits nothing; once
    the state is finite again the world steps on. A NaN made inside the step (here by an actuation
    that returns a NaN torque) names its stage."""
    from humanoid_sim.exceptions import NonFiniteStateError

    w = World.from_scene("flat")
    w.step(3)
    q, t = w.q.copy(), w.t
    w.v[9] = np.nan
    with pytest.raises(
        NonFiniteStateError, match=r"t = 0.003 s \(step 3\), from the state at the start of the step .*v indices \[9\]"
    ):
        w.step()
    assert w.t == t and np.array_equal(w.q, q)
    w.v[9] = 0.0
    w.step()
    assert w.t == pytest.approx(t + w.dt)
    inner = w.actuation

    class NaNTorque:
        def __call__(self, model, data, q, v, t, tau):
            out = inner(model, data, q, v, t, tau)
            tau[10] = np.nan
            return out

        def applied(self, *a):
            return inner.applied(*a)

    w.actuation = NaNTorque()
    q, t = w.q.copy(), w.t
    with pytest.raises(NonFiniteStateError, match="from stage 'actuators'"):
        w.step()
    assert w.t == t and np.array_equal(w.q, q)


# ----------------------------------------------------------------- commands and states
def test_bad_actuator_commands_through_the_world_name_the_field(flat):
    n = flat.n_act
    with pytest.raises(HumanoidStackError, match="positions"):
        flat.actuator.set_position(np.full(n, np.nan))
    with pytest.raises(HumanoidStackError, match="efforts"):
        flat.actuator.set_torque(np.zeros(n + 1))
    with pytest.raises(HumanoidStackError, match="time_from_start"):
        JointTrajectory([0.0, 1.0, 0.5], np.zeros((3, n)))


def test_state_of_an_unknown_body_is_refused_naming_it(flat):
    with pytest.raises(HumanoidStackError, match="nobody"):
        flat.body_state("nobody")


def test_an_external_wrench_command_beyond_the_bound_is_rejected_naming_the_topic(flat):
    """The node's ~/external_wrench check (`commands.check_wrench`) applies the same bound."""
    from humanoid_sim.exceptions import CommandError
    from humanoid_sim.runtime.commands import check_wrench

    with pytest.raises(
        CommandError, match=r"/sim/external_wrench: field 'wrench.force' must be of magnitude <= 1e\+06 \[N\]"
    ):
        check_wrench("BODY", [0, 0, -1e30], [0, 0, 0], flat.model, "hrp2", "/sim/external_wrench")
    link, f, _ = check_wrench("/BODY", [0, 0, -1e6], [0, 0, 0], flat.model, "hrp2", "/sim/external_wrench")
    assert link == "BODY" and f[2] == -1e6
