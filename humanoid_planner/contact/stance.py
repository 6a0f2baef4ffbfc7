"""Contacts and stances (Escande 2008, §5.3.1.1, (5.18), and §5.3.3).

A `Contact` is a (location, surface) pair with the contact parameters (x [m], y [m], theta
[rad]) of `posture.frames.EnvironmentFrame.on_surface`. A `Stance` is a set of contacts, kept
sorted by pair, so ind(s) (the sorted pairs) and p_s = (x_1, y_1, theta_1, ...) ordered by ind
are its fields. The pair "index" of the thesis is the (location, surface) name tuple here: its
lexicographic order is a total order on pairs.

Equality and order (`StanceMetric`, Escande 2008, §5.3.3): s = s' iff ind(s) = ind(s') and
||A (p_s - p_s')||_2 <= eps, A = diag(1, 1, a_theta) per contact; s < s' iff card(s) < card(s'),
or equal card and ind(s) <_lex ind(s'), or equal ind, s != s' and p_s <_lex p_s'. Theta
differences are wrapped to [-pi, pi) before scaling.

Numbers chosen (the thesis gives no value of (A, eps), §5.3.3): a_theta = 0.12 m/rad, the
half-length of HRP-2's sole (0.23 m, urdf/hrp2.yaml hull): turning a foot by dtheta moves its toe
by about 0.12 dtheta, so the scaled distance is the largest displacement of a sole corner, in m.
eps = 0.02 m: stances whose contacts differ by less than 2 cm (scaled) are one node; below half
the box size δl/2 = 0.05 m (`boxes`), so two brothers from disjoint sub-boxes (>= δl/2 apart in
a coordinate) are never merged.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from humanoid_planner.exceptions import PlanningError

__all__ = ["Contact", "Stance", "StanceMetric", "wrap_angle"]


def wrap_angle(a: float) -> float:
    """``a`` [rad] wrapped to [-pi, pi)."""
    return float((a + np.pi) % (2 * np.pi) - np.pi)


@dataclass(frozen=True, order=False)
class Contact:
    """One contact: robot contact ``location`` on planner ``surface`` at (``x``, ``y``) [m]
    (surface coordinates from its centroid) with orientation ``theta`` [rad] (wrapped to [-pi, pi))."""

    location: str
    surface: str
    x: float
    y: float
    theta: float

    def __post_init__(self):
        vals = (self.x, self.y, self.theta)
        if not all(np.isfinite(v) for v in vals):
            raise PlanningError(f"contact {self.location}/{self.surface}: fields x, y, theta must be finite; {vals}")
        object.__setattr__(self, "x", float(self.x))
        object.__setattr__(self, "y", float(self.y))
        object.__setattr__(self, "theta", wrap_angle(self.theta))

    @property
    def pair(self) -> tuple[str, str]:
        """(location, surface): the pair index of the thesis."""
        return (self.location, self.surface)

    @property
    def parameters(self) -> tuple[float, float, float]:
        return (self.x, self.y, self.theta)


@dataclass(frozen=True)
class Stance:
    """A non-empty set of contacts with distinct locations, sorted by pair (hashable)."""

    contacts: tuple[Contact, ...]

    def __init__(self, contacts):
        cs = tuple(sorted(contacts, key=lambda c: c.pair))
        if not cs:
            raise PlanningError("stance: field 'contacts' must be non-empty (Escande 2008, (5.18))")
        locs = [c.location for c in cs]
        if len(set(locs)) != len(locs):
            raise PlanningError(f"stance: field 'contacts' must use each location once; {locs}")
        object.__setattr__(self, "contacts", cs)

    def __len__(self):
        return len(self.contacts)

    def __iter__(self):
        return iter(self.contacts)

    @property
    def ind(self) -> tuple[tuple[str, str], ...]:
        """ind(s): the sorted pairs."""
        return tuple(c.pair for c in self.contacts)

    @property
    def p(self) -> np.ndarray:
        """p_s = (x_1, y_1, theta_1, ...) ordered by ind (3 card(s),)."""
        return np.array([v for c in self.contacts for v in c.parameters])

    @property
    def locations(self) -> tuple[str, ...]:
        return tuple(c.location for c in self.contacts)

    def with_contact(self, contact: Contact) -> Stance:
        """s ∪ {contact}."""
        return Stance(self.contacts + (contact,))

    def without(self, location: str) -> Stance:
        """s minus the contact at ``location``."""
        rest = tuple(c for c in self.contacts if c.location != location)
        if len(rest) == len(self.contacts):
            raise PlanningError(f"stance: field 'location' must be in the stance; {location!r} not in {self.locations}")
        return Stance(rest)

    def differs_by_one(self, other: Stance) -> bool:
        """1-neighbours (5.19) with m = 1: card(s ∩ s') + 1 >= card(s ∪ s') (exact contact equality)."""
        a, b = set(self.contacts), set(other.contacts)
        return len(a ^ b) == 1


@dataclass(frozen=True)
class StanceMetric:
    """The scaled epsilon test and the total order (module docstring): ``a_theta`` [m/rad], ``eps`` [m]."""

    a_theta: float = 0.12
    eps: float = 0.02

    def __post_init__(self):
        if not (self.a_theta > 0 and self.eps > 0):
            raise PlanningError(f"stance metric: fields 'a_theta', 'eps' must be > 0; {self.a_theta}, {self.eps}")

    def scaled_difference(self, s: Stance, t: Stance) -> np.ndarray:
        """A (p_s - p_t) for two stances with equal ind (theta wrapped)."""
        d = s.p - t.p
        d[2::3] = [wrap_angle(v) * self.a_theta for v in d[2::3]]
        return d

    def equal(self, s: Stance, t: Stance) -> bool:
        """s = t: same ind and ||A (p_s - p_t)|| <= eps."""
        return s.ind == t.ind and float(np.linalg.norm(self.scaled_difference(s, t))) <= self.eps

    def compare(self, s: Stance, t: Stance) -> int:
        """-1 if s < t, 0 if s = t, 1 if t < s."""
        if len(s) != len(t):
            return -1 if len(s) < len(t) else 1
        if s.ind != t.ind:
            return -1 if s.ind < t.ind else 1
        if self.equal(s, t):
            return 0
        return -1 if tuple(s.p) < tuple(t.p) else 1
