"""A motion to execute: the reference the whole-body controller follows and its contact schedule.

    ref = MotionReference(model, t, q, phases, frames, source="PLAN.json")
    s = ref.sample(2.5)          # ReferenceSample: q, v, a; CoM p, v, a; each location's frame; loads
    ref.active(2.5)              # {location: load fraction in [0, 1]} of the contacts held at 2.5 s

The reference is sampled: configurations q_k (nq,) of the controller's model at increasing times
t_k. Between samples it is interpolated linearly (configurations by Pinocchio's ``interpolate``),
velocities are the tangent steps between samples (`pin.difference`) averaged at each sample,
accelerations their differences (zero before the start and after the end), so a 1 kHz controller follows a 200 Hz plan.
The CoM and the contact locations' frames are computed from the samples by forward kinematics, once.

The contact schedule is a list of `ContactPhase`: location ``location`` is held (a contact) from
``start`` to ``end``; its load fraction (the contact's largest normal force over its full value)
ramps up from 0 over [start, start + ramp_in] and down to 0 over [end − ramp_out, end], so that a
contact is unloaded before it is broken and loaded after it is made: a contact is never broken
while it carries weight. Outside its phases, a location follows its frame's reference (a swing
foot).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from humanoid_control.exceptions import ControlError

__all__ = ["ContactPhase", "ReferenceSample", "MotionReference", "frame_derivatives"]


@dataclass
class ContactPhase:
    """``location`` is a contact over [start, end] [s] (start may be -inf, end inf), loaded over
    ``ramp_in`` [s] after start and unloaded over ``ramp_out`` [s] before end; ``placement`` the
    planned world placement of its contact frame (None: `MotionReference` sets it where the
    reference puts the frame at ``start``); ``surface`` its name; ``polygon`` (k, 2) the part of
    the location's surface that touches, in its contact frame [m] (None: all of it)."""

    location: str
    start: float
    end: float
    ramp_in: float = 0.0
    ramp_out: float = 0.0
    placement: pin.SE3 | None = None
    surface: str = ""
    polygon: np.ndarray | None = None

    def load(self, t: float) -> float:
        """The load fraction at time t (0 outside [start, end])."""
        if t < self.start or t >= self.end:
            return 0.0
        f = 1.0
        if self.ramp_in > 0:
            f = min(f, (t - self.start) / self.ramp_in)
        if self.ramp_out > 0 and math.isfinite(self.end):
            f = min(f, (self.end - t) / self.ramp_out)
        return float(min(max(f, 0.0), 1.0))  # np.clip's value, without its cost on every control cycle


@dataclass
class ReferenceSample:
    """The reference at one time: configuration q (nq,), actuated speeds v and accelerations a
    (nv − 6,), the base's rotation, angular velocity and acceleration (world), the CoM's position,
    velocity and acceleration (3,) each, each location's frame (SE3, velocity (6,), acceleration
    (6,), LOCAL_WORLD_ALIGNED) and the loads of the contacts held."""

    t: float
    q: np.ndarray
    v: np.ndarray
    a: np.ndarray
    base: tuple
    com: tuple
    frames: dict
    loads: dict = field(default_factory=dict)


def _differences(t, x):
    """(first, second) time derivatives of samples x (N, d) at times t (N,): central differences
    inside, one-sided at the ends (zero for a single sample)."""
    n = len(t)
    if n < 2:
        return np.zeros_like(x), np.zeros_like(x)
    d1 = np.gradient(x, t, axis=0, edge_order=1)
    d2 = np.gradient(d1, t, axis=0, edge_order=1)
    return d1, d2


def frame_derivatives(t, R, p):
    """Velocities and accelerations (N, 6) LOCAL_WORLD_ALIGNED of a frame sampled as rotations R
    (N, 3, 3) and positions p (N, 3) at times t (N,): linear by differences of p, angular by the
    rotation vectors log₃(R_{k+1} R_kᵀ) between samples."""
    n = len(t)
    vel = np.zeros((n, 6))
    if n < 2:
        return vel, np.zeros((n, 6))
    vel[:, :3] = np.gradient(p, t, axis=0, edge_order=1)
    w = np.array([pin.log3(R[k + 1] @ R[k].T) / (t[k + 1] - t[k]) for k in range(n - 1)])
    mid = 0.5 * (t[1:] + t[:-1])  # the rate between samples belongs to their middle
    for j in range(3):
        vel[:, 3 + j] = np.interp(t, mid, w[:, j])
    acc = np.gradient(vel, t, axis=0, edge_order=1)
    return vel, acc


