"""Scenes: `load_scene(path_or_name, overrides=None) -> Scene` (schema in ``docs/scenes.md``).

A scene file (YAML, ``config/scenes/NAME.yaml``) holds gravity, the ground, static environment
bodies, planner surfaces (convex polygons with an outward normal and a reference direction d0,
001_escande.md §5.2), free bodies (single shapes or compounds), timed external wrenches, the
robot (optional) and named parameters that ``--set`` overrides change (`scene_params`).

Everything is validated on load; bad input raises `SceneError` whose message names the file,
the field (dotted path such as ``free_bodies[2].mass``) and the value. No rclpy; Pinocchio is
imported only when a scene names a robot (through `humanoid_model.robot.available_robots`).
"""
from __future__ import annotations

import copy
import difflib
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

import numpy as np
import yaml

from humanoid_model.exceptions import SceneError
from humanoid_model.paths import scenes_dir, urdf_dir
from humanoid_model.scene_geometry import (
    BOX_FACES, QUAT_NORM_TOL, Pose, box_face, box_inertia, combine_inertias, convex_polygon,
    cylinder_inertia, polygon_centroid, reference_direction, sphere_inertia)
from humanoid_model.scene_params import (
    ParamResolver, SceneOverrideError, apply_overrides, is_number, parse_set_args)

__all__ = ["load_scene", "parse_set_args", "available_scenes", "Scene", "Ground", "Shape",
           "StaticBody", "Surface", "FreeBody", "Part", "Wrench", "RobotSpec", "Pose",
           "SceneError", "SceneOverrideError"]

# Defaults (chosen by us unless cited):
DEFAULT_GRAVITY = (0.0, 0.0, -9.81)   # [m/s^2] standard gravity, z up (REP 103)
DEFAULT_FRICTION = 0.4                # Coulomb mu; the thesis simulates "mu = 0.4 between all objects" (../shared/spec/000_chardonnet.md:719)
DEFAULT_RESTITUTION = 0.0             # no value of e is given in the thesis (../shared/spec/000_chardonnet.md:280): perfectly plastic by default

PLANE_MIN_UP = 1e-6   # cos of the largest plane tilt accepted: just under 90 deg (chosen: horizontal excluded)
STATIC_SHAPES = ("box", "sphere", "cylinder", "plane", "mesh")
FREE_SHAPES = ("box", "sphere", "cylinder", "compound")
PART_SHAPES = ("box", "sphere", "cylinder")

Array = np.ndarray


# ==================================================================================== data
@dataclass(frozen=True)
class Ground:
    """The ground: the horizontal plane z = ``height`` [m], solid below."""

    height: float = 0.0
    friction: float = DEFAULT_FRICTION
    restitution: float = DEFAULT_RESTITUTION

    @property
    def normal(self) -> Array:
        return np.array([0.0, 0.0, 1.0])


@dataclass(frozen=True)
class Shape:
    """A geometric primitive in its own frame (centred at the origin).

    kind: ``box`` (``size`` = full extents (3,) [m]), ``sphere`` (``radius``), ``cylinder``
    (``radius``, ``length``, axis z), ``plane`` (the half-space z <= 0 of its frame: the surface
    is the frame's xy plane, outward normal +z), ``mesh`` (``file``, absolute path, and
    ``scale`` (3,)).
    """

    kind: str
    size: Optional[Array] = None
    radius: Optional[float] = None
    length: Optional[float] = None
    file: Optional[Path] = None
    scale: Optional[Array] = None


@dataclass(frozen=True)
class StaticBody:
    """A fixed environment body: shape, pose in the world, friction mu and restitution e."""

    name: str
    shape: Shape
    pose: Pose
    friction: float = DEFAULT_FRICTION
    restitution: float = DEFAULT_RESTITUTION

    @property
    def normal(self) -> Array:
        """Outward world normal of a ``plane`` body (its frame's z axis)."""
        return self.pose.rotation[:, 2]


