"""A contact of the whole-body QP (`humanoid_control.wbc.contact.Contact`): the corner forces'
wrench, the friction pyramids, the normal bounds, the total normal force and the world forces.

The wrench is compared with the sum of the corner forces and of their moments computed by hand;
the force rows are checked on forces built on the friction cone's surface (the pyramid's edges lie
on the cone of coefficient μ, its faces inside it)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.contact import Contact

MU = 0.6
RECT = np.array([[-0.1, -0.05, 0.0], [0.12, -0.05, 0.0], [0.12, 0.07, 0.0], [-0.1, 0.07, 0.0]])
ROW_TOL = 1e-12  # [N] a force on a row's boundary is accepted up to rounding


def _accepts(contact, f, tol=ROW_TOL) -> bool:
    C, lo, up = contact.force_rows()
    r = C @ np.asarray(f, float).ravel()
    return bool(np.all(r >= lo - tol) and np.all(r <= up + tol))


def test_corner_forces_make_the_wrench_the_generator_says():
    rng = np.random.default_rng(0)
    for k in (1, 3, 4, 6):
        corners = rng.uniform(-0.2, 0.2, size=(k, 3))
        c = Contact("x", 0, corners, MU)
        f = rng.normal(size=(k, 3)) * 50.0
        force = f.sum(axis=0)
        moment = sum(np.cross(p, fi) for p, fi in zip(corners, f, strict=True))
        assert np.allclose(c.G @ f.ravel(), np.r_[force, moment], rtol=0, atol=1e-12)


def test_a_point_contact_has_one_corner_and_no_moment():
    c = Contact("p", 0, [0.0, 0.0, 0.0], MU)
    assert c.k == 1 and c.n_force == 3
    assert np.array_equal(c.G, np.vstack([np.eye(3), np.zeros((3, 3))]))
    assert c.n_rows == 6  # five pyramid rows and the total


@pytest.mark.parametrize("fz", [1.0, 37.5, 400.0])
def test_the_pyramids_edges_lie_on_the_friction_cone_and_are_accepted(fz):
    c = Contact("sole", 0, RECT, MU)
    m = MU / np.sqrt(2.0)
    for sx, sy in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        edge = np.array([sx * m * fz, sy * m * fz, fz])
        assert np.hypot(edge[0], edge[1]) == pytest.approx(MU * fz, rel=1e-12)  # on the cone
        for i in range(c.k):  # at each corner in turn, the others unloaded
            f = np.zeros((c.k, 3))
            f[i] = edge
            assert _accepts(c, f)


@pytest.mark.parametrize("fz", [1.0, 400.0])
def test_a_force_just_outside_a_pyramid_face_is_refused(fz):
    c = Contact("sole", 0, RECT, MU)
    m = MU / np.sqrt(2.0)
    for axis in (0, 1):
        for sign in (1, -1):
            inside = np.array([0.0, 0.0, fz])
            inside[axis] = sign * m * fz * (1 - 1e-9)
            outside = inside.copy()
            outside[axis] = sign * m * fz * (1 + 1e-9)
            for i in range(c.k):
                f = np.zeros((c.k, 3))
                f[i] = inside
                assert _accepts(c, f, tol=0.0)
                f[i] = outside
                assert not _accepts(c, f, tol=0.0)


def test_a_pulling_corner_and_a_corner_below_the_least_normal_force_are_refused():
    c = Contact("sole", 0, RECT, MU, f_min=5.0)
    f = np.tile([0.0, 0.0, 5.0], (4, 1))
    assert _accepts(c, f, tol=0.0)  # every corner at f_min
    f[2, 2] = 5.0 - 1e-9
    assert not _accepts(c, f, tol=0.0)
    free = Contact("sole", 0, RECT, MU)
    g = np.zeros((4, 3))
    assert _accepts(free, g, tol=0.0)  # no force at all: allowed with f_min = 0
    g[1, 2] = -1e-9
    assert not _accepts(free, g, tol=0.0)


def test_the_total_normal_force_row_bounds_the_sum_of_the_corners_normal_forces():
    c = Contact("sole", 0, RECT, MU, f_max=100.0)
    f = np.tile([0.0, 0.0, 25.0], (4, 1))  # 100 N in all
    assert _accepts(c, f, tol=0.0)
    f[0, 2] += 1e-9
    assert not _accepts(c, f, tol=0.0)
    C, lo, up = c.force_rows()
    row = C[-1]
    assert np.array_equal(row, np.tile([0.0, 0.0, 1.0], 4)) and up[-1] == 100.0


def test_set_max_force_moves_the_total_bound_and_never_below_zero():
    c = Contact("sole", 0, RECT, MU, f_max=1e4)
    c.set_max_force(60.0)
    f = np.tile([0.0, 0.0, 15.0], (4, 1))
    assert c.f_max == 60.0 and _accepts(c, f, tol=0.0)
    c.set_max_force(59.0)
    assert not _accepts(c, f, tol=0.0)
    c.set_max_force(-3.0)  # a ramp that overshoots: the contact carries nothing
    assert c.f_max == 0.0
    assert _accepts(c, np.zeros((4, 3)), tol=0.0)
    assert not _accepts(c, np.tile([0.0, 0.0, 1e-9], (4, 1)), tol=0.0)


class _Dyn:
    """A stand-in for `RobotDynamics` that places every frame at ``M``."""

    def __init__(self, M):
        self.M = M

    def placement(self, fid):
        return self.M


def test_world_forces_rotate_each_corner_force_by_the_contact_frames_rotation():
    c = Contact("wall", 3, RECT, MU)
    R = pin.rpy.rpyToMatrix(0.0, 0.0, np.pi / 2)  # x -> y, y -> -x
    f = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 4.0], [5.0, 6.0, 7.0], [0.0, 0.0, 1.0]])
    out = c.world_forces(_Dyn(pin.SE3(R, np.array([1.0, 2.0, 3.0]))), f.ravel())
    expected = np.array([[0.0, 1.0, 2.0], [-3.0, 0.0, 4.0], [-6.0, 5.0, 7.0], [0.0, 0.0, 1.0]])
    assert np.allclose(out, expected, rtol=0, atol=1e-12)
    wall = np.column_stack([[0.0, 0.0, -1.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]])  # contact z (normal) along world +x
    out = c.world_forces(_Dyn(pin.SE3(wall, np.zeros(3))), np.tile([0.0, 0.0, 10.0], 4))
    assert np.allclose(out, np.tile([10.0, 0.0, 0.0], (4, 1)), rtol=0, atol=1e-12)


@pytest.mark.parametrize(
    "corners, mu",
    [
        (np.zeros((4, 2)), MU),
        ([[0.0, np.nan, 0.0]], MU),
        (RECT, 0.0),
        (RECT, -0.5),
        (RECT, np.inf),
        (RECT, np.nan),
    ],
)
def test_malformed_corners_or_friction_are_control_errors(corners, mu):
    with pytest.raises(ControlError, match="contact 'bad'"):
        Contact("bad", 0, corners, mu)


class _Frame:
    """A stand-in for `RobotDynamics.local_frame`: a frame's Jacobian, drift and velocity."""

    def __init__(self, rng, nv=9):
        self.J, self.drift, self.vel = rng.normal(size=(6, nv)), rng.normal(size=6), rng.normal(size=6)

    def local_frame(self, fid):
        return self.J, self.drift, self.vel