class MotionReference:
    """A sampled motion for ``model`` (module docstring): times ``t`` (N,) increasing [s],
    configurations ``q`` (N, nq), the contact ``phases`` and the frames of the contact locations
    (``frames``: location -> frame id of ``model``; the locations the phases name and those in
    ``track`` are followed, the others move with the posture) and of the base (``base_frame``)."""

    def __init__(self, model, t, q, phases, frames: dict, base_frame: int = 1, source: str = "motion", track=()):
        t = np.asarray(t, float)
        q = np.asarray(q, float)
        if t.ndim != 1 or len(t) < 2 or q.shape != (len(t), model.nq):
            raise ControlError(f"{source}: a motion needs at least 2 samples of {model.nq} values; got {q.shape}")
        if not (np.all(np.isfinite(t)) and np.all(np.isfinite(q))):
            raise ControlError(f"{source}: the motion's times and configurations must be finite")
        if np.any(np.diff(t) <= 0):
            i = int(np.argmax(np.diff(t) <= 0))
            raise ControlError(f"{source}: the motion's times must increase; {t[i]} -> {t[i + 1]} at sample {i + 1}")
        self.model, self.t, self.q, self.source = model, t, q, source
        self.nominal_duration = float(t[-1] - t[0])  # the file's duration (a retimed motion is longer)
        self.nominal_t = t  # each sample's time in the file (`retime` keeps it)
        self.phases = list(phases)
        followed = {ph.location for ph in self.phases} | set(track)
        self.locations = {name: fid for name, fid in frames.items() if name in followed}
        data = model.createData()
        n = len(t)
        self.base_frame = int(base_frame)
        # velocities: the tangent steps between samples (pin.difference: the base's twist in its
        # own frame, as Pinocchio's v), averaged at each sample; accelerations: their differences
        rate = np.array([pin.difference(model, q[k], q[k + 1]) for k in range(n - 1)]) / np.diff(t)[:, None]
        self.v = np.vstack([rate[:1], 0.5 * (rate[:-1] + rate[1:]), rate[-1:]])
        self.a = np.gradient(self.v, t, axis=0, edge_order=1)
        self.com = np.empty((n, 3))
        placements = {name: (np.empty((n, 3, 3)), np.empty((n, 3))) for name in [*self.locations, "__base__"]}
        ids = {**self.locations, "__base__": self.base_frame}
        for k in range(n):
            self.com[k] = pin.centerOfMass(model, data, q[k], False)  # also the joints' placements
            pin.updateFramePlacements(model, data)
            for name, fid in ids.items():
                M = data.oMf[fid]
                placements[name][0][k] = M.rotation
                placements[name][1][k] = M.translation
        self.com_v, self.com_a = _differences(t, self.com)
        self.frames = {}
        for name, (R, p) in placements.items():
            vel, acc = frame_derivatives(t, R, p)
            self.frames[name] = (R, p, vel, acc)
        self._pack()
        for ph in self.phases:  # a phase without a planned placement: where the reference puts it
            if ph.placement is None and ph.location in self.locations:
                ph.placement = self.sample(min(max(ph.start, t[0]), t[-1])).frames[ph.location][0]

    def raise_by(self, dz: float) -> None:
        """Move the whole motion up by ``dz`` [m], in place: its configurations' base height, the CoM,
        every frame and every phase's planned placement. A motion planned for rigid feet runs so on a
        robot whose FEM soles hold it their thickness higher (`humanoid_model.start_posture.sole_lift`)."""
        if dz == 0.0:
            return
        self.q[:, 2] += dz
        self.com[:, 2] += dz  # views of the packed columns (`_pack`): sample() sees the change
        for _, p, _, _ in self.frames.values():
            p[:, 2] += dz
        for ph in self.phases:
            if ph.placement is not None:
                ph.placement = pin.SE3(ph.placement.rotation, ph.placement.translation + np.array([0.0, 0.0, dz]))

    @property
    def duration(self) -> float:
        return float(self.t[-1] - self.t[0])

    @property
    def start(self) -> float:
        return float(self.t[0])

    @property
    def end(self) -> float:
        return float(self.t[-1])

    def _index(self, t: float) -> tuple[int, float]:
        """(k, s): t lies in [t_k, t_{k+1}] at fraction s (clamped to the motion's ends)."""
        tt = self.t
        if t <= tt[0]:
            return 0, 0.0
        if t >= tt[-1]:
            return len(tt) - 2, 1.0
        k = int(np.searchsorted(tt, t, side="right")) - 1
        return k, (t - tt[k]) / (tt[k + 1] - tt[k])

    def active(self, t: float) -> dict:
        """{location: load fraction} of the contacts held at time t (a location in no phase then
        is absent)."""
        out = {}
        for ph in self.phases:
            if ph.start <= t < ph.end:
                out[ph.location] = max(out.get(ph.location, 0.0), ph.load(t))
        return out

    def phase_at(self, location: str, t: float) -> ContactPhase | None:
        """The phase of ``location`` that holds at t, or None."""
        for ph in self.phases:
            if ph.location == location and ph.start <= t < ph.end:
                return ph
        return None

    def next_phase(self, location: str, t: float) -> ContactPhase | None:
        """The first phase of ``location`` that starts after t, or None."""
        later = [ph for ph in self.phases if ph.location == location and ph.start > t]
        return min(later, key=lambda ph: ph.start) if later else None

    def _pack(self) -> None:
        """Put the interpolated columns side by side in one array, ``_stack`` (N, D): v, a, the
        CoM's position, velocity and acceleration, then each frame's position, velocity and
        acceleration; the attributes (``v``, ``com``, ``frames``' arrays, ...) become views of its
        columns, so that a change made in place (`humanoid_execution.lateral` lifts the swing feet)
        is the stack's too. `sample` then interpolates every column in one numpy expression instead
        of one per array (twenty on the stairs): element by element the same arithmetic."""
        parts = {"v": self.v, "a": self.a, "com": self.com, "com_v": self.com_v, "com_a": self.com_a}
        for name, (_, p, vel, acc) in self.frames.items():
            parts.update({(name, 1): p, (name, 2): vel, (name, 3): acc})
        self._stack = np.concatenate([np.asarray(x, float).reshape(len(self.t), -1) for x in parts.values()], axis=1)
        self._cols, col = {}, 0
        for key, x in parts.items():
            width = x.shape[1]
            self._cols[key] = slice(col, col + width)
            col += width
        view = {key: self._stack[:, sl] for key, sl in self._cols.items()}
        self.v, self.a, self.com, self.com_v, self.com_a = (view[k] for k in ("v", "a", "com", "com_v", "com_a"))
        for name, (R, *_) in self.frames.items():
            self.frames[name] = (R, view[(name, 1)], view[(name, 2)], view[(name, 3)])
        self._rotation_steps = (-1, {})  # (k, each frame's log₃(R_kᵀ R_{k+1})): the last interval's

    def _rotation_step(self, k: int) -> dict:
        """Each frame's rotation vector log₃(R_kᵀ R_{k+1}) over interval k, kept while the
        controller's cycles stay in that interval (a plan sampled every 10 ms: ten 1 ms cycles)."""
        last, steps = self._rotation_steps
        if last != k:
            steps = {name: pin.log3(R[k].T @ R[k + 1]) for name, (R, *_) in self.frames.items()}
            self._rotation_steps = (k, steps)
        return steps

    def sample(self, t: float) -> ReferenceSample:
        """The reference at time t [s] (held at its ends, with zero speed and acceleration outside)."""
        k, s = self._index(t)
        inside = self.t[0] <= t <= self.t[-1]
        model = self.model
        q = pin.interpolate(model, self.q[k], self.q[k + 1], s)
        x = (1.0 - s) * self._stack[k] + s * self._stack[k + 1]  # every column's linear interpolation
        cols = self._cols
        zero6 = np.zeros(6)
        v = x[cols["v"]][6:] if inside else np.zeros(model.nv - 6)
        a = x[cols["a"]][6:] if inside else np.zeros(model.nv - 6)
        com = (x[cols["com"]], x[cols["com_v"]] if inside else np.zeros(3), x[cols["com_a"]] if inside else np.zeros(3))
        frames = {}
        steps = self._rotation_step(k)
        for name, (R, *_) in self.frames.items():
            Rk = R[k] @ pin.exp3(s * steps[name])
            M = pin.SE3(Rk, x[cols[(name, 1)]])
            vel, acc = (x[cols[(name, 2)]], x[cols[(name, 3)]]) if inside else (zero6, zero6)
            frames[name] = (M, vel, acc)
        base = frames.pop("__base__")
        return ReferenceSample(t, q, v, a, base, com, frames, self.active(t))
