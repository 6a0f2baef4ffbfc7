"""Planned stances as a simulator recording carries them (header field ``plan``, docs/recording.md):
two feet on the floor, then the left alone, then both again, at the given times [s]."""

import copy

from humanoid_model.formats.plan import parse_stance
from humanoid_model.formats.recording import plan_field

SOLE_HULL = [[0.1, 0.05, 0.0], [-0.1, 0.05, 0.0], [-0.1, -0.05, 0.0], [0.1, -0.05, 0.0]]  # [m] around the frame


def _contact(location, y):
    return {
        "location": location,
        "surface": "floor",
        "position": [0.0, y, 0.0],
        "quaternion": [0.0, 0.0, 0.0, 1.0],
        "hull": [[x, y + dy, z] for x, dy, z in SOLE_HULL],
    }


LEFT, RIGHT = _contact("l_sole", 0.1), _contact("r_sole", -0.1)
BOTH = [[0.1, 0.15], [-0.1, 0.15], [-0.1, -0.15], [0.1, -0.15]]  # [m] support polygons
LEFT_ONLY = [[0.1, 0.15], [-0.1, 0.15], [-0.1, 0.05], [0.1, 0.05]]


def stance_entries(times=(0.0, 0.15, 0.3)) -> list[dict]:
    """Three stance entries of a recording's ``plan.stances`` at ``times`` [s]."""
    kinds = [("root", None, [LEFT, RIGHT], BOTH), ("released", "r_sole", [LEFT], LEFT_ONLY)]
    kinds.append(("added", "r_sole", [LEFT, RIGHT], BOTH))
    return [
        {"t": t, "kind": kind, "changed": changed, "contacts": copy.deepcopy(contacts), "support_polygon": polygon}
        for t, (kind, changed, contacts, polygon) in zip(times, kinds)
    ]


def plan_header(times=(0.0, 0.15, 0.3), source="PLAN.json") -> dict:
    """The header's ``plan`` field of `stance_entries`, through the format's writer (`plan_field`)."""
    stances = [parse_stance(s, "test", f"stances[{i}]", ValueError) for i, s in enumerate(stance_entries(times))]
    return plan_field(source, stances)
