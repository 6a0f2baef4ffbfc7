"""Grid BFP and VBFP (humanoid_planner/contact/grid.py; Escande 2008, Algorithms 1 and 6, §5.2.1
and §6.2.1) and the thesis's count of Fig. 6.3 (§6.2.1): on a 2-D potential whose straight path is barred by a wall (a local
minimum BFP must fill, then go around), extended to 3-D and 4-D by steep distance-to-plane terms
(10 |z| per extra coordinate, chosen steeper than the basin so that the extra coordinates are
never explored): both algorithms find the same path in every dimension; BFP's leaves grow with
the dimension (every expanded node generates its 2 new neighbours along each extra axis), VBFP's
stay as they are (it generates at most two nodes per pop). Measured here: BFP 26 / 28 / 28
internal nodes with 36 / 88 / 142 leaves, VBFP 27 / 28 / 28 leaves in 2-D / 3-D / 4-D (the thesis's
example: 28 internal, 35 / 91 / 147 leaves against 23 / 28 / 28).

The difference, counted exactly: both searches pop the same 28 nodes in every dimension. BFP's
leaves follow 35 + 56 (d - 2) in the thesis, 56 = 2 x 28: each popped node gains its two
neighbours along each extra axis. Here 36 - 2 + 54 (d - 2): the search stops when it generates
the goal, so the last node popped (the goal's father) generates the goal before its off-plane
neighbours (2 x 27 per axis, not 2 x 28); and the tree counts a node as internal only when it
has a child, so 2 nodes popped in 2-D whose plane neighbours were all in the tree are 2-D leaves
(26 internal, not 28) and become internal when an extra axis gives them children. The thesis
gives neither its potential nor when it tests the goal; its 35 and 23 in 2-D are its potential's,
ours 36 and 27 this wall's (VBFP: one popped node childless in 2-D)."""

import numpy as np
import pytest

from humanoid_planner.contact.grid import bfp, vbfp

WALL = (3, 11)  # the wall x = 8, 3 <= y <= 11 (chosen: a basin of the thesis's size, 28 internal nodes)


def _problem(d):
    goal = np.array([12.0, 7.0])

    def U(p):
        x = np.array(p[:2], float)
        wall = 20.0 if p[0] == 8 and WALL[0] <= p[1] <= WALL[1] else 0.0
        return float(np.linalg.norm(x - goal) + 1e-3 * p[1] + wall + 10.0 * sum(abs(z) for z in p[2:]))

    extra = (0,) * (d - 2)
    return U, (4, 7) + extra, (12, 7) + extra, (0, 0) + (-5,) * (d - 2), (15, 14) + (5,) * (d - 2)


@pytest.mark.spec("001", "A14")
def test_bfp_leaves_grow_with_the_dimension_vbfp_leaves_do_not():
    runs = {d: (bfp(*_problem(d)), vbfp(*_problem(d))) for d in (2, 3, 4)}
    path2 = runs[2][0].path
    assert path2[0] == (4, 7) and path2[-1] == (12, 7) and len(path2) > 9  # it goes around the wall
    for d, (b, v) in runs.items():
        assert [p[:2] for p in b.path] == [p[:2] for p in v.path] == path2  # same path everywhere
        assert all(p[2:] == (0,) * (d - 2) for p in b.path)
        assert len(v.leaves) < len(b.leaves)
    leaves_b = [len(runs[d][0].leaves) for d in (2, 3, 4)]
    leaves_v = [len(runs[d][1].leaves) for d in (2, 3, 4)]
    internal = len(runs[3][0].internal)
    assert internal == len(runs[4][0].internal) >= 20  # a basin was filled, the same in 3-D and 4-D
    # BFP: each internal node gains its two neighbours along the new axis (the tree's own nodes excepted)
    assert leaves_b[2] - leaves_b[1] >= 2 * (internal - 2) and leaves_b[1] - leaves_b[0] >= 2 * (internal - 4)
    assert leaves_v[1] == leaves_v[2] and abs(leaves_v[0] - leaves_v[1]) <= 2
    # the same nodes popped, in the same order, in every dimension (the steep extra terms keep them in the plane)
    for b, v in runs.values():
        assert [p[:2] for p in b.expanded] == runs[2][0].expanded
        assert [p[:2] for p in v.expanded] == runs[2][1].expanded
    popped = len(runs[2][0].expanded)
    # BFP's leaves counted exactly (module docstring): every popped node but the goal's father gains its 2 (d - 2)
    # off-plane neighbours as leaves; the 2-D leaves that were popped become internal
    b2 = runs[2][0]
    childless = set(b2.expanded) - set(b2.internal)
    for d in (3, 4):
        b = runs[d][0]
        assert sum(1 for p in b.leaves if any(p[2:])) == 2 * (d - 2) * (popped - 1)
        assert len(b.leaves) == len(b2.leaves) - len(childless) + 2 * (d - 2) * (popped - 1)
