"""The contact schedule and reference of a walking pattern (WALK.json, `humanoid-stack walk`).

The file holds the whole-body trajectory (base poses and joint angles from the walking IK, at the
pattern's period) and the pattern: each footstep's foot, sole-centre target and its lift-off and
landing times (Kajita et al., "Biped walking pattern generation by using preview control of
zero-moment point", ICRA 2003, as docs/walking.md describes). A foot is a contact (its sole,
``r_sole`` or ``l_sole``) from the start to its first lift-off, then from each landing to the next
lift-off, and to the end after its last landing. In each double support the pattern's ZMP moves
from one foot to the other, so a foot is unloaded over the double support before it lifts off and
loaded over the one after it lands: the ramps last the double support (at most `RAMP`).
"""

from __future__ import annotations

import numpy as np

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.reference import ContactPhase, MotionReference
from humanoid_control.wbc.sources.common import RAMP, check_robot, configurations, increasing

__all__ = ["walk_reference", "walk_phases", "FEET"]

FEET = {"r": "r_sole", "l": "l_sole"}


def walk_phases(walking: dict, src: str) -> list[ContactPhase]:
    """The contact phases of a WALK.json's ``walking`` entry (module docstring)."""
    steps = walking.get("footsteps")
    if not isinstance(steps, list):
        raise ControlError(f"{src}: field 'walking.footsteps' must be a list of footsteps")
    params = walking.get("parameters", {}) if isinstance(walking.get("parameters"), dict) else {}
    t_ds = params.get("t_ds", RAMP)
    ramp = min(RAMP, float(t_ds)) if isinstance(t_ds, (int, float)) and np.isfinite(t_ds) and t_ds > 0 else RAMP
    start = dict.fromkeys(FEET, -np.inf)
    phases = []
    for i, st in enumerate(steps):
        foot = st.get("foot") if isinstance(st, dict) else None
        if foot not in FEET:
            raise ControlError(f"{src}: field 'walking.footsteps[{i}].foot' must be 'r' or 'l'; value {foot!r}")
        try:
            lift, land = float(st["t_lift"]), float(st["t_land"])
        except (KeyError, TypeError, ValueError):
            raise ControlError(f"{src}: field 'walking.footsteps[{i}]' must give t_lift and t_land [s]") from None
        if not (np.isfinite(lift) and np.isfinite(land) and land > lift > start[foot]):
            raise ControlError(
                f"{src}: field 'walking.footsteps[{i}]' must lift off after its foot's last landing and land "
                f"after lifting off; value t_lift {lift}, t_land {land}"
            )
        phases.append(ContactPhase(FEET[foot], start[foot], lift, ramp if np.isfinite(start[foot]) else 0.0, ramp))
        start[foot] = land
    for foot, t in start.items():
        phases.append(ContactPhase(FEET[foot], t, np.inf, ramp if np.isfinite(t) else 0.0, 0.0))
    return phases


def walk_reference(doc: dict, samples, src: str, robot, controller) -> MotionReference:
    """The `MotionReference` of a WALK.json document ``doc`` with its parsed trajectory
    ``samples`` (`humanoid_model.formats.trajectory.TrajectorySamples`), for ``robot`` executed
    by ``controller`` (a `WholeBodyController`: its model and contact frames)."""
    check_robot(src, doc.get("robot"), robot)
    model = controller.model
    frames = {name: fid for name, (_, fid) in controller.locations.items()}
    walking = doc.get("walking")
    if not isinstance(walking, dict):
        raise ControlError(f"{src}: field 'walking' (the pattern's footsteps) is missing: not a WALK.json")
    if samples.base_pose is None:
        raise ControlError(f"{src}: field 'trajectory.base_pose' is missing: a walk needs its base poses")
    t, joints, base = increasing(samples.t, samples.joint_positions, samples.base_pose)
    q = configurations(src, model, samples.joint_names, joints, base)
    for name in FEET.values():
        if name not in frames:
            raise ControlError(f"{src}: the robot has no contact location {name!r} for the walk's feet")
    return MotionReference(model, t, q, walk_phases(walking, src), frames, source=src)
