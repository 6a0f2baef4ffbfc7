"""The one interface of every posture-generator constraint (Escande 2008, §3.1 and §3.4).

A constraint is a block of ``dim`` scalar rows c(q) with, per row, a kind: an **equality**
c_i(q) = 0 or an **inequality** c_i(q) <= 0 (the thesis's convention, (3.4)-(3.6) of
Escande 2008, §3.1, and FSQP's; a ">= 0" condition of the thesis is written with a minus sign,
as (3.34) does). ``evaluate(q, data)`` returns the values (dim,) and their Jacobian (dim, nv)
with respect to the tangent increment v at q: J = d/dv c(pin.integrate(model, q, v)) at v = 0
(the "local" tangent convention of Pinocchio's frame Jacobians). A solver optimising over an
increment v from a fixed q0 chains it with ``pin.dIntegrate(model, q0, v, pin.ARG1)``.

Every constraint reads a ``pin.Data`` already updated at q by `kinematics.update` (joint
placements, joint Jacobians, frame placements and, when any constraint ``needs_com``, the centre
of mass and its Jacobian), so one kinematics pass serves all constraints of an iterate.
Units: positions [m], dot products of unit vectors [-], angles [rad]; each member says its own.

A third kind, **band**, is an inequality row c_i(q) <= 0 implied by equality rows of the same
constraint (|c_j| <= band written as two rows: the thesis's fast-fail bands, Escande 2008, §3.2.1,
`constraints.with_band.WithBand`). It counts as an inequality everywhere (``equality_mask`` is False
on it); the solver's phase 1, which sees inequalities only, needs it, and its phase 2, which has
the equality rows themselves, leaves it out (`solver.two_phase`, "Band rows").
"""

from __future__ import annotations

from abc import ABC, abstractmethod

import numpy as np

__all__ = ["BAND", "EQUALITY", "INEQUALITY", "KINDS", "ExtendedConstraint", "PostureConstraint", "PostureCriterion"]

EQUALITY = "equality"  #: c_i(q) = 0
INEQUALITY = "inequality"  #: c_i(q) <= 0
BAND = "band"  #: c_i(q) <= 0 implied by equality rows of the same constraint (module docstring)
KINDS = (EQUALITY, INEQUALITY, BAND)


class PostureConstraint(ABC):
    """A block of constraint rows. Subclasses set ``name`` (str), ``dim`` (int), ``kinds`` (a
    tuple of `EQUALITY` / `INEQUALITY` / `BAND`, one per row), ``needs_com`` and ``equations`` (the
    thesis equations the rows implement, e.g. ``"(3.28)-(3.35), Escande 2008, §3.4.1"``)."""

    name: str
    dim: int
    kinds: tuple[str, ...]
    needs_com: bool = False
    equations: str = ""
    n_extra: int = 0  #: extended variables of the problem Q' (Escande 2008, §3.1, (3.7)-(3.12)); `ExtendedConstraint`

    @abstractmethod
    def evaluate(self, q, data) -> tuple[np.ndarray, np.ndarray]:
        """``(c, J)``: the row values (dim,) at ``q`` (nq,) and J = dc/dv (dim, nv); ``data`` is updated at ``q``."""

    def value(self, q, data) -> np.ndarray:
        """c(q) (dim,)."""
        return self.evaluate(q, data)[0]

    def jacobian(self, q, data) -> np.ndarray:
        """dc/dv (dim, nv) in the tangent space of q."""
        return self.evaluate(q, data)[1]

    @property
    def equality_mask(self) -> np.ndarray:
        """(dim,) bool: True for the equality rows."""
        return np.array([k == EQUALITY for k in self.kinds], dtype=bool)

    @property
    def band_mask(self) -> np.ndarray:
        """(dim,) bool: True for the band rows (inequalities implied by the equality rows)."""
        return np.array([k == BAND for k in self.kinds], dtype=bool)

    def violation(self, q, data) -> np.ndarray:
        """(dim,) >= 0: |c_i| for equalities, max(c_i, 0) for inequalities."""
        c = self.value(q, data)
        eq = self.equality_mask
        return np.where(eq, np.abs(c), np.maximum(c, 0.0))

    def __repr__(self):
        n_eq = int(self.equality_mask.sum())
        return f"{type(self).__name__}({self.name!r}, {n_eq} eq + {self.dim - n_eq} ineq)"


class ExtendedConstraint(PostureConstraint):
    """A constraint over q and ``n_extra`` variables z of its own (contact forces, torques: the
    extended problem Q' of Escande 2008, §3.1). `PostureProblem` appends each such constraint's
    z to the optimisation variables, with the bounds ``extra_bounds()`` and the start
    ``extra_start(q, data)``; ``evaluate_extended(q, data, z) -> (c, J_v, J_z)`` gives the values,
    dc/dv (dim, nv) and dc/dz (dim, n_extra). ``evaluate(q, data)`` (the family's interface) is
    that at the constraint's current ``z`` (set by the caller, e.g. to a solution's)."""

    z: np.ndarray

    @abstractmethod
    def evaluate_extended(self, q, data, z) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(c, J_v, J_z)`` at ``q`` (``data`` updated there) and z (n_extra,)."""

    @abstractmethod
    def extra_bounds(self) -> tuple[np.ndarray, np.ndarray]:
        """``(lower, upper)`` (n_extra,) bounds of z (+-inf where unbounded)."""

    @abstractmethod
    def extra_start(self, q, data) -> np.ndarray:
        """A start for z (n_extra,) at ``q`` (``data`` updated there)."""

    def evaluate(self, q, data):
        c, J, _ = self.evaluate_extended(q, data, self.z)
        return c, J


class PostureCriterion(ABC):
    """A criterion to minimise (Escande 2008, §3.3): ``name``, ``equations`` and
    ``evaluate(q) -> (f, g)``, the value and its gradient df/dv (nv,) w.r.t. the tangent increment
    at ``q`` (the convention of the constraints). The contact planner's potentials
    (`humanoid_planner.contact.potentials.base.Potential`) are a kind of it. `PostureProblem` only
    calls ``evaluate``."""

    name: str
    equations: str = ""

    @abstractmethod
    def evaluate(self, q) -> tuple[float, np.ndarray]:
        """``(f, g)``: the value and df/dv (nv,) at ``q`` (nq,)."""
