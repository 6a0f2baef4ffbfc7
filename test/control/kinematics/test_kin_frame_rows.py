"""The compiled frame rows (`humanoid_control.kinematics.frame_rows`) against Pinocchio: its
log3/log6/Jlog3/Jlog6 kernels against ``pin.log3``/``pin.log6``/``pin.Jlog3``/``pin.Jlog6``
(small, generic and near-π rotations: every Taylor and singular branch), and every frame
constraint's rows, alone and batched as the prioritized solver evaluates them, against the
Pinocchio formulas of the constraint table (docs/kinematics.md: ``getFrameJacobian`` LOCAL /
LOCAL_WORLD_ALIGNED, ``actInv``, the adjoint of the relative placement)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.kinematics import Ball, FrameTarget, Weld, load_structure
from humanoid_control.kinematics import frame_rows as fr
from humanoid_control.kinematics.frame_rows import FrameRows

LOCAL, LWA = pin.ReferenceFrame.LOCAL, pin.ReferenceFrame.LOCAL_WORLD_ALIGNED
# agreement with Pinocchio: both compute the same formulas in another order, so they differ by
# rounding, ~1e-15 relative; entries are O(1-10) (HRP-2's reach ~1 m, Jlog6 near π ~ 1/(π-θ)·...)
TOL = 1e-11


@pytest.fixture(scope="module")
def hrp2():
    return load_structure("hrp2")


@pytest.mark.parametrize("angle", [0.0, 1e-12, 1e-6, 1e-3, 0.5, 2.0, np.pi - 1e-3, np.pi - 1e-7, np.pi])
def test_log_kernels_match_pinocchio(angle):
    rng = np.random.default_rng(int(angle * 1e3) + 1)
    for _ in range(5):
        axis = rng.normal(size=3)
        M = pin.SE3(pin.exp3(axis / np.linalg.norm(axis) * angle), rng.normal(size=3))
        R, p = M.rotation, M.translation
        w, theta = fr._log3(R)
        A, B = fr._jlog6(R, p)
        J6 = pin.Jlog6(M)
        assert np.allclose(w, pin.log3(R), rtol=0, atol=TOL)
        assert np.allclose(fr._jlog3(theta, w), pin.Jlog3(R), rtol=0, atol=TOL)
        assert np.allclose(fr._log6(R, p), pin.log6(M).vector, rtol=0, atol=TOL)
        assert np.allclose(A, J6[:3, :3], rtol=0, atol=TOL) and np.allclose(B, J6[:3, 3:], rtol=0, atol=TOL)
        assert np.allclose(J6[3:, :3], 0) and np.allclose(J6[3:, 3:], A, rtol=0, atol=TOL)


def _random_q(s, rng):
    """A configuration with the free flyer moved up to 1 m / 1 rad and every joint within its limits."""
    v = np.zeros(s.model.nv)
    v[:6] = rng.uniform(-1.0, 1.0, 6)
    q = pin.integrate(s.model, s.q0, v)
    q[s.lim_q] = rng.uniform(s.lower, s.upper)
    return q


def _pinocchio_rows(s, c, data):
    """(e, J) of ``c`` by the Pinocchio formulas of docs/kinematics.md's constraint table."""
    m = s.model
    if isinstance(c, FrameTarget):
        M = data.oMf[c.fid]
        if c.mode == "position":
            return M.translation - c.target.translation, pin.getFrameJacobian(m, data, c.fid, LWA)[:3]
        J = pin.getFrameJacobian(m, data, c.fid, LOCAL)
        if c.mode == "pose":
            E = c.target.actInv(M)
            return pin.log6(E).vector, (np.eye(6) if c.first_order else pin.Jlog6(E)) @ J
        R = c.target.rotation.T @ M.rotation
        return pin.log3(R), (np.eye(3) if c.first_order else pin.Jlog3(R)) @ J[3:]
    if isinstance(c, Weld):
        oMa, Ja = data.oMf[c.fa], pin.getFrameJacobian(m, data, c.fa, LOCAL)
        if c.fb is None:
            M = c.anchor.actInv(oMa)
            return pin.log6(M).vector, pin.Jlog6(M) @ Ja
        M = data.oMf[c.fb].actInv(oMa)
        Jb = pin.getFrameJacobian(m, data, c.fb, LOCAL)
        return pin.log6(M).vector, pin.Jlog6(M) @ (Ja - M.inverse().action @ Jb)
    Ja, pa = pin.getFrameJacobian(m, data, c.fa, LWA)[:3], data.oMf[c.fa].translation
    if c.fb is None:
        return pa - c.anchor.translation, Ja
    return pa - data.oMf[c.fb].translation, Ja - pin.getFrameJacobian(m, data, c.fb, LWA)[:3]