@dataclass(frozen=True)
class Surface:
    """A planner surface (001_escande.md §5.2): a planar convex polygon.

    vertices: (k, 3) world points [m], counter-clockwise about ``normal``; normal: unit outward
    normal; d0: unit reference direction (never collinear with the normal; theta = 0 is its
    projection on the plane, `tangent`); body: the static body it lies on (or None);
    friction: mu given, else that of its body, else the ground's.
    """

    name: str
    vertices: Array
    normal: Array
    d0: Array
    area: float
    body: Optional[str] = None
    friction: float = DEFAULT_FRICTION

    @property
    def centroid(self) -> Array:
        return polygon_centroid(self.vertices, self.normal)

    @property
    def tangent(self) -> Array:
        """Unit projection of d0 on the surface plane (the theta = 0 direction d_E(0))."""
        t = self.d0 - (self.d0 @ self.normal) * self.normal
        return t / np.linalg.norm(t)

    @property
    def rotation(self) -> Array:
        """3x3 frame of the surface: columns (tangent, normal x tangent, normal)."""
        t = self.tangent
        return np.column_stack([t, np.cross(self.normal, t), self.normal])

    def contains(self, point, tol: float = 1e-9) -> bool:
        """Whether the projection of ``point`` on the plane lies inside the polygon."""
        p = np.asarray(point, float)
        V = self.vertices
        edges = np.roll(V, -1, axis=0) - V
        return bool(np.all(np.cross(edges, p - V) @ self.normal >= -tol))


@dataclass(frozen=True)
class Part:
    """One shape of a free body: its shape, pose in the body frame and mass [kg]."""

    name: str
    shape: Shape
    pose: Pose
    mass: float

    @property
    def inertia(self) -> Array:
        """Inertia [kg m^2] of the solid shape about its centre, in the part frame."""
        s = self.shape
        if s.kind == "box":
            return box_inertia(self.mass, s.size)
        if s.kind == "sphere":
            return sphere_inertia(self.mass, s.radius)
        return cylinder_inertia(self.mass, s.radius, s.length)


@dataclass(frozen=True)
class FreeBody:
    """A free-floating rigid body.

    shape: ``box``, ``sphere``, ``cylinder`` or ``compound``; parts: its shapes (one, at the body
    origin, for a simple body); pose: body frame in the world; linear_velocity: initial world
    velocity of the body-frame origin [m/s]; angular_velocity: initial world angular velocity
    [rad/s]; mass [kg], com (3,) in the body frame [m] and inertia (3, 3) about the COM in body
    axes [kg m^2], computed from the parts (solid shapes, parallel-axis theorem).
    """

    name: str
    shape: str
    parts: Tuple[Part, ...]
    pose: Pose
    linear_velocity: Array
    angular_velocity: Array
    friction: float
    restitution: float
    mass: float
    com: Array
    inertia: Array

    @property
    def com_world(self) -> Array:
        return self.pose.apply(self.com)


@dataclass(frozen=True)
class Wrench:
    """A timed external wrench on ``body`` (a free body or a robot link), applied for
    ``start`` <= t < ``end`` [s]: ``force`` [N] and ``torque`` [N m] in world axes, force applied
    at ``point`` [m] given in the body frame."""

    body: str
    force: Array
    torque: Array
    point: Array
    start: float
    end: float

    def active(self, t: float) -> bool:
        return self.start <= t < self.end


@dataclass(frozen=True)
class RobotSpec:
    """The robot of a scene: ``name`` (shipped name or URDF path as written), ``urdf_path``,
    ``posture`` (None: the robot's default), ``joints`` overrides [rad], ``placement``: the pose
    in the world of the posture's ground frame (the posture's base pose is composed with it),
    ``base``: an absolute base pose replacing the posture's (or None)."""

    name: str
    urdf_path: Path
    posture: Optional[str] = None
    joints: Dict[str, float] = field(default_factory=dict)
    placement: Pose = field(default_factory=Pose)
    base: Optional[Pose] = None

    def base_pose(self, posture_base) -> Array:
        """World base pose (7,) xyz + quat xyzw, from the posture's base pose (7,)."""
        if self.base is not None:
            return self.base.xyz_quat
        b = np.asarray(posture_base, float)
        return self.placement.compose(Pose(b[:3], b[3:] / np.linalg.norm(b[3:]))).xyz_quat


