"""What one solver cycle reports: residuals per level, the dexterity indicator and joint speeds
(Flückiger 1998, §6.2.2, Fig. 6-8: σmax/σmin plotted over time; Fig. 6-9: joint-speed spheres)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from humanoid_control.kinematics.rows import Level

__all__ = ["SolveReport"]


@dataclass
class SolveReport:
    """One cycle of a solver.

    errors: {task name: e} measured at the configuration the step started from ([m], [rad]);
        the next cycle's report measures the result (`residuals` evaluates any q).
    level_residual: {level: norm of that level's scaled errors [m]} (level 0: the SVD solver's
        single flat level).
    dq: the step (nv,) in the tangent space [rad] or [m] per cycle; `joint_speeds(dt)` divides it.
    saturated: names of the joints held at a limit this cycle.
    clamp_iterations: re-solves made after saturating joints (0: no limit was hit).
    sigma: singular values of the augmented Jacobian (loops and commands, the thesis's J_aug,
        Flückiger 1998, eq. (3.24)), computed on first use; `dexterity` = σmax/σmin (inf when singular).
    """

    dq: np.ndarray
    saturated: list = field(default_factory=list)
    clamp_iterations: int = 0
    solver: str = ""
    _J_rows: list | None = None  #: the row blocks of J_aug, stacked on first use
    _levels: list | None = field(default_factory=list)  #: the solver's `rows.Level` list
    _residual: dict | None = None
    #: (level spans [(level, first row, end row, tasks, [(task, first row, end row)])], J, r, e):
    #: `_levels` and `_J_rows` not built yet (the prioritized solver's cycle leaves them to the first
    #: reader)
    _lazy: tuple | None = None
    _errors: dict | None = None

    def _rows(self) -> list:
        """The `rows.Level` list (built from ``_lazy`` on first use)."""
        if self._lazy is not None:
            spans, J, r, e = self._lazy
            self._levels = [
                Level(level, J[a:b], r[a:b], {t.name: e[ta:tb] for t, ta, tb in slots}, tasks)
                for level, a, b, tasks, slots in spans
            ]
            self._J_rows = [lev.J for lev in self._levels if lev.level <= 2]
            self._lazy = None
        return self._levels or []

    @property
    def errors(self) -> dict:
        """{task name: e} (the levels' errors, in level order), built on first use."""
        if self._errors is None:
            self._errors = {}
            for lev in self._rows():
                self._errors.update(lev.errors)
        return self._errors

    @property
    def level_residual(self) -> dict:
        """{level: norm of that level's errors times their row scales [m]}, computed on first use."""
        if self._residual is None:
            self._residual = {}
            for lev in self._rows():
                e = [lev.errors[t.name] * t.row_scale for t in lev.tasks]
                self._residual[lev.level] = float(np.linalg.norm(np.concatenate(e))) if e else 0.0
        return self._residual

    _sigma: np.ndarray | None = None

    @property
    def residual(self) -> float:
        """Largest level residual [m] (0 when every task is met)."""
        return max(self.level_residual.values(), default=0.0)

    @property
    def sigma(self) -> np.ndarray:
        if self._sigma is None:
            self._rows()
            J = np.vstack(self._J_rows) if self._J_rows else None
            self._sigma = np.zeros(0) if J is None or J.size == 0 else np.linalg.svd(J, compute_uv=False)
        return self._sigma

    @property
    def dexterity(self) -> float:
        """σmax/σmin of the augmented Jacobian (consistent units); inf at a singularity."""
        s = self.sigma
        if s.size == 0:
            return float("nan")
        return float(s[0] / s[-1]) if s[-1] > 0 else float("inf")

    def joint_speeds(self, dt: float) -> np.ndarray:
        """|dq|/dt (nv,) [rad/s] or [m/s] for a cycle of ``dt`` seconds (the speed-sphere radii,
        Flückiger 1998, Fig. 6-9)."""
        return np.abs(self.dq) / float(dt)
