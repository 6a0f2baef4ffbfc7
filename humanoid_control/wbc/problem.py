"""The whole-body QP's matrices for one control cycle (`humanoid_control.wbc.controller` states the
problem): x = (a, f), with a (nv,) the joint accelerations and f the active contacts' corner
forces, one 3-D force per corner in its contact's frame.

    H, g            Σ_tasks w AᵀA, −Σ w Aᵀb, plus the regularisations on a and f (each contact's
                    corner forces weighted by its `Contact.force_weights`)
    A_eq x = b_eq   the floating base's rows of the dynamics, then 6 rows per contact
    lo ≤ C x ≤ up   each contact's force rows, then the actuated joints' torque rows
    box_lo ≤ x ≤ box_up    the actuated joints' acceleration bounds (the solver's box constraints)

The parts that depend only on the set of active contacts (sizes, force rows, regularisation) are
built once per set (`Layout`) and copied each cycle.
"""

from __future__ import annotations

import numpy as np

from humanoid_control.wbc.contact import INFINITY

__all__ = ["Layout", "build"]


class Layout:
    """The constant part of the QP for ``contacts`` (in this order), ``nv`` accelerations and
    ``n_act`` actuated joints (the last n_act of a), with regularisations ``reg_a`` and ``reg_f``."""

    def __init__(self, contacts, nv: int, n_act: int, reg_a: float, reg_f: float):
        self.names = tuple(c.name for c in contacts)
        self.nv, self.n_act = nv, n_act
        self.nf = sum(c.n_force for c in contacts)
        self.n = nv + self.nf
        self.n_eq = 6 + 6 * len(contacts)
        self.n_rows = sum(c.n_rows for c in contacts)
        self.n_in = self.n_rows + n_act
        weights = [c.force_weights for c in contacts]
        self.H0 = np.diag(np.r_[np.full(nv, reg_a), reg_f * np.concatenate(weights) if weights else []])
        self.C0 = np.zeros((self.n_in, self.n))
        self.lo0 = np.empty(self.n_in)
        self.up0 = np.empty(self.n_in)
        self.force_cols, self.force_rows, self.total_rows = [], [], []
        col, row = nv, 0
        for c in contacts:
            self.C0[row : row + c.n_rows, col : col + c.n_force] = c.C
            self.lo0[row : row + c.n_rows] = c.lo
            self.force_cols.append(slice(col, col + c.n_force))
            self.force_rows.append(slice(row, row + c.n_rows))
            self.total_rows.append(row + c.n_rows - 1)
            row += c.n_rows
            col += c.n_force
        self.box_lo = np.full(self.n, -INFINITY)
        self.box_up = np.full(self.n, INFINITY)

    def matches(self, contacts) -> bool:
        return self.names == tuple(c.name for c in contacts)


def build(layout: Layout, dyn, tasks, contacts, tau_max, acc_bounds):
    """(H, g, A_eq, b_eq, C, lo, up, box_lo, box_up, JtG) of this cycle (module docstring);
    ``acc_bounds`` (lo, hi) of the actuated joints' accelerations; JtG (nv, nf): the
    generalised forces of unit corner forces (the torques are M_a a + h_a − JtG_a f)."""
    nv = layout.nv
    H = layout.H0.copy()
    g = np.zeros(layout.n)
    Ha = H[:nv, :nv]
    ga = g[:nv]
    for task in tasks:
        task.accumulate(dyn, Ha, ga)
    JtG = np.empty((nv, layout.nf))
    A_eq = np.zeros((layout.n_eq, layout.n))
    b_eq = np.empty(layout.n_eq)
    C = layout.C0.copy()
    lo = layout.lo0.copy()
    up = np.empty(layout.n_in)
    for i, c in enumerate(contacts):
        J, bc = c.motion_rows(dyn)
        cols = layout.force_cols[i]
        JtG[:, cols.start - nv : cols.stop - nv] = J.T @ c.G
        A_eq[6 + 6 * i : 12 + 6 * i, :nv] = J
        b_eq[6 + 6 * i : 12 + 6 * i] = bc
        up[layout.force_rows[i]] = c.up
    M, h = dyn.M, dyn.h
    A_eq[:6, :nv] = M[:6]
    A_eq[:6, nv:] = -JtG[:6]
    b_eq[:6] = -h[:6]
    r = layout.n_rows
    C[r:, :nv] = M[6:]
    C[r:, nv:] = -JtG[6:]
    lo[r:] = -tau_max - h[6:]
    up[r:] = tau_max - h[6:]
    box_lo, box_up = layout.box_lo.copy(), layout.box_up.copy()
    box_lo[6:nv], box_up[6:nv] = acc_bounds
    return H, g, A_eq, b_eq, C, lo, up, box_lo, box_up, JtG
