"""Peers: Pinocchio 4.1's `ADMMConstraintSolver` and `PGSConstraintSolver` behind our interface
(names `pinocchio_admm`, `pinocchio_pgs`), for comparison (driven as a usual Pinocchio time-stepping
loop drives them, like the Pinocchio loop of `benchmarks/sim_step.py`: dense
`DelassusOperatorDense`, one `PointContactConstraintModel` per contact whose only role is its
friction cone, NCP with the De Saxcé correction).

Pinocchio orders a contact's rows (t1, t2, n) (cone axis = z); ours are (n, t1, t2), so W and
v_free are permuted in and the impulses permuted back. Tolerances: our `tol_complementarity`
and `tol_penetration` map to Pinocchio's absolute complementarity/feasibility tolerances
(its relative tolerances keep their defaults; its measures are its own),
`max_iterations` to its iteration cap; warm start via setConstraintImpulseGuess."""

import time

import numpy as np
import pinocchio as pin

from .base import ContactSolver, SolverResult, SolverSettings, residuals

_DUMMY = []  # (model, joint id, constraint models, their data), built on first use


def _constraints(m, mu):
    """Pinocchio constraint models and data of m point contacts with friction mu (m,): only
    their cones matter; one dummy free-flyer model and its constraints are kept and reused."""
    if not _DUMMY:
        model = pin.Model()
        jid = model.addJoint(0, pin.JointModelFreeFlyer(), pin.SE3.Identity(), "body")
        model.appendBodyToJoint(jid, pin.Inertia.Random(), pin.SE3.Identity())
        _DUMMY.extend((model, jid, [], []))
    model, jid, cms, cds = _DUMMY
    while len(cms) < m:
        cm = pin.PointContactConstraintModel(model, 0, pin.SE3.Identity(), jid, pin.SE3.Identity())
        cms.append(cm)
        cds.append(cm.createData())
    vm, vd = pin.StdVec_ConstraintModel(), pin.StdVec_ConstraintData()
    for c in range(m):
        cms[c].setFriction(float(mu[c]))
        vm.append(cms[c])
        vd.append(cds[c])
    return vm, vd


def _perm(m):
    """Row permutation between our (n, t1, t2) and Pinocchio's (t1, t2, n) contact rows."""
    p = np.empty(3 * m, np.int64)
    p[0::3] = np.arange(m) * 3 + 1
    p[1::3] = np.arange(m) * 3 + 2
    p[2::3] = np.arange(m) * 3
    return p  # pin index i <- our index p[i]


class _PinSolver(ContactSolver):
    """A Pinocchio constraint solver (`kind` "admm" or "pgs") behind our interface; its solver,
    settings and result objects are cached per problem size."""

    kind = "admm"

    def __init__(self):
        self._cache = {}

    def solve(self, problem, warm_start=None, settings=None):
        """See `ContactSolver.solve`: W, v_free are permuted and scaled in (module docstring),
        `settings.max_iterations`, `tol_complementarity` and `tol_penetration` are passed on; the
        residuals are ours, `converged` and `iterations` Pinocchio's."""
        s = settings or SolverSettings()
        t0 = time.perf_counter()
        m = problem.m
        n = 3 * m
        if m not in self._cache:
            if self.kind == "admm":
                self._cache[m] = (pin.ADMMConstraintSolver(n), pin.ADMMSolverSettings(), pin.ADMMSolverResult())
            else:
                self._cache[m] = (pin.PGSConstraintSolver(n), pin.PGSSolverSettings(), pin.PGSSolverResult())
        solver, ps, pr = self._cache[m]
        # scale: G = W / σ with σ = mean diag(W) (unit-scale Delassus, as Pinocchio is used with
        # impulses); λ = σ f, so the complementarity λ·v is σ f·v
        sig = float(np.mean(np.diag(problem.W_eff))) or 1.0
        ps.max_iterations = int(s.max_iterations)
        ps.absolute_complementarity_tol = float(s.tol_complementarity) * sig
        ps.absolute_feasibility_tol = float(s.tol_penetration)
        cms, cds = _constraints(m, problem.mu)
        p = _perm(m)
        G = np.ascontiguousarray(problem.W_eff[np.ix_(p, p)] / sig)
        g = np.ascontiguousarray(problem.v_free[p])
        if warm_start is not None:
            pr.setConstraintImpulseGuess(np.asarray(warm_start, float)[p] * sig)
        else:
            pr.clearConstraintImpulseGuess()
        solver.solve(pin.DelassusOperatorDense(G), g, cms, cds, ps, pr)
        lam = np.array(pr.retrieveConstraintImpulses())
        f = np.empty(n)
        f[p] = lam / sig
        v = problem.W_eff @ f + problem.v_free
        res = residuals(problem, f, v)
        return SolverResult(f, v, int(pr.iterations), res, bool(pr.converged), time.perf_counter() - t0, self.name)


class PinocchioADMM(_PinSolver):
    """Pinocchio 4.1's `ADMMConstraintSolver` (peer, for comparison)."""

    name = "pinocchio_admm"
    kind = "admm"


class PinocchioPGS(_PinSolver):
    """Pinocchio 4.1's `PGSConstraintSolver` (peer, for comparison)."""

    name = "pinocchio_pgs"
    kind = "pgs"
