"""The one reader of a robot's description: its URDF (`read_urdf`) and its ``NAME.yaml`` sidecar
(`read_sidecar`).

`read_urdf` parses the URDF XML once into a `UrdfDescription`: links (name and ``<inertial>``)
and joints (name, type, parent, child, ``<origin>``, ``<axis>``, ``<limit>``) in declaration
order, the root link, and the XML itself (to rewrite ``<mesh filename>`` for Pinocchio). Visual,
collision, gazebo, transmission and sensor elements are not interpreted. Users:

* `humanoid_model.robot.load_robot`: the mesh paths and the sidecar (Pinocchio builds the model
  from the rewritten URDF text);
* `humanoid_model.scene`: link names (wrench targets), movable joints and their limits, posture
  names;
* `humanoid_model.dynmodel.urdf.parse_urdf`: its symbolic tree (fixed joints merged, inertias
  rotated) built from these links and joints.

URDF defaults apply to missing tags (``<origin>``: identity; ``<axis>``: (1, 0, 0); no
``<inertial>``: no mass; an ``<inertial>`` without ``<origin>``: COM at the link origin). Like
urdfdom, an ``<inertial>`` needs ``<mass value>`` and ``<inertia>`` with all six entries. The
reader checks what every user needs: well-formed XML, a
``<robot>`` top element, unique link and joint names, a known joint type, declared parent and
child links, numbers where numbers belong, a non-zero axis for moving joints and a tree (one root
link, no link child of two joints, no cycle, at most `MAX_DEPTH` links from the root to any leaf,
XML elements nested at most `MAX_NESTING` levels) and the inertias' physics (finite mass >= 0,
positive semi-definite tensor whose principal moments satisfy the triangle inequality), and a
``<robot>`` with no link is an "empty robot". Joint ``<dynamics damping friction>`` (viscous
[N·m·s/rad] and Coulomb [N·m] friction, default 0, both >= 0) is read too. Errors raise
`ModelError` naming the source (file path or
``<urdf string>``), the element (``<joint name='j'> <axis>``) and the problem. Every URDF goes
through this reader before Pinocchio sees it (`load_robot`, the scene loader, `dynmodel`).

`resolve_robot_path` finds the file of a robot name or path (`humanoid_model.paths.resolve`) and
`available_robots` lists the shipped ones (``urdf/*.urdf``). The sidecar ``NAME.yaml`` beside
``NAME.urdf`` holds postures, the default posture, contact
locations, sensors, armature, the planar reduction (format in DEVELOPERS.md), the collision
filtering rules (`humanoid_model.collision_rules`, docs/robots.md) and the ball joints
(`humanoid_model.spherical_joints`).

Inside a `read_once` block each URDF file and sidecar is read once: the scene loader, the robot
loader and `World.from_scene` open one so that loading a scene with its robot reads each file once.
"""

from __future__ import annotations

import copy
import math
import os
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

import numpy as np

from humanoid_model import files
from humanoid_model.collision_rules import CollisionRules, read_collision_rules
from humanoid_model.exceptions import ModelError, UnknownRobotError
from humanoid_model.paths import resolve, shipped_files, urdf_dir
from humanoid_model.srdf import find_srdf, read_srdf
from humanoid_model.validation import message
from humanoid_model.xacro_file import XACRO_SUFFIX, expand, is_xacro, robot_stem, split_robot_argument, with_arguments
from humanoid_model.yaml_file import read_yaml

__all__ = [
    "world_collision_rules",
    "MAX_DEPTH",
    "MAX_NESTING",
    "JOINT_TYPES",
    "MOVING_TYPES",
    "UrdfInertial",
    "UrdfLink",
    "UrdfJoint",
    "UrdfDescription",
    "read_urdf",
    "urdf_file_text",
    "sidecar_path",
    "available_robots",
    "resolve_robot_path",
    "Sidecar",
    "read_sidecar",
    "posture_names",
    "read_once",
]

