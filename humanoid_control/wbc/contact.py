"""A contact of the robot with its environment in the whole-body QP: a surface (a sole, a hand's
palm) or a point, held still, pushed by forces inside their friction cones.

The contact's frame has its z axis along the inward normal (into the robot) and its origin at the
contact location's point. Forces act at the surface's k corners (for a point contact k = 1), one
3-D force each, in the contact frame; they make the wrench at the frame's origin, in that frame,

    w = G f,   G = [I … I; [c₁]× … [c_k]×]   (6, 3k),  c_i the corners in the contact frame

which enters the dynamics as J_cᵀ w with J_c the frame's LOCAL Jacobian. In the contact frame G and
the friction rows below are constants of the contact. Corner forces with non-negative normal parts
keep the centre of pressure inside the surface's convex hull, so the surface's forces span its
contact wrench cone (Caron, Pham and Nakamura, "Stability of surface contacts for humanoid
robots", ICRA 2015: the cone of a rectangle is that of its four corners' forces).

Constraints on x = (a, f) per contact:

- held still: J_c a = −J̇_c v − K_d v_c (6 rows, LOCAL; K_d damps a slip the measured state shows);
  a line contact (corners on a line through the frame's origin: a foot's toes or heel) turns
  freely about that line, as no corner force can hold that rotation: the angular rows keep only
  their part across the line (the row along it is zero);
- each corner: f_z ≥ f_min, |f_x| ≤ μ' f_z, |f_y| ≤ μ' f_z (the friction pyramid inscribed in
  the cone of coefficient μ: μ' = μ/√2, so its edges lie on the cone);
- the total normal force Σ f_z ≤ f_max (a contact being loaded or unloaded has f_max ramped,
  `set_max_force`).

The forces of several contacts that give the robot the same motion differ by internal forces (a
squeeze between a hand on a table and the feet on the floor): the tasks do not see them, the QP's
force regularisation chooses them. Each corner force is regularised in its pyramid's own scale,

    f_z² + (f_x² + f_y²) / μ'²         (`force_weights`: 1/μ'², 1/μ'², 1 per corner)

so that a force on a pyramid face costs as much for its tangential part as for its normal one: the
least such cost spends friction only where the motion needs it, as Righetti et al. ("Optimal
distribution of contact forces with inverse-dynamics control", IJRR 2013) weight the tangential
forces to keep the contacts from slipping. With the plain ‖f‖² the least-norm forces of HRP-2
leaning on a table with its right hand pushed the hand sideways to its pyramid's face (the feet's
horizontal forces, 0.6 m below the hand, make the moment more cheaply than their normal forces
would), and the hand slid 31 mm on the table (docs/execution.md).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import ControlError

__all__ = ["Contact", "FRICTION_ROWS", "INFINITY"]

INFINITY = 1e20  # a missing bound of the QP's rows (the solver's infinity)
FRICTION_ROWS = 5  # per corner: the normal bound and the four pyramid faces

LOCAL = pin.ReferenceFrame.LOCAL


def _skew(r):
    return np.array([[0.0, -r[2], r[1]], [r[2], 0.0, -r[0]], [-r[1], r[0], 0.0]])


def _line_axis(corners) -> np.ndarray | None:
    """The unit direction of the line through ``corners`` (k, 3) when there are at least two and
    they lie on one line through the contact frame's origin (within 1e-9 m), else None."""
    if len(corners) < 2:
        return None
    d = corners - corners[0]
    far = d[np.argmax(np.linalg.norm(d, axis=1))]
    if np.linalg.norm(far) < 1e-9:
        return None
    u = far / np.linalg.norm(far)
    return u if np.all(np.linalg.norm(np.cross(corners, u), axis=1) <= 1e-9) else None


class Contact:
    """Contact ``name`` of frame ``fid`` (controller model), with ``corners`` (k, 3) in the
    contact frame [m] (z = 0 for a flat surface; one row: a point contact), friction coefficient
    ``mu``, least corner normal force ``f_min`` [N], largest total normal force ``f_max`` [N] and
    slip damping ``kd`` [1/s]."""

    def __init__(self, name: str, fid: int, corners, mu: float, f_min: float = 0.0, f_max: float = 1e4, kd=10.0):
        corners = np.atleast_2d(np.asarray(corners, float))
        if corners.ndim != 2 or corners.shape[1] != 3 or not np.all(np.isfinite(corners)):
            raise ControlError(f"contact {name!r}: field 'corners' must be (k, 3) finite points; value {corners!r}")
        if not (np.isfinite(mu) and mu > 0):
            raise ControlError(f"contact {name!r}: field 'mu' must be > 0; value {mu!r}")
        self.name, self.fid = name, int(fid)
        self.corners = corners
        self.k = len(corners)
        self.n_force = 3 * self.k
        self.mu = float(mu)
        self.f_min, self.f_max, self.kd = float(f_min), float(f_max), float(kd)
        self.n_rows = FRICTION_ROWS * self.k + 1
        # constants of the contact frame: the generator and the force rows
        self.G = np.zeros((6, self.n_force))
        for i, c in enumerate(corners):
            self.G[:3, 3 * i : 3 * i + 3] = np.eye(3)
            self.G[3:, 3 * i : 3 * i + 3] = _skew(c)
        m = self.mu / np.sqrt(2.0)
        faces = np.array([[0, 0, 1], [1, 0, -m], [-1, 0, -m], [0, 1, -m], [0, -1, -m]], float)
        self.C = np.zeros((self.n_rows, self.n_force))
        self.lo = np.full(self.n_rows, -INFINITY)
        self.up = np.zeros(self.n_rows)
        for i in range(self.k):
            r = FRICTION_ROWS * i
            self.C[r : r + FRICTION_ROWS, 3 * i : 3 * i + 3] = faces
            self.lo[r], self.up[r] = self.f_min, INFINITY
        self.C[-1, 2::3] = 1.0
        self.force_weights = np.tile([1.0 / m**2, 1.0 / m**2, 1.0], self.k)  # the regularisation's (module docstring)
        self.up[-1] = self.f_max
        self.axis = _line_axis(corners)  # the free rotation of a line contact (contact frame), or None

    def set_max_force(self, f_max: float) -> None:
        """The largest total normal force [N] (a ramp to zero unloads the contact before it is broken)."""
        self.f_max = max(float(f_max), 0.0)
        self.up[-1] = self.f_max

    def motion_rows(self, dyn) -> tuple[np.ndarray, np.ndarray]:
        """(J (6, nv), b (6,)): the held-still rows J a = b, in the contact frame."""
        J, drift, vel = dyn.local_frame(self.fid)
        b = -drift - self.kd * vel
        if self.axis is None:
            return J, b
        P = np.eye(6)
        P[3:, 3:] -= np.outer(self.axis, self.axis)  # the angular rows less their part about the line
        return P @ J, P @ b

    def force_rows(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(C (n_rows, 3k), l, u): the friction pyramids, the normal bounds and the total bound."""
        return self.C, self.lo, self.up

    def world_forces(self, dyn, f) -> np.ndarray:
        """The corner forces (k, 3) [N] in world axes of this contact's part ``f`` (3k,) of the solution."""
        return np.asarray(f).reshape(self.k, 3) @ dyn.placement(self.fid).rotation.T
