"""Sole coupling operator (`humanoid_sim.soles.coupling`; Chardonnet 2009, §4.3.4,
eq. (4.21) with the three corrections the module names) on hand-built cases and through the NSGS-Newton solver."""

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError
from humanoid_sim.soles import CondensedSole, box_sole
from humanoid_sim.soles.coupling import (
    add_coupling,
    contact_displacements,
    coupled_problem,
    frame_rotation,
    node_loads,
    sole_coupling,
)
from humanoid_sim.solvers import ContactProblem, SolverSettings, get_solver

DT = 1e-3  # [s] the thesis's step (Chardonnet 2009, §3.1.6.1)
FLAT = np.array([[[0.0, 0, 1], [1, 0, 0], [0, 1, 0]]])  # rows (n, t1, t2): n = +z into the sole
RZ90 = np.array([[0.0, -1, 0], [1, 0, 0], [0, 0, 1]])  # sole yawed by 90°: sole x -> world y, sole y -> world -x


def test_compliance_is_rotated_into_the_contact_frame_by_hand():
    a, b, c, e = 1e-6, 2e-6, 3e-6, 0.4e-6  # [m/N] sole-frame compliance, with an x–y coupling e
    C = np.array([[a, e, 0], [e, b, 0], [0, 0, c]])
    dW, dv = sole_coupling(C, FLAT, DT, U_prev=[0.0, 0.0, 5e-5], sole_rotation=RZ90)
    # n = world z = sole z; t1 = world x = −sole y; t2 = world y = sole x
    expected = np.array([[c, 0, 0], [0, b, -e], [0, -e, a]]) / DT
    assert np.abs(dW - expected).max() <= 1e-12 * np.abs(expected).max()
    assert dv == pytest.approx([-5e-5 / DT, 0, 0], abs=1e-15)  # −U_c^t/dt (correction 2)


def test_contacts_of_one_sole_are_coupled_and_the_block_is_spd():
    sole = CondensedSole(box_sole(resolution=0.02))
    nodes = sole.mesh.bottom_nodes[[0, 1, 5]]
    dW, _ = sole_coupling(sole.contact_compliance(nodes), np.repeat(FLAT, 3, axis=0), DT)
    assert np.abs(dW[0:3, 3:6]).max() > 0.05 * np.abs(dW[0:3, 0:3]).max()  # dense K_c⁻¹: off-diagonal blocks
    assert np.linalg.eigvalsh(dW)[0] > 0


def test_blockwise_kernels_equal_the_dense_t_c_tt_form():
    """The World step's in-place kernels (`add_coupling`, `node_loads`: block by block, no T) give
    the dense forms T C Tᵀ/dt, −T U/dt (`sole_coupling`) and Tᵀ f with random contact frames, a
    tilted sole and the dense compliance of 5 nodes of a real sole, placed in the middle of a
    larger W (rows outside the sole's untouched)."""
    rng = np.random.default_rng(7)
    sole = CondensedSole(box_sole(resolution=0.02))
    C = sole.contact_compliance(sole.mesh.bottom_nodes[[0, 1, 5, 9, 30]])
    frames = np.array([np.linalg.qr(rng.normal(size=(3, 3)))[0].T for _ in range(5)])
    R = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    R *= np.sign(np.linalg.det(R))
    U = rng.normal(size=15) * 1e-5
    dW, dv = sole_coupling(C, frames, DT, U_prev=U, sole_rotation=R)
    W0 = rng.normal(size=(21, 21))
    W0 = W0 @ W0.T
    v0 = rng.normal(size=21)
    W, v = W0.copy(), v0.copy()
    add_coupling(W, v, 3, C, frames, R, U, DT)
    assert np.array_equal(W, W.T)
    assert np.abs(W - W0)[3:18, 3:18].max() > 0 and np.array_equal(np.delete(W - W0, np.s_[3:18], 0), np.zeros((6, 21)))
    assert np.abs(W[3:18, 3:18] - W0[3:18, 3:18] - dW).max() <= 1e-12 * np.abs(dW).max()
    assert np.abs(v[3:18] - v0[3:18] - dv).max() <= 1e-12 * np.abs(dv).max() and np.array_equal(v[:3], v0[:3])
    f = rng.normal(size=(5, 3))
    assert node_loads(f, frames, R) == pytest.approx(frame_rotation(frames, R).T @ f.reshape(-1), abs=1e-14)


def test_resting_block_on_a_compressed_sole_is_a_fixed_point_of_the_solver():
    """A 10 kg point mass on one sole node: W_rigid = dt/m I3 (= dt Λ, correction 1), v_free = −g dt
    along n. With U_c^t = K_c⁻¹ (m g) the exact solution is f = (m g, 0, 0) with v = 0; from an
    undeformed sole f = g dt / (dt/m + c/dt) (one step of the spring)."""
    mass, g, c = 10.0, 9.81, 2e-6
    W_rigid, v_free = DT / mass * np.eye(3), np.array([-g * DT, 0, 0])
    C = np.diag([c, c, c])
    solver, settings = get_solver("nsgs_newton"), SolverSettings(tol_rel=1e-12, tol_complementarity=1e-12)
    U_rest = contact_displacements(C, FLAT, [mass * g, 0, 0])
    assert U_rest[0] == pytest.approx([0, 0, c * mass * g], abs=1e-18)
    W, V = coupled_problem(W_rigid, v_free, C, FLAT, DT, U_prev=U_rest)
    r = solver.solve(ContactProblem(W, V, 0.8), settings=settings)
    assert r.impulses == pytest.approx([mass * g, 0, 0], rel=1e-9, abs=1e-9)
    assert np.abs(r.velocities).max() < 1e-9
    W, V = coupled_problem(W_rigid, v_free, C, FLAT, DT)
    r = solver.solve(ContactProblem(W, V, 0.8), settings=settings)
    assert r.impulses[0] == pytest.approx(g * DT / (DT / mass + c / DT), rel=1e-9)


def test_bad_coupling_input_is_refused():
    with pytest.raises(ConfigError, match="field 'compliance'"):
        sole_coupling(np.eye(6), FLAT, DT)
    with pytest.raises(ConfigError, match="field 'dt'"):
        sole_coupling(np.eye(3), FLAT, 0.0)
    with pytest.raises(ConfigError, match="field 'sole_rotation'"):
        sole_coupling(np.eye(3), FLAT, DT, sole_rotation=2 * np.eye(3))
