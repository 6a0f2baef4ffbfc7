"""The rows of the CoM and joint tasks (`ComTask`, `JointTask`, `PostureTask`), compiled, so that
the prioritized solver writes every row of a humanoid's task list (welds, hand targets, CoM,
posture) inside its one compiled call per cycle (`humanoid_control.kinematics.hierarchy`):

    CoM    e = c_xy - target [m],      J = J_com[:2] (world axes), from ``data.com[0]``, ``data.Jcom``
    joint  e = q_j - target_j [rad|m], J = unit rows at the joints' velocity indices

the formulas of the tasks' own ``evaluate`` (`com.py`, `joints.py`), which stay the reference
(`test_kin_solvers.py` checks the solver's rows against them).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from humanoid_control.kinematics.com import ComTask
from humanoid_control.kinematics.joints import JointTask

__all__ = ["TaskRows", "compiled"]


def compiled(task) -> bool:
    """Whether ``task``'s rows can come from `TaskRows`: a CoM or joint task whose ``evaluate`` is
    the library's (a subclass that redefines it keeps its own)."""
    return (isinstance(task, ComTask) and type(task).evaluate is ComTask.evaluate) or (
        isinstance(task, JointTask) and type(task).evaluate is JointTask.evaluate
    )


class TaskRows:
    """The CoM and joint tasks of one task list, ``items`` [(task, first row)] (`compiled` ones):
    `inputs` gives the compiled `_task_rows`'s arguments before (q, J, e), with the targets' current
    values (a task's target may be replaced between cycles)."""

    def __init__(self, items):
        self.com = [(t, a) for t, a in items if isinstance(t, ComTask)]
        self.joints = [(t, a) for t, a in items if isinstance(t, JointTask)]
        self.com_start = np.array([a for _, a in self.com], np.int64)
        self.com_target = np.zeros((len(self.com), 2))
        self.joint_start = np.array([a for _, a in self.joints], np.int64)
        self.joint_count = np.array([t.dim for t, _ in self.joints], np.int64)
        self.iq = np.concatenate([t.iq for t, _ in self.joints] + [np.zeros(0, np.int64)]).astype(np.int64)
        self.iv = np.concatenate([t.iv for t, _ in self.joints] + [np.zeros(0, np.int64)]).astype(np.int64)
        self.joint_target = np.zeros(self.iq.size)
        self._slices = []
        a = 0
        for t, _ in self.joints:
            self._slices.append((t, a, a + t.dim))
            a += t.dim
        self._data = None

    def inputs(self, data) -> tuple:
        """(com (3,), J_com (3, nv), CoM row starts, CoM targets, joint row starts, joint counts, q
        indices, v indices, joint targets) from ``data`` (CoM computed when there is a CoM task)."""
        if data is not self._data:  # views of data's CoM and its Jacobian (never reallocated)
            self._data, self._c, self._Jc = data, data.com[0], data.Jcom
        for k, (t, _) in enumerate(self.com):
            self.com_target[k] = t.target
        for t, a, b in self._slices:
            self.joint_target[a:b] = t.target
        return (
            self._c, self._Jc, self.com_start, self.com_target, self.joint_start, self.joint_count, self.iq,
            self.iv, self.joint_target,
        )  # fmt: skip


@njit(cache=True)
def _task_rows(com, Jcom, com_start, com_target, joint_start, joint_count, iq, iv, joint_target, q, J, e):
    """The CoM tasks' rows (at ``com_start``) and the joint tasks' (``joint_count`` rows each at
    ``joint_start``; their joints ``iq``/``iv`` and targets concatenated) into J and e."""
    nv = J.shape[1]
    for k in range(com_start.shape[0]):
        a = com_start[k]
        for i in range(2):
            e[a + i] = com[i] - com_target[k, i]
            for j in range(nv):
                J[a + i, j] = Jcom[i, j]
    n = 0
    for k in range(joint_start.shape[0]):
        a = joint_start[k]
        for i in range(joint_count[k]):
            e[a + i] = q[iq[n]] - joint_target[n]
            for j in range(nv):
                J[a + i, j] = 0.0
            J[a + i, iv[n]] = 1.0
            n += 1
