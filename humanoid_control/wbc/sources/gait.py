"""The contact schedule and reference of an optimal gait of the BIP biped (GAIT.json,
`humanoid-stack gait`, Chessé 2002).

The file holds the whole-body trajectory (base poses and the sagittal joints' angles) and its
phases in order, each with its ``kind`` and ``root_leg``:

- single support (``ss``): the root leg's foot flat on the ground (its sole), the other swinging;
- double support (``ds``): the root leg is the rear one, its foot turning about its toes (a line
  contact: the ``toe`` location), the front foot flat (its sole) (Chessé 2002, ch. III: the
  rear foot's rotation about its toes in double support).

A foot's contact phases are its runs of phases with the same contact location. A location that
ends as the same foot's other location begins (the stance sole becoming the rear toe) hands its
load over at once; a foot that lands is loaded over the double support after it, and the rear
toe is unloaded over the double support before it lifts off (the ramps last the double support,
at most `RAMP`).
"""

from __future__ import annotations

import numpy as np

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.reference import ContactPhase, MotionReference
from humanoid_control.wbc.sources.common import RAMP, check_robot, configurations, increasing

__all__ = ["gait_reference", "gait_phases"]

LEGS = ("l", "r")


def _contact(kind: str, root: str, leg: str) -> str | None:
    """The contact location of ``leg``'s foot in a phase of ``kind`` with root leg ``root``."""
    if kind == "ss":
        return f"{leg}_sole" if leg == root else None
    return f"{leg}_toe" if leg == root else f"{leg}_sole"


def gait_phases(phases: list, src: str) -> list[ContactPhase]:
    """The contact phases of a GAIT.json's ``phases`` (module docstring)."""
    spans = []
    for i, ph in enumerate(phases):
        if not isinstance(ph, dict):
            raise ControlError(f"{src}: field 'phases[{i}]' must be a mapping")
        kind, root = ph.get("kind"), ph.get("root_leg")
        if kind not in ("ss", "ds") or root not in LEGS:
            raise ControlError(
                f"{src}: field 'phases[{i}]' must have kind 'ss' or 'ds' and root_leg 'l' or 'r'; "
                f"value kind {kind!r}, root_leg {root!r}"
            )
        try:
            t0, dur = float(ph["t_start"]), float(ph["duration"])
        except (KeyError, TypeError, ValueError):
            raise ControlError(f"{src}: field 'phases[{i}]' must give t_start and duration [s]") from None
        if not (np.isfinite(t0) and np.isfinite(dur) and dur > 0):
            raise ControlError(f"{src}: field 'phases[{i}]' must have a finite start and a positive duration")
        spans.append((t0, t0 + dur, kind, root))
    out = []
    first, last = spans[0][0], spans[-1][1]
    for leg in LEGS:
        runs = []  # [location, start, end, kind of the phase before it, of the phase after it]
        for k, (t0, t1, kind, root) in enumerate(spans):
            loc = _contact(kind, root, leg)
            if runs and runs[-1][0] == loc:
                runs[-1][2] = t1
            else:
                runs.append([loc, t0, t1, spans[k - 1][2] if k else None])
        for j, (loc, t0, t1, _before) in enumerate(runs):
            if loc is None:
                continue
            prev = runs[j - 1][0] if j else None
            nxt = runs[j + 1][0] if j + 1 < len(runs) else None
            start = -np.inf if t0 <= first else t0
            end = np.inf if t1 >= last else t1
            ds = [b - a for a, b, kind, _ in spans if kind == "ds"]
            ramp = min(RAMP, min(ds)) if ds else RAMP
            ramp_in = ramp if prev is None and np.isfinite(start) else 0.0  # a landing foot
            ramp_out = ramp if nxt is None and np.isfinite(end) else 0.0  # a foot lifting off
            out.append(ContactPhase(loc, start, end, ramp_in, ramp_out))
    return out


def gait_reference(doc: dict, samples, src: str, robot, controller) -> MotionReference:
    """The `MotionReference` of a GAIT.json document ``doc`` with its parsed trajectory
    ``samples``, for ``robot`` executed by ``controller`` (its model and contact frames)."""
    check_robot(src, doc.get("robot"), robot)
    phases = doc.get("phases")
    if not isinstance(phases, list) or not phases:
        raise ControlError(f"{src}: field 'phases' must be the gait's non-empty list of phases")
    if samples.base_pose is None:
        raise ControlError(f"{src}: field 'trajectory.base_pose' is missing: a gait needs its base poses")
    model = controller.model
    frames = {name: fid for name, (_, fid) in controller.locations.items()}
    schedule = gait_phases(phases, src)
    missing = sorted({ph.location for ph in schedule} - set(frames))
    if missing:
        raise ControlError(f"{src}: the robot has no contact location {missing} for the gait's feet")
    t, joints, base = increasing(samples.t, samples.joint_positions, samples.base_pose)
    q = configurations(src, model, samples.joint_names, joints, base)
    return MotionReference(model, t, q, schedule, frames, source=src)
