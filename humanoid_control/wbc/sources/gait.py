"""The contact schedule and reference of an optimal gait of the BIP biped (GAIT.json,
`humanoid-stack gait`, Chessé 2002).

The file holds the whole-body trajectory (base poses and the sagittal joints' angles) and its
phases in order, each with its ``kind`` and ``root_leg``:

- single support (``ss``): the root leg's foot flat on the ground (its sole), the other swinging;
- double support (``ds``): the root leg is the rear one, its foot turning about its toes (a line
  contact: the ``toe`` location); the front foot lands on its heel, toes up (the gait data's
  front-foot angle, 11 deg in the thesis's cyclic step), and turns down about it (the ``heel``
  line contact) until it is flat, then holds flat (its sole) (Chessé 2002, ch. III: the rear
  foot's rotation about its toes, the front foot's flattening, in double support). The front foot
  is flat from the first sample where its toe and heel frames are within `FLAT` of the same
  height (`front_foot_flat_times`); a gait without those times keeps it flat over the whole
  double support.

A foot's contact phases are its runs of phases with the same contact location. A location that
ends as the same foot's other location begins (the stance sole becoming the rear toe, the front
heel becoming the sole) hands its load over at once; a foot that lands is loaded over the double
support after it, and the rear toe is unloaded over the double support before it lifts off (the
ramps last the double support, at most `RAMP`).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import ControlError
from humanoid_control.wbc.reference import ContactPhase, MotionReference
from humanoid_control.wbc.sources.common import RAMP, check_robot, configurations, increasing

__all__ = ["gait_reference", "gait_phases", "gait_spans", "front_foot_flat_times", "FLAT"]

LEGS = ("l", "r")
FLAT = 1e-3  # [m] (chosen) a front foot whose toe and heel are this close in height is flat (0.2 deg on BIP's sole)


def _segments(kind: str, root: str, leg: str, t0: float, t1: float, flat: float | None) -> list:
    """The contact locations (location or None, start, end) of ``leg``'s foot over a phase of
    ``kind`` with root leg ``root`` from t0 to t1 [s]; ``flat``: when the front foot of a double
    support is flat (None: from its start)."""
    if kind == "ss":
        return [(f"{leg}_sole" if leg == root else None, t0, t1)]
    if leg == root:
        return [(f"{leg}_toe", t0, t1)]
    if flat is None or flat <= t0:
        return [(f"{leg}_sole", t0, t1)]
    if flat >= t1:
        return [(f"{leg}_heel", t0, t1)]
    return [(f"{leg}_heel", t0, flat), (f"{leg}_sole", flat, t1)]


def gait_spans(phases: list, src: str) -> list[tuple]:
    """(start, end, kind, root leg) of each of a GAIT.json's ``phases``, checked."""
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
    return spans


def gait_phases(phases: list, src: str, flat: dict | None = None) -> list[ContactPhase]:
    """The contact phases of a GAIT.json's ``phases`` (module docstring); ``flat``: phase index ->
    the time [s] its front foot is flat, for the double supports (`front_foot_flat_times`; absent:
    flat from the start)."""
    spans = gait_spans(phases, src)
    flat = flat or {}
    out = []
    first, last = spans[0][0], spans[-1][1]
    for leg in LEGS:
        runs = []  # [location, start, end]
        for k, (t0, t1, kind, root) in enumerate(spans):
            for loc, a, b in _segments(kind, root, leg, t0, t1, flat.get(k)):
                if runs and runs[-1][0] == loc:
                    runs[-1][2] = b
                else:
                    runs.append([loc, a, b])
        for j, (loc, t0, t1) in enumerate(runs):
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
    t, joints, base = increasing(samples.t, samples.joint_positions, samples.base_pose)
    q = configurations(src, model, samples.joint_names, joints, base)
    feet = all(f"{leg}_{part}" in frames for leg in LEGS for part in ("toe", "heel"))
    flat = front_foot_flat_times(model, frames, t, q, gait_spans(phases, src)) if feet else None
    schedule = gait_phases(phases, src, flat)
    missing = sorted({ph.location for ph in schedule} - set(frames))
    if missing:
        raise ControlError(f"{src}: the robot has no contact location {missing} for the gait's feet")
    return MotionReference(model, t, q, schedule, frames, source=src)


def front_foot_flat_times(model, frames: dict, t, q, spans: list) -> dict:
    """{phase index: time [s]} of each double support in ``spans`` ((start, end, kind, root leg)):
    the first sample time ``t`` (N,) where the front foot's toe and heel frames (``frames``:
    location -> frame id of ``model``) are within `FLAT` of the same height in configurations ``q``
    (N, nq); the phase's end if it never is."""
    data = model.createData()
    out = {}
    for k, (t0, t1, kind, root) in enumerate(spans):
        if kind != "ds":
            continue
        front = LEGS[1 - LEGS.index(root)]
        out[k] = t1
        for i in np.flatnonzero((t >= t0) & (t <= t1)):
            pin.framesForwardKinematics(model, data, q[i])
            dz = data.oMf[frames[f"{front}_toe"]].translation[2] - data.oMf[frames[f"{front}_heel"]].translation[2]
            if abs(dz) <= FLAT:
                out[k] = float(t[i])
                break
    return out
