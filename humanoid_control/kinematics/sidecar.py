"""The kinematic sidecar ``NAME.kin.yaml``: what a URDF cannot say about a structure.

A URDF describes a tree; the thesis's MAD file also declares loop closures, extra frames
("référentiels"), which element follows which input device, relative and absolute joint limits
and the initial configuration (Flückiger 1998, §4.1.2). The sidecar holds
exactly those, next to the URDF::

    urdf: NAME.urdf            # relative to the sidecar, or a shipped robot name (hrp2, bip)
    floating: false            # true: free-flyer root joint "root_joint"; false: fixed base
    length_scale: 0.5          # optional [m/rad]: rotation rows are multiplied by it (docs/kinematics.md)
    frames:                    # extra frames fixed on a link or on another frame
      - {name: tool, parent: link6, xyz: [0, 0, 0.1], rpy: [0, 0, 0]}   # [m], [rad], URDF rpy
    closures:                  # loop closures, hard constraints of the solver
      - {name: loop1, type: weld, frame_a: f1, frame_b: f2}      # 6-D
      - {name: loop2, type: ball, frame_a: f3, frame_b: world}   # 3-D (positions only)
    sources:                   # input sources per frame; the first is active at load; none = not driven
      tool: [mouse, none]
    limits:
      absolute: {joint: [lower, upper]}   # [rad] or [m], replace the URDF's
      relative: {joint: [lower, upper]}   # [rad] or [m], about the initial value (MAD `range`)
    initial: {joint: value}    # [rad] or [m]; root_joint: [x, y, z, qx, qy, qz, qw]; or a posture name

``rpy`` is the URDF convention (fixed axes, R = Rz(yaw)·Ry(pitch)·Rx(roll)). ``relative``
limits are the MAD ``range {lo hi}``: limits relative to the joint's initial value
(Flückiger 1998, §4.1.2.3; absolute = initial + range). ``world`` as
``frame_b`` welds ``frame_a`` to its world placement at the initial configuration (a foot on the
ground). ``initial`` given as text names a posture of the robot's ``NAME.yaml`` (``half-sitting``).

This module checks the document's form (types, unknown keys with a close-match hint, duplicate
names); `humanoid_control.kinematics.structure` checks the names against the URDF. Every error is a
`KinematicsError` with one line naming the file and the field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from humanoid_control.exceptions import KinematicsError
from humanoid_model.validation import did_you_mean, finite_number, finite_vector, message
from humanoid_model.yaml_file import read_yaml

__all__ = ["KinSidecar", "FrameSpec", "ClosureSpec", "read_kin_sidecar", "parse_kin_sidecar", "CLOSURE_TYPES"]

SUFFIX = ".kin.yaml"
KEYS = ("urdf", "floating", "length_scale", "frames", "closures", "sources", "limits", "initial")
FRAME_KEYS = ("name", "parent", "xyz", "rpy")
CLOSURE_KEYS = ("name", "type", "frame_a", "frame_b")
LIMIT_KEYS = ("absolute", "relative")
CLOSURE_TYPES = {"weld": 6, "ball": 3}  #: closure type -> rows (Flückiger 1998, Table 4-1; "rotule", Appendix A)
WORLD = "world"  #: the frame_b of a closure to the ground
NONE = "none"  #: the source entry "not driven" (the thesis's sensor 0, Flückiger 1998, §4.1.2.6)


@dataclass(frozen=True)
class FrameSpec:
    """An extra frame: ``xyz`` [m] and ``rpy`` [rad] (URDF convention) relative to ``parent``."""

    name: str
    parent: str
    xyz: np.ndarray
    rpy: np.ndarray


@dataclass(frozen=True)
class ClosureSpec:
    """A loop closure: ``type`` weld (6-D) or ball (3-D) between ``frame_a`` and ``frame_b``."""

    name: str
    type: str
    frame_a: str
    frame_b: str


@dataclass
class KinSidecar:
    """A checked sidecar document; names are not yet checked against the URDF."""

    source: str  #: the file (or "<dict>") named in messages
    urdf: str
    base_dir: Path | None = None  #: folder the ``urdf`` path is relative to
    floating: bool = False
    length_scale: float | None = None
    frames: list[FrameSpec] = field(default_factory=list)
    closures: list[ClosureSpec] = field(default_factory=list)
    sources: dict[str, list[str]] = field(default_factory=dict)
    absolute: dict[str, tuple[float, float]] = field(default_factory=dict)
    relative: dict[str, tuple[float, float]] = field(default_factory=dict)
    initial: dict | str = field(default_factory=dict)


def _fail(src, fld, requirement, value):
    raise KinematicsError(message(src, fld, requirement, value))


def _keys(doc, allowed, src, where):
    for key in doc:
        if key not in allowed:
            prefix = f"{where}." if where else ""
            raise KinematicsError(
                f"{src}: unknown field '{prefix}{key}'{did_you_mean(key, allowed)} (known: {', '.join(allowed)})"
            )


def _name(value, src, fld):
    if not isinstance(value, str) or not value.strip():
        _fail(src, fld, "a non-empty name", value)
    return value


def _mapping(value, src, fld):
    if value is None:
        return {}
    if not isinstance(value, dict):
        _fail(src, fld, "a mapping", value)
    return value


def _list(value, src, fld):
    if value is None:
        return []
    if not isinstance(value, list):
        _fail(src, fld, "a list", value)
    return value


def _frames(items, src):
    out, seen = [], set()
    for i, item in enumerate(_list(items, src, "frames")):
        where = f"frames[{i}]"
        item = _mapping(item, src, where)
        _keys(item, FRAME_KEYS, src, where)
        for key in ("name", "parent"):
            if key not in item:
                _fail(src, f"{where}.{key}", "given", None)
        name = _name(item["name"], src, f"{where}.name")
        if name in seen:
            _fail(src, f"{where}.name", "unique among the frames", name)
        seen.add(name)
        xyz = finite_vector(item.get("xyz", [0, 0, 0]), 3, src, f"{where}.xyz", error=KinematicsError)
        rpy = finite_vector(item.get("rpy", [0, 0, 0]), 3, src, f"{where}.rpy", error=KinematicsError)
        out.append(FrameSpec(name, _name(item["parent"], src, f"{where}.parent"), xyz, rpy))
    return out


def _closures(items, src):
    out, seen = [], set()
    for i, item in enumerate(_list(items, src, "closures")):
        where = f"closures[{i}]"
        item = _mapping(item, src, where)
        _keys(item, CLOSURE_KEYS, src, where)
        for key in CLOSURE_KEYS:
            if key not in item:
                _fail(src, f"{where}.{key}", "given", None)
        name = _name(item["name"], src, f"{where}.name")
        if name in seen:
            _fail(src, f"{where}.name", "unique among the closures", name)
        seen.add(name)
        kind = item["type"]
        if kind not in CLOSURE_TYPES:
            hint = did_you_mean(kind, CLOSURE_TYPES)
            _fail(src, f"{where}.type", f"one of {', '.join(CLOSURE_TYPES)}{hint}", kind)
        a = _name(item["frame_a"], src, f"{where}.frame_a")
        b = _name(item["frame_b"], src, f"{where}.frame_b")
        if a == b:
            _fail(src, f"{where}.frame_b", "a frame other than frame_a", b)
        if a == WORLD:
            _fail(src, f"{where}.frame_a", "a frame of the robot ('world' goes in frame_b)", a)
        out.append(ClosureSpec(name, kind, a, b))
    return out


def _sources(doc, src):
    out = {}
    for frame, entries in _mapping(doc, src, "sources").items():
        fld = f"sources.{frame}"
        if isinstance(entries, str):
            entries = [entries]
        entries = _list(entries, src, fld)
        if not entries:
            _fail(src, fld, "a non-empty list of source names (none = not driven)", entries)
        names = [_name(e, src, f"{fld}[{i}]") for i, e in enumerate(entries)]
        if len(set(names)) != len(names):
            _fail(src, fld, "a list without repeated names", names)
        out[_name(frame, src, "sources")] = names
    return out


def _limits(doc, src):
    doc = _mapping(doc, src, "limits")
    _keys(doc, LIMIT_KEYS, src, "limits")
    out = {}
    for kind in LIMIT_KEYS:
        value = doc.get(kind)
        if isinstance(value, list) and not value:  # "relative: []": none
            value = {}
        table = {}
        for joint, pair in _mapping(value, src, f"limits.{kind}").items():
            fld = f"limits.{kind}.{joint}"
            lo, hi = finite_vector(pair, 2, src, fld, error=KinematicsError)
            if not lo <= hi:
                _fail(src, fld, "[lower, upper] with lower <= upper", pair)
            table[_name(joint, src, f"limits.{kind}")] = (float(lo), float(hi))
        out[kind] = table
    both = sorted(set(out["absolute"]) & set(out["relative"]))
    if both:
        _fail(src, f"limits.relative.{both[0]}", "given once (absolute or relative, not both)", both[0])
    return out["absolute"], out["relative"]


def _initial(value, src):
    if value is None:
        return {}
    if isinstance(value, str):
        return _name(value, src, "initial")
    out = {}
    for joint, x in _mapping(value, src, "initial").items():
        fld = f"initial.{joint}"
        if isinstance(x, list):
            out[_name(joint, src, "initial")] = finite_vector(x, None, src, fld, error=KinematicsError)
        else:
            out[_name(joint, src, "initial")] = finite_number(x, src, fld, error=KinematicsError)
    return out


def parse_kin_sidecar(doc, source: str = "<dict>", base_dir: Path | None = None) -> KinSidecar:
    """Check a sidecar document (the decoded YAML, or the MAD converter's dict) and return it as a
    `KinSidecar`. ``source`` names it in messages; ``base_dir`` is the folder of a relative ``urdf``."""
    src = source
    if not isinstance(doc, dict):
        _fail(src, "(top level)", "a mapping", doc)
    _keys(doc, KEYS, src, "")
    if "urdf" not in doc:
        _fail(src, "urdf", "given (a URDF path relative to the sidecar, or a shipped robot name)", None)
    floating = doc.get("floating", False)
    if not isinstance(floating, bool):
        _fail(src, "floating", "true or false", floating)
    scale = doc.get("length_scale")
    if scale is not None:
        scale = finite_number(
            scale, src, "length_scale", minimum=0.0, strict=True, unit="[m/rad]", error=KinematicsError
        )
    absolute, relative = _limits(doc.get("limits"), src)
    return KinSidecar(
        source=src,
        urdf=_name(doc["urdf"], src, "urdf"),
        base_dir=base_dir,
        floating=floating,
        length_scale=scale,
        frames=_frames(doc.get("frames"), src),
        closures=_closures(doc.get("closures"), src),
        sources=_sources(doc.get("sources"), src),
        absolute=absolute,
        relative=relative,
        initial=_initial(doc.get("initial"), src),
    )


def read_kin_sidecar(path) -> KinSidecar:
    """Read and check the sidecar file ``path`` (`KinematicsError` naming the file and field)."""
    path = Path(path)
    doc = read_yaml(path, "kinematic sidecar YAML file", KinematicsError)
    if doc is None:
        raise KinematicsError(f"{path}: empty kinematic sidecar (it needs at least 'urdf')")
    return parse_kin_sidecar(doc, str(path), path.parent)