JOINT_TYPES = ("revolute", "continuous", "prismatic", "fixed", "floating", "planar")
MOVING_TYPES = ("revolute", "continuous", "prismatic", "planar")  # types that need a non-zero axis
ZERO_POSTURE = "zero"  # the posture every robot has (`humanoid_model.robot`)
# [links] deepest root-to-leaf path accepted (chosen): Pinocchio 4.1's URDF parser recurses once
# per link, ~2.2 kB of C stack each; it segfaulted at 3,850 links deep (passed at 3,700) with the
# default 8 MiB stack. 1000 leaves a 3.7x margin there; real robots are < 50 deep.
MAX_DEPTH = 1000
MAX_NESTING = 100  # XML element levels accepted (chosen: a URDF needs ~6, robot/link/visual/geometry/mesh)


def _frozen(values) -> np.ndarray:
    a = np.array(values, dtype=float)
    a.setflags(write=False)  # descriptions are cached and shared: never modified in place
    return a


@dataclass(frozen=True)
class UrdfInertial:
    """A link's ``<inertial>``: mass [kg], COM ``xyz`` [m] in the link frame, orientation ``rpy``
    [rad] of the inertia frame, ``inertia`` (3, 3) [kg·m²] about the COM in the inertia frame."""

    mass: float
    xyz: np.ndarray
    rpy: np.ndarray
    inertia: np.ndarray


@dataclass(frozen=True)
class UrdfLink:
    """A ``<link>``: its name and ``<inertial>`` (None when absent)."""

    name: str
    inertial: UrdfInertial | None = None


@dataclass(frozen=True)
class UrdfJoint:
    """A ``<joint>``: type (one of `JOINT_TYPES`), parent and child link names, origin ``xyz`` [m]
    and ``rpy`` [rad] in the parent frame, ``axis`` (3,) as written (not normalised; (1, 0, 0)
    when absent) and the ``<limit>`` attributes (None when absent): lower, upper [rad] or [m],
    effort [N·m] or [N], velocity [rad/s] or [m/s]."""

    name: str
    type: str
    parent: str
    child: str
    xyz: np.ndarray
    rpy: np.ndarray
    axis: np.ndarray
    lower: float | None = None
    upper: float | None = None
    effort: float | None = None
    velocity: float | None = None
    damping: float = 0.0  #: ``<dynamics damping>``: viscous friction [N·m·s/rad] or [N·s/m]
    friction: float = 0.0  #: ``<dynamics friction>``: Coulomb (dry) friction [N·m] or [N]
    #: ``<mimic joint multiplier offset>``: (mimicked joint, multiplier, offset): q = multiplier q_joint + offset
    mimic: tuple[str, float, float] | None = None

    @property
    def movable(self) -> bool:
        """Neither fixed nor floating: a joint a posture or a command sets."""
        return self.type not in ("fixed", "floating")

    @property
    def limits(self) -> tuple[float, float]:
        """(lower, upper) position limits; +-inf for a continuous joint or a missing bound."""
        if self.type == "continuous":
            return -math.inf, math.inf
        lo = -math.inf if self.lower is None else self.lower
        hi = math.inf if self.upper is None else self.upper
        return lo, hi


@dataclass(frozen=True)
class UrdfDescription:
    """A parsed URDF (see the module docstring). ``links`` by name and ``joints`` in declaration
    order; ``root`` is the root link; ``source`` the file path or ``<urdf string>``."""

    name: str
    links: Mapping[str, UrdfLink]
    joints: tuple[UrdfJoint, ...]
    root: str
    source: str
    _xml: ET.Element = field(repr=False, compare=False, default=None)

    @property
    def link_names(self) -> list[str]:
        """Link names in declaration order."""
        return list(self.links)

    @property
    def mimic_joints(self) -> dict[str, tuple[str, float, float]]:
        """``{joint: (mimicked joint, multiplier, offset)}`` of the movable joints with a ``<mimic>``
        (a fixed joint's ``<mimic>`` moves nothing and is left out)."""
        return {j.name: j.mimic for j in self.joints if j.mimic is not None and j.movable}

    @property
    def movable_joints(self) -> list[UrdfJoint]:
        """The joints that are neither fixed nor floating, in declaration order."""
        return [j for j in self.joints if j.movable]

    def joint_limits(self) -> dict[str, tuple[float, float]]:
        """``{movable joint: (lower, upper)}`` (see `UrdfJoint.limits`)."""
        return {j.name: j.limits for j in self.movable_joints}

    def xml_with_mesh_paths(self, mesh_path: Callable[[str], str]) -> str:
        """The URDF XML with every ``<mesh filename>`` replaced by ``mesh_path(filename)``."""
        root = copy.deepcopy(self._xml)
        for mesh in root.iter("mesh"):
            fname = mesh.get("filename")
            if not fname:
                raise ModelError(f"{self.source}: <mesh> without a filename attribute")
            mesh.set("filename", str(mesh_path(fname)))
        return ET.tostring(root, encoding="unicode")


