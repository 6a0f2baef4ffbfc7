"""What makes a planning problem impossible before any search, said in one line each.

`check_problem(problem)` raises `PlanningError` (the CLI's exit 2, the planner node's refused
goal) when

- **the start posture is in collision**: a geometry of the robot's collision model inside an
  obstacle of the scene, or two of its geometries overlapping, by more than
  `contact.check.POSITION_TOL` (coal on the URDF shapes, as `contact.check.check_plan`; the pairs of
  the start stance's contacts with their surfaces' bodies left out). The search would start from
  the posture generator's projection of it, and the motion's lead-in would cross the obstacle;
- **a goal region lies inside an obstacle**: a region bounded on the three axes whose eight
  corners are all inside one obstacle (convex, so the whole box is) cannot hold the point;
- **a goal contact has nowhere to go**: a location the goal stance must hold (``goal_contacts``:
  the walk's soles, the stairs' soles) whose goal region meets no surface that location may touch
  (its ``forbidden`` pairs left out), or meets them only where obstacles cover them (a grid of
  `COVER_GRID` × `COVER_GRID` points of each surface's part inside the region, `COVER_HEIGHT`
  above it, all inside obstacles). The walk's goal 10 m away on a 6 m floor, or under a box.

What is not checked here (the search says it as its ``reason``): a goal out of the robot's reach
from every surface, a goal whose stances exist but are not connected to the start.
"""

from __future__ import annotations

import numpy as np

from humanoid_model.coal_import import coal
from humanoid_planner.contact.boxes import clip_polygon
from humanoid_planner.contact.check import start_collisions
from humanoid_planner.contact.children import forbidden_pair
from humanoid_planner.exceptions import PlanningError

__all__ = ["COVER_GRID", "COVER_HEIGHT", "check_problem", "clip_to_box"]

COVER_GRID = 5  # points per side of the grid that tests whether obstacles cover a goal area (chosen)
COVER_HEIGHT = 0.01  # [m] above the surface, the grid's height (chosen: above the floor, below any step)
_POINT = coal.Sphere(1e-9)  # a point for coal's distance queries


def check_problem(problem) -> None:
    """Raise `PlanningError` with one line when ``problem`` (a `planning.PlanningProblem`) is
    impossible for a reason of the module docstring."""
    _start_in_collision(problem)
    planner = problem.planner
    for task in planner.goal_tasks:
        _region_inside_obstacle(problem.scene, planner, task)
    for name, task in _goal_contact_regions(planner):
        _goal_contact_has_room(problem.scene, planner, name, task)


def _start_in_collision(problem):
    found = start_collisions(problem.planner, problem.start_q, problem.start.contacts)
    if found:
        more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
        first = found[0].removeprefix("start posture: ")
        raise PlanningError(f"scene '{problem.scene}': the start posture is in collision: {first}{more}")


def _inside(obstacle, p) -> bool:
    req, res = coal.DistanceRequest(), coal.DistanceResult()
    T = coal.Transform3s(np.eye(3), np.asarray(p, float))
    return coal.distance(_POINT, T, obstacle.shape, obstacle.transform, req, res) < 0.0


def _region_inside_obstacle(scene, planner, task):
    b = getattr(task, "bounds", {})
    if set(b) != {"x", "y", "z"} or not all(np.isfinite(v).all() for v in map(np.asarray, b.values())):
        return
    corners = [(x, y, z) for x in b["x"] for y in b["y"] for z in b["z"]]
    for o in planner.feas.obstacles:
        if all(_inside(o, c) for c in corners):
            raise PlanningError(
                f"scene '{scene}': goal region {task.name} (x {_span(b['x'])}, y {_span(b['y'])}, z {_span(b['z'])} m) "
                f"lies inside obstacle '{o.name}'"
            )


def _goal_contact_regions(planner):
    """(location, region task) for each goal task that bounds the point of a location the goal
    stance must hold."""
    out = []
    for name in planner.goal_contacts:
        loc = planner.robot.contact_locations[name]
        fid = planner.robot.model.getFrameId(loc.body)
        for t in planner.goal_tasks:
            if getattr(t, "fid", None) == fid and np.allclose(getattr(t, "point", np.full(3, np.nan)), loc.point):
                out.append((name, t))
    return out


def _goal_contact_has_room(scene, planner, name, task):
    b = task.bounds
    box = (b.get("x", (-np.inf, np.inf)), b.get("y", (-np.inf, np.inf)))
    zlo, zhi = b.get("z", (-np.inf, np.inf))
    loc = planner.robot.contact_locations[name]
    met, covered = [], []
    for s in planner.surfaces.values():
        if forbidden_pair(planner.s.forbidden, name, loc, s.name):
            continue
        if abs(float(s.normal[2])) < 0.5:  # a wall: the region's (x, y) box says nothing of it
            continue
        part = clip_to_box(np.asarray(s.vertices, float)[:, :2], box)
        if len(part) < 3:
            continue
        z = _height(s, part.mean(axis=0))
        if not zlo <= z <= zhi:
            continue
        met.append(s.name)
        lo, hi = part.min(axis=0), part.max(axis=0)
        on_plane = [
            (x, y, _height(s, (x, y)))
            for x in np.linspace(lo[0], hi[0], COVER_GRID)
            for y in np.linspace(lo[1], hi[1], COVER_GRID)
        ]
        grid = [p for p in on_plane if s.contains(p, tol=1e-6)] or [(*part.mean(axis=0), z)]
        blocking = [o for o in planner.feas.obstacles if o.name != s.body]
        by = set()
        for x, y, h in grid:
            hit = next((o.name for o in blocking if _inside(o, (x, y, h + COVER_HEIGHT))), None)
            if hit is None:
                break
            by.add(hit)
        else:
            covered.append(f"{s.name} under {', '.join(sorted(by))}")
    where = f"x {_span(box[0])}, y {_span(box[1])} m"
    if not met:
        raise PlanningError(
            f"scene '{scene}': the goal asks {name} in (x, y) = ({where}) and no surface {name} may touch is "
            f"there (surfaces: {', '.join(sorted(planner.surfaces))}): the goal is unreachable"
        )
    if len(covered) == len(met):
        raise PlanningError(
            f"scene '{scene}': the goal asks {name} in (x, y) = ({where}) and obstacles cover every surface "
            f"there ({'; '.join(covered)}): the goal is inside an obstacle"
        )


def clip_to_box(poly, box) -> np.ndarray:
    """The convex polygon ``poly`` (k, 2) clipped to the axis-aligned box ``box`` = ((x0, x1),
    (y0, y1)) (infinite sides allowed): its vertices (m, 2), fewer than 3 when they do not overlap."""
    out = np.asarray(poly, float)
    for axis in (0, 1):
        for bound, sign in ((box[axis][0], -1.0), (box[axis][1], 1.0)):
            if np.isfinite(bound) and len(out):
                out = clip_polygon(out, sign * np.eye(2)[axis], sign * bound)
    return out


def _height(surface, xy) -> float:
    """z of the surface's plane at (x, y)."""
    n, v = np.asarray(surface.normal, float), np.asarray(surface.vertices, float)[0]
    return float(v[2] - (n[0] * (xy[0] - v[0]) + n[1] * (xy[1] - v[1])) / n[2])


def _span(b) -> str:
    return f"{b[0]:g}..{b[1]:g}"
