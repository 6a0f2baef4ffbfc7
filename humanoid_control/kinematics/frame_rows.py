"""The rows of the frame constraints (welds, balls, frame targets), compiled: one call evaluates
every frame row of a task list, the solvers' hot path (docs/kinematics.md, "Measured").

A frame constraint compares the placement oMa of its frame a with a reference placement: another
frame's oMb (``fb``) or a fixed placement (``reference``: a weld's anchor, a target). With
M = ref⁻¹·oMa = (R, p) and the world joint Jacobian Jw of `pin.computeJointJacobians` (columns:
the joints' motion at the world origin, world axes) restricted to the columns supporting each
frame (``D = Jw·[a's joints] - Jw·[b's joints]``: columns common to both branches cancel exactly,
the thesis's sweep stopping at the common ancestor, Flückiger 1998, §5.5.3.2):

    POSE         e = log6(M),  J = Jlog6(M) · Ad(oMa⁻¹)·D          (frame a's axes, LOCAL)
    POSITION     e = pa - pb,  J = (v + ω×pa)[a's joints] - (v + ω×pb)[b's joints]  (world axes)
    ORIENTATION  e = log3(R),  J = Jlog3(R) · Raᵀ·ω(D)

and the first-order rows of the thesis's scheme (Flückiger 1998, §3.4.2.1: the plain Jacobian of the
frame, the error taken as a small displacement), where Jlog6 and Jlog3 are replaced by the identity:

    POSE_FIRST_ORDER         e = log6(M),  J = Ad(oMa⁻¹)·D
    ORIENTATION_FIRST_ORDER  e = log3(R),  J = Raᵀ·ω(D)

A first-order row is blind to the error components outside the frame Jacobian's range: a command along
them moves nothing, exactly (the exact rows couple them with the other components at second order).

which are `closures` and `targets`' formulas (Ad(oMa⁻¹)·D = J_a - Ad(aMb)·J_b in LOCAL axes). The
log3/log6/Jlog3/Jlog6 kernels follow Pinocchio's implementation branch for branch
(``spatial/log.hxx``: the renormalised rotation, Taylor expansions below ε^(1/3) and ε^(1/4), the
θ ≈ π case), so the rows equal Pinocchio's to rounding (`test_kin_frame_rows.py`).

Per cycle the Python side copies the fixed references (one per constraint) and makes one compiled
call, which reads the frames' placements in place from ``data.oMf`` (`placements_view`) and the
joint Jacobian ``data.J``; `FrameRows.fill` is that pass, and each constraint's own ``evaluate`` is
the same pass on a one-constraint `FrameRows`.
"""

from __future__ import annotations

import ctypes
import math

import numpy as np
from numba import njit

from humanoid_control.kinematics.base import Constraint

__all__ = [
    "FrameConstraint", "FrameRows", "POSE", "POSITION", "ORIENTATION", "POSE_FIRST_ORDER",
    "ORIENTATION_FIRST_ORDER", "support_columns", "placements_view", "se3_row",
]  # fmt: skip

POSE, POSITION, ORIENTATION = 0, 1, 2
POSE_FIRST_ORDER, ORIENTATION_FIRST_ORDER = 3, 4
_EPS = np.finfo(float).eps
_PREC2 = _EPS ** (1.0 / 3.0)  # Pinocchio's TaylorSeriesExpansion<double>::precision<2>()
_PREC3 = _EPS ** (1.0 / 4.0)  # precision<3>()


class FrameConstraint(Constraint):
    """A constraint on frame ``fa`` (a Pinocchio frame id) relative to frame ``fb`` or, when
    ``fb`` is None, to the fixed placement `reference` (a ``pin.SE3``); ``row_kind`` is `POSE`,
    `POSITION` or `ORIENTATION`. ``evaluate`` is the compiled pass of this module."""

    fa: int
    fb: int | None = None
    row_kind: int
    model: object

    @property
    def reference(self):
        """The fixed placement frame a is compared with when ``fb`` is None."""
        raise NotImplementedError

    def evaluate(self, q, data):
        key = (self.row_kind, self.fa, self.fb)
        cached = self.__dict__.get("_rows")
        if cached is None or cached[0] != key:
            cached = self.__dict__["_rows"] = (key, FrameRows(self.model, [(self, 0)]))
        rows = cached[1]
        J, e = np.empty((self.dim, self.model.nv)), np.empty(self.dim)
        rows.fill(data, J, e)
        return e, J


