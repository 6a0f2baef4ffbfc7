"""Robot models: `load_robot(name_or_urdf_path)` -> `Robot`.

A `Robot` holds the Pinocchio model with a free-flyer root joint (``root_joint``), the collision
and visual geometry models (coal shapes), joint limits, named postures and contact locations
(Escande 2008, §5.3.1.1: body, point, inward normal, tangent direction, convex hull of the surface).

Shipped robots live in ``urdf/NAME.urdf`` with their postures, contact locations and sensor
frames in ``urdf/NAME.yaml`` (format in DEVELOPERS.md). Any other URDF works too:

* ``package://PKG/...`` and relative mesh paths are resolved without ament, by looking for a
  folder ``PKG`` beside or above the URDF, in ``ROS_PACKAGE_PATH`` / ``AMENT_PREFIX_PATH`` and in
  the ament index when it is importable (`humanoid_model.mesh_paths`);
* a ``NAME.yaml`` next to ``NAME.urdf`` is used when present; where it declares no ``contacts:``
  (or there is none) the soles and hands come from the sole and hand frames
  (`humanoid_model.frame_contacts`), else the soles from the two lowest links' collision geometry
  (left and right of the sagittal plane; none when the geometry is not on both sides: a robot
  without feet, e.g. an arm or a chain, is valid and simulates; `humanoid_model.contact_location`),
  and the ``zero`` posture puts the lowest collision point on z = 0 (`humanoid_model.collision_geometry`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pinocchio as pin

from humanoid_model.collision_geometry import geometry_z_range
from humanoid_model.collision_rules import CollisionRules
from humanoid_model.contact_location import ContactLocation, contact_from_yaml, default_sole_contacts
from humanoid_model.exceptions import ModelError
from humanoid_model.flexible_ankle import FEET, flexible_contacts, flexible_urdf
from humanoid_model.frame_contacts import automatic_contacts
from humanoid_model.mesh_paths import resolve_urdf_paths, resolve_urdf_text_paths
from humanoid_model.sole_spec import read_soles
from humanoid_model.spherical_joints import merge_spherical, read_spherical
from humanoid_model.srdf import find_srdf, read_srdf
from humanoid_model.urdf_description import (  # noqa: F401 (available_robots: re-exported)
    Sidecar,
    available_robots,
    read_once,
    read_sidecar,
    read_urdf,
    resolve_robot_path,
    sidecar_path,
)
from humanoid_model.validation import finite_number, finite_vector, message
from humanoid_model.xacro_file import robot_stem

ROOT_JOINT = "root_joint"


@dataclass
class Robot:
    """A humanoid model with its geometry, limits, postures and contact locations."""

    name: str
    urdf_path: Path | None  #: the robot's file (None for a robot built from URDF text without a file)
    urdf_text: str  #: URDF XML with every mesh path made absolute
    model: pin.Model
    collision_model: pin.GeometryModel
    visual_model: pin.GeometryModel
    postures: dict[str, np.ndarray]
    default_posture: str
    contact_locations: dict[str, ContactLocation]
    sensors: dict = field(default_factory=dict)
    planar: bool = False
    soles: dict = field(default_factory=dict)  #: name -> `humanoid_model.sole_spec.SoleSpec` (YAML ``soles:``)
    springs: dict = field(default_factory=dict)  #: passive joint -> (stiffness, damping) (`flexible_ankle`)
    #: ball joints (`humanoid_model.spherical_joints.SphericalMerge`: the URDF model and the angle maps), or None
    spherical: object = None
    #: mimic joints: name -> (mimicked joint, multiplier, offset); Pinocchio's ``JointModelMimic``, no q or v of its own
    mimic: dict = field(default_factory=dict)
    #: the robot's collision rules: its SRDF's exclusions, then its sidecar's ``collision:`` section
    collision: CollisionRules = field(default_factory=CollisionRules)

    # ------------------------------------------------------------------ derived quantities
    @property
    def data(self) -> pin.Data:
        """A fresh ``pin.Data`` for ``model`` (create one per thread / per use site)."""
        return self.model.createData()

    @property
    def joint_names(self) -> list[str]:
        """Actuated joint names in model order (no ``universe``, no root joint, no mimic joint)."""
        return [n for n in self.model.names[1:] if n != ROOT_JOINT and n not in self.mimic]

    def check_no_mimic(self, user: str) -> None:
        """`ModelError` naming ``user`` (what cannot run this robot) when the robot has mimic
        joints: Pinocchio 4.1's ABA, ``computeMinverse`` and ``computeAllTerms`` refuse them, so the
        simulator and the whole-body controller do too, in one line, before they start."""
        if self.mimic:
            pairs = ", ".join(f"{j} follows {m[0]}" for j, m in self.mimic.items())
            raise ModelError(
                f"robot '{self.name}': {user} does not support mimic joints ({pairs}): "
                "Pinocchio 4.1's forward dynamics (ABA) refuses them"
            )

    @property
    def dof_names(self) -> list[str]:
        """Actuated degree-of-freedom names in velocity order: a 1-DOF joint's name, and
        ``NAME[x]``, ``NAME[y]``, ``NAME[z]`` for the three axes of a ball joint ``NAME`` (its
        angular velocity in its child frame, `humanoid_model.spherical_joints`). Equal to
        `joint_names` for a robot of 1-DOF joints."""
        out = []
        for name in self.joint_names:
            j = self.model.joints[self.model.getJointId(name)]
            out += [f"{name}[{a}]" for a in "xyz"] if j.shortname() == "JointModelSpherical" else [name]
        return out

    @property
    def ball_joints(self) -> np.ndarray:
        """(b, 2) per ball joint: the first index of its quaternion in the actuated configuration
        q[7:] and of its three dofs in the actuated velocity v[6:] (empty without ball joints)."""
        rows = [
            (j.idx_q - 7, j.idx_v - 6)
            for j in (self.model.joints[i] for i in self._actuated_joint_ids())
            if j.shortname() == "JointModelSpherical"
        ]
        return np.array(rows, dtype=np.int64).reshape(-1, 2)

    def _actuated_joint_ids(self) -> list[int]:
        return [self.model.getJointId(n) for n in self.joint_names]

    def _per_dof(self, array: np.ndarray, space: str, unbounded: float = np.inf) -> np.ndarray:
        out = []
        for jid in self._actuated_joint_ids():
            j = self.model.joints[jid]
            if space == "q" and j.nq != j.nv:  # continuous joint (cos, sin): unbounded angle
                out.extend([unbounded] * j.nv)
            else:
                start, n = (j.idx_q, j.nq) if space == "q" else (j.idx_v, j.nv)
                out.extend(array[start : start + n])
        return np.array(out, dtype=float)

    @property
    def q_lower(self) -> np.ndarray:
        """Lower position limit per actuated DOF [rad] or [m]."""
        return self._per_dof(self.model.lowerPositionLimit, "q", -np.inf)

    @property
    def q_upper(self) -> np.ndarray:
        """Upper position limit per actuated DOF [rad] or [m]."""
        return self._per_dof(self.model.upperPositionLimit, "q")

    @property
    def v_max(self) -> np.ndarray:
        """Velocity limit per actuated DOF [rad/s] or [m/s]."""
        return self._per_dof(self.model.velocityLimit, "v")

    @property
    def effort_max(self) -> np.ndarray:
        """Effort limit per actuated DOF [N·m] or [N]."""
        return self._per_dof(self.model.effortLimit, "v")

    @property
    def armature(self) -> np.ndarray:
        """Rotor inertia per actuated DOF [kg·m²] (from the YAML's ``armature:``; zero if absent)."""
        return self._per_dof(self.model.armature, "v")

    @property
    def mass(self) -> float:
        """Total mass [kg]."""
        return float(pin.computeTotalMass(self.model))

    def check_floating_inertia(self, q: np.ndarray | None = None) -> None:
        """`ModelError` unless the whole robot, as one floating body, has positive mass and a
        positive definite rotational inertia: the root 6×6 block of the CRBA mass matrix at ``q``
        (default posture if None) is the robot's composite inertia, and a floating base without it
        has no defined acceleration (a URDF without ``<inertial>`` elements, or only point masses on
        one line). Joints that move no mass need not be refused: the implicit PD damping keeps the
        simulator's matrix invertible (docs/robots.md "Mass")."""
        q = self.q() if q is None else q
        block = pin.crba(self.model, self.data, q)[:6, :6]
        block = 0.5 * (block + block.T)
        eig = np.linalg.eigvalsh(block)
        if eig[0] <= 1e-12 * max(eig[-1], 1.0):  # relative: 1e-12 of the largest entry (chosen)
            raise ModelError(
                f"robot '{self.name}' ({self.urdf_path}): as a floating body it has no usable inertia "
                f"(total mass {self.mass:g} kg, smallest eigenvalue of its composite inertia {eig[0]:.3g}); "
                "give its links <inertial> elements with positive mass and inertia"
            )

    @property
    def nq(self) -> int:
        """Configuration size (7 + actuated joints' nq)."""
        return self.model.nq

    @property
    def nv(self) -> int:
        """Velocity size (6 + actuated DOF)."""
        return self.model.nv

    def q(self, name: str | None = None) -> np.ndarray:
        """A copy of the configuration of posture ``name`` (default posture if None)."""
        name = name or self.default_posture
        if name not in self.postures:
            raise ModelError(
                f"robot '{self.name}': unknown posture '{name}'; known postures: {', '.join(sorted(self.postures))}"
            )
        return self.postures[name].copy()

    def joint_positions(self, q: np.ndarray) -> dict[str, float]:
        """{joint name: position} of the actuated 1-DOF joints in ``q`` [rad] or [m], in
        `joint_names` order (a continuous joint's angle from its (cos, sin); joints of more than
        one DOF are left out). The /joint_states content of a configuration."""
        model = self.model
        out = {}
        for name in self.joint_names:
            j = model.joints[model.getJointId(name)]
            if j.nv == 1:
                out[name] = joint_angle(q, j)
        return out

    def with_angles(self, q: np.ndarray, angles) -> np.ndarray:
        """A copy of ``q`` with the URDF joints of ``angles`` (name -> angle [rad] or [m]) set. A
        joint of a ball joint's triple (`humanoid_model.spherical_joints`) changes that angle of the
        ball joint's three (the URDF's Euler angles), the other two kept."""
        q = np.array(q, float)
        merge = self.spherical
        if not angles:
            return q
        qu = merge.angles(q) if merge is not None else q
        model = merge.urdf_model if merge is not None else self.model
        for name, value in angles.items():
            if not model.existJointName(name) or name == ROOT_JOINT:
                raise ModelError(f"robot '{self.name}': unknown joint '{name}'")
            if not set_joint_angle(qu, model.joints[model.getJointId(name)], float(value)):
                raise ModelError(f"robot '{self.name}': joint '{name}' has more than one DOF: set it by posture")
        return merge.configuration(qu) if merge is not None else qu

    def joint_index_q(self, joint: str) -> int:
        """Index in q of a 1-DOF actuated joint."""
        return self.model.joints[self._joint_id(joint)].idx_q

    def joint_index_v(self, joint: str) -> int:
        """Index in v of a 1-DOF actuated joint."""
        return self.model.joints[self._joint_id(joint)].idx_v

    def _joint_id(self, joint: str) -> int:
        if not self.model.existJointName(joint) or joint == ROOT_JOINT:
            raise ModelError(f"robot '{self.name}': unknown joint '{joint}'")
        return self.model.getJointId(joint)

    def frame_id(self, frame: str) -> int:
        """Pinocchio id of frame ``frame`` (`ModelError` when unknown)."""
        if not self.model.existFrame(frame):
            raise ModelError(f"robot '{self.name}': unknown frame '{frame}'")
        return self.model.getFrameId(frame)

    def height(self, posture: str | None = None) -> float:
        """Highest point of the collision geometry at ``posture`` [m] (world z)."""
        lo, hi = geometry_z_range(self.model, self.collision_model, self.q(posture))
        return hi


# ---------------------------------------------------------------------- public functions
def set_joint_angle(q: np.ndarray, joint, angle: float) -> bool:
    """Write the position of the 1-DOF joint ``joint`` (a ``pin.JointModel``) into ``q`` in place:
    an angle [rad] or a translation [m]; a continuous joint is stored as (cos, sin). Returns False
    (``q`` unchanged) for a joint of more than one DOF."""
    if joint.nv != 1:
        return False
    if joint.nq == 1:
        q[joint.idx_q] = angle
    else:  # continuous: (cos, sin)
        q[joint.idx_q : joint.idx_q + 2] = np.cos(angle), np.sin(angle)
    return True


def joint_angle(q: np.ndarray, joint) -> float:
    """The position of the 1-DOF joint ``joint`` in ``q`` [rad] or [m] (inverse of `set_joint_angle`)."""
    if joint.nq == 2:
        return math.atan2(q[joint.idx_q + 1], q[joint.idx_q])  # libm: the same bits on every processor
    return float(q[joint.idx_q])


MAX_JOINTS = 150
"""Joint degrees of freedom a robot may have (chosen: 5 × HRP-2's 30, twice a humanoid with two
24-DOF hands; Pinocchio's ``Data`` of n joints takes ~n³ memory: 69 MB at 100, 513 MB at 200,
measured with `createData`, so an `info`, `simulate` or `view` of a 999-joint chain runs out of
memory)."""


def check_joint_count(n: int, source) -> None:
    """`ModelError` when a model has more than `MAX_JOINTS` joint degrees of freedom (``n``, the
    free flyer's left out), before any Pinocchio ``Data`` is made for it."""
    if n > MAX_JOINTS:
        raise ModelError(
            f"{source}: {n} joint degrees of freedom; at most {MAX_JOINTS} are supported "
            "(Pinocchio's Data grows as their cube: 69 MB at 100, 513 MB at 200, a 999-joint chain runs out of 24 GB)"
        )


def load_robot(name_or_urdf_path, planar: bool = False, ankle: str = "rigid") -> Robot:
    """Load a shipped robot by name (``hrp2``, ``bip``), a URDF file or a xacro file.

    Args:
        name_or_urdf_path: shipped robot name, path to a URDF file, or path to a xacro file
            optionally followed by its arguments, ``"FILE.urdf.xacro name:=value ..."``
            (`humanoid_model.xacro_file`).
        planar: lock the joints listed under ``planar.locked_joints`` in the robot's YAML (for BIP,
            the lateral joints), giving the sagittal model. The root stays a free flyer.
        ankle: ``rigid`` (default) or ``flexible``: HRP-2's passive 3-DOF spring-damper ankles
            (`humanoid_model.flexible_ankle`, Chardonnet 2009, eq. (4.3)); ``robot.springs`` holds their constants.

    The URDF and its sidecar are read once (`humanoid_model.urdf_description.read_once`); the
    robot's SRDF, when there is one, gives postures and collision exclusions (`humanoid_model.srdf`).
    """
    with read_once():
        path = resolve_robot_path(name_or_urdf_path)
        desc = read_urdf(path)
        srdf_path = find_srdf(path, desc.name)
        srdf = read_srdf(srdf_path, desc) if srdf_path is not None else None
        return _build(path, robot_stem(path), resolve_urdf_paths(path), read_sidecar(path), srdf, planar, ankle)


def robot_from_urdf_text(
    urdf_text: str, name: str | None = None, base: Path | None = None, like=None, planar: bool = False
) -> Robot:
    """A `Robot` from URDF XML text, as a ROS node receives it on ``/robot_description``.

    Mesh paths are resolved by `humanoid_model.mesh_paths.resolve_urdf_text_paths` (``package://``
    in ``ROS_PACKAGE_PATH`` / ``AMENT_PREFIX_PATH`` / the ament index and in the folders above
    ``base``; relative paths from ``base``). ``like``: a robot name or file (as `load_robot` takes)
    whose sidecar and SRDF give the postures, contacts, sensors and collision rules (a shipped
    robot's description published by ``robot_state_publisher``); without it the robot has the
    ``zero`` posture and the contacts found from its frames, as a URDF file without a sidecar. ``name``:
    default the URDF's ``<robot name>``. The robot's ``urdf_path`` is ``like``'s file, else None."""
    with read_once():
        if "<" not in str(urdf_text):
            raise ModelError("<urdf string>: not URDF XML text (a robot name or file goes to load_robot)")
        desc = read_urdf(str(urdf_text))
        text = resolve_urdf_text_paths(urdf_text, base)
        path = sidecar = srdf = None
        if like is not None:
            path = resolve_robot_path(like)
            sidecar = read_sidecar(path)
            srdf_path = find_srdf(path, read_urdf(path).name)
            srdf = read_srdf(srdf_path, desc) if srdf_path is not None else None
        return _build(path, name or desc.name, text, sidecar, srdf, planar, "rigid", source="<urdf string>")


def _build(path, name, urdf_text, sidecar, srdf, planar: bool, ankle: str, source=None) -> Robot:
    """The `Robot` of URDF text whose meshes are resolved, with its sidecar and SRDF (None when absent)."""
    source = source or path
    springs = {}
    if ankle not in ("rigid", "flexible"):
        raise ModelError(message("load_robot", "ankle", "'rigid' or 'flexible'", ankle))
    if ankle == "flexible":
        if name not in FEET or planar:
            raise ModelError(message("load_robot", "ankle", f"'rigid' for {name} (planar={planar})", ankle))
        urdf_text, origins, springs = flexible_urdf(urdf_text, FEET[name])
        if sidecar is not None:
            sidecar = dataclasses.replace(sidecar, contacts=flexible_contacts(dict(sidecar.contacts), origins))
    mimic = read_urdf(urdf_text).mimic_joints
    try:
        model = pin.buildModelFromXML(urdf_text, pin.JointModelFreeFlyer(), bool(mimic))
    except (RuntimeError, ValueError) as exc:
        raise ModelError(f"{source}: Pinocchio cannot parse this URDF: {exc}") from exc
    balls = read_spherical(sidecar.spherical, str(sidecar.path)) if sidecar is not None else ()
    merge = None
    if balls:  # the sidecar's ball joints: the URDF model's postures and armature, then one joint per triple
        if planar:
            raise ModelError(message("load_robot", "planar", "False for a robot with ball joints", planar))
        urdf_model = model
        _set_armature(urdf_model, sidecar.armature, sidecar.path)
        merge = merge_spherical(urdf_model, balls, str(sidecar.path))
        model = merge.model
    try:
        collision = pin.buildGeomFromUrdfString(model, urdf_text, pin.GeometryType.COLLISION)
        visual = pin.buildGeomFromUrdfString(model, urdf_text, pin.GeometryType.VISUAL)
    except (RuntimeError, ValueError) as exc:
        raise ModelError(f"{source}: Pinocchio cannot parse this URDF: {exc}") from exc
    check_joint_count(model.nv - 6, source)
    # Pinocchio names the free flyer "root_joint" (checked here so a future change is caught).
    if model.names[1] != ROOT_JOINT:
        raise ModelError(f"{source}: expected the free-flyer joint to be named '{ROOT_JOINT}'")

    postures = _srdf_postures(model, collision, srdf)
    rules = srdf.collision if srdf is not None else CollisionRules()
    if sidecar is not None:
        spec_path = sidecar.path
        if merge is None:
            postures.update({k: _posture_q(model, v, spec_path, k) for k, v in sidecar.postures.items()})
        else:  # written with the URDF's angles (a ball joint's three), converted to quaternions
            postures.update(
                {
                    k: merge.configuration(_posture_q(merge.urdf_model, v, spec_path, k))
                    for k, v in sidecar.postures.items()
                }
            )
        postures.setdefault("zero", _zero_posture(model, collision))
        default = sidecar.default_posture or next(iter(postures))
        if default not in postures:
            raise ModelError(f"{spec_path}: default_posture '{default}' is not among postures ({', '.join(postures)})")
        contacts = {k: contact_from_yaml(model, v, spec_path, k) for k, v in sidecar.contacts.items()}
        if not sidecar.contacts:  # a sidecar without a contacts section: the automatic ones
            contacts = found_contacts(model, collision, postures["zero"], source)
        sensors = dict(sidecar.sensors)
        if merge is None:  # (with ball joints: set on the URDF model, carried over by the merge)
            _set_armature(model, sidecar.armature, spec_path)
        soles = read_soles(sidecar.soles, contacts, str(spec_path))
        rules = rules.merged(sidecar.collision)
    else:
        default = next(iter(postures), "zero")  # the SRDF's first group state, else zero
        postures.setdefault("zero", _zero_posture(model, collision))
        contacts = found_contacts(model, collision, postures["zero"], source)
        sensors = {}
        soles = {}

    robot = Robot(
        name=name,
        urdf_path=path,
        urdf_text=urdf_text,
        model=model,
        collision_model=collision,
        visual_model=visual,
        postures=postures,
        default_posture=default,
        contact_locations=contacts,
        sensors=sensors,
        soles=soles,
        springs=springs,
        spherical=merge,
        mimic=dict(mimic),
        collision=rules,
    )
    if planar:
        robot = _planar_reduction(robot, sidecar, sidecar_path(path) if path is not None else source)
    return robot


def found_contacts(model, collision, q, source) -> dict:
    """The contact locations of a robot whose sidecar declares none (docs/robots.md "How to bring a
    new robot"): the soles and hands of its frames (`humanoid_model.frame_contacts`), the soles
    from the lowest collision geometry on each side where it has no sole frames
    (`default_sole_contacts`)."""
    contacts = automatic_contacts(model, collision, q)
    if "l_sole" not in contacts:
        contacts = {**default_sole_contacts(model, collision, q, source), **contacts}
    return contacts


def _srdf_postures(model, collision, srdf) -> dict[str, np.ndarray]:
    """The SRDF's group states as configurations (`humanoid_model.srdf`); a group state without a
    base pose stands on the ground (its lowest collision point at z = 0, as ``zero``)."""
    postures = {}
    for name, spec in (srdf.postures if srdf is not None else {}).items():
        q = _posture_q(
            model, {"joints": spec["joints"], "base": spec["base"] or [0, 0, 0, 0, 0, 0, 1]}, srdf.path, name
        )
        if spec["base"] is None and len(collision.geometryObjects):
            q[2] -= geometry_z_range(model, collision, q)[0]
        postures[name] = q
    return postures


# ---------------------------------------------------------------------- sidecar sections
def _posture_q(model: pin.Model, spec, path: Path, name: str) -> np.ndarray:
    where = f"{path}: postures.{name}"
    if not isinstance(spec, dict):
        raise ModelError(f"{where}: expected a mapping with 'base' and 'joints'")
    q = pin.neutral(model)
    base = finite_vector(spec.get("base", [0, 0, 0, 0, 0, 0, 1]), 7, str(path), f"postures.{name}.base", ModelError)
    if abs(np.linalg.norm(base[3:]) - 1.0) > 1e-6:
        raise ModelError(f"{where}.base: quaternion {base[3:].tolist()} is not unit")
    q[:7] = base
    for joint, value in (spec.get("joints") or {}).items():
        if not model.existJointName(joint) or joint == ROOT_JOINT:
            raise ModelError(f"{where}.joints: unknown joint '{joint}'")
        j = model.joints[model.getJointId(joint)]
        if j.nv == 0:
            raise ModelError(f"{where}.joints.{joint}: a mimic joint follows the joint it mimics: set that one")
        angle = finite_number(value, str(path), f"postures.{name}.joints.{joint}", unit="[rad]", error=ModelError)
        if not set_joint_angle(q, j, angle):
            raise ModelError(f"{where}.joints.{joint}: only 1-DOF joints can be set by angle")
    return q


def _set_armature(model: pin.Model, armature: dict, path: Path) -> None:
    """Rotor inertia reflected at the joint [kg·m²] (``armature:`` in the YAML) -> ``model.armature``.

    ``pin.rnea``/``pin.crba`` then include it; compare with a model built from the bare URDF when
    checking against equations that leave rotors out.
    """
    for joint, value in armature.items():
        if not model.existJointName(joint) or joint == ROOT_JOINT:
            raise ModelError(f"{path}: armature: unknown joint '{joint}'")
        value = finite_number(value, str(path), f"armature.{joint}", minimum=0.0, unit="[kg m^2]", error=ModelError)
        j = model.joints[model.getJointId(joint)]
        model.armature[j.idx_v : j.idx_v + j.nv] = value


# ---------------------------------------------------------------------- without a sidecar
def _zero_posture(model, collision) -> np.ndarray:
    q = pin.neutral(model)
    if len(collision.geometryObjects):
        lo, _ = geometry_z_range(model, collision, q)
        q[2] = -lo
    return q


# ---------------------------------------------------------------------- planar reduction
def _planar_reduction(robot: Robot, sidecar: Sidecar | None, spec_path) -> Robot:
    locked = sidecar.planar_locked_joints if sidecar is not None else None
    if not locked:
        raise ModelError(
            f"robot '{robot.name}' has no planar model: add 'planar: {{locked_joints: [...]}}' to {spec_path}"
        )
    model = robot.model
    ids = []
    for j in locked:
        if not model.existJointName(j):
            raise ModelError(f"{spec_path}: planar.locked_joints: unknown joint '{j}'")
        ids.append(model.getJointId(j))
    q_ref = robot.q()
    reduced, (coll, vis) = pin.buildReducedModel(model, [robot.collision_model, robot.visual_model], ids, q_ref)
    postures = {}
    for name, q in robot.postures.items():
        qr = pin.neutral(reduced)
        for jid in range(1, reduced.njoints):
            jr = reduced.joints[jid]
            jf = model.joints[model.getJointId(reduced.names[jid])]
            qr[jr.idx_q : jr.idx_q + jr.nq] = q[jf.idx_q : jf.idx_q + jf.nq]
        postures[name] = qr
    contacts = {k: c for k, c in robot.contact_locations.items() if reduced.existFrame(c.body)}
    return Robot(
        name=robot.name,
        urdf_path=robot.urdf_path,
        urdf_text=robot.urdf_text,
        model=reduced,
        collision_model=coll,
        visual_model=vis,
        postures=postures,
        default_posture=robot.default_posture,
        contact_locations=contacts,
        sensors=robot.sensors,
        planar=True,
        soles={k: s for k, s in robot.soles.items() if s.contact in contacts},
    )
