"""A posture-generation problem (Escande 2008, §3.1, problem Q): a set of constraints, an
optional criterion, and the joint bounds (3.1), over a tangent increment x from q0:
q(x) = pin.integrate(model, q0, x) (no raw quaternion is optimised: the increment stays in the tangent space, where the
unit norm holds by construction).

`PostureProblem.at(x)` evaluates every constraint with one kinematics pass and caches the last
point, so the solver's separate calls for the values, the Jacobians and the criterion at one
iterate share it. Jacobians w.r.t. x are the constraints' (w.r.t. the tangent at q) times
dIntegrate/dv (q0, x).

Extended problem Q' (Escande 2008, §3.1, (3.7)-(3.12)): an `ExtendedConstraint` (contact forces, torques)
brings ``n_extra`` variables z of its own; x is then (v, z_1, z_2, ...) (``nx`` entries,
``extra_slices`` names each z's slice), with the z bounds after the joint bounds and the z
starts from the constraints (`start`). Without one, x = v and nothing changes.
"""

from __future__ import annotations

import threading

import numpy as np
import pinocchio as pin

from humanoid_planner.exceptions import PlanningError

from .joint_bounds import bounded_joints
from .kinematics import per_model, update

__all__ = ["Evaluation", "PostureProblem"]

_DATA = threading.local()  # .pool: this thread's `kinematics.per_model` store of pin.Data


def _shared_data(model) -> pin.Data:
    """One ``pin.Data`` per model and thread for every problem's kinematics pass: `createData`
    costs ~0.5 ms on HRP-2, 2 % of a planner PG call, and every ``at`` fills the whole pass it
    reads from ``q`` (an evaluation keeps copies, never the data), so the problems of a thread
    can take turns on one."""
    pool = getattr(_DATA, "pool", None)
    if pool is None:
        pool = _DATA.pool = {}
    return per_model(pool, model, lambda m: m.createData())


class Evaluation:
    """Everything at one ``x`` (the increment, then any extended variables): ``q``, the stacked
    values ``c`` and Jacobian ``J`` (w.r.t. x), criterion ``f`` and its gradient ``g`` (w.r.t. x).

    ``f`` and ``g`` are computed on first use: the solver's phase 1 reads the constraints only,
    and with the planner's potential as criterion (a guide and six body potentials under the
    table) the criterion takes about a third of an evaluation's time."""

    __slots__ = ("x", "q", "c", "J", "_fg", "_criterion")

    def __init__(self, x, q, c, J, criterion):
        self.x, self.q, self.c, self.J = x, q, c, J
        self._criterion, self._fg = criterion, None

    def _value(self):
        if self._fg is None:
            self._fg = self._criterion(self.q)
        return self._fg

    @property
    def f(self) -> float:
        return self._value()[0]

    @property
    def g(self) -> np.ndarray:
        return self._value()[1]