def support_columns(model, frame: int) -> np.ndarray:
    """(nv,) bool: the velocity columns of the joints supporting ``frame`` (root to its joint)."""
    mask = np.zeros(model.nv, dtype=bool)
    for j in model.supports[model.frames[frame].parentJoint]:
        if j > 0:
            jm = model.joints[j]
            mask[jm.idx_v : jm.idx_v + jm.nv] = True
    return mask


class FrameRows:
    """The frame constraints of one task list, ``items`` [(constraint, first row)], evaluated
    together: `fill` writes their errors and Jacobian rows into the solver's stacked ``e`` and
    ``J`` with one compiled call (`inputs` are that call's arguments before J and e, for a caller
    that makes the call itself: the prioritized solver's one call per cycle).

    The frames' placements are read in place from ``data.oMf``'s storage (`placements_view`: no
    Python call per frame) when its layout is the one checked there, else copied frame by frame.
    The fixed references (anchors, targets) are copied every call, since they may change in place,
    from a view of each reference's storage kept while the constraint holds the same object
    (`se3_row`; a new target object is looked at once)."""

    def __init__(self, model, items):
        n = len(items)
        self.items = [(k, c) for k, (c, _) in enumerate(items)]
        self.kind = np.array([c.row_kind for c, _ in items], np.int64)
        self.start = np.array([a for _, a in items], np.int64)
        self.support = np.zeros((n, 2, model.nv), dtype=bool)
        for k, (c, _) in enumerate(items):
            self.support[k, 0] = support_columns(model, c.fa)
            if c.fb is not None:
                self.support[k, 1] = support_columns(model, c.fb)
        # frame ids (the row of each frame in the view of data.oMf) and -1 for a fixed reference
        self.ia = np.array([c.fa for c, _ in items], np.int64)
        self.ib = np.array([-1 if c.fb is None else c.fb for c, _ in items], np.int64)
        self.fixed = [(k, c) for k, c in self.items if c.fb is None]
        self._ref_of = [None] * n  # the reference object each row of ``ref`` was last read from, its view
        self._ref_view = [None] * n
        # the copy path: the needed frames, compacted, and their rows in that copy
        self.needed = sorted(set(self.ia.tolist()) | set(self.ib[self.ib >= 0].tolist()))
        row = {f: i for i, f in enumerate(self.needed)}
        self.ia_copy = np.array([row[f] for f in self.ia.tolist()], np.int64)
        self.ib_copy = np.array([row.get(f, -1) for f in self.ib.tolist()], np.int64)
        self.copy = np.empty((len(self.needed), _SE3_DOUBLES))
        self.ref = np.zeros((n, _SE3_DOUBLES))  # rows [R column-major, p] as the placements
        self._data, self._view = None, None

    def inputs(self, data) -> tuple:
        """The arguments of the compiled `_rows` before (J, e), from ``data`` (joint Jacobians and
        frame placements computed) and the references' current values."""
        if data is not self._data:
            self._data, self._view = data, placements_view(data)
        ref, seen, views = self.ref, self._ref_of, self._ref_view
        for k, c in self.fixed:
            M = c.reference
            if M is not seen[k]:
                seen[k], views[k] = M, se3_row(M)
            v = views[k]
            if v is None:
                ref[k].reshape(4, 3)[:] = M.homogeneous[:3].T
            else:
                ref[k] = v
        if self._view is not None:
            return data.J, self._view, self.ia, self.ib, ref, self.kind, self.support, self.start
        oMf, F = data.oMf, self.copy
        for i, f in enumerate(self.needed):
            F[i].reshape(4, 3)[:] = oMf[f].homogeneous[:3].T
        return data.J, F, self.ia_copy, self.ib_copy, ref, self.kind, self.support, self.start

    def fill(self, data, J, e) -> None:
        """Rows of every item from ``data`` (joint Jacobians and frame placements computed)."""
        _rows(*self.inputs(data), J, e)


_SE3_DOUBLES = 12  # a pin.SE3 in memory: its rotation (column-major, 9 doubles), then its translation


