"""URDF ingestion for the dynamic-model generator: URDF text -> `TreeModel` (a kinematic tree of
1-DoF joints and rigid bodies).

Rules (Canovas, §3.2, plus the URDF defaults and joint types the report leaves out):

* The URDF is read by `humanoid_model.urdf_description.read_urdf` (the reader shared with the
  robot and scene loaders): only ``<link>`` (its ``<inertial>``) and ``<joint>`` are used;
  visual, collision, gazebo, transmission and sensor elements are ignored. Units: metres,
  radians, kilograms. The reader also checks the physics (mass >= 0, positive semi-definite
  inertia) and the depth (`humanoid_model.urdf_description.MAX_DEPTH`); this module builds the
  symbolic tree, by an iterative traversal (no recursion limit).
* URDF defaults apply to missing tags: ``<origin>`` = identity (xyz 0 0 0, rpy 0 0 0), ``<axis>``
  = (1, 0, 0), a link without ``<inertial>`` has zero mass, an ``<inertial>`` without
  ``<origin>`` has its COM at the link origin (``<mass>`` and the six inertia entries are required,
  as urdfdom requires them: `read_urdf` checks it).
* ``revolute`` and ``continuous`` -> one revolute joint (limits ignored); ``prismatic`` -> one
  prismatic joint. The axis is expressed in the joint frame (Canovas, §3.2) and normalised.
* ``fixed`` -> the child link is merged into its parent (mass, COM and inertia are combined, the
  child's own joints are re-attached with the composed origin).
* ``floating`` -> 3 prismatic joints along the parent frame's x, y, z (named ``<name>_x``,
  ``<name>_y``, ``<name>_z``) then 3 revolute joints about z, y, x of the successive frames
  (``<name>_yaw``, ``<name>_pitch``, ``<name>_roll``): the child orientation is
  ``Rz(yaw) Ry(pitch) Rx(roll)``, i.e. URDF rpy = (roll, pitch, yaw). This is the report's WJ
  "3P + 3R" (Canovas, §4.2). ``parse_urdf(..., floating_base=True)`` adds the same block (named
  ``root_*``) above the root link. See `humanoid_model.dynmodel.floating` for the conversion to
  Pinocchio's free-flyer.
* ``planar`` -> 2 prismatic joints along two unit vectors orthogonal to the axis, then a revolute
  joint about the axis (``<name>_t1``, ``<name>_t2``, ``<name>_rot``).
* The tree must have one root link; the result does not depend on the declaration order of the
  elements (joints are ordered depth-first from the root, children in declaration order).

A malformed URDF raises `ModelError` naming the source, the element and the problem.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from humanoid_model.scene_geometry import rpy_to_matrix as rpy_matrix  # URDF rpy: Rz(yaw) Ry(pitch) Rx(roll)
from humanoid_model.urdf_description import UrdfLink, read_urdf

__all__ = ["Body", "Joint", "TreeModel", "parse_urdf", "rpy_matrix"]


@dataclass
class Body:
    """A rigid body after merging fixed joints. Inertia about the COM, in the body (link) frame."""

    name: str
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))  # [m], body frame
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
    kind: str  # "revolute" or "prismatic"
    parent: str
    child: str
    origin_xyz: np.ndarray
    origin_rot: np.ndarray
    axis: np.ndarray
    urdf_type: str = ""  # the URDF type it came from (continuous, floating, ...)
    damping: float = 0.0  # URDF <dynamics damping>: viscous friction [N m s/rad] or [N s/m]
    friction: float = 0.0  # URDF <dynamics friction>: Coulomb friction [N m] or [N]


@dataclass
class TreeModel:
    """A tree of bodies connected by 1-DoF joints; `joints` is in depth-first order from `root`."""

    name: str
    root: str
    bodies: dict  # name -> Body (root included)
    joints: list  # [Joint], depth-first order; joint i drives body joints[i].child
    source: str = "<string>"

    @property
    def joint_names(self) -> list:
        return [j.name for j in self.joints]

    @property
    def nv(self) -> int:
        return len(self.joints)

    def children(self, body: str) -> list:
        return [j for j in self.joints if j.parent == body]

    @property
    def total_mass(self) -> float:
        return float(sum(b.mass for b in self.bodies.values()))


# ----------------------------------------------------------------------------------- parsing
def _unit_orthogonal(n):
    """Two unit vectors t1, t2 with (t1, t2, n) right-handed and orthonormal."""
    helper = np.array([1.0, 0, 0]) if abs(n[0]) < 0.9 else np.array([0, 1.0, 0])
    t1 = np.cross(helper, n)
    t1 /= np.linalg.norm(t1)
    return t1, np.cross(n, t1)


def _link_body(link: UrdfLink) -> Body:
    """A `Body` from a URDF link: mass, COM and inertia rotated into the link frame."""
    body = Body(link.name)
    ine = link.inertial
    if ine is None:
        return body
    I = np.array(ine.inertia)  # mass >= 0 and I positive semi-definite: checked by read_urdf
    rot = rpy_matrix(ine.rpy)
    body.mass, body.com, body.inertia = ine.mass, np.array(ine.xyz), rot @ I @ rot.T
    return body


def parse_urdf(urdf, floating_base: bool = False) -> TreeModel:
    """Parse URDF (a file path or the XML text, e.g. a ROS 2 ``robot_description``) with
    `humanoid_model.urdf_description.read_urdf` and build the tree.

    ``floating_base=True`` puts a 3P+3R block (joints ``root_x`` ... ``root_roll``) between a
    fixed world and the root link.
    """
    desc = read_urdf(urdf)
    src = desc.source
    links = {name: _link_body(link) for name, link in desc.links.items()}
    seen = {j.name for j in desc.joints}
    children = {n: [] for n in links}
    for j in desc.joints:
        nrm = float(np.linalg.norm(j.axis))
        axis = np.asarray(j.axis) / nrm if nrm > 0 else np.array(j.axis)
        children[j.parent].append(
            (j.name, j.type, j.parent, j.child, np.array(j.xyz), rpy_matrix(j.rpy), axis, j.damping, j.friction)
        )
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
            joints.append(
                Joint(
                    jname,
                    kind,
                    cur,
                    cname,
                    xyz if i == 0 else np.zeros(3),
                    rot if i == 0 else np.eye(3),
                    np.asarray(axis, float),
                    urdf_type,
                )
            )
            cur = cname

    def floating_axes():
        ex, ey, ez = np.eye(3)
        return [
            ("x", "prismatic", ex),
            ("y", "prismatic", ey),
            ("z", "prismatic", ez),
            ("yaw", "revolute", ez),
            ("pitch", "revolute", ey),
            ("roll", "revolute", ex),
        ]

    def visit(root):
        """Attach `root` and its subtree, depth first, children in declaration order; a fixed
        child is merged into the body of its parent. Iterative: a deep chain needs no recursion."""
        stack = [(root, np.zeros(3), np.eye(3), iter(children[root]))]  # (body, link frame in it, next)
        while stack:
            body, xyz0, rot0, rest = stack[-1]
            nxt = next(rest, None)
            if nxt is None:
                stack.pop()
                continue
            name, jtype, _p, child, xyz, rot, axis, damping, friction = nxt
            xyz_b, rot_b = xyz0 + rot0 @ xyz, rot0 @ rot
            if jtype == "fixed":
                bodies[body].merged.append(child)
                _merge(bodies[body], links[child], xyz_b, rot_b)
                stack.append((body, xyz_b, rot_b, iter(children[child])))
                continue
            bodies[child] = Body(child, links[child].mass, links[child].com.copy(), links[child].inertia.copy())
            if jtype in ("revolute", "continuous", "prismatic"):
                joints.append(
                    Joint(
                        name,
                        "prismatic" if jtype == "prismatic" else "revolute",
                        body,
                        child,
                        xyz_b,
                        rot_b,
                        axis,
                        jtype,
                        damping,
                        friction,
                    )
                )
            elif jtype == "floating":
                add_chain(name, floating_axes(), body, child, xyz_b, rot_b, jtype)
            else:  # planar
                t1, t2 = _unit_orthogonal(axis)
                add_chain(
                    name,
                    [("t1", "prismatic", t1), ("t2", "prismatic", t2), ("rot", "revolute", axis)],
                    body,
                    child,
                    xyz_b,
                    rot_b,
                    jtype,
                )
            stack.append((child, np.zeros(3), np.eye(3), iter(children[child])))

    root_link = desc.root
    if floating_base:
        world = fresh("world")
        bodies[world] = Body(world)
        bodies[root_link] = Body(
            root_link, links[root_link].mass, links[root_link].com.copy(), links[root_link].inertia.copy()
        )
        add_chain("root", floating_axes(), world, root_link, np.zeros(3), np.eye(3), "floating")
        visit(root_link)
        root_name = world
    else:
        bodies[root_link] = Body(
            root_link, links[root_link].mass, links[root_link].com.copy(), links[root_link].inertia.copy()
        )
        visit(root_link)
        root_name = root_link
    return TreeModel(desc.name, root_name, bodies, joints, src)


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

    body.inertia = body.inertia + shift(m1, c1 - c) + rot @ link.inertia @ rot.T + shift(m2, c2 - c)
    body.mass, body.com = m, c


def identifier(name: str) -> str:
    """A valid Python/C identifier made from a URDF name."""
    s = re.sub(r"\W", "_", name)
    return s if re.match(r"[A-Za-z_]", s) else "_" + s