class PostureProblem:
    """Constraints (`PostureConstraint` list), optional criterion (``evaluate(q) -> (f, df/dv)``),
    from the start ``q0`` (nq,)."""

    def __init__(self, model, constraints, q0, criterion=None):
        q0 = np.asarray(q0, float)
        if q0.shape != (model.nq,) or not np.all(np.isfinite(q0)):
            raise PlanningError(f"posture problem: field 'q0' must be finite ({model.nq},); shape {q0.shape}")
        names = [c.name for c in constraints]
        if len(set(names)) != len(names):
            raise PlanningError(f"posture problem: field 'constraints' must have unique names; {names}")
        self.model = model
        self.data = _shared_data(model)
        self.constraints = list(constraints)
        self.criterion = criterion
        self.q0 = q0
        self.needs_com = any(c.needs_com for c in self.constraints)
        eq = np.concatenate([c.equality_mask for c in self.constraints]) if constraints else np.zeros(0, bool)
        self.equality = eq
        #: (dim,) bool: the band rows (inequalities implied by equality rows, `base.BAND`)
        self.band = np.concatenate([c.band_mask for c in self.constraints]) if constraints else np.zeros(0, bool)
        self.slices = {}
        i = 0
        for c in self.constraints:
            self.slices[c.name] = slice(i, i + c.dim)
            i += c.dim
        self.extra_slices = {}
        n = model.nv
        for c in self.constraints:
            if c.n_extra:
                self.extra_slices[c.name] = slice(n, n + c.n_extra)
                n += c.n_extra
        self.nx = n
        idx_q, idx_v, lo, hi = bounded_joints(model)
        self.lower = np.full(n, -np.inf)
        self.upper = np.full(n, np.inf)
        self.lower[idx_v] = lo - q0[idx_q]
        self.upper[idx_v] = hi - q0[idx_q]
        for c in self.constraints:
            if c.n_extra:
                self.lower[self.extra_slices[c.name]], self.upper[self.extra_slices[c.name]] = c.extra_bounds()
        outside = (q0[idx_q] < lo - 1e-12) | (q0[idx_q] > hi + 1e-12)
        if np.any(outside):
            names = [model.names[j] for j in range(1, model.njoints) if model.joints[j].idx_q in idx_q[outside]]
            raise PlanningError(f"posture problem: field 'q0' must be within the joint limits; outside: {names}")
        self._last: Evaluation | None = None
        self._last_key = None  # x.tobytes() of ``_last``
        self.evaluations = 0
        # dIntegrate/dv is the identity but on the root's block when every joint but the root has
        # nq = nv (1-DOF joints): then only those columns are multiplied (ARG1 of a Lie group's
        # integrate is not the identity, a vector space's is)
        root = model.joints[1]
        others_flat = all(j.nq == j.nv for j in model.joints[2:])
        self._root_block = root.nv if (others_flat and model.njoints > 1 and root.nq != root.nv) else None

    @property
    def dim(self) -> int:
        return len(self.equality)

    def start(self) -> np.ndarray:
        """The start x (nx,): increment 0 (q0) and the extended constraints' starts for z at q0."""
        x = np.zeros(self.nx)
        if self.extra_slices:
            update(self.model, self.data, self.q0, com=self.needs_com)
            for con in self.constraints:
                if con.n_extra:
                    x[self.extra_slices[con.name]] = con.extra_start(self.q0, self.data)
        return x

    def at(self, x) -> Evaluation:
        """The evaluation at ``x`` (nx,): the increment x[:nv] and the z's (cached for the last x)."""
        x = np.asarray(x, float)
        key = x.tobytes()  # the values' bytes: a cheaper test than np.array_equal (~6 calls per iterate)
        if key == self._last_key:
            return self._last
        m, d = self.model, self.data
        nv = m.nv
        q = pin.integrate(m, self.q0, x[:nv])
        update(m, d, q, com=self.needs_com)
        dint = pin.dIntegrate(m, self.q0, x[:nv], pin.ARG1)
        c = np.empty(self.dim)
        J = np.zeros((self.dim, self.nx)) if self.extra_slices else np.empty((self.dim, nv))
        for con in self.constraints:
            s = self.slices[con.name]
            if con.n_extra:
                e = self.extra_slices[con.name]
                c[s], J[s, :nv], J[s, e] = con.evaluate_extended(q, d, x[e])
            else:
                c[s], J[s, :nv] = con.evaluate(q, d)
        self.evaluations += 1
        b = self._root_block
        if b is not None:  # J @ dint with dint = diag(D_root, I)
            J[:, :b] = J[:, :b] @ dint[:b, :b]
        else:
            J[:, :nv] = J[:, :nv] @ dint
        self._last = Evaluation(x.copy(), q, c, J, lambda q: self._criterion(q, dint))
        self._last_key = key
        return self._last

    def _criterion(self, q, dint) -> tuple[float, np.ndarray]:
        """``(f, df/dx)`` at ``q``, with ``dint`` = dIntegrate/dv at the evaluation's x."""
        nv = self.model.nv
        f, g = self.criterion.evaluate(q) if self.criterion is not None else (0.0, np.zeros(nv))
        b = self._root_block
        if b is not None:
            g = np.concatenate([g[:b] @ dint[:b, :b], g[b:]])
        else:
            g = g @ dint
        if self.extra_slices:
            gx = np.zeros(self.nx)
            gx[:nv] = g
            g = gx
        return float(f), g

    def extra(self, x) -> dict:
        """Constraint name -> its z at ``x``."""
        x = np.asarray(x, float)
        return {name: x[s].copy() for name, s in self.extra_slices.items()}

    def violations(self, c: np.ndarray) -> np.ndarray:
        """(dim,) >= 0: |c| on equality rows, max(c, 0) on inequality rows."""
        return np.where(self.equality, np.abs(c), np.maximum(c, 0.0))

    def by_constraint(self, c: np.ndarray) -> dict:
        """Constraint name -> its largest violation."""
        v = self.violations(c)
        return {n: float(v[s].max()) if s.stop > s.start else 0.0 for n, s in self.slices.items()}
