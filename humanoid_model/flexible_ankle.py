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

import numpy as np

from humanoid_model.exceptions import ModelError
from humanoid_model.urdf_xml import UrdfLink, UrdfTree, element_origin

__all__ = ["SPRINGS", "PLATE_MASS", "flexible_urdf", "flexible_contacts", "FEET"]

PLATE_MASS = 0.3  # [kg] sole plate below the bushes (chosen: a 23 × 13 × 2 cm plate with rubber cover)
# (stiffness, damping) per virtual joint (chosen): k_z gives a static sink of m g / (2 k_z) = 0.55 mm
# per foot for HRP-2's 56.5 kg on two feet, and c_z a damping ratio of about 0.2 with half the body
# mass (2 ζ √(k m) = 2 · 0.2 · √(5e5 · 28) ≈ 1.5e3 N s/m); the tilt springs hold half the weight
# 5 cm off the plate centre (14 N m) within 7 mrad.
SPRINGS = {"FLEX_Z": (5.0e5, 1.5e3), "FLEX_X": (2.0e4, 200.0), "FLEX_Y": (2.0e4, 200.0)}
AXES = {
    "FLEX_Z": ("prismatic", (0, 0, 1), 0.02),
    "FLEX_X": ("revolute", (1, 0, 0), 0.5),
    "FLEX_Y": ("revolute", (0, 1, 0), 0.5),
}
FEET = {"hrp2": ("RLEG_LINK5", "LLEG_LINK5")}  # robots with the variant: their foot links


def _plate(link: UrdfLink):
    """(the plate's collision/visual elements, its top centre in the foot frame): the lowest box."""
    boxes = []
    for el in link.geometry():
        b = el.find("geometry/box")
        if b is not None:
            size = np.array([float(x) for x in b.get("size").split()])
            xyz = element_origin(el)[0]
            boxes.append((xyz[2] - size[2] / 2, el, xyz + [0, 0, size[2] / 2], size))
    if not boxes:
        raise ModelError(f"flexible ankle: foot link '{link.name}' has no box to use as the sole plate")
    low = min(b[0] for b in boxes)
    plate = [b for b in boxes if abs(b[0] - low) < 1e-9]
    return [b[1] for b in plate], plate[0][2], plate[0][3]


def flexible_urdf(urdf_text: str, feet) -> tuple[str, dict[str, np.ndarray], dict[str, tuple[float, float]]]:
    """(URDF text with the flexible ankles, foot link -> plate origin (3,) in the foot frame [m],
    joint name -> (stiffness, damping)) for the foot links ``feet`` (module docstring). The URDF is
    edited through `humanoid_model.urdf_xml.UrdfTree`."""
    tree = UrdfTree.from_text(urdf_text)
    origins, springs = {}, {}
    for foot in feet:
        if foot not in tree.links:
            raise ModelError(f"flexible ankle: no foot link '{foot}' in the URDF")
        link = tree.links[foot]
        elements, o, size = _plate(link)
        origins[foot] = o
        box_centre = element_origin(elements[0])[0]
        if link.mass is not None:
            link.mass = link.mass - PLATE_MASS
        moments = np.array([size[1] ** 2 + size[2] ** 2, size[0] ** 2 + size[2] ** 2, size[0] ** 2 + size[1] ** 2])
        plate = tree.add_link(f"{foot}_PLATE", mass=PLATE_MASS, com=box_centre - o, inertia=PLATE_MASS / 12.0 * moments)
        for el in elements:
            link.move_geometry(el, plate, offset=o)
        fixed_below = [  # fixed frames at the plate's level (the sole frames) follow the plate
            j
            for j in tree.joints.values()
            if j.type == "fixed" and j.parent == foot and j.xyz[2] <= o[2] - 1e-9 and not j.child.endswith("_FT")
        ]
        parent = foot
        for k, name in enumerate(("FLEX_Z", "FLEX_X", "FLEX_Y")):
            child = plate.name if name == "FLEX_Y" else tree.add_link(f"{foot}_{name}_LINK").name
            kind, axis, lim = AXES[name]
            tree.add_joint(
                f"{foot}_{name}",
                kind,
                parent,
                child,
                xyz=o if k == 0 else np.zeros(3),
                axis=axis,
                limit=(-lim, lim, 1e4, 100),
            )
            springs[f"{foot}_{name}"] = SPRINGS[name]
            parent = child
        for j in fixed_below:
            j.parent = plate.name
            j.xyz = j.xyz - o
    return tree.to_text(), origins, springs


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