def _rows_view(first, R, p, n: int) -> np.ndarray | None:
    """(n, 12) view of ``n`` placements stored from address ``first`` on, or None unless
    placement 0's rotation ``R`` and translation ``p`` sit where that layout puts them."""
    base = R.__array_interface__["data"][0]
    if base != first or p.__array_interface__["data"][0] != base + 72 or R.strides != (8, 24) or p.strides != (8,):
        return None
    buf = (ctypes.c_double * (n * _SE3_DOUBLES)).from_address(base)
    return np.frombuffer(buf, dtype=float).reshape(n, _SE3_DOUBLES)


def se3_row(M) -> np.ndarray | None:
    """(12,) view [R column-major, p] of the ``pin.SE3`` ``M``'s storage (NumPy gets its rotation
    and translation as views of it), or None when its layout is not that one. The caller keeps
    ``M`` alive with the view."""
    R = M.rotation
    view = _rows_view(R.__array_interface__["data"][0], R, M.translation, 1)
    return None if view is None else view[0]


def placements_view(data) -> np.ndarray | None:
    """(nframes, 12) view of ``data.oMf``'s storage, row f = frame f's [R column-major, p], or
    None when its layout is not that one. Checked frame by frame: each frame's rotation and
    translation arrays (which NumPy gets as views of that storage) must sit at base + f·96 bytes
    and base + f·96 + 72 bytes, the rotation Fortran-ordered. The view reads the current
    placements without a Python call per frame; the caller keeps ``data`` alive with it
    (`FrameRows` holds both), and Pinocchio never reallocates ``oMf`` after ``createData``."""
    oMf = data.oMf
    n, size = len(oMf), 8 * _SE3_DOUBLES
    if n == 0:
        return None
    base = oMf[0].rotation.__array_interface__["data"][0]
    for f in range(n):
        M = oMf[f]
        if _rows_view(base + f * size, M.rotation, M.translation, 1) is None:
            return None
    return _rows_view(base, oMf[0].rotation, oMf[0].translation, n)


# ------------------------------------------------------------------------------------ kernels
@njit(cache=True)
def _cross(a, b):
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]])


@njit(cache=True)
def _mul(A, B):
    """A·B for a (3, 3) A (loops: no BLAS call for these sizes)."""
    out = np.zeros((3, B.shape[1]))
    for i in range(3):
        for k in range(3):
            a = A[i, k]
            for j in range(B.shape[1]):
                out[i, j] += a * B[k, j]
    return out


@njit(cache=True)
def _shifted(Jw, j, p):
    """v + ω×p of column j of the world Jacobian: the velocity of the point p (world axes), 3 floats."""
    wx, wy, wz = Jw[3, j], Jw[4, j], Jw[5, j]
    return Jw[0, j] + wy * p[2] - wz * p[1], Jw[1, j] + wz * p[0] - wx * p[2], Jw[2, j] + wx * p[1] - wy * p[0]


@njit(cache=True)
def _theta_axis(i0, val, R):
    """Pinocchio's ``internal::compute_theta_axis<i0>``: (θ, axis) near θ = π from column i0."""
    i1, i2 = (i0 + 1) % 3, (i0 + 2) % 3
    s = math.sqrt(val + _EPS + _EPS * _EPS) * (1.0 if R[i2, i1] >= R[i1, i2] else -1.0)
    axis = np.empty(3)
    axis[i0] = s / 2.0
    axis[i1] = 1.0 / (2.0 * s) * (R[i1, i0] + R[i0, i1])
    axis[i2] = 1.0 / (2.0 * s) * (R[i2, i0] + R[i0, i2])
    w = 1.0 / (2.0 * s) * (R[i2, i1] - R[i1, i2])
    n = math.sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2])
    return 2.0 * math.atan2(n, w), axis / n


