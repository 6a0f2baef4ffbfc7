"""The ``planning`` section of a scene: what the contact planner needs besides the surfaces
(Escande 2008, §5.3.1 and the scenes of §7.2-7.4; docs/scenes.md "planning"): the contact locations
it may use, the start stance, forbidden (body, surface) pairs, the goal (regions a point must reach,
axes kept vertical, locations the goal stance holds), the hand-given guide (key postures, §6.3.1),
the individual body potentials (6.9), targets, extra tasks kept at every witness (§6.5), the
discrete bonus/malus and planner settings. Plain data, validated here (field paths and values in
every message); the planner (`humanoid_planner.contact.scene_problem`) turns it into constraints and
potentials for a given robot, so location and joint names are checked there against that robot (a
scene's planning section may serve several robots, e.g. the stairs for HRP-2 and BIP).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from humanoid_model.scene_geometry import Pose

__all__ = ["KeyPosture", "PlanningSpec", "Region", "VerticalAxis", "read_planning"]

AXES = ("x", "y", "z")
#: planner settings a scene may set (name -> type); docs/contact_planner.md has their meaning
SETTINGS = {
    "algorithm": str,
    "threshold": float,
    "reach": float,
    "dl": float,
    "dtheta": float,
    "max_candidates": int,
    "max_expanded": int,
    "time_limit": float,
    "margin": float,
    "pre_contact_distance": float,
    "self_collision": bool,
    "collision_margin": float,
    "activation": float,
    "stability": str,
    "theta_range": tuple,
    "joint_margin": float,
    "deformable": list,
    "candidates": str,
    "density": float,
    "deformable_angle": float,
    "placed_candidates": bool,
    "settle_releases": bool,
    "crowding": float,
    "crowding_radius": float,
    "restarts": int,
    "restart_expanded": int,
    "restart_jitter": float,
}
#: gains of the guide and body potentials a scene may set (docs/contact_planner.md "Potentials")
GAINS = ("a", "d0", "k", "max_deviation", "body_weight", "w_rot")
#: where the guide potential measures progress (docs/contact_planner.md "Potentials")
PROGRESS = ("posture", "root")


@dataclass(frozen=True)
class Region:
    """A point in an axis-aligned box: ``of`` is ``com``, ``root`` or a contact location's point;
    ``bounds`` per axis ``x``/``y``/``z``: (lo, hi) [m] with -inf/inf for an open side (an
    absent axis is free)."""

    of: str
    bounds: dict


@dataclass(frozen=True)
class VerticalAxis:
    """The axis ``axis`` (3,) of a contact location's body kept vertical, pointing up ((6.24))."""

    location: str
    axis: np.ndarray


@dataclass(frozen=True)
class KeyPosture:
    """A key posture of the guide: ``posture`` (a name of the robot, or ``default``), ``joints``
    overrides [rad], and ``placement``: the pose of the posture's ground frame in the world (as
    `RobotSpec.placement`), or ``base``: the absolute base pose (as `RobotSpec.base`)."""

    posture: str = "default"
    joints: dict = field(default_factory=dict)
    placement: Pose = field(default_factory=Pose)
    base: Pose | None = None


@dataclass(frozen=True)
class PlanningSpec:
    """The ``planning`` section (module docstring; docs/scenes.md)."""

    locations: tuple = ()
    start: dict = field(default_factory=dict)
    forbidden: tuple = ()
    goal: tuple = ()
    goal_vertical: tuple = ()
    goal_contacts: tuple = ()
    guide: tuple = ()
    body_potentials: tuple = ()
    targets: tuple = ()
    tasks: tuple = ()
    gains: dict = field(default_factory=dict)
    bonus: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    guide_progress: str = "posture"
    #: location name -> diameter [m]: its hull for stability is that disc (the chair
    #: stand-up's "feet as 2 cm discs", Escande 2008, §7.3.2; `ContactLocation.with_disc`)
    stability_discs: dict = field(default_factory=dict)
    #: robot name -> settings over ``settings`` when planning for that robot (one section serving
    #: several robots: BIP's reach and footholds on the stairs)
    robot_settings: dict = field(default_factory=dict)


