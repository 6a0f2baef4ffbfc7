"""A robot's SRDF (MoveIt's semantic description, as ROS description packages ship it): its named
postures (``<group_state>``) and its collision exclusions (``<disable_collisions>``).

`find_srdf` looks, in this order, for ``NAME.srdf`` in the URDF's folder and in a sibling
``srdf/`` folder (``robots/NAME.urdf`` with ``srdf/NAME.srdf``, the layout of example-robot-data
and most ``*_description`` packages), then for the one ``*.srdf`` of those folders whose
``<robot name>`` is the URDF's (``talos_reduced.urdf``, robot ``talos``, with ``talos.srdf``);
NAME is the robot file's name without ``.urdf`` / ``.xacro``. `read_srdf` reads it against the
URDF's description:

* each ``<group_state name>`` becomes a posture in the project's sidecar form (``{"base": [x, y,
  z, qx, qy, qz, qw] or None, "joints": {name: value}}``), named with its underscores turned into
  hyphens, the spelling of the project's postures: Talos's ``half_sitting`` is ``half-sitting``,
  the posture the shipped scenes ask for (`posture_name`). A joint named ``root_joint`` (the free
  flyer's name in Pinocchio, and in MoveIt's Talos SRDF) gives the base pose (7 numbers, x y z
  then the quaternion x y z w); without it the base is None (the robot loader puts the lowest
  collision point on the ground, as for ``zero``). Joints the group state leaves out keep 0.
  Joints the URDF declares fixed, and mimic joints (which follow their mimicked joint), are left
  out; a joint the URDF lacks is an error.
* each ``<disable_collisions link1 link2>`` becomes an ``exclude`` pair of
  `humanoid_model.collision_rules.CollisionRules` (whatever its ``reason``: Adjacent, Never,
  Default); pairs naming a link the URDF lacks (an SRDF written for a fuller variant of the
  robot) are left out.

The sidecar ``NAME.yaml`` wins where both speak: a sidecar posture replaces the SRDF's of the same
name, and the sidecar's collision rules are added to the SRDF's (`humanoid_model.robot`).
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from humanoid_model import files
from humanoid_model.collision_rules import CollisionRules
from humanoid_model.exceptions import ModelError
from humanoid_model.xacro_file import robot_stem

__all__ = ["ROOT_JOINT_NAMES", "Srdf", "find_srdf", "posture_name", "read_srdf"]

ROOT_JOINT_NAMES = ("root_joint",)  # group-state joints that set the base pose (7 numbers)


@dataclass(frozen=True)
class Srdf:
    """What the robot loader takes from an SRDF: ``postures`` (project name -> sidecar-form spec)
    and ``collision`` (its exclusions), read from ``path``."""

    path: Path
    postures: dict = field(default_factory=dict)
    collision: CollisionRules = field(default_factory=CollisionRules)


def posture_name(group_state: str) -> str:
    """The project's name of an SRDF group state: underscores become hyphens (``half_sitting`` ->
    ``half-sitting``)."""
    return group_state.replace("_", "-")


def _robot_name(path: Path) -> str | None:
    try:
        return ET.fromstring(files.read_text(path, "SRDF file", ModelError)).get("name")
    except ET.ParseError:
        return None


def find_srdf(urdf_path, robot_name: str | None = None) -> Path | None:
    """The SRDF of the robot file ``urdf_path`` (module docstring), or None."""
    if urdf_path is None:
        return None
    folder = Path(urdf_path).parent
    folders = [folder, folder.parent / "srdf"]
    stem = robot_stem(urdf_path)
    for f in folders:
        if (f / f"{stem}.srdf").is_file():
            return f / f"{stem}.srdf"
    if robot_name:
        for f in folders:
            for p in sorted(f.glob("*.srdf")) if f.is_dir() else ():
                if p.is_file() and _robot_name(p) == robot_name:
                    return p
    return None


def read_srdf(path: Path, description) -> Srdf:
    """The postures and exclusions of the SRDF ``path`` for the URDF ``description`` (a
    `humanoid_model.urdf_description.UrdfDescription`); `ModelError` naming the file and element."""
    src = str(path)
    try:
        root = ET.fromstring(files.read_text(path, "SRDF file", ModelError))
    except ET.ParseError as exc:
        raise ModelError(f"{src}: not well-formed XML ({exc})") from None
    if root.tag != "robot":
        raise ModelError(f"{src}: the top element is <{root.tag}>, expected <robot>")
    joints = {j.name: j for j in description.joints}
    mimic = description.mimic_joints
    postures = {}
    for gs in root.findall("group_state"):
        name = gs.get("name")
        if not name:
            raise ModelError(f"{src}: a <group_state> has no 'name' attribute")
        where = f"{src}: <group_state name='{name}'>"
        base, values = None, {}
        for je in gs.findall("joint"):
            jname, text = je.get("name"), je.get("value", "")
            try:
                numbers = [float(x) for x in text.split()]
            except ValueError:
                raise ModelError(f"{where} <joint name='{jname}'>: value '{text}' is not a list of numbers") from None
            if jname in ROOT_JOINT_NAMES and jname not in joints:
                if len(numbers) != 7:
                    raise ModelError(f"{where} <joint name='{jname}'>: the base pose needs 7 numbers, got '{text}'")
                base = numbers
                continue
            if jname not in joints:
                raise ModelError(f"{where}: <joint name='{jname}'> is not a joint of {description.source}")
            if not joints[jname].movable or jname in mimic:
                continue
            if len(numbers) != 1:
                raise ModelError(f"{where} <joint name='{jname}'>: expected one number, got '{text}'")
            values[jname] = numbers[0]
        postures[posture_name(name)] = {"base": base, "joints": values}
    links = set(description.links)
    exclude = set()
    for dc in root.findall("disable_collisions"):
        a, b = dc.get("link1"), dc.get("link2")
        if not a or not b:
            raise ModelError(f"{src}: a <disable_collisions> needs link1 and link2")
        if a in links and b in links and a != b:
            exclude.add(frozenset((a, b)))
    return Srdf(path, postures, CollisionRules(exclude=frozenset(exclude)))
