"""Replaying a joint trajectory plan on a robot in a `World` and measuring its walk (the walking
comparison of Chardonnet 2009, §4.4.2, Fig. 4.7): the base height, the soles' poses and lowest points, the
waist's tilt and the vertical velocity and acceleration of the torso's centre of mass, and the peak
accelerations at the foot strikes. The walking tests and `benchmarks/walking.py` share it
(docs/walking.md "In the simulator").

    rec = replay(world, t, positions, joint_names)           # the plan's joints; others held at 0
    strikes, peaks = strike_peaks(rec, lifts, t_ss, feet)    # per step: detected strike, peak |a_z|

The torso is the waist link (``TORSO``, HRP-2's ``BODY``, whose origin is the hips' centre: the
thesis's reference point, Chardonnet 2009, §4.4.1); its acceleration is the finite difference of its
CoM's vertical velocity over one simulator step (the thesis's 1 ms, raw). A foot strikes at the
first sample after mid-swing where the swing sole's lowest hull corner comes within
``STRIKE_HEIGHT`` of its height at rest; the peak is the largest |a_z| in ``WINDOW`` around it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_sim.stages.actuators import JointTrajectory

__all__ = [
    "ReplayRecord",
    "WalkRecorder",
    "replay",
    "strike_peaks",
    "strike_peak_times",
    "TORSO",
    "SOLES",
    "WINDOW",
    "STRIKE_HEIGHT",
    "FALLEN",
]

TORSO = "BODY"  # HRP-2's waist link
SOLES = (("RLEG_SOLE", "r_sole"), ("LLEG_SOLE", "l_sole"))  # (frame, contact location) right, left
WINDOW = (-0.02, 0.15)  # [s] about each detected strike (chosen: the strike and the legs' response)
STRIKE_HEIGHT = 1e-3  # [m] a sole corner this close to its rest height has struck (chosen)
FALLEN = 0.45  # [m] base height below which a replay stops: HRP-2 has fallen (it walks at >= 0.64 m; chosen)


@dataclass
class ReplayRecord:
    """Per simulator step k (after it), K samples: ``t`` (K,) [s]; ``base_z`` (K,) [m]; ``torso_z``
    (K,) the waist origin's height [m]; ``torso_vz`` (K,) its CoM's vertical velocity [m/s];
    ``soles`` (K, 2, 6) the right / left sole frames' position [m] and rotation vector [rad];
    ``sole_low`` (K, 2) their hulls' lowest point [m]; ``tilt`` (K,) the waist's z axis from
    vertical [rad]; ``dt`` [s]; ``stopped`` True when the base fell below ``FALLEN``."""

    t: np.ndarray
    base_z: np.ndarray
    torso_z: np.ndarray
    torso_vz: np.ndarray
    soles: np.ndarray
    sole_low: np.ndarray
    tilt: np.ndarray
    dt: float
    stopped: bool = False

    @property
    def torso_acc(self) -> np.ndarray:
        """(K,) vertical acceleration of the torso's CoM [m/s²], backward difference over one step (0 first)."""
        return np.diff(self.torso_vz, prepend=self.torso_vz[0]) / self.dt

    def fell_at(self, height: float) -> float | None:
        """The first time [s] the base is below ``height`` [m], or None."""
        k = np.nonzero(self.base_z < height)[0]
        return float(self.t[k[0]]) if k.size else None


