"""URDF ingestion for the dynamic-model generator: URDF text -> `TreeModel` (a kinematic tree of
1-DoF joints and rigid bodies).

Rules (``../shared/spec/004_canovas.md`` §2.6 and §5.1 items 1-3):

* Only ``<link>`` (its ``<inertial>``) and ``<joint>`` are read; visual, collision, gazebo,
  transmission and sensor elements are ignored. Units: metres, radians, kilograms.
* URDF defaults apply to missing tags: ``<origin>`` = identity (xyz 0 0 0, rpy 0 0 0), ``<axis>``
  = (1, 0, 0), a link without ``<inertial>`` has zero mass, an ``<inertial>`` without
  ``<origin>`` has its COM at the link origin, missing inertia entries are 0.
* ``revolute`` and ``continuous`` -> one revolute joint (limits ignored); ``prismatic`` -> one
  prismatic joint. The axis is expressed in the joint frame (spec §2.6, L587) and normalised.
* ``fixed`` -> the child link is merged into its parent (mass, COM and inertia are combined, the
  child's own joints are re-attached with the composed origin).
* ``floating`` -> 3 prismatic joints along the parent frame's x, y, z (named ``<name>_x``,
  ``<name>_y``, ``<name>_z``) then 3 revolute joints about z, y, x of the successive frames
  (``<name>_yaw``, ``<name>_pitch``, ``<name>_roll``): the child orientation is
  ``Rz(yaw) Ry(pitch) Rx(roll)``, i.e. URDF rpy = (roll, pitch, yaw). This is the report's WJ
  "3P + 3R" (spec §3.2). ``parse_urdf(..., floating_base=True)`` adds the same block (named
  ``root_*``) above the root link. See `humanoid_model.dynmodel.floating` for the conversion to
  Pinocchio's free-flyer.
* ``planar`` -> 2 prismatic joints along two unit vectors orthogonal to the axis, then a revolute
  joint about the axis (``<name>_t1``, ``<name>_t2``, ``<name>_rot``).
* The tree must have one root link; the result does not depend on the declaration order of the
  elements (joints are ordered depth-first from the root, children in declaration order).

A malformed URDF raises `ModelError` naming the source, the element and the problem.
"""
from __future__ import annotations

import math
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import ModelError

__all__ = ["Body", "Joint", "TreeModel", "parse_urdf", "rpy_matrix", "axis_angle_matrix"]


def rpy_matrix(rpy) -> np.ndarray:
    """URDF fixed-axis roll-pitch-yaw: R = Rz(yaw) @ Ry(pitch) @ Rx(roll)."""
    r, p, y = (float(v) for v in rpy)
    cr, sr, cp, sp, cy, sy = math.cos(r), math.sin(r), math.cos(p), math.sin(p), math.cos(y), math.sin(y)
    return np.array([[cy * cp, cy * sp * sr - sy * cr, cy * sp * cr + sy * sr],
                     [sy * cp, sy * sp * sr + cy * cr, sy * sp * cr - cy * sr],
                     [-sp, cp * sr, cp * cr]])


def axis_angle_matrix(axis, angle) -> np.ndarray:
    """Rotation by `angle` [rad] about the unit vector `axis` (Rodrigues)."""
    a = np.asarray(axis, float)
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


@dataclass
class Body:
    """A rigid body after merging fixed joints. Inertia about the COM, in the body (link) frame."""
    name: str
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))          # [m], body frame
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))  # [kg m^2], about COM
    merged: list = field(default_factory=list)  # names of links merged into this body (fixed joints)


@dataclass
class Joint:
    """A 1-DoF joint between `parent` and `child` bodies.

    The child frame is ``R_parent @ origin_rot @ Rot(axis, q)`` (revolute) or
    ``R_parent @ origin_rot`` translated by ``q * axis`` (prismatic), placed at
    ``O_parent + R_parent @ origin_xyz``. `axis` is a unit vector in the joint frame.
    """
    name: str
    kind: str            # "revolute" or "prismatic"
    parent: str
    child: str
    origin_xyz: np.ndarray
    origin_rot: np.ndarray
    axis: np.ndarray
    urdf_type: str = ""  # the URDF type it came from (continuous, floating, ...)


