"""Footsteps: the walk's parameters, the feet's geometry taken from the robot model, and the
footstep list (alternating feet, straight ahead).

Footprint i (i = 1..n) puts the swinging foot's sole centre at x₀ + i·L (L the step length,
x₀ the sole centres' x at the initial posture), so successive footprints are L apart and the
walk ends in double support with the feet L apart; the right foot swings first.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pinocchio as pin

from humanoid_model.validation import finite_number, integer
from humanoid_planner.bounds import MAX_WALK_PHASE, MAX_WALK_SAMPLES, MAX_WALK_STEPS
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.walking_pattern.swing import SWING_STYLES

__all__ = ["WalkParameters", "FootGeometry", "Footstep", "footsteps", "foot_geometry", "MAX_STEP_LENGTH", "HOLDS"]

MAX_STEP_LENGTH = 0.45  # [m] the thesis's largest step (Chardonnet 2009, §4.4.2)
#: what the whole-body IK keeps at constant height: the CoM (the cart-table model's z_c) or the waist (the thesis's
#: generator keeps the torso's height constant, Chardonnet 2009, §4.6)
HOLDS = ("com", "waist")


@dataclass(frozen=True)
class WalkParameters:
    """Timing and shape of the walk (every default chosen, docs/walking.md):

    ``n_steps`` footprints (at most `humanoid_planner.bounds.MAX_WALK_STEPS`, and at most
    `MAX_WALK_SAMPLES` samples in all); ``step_length`` L [m] between successive footprints (|L| <= 0.45 m,
    Chardonnet 2009, §4.4.2); ``t_ss`` / ``t_ds`` single / double support [s]: 0.8 + 0.2 s gives
    the thesis's 6 steps in 6 s (Chardonnet 2009, §4.4.2); ``t_start`` [s] standing still then
    shifting the ZMP onto the first stance foot (its last ``t_ds``); ``t_end`` [s] standing in
    the final double support while the CoM settles; ``step_height`` swing apex [m]; ``dt`` the
    sampling period [s] (200 Hz); ``horizon`` the preview [s]; ``qe``, ``r`` the preview weights;
    ``swing`` the swing-foot profile (`humanoid_planner.walking_pattern.swing.SWING_STYLES`); ``hold`` what
    the whole-body IK keeps at constant height (`HOLDS`). `walkgen_2008` gives the thesis's
    generator's settings."""

    n_steps: int = 6
    step_length: float = 0.2
    t_ss: float = 0.8
    t_ds: float = 0.2
    t_start: float = 1.8
    t_end: float = 1.0
    step_height: float = 0.05
    dt: float = 0.005
    horizon: float = 1.6
    qe: float = 1.0
    r: float = 1e-6
    first_foot: str = "r"
    swing: str = "smooth"
    hold: str = "com"

    @classmethod
    def walkgen_2008(cls, **overrides) -> WalkParameters:
        """The settings of the generator the thesis walked HRP-2 with (Stasse et al. 2008, in
        Chardonnet 2009, §4.4.2), which the thesis does not print: the defaults of its public source of
        that time (walkGenJrl, github.com/jrl-umi3218/jrl-walkgen, ``ZMPDiscretization``, 2005-2007):
        single / double support 0.78 / 0.02 s, step height 0.12 m, the ``walkgen`` swing profile; and
        the torso at constant height (Chardonnet 2009, §4.6). Its 5 ms sampling
        and 1.6 s preview are the defaults here already. ``overrides`` replace any field
        (docs/walking.md "The thesis's generator")."""
        kw = {"t_ss": 0.78, "t_ds": 0.02, "step_height": 0.12, "swing": "walkgen", "hold": "waist"}
        return cls(**{**kw, **overrides})

    def __post_init__(self):
        src, E = "walk", PlanningError
        integer(self.n_steps, src, "steps", 1, error=E, maximum=MAX_WALK_STEPS)
        finite_number(self.step_length, src, "step_length", -MAX_STEP_LENGTH, MAX_STEP_LENGTH, unit="m", error=E)
        finite_number(self.dt, src, "dt", 0.0, 0.05, strict=True, unit="s", error=E)
        for field in ("t_ss", "t_ds"):
            finite_number(getattr(self, field), src, field, 2 * self.dt, MAX_WALK_PHASE, unit="s", error=E)
        finite_number(self.t_start, src, "t_start", self.t_ds, MAX_WALK_PHASE, unit="s", error=E)
        finite_number(self.t_end, src, "t_end", 0.0, MAX_WALK_PHASE, unit="s", error=E)
        finite_number(self.step_height, src, "step_height", 0.0, 0.3, unit="m", error=E)
        if self.swing not in SWING_STYLES:
            raise PlanningError(f"walk: field 'swing' must be one of {', '.join(SWING_STYLES)}; value {self.swing!r}")
        if self.hold not in HOLDS:
            raise PlanningError(f"walk: field 'hold' must be one of {', '.join(HOLDS)}; value {self.hold!r}")
        if self.first_foot not in ("r", "l"):
            raise PlanningError(f"walk: field 'first_foot' must be r or l; value {self.first_foot!r}")
        samples = self.duration / self.dt
        if samples > MAX_WALK_SAMPLES:  # humanoid_planner.bounds
            raise PlanningError(
                f"walk: a pattern of {self.duration:g} s at {self.dt:g} s has {samples:.0f} samples, more than "
                f"{MAX_WALK_SAMPLES}: fewer steps, shorter phases or a lower rate"
            )

    @property
    def duration(self) -> float:
        """Total duration [s]."""
        return self.t_start + self.n_steps * (self.t_ss + self.t_ds) + self.t_end