class WalkRecorder:
    """The measures of a `ReplayRecord`, one row per call, from ``world``'s state at the call: after
    each `World.step` in `replay`, or as a closed loop's ``before_step`` hook (then the row of step k
    is the state after step k − 1: `humanoid_execution.walk_record`)."""

    def __init__(self, world):
        self.world = world
        m = world.model
        self.model, self.data = m, m.createData()
        self.body = m.getFrameId(TORSO)
        self.jid = m.frames[self.body].parentJoint
        self.lever = m.inertias[self.jid].lever
        self.soles = [m.getFrameId(f) for f, _ in SOLES]
        self.hulls = []
        for _, name in SOLES:
            loc = world.robot.contact_locations[name]
            self.hulls.append((m.getFrameId(loc.body), np.asarray(loc.hull, float)))
        self.rows = {k: [] for k in ("t", "base_z", "torso_z", "torso_vz", "soles", "sole_low", "tilt")}

    def __call__(self, world=None) -> None:
        w = self.world
        m, d, rows = self.model, self.data, self.rows
        rows["t"].append(w.t)
        pin.forwardKinematics(m, d, w.q, w.v)
        pin.updateFramePlacements(m, d)
        M, v = d.oMi[self.jid], pin.getVelocity(m, d, self.jid, pin.LOCAL_WORLD_ALIGNED)
        rows["base_z"].append(w.q[2])
        rows["torso_z"].append(d.oMf[self.body].translation[2])
        rows["torso_vz"].append(v.linear[2] + np.cross(v.angular, M.rotation @ self.lever)[2])
        rows["soles"].append([np.r_[d.oMf[f].translation, pin.log3(d.oMf[f].rotation)] for f in self.soles])
        rows["sole_low"].append([(d.oMf[f].rotation[2] @ h.T).min() + d.oMf[f].translation[2] for f, h in self.hulls])
        zb = d.oMf[self.body].rotation[:, 2]
        rows["tilt"].append(np.arctan2(np.linalg.norm(zb[:2]), zb[2]))

    def record(self, stopped: bool = False) -> ReplayRecord:
        return ReplayRecord(
            dt=self.world.dt, stopped=stopped, **{k: np.asarray(v, float) for k, v in self.rows.items()}
        )


def replay(world, t, positions, joint_names, t_end=None) -> ReplayRecord:
    """Follow ``positions`` (K, len(joint_names)) [rad] sampled at ``t`` (K,) [s] with the world's PD
    trajectory controller (its gains as set), the robot's other joints (a flexible ankle's springs)
    held at 0, the plan's t = 0 at the world's present time, for ``t_end`` (default ``t[-1]``) seconds
    or until a fall."""
    names = world.robot.joint_names
    P = np.zeros((len(t), len(names)))
    P[:, [names.index(n) for n in joint_names]] = np.asarray(positions, float)
    world.actuator.set_trajectory(JointTrajectory(np.asarray(t, float), P), t_start=world.t)
    rec = WalkRecorder(world)
    K = int(round((t[-1] if t_end is None else t_end) / world.dt))
    for _ in range(K):
        world.step(1)
        rec()
        if world.q[2] < FALLEN:
            return rec.record(stopped=True)
    return rec.record()


def _window_peak(acc, t, s: float, window) -> tuple[float, float]:
    """(the largest ``acc``, its time [s]) in ``window`` about the strike at ``s`` [s]; NaNs when ``s`` is
    NaN or the window holds no sample."""
    m = (t >= s + window[0]) & (t <= s + window[1]) if np.isfinite(s) else np.zeros(t.size, bool)
    if not m.any():
        return float("nan"), float("nan")
    k = np.flatnonzero(m)[np.argmax(acc[m])]
    return float(acc[k]), float(t[k])


def strike_peak_times(rec: ReplayRecord, strikes, window=WINDOW) -> np.ndarray:
    """For each strike (``strikes`` [s] from `strike_peaks`, NaN: none): the time [s] of the peak
    |torso acceleration| in ``window`` about it (NaN where there was no strike), to set beside the
    plan's landing or a controller's contact switch."""
    acc = np.abs(rec.torso_acc)
    return np.array([_window_peak(acc, rec.t, s, window)[1] for s in strikes])


def strike_peaks(rec: ReplayRecord, lifts, t_ss: float, feet, window=WINDOW, until=None):
    """For each step (its swing foot ``feet[i]`` in 'r'/'l' lifting at ``lifts[i]`` [s], single support
    ``t_ss`` [s]): the detected strike time [s] (NaN if none) and the peak |torso acceleration| [m/s²]
    in ``window`` about it (NaN if none, or if the window passes ``until`` [s], e.g. a fall)."""
    acc, t, low = np.abs(rec.torso_acc), rec.t, rec.sole_low
    strikes, peaks = [], []
    for lift, foot in zip(lifts, feet, strict=True):
        i = "rl".index(foot)
        k = np.nonzero((t >= lift + t_ss / 2) & (low[:, i] < low[0, i] + STRIKE_HEIGHT))[0]
        s = float(t[k[0]]) if k.size else float("nan")
        strikes.append(s)
        late = until is not None and s + window[1] > until
        peaks.append(float("nan") if late else _window_peak(acc, t, s, window)[0])
    return np.array(strikes), np.array(peaks)