@dataclass
class TreeModel:
    """A tree of bodies connected by 1-DoF joints; `joints` is in depth-first order from `root`."""
    name: str
    root: str
    bodies: dict                 # name -> Body (root included)
    joints: list                 # [Joint], depth-first order; joint i drives body joints[i].child
    source: str = "<string>"

    @property
    def joint_names(self) -> list:
        return [j.name for j in self.joints]

    @property
    def nv(self) -> int:
        return len(self.joints)

    def children(self, body: str) -> list:
        return [j for j in self.joints if j.parent == body]

    def parent_joint(self, body: str):
        for j in self.joints:
            if j.child == body:
                return j
        return None

    @property
    def total_mass(self) -> float:
        return float(sum(b.mass for b in self.bodies.values()))


# ----------------------------------------------------------------------------------- parsing
def _floats(text, n, where, attr, src):
    try:
        vals = [float(t) for t in text.split()]
    except ValueError:
        raise ModelError(f"{src}: {where}: attribute {attr}='{text}' is not a list of numbers") from None
    if len(vals) != n:
        raise ModelError(f"{src}: {where}: attribute {attr}='{text}' needs {n} numbers, got {len(vals)}")
    if not all(math.isfinite(v) for v in vals):
        raise ModelError(f"{src}: {where}: attribute {attr}='{text}' is not finite")
    return np.array(vals)


def _scalar(elem, attr, where, src, default=None):
    text = elem.get(attr)
    if text is None:
        if default is not None:
            return default
        raise ModelError(f"{src}: {where}: missing attribute '{attr}'")
    return float(_floats(text, 1, where, attr, src)[0])


def _origin(elem, where, src):
    o = elem.find("origin")
    if o is None:
        return np.zeros(3), np.eye(3)
    xyz = _floats(o.get("xyz", "0 0 0"), 3, f"{where} <origin>", "xyz", src)
    rpy = _floats(o.get("rpy", "0 0 0"), 3, f"{where} <origin>", "rpy", src)
    return xyz, rpy_matrix(rpy)


def _read_source(urdf):
    """(xml text, source name) from a path, a Path or an XML string."""
    if isinstance(urdf, Path) or (isinstance(urdf, str) and "<" not in urdf):
        path = Path(urdf)
        if not path.is_file():
            raise ModelError(f"{path}: URDF file not found")
        try:
            return path.read_text(), str(path)
        except (OSError, UnicodeDecodeError) as exc:
            raise ModelError(f"{path}: cannot read the URDF file ({exc})") from None
    return str(urdf), "<urdf string>"