def test_a_line_contact_turns_freely_about_its_line_and_a_surface_is_held_still():
    """A foot on its toes (two corners on a line through the contact frame's origin) keeps its
    point still and may turn about the line, as no corner force can hold that rotation; a surface,
    a point and corners on a line off the origin are held still (all 6 rows)."""
    dyn = _Frame(np.random.default_rng(1))
    held = -dyn.drift - 10.0 * dyn.vel
    toe = Contact("toe", 0, [[0.0, -0.07, 0.0], [0.0, 0.07, 0.0]], MU)
    J, b = toe.motion_rows(dyn)
    kept = [0, 1, 2, 3, 5]  # the toe point's motion, the rotations across the line
    assert np.allclose(J[kept], dyn.J[kept]) and np.allclose(b[kept], held[kept])
    assert np.all(J[4] == 0.0) and b[4] == 0.0  # the rotation about the toe line (y) is free
    assert not np.any(toe.G[4])  # ... and no corner force has a moment about it
    skew = Contact("edge", 0, [[-0.03, -0.04, 0.0], [0.03, 0.04, 0.0]], MU)  # a line along (0.6, 0.8, 0)
    J, _ = skew.motion_rows(dyn)
    assert np.allclose(np.array([0.6, 0.8, 0.0]) @ J[3:], 0.0, atol=1e-12)
    for corners in (RECT, [[0.0, 0.0, 0.0]], [[0.05, -0.07, 0.0], [0.05, 0.07, 0.0]]):
        J, b = Contact("held", 0, corners, MU).motion_rows(dyn)
        assert np.array_equal(J, dyn.J) and np.allclose(b, held)


def test_the_force_regularisation_costs_a_force_on_a_pyramid_face_as_much_tangentially_as_normally():
    """Each corner's weights are (1/μ'², 1/μ'², 1), μ' = μ/√2: a force on a face (|f_x| = μ' f_z)
    costs the same for its tangential and its normal part; the QP's Hessian carries them, scaled by
    the force regularisation, after the accelerations' block."""
    from humanoid_control.wbc.problem import Layout

    c = Contact("s", 0, RECT, MU)
    w = c.force_weights.reshape(c.k, 3)
    assert np.allclose(w, [2.0 / MU**2, 2.0 / MU**2, 1.0], rtol=1e-12)
    m = MU / np.sqrt(2.0)
    f = np.array([m * 10.0, 0.0, 10.0])  # on the face |f_x| = μ' f_z
    assert _accepts(Contact("p", 0, [0.0, 0.0, 0.0], MU), f)
    assert np.isclose(w[0, 0] * f[0] ** 2, w[0, 2] * f[2] ** 2, rtol=1e-12)
    point = Contact("p", 0, [0.0, 0.0, 0.0], 0.4)
    layout = Layout([c, point], 8, 2, 1e-6, 1e-8)
    assert np.allclose(
        np.diag(layout.H0), np.r_[np.full(8, 1e-6), 1e-8 * c.force_weights, 1e-8 * np.array([12.5, 12.5, 1.0])]
    )
