"""`WholeBodyController`: task-space inverse dynamics as one QP per control cycle.

    ctrl = WholeBodyController(robot, WbcSettings(dt=1e-3))
    ctrl.add_contact("l_sole", mu=0.4); ctrl.add_contact("r_sole", mu=0.4)
    ctrl.com.set_reference(c, c_dot, c_ddot)
    ctrl.posture.set_reference(q_ref)
    cmd = ctrl.compute(q, v)            # WbcCommand: tau (n,), a (nv,), forces per contact, status

The decision variables are the joint accelerations a (nv,) and the contacts' corner forces f
(3k per contact, `humanoid_control.wbc.contact`). One QP (`humanoid_control.wbc.qp`):

    minimise   Σ_tasks w ‖A a − b‖² + ε_a ‖a‖² + ε_f Σ_corners (f_z² + ‖f_t‖²/μ'²)
    subject to M_u a + h_u = (J_cᵀ G)_u f                  (the floating base's six rows of the dynamics)
               J_c a = −J̇_c v − K_d v_c                     (each active contact held still)
               friction pyramids, normal bounds, total normal force ≤ f_max     (per contact)
               −τ_max ≤ M_a a + h_a − (J_cᵀ G)_a f ≤ τ_max     (the actuated rows: the torques)
               a_lo ≤ a_a ≤ a_hi                             (joint position and speed limits)

and the torques τ = M_a a + h_a − (J_cᵀ G)_a f. The tasks (`humanoid_control.wbc.tasks`): the
CoM, the base's orientation, a frame task per contact location that is not in contact (a swing
foot, a hand reaching its contact), the posture. A contact location is either a contact (held,
with forces) or a frame task (moved), never both. The force regularisation weighs each corner's
tangential force by its pyramid's 1/μ'² (μ' = μ/√2): it chooses the internal forces between the
contacts, which the tasks do not see, away from the friction limits (`humanoid_control.wbc.contact`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.contact import Contact
from humanoid_control.wbc.dynamics import RobotDynamics
from humanoid_control.wbc.limits import JointAccelerationBounds
from humanoid_control.wbc.problem import Layout, build
from humanoid_control.wbc.qp import QPSolver
from humanoid_control.wbc.tasks.com import ComTask
from humanoid_control.wbc.tasks.frame import FrameTask
from humanoid_control.wbc.tasks.posture import PostureTask
from humanoid_model.planar_polygon import convex_hull, shrink

__all__ = ["WholeBodyController", "WbcSettings", "WbcCommand", "contact_frame_name"]


def contact_frame_name(location: str) -> str:
    """The controller model's frame of a contact location (z along its inward normal)."""
    return f"wbc_{location}"


@dataclass
class WbcSettings:
    """Gains [1/s², K_d = 2√K_p unless given], weights (relative) and numbers of the controller.

    dt [s]: the control period. mu: the friction coefficient assumed at the contacts. cop_margin
    [m]: the corners of a surface contact are moved this far inwards (the CoP keeps this margin to
    the surface's edges). Weights: the CoM first (com_weight 10, chosen: ten times a moving
    frame's, so that balance wins where they conflict: a swing foot grazing a step's edge made
    the stairs plan fall at weight 1), then the moving contact frames, the base's orientation and
    the posture (which fixes what the others leave free). frame_max_error
    [m, rad]: the largest error a moving frame's PD acts on (chosen: 2 cm, 0.2 rad, twice the
    plans' 1 cm obstacle margin: a swing foot caught on a step's edge does not drag the robot).
    """

    dt: float = 1e-3
    mu: float = 0.4
    cop_margin: float = 0.002
    com_weight: float = 10.0
    com_kp: float = 100.0
    frame_weight: float = 1.0
    frame_kp: float = 400.0
    frame_max_error: tuple = (0.02, 0.2)
    base_weight: float = 0.1
    base_kp: float = 100.0
    posture_weight: float = 1e-2
    posture_kp: float = 50.0
    contact_kd: float = 10.0
    reg_acceleration: float = 1e-6
    reg_force: float = 1e-8
    f_min: float = 0.0


@dataclass
class WbcCommand:
    """One cycle's result: torques (n,) [N·m], accelerations (nv,), contact forces (name -> (k, 3)
    world [N]), whether the QP was solved, its status and the cycle's computation time [s]."""

    tau: np.ndarray
    a: np.ndarray
    forces: dict = field(default_factory=dict)
    solved: bool = True
    status: str = ""
    iterations: int = 0
    cycle_time: float = 0.0


def _contact_frame_rotation(loc) -> np.ndarray:
    n = np.asarray(loc.normal, float) / np.linalg.norm(loc.normal)
    t = np.asarray(loc.tangent, float)
    t = t - n * (t @ n)
    t /= np.linalg.norm(t)
    return np.column_stack([t, np.cross(n, t), n])


