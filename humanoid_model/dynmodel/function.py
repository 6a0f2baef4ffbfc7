"""A generated matrix-valued function of the joint state: the common output of the mass matrix,
nonlinear effects and regressor builders (`humanoid_model.dynmodel.models`,
`humanoid_model.dynmodel.regressor`), printed by `humanoid_model.dynmodel.function_printers`.

A `Function` is a straight-line `Program` (the statements, shared with the Newton-Euler
generator, so the same names and constant folding) plus an output matrix of expressions. Only
the statements the outputs depend on are printed.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import sympy as sp

from .ne import Program

__all__ = ["Function", "INPUTS"]

# name of each function -> the inputs its signature takes (all are arrays of NV values)
INPUTS = {
    "mass_matrix": ("q",),
    "nonlinear_effects": ("q", "qd"),
    "inverse_dynamics": ("q", "qd", "qdd"),
    "regressor": ("q", "qd", "qdd"),
    "base_regressor": ("q", "qd", "qdd"),
}


@dataclass
class Function:
    """``name(inputs) -> out`` with ``out`` a (rows, cols) matrix of SymPy expressions.

    `row_names` / `col_names` label the output (joint names; parameter names for a regressor);
    `symmetric` means only the lower triangle is computed and mirrored (mass matrix);
    `constants` are extra named tuples for the generated module (e.g. ``PARAMETERS``);
    `doc` is the human description (first line: what it computes)."""

    name: str
    program: Program
    out: list  # rows of expressions
    row_names: list
    col_names: list
    doc: list = field(default_factory=list)
    symmetric: bool = False
    constants: dict = field(default_factory=dict)

    @property
    def inputs(self) -> tuple:
        return INPUTS[self.name]

    @property
    def shape(self) -> tuple:
        return len(self.out), len(self.out[0]) if self.out else 0

    def entries(self):
        """(row, col, expr) of the non-zero entries that are computed (lower triangle if symmetric)."""
        for r, row in enumerate(self.out):
            for c, e in enumerate(row):
                if self.symmetric and c > r:
                    continue
                if sp.sympify(e) != 0:
                    yield r, c, e

    def pruned_program(self) -> Program:
        """The program restricted to the statements the outputs need."""
        outs = [e for _r, _c, e in self.entries()]
        return replace(self.program, tau=outs).pruned(keep_values=False)
