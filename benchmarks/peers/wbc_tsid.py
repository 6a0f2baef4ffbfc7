"""TSID (LAAS, `tsid` 1.10.0) on the whole-body controller's problem: the peer of benchmarks/wbc.py.

`TsidController` states in TSID's terms what `humanoid_control.wbc.controller.WholeBodyController`
solves, on the same Pinocchio model (the controller's, with its contact frames ``wbc_<location>``)
and at the same state:

- `InverseDynamicsFormulationAccForce` (variables: accelerations and contact corner forces; the
  floating base's six rows of the dynamics as equalities; the torques computed from the solution);
- one `Contact6d` per held contact, on the same contact frame with the same 4 corners (the
  controller's, moved ``cop_margin`` inwards), normal +z, the same friction pyramid per corner,
  total normal force in [0, f_max], held as a hard constraint (priority 0) with K_p = 0 and the
  controller's slip damping K_d (its ``J a = −J̇ v − K_d v_c``);
- `TaskComEquality`, `TaskSE3Equality` on the root joint's frame masked to its orientation, and
  `TaskJointPosture`, with the controller's gains and weights (the same weighted least squares:
  TSID adds w AᵀA to the Hessian, as the controller does);
- `TaskActuationBounds` (|τ| ≤ τ_max) and `TaskJointBounds` with the controller's acceleration
  bounds of this state (`humanoid_control.wbc.limits.JointAccelerationBounds`) as constraints;
- `SolverHQuadProgFast` (eiquadprog, a dual active-set method started cold every cycle).

What differs, by construction of TSID:
- the force regularisation: TSID's `Contact6d` regularises each contact's 6-D wrench toward a
  reference (zero here), weighted by w_reg × (1, 1, 1e-3, 2, 2, 2) per axis, where the controller
  puts ε_f ‖f‖² on the corner forces; ``force_reg`` sets w_reg (TSID's examples: 1e-5). With
  w_reg = 0 the only term on the forces is TSID's Hessian regularisation 1e-8 on every variable,
  equal to the controller's ε_f (its ε_a on the accelerations is 1e-6);
- the friction pyramid: for a coefficient μ TSID's faces are |f_t| ≤ μ f_n along each tangent
  (the pyramid around the cone), the controller's |f_t| ≤ μ/√2 f_n (the pyramid inside it): TSID
  is given μ/√2 (0.4/√2 for the controller's 0.4), the same faces, unless ``own_pyramid``;
- the bounds: TSID's QP writes every inequality and bound as two one-sided rows, the controller's
  ProxQP keeps two-sided rows and box constraints.

TSID's Python bindings must be built against the Pinocchio in use (4.1.0 here): `make peer-tsid`
(benchmarks/README.md). `probe()` checks them in a subprocess, since a binary built against another
Pinocchio crashes the interpreter on the first robot it builds.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np

__all__ = ["TsidController", "probe", "VERSION", "INSTALL"]

VERSION = "1.10.0"
INSTALL = "make peer-tsid"
HQP_STATUS_OPTIMAL = 0  # tsid::solvers::HQP_STATUS_OPTIMAL (not exposed to Python)
WRENCH_WEIGHTS = (1.0, 1.0, 1e-3, 2.0, 2.0, 2.0)  # TSID's Contact6d default, per wrench axis

_PROBE = """
import numpy as np, pinocchio as pin, tsid
m = pin.buildSampleModelHumanoid()
r = tsid.RobotWrapper(m, tsid.FLOATING_BASE_SYSTEM, False)
d = tsid.InverseDynamicsFormulationAccForce("probe", r, False)
q = pin.neutral(m)
d.computeProblemData(0.0, q, np.zeros(m.nv))
M = r.mass(d.data())
dd = m.createData()
pin.crba(m, dd, q)
assert np.allclose(M, dd.M), "mass matrices differ"
print("tsid", tsid.__file__)
"""


def probe(python: str = sys.executable) -> str | None:
    """None when TSID imports and builds a robot that agrees with Pinocchio in ``python``; else why not."""
    try:
        out = subprocess.run([python, "-c", _PROBE], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "tsid probe timed out"
    if out.returncode == 0:
        return None
    text = out.stderr + out.stdout
    if "No module named 'tsid'" in text:
        return "tsid not installed"
    tail = [ln for ln in text.strip().splitlines() if "already registered" not in ln][-1:] or [""]
    return f"tsid does not work with this Pinocchio (exit code {out.returncode}: {tail[0].strip()})"


class TsidController:
    """TSID's formulation of the controller ``ctrl``'s problem (module docstring) with the contacts
    ``ctrl`` holds, at the state (q0, v0) where the contact references and the orientation
    reference are taken. ``force_reg``: the weight of TSID's contact force regularisation;
    ``own_pyramid``: TSID's pyramid for the controller's μ (|f_t| ≤ μ f_n per axis, around the
    cone) instead of the controller's pyramid (TSID given μ/√2: the same faces)."""

    def __init__(self, ctrl, q0, v0, force_reg: float = 1e-5, own_pyramid: bool = False):
        import warnings

        import pinocchio as pin

        with warnings.catch_warnings():  # tsid registers converters eigenpy already has
            warnings.filterwarnings("ignore", "to-Python converter", RuntimeWarning)
            import tsid

        from humanoid_control.wbc.controller import contact_frame_name

        s = ctrl.settings
        self.ctrl, self.tsid = ctrl, tsid
        self.robot = tsid.RobotWrapper(ctrl.model, tsid.FLOATING_BASE_SYSTEM, False)
        self.inv = tsid.InverseDynamicsFormulationAccForce("tsid", self.robot, False)
        self.inv.computeProblemData(0.0, q0, v0)
        data = self.inv.data()
        self.contacts = {}
        for name, c in ctrl.contacts.items():
            frame = contact_frame_name(name)
            if c.k != 4:
                raise ValueError(f"TSID's Contact6d takes 4 corners; contact {name!r} has {c.k}")
            mu = c.mu if own_pyramid else c.mu / np.sqrt(2.0)
            ct = tsid.Contact6d(
                name, self.robot, frame, c.corners.T.copy(), np.array([0.0, 0.0, 1.0]), mu, 0.0, c.f_max
            )
            ct.setKp(np.zeros(6))
            ct.setKd(c.kd * np.ones(6))
            ct.setRegularizationTaskWeightVector(np.array(WRENCH_WEIGHTS))
            ct.setReference(self.robot.framePosition(data, ctrl.model.getFrameId(frame)))
            self.inv.addRigidContact(ct, float(force_reg), 1.0, 0)
            self.contacts[name] = ct

        def gains(task, kp, kd, n):
            task.setKp(kp * np.ones(n))
            task.setKd(kd * np.ones(n))
            return task

        self.com = gains(tsid.TaskComEquality("com", self.robot), s.com_kp, ctrl.com.kd, 3)
        self.inv.addMotionTask(self.com, s.com_weight, 1, 0.0)
        self.com_ref = tsid.TrajectorySample(3)
        root = ctrl.model.frames[ctrl.base.fid].name
        self.base = gains(tsid.TaskSE3Equality("base", self.robot, root), s.base_kp, ctrl.base.kd, 6)
        self.base.setMask(np.array([0.0, 0, 0, 1, 1, 1]))
        self.inv.addMotionTask(self.base, s.base_weight, 1, 0.0)
        base_ref = tsid.TrajectorySample(12, 6)
        base_ref.value(ctrl.base.placement)
        self.base.setReference(base_ref)
        na = ctrl.n_act
        self.posture = gains(tsid.TaskJointPosture("posture", self.robot), s.posture_kp, ctrl.posture.kd, na)
        self.inv.addMotionTask(self.posture, s.posture_weight, 1, 0.0)
        self.posture_ref = tsid.TrajectorySample(na)
        self.torque = tsid.TaskActuationBounds("torque", self.robot)
        self.torque.setBounds(-ctrl.tau_max, ctrl.tau_max)
        self.inv.addActuationTask(self.torque, 1.0, 0, 0.0)
        self.bounds = tsid.TaskJointBounds("acceleration", self.robot, s.dt)
        self.inv.addMotionTask(self.bounds, 1.0, 0, 0.0)
        self.solver = tsid.SolverHQuadProgFast("eiquadprog")
        self.solver.resize(self.inv.nVar, self.inv.nEq, self.inv.nIn)
        self.pin = pin
        self.status = None

    def set_references(self) -> None:
        """The CoM and posture references of the controller ``ctrl`` now (its base reference is
        taken once, at construction)."""
        c, p = self.ctrl.com, self.ctrl.posture
        self.com_ref.value(c.position)
        self.com_ref.derivative(c.velocity)
        self.com_ref.second_derivative(c.acceleration)
        self.com.setReference(self.com_ref)
        self.posture_ref.value(p.q[7:])
        self.posture_ref.derivative(p.velocity)
        self.posture_ref.second_derivative(p.acceleration)
        self.posture.setReference(self.posture_ref)

    def compute(self, q, v, t: float = 0.0):
        """(τ (n_act,), a (nv,), f (3k per contact, stacked) or None when eiquadprog fails): one
        cycle, as the controller's ``compute``: the references, the acceleration bounds of this
        state, `computeProblemData`, the solve and the getters."""
        self.set_references()
        lo, hi = self.ctrl.joint_bounds.bounds(q[7:], v[6:])
        self.bounds.setAccelerationBounds(lo, hi)
        hqp = self.inv.computeProblemData(t, q, v)
        sol = self.solver.solve(hqp)
        self.status = sol.status
        if sol.status != HQP_STATUS_OPTIMAL:
            return None, None, None
        return self.inv.getActuatorForces(sol), self.inv.getAccelerations(sol), self.inv.getContactForces(sol)