def _names(reader, d, key, where, allowed=None) -> tuple:
    v = d.get(key) or []
    if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
        reader.fail(reader.field(where, key), v, "expected a list of names")
    for x in v:
        if allowed is not None and x not in allowed:
            reader.fail(
                reader.field(where, key), x, f"no planner surface of that name (surfaces: {', '.join(allowed)})"
            )
    return tuple(v)


def _region(reader, d, w) -> Region:
    reader.keys(d, w, ("of",) + AXES, required=("of",))
    if not isinstance(d["of"], str) or not d["of"]:
        reader.fail(f"{w}.of", d["of"], "expected com, root or a contact location")
    bounds = {}
    for a in AXES:
        if a not in d:
            continue
        v = d[a]
        if not isinstance(v, list) or len(v) != 2:
            reader.fail(f"{w}.{a}", v, "expected [lo, hi] [m] (null for an open side)")
        lo = -np.inf if v[0] is None else reader.number({a: v[0]}, a, w)
        hi = np.inf if v[1] is None else reader.number({a: v[1]}, a, w)
        if not lo < hi:
            reader.fail(f"{w}.{a}", v, "lo must be < hi")
        bounds[a] = (lo, hi)
    if not bounds:
        reader.fail(w, d, "give at least one of x, y, z")
    return Region(d["of"], bounds)


def _vertical(reader, d, w) -> VerticalAxis:
    reader.keys(d, w, ("location", "axis"), required=("location",))
    axis = reader.vector(d, "axis", w, default=(0, 0, 1), nonzero=True)
    return VerticalAxis(str(d["location"]), axis / np.linalg.norm(axis))


def _key_posture(reader, d, w, postures) -> KeyPosture:
    reader.keys(d, w, ("posture", "joints", "placement", "base"))
    if "placement" in d and "base" in d:
        reader.fail(f"{w}.base", d["base"], "give either placement or base, not both")
    posture = d.get("posture", "default")
    if not isinstance(posture, str) or (posture != "default" and postures is not None and posture not in postures):
        reader.fail(
            f"{w}.posture", posture, f"expected default or a posture of the robot ({', '.join(postures or [])})"
        )
    joints = d.get("joints") or {}
    if not isinstance(joints, Mapping):
        reader.fail(f"{w}.joints", joints, "expected a mapping joint name -> angle [rad]")
    angles = {str(j): reader.number(joints, j, f"{w}.joints", required=True) for j in joints}
    base = reader.pose(d, "base", w) if d.get("base") is not None else None
    return KeyPosture(posture, angles, reader.pose(d, "placement", w), base)


def _mapping(reader, d, key, where, allowed) -> dict:
    v = d.get(key) or {}
    w = reader.field(where, key)
    reader.keys(v, w, tuple(allowed))
    return v