@dataclass
class Scene:
    """A loaded, validated scene (see ``docs/scenes.md``)."""

    name: str
    description: str
    gravity: Array
    ground: Optional[Ground]
    bodies: List[StaticBody]
    free_bodies: List[FreeBody]
    surfaces: List[Surface]
    wrenches: List[Wrench]
    robot: Optional[RobotSpec]
    params: Dict[str, float]
    source: Optional[Path] = None

    def _get(self, items, name, what):
        for item in items:
            if item.name == name:
                return item
        raise KeyError(f"scene '{self.name}' has no {what} '{name}' "
                       f"(has: {', '.join(i.name for i in items) or 'none'})")

    def body(self, name: str) -> StaticBody:
        return self._get(self.bodies, name, "static body")

    def free_body(self, name: str) -> FreeBody:
        return self._get(self.free_bodies, name, "free body")

    def surface(self, name: str) -> Surface:
        return self._get(self.surfaces, name, "surface")


# ==================================================================================== loader
TOP_KEYS = ("name", "description", "params", "gravity", "ground", "bodies", "surfaces",
            "free_bodies", "wrenches", "robot", "generate")


def available_scenes() -> List[str]:
    """Names of the shipped scenes (``config/scenes/*.yaml``)."""
    return sorted(p.stem for p in scenes_dir().glob("*.yaml"))


def resolve_scene_path(path_or_name) -> Path:
    p = Path(str(path_or_name)).expanduser()
    if p.is_file():
        return p.resolve()
    shipped = scenes_dir() / f"{path_or_name}.yaml"
    if shipped.is_file():
        return shipped
    raise SceneError(f"scene '{path_or_name}': no such file and not a shipped scene "
                     f"(shipped: {', '.join(available_scenes()) or 'none'})")


def load_scene(path_or_name: Union[str, Path], overrides: Optional[Mapping[str, Any]] = None) -> Scene:
    """Load and validate a scene.

    Args:
        path_or_name: a YAML file path, or a shipped scene name (``flat``, ``incline``, ...)
            resolved to ``humanoid_model.paths.scenes_dir()/NAME.yaml``.
        overrides: ``{"incline.angle_deg": 25, "free_bodies.0.mass": 2}``: parameters or
            document paths to change before evaluation (see `parse_set_args`).

    Raises:
        SceneError: the message names the file, the field and the value.
    """
    path = resolve_scene_path(path_or_name)
    try:
        doc = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise SceneError(f"{path}: not valid YAML: {exc}") from None
    except UnicodeDecodeError:
        raise SceneError(f"{path}: not a text (UTF-8) file, so not a scene YAML file") from None
    except OSError as exc:
        raise SceneError(f"{path}: cannot read the scene file: {exc.strerror or exc}") from None
    if doc is None:
        doc = {}
    return _Loader(path).build(doc, overrides or {})