# ----------------------------------------------------------------------------------- reading
def available_robots() -> list[str]:
    """Names of the shipped robots (``urdf/*.urdf``)."""
    return list(shipped_files(urdf_dir(), ".urdf"))


def resolve_robot_path(name_or_path, base: Path | None = None, context: str | None = None, error=UnknownRobotError):
    """Path of an existing URDF or xacro file (relative to ``base`` first, when given) or of a
    shipped robot's URDF, by the rule of `humanoid_model.paths.resolve`; else ``error`` (default
    `UnknownRobotError`; message prefixed with ``context``). A xacro file may be followed by its
    arguments, ``"FILE.urdf.xacro name:=value ..."`` (`humanoid_model.xacro_file`): the path
    returned carries them."""
    args = dict(getattr(name_or_path, "xacro_args", ()))
    if not isinstance(name_or_path, Path):
        name_or_path, args = split_robot_argument(str(name_or_path), error)
    path = resolve(
        name_or_path,
        shipped_files(urdf_dir(), ".urdf"),
        "robot",
        (".urdf", XACRO_SUFFIX),
        error,
        file_kind="URDF file",
        base=base,
        context=context,
    )
    return with_arguments(path, args)


# The reads of the current `read_once` block: (kind, absolute path) -> what was read (None outside one)
_READS: ContextVar[dict | None] = ContextVar("humanoid_model_description_reads", default=None)


@contextmanager
def read_once() -> Iterator[None]:
    """A block in which each robot file is read once: `read_urdf` of a file path and `read_sidecar`
    return what the block's first read of that file returned (the same object), without opening
    the file again. Loading a scene, its robot and a World around them reads the URDF and the
    sidecar once each (`humanoid_model.scene.load_scene`, `humanoid_model.robot.load_robot`,
    `humanoid_sim.world.World.from_scene`). Blocks nest (an inner block shares the outer one's
    reads); a file changed during a block is not read again before the block ends. Per thread
    and per asyncio task (a context variable)."""
    if _READS.get() is not None:
        yield
        return
    token = _READS.set({})
    try:
        yield
    finally:
        _READS.reset(token)


def _read_once(kind, path: Path, read: Callable):
    """``read()``, or the current `read_once` block's earlier result for (``kind``, ``path``)."""
    reads = _READS.get()
    if reads is None:
        return read()
    key = (kind, os.path.abspath(path))
    if key not in reads:
        reads[key] = read()  # an error is raised, not kept: the next read tries again
    return reads[key]


def read_urdf(urdf) -> UrdfDescription:
    """Parse a URDF file (a `Path`, or a str without ``<``) or URDF XML text (a ROS 2
    ``robot_description``). Descriptions are cached by source and text (a changed file is
    parsed again); inside a `read_once` block a file is read once."""
    if isinstance(urdf, Path) or (isinstance(urdf, str) and "<" not in urdf):
        path = urdf if isinstance(urdf, Path) else Path(urdf)  # (an XacroPath keeps its arguments)
        return _read_once(("urdf", getattr(path, "xacro_args", ())), path, lambda: _read_urdf_file(path))
    return _parse(str(urdf), "<urdf string>")


