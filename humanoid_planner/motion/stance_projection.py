"""The projection of an interpolated configuration on a stance (Escande 2008, §7.1.2, (7.2)):

    q^{i,j} = argmin ||q - p^{i,j}||^2  s.t.  q in Q_{s_i} ∩ T_{i,j}

with Q_{s_i} the strong contacts (3.28)-(3.35) of the segment's stance, the CoM in its support
polygon (3.63) and the joint bounds (the planner's own constraints, `contact.Feasibility`, with its
margin and extra tasks), and T_{i,j} the poses of the moving bodies on their paths (a point position
and the body's orientation, written like strong contacts as the thesis does). Each projection is
warm-started from the previous one (§7.1.2). Q_{s_i} also keeps the robot ``collision_margin`` from
the obstacles and clear of itself, like every planner call (`Feasibility.project`: the lazy
collision rounds, the pairs the held and moving contacts imply left out): the thesis corrects
colliding paths by hand (§7.1.2), and without these rows the can's motion has its left hand 0.3 mm
inside the table top between two witnesses. Its posture-generator calls are labelled "interpolation"
(`posture.solver.call_log`: a `recording` block sees them so).

The criterion is `humanoid_planner.posture.ConfigurationDistance`, (1/2) ||diff(p, q)||^2 over
the tangent space.
"""

from __future__ import annotations

from humanoid_planner.posture import ConfigurationDistance, FrameOrientation, FramePosition

__all__ = ["project_on_stance"]


def project_on_stance(feas, fixed, targets, p, q0, stats=None, moving=(), collision=True):
    """The projection of ``p`` (nq,) from the warm start ``q0``: ``feas`` a
    `humanoid_planner.contact.feasibility.Feasibility` (its strong contacts, stability with margin,
    tasks and collision rows), ``fixed`` the contacts held, ``targets`` a list of (location name,
    rotation (3, 3) or None for the position alone, position [m] of the location's point),
    ``moving`` the contacts made or broken in the segment (their body may touch their surface's
    obstacle); ``stats`` (a `contact.feasibility.Stats`, default the planner's) logs the calls;
    without ``collision`` the projection has no collision rows (the thesis's). Returns the
    `PostureResult`."""
    model = feas.model
    cons = [feas.strong(c) for c in fixed] + [feas.stability(fixed)] + list(feas.tasks)
    for name, R, pos in targets:
        loc = feas.locations[name]
        cons.append(FramePosition(model, loc.body, pos, point=loc.point, name=f"path_position:{name}"))
        if R is not None:
            cons.append(FrameOrientation(model, loc.body, R, name=f"path_orientation:{name}"))
    touching = [c.pair for c in (*fixed, *moving)]
    return feas.project(cons, q0, ConfigurationDistance(model, p), touching, stats=stats, collision=collision)
