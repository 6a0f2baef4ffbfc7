"""The contact schedule and reference of a contact plan (PLAN.json, `humanoid-stack plan`).

A plan is a sequence of stances joined by transitions (Escande 2008, §5.2, §7.1): a "released"
transition k → k+1 moves the robot, every contact of stance k held, from the witness posture of
stance k to that of stance k+1, whose stability needs only the contacts of stance k+1 (the
witness "holds the larger stance and the smaller stability"); the released contact is broken only
at the start of the next transition, whose motion lifts it along its normal. An "added" transition
moves the location from there to its new placement, where it arrives along its normal with zero
speed at the transition's end.

So a location's contact phases are: from the start (or the end of the "added" transition that
makes it) until the end of the "released" transition that frees it. It is unloaded over the last
`RAMP` seconds (at most half the transition) of that released transition, while the robot moves
its weight onto the other contacts, and loaded over the first `RAMP` seconds (at most half the
next transition) after it is made. The hands follow their planned path whether in contact or not
(a plan's goal is often a hand's reach); the other free locations move with the posture.
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.reference import ContactPhase, MotionReference
from humanoid_control.wbc.sources.common import RAMP, check_robot, configurations
from humanoid_model.contact_location import touching_polygon as _touching

__all__ = ["plan_reference", "plan_phases"]


def _placement(contact) -> pin.SE3:
    return pin.SE3(contact.rotation, np.asarray(contact.position, float))


def touching_polygon(contact, surface, hull, src: str) -> np.ndarray:
    """`humanoid_model.contact_location.touching_polygon` with the controller's error."""
    return _touching(contact, surface, hull, src, ControlError)


def plan_phases(plan, src: str, locations, scene=None, hulls=None) -> list[ContactPhase]:
    """The contact phases of a parsed plan (`humanoid_model.formats.plan.ContactPlanDocument`).
    With the plan's ``scene`` (`humanoid_model.scene.Scene`) and the locations' ``hulls``
    (location -> (k, 2) in its contact frame), each phase's touching polygon
    (`touching_polygon`); every contact's surface must be one of the scene's."""
    stances = plan.stances
    transitions = plan.doc.get("transitions", [])
    if len(transitions) != len(stances) - 1:
        raise ControlError(
            f"{src}: field 'transitions' must join the {len(stances)} stances ({len(stances) - 1} entries); "
            f"value {len(transitions)} entries"
        )
    for s in stances:
        for c in s.contacts:
            if c.location not in locations:
                raise ControlError(
                    f"{src}: contact location {c.location!r} must be one of the robot's {sorted(locations)}"
                )
    start = float(plan.trajectory_t[0])

    def polygon(c):
        if scene is None or hulls is None:
            return None
        names = [x.name for x in scene.surfaces]
        if c.surface not in names:
            raise ControlError(
                f"{src}: contact {c.location!r} is on surface {c.surface!r}, which scene {scene.name!r} does not "
                f"have (its surfaces: {names})"
            )
        return touching_polygon(c, scene.surface(c.surface), hulls[c.location], src)

    open_phase: dict[str, ContactPhase] = {}
    phases: list[ContactPhase] = []
    for c in stances[0].contacts:
        open_phase[c.location] = ContactPhase(
            c.location, -np.inf, np.inf, 0.0, 0.0, _placement(c), c.surface, polygon(c)
        )
    for i, tr in enumerate(transitions):
        kind, loc = tr.get("kind"), tr.get("location")
        t0, t1 = (float(x) for x in tr.get("t", (np.nan, np.nan)))
        if not (np.isfinite(t0) and np.isfinite(t1) and t1 >= t0 >= start):
            raise ControlError(
                f"{src}: field 'transitions[{i}].t' must be two times within the motion; value {tr.get('t')}"
            )
        if kind == "released":
            ph = open_phase.pop(loc, None)
            if ph is None:
                raise ControlError(f"{src}: transitions[{i}] releases {loc!r}, which no stance before it holds")
            ph.end, ph.ramp_out = t1, min(RAMP, 0.5 * (t1 - t0))
            phases.append(ph)
        elif kind == "added":
            if loc in open_phase:
                raise ControlError(f"{src}: transitions[{i}] adds {loc!r}, which is already held")
            new = [c for c in stances[i + 1].contacts if c.location == loc]
            if not new:
                raise ControlError(f"{src}: transitions[{i}] adds {loc!r}, which stance {i + 1} does not hold")
            nxt = transitions[i + 1]["t"] if i + 1 < len(transitions) else (t1, t1 + 2 * RAMP)
            ramp = min(RAMP, 0.5 * (float(nxt[1]) - float(nxt[0]))) if i + 1 < len(transitions) else RAMP
            open_phase[loc] = ContactPhase(
                loc, t1, np.inf, ramp, 0.0, _placement(new[0]), new[0].surface, polygon(new[0])
            )
        else:
            raise ControlError(f"{src}: field 'transitions[{i}].kind' must be 'added' or 'released'; value {kind!r}")
    phases.extend(open_phase.values())
    return phases


def plan_reference(plan, src: str, robot, controller, scene=None) -> MotionReference:
    """The `MotionReference` of a parsed, successful plan for ``robot`` executed by ``controller``
    (a `WholeBodyController`: its model, contact frames and surfaces), in ``scene`` (the plan's
    surfaces; None: the contacts' whole surfaces touch)."""
    check_robot(src, plan.robot, robot)
    model = controller.model
    frames = {name: fid for name, (_, fid) in controller.locations.items()}
    hulls = {name: controller.surface(name) for name in frames}
    if not plan.success:
        raise ControlError(f"{src}: field 'success' is false: the planner found no motion ({plan.reason})")
    Q = plan.trajectory_q
    q = configurations(src, model, plan.joint_names, Q[:, 7:], Q[:, :7])
    phases = plan_phases(plan, src, frames, scene, hulls)
    hands = [name for name, (loc, _) in controller.locations.items() if loc.kind == "hand"]  # reaching: followed
    return MotionReference(model, plan.trajectory_t, q, phases, frames, source=src, track=hands)
