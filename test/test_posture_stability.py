"""Static stability A (CoM in the support polygon, (3.63), 001_escande.md:129) against the
existence of contact forces, A10 of 001_escande.md:518: for coplanar horizontal contacts, the
verdict of `ComInPolygon` on `support_polygon` equals that of the force-existence problem
(3.68)-(3.70) with unlimited torques. On one horizontal plane zero tangential forces suffice
(any mu >= 0), so the forces exist iff f >= 0 solves sum f_i = m g, sum f_i c_i^xy = m g G^xy
over the placed hull points c_i (not their convex hull): solved here by non-negative least
squares (residual 0 <=> feasible), independently of the polygon code.
"""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy.optimize import nnls

from humanoid_planner.posture import ComInPolygon, EnvironmentFrame, support_polygon
from humanoid_planner.posture.support_polygon import placed_hull

SAMPLES = 10_000  # 001_escande.md:518
BOUNDARY = 1e-3  # [m] samples closer than this to an edge line are skipped (A10)


def _forces_exist(points, g):
    """Whether f >= 0 with sum f = 1 and sum f c = g exists (mass-normalised)."""
    A = np.vstack([np.ones(len(points)), points[:, 0], points[:, 1]])
    return nnls(A, np.array([1.0, g[0], g[1]]))[1] <= 1e-10


@pytest.mark.parametrize("seed", range(10))
def test_a10_com_polygon_verdict_equals_force_existence(robot, floor, seed):
    rng = np.random.default_rng(seed)
    loc = robot.contact_locations
    names = ["r_sole", "l_sole"] if seed % 3 else ["r_sole", "l_sole", "r_hand"]  # a hand on the floor too
    contacts = []
    for name in names:
        x, y, th = rng.uniform(-0.4, 0.4), rng.uniform(-0.4, 0.4), rng.uniform(-np.pi, np.pi)
        contacts.append((loc[name], EnvironmentFrame.on_surface(floor, x, y, th), floor))
    poly = support_polygon(contacts)
    points = np.concatenate([placed_hull(lc, env) for lc, env, _ in contacts])
    assert np.allclose(points[:, 2], 0.0)
    con = ComInPolygon(robot.model, poly)
    lo, hi = points[:, :2].min(axis=0) - 0.1, points[:, :2].max(axis=0) + 0.1
    data = SimpleNamespace(com=[np.zeros(3)], Jcom=np.zeros((3, robot.model.nv)))
    n_in = n_out = 0
    for g in rng.uniform(lo, hi, size=(SAMPLES // 10, 2)):
        data.com[0][:2] = g
        rows = con.value(None, data)
        if abs(rows.max()) < BOUNDARY:
            continue
        stable = bool(rows.max() <= 0)
        assert stable == _forces_exist(points, g), (g, rows)
        n_in += stable
        n_out += not stable
    assert n_in > 50 and n_out > 50  # both verdicts are exercised


def test_margin_shrinks_the_polygon():
    """``margin`` keeps the CoM at least that far inside every edge: on the unit square with a 2 cm
    margin, a CoM 1 cm inside an edge violates its row by 1 cm, one 3 cm inside satisfies it with
    1 cm to spare (it grew the polygon before the fix found by the contact planner's FK check)."""
    square = [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]
    con = ComInPolygon(None, square, margin=0.02)
    data = SimpleNamespace(com=[np.array([0.5, 0.01, 0.8])], Jcom=np.zeros((3, 6)))
    c, _ = con.evaluate(None, data)
    assert c.max() == pytest.approx(0.01, abs=1e-12)  # the y = 0 edge: 0.02 - 0.01
    data.com[0][1] = 0.03
    c, _ = con.evaluate(None, data)
    assert c.max() == pytest.approx(-0.01, abs=1e-12)
