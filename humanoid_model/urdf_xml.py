"""An editable URDF: `UrdfTree` (links, joints, inertials, origins; add, move and remove; write back).

`humanoid_model.urdf_description` reads a URDF into frozen records for the code that only looks;
this module is for the code that changes one before Pinocchio builds it, so that every rewrite
goes through one set of accessors instead of its own XML handling::

    tree = UrdfTree.from_text(urdf_text)          # or UrdfTree.from_file(path)
    foot = tree.links["RLEG_LINK5"]
    foot.mass = foot.mass - 0.3                   # <inertial><mass value>
    plate = tree.add_link("RLEG_LINK5_PLATE", mass=0.3, com=(0, 0, -0.01), inertia=(1e-3, 1e-3, 2e-3))
    tree.add_joint("FLEX_Z", "prismatic", "RLEG_LINK5", plate.name, xyz=(0, 0, -0.1), axis=(0, 0, 1),
                   limit=(-0.02, 0.02, 1e4, 100))
    tree.joints["RLEG_JOINT0"].type = "fixed"
    text = tree.to_text()

A `UrdfLink` or `UrdfJointElement` is a view of its XML element: setting a property writes the
element, so `to_text` gives back everything the tree did not touch (visuals, collisions,
transmissions, gazebo tags) as it was. The tree checks only what its edits need (a well-formed
``<robot>``, names that exist or are new, the structure each accessor reads); the full checks are
`humanoid_model.urdf_description.read_urdf`'s, which every edited URDF goes through before Pinocchio
sees it. Errors raise `ModelError` naming the source.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np

from humanoid_model import files
from humanoid_model.exceptions import ModelError

__all__ = ["UrdfTree", "UrdfLink", "UrdfJointElement", "element_origin", "set_element_origin", "vector_text"]


def vector_text(values) -> str:
    """Numbers as URDF writes them: space separated, each the shortest text that reads back as
    the same float (an exact round trip)."""
    return " ".join(_number(x) for x in np.ravel(values))


def _number(x) -> str:
    return repr(float(x))


def _vector(text, default, where: str) -> np.ndarray:
    if text is None or not str(text).strip():
        return np.array(default, float)
    try:
        return np.array([float(x) for x in str(text).split()], float)
    except ValueError:
        raise ModelError(f"{where}: '{text}' is not a list of numbers") from None


def element_origin(element: ET.Element) -> tuple[np.ndarray, np.ndarray]:
    """(xyz [m], rpy [rad]) of an element's ``<origin>`` (zeros when absent or not written)."""
    o = element.find("origin")
    if o is None:
        return np.zeros(3), np.zeros(3)
    where = f"<{element.tag} name='{element.get('name', '')}'> <origin>"
    return _vector(o.get("xyz"), (0, 0, 0), where), _vector(o.get("rpy"), (0, 0, 0), where)


def set_element_origin(element: ET.Element, xyz=None, rpy=None) -> None:
    """Write an element's ``<origin>`` (created when absent); None keeps that part as it was."""
    o = element.find("origin")
    if o is None:
        o = ET.Element("origin")
        element.insert(0, o)
    if xyz is not None:
        o.set("xyz", vector_text(xyz))
    if rpy is not None:
        o.set("rpy", vector_text(rpy))


class UrdfLink:
    """A view of a ``<link>``: its name, its ``<inertial>`` (mass, COM, inertia) and its
    ``<collision>`` and ``<visual>`` elements."""

    def __init__(self, element: ET.Element):
        self.element = element

    @property
    def name(self) -> str:
        return self.element.get("name")

    @property
    def inertial(self) -> ET.Element | None:
        return self.element.find("inertial")

    @property
    def mass(self) -> float | None:
        """``<inertial><mass value>`` [kg]; None without an ``<inertial>``."""
        ine = self.inertial
        if ine is None or ine.find("mass") is None:
            return None
        return float(ine.find("mass").get("value"))

    @mass.setter
    def mass(self, value: float) -> None:
        ine = self.inertial
        if ine is None or ine.find("mass") is None:
            raise ModelError(f"<link name='{self.name}'>: no <inertial><mass> to change")
        ine.find("mass").set("value", _number(value))

    def set_inertial(self, mass: float, com, inertia) -> None:
        """Replace the ``<inertial>``: ``mass`` [kg], ``com`` (3,) [m] in the link frame, ``inertia``
        about the COM [kg·m²]: (ixx, iyy, izz) principal moments or a (3, 3) tensor."""
        old = self.inertial
        if old is not None:
            self.element.remove(old)
        ine = ET.Element("inertial")
        self.element.insert(0, ine)
        ET.SubElement(ine, "origin", xyz=vector_text(com), rpy="0 0 0")
        ET.SubElement(ine, "mass", value=_number(mass))
        i = np.asarray(inertia, float)
        i = np.diag(i) if i.shape == (3,) else i
        ET.SubElement(
            ine,
            "inertia",
            **{k: _number(i[a, b]) for k, (a, b) in zip(_INERTIA, ((0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)))},
        )

    def geometry(self) -> list[ET.Element]:
        """The ``<collision>`` then the ``<visual>`` elements, in file order each."""
        return self.element.findall("collision") + self.element.findall("visual")

    def move_geometry(self, element: ET.Element, to: UrdfLink, offset=(0.0, 0.0, 0.0)) -> None:
        """Move a ``<collision>`` or ``<visual>`` element of this link to link ``to``, its origin
        shifted by ``-offset`` (the position [m] of ``to``'s frame in this link's frame; frames parallel)."""
        self.element.remove(element)
        xyz, _ = element_origin(element)
        set_element_origin(element, xyz=xyz - np.asarray(offset, float))
        to.element.append(element)


_INERTIA = ("ixx", "ixy", "ixz", "iyy", "iyz", "izz")