def urdf_file_text(path: Path) -> str:
    """The URDF text of a robot file: a URDF as written, a xacro file expanded
    (`humanoid_model.xacro_file.expand`, with the arguments an `XacroPath` carries)."""
    if not path.exists():
        raise ModelError(f"{path}: URDF file not found")
    return expand(path) if is_xacro(path) else files.read_text(path, "URDF file", ModelError)


def _read_urdf_file(path: Path) -> UrdfDescription:
    return _parse(urdf_file_text(path), str(path))


def _numbers(text, n, where, attr, src) -> list[float]:
    """The ``n`` finite numbers of an attribute's text, or `ModelError` naming the element."""
    try:
        vals = [float(t) for t in text.split()]
    except ValueError:
        raise ModelError(f"{src}: {where}: attribute {attr}='{text}' is not a list of numbers") from None
    if len(vals) != n:
        raise ModelError(f"{src}: {where}: attribute {attr}='{text}' needs {n} numbers, got {len(vals)}")
    if not all(map(math.isfinite, vals)):
        raise ModelError(f"{src}: {where}: attribute {attr}='{text}' is not finite")
    return vals


def _floats(text, n, where, attr, src) -> np.ndarray:
    return _frozen(_numbers(text, n, where, attr, src))


def _scalar(elem, attr, where, src, default=None, infinite_ok=False) -> float | None:
    text = elem.get(attr)
    if text is None:
        return default
    if infinite_ok and text.strip().lower().lstrip("+-") in ("inf", "infinity"):
        return float(text)
    return _numbers(text, 1, where, attr, src)[0]


_ZERO3 = _frozen(np.zeros(3))  # shared read-only defaults
_X_AXIS = _frozen([1.0, 0.0, 0.0])


def _origin(elem, where, src):
    o = elem.find("origin")
    if o is None:
        return _ZERO3, _ZERO3
    xyz = _floats(o.get("xyz", "0 0 0"), 3, f"{where} <origin>", "xyz", src)
    rpy = _floats(o.get("rpy", "0 0 0"), 3, f"{where} <origin>", "rpy", src)
    return xyz, rpy


INERTIA_ENTRIES = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")
# [-] slack of the triangle inequality, relative to the largest principal moment (chosen): a flat
# plate lies exactly on the bound (Izz = Ixx + Iyy), and URDF files commonly write 6 significant
# digits, whose rounding (<= 5e-7 relative per entry) can put a valid plate ~1.5e-6 over it; 1e-5
# keeps a 7x margin and still rejects real errors (Talos' gripper motor link in
# example-robot-data, GitHub #130: 2.5e-2 over; a 3.6 % violation reported for galbot_s1).
TRIANGLE_RTOL = 1e-5