def _unit_orthogonal(n):
    """Two unit vectors t1, t2 with (t1, t2, n) right-handed and orthonormal."""
    helper = np.array([1.0, 0, 0]) if abs(n[0]) < 0.9 else np.array([0, 1.0, 0])
    t1 = np.cross(helper, n)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def parse_urdf(urdf, floating_base: bool = False) -> TreeModel:
    """Parse URDF (a file path or the XML text, e.g. a ROS 2 ``robot_description``).

    ``floating_base=True`` puts a 3P+3R block (joints ``root_x`` ... ``root_roll``) between a
    fixed world and the root link.
    """
    text, src = _read_source(urdf)
    try:
        root = ET.fromstring(text)
    except ET.ParseError as exc:
        raise ModelError(f"{src}: not well-formed XML ({exc})") from None
    if root.tag != "robot":
        raise ModelError(f"{src}: the top element is <{root.tag}>, expected <robot>")
    robot_name = root.get("name") or "robot"

    links = {}
    link_order = []
    for le in root.findall("link"):
        name = le.get("name")
        if not name:
            raise ModelError(f"{src}: a <link> element has no 'name' attribute")
        if name in links:
            raise ModelError(f"{src}: <link name='{name}'> is declared twice")
        where = f"<link name='{name}'>"
        body = Body(name)
        ine = le.find("inertial")
        if ine is not None:
            xyz, rot = _origin(ine, f"{where} <inertial>", src)
            me = ine.find("mass")
            mass = 0.0 if me is None else _scalar(me, "value", f"{where} <inertial> <mass>", src)
            if mass < 0:
                raise ModelError(f"{src}: {where} <inertial> <mass value='{me.get('value')}'>: "
                                 f"mass must be >= 0")
            ie = ine.find("inertia")
            I = np.zeros((3, 3))
            if ie is not None:
                w = f"{where} <inertial> <inertia>"
                ixx, ixy, ixz, iyy, iyz, izz = (_scalar(ie, a, w, src, default=0.0)
                                                for a in ("ixx", "ixy", "ixz", "iyy", "iyz", "izz"))
                I = np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
                if np.linalg.eigvalsh(I).min() < -1e-12 * max(1.0, np.abs(I).max()):
                    raise ModelError(f"{src}: {w}: the inertia tensor "
                                     f"(ixx={ixx}, iyy={iyy}, izz={izz}, ixy={ixy}, ixz={ixz}, "
                                     f"iyz={iyz}) is not positive semi-definite")
            body.mass, body.com, body.inertia = mass, xyz, rot @ I @ rot.T
        links[name] = body
        link_order.append(name)

    raw = []  # (name, type, parent, child, xyz, rot, axis)
    seen = set()
    for je in root.findall("joint"):
        name = je.get("name")
        if not name:
            raise ModelError(f"{src}: a <joint> element has no 'name' attribute")
        if name in seen:
            raise ModelError(f"{src}: <joint name='{name}'> is declared twice")
        seen.add(name)
        where = f"<joint name='{name}'>"
        jtype = je.get("type")
        if jtype not in ("revolute", "continuous", "prismatic", "fixed", "floating", "planar"):
            raise ModelError(f"{src}: {where}: type='{jtype}' is not a URDF joint type "
                             f"(revolute, continuous, prismatic, fixed, floating, planar)")
        ends = []
        for tag in ("parent", "child"):
            e = je.find(tag)
            if e is None or not e.get("link"):
                raise ModelError(f"{src}: {where}: missing <{tag} link='...'>")
            if e.get("link") not in links:
                raise ModelError(f"{src}: {where}: <{tag} link='{e.get('link')}'> names an "
                                 f"undeclared link")
            ends.append(e.get("link"))
        xyz, rot = _origin(je, where, src)
        ae = je.find("axis")
        axis = np.array([1.0, 0, 0]) if ae is None else _floats(ae.get("xyz", "1 0 0"), 3,
                                                                f"{where} <axis>", "xyz", src)
        nrm = float(np.linalg.norm(axis))
        if jtype in ("revolute", "continuous", "prismatic", "planar") and nrm < 1e-12:
            raise ModelError(f"{src}: {where} <axis xyz='{ae.get('xyz')}'>: the axis is zero")
        raw.append((name, jtype, ends[0], ends[1], xyz, rot, axis / nrm if nrm > 0 else axis))

    # --- topology checks
    parent_of = {}
    for r in raw:
        if r[3] in parent_of:
            raise ModelError(f"{src}: <link name='{r[3]}'> is the child of two joints "
                             f"('{parent_of[r[3]][0]}' and '{r[0]}'): not a tree")
        parent_of[r[3]] = r
    roots = [n for n in link_order if n not in parent_of]
    if len(roots) != 1:
        raise ModelError(f"{src}: <robot name='{robot_name}'> needs exactly one root link "
                         f"(a link that is no joint's child); found {roots or 'none (a cycle)'}")
    children = {n: [] for n in links}
    for r in raw:
        children[r[2]].append(r)
    # cycles: every link must be reachable from the root
    reach, stack = set(), [roots[0]]
    while stack:
        n = stack.pop()
        reach.add(n)
        stack.extend(r[3] for r in children[n])
    unreachable = [n for n in link_order if n not in reach]
    if unreachable:
        raise ModelError(f"{src}: links {unreachable} are not connected to the root link "
                         f"'{roots[0]}' (a joint cycle)")

    bodies = {}
    joints = []
    used_names = set(links) | seen

    def fresh(name):
        base, k = name, 1
        while name in used_names:
            name, k = f"{base}_{k}", k + 1
        used_names.add(name)
        return name

    def add_chain(prefix, kind_axes, parent, child, xyz, rot, urdf_type):
        """Insert 1-DoF joints joined by empty bodies; the last joint drives `child`."""
        cur = parent
        for i, (suffix, kind, axis) in enumerate(kind_axes):
            last = i == len(kind_axes) - 1
            jname = fresh(f"{prefix}_{suffix}")
            cname = child if last else fresh(f"{prefix}_{suffix}_link")
            if not last:
                bodies[cname] = Body(cname)
            joints.append(Joint(jname, kind, cur, cname, xyz if i == 0 else np.zeros(3),
                                rot if i == 0 else np.eye(3), np.asarray(axis, float), urdf_type))
            cur = cname

    def floating_axes():
        ex, ey, ez = np.eye(3)
        return [("x", "prismatic", ex), ("y", "prismatic", ey), ("z", "prismatic", ez),
                ("yaw", "revolute", ez), ("pitch", "revolute", ey), ("roll", "revolute", ex)]

    def visit(link, body, xyz0, rot0):
        """Attach `link` (frame xyz0/rot0 in `body`'s frame) and its subtree."""
        b = links[link]
        if link != body:  # merge a fixed child into `body`
            _merge(bodies[body], b, xyz0, rot0)
        for (name, jtype, _p, child, xyz, rot, axis) in children[link]:
            xyz_b, rot_b = xyz0 + rot0 @ xyz, rot0 @ rot
            if jtype == "fixed":
                bodies[body].merged.append(child)
                visit(child, body, xyz_b, rot_b)
                continue
            bodies[child] = Body(child, links[child].mass, links[child].com.copy(),
                                 links[child].inertia.copy())
            if jtype in ("revolute", "continuous", "prismatic"):
                joints.append(Joint(name, "prismatic" if jtype == "prismatic" else "revolute",
                                    body, child, xyz_b, rot_b, axis, jtype))
            elif jtype == "floating":
                add_chain(name, floating_axes(), body, child, xyz_b, rot_b, jtype)
            else:  # planar
                t1, t2 = _unit_orthogonal(axis)
                add_chain(name, [("t1", "prismatic", t1), ("t2", "prismatic", t2),
                                 ("rot", "revolute", axis)], body, child, xyz_b, rot_b, jtype)
            visit(child, child, np.zeros(3), np.eye(3))

    root_link = roots[0]
    if floating_base:
        world = fresh("world")
        bodies[world] = Body(world)
        bodies[root_link] = Body(root_link, links[root_link].mass, links[root_link].com.copy(),
                                 links[root_link].inertia.copy())
        add_chain("root", floating_axes(), world, root_link, np.zeros(3), np.eye(3), "floating")
        visit(root_link, root_link, np.zeros(3), np.eye(3))
        root_name = world
    else:
        bodies[root_link] = Body(root_link, links[root_link].mass, links[root_link].com.copy(),
                                 links[root_link].inertia.copy())
        visit(root_link, root_link, np.zeros(3), np.eye(3))
        root_name = root_link
    return TreeModel(robot_name, root_name, bodies, joints, src)


def _merge(body: Body, link: Body, xyz, rot):
    """Add `link` (frame at xyz/rot in `body`'s frame) to `body`: mass, COM, inertia about COM."""
    m1, m2 = body.mass, link.mass
    if m2 == 0.0:
        return
    c1, c2 = body.com, xyz + rot @ link.com
    m = m1 + m2
    c = (m1 * c1 + m2 * c2) / m

    def shift(mass, d):
        return mass * (float(d @ d) * np.eye(3) - np.outer(d, d))

    body.inertia = (body.inertia + shift(m1, c1 - c) + rot @ link.inertia @ rot.T + shift(m2, c2 - c))
    body.mass, body.com = m, c


def identifier(name: str) -> str:
    """A valid Python/C identifier made from a URDF name."""
    s = re.sub(r"\W", "_", name)
    return s if re.match(r"[A-Za-z_]", s) else "_" + s
