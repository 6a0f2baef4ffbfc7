"""The flexible-ankle model variant (Chardonnet 2009, §4.2, eq. (4.3)): HRP-2's shock absorber (3 rubber
bushes with dampers between the ankle and the sole plate) as a virtual passive 3-DOF joint, a
prismatic joint along z then revolute joints about x and y, each a spring-damper

    f_z = −k_zp q_z − k_zv q̇_z,   τ_x = −k_xp q_x − k_xv q̇_x,   τ_y = −k_yp q_y − k_yv q̇_y   (4.3)

    robot = load_robot("hrp2", ankle="flexible")
    robot.springs  # joint name -> (stiffness, damping): the World holds these joints with that PD at 0

`flexible_urdf` rewrites the URDF: each foot link keeps its ankle block, and its sole plate (its
lowest box, collision and visual) moves to a new link ``FOOT_PLATE`` hung from the foot by three
joints ``FOOT_FLEX_Z`` (prismatic), ``FOOT_FLEX_X``, ``FOOT_FLEX_Y`` (revolute) at the plate's top
centre, through two massless links. Fixed frames at the plate's level (the sole frames) follow the
plate; the F/T sensor stays on the ankle. The plate takes ``PLATE_MASS`` from the foot's mass
(total mass unchanged; the foot keeps its CoM and inertia tensor: a simplification, chosen).

Constants: Chardonnet 2009, §4.2 gives none (its values are Nakaoka et al. 2007's identification,
which no public source gives): chosen, see `SPRINGS`.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from humanoid_model.exceptions import ModelError

__all__ = ["SPRINGS", "PLATE_MASS", "flexible_urdf", "flexible_contacts", "FEET"]

PLATE_MASS = 0.3  # [kg] sole plate below the bushes (chosen: a 23 × 13 × 2 cm plate with rubber cover)
# (stiffness, damping) per virtual joint (chosen): k_z gives a static sink of m g / (2 k_z) = 0.55 mm
# per foot for HRP-2's 56.5 kg on two feet, and c_z a damping ratio of about 0.2 with half the body
# mass (2 ζ √(k m) = 2 · 0.2 · √(5e5 · 28) ≈ 1.5e3 N s/m); the tilt springs hold half the weight
# 5 cm off the plate centre (14 N m) within 7 mrad.
SPRINGS = {"FLEX_Z": (5.0e5, 1.5e3), "FLEX_X": (2.0e4, 200.0), "FLEX_Y": (2.0e4, 200.0)}
AXES = {
    "FLEX_Z": ("prismatic", "0 0 1", 0.02),
    "FLEX_X": ("revolute", "1 0 0", 0.5),
    "FLEX_Y": ("revolute", "0 1 0", 0.5),
}
FEET = {"hrp2": ("RLEG_LINK5", "LLEG_LINK5")}  # robots with the variant: their foot links


def _xyz(el) -> np.ndarray:
    o = el.find("origin")
    return np.array([float(x) for x in o.get("xyz", "0 0 0").split()]) if o is not None else np.zeros(3)


def _fmt(v) -> str:
    return " ".join(f"{x:.9g}" for x in v)


def _plate(link):
    """(the plate's collision/visual elements, its top centre in the foot frame): the lowest box."""
    boxes = []
    for el in list(link.findall("collision")) + list(link.findall("visual")):
        b = el.find("geometry/box")
        if b is not None:
            size = np.array([float(x) for x in b.get("size").split()])
            boxes.append((_xyz(el)[2] - size[2] / 2, el, _xyz(el) + [0, 0, size[2] / 2]))
    if not boxes:
        raise ModelError(f"flexible ankle: foot link '{link.get('name')}' has no box to use as the sole plate")
    low = min(b[0] for b in boxes)
    plate = [b for b in boxes if abs(b[0] - low) < 1e-9]
    return [b[1] for b in plate], plate[0][2]


def flexible_urdf(urdf_text: str, feet) -> tuple[str, dict[str, np.ndarray], dict[str, tuple[float, float]]]:
    """(URDF text with the flexible ankles, foot link -> plate origin (3,) in the foot frame [m],
    joint name -> (stiffness, damping)) for the foot links ``feet`` (module docstring)."""
    root = ET.fromstring(urdf_text)
    links = {link.get("name"): link for link in root.findall("link")}
    origins, springs = {}, {}
    for foot in feet:
        link = links.get(foot)
        if link is None:
            raise ModelError(f"flexible ankle: no foot link '{foot}' in the URDF")
        elements, o = _plate(link)
        origins[foot] = o
        plate = ET.SubElement(root, "link", name=f"{foot}_PLATE")
        inertial = link.find("inertial")
        if inertial is not None:
            mass = inertial.find("mass")
            mass.set("value", f"{float(mass.get('value')) - PLATE_MASS:.9g}")
        size = np.array([float(x) for x in elements[0].find("geometry/box").get("size").split()])
        I = (
            PLATE_MASS
            / 12.0
            * np.array([size[1] ** 2 + size[2] ** 2, size[0] ** 2 + size[2] ** 2, size[0] ** 2 + size[1] ** 2])
        )
        pi = ET.SubElement(plate, "inertial")
        c = _xyz(elements[0]) - o
        ET.SubElement(pi, "origin", xyz=_fmt(c), rpy="0 0 0")
        ET.SubElement(pi, "mass", value=f"{PLATE_MASS:.9g}")
        ET.SubElement(pi, "inertia", ixx=f"{I[0]:.9g}", ixy="0", ixz="0", iyy=f"{I[1]:.9g}", iyz="0", izz=f"{I[2]:.9g}")
        for el in elements:
            link.remove(el)
            el.find("origin").set("xyz", _fmt(_xyz(el) - o))
            plate.append(el)
        parent = foot
        for k, name in enumerate(("FLEX_Z", "FLEX_X", "FLEX_Y")):
            child = f"{foot}_PLATE" if name == "FLEX_Y" else f"{foot}_{name}_LINK"
            if name != "FLEX_Y":
                ET.SubElement(root, "link", name=child)
            kind, axis, lim = AXES[name]
            j = ET.SubElement(root, "joint", name=f"{foot}_{name}", type=kind)
            ET.SubElement(j, "parent", link=parent)
            ET.SubElement(j, "child", link=child)
            ET.SubElement(j, "origin", xyz=_fmt(o if k == 0 else np.zeros(3)), rpy="0 0 0")
            ET.SubElement(j, "axis", xyz=axis)
            ET.SubElement(j, "limit", lower=f"{-lim}", upper=f"{lim}", effort="1e4", velocity="100")
            springs[f"{foot}_{name}"] = SPRINGS[name]
            parent = child
        for j in root.findall("joint"):  # fixed frames at the plate's level follow the plate
            if j.get("type") == "fixed" and j.find("parent").get("link") == foot:
                xyz = _xyz(j)
                if xyz[2] <= o[2] - 1e-9 and not j.find("child").get("link").endswith("_FT"):
                    j.find("parent").set("link", f"{foot}_PLATE")
                    j.find("origin").set("xyz", _fmt(xyz - o))
    return ET.tostring(root, encoding="unicode"), origins, springs


def flexible_contacts(contacts: dict, origins: dict) -> dict:
    """The sidecar's ``contacts`` mapping with the locations on a foot moved to its plate (body
    ``FOOT_PLATE``, point and hull shifted by the plate origin)."""
    out = {}
    for name, c in contacts.items():
        if isinstance(c, dict) and c.get("body") in origins:
            o = origins[c["body"]]
            c = dict(c, body=f"{c['body']}_PLATE")
            c["point"] = (np.asarray(c["point"], float) - o).tolist()
            c["hull"] = (np.asarray(c["hull"], float) - o).tolist()
        out[name] = c
    return out