class WholeBodyController:
    """Task-space inverse dynamics for a floating-base ``robot`` (`humanoid_model.robot.Robot`):
    see the module docstring. ``model``: the model the controller believes (default the robot's;
    a perturbed copy tests robustness to model error)."""

    def __init__(self, robot, settings: WbcSettings | None = None, model: pin.Model | None = None):
        self.robot, self.settings = robot, settings or WbcSettings()
        if hasattr(robot, "check_no_mimic"):
            robot.check_no_mimic("the whole-body controller")
        s = self.settings
        model = pin.Model(model if model is not None else robot.model)
        self.locations = {}
        for name, loc in robot.contact_locations.items():
            body = model.getFrameId(loc.body)
            if body >= model.nframes:
                continue
            parent = model.frames[body].parentJoint
            placement = model.frames[body].placement * pin.SE3(_contact_frame_rotation(loc), np.asarray(loc.point))
            fid = model.addFrame(pin.Frame(contact_frame_name(name), parent, body, placement, pin.OP_FRAME))
            self.locations[name] = (loc, fid)
        self.model = model
        self.dyn = RobotDynamics(model)
        self.nv, self.n_act = model.nv, model.nv - 6
        self.com = ComTask(s.com_weight, s.com_kp)
        root = model.getFrameId("root_joint") if model.existFrame("root_joint") else 1
        self.base = FrameTask("base", root, s.base_weight, s.base_kp, mask=(0, 0, 0, 1, 1, 1))
        self.posture = PostureTask(model, s.posture_weight, s.posture_kp)
        self.frame_tasks: dict[str, FrameTask] = {}
        self.contacts: dict[str, Contact] = {}
        self.tau_max = np.asarray(robot.effort_max, float)
        self.joint_bounds = JointAccelerationBounds(robot.q_lower, robot.q_upper, robot.v_max, s.dt)
        self.qp = QPSolver()
        self._layout: Layout | None = None
        self.last: WbcCommand | None = None

    # ------------------------------------------------------------------ contacts and tasks
    def _location(self, name: str):
        if name not in self.locations:
            raise ControlError(
                f"whole-body controller: field 'contact' must be one of {sorted(self.locations)}; value {name!r}"
            )
        return self.locations[name]

    def surface(self, name: str) -> np.ndarray:
        """The convex hull (k, 2) of contact location ``name``'s surface in its contact frame [m]."""
        loc, _ = self._location(name)
        local = (np.asarray(loc.hull, float) - loc.point) @ _contact_frame_rotation(loc)
        return convex_hull(local[:, :2])

    def add_contact(self, name: str, mu: float | None = None, polygon=None) -> Contact:
        """Hold contact location ``name`` still with forces in its friction pyramids (its frame
        task, if any, is removed). ``polygon`` (k, 2): the part of its surface that touches, in
        its contact frame (default: all of it; one point: a point contact). The forces act at the
        polygon's corners moved ``cop_margin`` inwards."""
        self._location(name)
        polygon = self.surface(name) if polygon is None else np.atleast_2d(np.asarray(polygon, float))[:, :2]
        corners2 = shrink(polygon, self.settings.cop_margin) if len(polygon) >= 3 else polygon
        corners = np.column_stack([corners2, np.zeros(len(corners2))])
        s = self.settings
        c = Contact(name, self.locations[name][1], corners, s.mu if mu is None else mu, s.f_min, kd=s.contact_kd)
        self.contacts[name] = c
        self.frame_tasks.pop(name, None)
        return c

    def remove_contact(self, name: str) -> None:
        """Break contact ``name`` (its location is free: give it a `frame_task` to move it, or
        leave it to the posture)."""
        self.contacts.pop(name, None)

    def link(self, name: str) -> str:
        """The robot link of contact location ``name``."""
        return self._location(name)[0].body

    def frame_task(self, name: str) -> FrameTask:
        """The frame task of contact location ``name`` (created at its measured placement)."""
        task = self.frame_tasks.get(name)
        if task is None:
            loc, fid = self._location(name)
            s = self.settings
            task = FrameTask(name, fid, s.frame_weight, s.frame_kp, max_error=s.frame_max_error)
            task.set_reference(self.dyn.placement(fid).copy())
            self.frame_tasks[name] = task
        return task

    @property
    def tasks(self) -> list:
        return [self.com, self.base, *self.frame_tasks.values(), self.posture]

    # ------------------------------------------------------------------ one cycle
    def compute(self, q, v, update: bool = True) -> WbcCommand:
        """The torques for the measured state (q (nq,), v (nv,)): one QP (module docstring).
        ``update`` False: ``self.dyn`` was already updated at (q, v) this cycle.
        A QP that is not solved gives ``solved`` False and the torques of the last solved cycle
        (zero before the first): the caller decides how to hold."""
        t0 = time.perf_counter()
        s, dyn, nv = self.settings, self.dyn, self.nv
        if update:
            dyn.update(q, v)
        contacts = list(self.contacts.values())
        if self._layout is None or not self._layout.matches(contacts):
            self._layout = Layout(contacts, nv, self.n_act, s.reg_acceleration, s.reg_force)
        H, g, A_eq, b_eq, C, lo, up, box_lo, box_up, JtG = build(
            self._layout, dyn, self.tasks, contacts, self.tau_max, self.joint_bounds.bounds(q[7:], v[6:])
        )
        res = self.qp.solve(H, g, A_eq, b_eq, C, lo, up, box_lo, box_up)
        if not res.solved or not np.all(np.isfinite(res.x)):
            self.qp.reset()
            tau = self.last.tau if self.last is not None else np.zeros(self.n_act)
            cmd = WbcCommand(tau.copy(), np.zeros(nv), {}, False, res.status, res.iterations)
        else:
            a, f = res.x[:nv], res.x[nv:]
            tau = dyn.M[6:] @ a + dyn.h[6:] - JtG[6:] @ f
            forces, col = {}, 0
            for c in contacts:
                forces[c.name] = c.world_forces(dyn, f[col : col + c.n_force])
                col += c.n_force
            cmd = WbcCommand(np.clip(tau, -self.tau_max, self.tau_max), a, forces, True, res.status, res.iterations)
            self.last = cmd
        cmd.cycle_time = time.perf_counter() - t0
        return cmd