def read_planning(reader, d, surfaces, postures=None) -> PlanningSpec | None:
    """The `PlanningSpec` of the section ``d`` (None when absent), checked with ``reader`` (a
    `scene_fields.FieldReader`); ``surfaces``: the scene's planner surface names; ``postures``:
    the scene robot's posture names (None: not checked)."""
    if d is None:
        return None
    w = "planning"
    keys = (
        "locations",
        "start",
        "forbidden",
        "goal",
        "guide",
        "guide_progress",
        "body_potentials",
        "targets",
        "tasks",
        "gains",
        "bonus",
        "settings",
        "robot_settings",
        "stability_discs",
    )
    reader.keys(d, w, keys)
    start = _mapping(reader, d, "start", w, d.get("start") or {})
    for loc, surf in start.items():
        if surf not in surfaces:
            reader.fail(f"{w}.start.{loc}", surf, f"no planner surface of that name (surfaces: {', '.join(surfaces)})")
    forbidden = []
    for i, p in enumerate(d.get("forbidden") or []):
        if not (isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)):
            reader.fail(f"{w}.forbidden[{i}]", p, "expected [location, kind or body; surface]")
        if p[1] not in surfaces:
            reader.fail(f"{w}.forbidden[{i}]", p, f"no planner surface '{p[1]}' (surfaces: {', '.join(surfaces)})")
        forbidden.append(tuple(p))
    goal = d.get("goal") or {}
    reader.keys(goal, f"{w}.goal", ("regions", "vertical", "contacts"))
    regions = tuple(_region(reader, r, f"{w}.goal.regions[{i}]") for i, r in enumerate(goal.get("regions") or []))
    vertical = tuple(_vertical(reader, r, f"{w}.goal.vertical[{i}]") for i, r in enumerate(goal.get("vertical") or []))
    guide = tuple(_key_posture(reader, k, f"{w}.guide[{i}]", postures) for i, k in enumerate(d.get("guide") or []))
    targets = []
    for i, t in enumerate(d.get("targets") or []):
        tw = f"{w}.targets[{i}]"
        reader.keys(t, tw, ("location", "point"), required=("location", "point"))
        targets.append((str(t["location"]), reader.vector(t, "point", tw, required=True)))
    tasks = tuple(_vertical(reader, t, f"{w}.tasks[{i}]") for i, t in enumerate(d.get("tasks") or []))
    gains = {k: reader.number(d["gains"], k, f"{w}.gains", minimum=0.0) for k in _mapping(reader, d, "gains", w, GAINS)}
    bonus_raw = _mapping(reader, d, "bonus", w, ("per_contact", "k0", "hands_only", "values"))
    bonus = {
        k: reader.number(bonus_raw, k, f"{w}.bonus") for k in ("per_contact", "k0", "hands_only") if k in bonus_raw
    }
    values = bonus_raw.get("values") or {}
    reader.keys(values, f"{w}.bonus.values", tuple(values))
    bonus["values"] = {str(k): reader.number(values, k, f"{w}.bonus.values", required=True) for k in values}
    settings = _settings(reader, d, "settings", w)
    robots = d.get("robot_settings") or {}
    if not isinstance(robots, dict):
        reader.fail(f"{w}.robot_settings", robots, "expected a mapping robot name -> settings")
    robot_settings = {str(name): _settings(reader, robots, name, f"{w}.robot_settings") for name in robots}
    discs = d.get("stability_discs") or {}
    if not isinstance(discs, dict):
        reader.fail(f"{w}.stability_discs", discs, "expected a mapping location name -> diameter [m]")
    stability_discs = {
        str(k): reader.number(discs, k, f"{w}.stability_discs", positive=True, required=True) for k in discs
    }
    progress = d.get("guide_progress", "posture")
    if progress not in PROGRESS:
        reader.fail(f"{w}.guide_progress", progress, f"expected one of {', '.join(PROGRESS)}")
    return PlanningSpec(
        guide_progress=progress,
        locations=_names(reader, d, "locations", w),
        start=dict(start),
        forbidden=tuple(forbidden),
        goal=regions,
        goal_vertical=vertical,
        goal_contacts=_names(reader, goal, "contacts", f"{w}.goal"),
        guide=guide,
        body_potentials=_names(reader, d, "body_potentials", w),
        targets=tuple(targets),
        tasks=tasks,
        gains=gains,
        bonus=bonus,
        settings=settings,
        robot_settings=robot_settings,
        stability_discs=stability_discs,
    )


def _settings(reader, d, key, where) -> dict:
    """The planner settings of the mapping ``d[key]`` (names and types of `SETTINGS`)."""
    w = reader.field(where, key)
    out = {}
    for k, v in _mapping(reader, d, key, where, SETTINGS).items():
        kind = SETTINGS[k]
        if kind is tuple:
            r = reader.vector(d[key], k, w, n=2)
            if not r[0] < r[1] or r[1] - r[0] > 2 * np.pi + 1e-9:
                reader.fail(f"{w}.{k}", v, "expected [lo, hi] [rad], lo < hi, at most a full turn")
            out[k] = (float(r[0]), float(r[1]))
        elif kind is list:
            out[k] = _names(reader, d[key], k, w)
        elif kind is str or kind is bool:
            if not isinstance(v, kind):
                reader.fail(f"{w}.{k}", v, f"expected a {kind.__name__}")
            out[k] = v
        else:
            x = reader.number(d[key], k, w, minimum=0.0)
            if kind is int and x != int(x):
                reader.fail(f"{w}.{k}", v, "expected an integer")
            out[k] = kind(x)
    return out
