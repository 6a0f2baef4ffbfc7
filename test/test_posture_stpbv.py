"""The closed-form STP-BV pieces (humanoid_planner/posture/stpbv.py): A2, A4 and A8 of
001_escande.md §10.2 (:510, :512, :516)."""

import numpy as np
import pytest

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture.stpbv import face_sphere_centre, max_margin, point_circle_max_distance


def test_a2_max_margin_of_the_thesis_example():
    # a = 10 cm, r = 1 cm, R = 20 m -> 1.00208 cm (001_escande.md:175, :510), tolerance 1e-7 m of A2
    assert max_margin(0.10, 0.01, 20.0) == pytest.approx(0.0100208, abs=1e-7)
    # no edge: the small spheres' r (round-off of R - (R - r) at R = 20 m: ~1e-15)
    assert max_margin(0.0, 0.01, 20.0) == pytest.approx(0.01, abs=1e-12)
    with pytest.raises(PlanningError, match="R > r"):
        max_margin(0.1, 0.01, 0.005)


def test_a4_face_sphere_centre_is_at_r_minus_r_from_the_vertices_below_the_face():
    rng = np.random.default_rng(4)
    R, r = 10.0, 0.01
    for _ in range(200):
        P = rng.uniform(-0.3, 0.3, (3, 3))
        C = face_sphere_centre(*P, R, r)
        np.testing.assert_allclose(np.linalg.norm(P - C, axis=1), R - r, atol=1e-9)
        w = np.cross(P[1] - P[0], P[2] - P[0])
        assert (C - P[0]) @ w < 0.0  # inner side (A4: c . w < 0)
    with pytest.raises(PlanningError, match="circumradius"):
        face_sphere_centre([0, 0, 0], [1, 0, 0], [0, 1, 0], 0.5, 0.01)


def test_a8_point_circle_max_distance_equals_brute_force():
    rng = np.random.default_rng(8)
    t = np.linspace(0.0, 2 * np.pi, 100_000, endpoint=False)
    for _ in range(20):
        P, C = rng.uniform(-1, 1, (2, 3))
        n = rng.normal(size=3)
        n /= np.linalg.norm(n)
        radius = rng.uniform(0.1, 1.0)
        e1 = np.cross(n, [1.0, 0.0, 0.0])
        e1 /= np.linalg.norm(e1)
        e2 = np.cross(n, e1)
        circle = C + radius * (np.cos(t)[:, None] * e1 + np.sin(t)[:, None] * e2)
        brute = np.linalg.norm(circle - P, axis=1).max()
        assert point_circle_max_distance(P, C, n, radius) == pytest.approx(brute, abs=1e-6)
