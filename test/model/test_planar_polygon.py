"""The planar polygon module (`humanoid_model.planar_polygon`): the convex hull with its two rules for
coincident points, the signed distance of a point to a convex polygon and the inside test."""

import numpy as np
import pytest

from humanoid_model.planar_polygon import convex_hull, inside, signed_distance

SQUARE = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])


def _area(H):
    x, y = H[:, 0], H[:, 1]
    return 0.5 * float(np.sum(x * np.roll(y, -1) - np.roll(x, -1) * y))


@pytest.mark.parametrize("rule", [{}, {"decimals": 12}, {"tol": 1e-9}])
def test_the_hull_of_a_square_is_its_corners_counter_clockwise_from_the_least_x(rule):
    rng = np.random.default_rng(0)
    inner = rng.uniform(0.1, 0.9, size=(20, 2))
    P = np.vstack([inner[:10], SQUARE[[2, 0, 3, 1]], inner[10:]])
    H = convex_hull(P, **rule)
    assert np.array_equal(H, SQUARE)
    assert _area(H) == 1.0  # positive: counter-clockwise


def test_a_triangle_and_extra_columns():
    T = np.array([[2.0, 0.0, 5.0], [0.0, 0.0, 1.0], [0.0, 3.0, -2.0], [0.5, 0.5, 9.0]])
    H = convex_hull(T)
    assert np.array_equal(H, [[0.0, 0.0], [2.0, 0.0], [0.0, 3.0]])
    assert _area(H) == 3.0


def test_collinear_points_are_not_vertices_and_a_segment_gives_its_ends():
    P = np.vstack([SQUARE, [[0.5, 0.0], [1.0, 0.25], [0.5, 1.0], [0.0, 0.5]]])  # on the edges
    assert np.array_equal(convex_hull(P), SQUARE)
    line = np.array([[2.0, 2.0], [0.0, 0.0], [1.0, 1.0], [3.0, 3.0]])
    assert np.array_equal(convex_hull(line), [[0.0, 0.0], [3.0, 3.0]])


def test_duplicates_count_once_and_fewer_than_three_points_come_back_sorted():
    assert np.array_equal(convex_hull(np.vstack([SQUARE, SQUARE, SQUARE[:1]])), SQUARE)
    assert np.array_equal(convex_hull([[1.0, 2.0], [1.0, 2.0]]), [[1.0, 2.0]])
    assert np.array_equal(convex_hull([[1.0, 2.0], [0.0, 5.0]]), [[0.0, 5.0], [1.0, 2.0]])
    assert convex_hull(np.zeros((0, 3))).shape == (0, 2)


def test_the_merge_rules_round_to_decimals_or_merge_one_tolerance_cell():
    # x = 0.1 and 0.09999999999999999: two points exactly, one to 12 decimals and in one 1e-9 cell
    P = np.array([[0.0, 0.0], [0.1, 0.0], [0.09999999999999999, 0.0], [0.1, 1.0], [0.0, 1.0]])
    assert len(convex_hull(P)) == 4  # the nearly equal pair is collinear with the bottom edge
    H = convex_hull(P, decimals=12)
    assert np.array_equal(H, [[0.0, 0.0], [0.1, 0.0], [0.1, 1.0], [0.0, 1.0]])
    # decimals: the vertices are the rounded points; tol: the first point of a cell, as given
    Q = np.array([[0.0, 0.0], [1.0 + 3e-13, 0.0], [1.0, 1.0], [0.0, 1.0]])
    assert convex_hull(Q, decimals=12)[1, 0] == 1.0
    assert convex_hull(Q, tol=1e-9)[1, 0] == 1.0 + 3e-13
    R = np.array([[0.0, 0.0], [1.0, 0.0], [1.0 + 4e-10, 2e-10], [1.0, 1.0], [0.0, 1.0]])
    assert np.array_equal(convex_hull(R, tol=1e-9), SQUARE)  # one cell: the first kept


def test_a_point_within_the_tolerance_of_an_edge_line_is_not_a_vertex():
    P = np.vstack([SQUARE, [[0.5, -5e-10]]])  # 0.5 nm outside the bottom edge
    assert len(convex_hull(P)) == 5  # exact rule: a vertex
    assert np.array_equal(convex_hull(P, tol=1e-9), SQUARE)
    far = np.vstack([SQUARE, [[0.5, -2e-9]]])
    assert len(convex_hull(far, tol=1e-9)) == 5


def test_signed_distance_and_inside():
    assert signed_distance(SQUARE, [0.5, 0.5]) == 0.5
    assert signed_distance(SQUARE, [0.5, 0.1, 7.0]) == pytest.approx(0.1)  # z ignored
    assert signed_distance(SQUARE, [0.5, 0.0]) == 0.0  # on an edge
    assert signed_distance(SQUARE, [1.0, 1.0]) == 0.0  # at a vertex
    assert signed_distance(SQUARE, [0.5, -0.25]) == -0.25
    assert signed_distance(SQUARE, [2.0, 0.5]) == -1.0
    T = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 2.0]])
    assert signed_distance(T, [0.5, 0.5]) == pytest.approx(0.5)
    assert signed_distance(T, [1.0, 1.0]) == pytest.approx(0.0, abs=1e-15)  # on the hypotenuse
    assert inside(SQUARE, [0.5, 0.0])  # on an edge: inside with no margin
    assert not inside(SQUARE, [0.5, 0.0], margin=1e-12)
    assert inside(SQUARE, [0.5, 0.2], margin=0.2) and not inside(SQUARE, [0.5, 0.2], margin=0.21)
    assert not inside(SQUARE, [-0.1, 0.5])


def test_random_hulls_contain_their_points_and_are_convex():
    rng = np.random.default_rng(3)
    for n in (3, 5, 30):
        for _ in range(50):
            P = rng.normal(size=(n, 2))
            H = convex_hull(P)
            assert _area(H) > 0
            assert all(signed_distance(H, p) >= -1e-12 for p in P)
            e = np.roll(H, -1, axis=0) - H
            turns = e[:, 0] * np.roll(e, -1, axis=0)[:, 1] - e[:, 1] * np.roll(e, -1, axis=0)[:, 0]
            assert np.all(turns > 0)  # strictly convex: no collinear vertex
