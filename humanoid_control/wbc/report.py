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
- torque saturation: the largest |τ|/τ_max and the share of cycles with a joint at its limit;
- the late and early contacts, the controller's median and largest cycle time and its unsolved
  QPs, the run's wall time and real-time factor.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np
import pinocchio as pin

__all__ = ["ContactCheck", "ExecutionReport", "execution_report", "SATURATED"]

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
