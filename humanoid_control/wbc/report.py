"""The report of a motion executed in closed loop: did the robot do what was planned, and how well.

    report = execution_report(executor, log)        # after a run (`humanoid_sim.runtime.closed_loop`)
    print("\\n".join(report.lines()))
    report.success, report.contacts[0].position_error, report.com_rms

What it measures, from the run's log (one row per control cycle: time, the robot's CoM, each
location's load, centre-of-pressure margin and force-to-cone ratio, the torque-to-limit ratio, the
controller's status and cycle time) and the executor's record (its reference clock per cycle, the
contacts it made and broke):

- success: no fall and the whole motion done (not held); otherwise the reason;
- each contact made during the run (a landing) and each contact held at the end, against its
  planned placement:
  the position error [m] and the angle between the frames [rad];
- the CoM against the reference's CoM at the executor's clock: RMS and largest error [m];
- the smallest centre-of-pressure margin [m] over the loaded contacts (its location and time);
- the largest force-to-cone ratio (1: a contact slides);
- each contact while its phase holds it (its planned placement, on the reference's clock): how far its
  frame lifts off along the surface's normal and slides in the surface's plane, largest of each [m]
  (a foot that slips or lifts where the plan stands on it);
- the base's rotation away from the reference's, as a rotation vector in the world's axes: the
  largest |component| about each axis [rad] (about x, the walking direction of a plan facing +x:
  a sideways fall);
- the other robot links that touched the environment (each link's first touch: time and bodies);
- torque saturation: the largest |τ|/τ_max and the share of cycles with a joint at its limit;
- the late and early contacts, the controller's median and largest cycle time and its unsolved
  QPs, the run's wall time and real-time factor.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pinocchio as pin

__all__ = ["ContactCheck", "HeldCheck", "ExecutionReport", "execution_report", "SATURATED"]

SATURATED = 0.999  # (chosen) a joint at this fraction of its torque limit is saturated


@dataclass
class ContactCheck:
    """A contact of ``location`` on ``surface`` (``kind`` "landing": made during the run; "final":
    held at the end) at time ``t`` [s]: planned and measured positions (3,) [m], the position
    error [m] and the angle between the planned and measured frames [rad]."""

    location: str
    surface: str
    kind: str
    t: float
    planned: list
    measured: list
    position_error: float
    angle_error: float


@dataclass
class HeldCheck:
    """How far ``location`` moved from its planned placement on ``surface`` while its phase held it
    (reference times ``start`` to ``end`` [s]; -inf: from the motion's start): the largest ``lift``
    along the surface's normal [m] at run time ``lift_t`` [s], the largest ``slide`` in its plane [m] at
    ``slide_t`` [s], that slide as a world vector ``slide_vector`` (3,) [m]."""

    location: str
    surface: str
    start: float
    end: float
    lift: float
    lift_t: float
    slide: float
    slide_t: float
    slide_vector: list


@dataclass
class ExecutionReport:
    """The report (module docstring); times [s], distances [m], angles [rad]."""

    success: bool
    reason: str
    source: str
    duration: float
    run_time: float
    cycles: int
    contacts: list = field(default_factory=list)
    com_rms: float = float("nan")
    com_max: float = float("nan")
    min_cop_margin: float = float("nan")
    min_cop_location: str = ""
    min_cop_time: float = float("nan")
    max_cone_ratio: float = float("nan")
    max_cone_location: str = ""
    max_torque_ratio: float = float("nan")
    saturated_share: float = float("nan")
    late_contacts: list = field(default_factory=list)
    early_contacts: list = field(default_factory=list)
    cycle_median: float = float("nan")
    cycle_max: float = float("nan")
    unsolved: int = 0
    held: list = field(default_factory=list)
    base_rotation_max: list = field(default_factory=lambda: [float("nan")] * 3)
    touches: list = field(default_factory=list)

    @property
    def realtime_factor(self) -> float:
        """Simulated time over wall time (above 1: faster than real time)."""
        return self.duration / self.run_time if self.run_time > 0 else float("inf")

    def as_dict(self) -> dict:
        d = asdict(self)
        d["realtime_factor"] = self.realtime_factor
        return d

    def lines(self) -> list[str]:
        """The report as text lines (what `humanoid-stack execute` prints)."""
        out = [
            f"{'SUCCESS' if self.success else 'FAILED'}: {self.reason}",
            f"  motion {self.duration:.2f} s in {self.run_time:.1f} s ({self.realtime_factor:.2f}x real time), "
            f"{self.cycles} control cycles",
            f"  CoM error: RMS {self.com_rms * 1e3:.1f} mm, max {self.com_max * 1e3:.1f} mm",
            f"  smallest CoP margin: {self.min_cop_margin * 1e3:.1f} mm ({self.min_cop_location} at "
            f"{self.min_cop_time:.2f} s)",
            f"  largest force-to-cone ratio: {self.max_cone_ratio:.2f} ({self.max_cone_location})",
            f"  torques: largest {self.max_torque_ratio * 100:.0f} % of a limit, a joint at its limit in "
            f"{self.saturated_share * 100:.1f} % of the cycles",
            f"  controller: median cycle {self.cycle_median * 1e6:.0f} us, max {self.cycle_max * 1e6:.0f} us, "
            f"{self.unsolved} unsolved QPs",
        ]
        if self.late_contacts or self.early_contacts:
            late = ", ".join(f"{n} {w:.2f} s late" for n, w in self.late_contacts)
            early = ", ".join(f"{n} {w:.2f} s early" for n, w in self.early_contacts)
            out.append(f"  contacts off schedule: {'; '.join(x for x in (late, early) if x)}")
        if self.held:
            out.append("  contacts while held (largest lift; largest slide, its x and y):")
            for h in self.held:
                span = f"{max(h.start, 0.0):.2f}-{h.end:.2f} s"
                out.append(
                    f"    {h.location:10s} on {h.surface or '-':12s} {span:>15s}: lift {h.lift * 1e3:5.1f} mm at "
                    f"{h.lift_t:.2f} s; slide {h.slide * 1e3:5.1f} mm ({h.slide_vector[0] * 1e3:+.1f}, "
                    f"{h.slide_vector[1] * 1e3:+.1f}) at {h.slide_t:.2f} s"
                )
        if np.all(np.isfinite(self.base_rotation_max)):
            x, y, z = np.degrees(self.base_rotation_max)
            out.append(f"  base rotation from the plan: largest about x {x:.1f} deg, y {y:.1f} deg, z {z:.1f} deg")
        if self.touches:
            touched = ", ".join(f"{link} on {'/'.join(bodies) or '?'} at {t:.2f} s" for t, link, bodies in self.touches)
            out.append(f"  other links touching: {touched}")
        out.append("  contacts (position error, angle error):")
        for c in self.contacts:
            out.append(
                f"    {c.kind:7s} {c.location:10s} on {c.surface or '-':12s} t = {c.t:7.2f} s: "
                f"{c.position_error * 1e3:5.1f} mm, {np.degrees(c.angle_error):4.1f} deg"
            )
        return out


def _check(phase, kind: str, t: float, measured: pin.SE3) -> ContactCheck:
    planned = phase.placement
    angle = float(np.linalg.norm(pin.log3(planned.rotation.T @ measured.rotation)))
    return ContactCheck(
        phase.location,
        phase.surface,
        kind,
        float(t),
        planned.translation.tolist(),
        measured.translation.tolist(),
        float(np.linalg.norm(measured.translation - planned.translation)),
        angle,
    )


def _held(ref, locations, t, clocks, points) -> list:
    """A `HeldCheck` per phase of a logged location with a placement, over the cycles whose reference
    clock is in the phase; ``points`` (n, n_locations, 3) the locations' measured contact points."""
    out = []
    for ph in ref.phases:
        if ph.placement is None or ph.location not in locations:
            continue
        k = np.flatnonzero((clocks >= ph.start) & (clocks <= ph.end))
        if k.size == 0:
            continue
        d = points[k, locations.index(ph.location)] - ph.placement.translation
        normal = ph.placement.rotation[:, 2]
        lift = d @ normal
        slide = d - lift[:, None] * normal
        i, j = int(np.argmax(lift)), int(np.argmax(np.linalg.norm(slide, axis=1)))
        out.append(
            HeldCheck(
                ph.location,
                ph.surface or "",
                float(ph.start),
                float(ph.end),
                float(max(lift[i], 0.0)),
                float(t[k[i]]),
                float(np.linalg.norm(slide[j])),
                float(t[k[j]]),
                slide[j].tolist(),
            )
        )
    return out


def _base_rotation(ref, clocks, quats) -> list:
    """The largest |component| about each world axis of the rotation vector log(R Rᵣ^T) from the
    reference's base orientation (its sample at or before each clock) to the measured one [rad]."""
    from scipy.spatial.transform import Rotation

    k = np.clip(np.searchsorted(ref.t, clocks, side="right") - 1, 0, len(ref.t) - 1)
    planned = Rotation.from_quat(ref.q[k, 3:7])
    w = (Rotation.from_quat(quats) * planned.inv()).as_rotvec()
    return np.abs(w).max(axis=0).tolist()


def execution_report(executor, log, run_time: float | None = None) -> ExecutionReport:
    """The `ExecutionReport` of a run: ``executor`` (`humanoid_control.wbc.executor.MotionExecutor`)
    after it, ``log`` the run's measurements (`humanoid_sim.runtime.closed_loop.ClosedLoopLog` or
    any object with the same columns)."""
    ref, ctrl = executor.ref, executor.ctrl
    A = {k: np.asarray(getattr(log, k)) for k in ("t", "com", "cop_margin", "cone_ratio", "torque_ratio", "solved")}
    cycle = np.asarray(log.cycle_time)
    n = len(A["t"])
    clocks = np.asarray(executor.clocks[:n])
    if log.fell:
        success, reason = False, log.fall_reason
    elif executor.state == "holding":
        success, reason = False, f"held: {executor.reason}"
    elif executor.state != "done":
        success, reason = False, f"stopped before the end of the motion (reference at {executor.clock:.2f} s)"
    else:
        success, reason = True, "the motion was done without a fall"
    report = ExecutionReport(
        success,
        reason,
        ref.source,
        float(A["t"][-1] - A["t"][0] + (A["t"][1] - A["t"][0] if n > 1 else 0.0)) if n else 0.0,
        float(run_time if run_time is not None else getattr(log, "wall_time", 0.0)),
        n,
    )
    if n:
        com_ref = np.column_stack([np.interp(clocks, ref.t, ref.com[:, j]) for j in range(3)])
        err = np.linalg.norm(A["com"][: len(clocks)] - com_ref, axis=1)
        report.com_rms, report.com_max = float(np.sqrt(np.mean(err**2))), float(err.max())
        m = A["cop_margin"]
        if np.any(np.isfinite(m)):
            k, j = np.unravel_index(np.nanargmin(m), m.shape)
            report.min_cop_margin, report.min_cop_location = float(m[k, j]), log.locations[j]
            report.min_cop_time = float(A["t"][k])
        c = A["cone_ratio"]
        if np.any(np.isfinite(c)):
            k, j = np.unravel_index(np.nanargmax(c), c.shape)
            report.max_cone_ratio, report.max_cone_location = float(c[k, j]), log.locations[j]
        report.max_torque_ratio = float(A["torque_ratio"].max())
        report.saturated_share = float(np.mean(A["torque_ratio"] >= SATURATED))
        report.cycle_median, report.cycle_max = float(np.median(cycle)), float(cycle.max())
        report.unsolved = int(np.count_nonzero(~A["solved"].astype(bool)))
        points = np.asarray(getattr(log, "contact_points", []))
        if points.shape[:1] == (n,):
            report.held = _held(ref, log.locations, A["t"][: len(clocks)], clocks, points[: len(clocks)])
        quats = np.asarray(getattr(log, "orientation", []))
        if quats.shape[:1] == (n,):
            report.base_rotation_max = _base_rotation(ref, clocks, quats[: len(clocks)])
    report.touches = [[float(t), link, list(bodies)] for t, link, bodies in getattr(log, "touches", [])]
    report.late_contacts = list(executor.late_contacts)
    report.early_contacts = list(executor.early_contacts)
    for ev in executor.events:
        if ev.kind != "made" or ev.placement is None:
            continue
        ph = ref.phase_at(ev.location, ev.clock) or ref.next_phase(ev.location, ev.clock)
        if ph is not None and ph.placement is not None and np.isfinite(ph.start):  # not a starting contact
            report.contacts.append(_check(ph, "landing", ev.t, ev.placement))
    for name in ctrl.contacts:
        ph = ref.phase_at(name, executor.clock) or ref.phase_at(name, ref.end)
        if ph is not None and ph.placement is not None:
            measured = ctrl.dyn.placement(ctrl.locations[name][1]).copy()
            report.contacts.append(_check(ph, "final", float(A["t"][-1]) if n else 0.0, measured))
    return report
