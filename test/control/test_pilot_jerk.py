"""The pilot's optional jerk-limited command filter (humanoid_control.pilot_jerk): a step command
is followed within the speed, acceleration and jerk limits (finite differences of the commands
sent), in the analytic time of a jerk-limited rest-to-rest move, and settles exactly on it; in a
`PilotSession` it bounds the jerk of a slider's step, which the step limiter alone does not, and
is off by default."""

import numpy as np
import pytest

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics import load_structure
from humanoid_control.pilot_jerk import JerkFilter
from humanoid_control.piloting import PilotSession

SLACK = 1e-6  # (chosen) relative rounding allowed on a limit by finite differences


def differences(commands, dt, start):
    """(|speed|, |acceleration|, |jerk|) largest over the commands (m, n), every ``dt`` [s], after
    rest at ``start`` (n,)."""
    c = np.vstack([np.asarray(start, float)[None, :]] * 3 + [commands])
    return tuple(float(np.abs(np.diff(c, k, axis=0)).max()) / dt**k for k in (1, 2, 3))


def test_a_step_command_is_followed_within_the_limits_in_the_jerk_limited_time():
    """0.5 rad (and -0.2 rad, phase-free) at v 1 rad/s, a 10 rad/s², j 100 rad/s³: the fastest move
    ramps the acceleration to sqrt(v j) = 10 in sqrt(v / j) = 0.1 s and back (0.2 s, 0.1 rad), cruises
    0.3 rad, brakes alike: T = 0.7 s for the largest step."""
    dt = 0.01
    f = JerkFilter([0, 1], [1.0, 1.0], 10.0, 100.0, dt)
    f.reset(np.zeros(2))
    target = np.array([0.5, -0.2])
    out = np.array([f.update(target) for _ in range(100)])
    speed, accel, jerk = differences(out, dt, np.zeros(2))
    assert speed <= 1.0 * (1 + SLACK) and accel <= 10.0 * (1 + SLACK) and jerk <= 100.0 * (1 + SLACK)
    arrived = int(np.flatnonzero(np.abs(out[:, 0] - 0.5) < 1e-9)[0]) + 1  # cycles to reach it
    assert arrived * dt == pytest.approx(0.7, abs=dt + 1e-9)
    np.testing.assert_allclose(out[-1], target, atol=1e-12)
    np.testing.assert_allclose(f.velocities, 0.0, atol=1e-12)


def slider_step(jerk):
    """(filtered commands or None, solved joint positions, dt [s], start joint positions) of 40 cycles of the planar hybrid robot
    with joint2's slider jumped by 0.4 rad."""
    s = load_structure("hybrid_planar")
    session = PilotSession(s, jerk=jerk)
    session.set_control("direct")
    iq = [s.joint_index(n)[0] for n in s.joint_names]
    k = s.joint_names.index("joint2")
    start = session.q[iq].copy()
    assert session.set_joint("joint2", float(session.q[iq[k]]) + 0.4)
    states = [session.step() for _ in range(40)]
    solved = np.array([st.q[iq] for st in states])
    commands = None if jerk is None else np.array([st.command for st in states])
    return commands, solved, 1.0 / session.rate, start


def test_the_filter_bounds_the_jerk_of_a_slider_step_and_settles_on_it():
    commands, solved, dt, start = slider_step(100.0)
    assert differences(solved, dt, start)[2] > 2 * 100.0  # the step limiter alone steps the acceleration
    speed, accel, jerk = differences(commands, dt, start)
    assert jerk <= 100.0 * (1 + SLACK) and accel <= 10.0 * (1 + SLACK)
    np.testing.assert_allclose(commands[-1], solved[-1], atol=1e-9)  # settled where the solver is


def test_the_filter_is_off_by_default_and_its_jerk_must_be_positive():
    commands = slider_step(None)[0]
    assert commands is None
    with pytest.raises(KinematicsError, match="jerk"):
        PilotSession(load_structure("hybrid_planar"), jerk=0.0)