@njit(cache=True)
def _log3(R):
    """(ω (3,), θ): Pinocchio's ``log3`` (rotation renormalised first; θ in [0, π])."""
    Rn = np.empty((3, 3))
    c0 = R[:, 0] / math.sqrt(R[0, 0] ** 2 + R[1, 0] ** 2 + R[2, 0] ** 2)
    c1 = R[:, 1] / math.sqrt(R[0, 1] ** 2 + R[1, 1] ** 2 + R[2, 1] ** 2)
    c2 = _cross(c0, c1)
    Rn[:, 0], Rn[:, 1], Rn[:, 2] = _cross(c1, c2), c1, c2
    tr = Rn[0, 0] + Rn[1, 1] + Rn[2, 2]
    cos_value = (tr - 1.0) / 2.0
    anti = 0.5 * np.array([Rn[2, 1] - Rn[1, 2], Rn[0, 2] - Rn[2, 0], Rn[1, 0] - Rn[0, 1]])
    if cos_value < -1.0 + _PREC2:  # θ near π: the axis from the largest diagonal entry
        val = 2.0 * np.array([Rn[0, 0], Rn[1, 1], Rn[2, 2]]) - tr + 1.0
        if val[0] >= val[1]:
            i = 0 if val[0] >= val[2] else 2
        else:
            i = 1 if val[1] >= val[2] else 2
        theta, axis = _theta_axis(i, val[i], Rn)
        return theta * axis, theta
    acos_expansion = math.sqrt(2.0 * (1.0 - cos_value) + _EPS * _EPS)
    if tr > 3.0 - _PREC2:
        theta = acos_expansion
    elif tr >= -1.0 + _PREC2:
        theta = math.acos(cos_value)
    else:
        theta = math.pi - acos_expansion
    if theta >= _PREC2:
        t = theta / math.sin(theta)
    else:
        n2 = anti[0] ** 2 + anti[1] ** 2 + anti[2] ** 2
        t = 1.0 + n2 / 6.0 + n2 * n2 * 3.0 / 40.0
    return t * anti, theta


@njit(cache=True)
def _jlog3(theta, w):
    """Pinocchio's ``Jlog3(θ, ω)`` (3, 3)."""
    if theta < _PREC3:
        alpha = 1.0 / 12.0 + theta * theta / 720.0
        diag = 0.5 * (2.0 - theta * theta / 6.0)
    else:
        st_1mct = math.sin(theta) / (1.0 - math.cos(theta))
        alpha = 1.0 / (theta * theta) - st_1mct / (2.0 * theta)
        diag = 0.5 * (theta * st_1mct)
    J = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            J[i, j] = alpha * w[i] * w[j]
        J[i, i] += diag
    _add_skew(J, 0.5 * w)
    return J


@njit(cache=True)
def _add_skew(M, v):
    """M += [v]×."""
    M[0, 1] -= v[2]
    M[0, 2] += v[1]
    M[1, 0] += v[2]
    M[1, 2] -= v[0]
    M[2, 0] -= v[1]
    M[2, 1] += v[0]


@njit(cache=True)
def _log6(R, p):
    """Pinocchio's ``log6`` of (R, p): [v; ω] (6,)."""
    anti = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    t2 = anti[0] ** 2 + anti[1] ** 2 + anti[2] ** 2
    tr = R[0, 0] + R[1, 1] + R[2, 2]
    w, theta = _log3(R)
    if tr >= 3.0 - _PREC2:
        alpha = 1.0 - t2 / 12.0 - t2 * t2 / 720.0
        beta = 1.0 / 12.0 + t2 / 720.0
    else:
        st, ct = math.sin(theta), math.cos(theta)
        alpha = theta * st / (2.0 * (1.0 - ct))
        beta = 1.0 / (theta * theta) - st / (2.0 * theta * (1.0 - ct))
    wp = _cross(w, p)
    bwp = beta * (w[0] * p[0] + w[1] * p[1] + w[2] * p[2])
    out = np.empty(6)
    for i in range(3):
        out[i] = alpha * p[i] - 0.5 * wp[i] + bwp * w[i]
        out[3 + i] = w[i]
    return out