class UrdfJointElement:
    """A view of a ``<joint>``: name, type, parent and child links, origin, axis, limits, mimic."""

    def __init__(self, element: ET.Element):
        self.element = element

    @property
    def name(self) -> str:
        return self.element.get("name")

    @property
    def type(self) -> str:
        return self.element.get("type")

    @type.setter
    def type(self, value: str) -> None:
        self.element.set("type", value)

    def _end(self, tag: str) -> ET.Element:
        e = self.element.find(tag)
        if e is None or not e.get("link"):
            raise ModelError(f"<joint name='{self.name}'>: missing <{tag} link='...'>")
        return e

    @property
    def parent(self) -> str:
        return self._end("parent").get("link")

    @parent.setter
    def parent(self, link: str) -> None:
        self._end("parent").set("link", link)

    @property
    def child(self) -> str:
        return self._end("child").get("link")

    @property
    def xyz(self) -> np.ndarray:
        """Origin position in the parent frame [m]."""
        return element_origin(self.element)[0]

    @xyz.setter
    def xyz(self, value) -> None:
        set_element_origin(self.element, xyz=value)

    @property
    def rpy(self) -> np.ndarray:
        """Origin roll, pitch, yaw [rad]."""
        return element_origin(self.element)[1]

    @rpy.setter
    def rpy(self, value) -> None:
        set_element_origin(self.element, rpy=value)

    @property
    def axis(self) -> np.ndarray:
        """``<axis xyz>`` as written ((1, 0, 0) when absent)."""
        a = self.element.find("axis")
        return _vector(a.get("xyz") if a is not None else None, (1, 0, 0), f"<joint name='{self.name}'> <axis>")

    @property
    def mimic(self) -> tuple[str, float, float] | None:
        """(mimicked joint, multiplier, offset) of ``<mimic>``, or None."""
        m = self.element.find("mimic")
        if m is None:
            return None
        return m.get("joint"), float(m.get("multiplier", 1.0)), float(m.get("offset", 0.0))


class UrdfTree:
    """An editable URDF (module docstring): ``links`` and ``joints`` by name, in file order."""

    def __init__(self, root: ET.Element, source: str = "<urdf string>"):
        if root.tag != "robot":
            raise ModelError(f"{source}: the top element is <{root.tag}>, expected <robot>")
        self.root, self.source = root, source
        self.links = {e.get("name"): UrdfLink(e) for e in root.findall("link")}
        self.joints = {e.get("name"): UrdfJointElement(e) for e in root.findall("joint")}

    @classmethod
    def from_text(cls, text: str, source: str = "<urdf string>") -> UrdfTree:
        try:
            return cls(ET.fromstring(text), source)
        except ET.ParseError as exc:
            raise ModelError(f"{source}: not well-formed XML ({exc})") from None

    @classmethod
    def from_file(cls, path) -> UrdfTree:
        return cls.from_text(files.read_text(Path(path), "URDF file", ModelError), str(path))

    @property
    def name(self) -> str:
        return self.root.get("name") or "robot"

    def link(self, name: str) -> UrdfLink:
        """The link ``name`` (`ModelError` when there is none)."""
        if name not in self.links:
            raise ModelError(f"{self.source}: no link '{name}'")
        return self.links[name]

    def joint(self, name: str) -> UrdfJointElement:
        """The joint ``name`` (`ModelError` when there is none)."""
        if name not in self.joints:
            raise ModelError(f"{self.source}: no joint '{name}'")
        return self.joints[name]

    @property
    def root_links(self) -> list[str]:
        """The links that are no joint's child (one in a valid URDF), in file order."""
        children = {j.child for j in self.joints.values()}
        return [n for n in self.links if n not in children]

    def add_link(self, name: str, mass: float | None = None, com=(0.0, 0.0, 0.0), inertia=(0.0, 0.0, 0.0)) -> UrdfLink:
        """A new link, massless unless ``mass`` [kg] is given (then ``com`` [m] and ``inertia``
        about the COM [kg·m²], as `UrdfLink.set_inertial`)."""
        if name in self.links:
            raise ModelError(f"{self.source}: link '{name}' exists already")
        link = UrdfLink(ET.SubElement(self.root, "link", name=name))
        if mass is not None:
            link.set_inertial(mass, com, inertia)
        self.links[name] = link
        return link

    def add_joint(
        self,
        name: str,
        type: str,
        parent: str,
        child: str,
        xyz=(0.0, 0.0, 0.0),
        rpy=(0.0, 0.0, 0.0),
        axis=None,
        limit=None,
    ) -> UrdfJointElement:
        """A new joint between two existing links; ``axis`` (3,) and ``limit`` (lower, upper,
        effort, velocity) written when given."""
        if name in self.joints:
            raise ModelError(f"{self.source}: joint '{name}' exists already")
        for link in (parent, child):
            self.link(link)
        e = ET.SubElement(self.root, "joint", name=name, type=type)
        ET.SubElement(e, "parent", link=parent)
        ET.SubElement(e, "child", link=child)
        ET.SubElement(e, "origin", xyz=vector_text(xyz), rpy=vector_text(rpy))
        if axis is not None:
            ET.SubElement(e, "axis", xyz=vector_text(axis))
        if limit is not None:
            ET.SubElement(e, "limit", **dict(zip(("lower", "upper", "effort", "velocity"), map(_number, limit))))
        self.joints[name] = UrdfJointElement(e)
        return self.joints[name]

    def remove_joint(self, name: str) -> None:
        """Remove a joint (its child link stays, a second root until it gets a new joint)."""
        self.root.remove(self.joint(name).element)
        del self.joints[name]

    def to_text(self) -> str:
        """The URDF XML text."""
        return ET.tostring(self.root, encoding="unicode")