class _Loader:
    def __init__(self, path: Path):
        self.path = path

    # -------------------------------------------------------------------------- errors
    def fail(self, where: str, value, problem: str):
        shown = value
        if isinstance(value, (str, dict, list)):
            shown = repr(value)
            if len(shown) > 120:   # e.g. a whole non-YAML file read as one string (chosen length)
                shown = shown[:117] + "..."
        raise SceneError(f"{self.path}: field '{where}' = {shown}: {problem}")

    def missing(self, where: str, key: str):
        raise SceneError(f"{self.path}: field '{where}.{key}' is missing (required)" if where
                         else f"{self.path}: field '{key}' is missing (required)")

    def keys(self, d, where: str, allowed: Sequence[str], required: Sequence[str] = ()):
        if not isinstance(d, Mapping):
            self.fail(where, d, "expected a mapping")
        for k in d:
            if k not in allowed:
                hint = difflib.get_close_matches(str(k), allowed, n=1)
                self.fail(f"{where}.{k}" if where else str(k), d[k],
                          f"unknown field '{k}'" + (f" (did you mean '{hint[0]}'?)" if hint else "")
                          + f"; allowed: {', '.join(allowed)}")
        for k in required:
            if k not in d or d[k] is None:
                self.missing(where, k)

    # -------------------------------------------------------------------------- values
    def number(self, d, key, where, default=None, minimum=None, positive=False, required=False):
        if key not in d or d[key] is None:
            if required:
                self.missing(where, key)
            return default
        v = d[key]
        w = f"{where}.{key}" if where else key
        if not is_number(v):
            self.fail(w, v, "expected a finite number")
        if positive and v <= 0:
            self.fail(w, v, "must be > 0")
        if minimum is not None and v < minimum:
            self.fail(w, v, f"must be >= {minimum}")
        return float(v)

    def vector(self, d, key, where, n=3, default=None, required=False, nonzero=False):
        if key not in d or d[key] is None:
            if required:
                self.missing(where, key)
            return None if default is None else np.array(default, float)
        v = d[key]
        w = f"{where}.{key}" if where else key
        if not isinstance(v, list) or len(v) != n or not all(is_number(x) for x in v):
            self.fail(w, v, f"expected a list of {n} finite numbers")
        arr = np.array(v, float)
        if nonzero and not np.any(arr):
            self.fail(w, v, "must not be the zero vector")
        return arr

    def name(self, d, where, taken: Dict[str, str]) -> str:
        if "name" not in d or d["name"] is None:
            self.missing(where, "name")
        n = d["name"]
        if not isinstance(n, str) or not n or "." in n:
            self.fail(f"{where}.name", n, "expected a non-empty string without '.'")
        if n in taken:
            self.fail(f"{where}.name", n, f"duplicate name (already used by {taken[n]})")
        taken[n] = where
        return n

    def material(self, d, where, default_mu=DEFAULT_FRICTION, default_e=DEFAULT_RESTITUTION):
        mu = self.number(d, "friction", where, default=default_mu, minimum=0.0)
        e = self.number(d, "restitution", where, default=default_e, minimum=0.0)
        if e > 1.0:
            self.fail(f"{where}.restitution", d["restitution"], "must be in [0, 1]")
        return mu, e

    def pose(self, d, key, where) -> Pose:
        if key not in d or d[key] is None:
            return Pose()
        p = d[key]
        w = f"{where}.{key}" if where else key
        self.keys(p, w, ("xyz", "rpy_deg", "quat"))
        xyz = self.vector(p, "xyz", w, default=(0, 0, 0))
        if "rpy_deg" in p and "quat" in p:
            self.fail(w, p, "give either rpy_deg or quat, not both")
        if "quat" in p:
            q = self.vector(p, "quat", w, n=4)
            if abs(np.linalg.norm(q) - 1.0) > QUAT_NORM_TOL:
                self.fail(f"{w}.quat", p["quat"], f"quaternion (x, y, z, w) must have unit norm "
                                                  f"(norm {np.linalg.norm(q):.6g})")
            return Pose(xyz, q / np.linalg.norm(q))
        rpy = self.vector(p, "rpy_deg", w, default=(0, 0, 0))
        return Pose.from_rpy_deg(xyz, rpy)

    def shape(self, d, where, allowed) -> Shape:
        kind = d.get("shape")
        if kind not in allowed:
            self.fail(f"{where}.shape", kind, f"unknown shape; expected one of {', '.join(allowed)}")
        if kind == "box":
            size = self.vector(d, "size", where, required=True)
            if np.any(size <= 0):
                self.fail(f"{where}.size", d["size"], "box extents must be > 0")
            return Shape("box", size=size)
        if kind == "sphere":
            return Shape("sphere", radius=self.number(d, "radius", where, required=True, positive=True))
        if kind == "cylinder":
            return Shape("cylinder", radius=self.number(d, "radius", where, required=True, positive=True),
                         length=self.number(d, "length", where, required=True, positive=True))
        if kind == "plane":
            return Shape("plane")
        if kind == "mesh":
            f = d.get("file")
            if not isinstance(f, str) or not f:
                if f is None:
                    self.missing(where, "file")
                self.fail(f"{where}.file", f, "expected a file path (relative to the scene file)")
            fp = (self.path.parent / f).resolve()
            if not fp.is_file():
                self.fail(f"{where}.file", f, f"mesh file not found ({fp})")
            scale = self.vector(d, "scale", where, default=(1, 1, 1))
            if np.any(scale <= 0):
                self.fail(f"{where}.scale", d["scale"], "scale factors must be > 0")
            return Shape("mesh", file=fp, scale=scale)
        return Shape(kind)  # compound: handled by the caller

    # -------------------------------------------------------------------------- sections
    def build(self, doc, overrides) -> Scene:
        if not isinstance(doc, Mapping):
            self.fail("(top level)", doc, "a scene file must be a mapping")
        self.keys(doc, "", TOP_KEYS)
        doc = copy.deepcopy(dict(doc))
        params = doc.get("params") or {}
        if not isinstance(params, Mapping):
            self.fail("params", params, "expected a mapping of named numbers")
        apply_overrides(doc, overrides, str(self.path))
        resolver = ParamResolver(doc.get("params") or {}, self.fail)
        params_values = {n: resolver.param(n, f"params.{n}") for n in resolver.raw}
        body_doc = {k: v for k, v in doc.items() if k != "params"}
        doc = resolver.resolve(body_doc)

        names: Dict[str, str] = {}
        name = doc.get("name", self.path.stem)
        description = doc.get("description", "")
        if not isinstance(name, str):
            self.fail("name", name, "expected a string")
        if not isinstance(description, str):
            self.fail("description", description, "expected a string")
        gravity = self.vector(doc, "gravity", "", default=DEFAULT_GRAVITY)
        ground = self.ground(doc)
        bodies = self.static_bodies(doc.get("bodies"), names, gravity)
        from humanoid_model.scene_generators import generate

        for i, gen in enumerate(self.listing(doc, "generate")):
            bodies += generate(self, gen, f"generate[{i}]", names, ground)
        free_bodies = [self.free_body(d, f"free_bodies[{i}]", names)
                       for i, d in enumerate(self.listing(doc, "free_bodies"))]
        surface_names: Dict[str, str] = {}   # surfaces have their own namespace
        surfaces = [self.surface(d, f"surfaces[{i}]", surface_names, bodies, ground)
                    for i, d in enumerate(self.listing(doc, "surfaces"))]
        robot = self.robot(doc.get("robot"))
        wrenches = [self.wrench(d, f"wrenches[{i}]", free_bodies, robot)
                    for i, d in enumerate(self.listing(doc, "wrenches"))]
        return Scene(name=name, description=description, gravity=gravity, ground=ground,
                     bodies=bodies, free_bodies=free_bodies, surfaces=surfaces, wrenches=wrenches,
                     robot=robot, params=params_values, source=self.path)

    def listing(self, doc, key) -> list:
        v = doc.get(key)
        if v is None:
            return []
        if not isinstance(v, list):
            self.fail(key, v, "expected a list")
        return v

    def ground(self, doc) -> Optional[Ground]:
        if "ground" not in doc:
            return Ground()
        g = doc["ground"]
        if g is None or g is False:
            return None
        self.keys(g, "ground", ("height", "friction", "restitution"))
        mu, e = self.material(g, "ground")
        return Ground(height=self.number(g, "height", "ground", default=0.0), friction=mu, restitution=e)

    def static_bodies(self, items, names, gravity=DEFAULT_GRAVITY) -> List[StaticBody]:
        if items is None:
            return []
        if not isinstance(items, list):
            self.fail("bodies", items, "expected a list")
        out = []
        for i, d in enumerate(items):
            w = f"bodies[{i}]"
            self.keys(d, w, ("name", "shape", "size", "radius", "length", "file", "scale", "pose",
                             "friction", "restitution"), required=("name", "shape"))
            n = self.name(d, w, names)
            shape = self.shape(d, w, STATIC_SHAPES)
            mu, e = self.material(d, w)
            pose = self.pose(d, "pose", w)
            if shape.kind == "plane":
                self.plane_up(pose, gravity, w, d.get("pose"))
            out.append(StaticBody(n, shape, pose, mu, e))
        return out

    def plane_up(self, pose, gravity, w, raw_pose):
        """A plane is the solid half-space below its frame's xy plane: its outward normal (frame
        z axis) must point up, against gravity (world +z under zero gravity). A horizontal or
        downward normal (e.g. an incline of 90 deg or more) would put the solid side above the
        surface. Required: up component > PLANE_MIN_UP."""
        g = np.asarray(gravity, float)
        gn = float(np.linalg.norm(g))
        up = -g / gn if gn > 0 else np.array([0.0, 0.0, 1.0])
        c = float(pose.rotation[:, 2] @ up)
        if not c > PLANE_MIN_UP:
            self.fail(f"{w}.pose", raw_pose,
                      f"a plane's outward normal (its frame's z axis) must point up against gravity; "
                      f"it is {np.degrees(np.arccos(np.clip(c, -1, 1))):.6g} deg from the vertical "
                      f"(must be < 90 deg)")

    def free_body(self, d, w, names) -> FreeBody:
        self.keys(d, w, ("name", "shape", "size", "radius", "length", "mass", "pose", "velocity",
                         "friction", "restitution", "parts"), required=("name", "shape"))
        n = self.name(d, w, names)
        shape = self.shape(d, w, FREE_SHAPES)
        if shape.kind == "compound":
            if "mass" in d:
                self.fail(f"{w}.mass", d["mass"], "a compound body's mass is the sum of its parts' "
                                                  "masses: give mass per part")
            raw_parts = d.get("parts")
            if not isinstance(raw_parts, list) or not raw_parts:
                if raw_parts is None:
                    self.missing(w, "parts")
                self.fail(f"{w}.parts", raw_parts, "expected a non-empty list of shapes")
            parts, pnames = [], {}
            for j, pd in enumerate(raw_parts):
                pw = f"{w}.parts[{j}]"
                self.keys(pd, pw, ("name", "shape", "size", "radius", "length", "mass", "pose"),
                          required=("name", "shape", "mass"))
                pn = self.name(pd, pw, pnames)
                pshape = self.shape(pd, pw, PART_SHAPES)
                m = self.number(pd, "mass", pw, required=True, positive=True)
                parts.append(Part(pn, pshape, self.pose(pd, "pose", pw), m))
        else:
            if "parts" in d:
                self.fail(f"{w}.parts", d["parts"], "only a 'compound' body has parts")
            if "mass" not in d or d["mass"] is None:
                self.missing(w, "mass")
            m = self.number(d, "mass", w, required=True, positive=True)
            parts = [Part(n, shape, Pose(), m)]
        mass, com, inertia = combine_inertias((p.mass, p.pose, p.inertia) for p in parts)
        vel = d.get("velocity") or {}
        self.keys(vel, f"{w}.velocity", ("linear", "angular"))
        lin = self.vector(vel, "linear", f"{w}.velocity", default=(0, 0, 0))
        ang = self.vector(vel, "angular", f"{w}.velocity", default=(0, 0, 0))
        mu, e = self.material(d, w)
        return FreeBody(n, shape.kind, tuple(parts), self.pose(d, "pose", w), lin, ang, mu, e,
                        mass, com, inertia)

    def surface(self, d, w, names, bodies: List[StaticBody], ground: Optional[Ground]) -> Surface:
        self.keys(d, w, ("name", "vertices", "frame", "normal", "d0", "body", "face", "friction"),
                  required=("name",))
        n = self.name(d, w, names)
        normal = self.vector(d, "normal", w, nonzero=True)
        body_name = d.get("body")
        body = None
        if body_name is not None:
            body = next((b for b in bodies if b.name == body_name), None)
            if body is None:
                self.fail(f"{w}.body", body_name, "no static body of that name (bodies: "
                          + ", ".join(b.name for b in bodies) + ")")
        if "face" in d:
            if "vertices" in d or "frame" in d:
                self.fail(f"{w}.face", d["face"], "give either body + face or vertices, not both")
            if body is None:
                self.missing(w, "body")
            if d["face"] not in BOX_FACES:
                self.fail(f"{w}.face", d["face"], f"expected one of {', '.join(BOX_FACES)}")
            if body.shape.kind != "box":
                self.fail(f"{w}.body", body_name, f"'face' needs a box body (this one is a {body.shape.kind})")
            V_local, n_local = box_face(body.shape.size, d["face"])
            vertices = body.pose.apply(V_local)
            default_normal = body.pose.rotation @ n_local
        else:
            if "vertices" not in d:
                self.missing(w, "vertices")
            raw = d["vertices"]
            frame = self.pose(d, "frame", w) if "frame" in d else None
            dim = 2 if frame is not None else 3
            if (not isinstance(raw, list) or not all(isinstance(v, list) and len(v) == dim
                                                     and all(is_number(x) for x in v) for v in raw)):
                self.fail(f"{w}.vertices", raw, f"expected a list of [{'x, y' if dim == 2 else 'x, y, z'}] "
                          f"points" + (" (2-D, in 'frame')" if dim == 2 else ""))
            if frame is not None:
                V2 = np.array(raw, float).reshape(-1, 2)
                vertices = frame.apply(np.column_stack([V2, np.zeros(len(V2))]))
                default_normal = frame.rotation[:, 2]
            else:
                vertices = np.array(raw, float).reshape(-1, 3)
                default_normal = None
        if normal is None:
            normal = default_normal
        try:
            V, nrm, area = convex_polygon(vertices, normal)
        except ValueError as exc:
            self.fail(f"{w}.vertices" if "vertices" in d else f"{w}.face",
                      d.get("vertices", d.get("face")), str(exc))
        try:
            d0 = reference_direction(nrm, self.vector(d, "d0", w, nonzero=True))
        except ValueError as exc:
            self.fail(f"{w}.d0", d.get("d0"), str(exc))
        mu = self.number(d, "friction", w, minimum=0.0)
        if mu is None:
            mu = body.friction if body is not None else (ground.friction if ground is not None
                                                          else DEFAULT_FRICTION)
        return Surface(n, V, nrm, d0, area, body=body_name, friction=mu)

    def robot(self, r) -> Optional[RobotSpec]:
        if r is None:
            return None
        if isinstance(r, str):          # shorthand: robot: hrp2
            r = {"name": r}
        self.keys(r, "robot", ("name", "posture", "joints", "placement", "base"), required=("name",))
        name = r["name"]
        if not isinstance(name, str):
            self.fail("robot.name", name, "expected a robot name or a URDF path")
        urdf = self._robot_urdf(name)
        posture = r.get("posture")
        postures = _robot_postures(urdf)
        if posture is not None:
            if not isinstance(posture, str):
                self.fail("robot.posture", posture, "expected a posture name")
            if postures is not None and posture not in postures:
                self.fail("robot.posture", posture, f"robot '{name}' has no such posture "
                          f"(postures: {', '.join(postures)})")
        joints = r.get("joints") or {}
        if not isinstance(joints, Mapping):
            self.fail("robot.joints", joints, "expected a mapping joint name -> angle [rad]")
        limits = _urdf_joint_limits(urdf)
        out = {}
        for j, v in joints.items():
            if j not in limits:
                hint = difflib.get_close_matches(str(j), list(limits), n=1)
                self.fail(f"robot.joints.{j}", v, f"robot '{name}' has no movable joint '{j}'"
                          + (f" (did you mean '{hint[0]}'?)" if hint else ""))
            out[j] = self.number(joints, j, "robot.joints", required=True)
            lo, hi = limits[j]
            if not lo - 1e-9 <= out[j] <= hi + 1e-9:
                self.fail(f"robot.joints.{j}", v, f"outside the joint's limits [{lo:g}, {hi:g}] (URDF {urdf.name})")
        if "placement" in r and "base" in r:
            self.fail("robot.base", r["base"], "give either placement or base, not both")
        base = self.pose(r, "base", "robot") if r.get("base") is not None else None
        return RobotSpec(name=name, urdf_path=urdf, posture=posture, joints=out,
                         placement=self.pose(r, "placement", "robot"), base=base)

    def _robot_urdf(self, name: str) -> Path:
        p = Path(name).expanduser()
        for cand in ((self.path.parent / p), p):
            if cand.suffix.lower() == ".urdf" and cand.is_file():
                return cand.resolve()
        names = _available_robots()
        if name in names:
            return urdf_dir() / f"{name}.urdf"
        hint = difflib.get_close_matches(name, names, n=1)
        self.fail("robot.name", name, "unknown robot: not a shipped robot ("
                  + (", ".join(names) or "none") + ") and not an existing .urdf file"
                  + (f" (did you mean '{hint[0]}'?)" if hint else ""))

    def wrench(self, d, w, free_bodies, robot) -> Wrench:
        self.keys(d, w, ("body", "force", "torque", "point", "start", "end"),
                  required=("body", "start", "end"))
        body = d["body"]
        targets = [b.name for b in free_bodies]
        if robot is not None:
            targets += _urdf_names(robot.urdf_path, "link")
        if body not in targets:
            self.fail(f"{w}.body", body, "no free body" + (" or robot link" if robot else "")
                      + " of that name (free bodies: " + (", ".join(b.name for b in free_bodies) or "none") + ")")
        start = self.number(d, "start", w, required=True, minimum=0.0)
        end = self.number(d, "end", w, required=True)
        if end <= start:
            self.fail(f"{w}.end", end, f"must be > start ({start})")
        return Wrench(body, self.vector(d, "force", w, default=(0, 0, 0)),
                      self.vector(d, "torque", w, default=(0, 0, 0)),
                      self.vector(d, "point", w, default=(0, 0, 0)), start, end)


