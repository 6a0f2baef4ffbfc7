"""The constraints of a stance: one strong contact (3.28)-(3.35) per contact and, on horizontal
surfaces, the CoM in their support polygon (3.63) (Escande 2008, §3.4.1 and §3.4.4). The
contact planner's problem Q_s (§5.3.1.2) is these plus joint bounds and any task; collision
(`self_collision`, `environment_collision`, or their STP-BV versions) and the force-based
stability (`force_stability`) are added by the caller where wanted (docs/posture_generator.md)."""

from __future__ import annotations

import math
from math import comb

import numpy as np

from .constraints.com_in_polygon import ComInPolygon
from .constraints.strong_contact import StrongContact
from .frames import EnvironmentFrame, RobotContactFrame
from .kinematics import update
from .support_polygon import support_polygon

__all__ = ["contacts_at", "stance_constraints", "stance_space_count"]


def stance_space_count(n_locations: int, n_surfaces: int, k_max: int) -> int:
    """The number of stance spaces Q_s the posture generator may be asked about: stances of 1 to
    ``k_max`` contacts on distinct contact locations, each on one of the surfaces,
    sum_{i=1..k} C(n, i) p^i (Escande 2008, §2.3.4.2, eq. (2.10), which prints C_n^k p^k: a typo, the
    thesis's own count, 46,665 for n = 12, p = 3, k = 4, is the sum written here)."""
    return sum(comb(n_locations, i) * n_surfaces**i for i in range(1, k_max + 1))


def stance_constraints(model, locations: dict, contacts, stability: bool = True, margin: float = 0.0) -> list:
    """``contacts``: ``(location_name, env_frame, surface_or_None)`` triples; ``locations``: the
    robot's `contact_locations`. Returns a `StrongContact` per contact (named after its location)
    and, when ``stability``, `ComInPolygon` of their support polygon with ``margin`` [m]."""
    out = [
        StrongContact(model, RobotContactFrame.from_location(locations[name]), env, name=name)
        for name, env, _ in contacts
    ]
    if stability:
        poly = support_polygon([(locations[name], env, surf) for name, env, surf in contacts])
        out.append(ComInPolygon(model, poly, margin=margin))
    return out


def contacts_at(model, locations: dict, q, names, surface) -> list:
    """The contacts of ``names`` on ``surface`` where the robot at ``q`` has them (x, y of each
    contact point, theta of its tangent): ``(name, env_frame, surface)`` triples."""
    data = model.createData()
    update(model, data, np.asarray(q, float))
    out = []
    for name in names:
        loc = locations[name]
        M = data.oMf[model.getFrameId(loc.body)]
        p, t = M.act(loc.point), M.rotation @ loc.tangent
        e1, e2, _ = surface.rotation.T
        rel = p - surface.centroid
        theta = math.atan2(t @ e2, t @ e1)  # libm: same bits everywhere
        out.append((name, EnvironmentFrame.on_surface(surface, rel @ e1, rel @ e2, theta), surface))
    return out