@njit(cache=True)
def _jlog6(R, p):
    """Pinocchio's ``Jlog6`` of (R, p) as its blocks (A, B): [[A, B], [0, A]]."""
    w, t = _log3(R)
    A = _jlog3(t, w)
    t2 = t * t
    if t < _PREC3:
        beta = 1.0 / 12.0 + t2 / 720.0
        beta_dot_over_theta = 1.0 / 360.0
    else:
        tinv = 1.0 / t
        t2inv = tinv * tinv
        st, ct = math.sin(t), math.cos(t)
        inv_2_2ct = 1.0 / (2.0 * (1.0 - ct))
        beta = t2inv - st * tinv * inv_2_2ct
        beta_dot_over_theta = -2.0 * t2inv * t2inv + (1.0 + st * tinv) * t2inv * inv_2_2ct
    wTp = w[0] * p[0] + w[1] * p[1] + w[2] * p[2]
    v3 = (beta_dot_over_theta * wTp) * w - (t2 * beta_dot_over_theta + 2.0 * beta) * p
    C = np.empty((3, 3))
    for i in range(3):
        for j in range(3):
            C[i, j] = v3[i] * w[j] + beta * w[i] * p[j]
        C[i, i] += wTp * beta
    _add_skew(C, 0.5 * p)
    return A, _mul(C, A)


@njit(cache=True)
def _placement(row):
    """(R (3, 3), p (3,)) of a placement row [R column-major, p]."""
    return row[:9].reshape((3, 3)).T, row[9:12]


@njit(cache=True)
def _rows(Jw, F, ia, ib, ref, kind, support, start, J, e):
    """Rows of frame constraints k = 0.. into J[start[k]:] and e[start[k]:] (module docstring):
    frame a's placement is row ia[k] of F (rows [R column-major, p]), the reference's row ib[k] of
    F or, when ib[k] < 0, row k of ``ref`` (same layout); ``support[k, 0]`` and ``support[k, 1]``:
    the columns supporting a and b."""
    nv = Jw.shape[1]
    for k in range(kind.shape[0]):
        a0 = start[k]
        Ra, pa = _placement(F[ia[k]])
        if ib[k] >= 0:
            Rb, pb = _placement(F[ib[k]])
        else:
            Rb, pb = _placement(ref[k])
        sa, sb = support[k, 0], support[k, 1]
        if kind[k] == POSITION:
            for i in range(3):
                e[a0 + i] = pa[i] - pb[i]
            for j in range(nv):
                x = y = z = 0.0
                if sa[j]:
                    x, y, z = _shifted(Jw, j, pa)
                if sb[j]:
                    xb, yb, zb = _shifted(Jw, j, pb)
                    x, y, z = x - xb, y - yb, z - zb
                J[a0, j], J[a0 + 1, j], J[a0 + 2, j] = x, y, z
            continue
        R = _mul(Rb.T, Ra)
        # D's columns in frame a's axes: ω_l = Raᵀ·ω, v_l = Raᵀ·(v + ω×pa)
        L = np.zeros((6, nv))
        for j in range(nv):
            d = (1.0 if sa[j] else 0.0) - (1.0 if sb[j] else 0.0)
            if d != 0.0:
                vx, vy, vz = _shifted(Jw, j, pa)
                for i in range(3):
                    L[i, j] = d * (Ra[0, i] * vx + Ra[1, i] * vy + Ra[2, i] * vz)
                    L[3 + i, j] = d * (Ra[0, i] * Jw[3, j] + Ra[1, i] * Jw[4, j] + Ra[2, i] * Jw[5, j])
        if kind[k] == ORIENTATION or kind[k] == ORIENTATION_FIRST_ORDER:
            w, theta = _log3(R)
            A = _jlog3(theta, w) if kind[k] == ORIENTATION else np.eye(3)
            for i in range(3):
                e[a0 + i] = w[i]
                for j in range(nv):
                    J[a0 + i, j] = A[i, 0] * L[3, j] + A[i, 1] * L[4, j] + A[i, 2] * L[5, j]
            continue
        p = _mul(Rb.T, (pa - pb).reshape((3, 1)))[:, 0]
        e[a0 : a0 + 6] = _log6(R, p)
        if kind[k] == POSE_FIRST_ORDER:
            for i in range(6):
                for j in range(nv):
                    J[a0 + i, j] = L[i, j]
            continue
        A, B = _jlog6(R, p)
        for i in range(3):
            for j in range(nv):
                J[a0 + i, j] = (
                    A[i, 0] * L[0, j] + A[i, 1] * L[1, j] + A[i, 2] * L[2, j]
                    + B[i, 0] * L[3, j] + B[i, 1] * L[4, j] + B[i, 2] * L[5, j]
                )  # fmt: skip
                J[a0 + 3 + i, j] = A[i, 0] * L[3, j] + A[i, 1] * L[4, j] + A[i, 2] * L[5, j]
