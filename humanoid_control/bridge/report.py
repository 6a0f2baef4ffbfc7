"""What validation answers: one `Refusal` per problem found, gathered in a `ValidationReport`."""

from __future__ import annotations

from dataclasses import dataclass, field

from humanoid_control.bridge.trajectory import Trajectory
from humanoid_model.validation import short

__all__ = ["Refusal", "ValidationReport", "refusal"]


@dataclass
class Refusal:
    """One reason not to send a trajectory: the check's name, the joint, the point (index in the
    trajectory as given, or the first point of the segment along which a limit is exceeded; None
    when not about one point), the offending value, and ``message``: one line naming all four."""

    check: str
    joint: str | None
    point: int | None
    value: float | None
    message: str

    def __str__(self) -> str:
        return self.message


def _fmt(value) -> str:
    return "n/a" if value is None else f"{value:.6g}"


def refusal(check: str, joint, point, value, why: str, unit: str = "") -> Refusal:
    """A `Refusal` whose message reads ``"<check>: joint 'J' point K value V unit: why"``."""
    where = f"joint {short(joint)}" if joint is not None else "trajectory"  # a 100 kB name is not echoed
    at = f" point {point}" if point is not None else ""
    u = f" {unit}" if unit and value is not None else ""
    return Refusal(check, joint, point, value, f"{check}: {where}{at} value {_fmt(value)}{u}: {why}")


@dataclass
class ValidationReport:
    """``ok``: the trajectory may be sent; ``refusals``: why not (empty when ok); ``trajectory``:
    what to send (every robot joint named, in the robot's order; held joints added; time scaled by
    speed_scale and the retime factor; an approach segment prepended when asked), None when
    refused; ``stretch``: the retime factor (new duration / duration before retiming; 1.0 if
    none); ``notes``: what was changed or not checked, one line each."""

    ok: bool
    refusals: list[Refusal] = field(default_factory=list)
    trajectory: Trajectory | None = None
    stretch: float = 1.0
    notes: list[str] = field(default_factory=list)

    def summary(self) -> str:
        """A multi-line human report: verdict, then each refusal and each note on its own line."""
        if self.ok:
            tr = self.trajectory
            head = "trajectory accepted"
            if tr is not None:
                head += f": {tr.n_points} points, {len(tr.joint_names)} joints, {tr.duration:.6g} s"
            if self.stretch != 1.0:
                head += f", retimed x{self.stretch:.4g}"
        else:
            head = f"trajectory refused: {len(self.refusals)} problem{'s' if len(self.refusals) != 1 else ''}"
        lines = [head]
        lines += [f"  refused  {r.message}" for r in self.refusals]
        lines += [f"  note     {n}" for n in self.notes]
        return "\n".join(lines)
