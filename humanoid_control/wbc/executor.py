"""`MotionExecutor`: a motion's reference and contact schedule followed by the whole-body
controller, cycle by cycle, against the measured state.

    ex = MotionExecutor(controller, reference)
    cmd = ex.update(t, q, v, contact_forces)      # every control period; cmd.tau to the robot
    ex.state, ex.reason, ex.clock                 # tracking / waiting / done / holding

Each cycle it reads the reference at its clock (`MotionReference.sample`) and sets the controller:
the CoM, the base's orientation and the posture follow the reference; the contacts held by the
schedule are the controller's contacts, each with its largest normal force at its load fraction of
``full_load``; every other contact location follows its frame's reference.

The schedule follows the measured state. ``contact_forces`` gives the measured normal force [N] on
each contact location's link (a force/torque sensor, the simulator's contacts); a location touches
when that force reaches ``touch_force`` or its frame is within ``touch_distance`` of its planned
placement along the normal:

- **late contact**: when a phase starts and its location does not touch yet, the clock stops (the
  rest of the robot waits in the reference's posture) and the location keeps moving along its
  inward normal at ``approach_speed`` from the planned placement, until it touches (then the
  contact is made and the clock goes on) or ``max_wait`` has passed (then a safe hold);
- **early contact**: a location close to its next placement (`_lands_early`) that already
  touches becomes a contact at once, held where it touched, carrying no load until its phase
  starts.

A safe hold (state ``holding``, with its ``reason``) keeps the contacts held now, the CoM where it
is (above the held contacts' polygon) and the measured posture: the robot stands where it stopped.
It begins after ``max_failures`` consecutive unsolved QPs, a non-finite measured state or a late
contact that never comes. `stop` asks for one.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import ControlError

__all__ = ["MotionExecutor", "ExecutionSettings", "ContactEvent", "STATES"]

STATES = ("tracking", "waiting", "done", "holding")


@dataclass
class ContactEvent:
    """A contact ``location`` ``made`` (with its measured frame ``placement``) or ``broken`` at
    time ``t`` [s], reference time ``clock`` [s]."""

    t: float
    clock: float
    location: str
    kind: str
    placement: pin.SE3 | None


@dataclass
class ExecutionSettings:
    """touch_force [N]: a measured normal force that says a location touches (chosen: 2 % of
    HRP-2's weight, above the sensor noise of a swinging foot); touch_distance [m]: a frame this
    close to its placement along the normal touches; approach_speed [m/s]: a late contact's
    approach; max_wait [s]: the longest wait for it; approach_zone [m], early_offset [m] and
    early_tilt [rad]: how close to its placement (along the normal, in the surface's plane, in
    tilt) a touching location must be for an early touch to be taken as its contact (chosen: the
    plans' 2 cm approach segments, a sole's half-width of margin, about 6 deg); full_load: the total normal force of a
    fully loaded contact in weights of the robot (chosen 2: a landing foot of a walk carries up
    to about 1.5); max_failures: consecutive unsolved QPs before a safe hold."""

    touch_force: float = 10.0
    touch_distance: float = 0.002
    approach_speed: float = 0.05
    max_wait: float = 1.0
    approach_zone: float = 0.03
    early_offset: float = 0.02
    early_tilt: float = 0.1
    full_load: float = 2.0
    max_failures: int = 20


class MotionExecutor:
    """Follow ``reference`` (a `MotionReference`) with ``controller`` (a `WholeBodyController`
    built on the same model): see the module docstring. ``t0`` [s]: the time of the first
    ``update`` maps to the reference's start."""

    def __init__(self, controller, reference, settings: ExecutionSettings | None = None):
        self.ctrl, self.ref = controller, reference
        self.settings = settings or ExecutionSettings()
        self.weight = float(sum(i.mass for i in controller.model.inertias)) * float(
            np.linalg.norm(controller.model.gravity.linear)
        )
        self.state, self.reason = "tracking", ""
        self.clock = reference.start
        self._t_last: float | None = None
        self._waiting: dict[str, float] = {}  # location -> time waited for its contact [s]
        self._early: set[str] = set()
        self._failures = 0
        self._hold_set = False
        self.events: list[ContactEvent] = []  # contacts made and broken, in order
        self.clocks: list[float] = []  # the reference time of each update
        self.late_contacts: list[tuple[str, float]] = []  # (location, wait [s]) of each late contact
        self.early_contacts: list[tuple[str, float]] = []  # (location, time ahead of its phase [s])

    # ------------------------------------------------------------------ inputs
    def stop(self, reason: str = "stop requested") -> None:
        """Hold the robot where it is from the next cycle (a safe hold)."""
        if self.state != "holding":
            self.state, self.reason = "holding", reason

    def _touches(self, location: str, placement, forces, by_distance: bool = True) -> bool:
        """Whether ``location`` touches: a measured normal force of at least ``touch_force``, or
        its frame within ``touch_distance`` of ``placement`` along the normal (a plan's contact is
        made where the reference puts the frame, with zero speed; None: no placement to compare)."""
        s = self.settings
        if forces is not None and float(forces.get(location, 0.0)) >= s.touch_force:
            return True
        if not by_distance:
            return False
        if placement is None:
            return forces is None
        M = self.ctrl.dyn.placement(self.ctrl.locations[location][1])
        n = placement.rotation[:, 2]
        return float(n @ (M.translation - placement.translation)) <= s.touch_distance

    def _make(self, location: str, phase=None):
        """Make contact ``location`` where it is now (on the part of its surface ``phase`` says
        touches), and note it."""
        M = self.ctrl.dyn.placement(self.ctrl.locations[location][1]).copy()
        self.events.append(ContactEvent(self._t_last, self.clock, location, "made", M))
        return self.ctrl.add_contact(location, polygon=phase.polygon if phase is not None else None)

    def _lands_early(self, location: str, placement, forces) -> bool:
        """Whether ``location`` touches before its phase where it is planned to: a measured force of
        at least ``touch_force`` with its frame within ``approach_zone`` of ``placement`` along the
        normal, within ``early_offset`` of it in the surface's plane and tilted from it by at most
        ``early_tilt`` (a foot grazing a step's edge on its way is not a contact)."""
        s = self.settings
        if placement is None or forces is None or float(forces.get(location, 0.0)) < s.touch_force:
            return False
        M = self.ctrl.dyn.placement(self.ctrl.locations[location][1])
        d = placement.rotation.T @ (M.translation - placement.translation)
        tilt = np.arccos(np.clip(placement.rotation[:, 2] @ M.rotation[:, 2], -1.0, 1.0))
        return abs(d[2]) <= s.approach_zone and np.hypot(d[0], d[1]) <= s.early_offset and tilt <= s.early_tilt

    # ------------------------------------------------------------------ one cycle
    def update(self, t: float, q, v, contact_forces: dict | None = None):
        """The controller's command for the measured state at time t [s] (module docstring)."""
        dt = 0.0 if self._t_last is None else max(float(t) - self._t_last, 0.0)
        self._t_last = float(t)
        ctrl = self.ctrl
        q, v = np.asarray(q, float), np.asarray(v, float)
        if (
            q.shape != (ctrl.model.nq,)
            or v.shape != (ctrl.model.nv,)
            or not (np.all(np.isfinite(q)) and np.all(np.isfinite(v)))
        ):
            if self.ctrl.last is None:
                raise ControlError(
                    f"motion executor: the measured state must be {ctrl.model.nq} + {ctrl.model.nv} finite values"
                )
            self.stop("non-finite or malformed measured state")
            return dataclasses.replace(ctrl.last, solved=False, status="bad measured state")
        ctrl.dyn.update(q, v)
        if self.state == "holding":
            self._hold()
        else:
            self._track(dt, contact_forces)
        self.clocks.append(self.clock)
        cmd = ctrl.compute(q, v, update=False)
        self._failures = 0 if cmd.solved else self._failures + 1
        if self._failures >= self.settings.max_failures and self.state != "holding":
            self.stop(f"the QP was not solved for {self._failures} cycles ({cmd.status})")
        return cmd

    def _track(self, dt: float, forces) -> None:
        ctrl, ref, s = self.ctrl, self.ref, self.settings
        if not self._waiting:
            self.clock += dt
        sample = ref.sample(self.clock)
        full = s.full_load * self.weight
        # contacts due now: made (measured), or waited for
        for loc, frac in sample.loads.items():
            self._early.discard(loc)  # an early contact's phase has begun: it is a contact as planned
            if loc in ctrl.contacts:
                ctrl.contacts[loc].set_max_force(frac * full)
                continue
            ph = ref.phase_at(loc, self.clock)
            if self._touches(loc, ph.placement if ph is not None else None, forces):
                waited = self._waiting.pop(loc, None)
                if waited:
                    self.late_contacts.append((loc, waited))
                self._make(loc, ph).set_max_force(frac * full)
            else:
                self._waiting[loc] = self._waiting.get(loc, 0.0) + dt
                if self._waiting[loc] > s.max_wait:
                    self.stop(f"contact {loc!r} not made {s.max_wait:g} s after its planned time")
                    return
        self._early &= set(ctrl.contacts)
        # contacts the schedule no longer holds are broken (their load is zero by then)
        for loc in list(ctrl.contacts):
            if loc not in sample.loads and loc not in self._early:
                ctrl.remove_contact(loc)
                self.events.append(ContactEvent(self._t_last, self.clock, loc, "broken", None))
        # moving locations: their reference, an approach when late, a contact when early; a
        # location whose link another held location holds (a foot on its toes) moves with it
        held_links = {ctrl.link(c) for c in ctrl.contacts}
        for loc, (M, vel, acc) in sample.frames.items():
            if loc in ctrl.contacts:
                continue
            if ctrl.link(loc) in held_links:
                ctrl.frame_tasks.pop(loc, None)
                continue
            if loc in self._waiting:
                ph = ref.phase_at(loc, self.clock)
                target = ph.placement if ph is not None and ph.placement is not None else M
                down = -target.rotation[:, 2] * s.approach_speed
                p = target.translation + down * self._waiting[loc]
                ctrl.frame_task(loc).set_reference(pin.SE3(target.rotation, p), np.r_[down, 0, 0, 0], np.zeros(6))
                continue
            nxt = ref.next_phase(loc, self.clock)
            if nxt is not None and self._lands_early(loc, nxt.placement, forces):
                self._make(loc, nxt).set_max_force(0.0)
                self._early.add(loc)
                self.early_contacts.append((loc, nxt.start - self.clock))
                continue
            ctrl.frame_task(loc).set_reference(M, vel, acc)
        ctrl.com.set_reference(*sample.com)
        ctrl.base.set_reference(sample.base[0], sample.base[1], sample.base[2])
        ctrl.posture.set_reference(sample.q, sample.v, sample.a)
        if self.clock >= ref.end and not self._waiting:
            self.state = "done"
        elif self._waiting:
            self.state = "waiting"
        else:
            self.state = "tracking" if self.state != "done" else "done"

    def _hold(self) -> None:
        """The safe hold: the contacts held now, the CoM above their polygon, the posture measured
        when the hold began."""
        ctrl = self.ctrl
        if not self._hold_set:
            self._hold_set = True
            full = self.settings.full_load * self.weight
            for c in ctrl.contacts.values():
                c.set_max_force(full)
            corners = [ctrl.dyn.placement(c.fid).act(p) for c in ctrl.contacts.values() for p in c.corners]
            com = ctrl.dyn.com.copy()
            if corners:
                com[:2] = np.mean(np.array(corners)[:, :2], axis=0)
            ctrl.com.set_reference(com)
            ctrl.base.set_reference(ctrl.dyn.placement(ctrl.base.fid).copy())
            ctrl.posture.set_reference(ctrl.dyn.q.copy())
            for task in ctrl.frame_tasks.values():
                task.set_reference(ctrl.dyn.placement(task.fid).copy())
