"""Scenes: `load_scene(path_or_name, overrides=None) -> Scene` (schema in ``docs/scenes.md``).

A scene file (YAML, ``config/scenes/NAME.yaml``) holds gravity, the ground, static environment
bodies, planner surfaces (convex polygons with an outward normal and a reference direction d0,
Escande 2008, §5.3.1.1), free bodies (single shapes or compounds), timed external wrenches, the
robot (optional) and named parameters that ``--set`` overrides change (`scene_params`).

Everything is validated on load; bad input raises `SceneError` whose message names the file,
the field (dotted path such as ``free_bodies[2].mass``) and the value. No rclpy and no Pinocchio:
a scene's robot is checked against its URDF and sidecar through
`humanoid_model.urdf_description`.

Modules: `scene_types` (the dataclasses, re-exported here), `scene_fields` (field-level checks),
`scene_params` (parameters, expressions, overrides), `scene_geometry` (poses, polygons, inertia),
`scene_generators` (gravel); this module reads the file and builds the sections.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from humanoid_model.collision_rules import read_collision_rules
from humanoid_model.exceptions import ModelError, SceneError, SceneOverrideError
from humanoid_model.flexible_ankle import FEET
from humanoid_model.paths import resolve, scenes_dir, shipped_files
from humanoid_model.planning_spec import read_planning
from humanoid_model.scene_fields import FieldReader
from humanoid_model.scene_generators import generate
from humanoid_model.scene_geometry import (
    BOX_FACES,
    Pose,
    box_face,
    combine_inertias,
    convex_polygon,
    reference_direction,
)
from humanoid_model.scene_params import ParamResolver, apply_overrides, parse_set_args
from humanoid_model.scene_types import (
    DEFAULT_FRICTION,
    DEFAULT_GRAVITY,
    FreeBody,
    Ground,
    Part,
    RobotSpec,
    Scene,
    Shape,
    StaticBody,
    Surface,
    Wrench,
)
from humanoid_model.sole_spec import SOLE_MODELS
from humanoid_model.urdf_description import (
    UrdfDescription,
    posture_names,
    read_once,
    read_sidecar,
    read_urdf,
    resolve_robot_path,
)
from humanoid_model.validation import did_you_mean
from humanoid_model.yaml_file import read_yaml

__all__ = [
    "load_scene",
    "scene_from_dict",
    "parse_set_args",
    "available_scenes",
    "resolve_scene_path",
    "Scene",
    "Ground",
    "Shape",
    "StaticBody",
    "Surface",
    "FreeBody",
    "Part",
    "Wrench",
    "RobotSpec",
    "Pose",
    "SceneError",
    "SceneOverrideError",
]

PLANE_MIN_UP = 1e-6  # cos of the largest plane tilt accepted: just under 90 deg (chosen: horizontal excluded)
STATIC_SHAPES = ("box", "sphere", "cylinder", "plane", "mesh")
FREE_SHAPES = ("box", "sphere", "cylinder", "mesh", "compound")
PART_SHAPES = ("box", "sphere", "cylinder")
TOP_KEYS = (
    "name",
    "description",
    "params",
    "gravity",
    "ground",
    "bodies",
    "surfaces",
    "free_bodies",
    "wrenches",
    "robot",
    "generate",
    "collision",
    "planning",
)


def available_scenes() -> list[str]:
    """Names of the shipped scenes (``config/scenes/*.yaml``)."""
    return list(shipped_files(scenes_dir(), ".yaml"))


def resolve_scene_path(path_or_name) -> Path:
    """An existing scene file, else a shipped scene's file (rule of `humanoid_model.paths.resolve`)."""
    return resolve(path_or_name, shipped_files(scenes_dir(), ".yaml"), "scene", (".yaml", ".yml"), SceneError)


def load_scene(path_or_name: str | Path, overrides: Mapping[str, Any] | None = None) -> Scene:
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
    doc = read_yaml(path, "scene YAML file", SceneError)
    return scene_from_dict({} if doc is None else doc, path, overrides)


def scene_from_dict(doc, source: Path, overrides: Mapping[str, Any] | None = None) -> Scene:
    """Validate the decoded YAML ``doc`` of a scene and build it. ``source`` names the file in
    messages; relative paths in the document (meshes, a robot's URDF) are relative to its folder.
    The robot's URDF and sidecar are read once (`humanoid_model.urdf_description.read_once`)."""
    with read_once():
        return _Loader(Path(source)).build(doc, overrides or {})


class _Loader(FieldReader):
    """Builds a `Scene` section by section from a decoded document (`FieldReader` checks the values)."""

    def build(self, doc, overrides) -> Scene:
        if not isinstance(doc, Mapping):  # its content is not echoed: it may be any file, secrets included
            raise SceneError(
                f"{self.path}: not a scene file: its top level is {type(doc).__name__}, not a mapping of "
                f"sections ({', '.join(sorted(TOP_KEYS)[:4])}, ...); the content is not shown"
            )
        # a mapping with no scene section, nor a near miss of one (a typo gets its hint below): not echoed
        if doc and not any(k in TOP_KEYS or did_you_mean(k, TOP_KEYS) for k in doc):
            raise SceneError(
                f"{self.path}: not a scene file: none of its {len(doc)} top-level keys is a scene section "
                f"({', '.join(sorted(TOP_KEYS)[:4])}, ...); the content is not shown"
            )
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

        names: dict[str, str] = {}
        name = doc.get("name", self.path.stem)
        description = doc.get("description", "")
        if not isinstance(name, str):
            self.fail("name", name, "expected a string")
        if not isinstance(description, str):
            self.fail("description", description, "expected a string")
        gravity = self.vector(doc, "gravity", "", default=DEFAULT_GRAVITY)
        ground = self.ground(doc)
        bodies = self.static_bodies(doc.get("bodies"), names, gravity)
        for i, gen in enumerate(self.listing(doc, "generate")):
            bodies += generate(self, gen, f"generate[{i}]", names, ground)
        free_bodies = [
            self.free_body(d, f"free_bodies[{i}]", names) for i, d in enumerate(self.listing(doc, "free_bodies"))
        ]
        surface_names: dict[str, str] = {}  # surfaces have their own namespace
        surfaces = [
            self.surface(d, f"surfaces[{i}]", surface_names, bodies, ground)
            for i, d in enumerate(self.listing(doc, "surfaces"))
        ]
        robot = self.robot(doc.get("robot"))
        wrenches = [
            self.wrench(d, f"wrenches[{i}]", free_bodies, robot) for i, d in enumerate(self.listing(doc, "wrenches"))
        ]
        collision_names = (["ground"] if ground is not None else []) + [b.name for b in bodies + free_bodies]
        if robot is not None:
            collision_names += _robot_description(robot.urdf_path).link_names
        collision = read_collision_rules(doc.get("collision"), collision_names, self.source, "collision", SceneError)
        postures = _robot_postures(robot.urdf_path) if robot is not None else None
        planning = read_planning(self, doc.get("planning"), [s.name for s in surfaces], postures)
        return Scene(
            name=name,
            description=description,
            gravity=gravity,
            ground=ground,
            bodies=bodies,
            free_bodies=free_bodies,
            surfaces=surfaces,
            wrenches=wrenches,
            robot=robot,
            params=params_values,
            source=self.path,
            collision=collision,
            planning=planning,
        )

    def listing(self, doc, key) -> list:
        v = doc.get(key)
        if v is None:
            return []
        if not isinstance(v, list):
            self.fail(key, v, "expected a list")
        return v

    def ground(self, doc) -> Ground | None:
        if "ground" not in doc:
            return Ground()
        g = doc["ground"]
        if g is None or g is False:
            return None
        self.keys(g, "ground", ("height", "friction", "restitution"))
        mu, e = self.material(g, "ground")
        return Ground(height=self.number(g, "height", "ground", default=0.0), friction=mu, restitution=e)

    def static_bodies(self, items, names, gravity=DEFAULT_GRAVITY) -> list[StaticBody]:
        if items is None:
            return []
        if not isinstance(items, list):
            self.fail("bodies", items, "expected a list")
        out = []
        for i, d in enumerate(items):
            w = f"bodies[{i}]"
            self.keys(
                d,
                w,
                ("name", "shape", "size", "radius", "length", "file", "scale", "pose", "friction", "restitution"),
                required=("name", "shape"),
            )
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
            self.fail(
                f"{w}.pose",
                raw_pose,
                f"a plane's outward normal (its frame's z axis) must point up against gravity; "
                f"it is {np.degrees(np.arccos(np.clip(c, -1, 1))):.6g} deg from the vertical "
                f"(must be < 90 deg)",
            )

    def free_body(self, d, w, names) -> FreeBody:
        self.keys(
            d,
            w,
            (
                "name",
                "shape",
                "size",
                "radius",
                "length",
                "file",
                "scale",
                "mass",
                "pose",
                "velocity",
                "friction",
                "restitution",
                "parts",
            ),
            required=("name", "shape"),
        )
        n = self.name(d, w, names)
        shape = self.shape(d, w, FREE_SHAPES)
        if shape.kind == "compound":
            if "mass" in d:
                self.fail(
                    f"{w}.mass", d["mass"], "a compound body's mass is the sum of its parts' masses: give mass per part"
                )
            raw_parts = d.get("parts")
            if not isinstance(raw_parts, list) or not raw_parts:
                if raw_parts is None:
                    self.missing(w, "parts")
                self.fail(f"{w}.parts", raw_parts, "expected a non-empty list of shapes")
            parts, pnames = [], {}
            for j, pd in enumerate(raw_parts):
                pw = f"{w}.parts[{j}]"
                self.keys(
                    pd,
                    pw,
                    ("name", "shape", "size", "radius", "length", "mass", "pose"),
                    required=("name", "shape", "mass"),
                )
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
            if shape.kind == "mesh":
                shape = self.solid_mesh(shape, w)
            parts = [Part(n, shape, Pose(), m)]
        mass, com, inertia = combine_inertias((p.mass, p.centre, p.inertia) for p in parts)
        vel = d.get("velocity") or {}
        self.keys(vel, f"{w}.velocity", ("linear", "angular"))
        lin = self.vector(vel, "linear", f"{w}.velocity", default=(0, 0, 0))
        ang = self.vector(vel, "angular", f"{w}.velocity", default=(0, 0, 0))
        mu, e = self.material(d, w)
        return FreeBody(n, shape.kind, tuple(parts), self.pose(d, "pose", w), lin, ang, mu, e, mass, com, inertia)

    def solid_mesh(self, shape, w):
        """A free body's mesh with its centre of volume and inertia per kg (uniform density,
        trimesh's mass properties); the mesh must be closed (a volume)."""
        import trimesh

        try:
            mesh = trimesh.load(str(shape.file), force="mesh")
        except Exception as exc:  # noqa: BLE001 - trimesh raises anything on a bad file
            self.fail(f"{w}.file", str(shape.file), f"cannot read the mesh ({str(exc)[:80]})")
        mesh.apply_scale(np.asarray(shape.scale, float))
        if not mesh.is_volume or not mesh.volume > 0:
            self.fail(
                f"{w}.file",
                str(shape.file.name),
                "a free body's mesh must be closed and consistently oriented (a volume): its inertia comes from it",
            )
        return dataclasses.replace(
            shape, com=np.array(mesh.center_mass, float), unit_inertia=np.array(mesh.moment_inertia) / mesh.mass
        )

    def surface(self, d, w, names, bodies: list[StaticBody], ground: Ground | None) -> Surface:
        self.keys(d, w, ("name", "vertices", "frame", "normal", "d0", "body", "face", "friction"), required=("name",))
        n = self.name(d, w, names)
        normal = self.vector(d, "normal", w, nonzero=True)
        body_name = d.get("body")
        body = None
        if body_name is not None:
            body = next((b for b in bodies if b.name == body_name), None)
            if body is None:
                self.fail(
                    f"{w}.body",
                    body_name,
                    "no static body of that name (bodies: " + ", ".join(b.name for b in bodies) + ")",
                )
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
            frame = self.pose(d, "frame", w) if "frame" in d else None
            if frame is not None:  # 2-D points in the frame's xy plane
                V2 = self.rows(d, "vertices", w, 2)
                vertices = frame.apply(np.column_stack([V2, np.zeros(len(V2))]))
                default_normal = frame.rotation[:, 2]
            else:
                vertices = self.rows(d, "vertices", w, 3)
                default_normal = None
        if normal is None:
            normal = default_normal
        try:
            V, nrm, area = convex_polygon(vertices, normal)
        except ValueError as exc:
            self.fail(f"{w}.vertices" if "vertices" in d else f"{w}.face", d.get("vertices", d.get("face")), str(exc))
        try:
            d0 = reference_direction(nrm, self.vector(d, "d0", w, nonzero=True))
        except ValueError as exc:
            self.fail(f"{w}.d0", d.get("d0"), str(exc))
        mu = self.number(d, "friction", w, minimum=0.0)
        if mu is None:
            mu = body.friction if body is not None else (ground.friction if ground is not None else DEFAULT_FRICTION)
        return Surface(n, V, nrm, d0, area, body=body_name, friction=mu)

    def robot(self, r) -> RobotSpec | None:
        if r is None:
            return None
        if isinstance(r, str):  # shorthand: robot: hrp2
            r = {"name": r}
        keys = ("name", "posture", "joints", "placement", "base", "soles", "ankle", "motion")
        self.keys(r, "robot", keys, required=("name",))
        name = r["name"]
        if not isinstance(name, str):
            self.fail("robot.name", name, "expected a robot name or a URDF path")
        urdf = resolve_robot_path(
            name, base=self.path.parent, context=f"{self.source}: field 'robot.name'", error=SceneError
        )
        posture = r.get("posture")
        postures = _robot_postures(urdf)
        if posture is not None:
            if not isinstance(posture, str):
                self.fail("robot.posture", posture, "expected a posture name")
            if postures is not None and posture not in postures:
                self.fail(
                    "robot.posture", posture, f"robot '{name}' has no such posture (postures: {', '.join(postures)})"
                )
        out = self.joint_angles(r.get("joints"), "robot.joints", name, urdf)
        if "placement" in r and "base" in r:
            self.fail("robot.base", r["base"], "give either placement or base, not both")
        base = self.pose(r, "base", "robot") if r.get("base") is not None else None
        soles = r.get("soles", "rigid")
        if soles not in SOLE_MODELS:
            self.fail("robot.soles", soles, f"expected one of {', '.join(SOLE_MODELS)}")
        if soles == "fem" and not _robot_has_soles(urdf):
            self.fail("robot.soles", soles, f"robot '{name}' declares no soles in its YAML (docs/soles.md)")
        ankle = r.get("ankle", "rigid")
        if ankle not in ("rigid", "flexible"):
            self.fail("robot.ankle", ankle, "expected rigid or flexible")
        if ankle == "flexible" and urdf.stem not in FEET:
            self.fail("robot.ankle", ankle, f"robot '{name}' has no flexible-ankle variant (only {', '.join(FEET)})")
        return RobotSpec(
            name=name,
            urdf_path=urdf,
            posture=posture,
            joints=out,
            placement=self.pose(r, "placement", "robot"),
            base=base,
            soles=soles,
            ankle=ankle,
            motion=self.motion(r.get("motion"), name, urdf, postures),
        )

    def joint_angles(self, joints, where, name, urdf) -> dict:
        """Joint angle overrides [rad] (name -> angle), checked against the URDF's movable joints and
        their limits (``robot.joints``, a motion keyframe's ``joints``)."""
        joints = joints or {}
        if not isinstance(joints, Mapping):
            self.fail(where, joints, "expected a mapping joint name -> angle [rad]")
        limits = _robot_description(urdf).joint_limits()
        out = {}
        for j, v in joints.items():
            if j not in limits:
                self.fail(f"{where}.{j}", v, f"robot '{name}' has no movable joint '{j}'{did_you_mean(j, limits)}")
            out[j] = self.number(joints, j, where, required=True)
            lo, hi = limits[j]
            if not lo - 1e-9 <= out[j] <= hi + 1e-9:
                self.fail(f"{where}.{j}", v, f"outside the joint's limits [{lo:g}, {hi:g}] (URDF {urdf.name})")
        return out

    def motion(self, m, name, urdf, postures) -> tuple:
        """``robot.motion``: keyframes ``{t, posture, joints}`` the PD set-point passes through (t [s]
        >= 0, strictly increasing; postures of the robot; optional joint angle overrides [rad])."""
        if m is None:
            return ()
        if not isinstance(m, list) or not m:
            self.fail("robot.motion", m, "expected a list of keyframes {t, posture, joints}")
        out = []
        for i, k in enumerate(m):
            w = f"robot.motion[{i}]"
            if not isinstance(k, Mapping):
                self.fail(w, k, "expected a mapping {t, posture, joints}")
            self.keys(k, w, ("t", "posture", "joints"), required=("t", "posture"))
            t = self.number(k, "t", w, minimum=0.0, required=True)
            if out and t <= out[-1][0]:
                self.fail(f"{w}.t", t, f"times must increase (previous keyframe at {out[-1][0]:g} s)")
            p = k["posture"]
            if not isinstance(p, str) or (postures is not None and p not in postures):
                self.fail(
                    f"{w}.posture", p, f"robot '{name}' has no such posture (postures: {', '.join(postures or [])})"
                )
            out.append((t, p, self.joint_angles(k.get("joints"), f"{w}.joints", name, urdf)))
        return tuple(out)

    def wrench(self, d, w, free_bodies, robot) -> Wrench:
        self.keys(d, w, ("body", "force", "torque", "point", "start", "end"), required=("body", "start", "end"))
        body = d["body"]
        targets = [b.name for b in free_bodies]
        if robot is not None:
            targets += _robot_description(robot.urdf_path).link_names
        if body not in targets:
            self.fail(
                f"{w}.body",
                body,
                "no free body"
                + (" or robot link" if robot else "")
                + " of that name (free bodies: "
                + (", ".join(b.name for b in free_bodies) or "none")
                + ")",
            )
        start = self.number(d, "start", w, required=True, minimum=0.0)
        end = self.number(d, "end", w, required=True)
        if end <= start:
            self.fail(f"{w}.end", end, f"must be > start ({start})")
        return Wrench(
            body,
            self.vector(d, "force", w, default=(0, 0, 0)),
            self.vector(d, "torque", w, default=(0, 0, 0)),
            self.vector(d, "point", w, default=(0, 0, 0)),
            start,
            end,
        )


# ==================================================================================== robots
def _robot_description(urdf: Path) -> UrdfDescription:
    """The robot's URDF as parsed by the shared reader; a broken URDF is a `SceneError`."""
    try:
        return read_urdf(urdf if isinstance(urdf, Path) else Path(urdf))  # (a xacro path keeps its arguments)
    except ModelError as exc:
        raise SceneError(f"cannot read the robot's URDF: {exc}") from None


def _robot_has_soles(urdf: Path) -> bool:
    """Whether the robot's sidecar declares a ``soles:`` section (checked by the robot loader)."""
    try:
        sidecar = read_sidecar(urdf)
    except ModelError:
        return True  # a malformed sidecar: the robot loader reports it
    return sidecar is not None and bool(sidecar.soles)


def _robot_postures(urdf: Path) -> list[str] | None:
    """The robot's posture names (its sidecar's plus ``zero``), or None when the sidecar is
    malformed (the robot loader reports that)."""
    try:
        return posture_names(urdf)
    except ModelError:
        return None