# ==================================================================================== robots
def _available_robots() -> List[str]:
    try:
        from humanoid_model.robot import available_robots
    except Exception:   # robot module missing or broken: fall back to the URDF folder
        return sorted(p.stem for p in urdf_dir().glob("*.urdf"))
    return list(available_robots())


def _urdf_names(urdf: Path, tag: str) -> List[str]:
    """Link names (tag='link') or movable joint names (tag='joint') of a URDF, parsed as XML."""
    try:
        root = ET.parse(urdf).getroot()
    except (ET.ParseError, OSError) as exc:
        raise SceneError(f"{urdf}: cannot read the robot's URDF: {exc}") from None
    if tag == "joint":
        return [j.get("name") for j in root.iter("joint") if j.get("type") not in ("fixed", "floating")]
    return [link.get("name") for link in root.iter("link")]


def _urdf_joint_limits(urdf: Path) -> Dict[str, Tuple[float, float]]:
    """{movable joint: (lower, upper)} from the URDF (+-inf for continuous or missing limits)."""
    root = ET.parse(urdf).getroot()
    out = {}
    for j in root.iter("joint"):
        if j.get("type") in ("fixed", "floating", None):
            continue
        lim = j.find("limit")
        lo, hi = -np.inf, np.inf
        if j.get("type") != "continuous" and lim is not None:
            try:
                lo, hi = float(lim.get("lower", "-inf")), float(lim.get("upper", "inf"))
            except ValueError:
                pass
        out[j.get("name")] = (lo, hi)
    return out


def _robot_postures(urdf: Path) -> Optional[List[str]]:
    """Posture names declared in ``NAME.yaml`` beside the URDF (None when there is none; the
    robot loader then provides a ``zero`` posture only)."""
    side = urdf.with_suffix(".yaml")
    if not side.is_file():
        return ["zero"]
    try:
        data = yaml.safe_load(side.read_text()) or {}
    except yaml.YAMLError:
        return None   # the robot loader reports a broken robot YAML
    postures = data.get("postures") if isinstance(data, Mapping) else None
    return sorted(postures) if isinstance(postures, Mapping) else ["zero"]