def _inertial(le, where, src) -> UrdfInertial | None:
    """A link's ``<inertial>``: ``<mass value>`` and ``<inertia>`` with its six entries are required
    (as urdfdom requires them); mass >= 0, tensor positive semi-definite, principal moments
    satisfying the triangle inequality (each <= the sum of the other two, `TRIANGLE_RTOL`)."""
    ine = le.find("inertial")
    if ine is None:
        return None
    xyz, rpy = _origin(ine, f"{where} <inertial>", src)
    me = ine.find("mass")
    if me is None:
        raise ModelError(f"{src}: {where} <inertial>: missing <mass value='...'>")
    if me.get("value") is None:
        raise ModelError(f"{src}: {where} <inertial> <mass>: missing attribute 'value'")
    mass = _scalar(me, "value", f"{where} <inertial> <mass>", src)
    if mass < 0:
        raise ModelError(f"{src}: {where} <inertial> <mass value='{me.get('value')}'>: mass must be >= 0")
    ie = ine.find("inertia")
    w = f"{where} <inertial> <inertia>"
    if ie is None:
        raise ModelError(f"{src}: {where} <inertial>: missing <inertia ixx iyy izz ixy ixz iyz>")
    missing = [a for a in INERTIA_ENTRIES if ie.get(a) is None]
    if missing:
        raise ModelError(f"{src}: {w}: missing attribute(s) {', '.join(missing)} (all six entries are required)")
    ixx, ixy, ixz, iyy, iyz, izz = (_scalar(ie, a, w, src) for a in INERTIA_ENTRIES)
    inertia = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    text = f"(ixx={ixx}, iyy={iyy}, izz={izz}, ixy={ixy}, ixz={ixz}, iyz={iyz})"
    scale = max(1.0, float(np.abs(inertia).max()))
    eig = np.linalg.eigvalsh(inertia)
    if eig.min() < -1e-12 * scale:
        raise ModelError(f"{src}: {w}: the inertia tensor {text} is not positive semi-definite")
    # the same absolute floor as the PSD test (1e-12 kg m^2): a zero tensor written with round-off
    # (iCub's head in example-robot-data: ixz = 2.4e-35, the rest 0) is a massless link, not an error
    if eig[2] > eig[0] + eig[1] + TRIANGLE_RTOL * float(eig[2]) + 1e-12 * scale:
        raise ModelError(
            f"{src}: {w}: the inertia tensor {text} violates the triangle inequality: principal moment "
            f"{eig[2]:.6g} > {eig[0]:.6g} + {eig[1]:.6g} (no rigid body has these moments)"
        )
    return UrdfInertial(mass, xyz, rpy, _frozen(inertia))


def _joint(je, links, src) -> UrdfJoint:
    name = je.get("name")
    where = f"<joint name='{name}'>"
    jtype = je.get("type")
    if jtype not in JOINT_TYPES:
        raise ModelError(f"{src}: {where}: type='{jtype}' is not a URDF joint type ({', '.join(JOINT_TYPES)})")
    ends = []
    for tag in ("parent", "child"):
        e = je.find(tag)
        if e is None or not e.get("link"):
            raise ModelError(f"{src}: {where}: missing <{tag} link='...'>")
        if e.get("link") not in links:
            raise ModelError(f"{src}: {where}: <{tag} link='{e.get('link')}'> names an undeclared link")
        ends.append(e.get("link"))
    xyz, rpy = _origin(je, where, src)
    ae = je.find("axis")
    axis = _X_AXIS if ae is None else _floats(ae.get("xyz", "1 0 0"), 3, f"{where} <axis>", "xyz", src)
    if jtype in MOVING_TYPES and float(np.linalg.norm(axis)) < 1e-12:
        raise ModelError(f"{src}: {where} <axis xyz='{ae.get('xyz')}'>: the axis is zero")
    limit = {}
    le = je.find("limit")
    if le is not None:
        limit = {
            a: _scalar(le, a, f"{where} <limit>", src, infinite_ok=True)
            for a in ("lower", "upper", "effort", "velocity")
        }
    de = je.find("dynamics")
    if de is not None:
        for a in ("damping", "friction"):
            value = _scalar(de, a, f"{where} <dynamics>", src, default=0.0)
            if value < 0:
                raise ModelError(f"{src}: {where} <dynamics {a}='{de.get(a)}'>: must be >= 0")
            limit[a] = value
    me = je.find("mimic")
    if me is not None:
        if not me.get("joint"):
            raise ModelError(f"{src}: {where} <mimic>: missing attribute 'joint'")
        w = f"{where} <mimic>"
        limit["mimic"] = (me.get("joint"), _scalar(me, "multiplier", w, src, 1.0), _scalar(me, "offset", w, src, 0.0))
    return UrdfJoint(name, jtype, ends[0], ends[1], xyz, rpy, axis, **limit)


