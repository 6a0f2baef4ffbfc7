"""Via postures (ours): the candidates a segment whose straight continuation collides may pass
through, built from its two ends without any search.

The projections of a segment follow the straight interpolation of every coordinate at once
(Escande 2008, §7.1.2), and where they cannot keep clear the path planner samples the stance's
manifold (`manifold_path`). Between the two, a motion that moves one part of the robot first and
the other part after may clear where the straight one does not: the under-table crawl's segments
shift the body over held hands and feet, and moving the base first and the limbs after (or the
reverse) is what a person would try. A via posture takes some coordinates from one end and the
rest from the other; `generate._via_knots` projects it onto the stance (with the collision rows)
and follows the projections from the start to it and from it to the end.

The candidates, in order (`via_postures`):

1. the end posture with the start's base position (x, y): the posture changes first, then the base
   moves;
2. the start posture with the end's base position (x, y): the base moves first;
3. the start's base and the joints that support a held contact (`held_mask`) with the end's other
   joints: the free limbs move first;
4. the reverse of 3: the held chains and the base move first.

The order is the one measured on the under-table plan (docs/planning.md, "Motion", step 7): the
first clears its segment 10 (hands and soles moving), none of them its segments 2, 4, 5, 6 and
18, where each via leaves one of its two halves colliding as the straight path did.
"""

from __future__ import annotations

import numpy as np


def held_mask(feas, seg) -> np.ndarray:
    """(nq,) bool: the free flyer's coordinates (the first 7: every `humanoid_model.Robot` has one,
    ``root_joint``) and those of every joint that supports the body of one of the segment's held
    contacts (``seg.fixed``)."""
    model = feas.model
    mask = np.zeros(model.nq, bool)
    mask[:7] = True
    for c in seg.fixed:
        frame = model.frames[model.getFrameId(feas.locations[c.location].body)]
        for j in model.supports[frame.parentJoint]:
            joint = model.joints[j]
            if j > 1 and joint.nq > 0:
                mask[joint.idx_q : joint.idx_q + joint.nq] = True
    return mask


def via_postures(feas, seg, a, b) -> list[tuple[str, np.ndarray]]:
    """(name, configuration (nq,)) of each candidate between ``a`` and ``b`` (module docstring),
    not projected; the held-chain candidates only where a held contact leaves free joints."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    end_first, base_first = b.copy(), a.copy()
    end_first[:2], base_first[:2] = a[:2], b[:2]
    out = [("the posture first, then the base", end_first), ("the base first, then the posture", base_first)]
    held = held_mask(feas, seg)
    if seg.fixed and not held.all():
        out.append(("the free limbs first", np.where(held, a, b)))
        out.append(("the held chains first", np.where(held, b, a)))
    return out
