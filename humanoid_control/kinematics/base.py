"""The one interface of every solver row block: loop closures, frame targets, CoM and joint tasks.

A constraint maps a configuration q to an error e(q) (``dim`` values, zero when satisfied) and
its Jacobian J(q) = de/dv, the derivative along ``pin.integrate(model, q, v)`` (shape
``(dim, model.nv)``). A solver asks J dq = -gain·e. Both are read from a ``pin.Data`` already
updated by `KinematicStructure.compute` (joint placements, joint Jacobians, frame placements,
and the CoM when ``needs_com``), so the rows of several constraints share one kinematics pass.

``level`` is the priority in `humanoid_control.kinematics.prioritized` (1: hard, loops;
2: commands; 3: posture); the SVD reference solver stacks every level with equal priority as
the thesis does (Flückiger 1998, §3.4.3, eq. (3.27)). ``row_scale`` turns the rows into
consistent units, metres: rotation rows [rad] are multiplied by the structure's ``length_scale``
[m/rad] (docs/kinematics.md, "Units and weighting"; the thesis mixes mm and rad unweighted);
``weight`` multiplies the rows of one task
against the others of its level.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["Constraint"]


class Constraint(ABC):
    """A block of solver rows. Subclasses set ``name``, ``dim``, ``level``, ``weight``, ``gain``,
    ``row_scale`` (dim,) and ``linear`` (dim,) bool: rows measured in metres (clipped with the
    translation step bound), the others in radians."""

    name: str
    dim: int
    level: int = 2
    weight: float = 1.0
    gain: float = 1.0  #: fraction of the error corrected per cycle (1: Newton step, as the thesis, §3.4.3.2)
    needs_com: bool = False
    row_scale: np.ndarray
    linear: np.ndarray

    @abstractmethod
    def evaluate(self, q, data) -> tuple[np.ndarray, np.ndarray]:
        """``(e, J)``: the error (dim,) and its Jacobian (dim, nv) at ``q`` (nq,); ``data`` is updated at ``q``."""

    def error(self, q, data) -> np.ndarray:
        """e(q) (dim,): [m] for positions, [rad] for rotations and revolute joints."""
        return self.evaluate(q, data)[0]

    def jacobian(self, q, data) -> np.ndarray:
        """J(q) = de/dv (dim, nv) in the tangent space of q."""
        return self.evaluate(q, data)[1]

    def __repr__(self):
        return f"{type(self).__name__}({self.name!r}, dim={self.dim}, level={self.level})"