@lru_cache(maxsize=32)
def _parse(text: str, src: str) -> UrdfDescription:
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ModelError(f"{src}: not well-formed XML ({exc})") from None
    if root.tag != "robot":
        raise ModelError(f"{src}: the top element is <{root.tag}>, expected <robot>")
    _check_nesting(root, src)
    robot_name = root.get("name") or "robot"

    links: dict[str, UrdfLink] = {}
    for le in root.findall("link"):
        name = le.get("name")
        if not name:
            raise ModelError(f"{src}: a <link> element has no 'name' attribute")
        if name in links:
            raise ModelError(f"{src}: <link name='{name}'> is declared twice")
        links[name] = UrdfLink(name, _inertial(le, f"<link name='{name}'>", src))

    joints: list[UrdfJoint] = []
    seen: set[str] = set()
    for je in root.findall("joint"):
        name = je.get("name")
        if not name:
            raise ModelError(f"{src}: a <joint> element has no 'name' attribute")
        if name in seen:
            raise ModelError(f"{src}: <joint name='{name}'> is declared twice")
        seen.add(name)
        joints.append(_joint(je, links, src))
    for j in joints:
        if j.mimic is not None and j.mimic[0] not in seen:
            raise ModelError(f"{src}: <joint name='{j.name}'> <mimic joint='{j.mimic[0]}'>: no such joint")
    return UrdfDescription(
        robot_name, MappingProxyType(links), tuple(joints), _root_link(robot_name, links, joints, src), src, root
    )


def _check_nesting(root: ET.Element, src: str) -> None:
    """`ModelError` when XML elements nest deeper than MAX_NESTING (copying or writing the tree
    recurses once per level: 5,000 levels gave a RecursionError, 200,000 a segfault)."""
    stack = [(root, 1)]
    while stack:
        elem, level = stack.pop()
        if level > MAX_NESTING:
            raise ModelError(
                f"{src}: XML elements nest {level} levels deep (at a <{elem.tag}>); at most {MAX_NESTING} are supported"
            )
        stack.extend((child, level + 1) for child in elem)


def _root_link(robot_name, links, joints, src) -> str:
    """The one link that is no joint's child, after checking that the joints form a tree."""
    parent_of: dict[str, UrdfJoint] = {}
    for j in joints:
        if j.child in parent_of:
            raise ModelError(
                f"{src}: <link name='{j.child}'> is the child of two joints "
                f"('{parent_of[j.child].name}' and '{j.name}'): not a tree"
            )
        parent_of[j.child] = j
    if not links:
        raise ModelError(f"{src}: <robot name='{robot_name}'> is an empty robot: it declares no <link>")
    roots = [n for n in links if n not in parent_of]
    if len(roots) != 1:
        raise ModelError(
            f"{src}: <robot name='{robot_name}'> needs exactly one root link "
            f"(a link that is no joint's child); found {roots or 'none (a cycle)'}"
        )
    children: dict[str, list[str]] = {n: [] for n in links}
    for j in joints:
        children[j.parent].append(j.child)
    depth, stack = {roots[0]: 1}, [roots[0]]  # links from the root, the root's included
    while stack:
        n = stack.pop()
        for c in children[n]:
            depth[c] = depth[n] + 1
            stack.append(c)
    unreachable = [n for n in links if n not in depth]
    if unreachable:
        raise ModelError(f"{src}: links {unreachable} are not connected to the root link '{roots[0]}' (a joint cycle)")
    deepest = max(depth, key=depth.get)
    if depth[deepest] > MAX_DEPTH:
        raise ModelError(
            f"{src}: <link name='{deepest}'> is {depth[deepest]} links deep from the root link '{roots[0]}'; "
            f"at most {MAX_DEPTH} are supported (a deeper tree overflows Pinocchio's recursive URDF parser)"
        )
    return roots[0]


# ----------------------------------------------------------------------------------- sidecar
@dataclass(frozen=True)
class Sidecar:
    """A robot's ``NAME.yaml`` (format in DEVELOPERS.md), sections as written (not yet checked
    against the model: `humanoid_model.robot` does that). Every section is a mapping (empty when
    absent) except ``default_posture`` (str or None) and ``planar_locked_joints`` (list or None)."""

    path: Path
    postures: Mapping = field(default_factory=dict)
    default_posture: str | None = None
    contacts: Mapping = field(default_factory=dict)
    sensors: Mapping = field(default_factory=dict)
    armature: Mapping = field(default_factory=dict)
    planar_locked_joints: list | None = None
    collision: CollisionRules = field(default_factory=CollisionRules)  #: checked against the URDF's links
    soles: Mapping = field(default_factory=dict)  #: deformable soles (`humanoid_model.sole_spec`)
    spherical: Mapping = field(default_factory=dict)  #: ball joints (`humanoid_model.spherical_joints`)

    @property
    def posture_names(self) -> list[str]:
        """The robot's posture names: the declared ones plus ``zero``."""
        return list(self.postures) + ([] if ZERO_POSTURE in self.postures else [ZERO_POSTURE])