@dataclass(frozen=True)
class FootGeometry:
    """Sole centres at the initial posture: x [m] (both feet) and the half spacing y [m] (left
    +y); the sole rectangle's half length / half width [m] about its centre; ``z_c`` the CoM
    height above the soles [m]; ``sole_z`` the soles' height [m]; ``com_xy`` the CoM's ground
    projection at the initial posture [m] (the walk starts and stands there: HRP-2's half-sitting
    CoM is 11 mm behind the sole centres, and a reference at the soles' midpoint made the first
    IK sample jump 0.025 rad away from the robot's initial posture)."""

    x0: float
    half_spacing: float
    half_length: float
    half_width: float
    z_c: float
    sole_z: float = 0.0
    com_xy: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Footstep:
    """Footprint ``index`` (1..n): ``foot`` ('r' or 'l') lifts at ``t_lift`` and lands at
    ``t_land`` [s] with its sole centre at ``start`` -> ``target`` (x, y) [m]."""

    index: int
    foot: str
    start: tuple[float, float]
    target: tuple[float, float]
    t_lift: float
    t_land: float


def footsteps(p: WalkParameters, g: FootGeometry) -> list[Footstep]:
    """The footstep list of ``p`` for feet ``g``."""
    pos = {"r": (g.x0, -g.half_spacing), "l": (g.x0, g.half_spacing)}
    other = {"r": "l", "l": "r"}
    out, foot = [], p.first_foot
    for i in range(1, p.n_steps + 1):
        t_lift = p.t_start + (i - 1) * (p.t_ss + p.t_ds)
        target = (g.x0 + i * p.step_length, pos[foot][1])
        out.append(Footstep(i, foot, pos[foot], target, t_lift, t_lift + p.t_ss))
        pos[foot] = target
        foot = other[foot]
    return out


def foot_geometry(robot, right="r_sole", left="l_sole", posture=None) -> FootGeometry:
    """`FootGeometry` of ``robot`` (a `humanoid_model.robot.Robot`) at ``posture`` (default its
    default posture) from its sole contact locations (point, hull) and its CoM."""
    q = robot.q(posture)
    model = robot.model
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    com = pin.centerOfMass(model, data, q)
    centres, extents = [], []
    for name in (right, left):
        loc = robot.contact_locations.get(name)
        if loc is None:
            raise PlanningError(f"walk: robot '{robot.name}' has no contact location '{name}'")
        M = data.oMf[model.getFrameId(loc.body)]
        centres.append(M.act(np.asarray(loc.point, float)))
        hull = np.asarray(loc.hull, float) - np.asarray(loc.point, float)
        extents.append(np.abs(hull[:, :2]).max(axis=0))
    (r, l), ext = centres, np.min(extents, axis=0)
    return FootGeometry(
        x0=float((r[0] + l[0]) / 2),
        half_spacing=float((l[1] - r[1]) / 2),
        half_length=float(ext[0]),
        half_width=float(ext[1]),
        z_c=float(com[2] - (r[2] + l[2]) / 2),
        sole_z=float((r[2] + l[2]) / 2),
        com_xy=(float(com[0]), float(com[1])),
    )