def _frame_constraints(s, rng, scale):
    target = pin.SE3(pin.exp3(rng.normal(size=3) * scale), rng.normal(size=3))
    return [
        Weld(s, "weld_world", "r_hand", "world", anchor=target),
        Weld(s, "weld_frames", "r_hand", "l_hand"),
        Weld(s, "weld_feet", "l_sole", "RLEG_SOLE"),
        Ball(s, "ball_world", "r_hand", "world", anchor=target),
        Ball(s, "ball_frames", "r_hand", "l_sole"),
        FrameTarget(s, "r_hand", target, mode="pose"),
        FrameTarget(s, "l_hand", target, mode="position"),
        FrameTarget(s, "r_sole", target, mode="orientation"),
        FrameTarget(s, "l_hand", target, mode="pose", first_order=True),
        FrameTarget(s, "l_sole", target, mode="orientation", first_order=True),
    ]


def test_placements_view_reads_every_frame_of_data(hrp2):
    """The in-place view of data.oMf (frame_rows.placements_view) holds each frame's current
    placement, after each new kinematics pass."""
    data = hrp2.model.createData()
    view = fr.placements_view(data)
    assert view is not None and view.shape == (hrp2.model.nframes, 12)
    for seed in (0, 1):
        hrp2.compute(_random_q(hrp2, np.random.default_rng(seed)), data)
        for f in range(hrp2.model.nframes):
            H = data.oMf[f].homogeneous
            assert np.array_equal(view[f, :9].reshape(3, 3).T, H[:3, :3]) and np.array_equal(view[f, 9:], H[:3, 3])


@pytest.mark.parametrize("view", [True, False], ids=["view", "copy"])
@pytest.mark.parametrize("seed, scale", [(0, 1e-4), (1, 1.0), (2, 3.0)])
def test_frame_rows_alone_and_batched_match_pinocchio(hrp2, seed, scale, view, monkeypatch):
    """Both ways of reading the placements and the fixed references: views of data.oMf's and of
    each reference's storage, and the per-frame copies (the fallbacks when the storage layout is
    not the expected one)."""
    if not view:
        monkeypatch.setattr(fr, "placements_view", lambda data: None)
        monkeypatch.setattr(fr, "se3_row", lambda M: None)
    rng = np.random.default_rng(seed)
    q = _random_q(hrp2, rng)
    cons = _frame_constraints(hrp2, rng, scale)
    data = hrp2.compute(q)
    starts = np.cumsum([0] + [c.dim for c in cons])
    J, e = np.full((starts[-1], hrp2.model.nv), np.nan), np.full(starts[-1], np.nan)
    FrameRows(hrp2.model, list(zip(cons, starts[:-1]))).fill(data, J, e)
    for c, a in zip(cons, starts):
        e_ref, J_ref = _pinocchio_rows(hrp2, c, hrp2.compute(q, hrp2.model.createData()))
        e_one, J_one = c.evaluate(q, data)
        for got_e, got_J in ((e_one, J_one), (e[a : a + c.dim], J[a : a + c.dim])):
            assert np.abs(got_e - e_ref).max() < TOL, c
            assert np.abs(got_J - J_ref).max() < TOL, c


def test_references_changed_in_place_or_replaced_are_read_each_call(hrp2):
    """A fixed reference is read each call through a view of its storage: a target changed in place
    (its translation array written) and a target replaced by another object both show in the
    next rows (e = p - p* for a position target)."""
    data = hrp2.compute(hrp2.q0)
    t = FrameTarget(hrp2, "r_hand", mode="position")
    rows = FrameRows(hrp2.model, [(t, 0)])
    J, e = np.empty((3, hrp2.model.nv)), np.empty(3)
    p = data.oMf[t.fid].translation.copy()
    for shift in ([0.1, 0.0, 0.0], [0.0, -0.2, 0.05]):
        t.target.translation[:] = p + shift  # in place: the same SE3 object
        rows.fill(data, J, e)
        np.testing.assert_allclose(e, -np.array(shift), atol=1e-12)
    t.set_target(p + [0.3, 0.0, 0.0])  # a new object
    rows.fill(data, J, e)
    np.testing.assert_allclose(e, [-0.3, 0.0, 0.0], atol=1e-12)