def world_collision_rules(robot, scene=None) -> CollisionRules:
    """The robot's collision rules (a `humanoid_model.robot.Robot`'s ``collision``: its SRDF's
    exclusions and its sidecar's section; for another object with a ``urdf_path``, its sidecar's),
    then ``scene``'s (its masks replace the robot's for the same name): what the simulator's pair
    filter, the planner's self-collision pairs and the bridge's self-collision check apply."""
    rules = CollisionRules()
    if isinstance(getattr(robot, "collision", None), CollisionRules):
        rules = robot.collision
    elif robot is not None and getattr(robot, "urdf_path", None) is not None:
        sidecar = read_sidecar(robot.urdf_path)
        if sidecar is not None:
            rules = sidecar.collision
    return rules.merged(getattr(scene, "collision", None) or CollisionRules())


def read_sidecar(urdf_path) -> Sidecar | None:
    """The sidecar ``NAME.yaml`` beside ``NAME.urdf``, or None when there is none (read once inside
    a `read_once` block; its sections are shared then: read them, never change them).

    Raises `ModelError` for malformed YAML, a top level or a section that is not a mapping."""
    return _read_once("sidecar", sidecar_path(urdf_path), lambda: _read_sidecar_file(urdf_path))


def sidecar_path(urdf_path) -> Path:
    """Where the sidecar of a robot file is: ``NAME.yaml`` beside ``NAME.urdf`` or ``NAME.urdf.xacro``."""
    path = Path(urdf_path)
    return path.parent / f"{robot_stem(path)}.yaml"


def _read_sidecar_file(urdf_path) -> Sidecar | None:
    path = sidecar_path(urdf_path)
    if not path.is_file():
        return None
    data = read_yaml(path, "robot sidecar YAML file", ModelError) or {}
    if not isinstance(data, dict):
        raise ModelError(f"{path}: expected a mapping at the top level")

    def section(key):
        value = data.get(key) or {}
        if not isinstance(value, Mapping):
            raise ModelError(message(str(path), key, "a mapping", value))
        return value

    planar = section("planar")
    collision = CollisionRules()
    if data.get("collision") is not None:  # link names checked here: the section is only the simulator's
        links = read_urdf(urdf_path if isinstance(urdf_path, Path) else Path(urdf_path)).link_names
        collision = read_collision_rules(data["collision"], links, str(path), "collision", ModelError)
    return Sidecar(
        path=path,
        postures=section("postures"),
        default_posture=data.get("default_posture") or None,
        contacts=section("contacts"),
        sensors=section("sensors"),
        armature=section("armature"),
        planar_locked_joints=planar.get("locked_joints"),
        collision=collision,
        soles=section("soles"),
        spherical=section("spherical"),
    )


def posture_names(urdf_path) -> list[str]:
    """The posture names of the robot of ``urdf_path``: its SRDF's group states
    (`humanoid_model.srdf`, named as the project names postures), its sidecar's, and ``zero``."""
    path = urdf_path if isinstance(urdf_path, Path) else Path(urdf_path)
    desc = read_urdf(path)
    srdf = find_srdf(path, desc.name)
    names = list(read_srdf(srdf, desc).postures) if srdf is not None else []
    sidecar = read_sidecar(path)
    names += [n for n in (sidecar.posture_names if sidecar is not None else [ZERO_POSTURE]) if n not in names]
    return names + ([] if ZERO_POSTURE in names else [ZERO_POSTURE])
