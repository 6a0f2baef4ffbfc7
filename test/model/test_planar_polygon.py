"""The planar polygon module (`humanoid_model.planar_polygon`): the convex hull with its two rules for
coincident points, the signed distance of a point to a convex polygon and the inside test, the
clipping of a convex polygon by another and the inward offset of a polygon (checked against a
brute-force intersection of half-planes)."""

import numpy as np
import pytest

from humanoid_model.planar_polygon import clip, convex_hull, inside, shrink, signed_distance

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


# ---------------------------------------------------------------------- clip and shrink
def _same_points(A, B, tol=1e-12):
    """Whether the rows of A and B are the same points (in any order), to ``tol``."""
    A, B = np.asarray(A, float), np.asarray(B, float)
    return len(A) == len(B) and all(np.min(np.abs(B - a).max(axis=1)) <= tol for a in A)


def _half_plane_intersection(lines):
    """The convex polygon (k, 2) of the points x with n·x >= d for every (n, d) in ``lines``: the
    hull of every pairwise intersection of their boundaries that satisfies them all (brute force)."""
    pts = []
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            (n1, d1), (n2, d2) = lines[i], lines[j]
            M = np.array([n1, n2])
            if abs(np.linalg.det(M)) < 1e-12:
                continue
            x = np.linalg.solve(M, [d1, d2])
            if all(n @ x >= d - 1e-12 for n, d in lines):
                pts.append(x)
    return convex_hull(np.array(pts), tol=1e-12) if len(pts) >= 3 else np.zeros((0, 2))


def _edge_lines(P, margin=0.0):
    """(inward normal, offset) of each edge of the counter-clockwise polygon P moved ``margin`` in."""
    out = []
    for a, b in zip(P, np.roll(P, -1, axis=0), strict=True):
        t = (b - a) / np.linalg.norm(b - a)
        n = np.array([-t[1], t[0]])
        out.append((n, n @ a + margin))
    return out


def _random_convex(rng, n):
    return convex_hull(rng.normal(size=(n, 2)))


def test_clipping_two_overlapping_squares_gives_their_intersection():
    W = SQUARE + [0.5, 0.25]
    part = clip(SQUARE, W)
    assert _same_points(part, [[0.5, 0.25], [1.0, 0.25], [1.0, 1.0], [0.5, 1.0]])
    assert _area(part) == pytest.approx(0.375, abs=1e-15)  # counter-clockwise: positive


def test_clipping_by_a_window_that_holds_the_polygon_gives_the_polygon_and_the_reverse_the_window():
    big = 4 * SQUARE - 1.5
    assert _same_points(clip(SQUARE, big), SQUARE)
    assert _same_points(clip(big, SQUARE), SQUARE)


def test_polygons_that_do_not_overlap_clip_to_nothing_and_touching_ones_to_no_area():
    assert clip(SQUARE, SQUARE + [2.0, 0.0]).shape == (0, 2)
    assert clip(SQUARE, SQUARE + [0.3, -5.0]).shape == (0, 2)
    touching = clip(SQUARE, SQUARE + [1.0, 0.0])  # a shared edge: on an edge line is inside
    assert _area(touching) == 0.0 and np.all(touching[:, 0] == 1.0)


def test_random_clips_are_the_intersection_of_the_two_polygons_half_planes():
    rng = np.random.default_rng(4)
    for _ in range(200):
        P = _random_convex(rng, 6)
        W = _random_convex(rng, 5) * rng.uniform(0.3, 1.5) + rng.normal(size=2) * 0.7
        part = clip(P, W)
        expected = _half_plane_intersection(_edge_lines(P) + _edge_lines(W))
        if len(expected) < 3:
            assert len(part) == 0 or abs(_area(part)) < 1e-12
            continue
        assert _area(part) == pytest.approx(_area(expected), abs=1e-12)
        assert all(signed_distance(P, p) >= -1e-12 and signed_distance(W, p) >= -1e-12 for p in part)
        assert all(signed_distance(convex_hull(part), p) >= -1e-12 for p in expected)


def test_shrinking_a_rectangle_moves_every_side_in_by_the_margin():
    R = np.array([[0.0, 0.0], [2.0, 0.0], [2.0, 1.0], [0.0, 1.0]])
    out = shrink(R, 0.1)
    assert _same_points(out, [[0.1, 0.1], [1.9, 0.1], [1.9, 0.9], [0.1, 0.9]])
    assert _area(out) > 0
    assert _same_points(shrink(R[::-1], 0.1), out)  # clockwise input: the same polygon


def test_shrinking_a_triangle_scales_it_about_its_incentre():
    T = np.array([[0.0, 0.0], [4.0, 0.0], [0.0, 3.0]])  # sides 3, 4, 5: incentre (1, 1), inradius 1
    out = shrink(T, 0.5)
    assert _same_points(out, (T - 1.0) * 0.5 + 1.0)  # inradius 1 - 0.5


@pytest.mark.parametrize("n", [3, 5, 8])
def test_a_shrunk_regular_polygon_is_the_regular_polygon_of_the_smaller_inradius(n):
    rng = np.random.default_rng(n)
    for _ in range(20):
        phase, radius, centre = rng.uniform(0, 2 * np.pi), rng.uniform(0.1, 2.0), rng.normal(size=2)
        angles = phase + 2 * np.pi * np.arange(n) / n
        P = centre + radius * np.column_stack([np.cos(angles), np.sin(angles)])
        inradius = radius * np.cos(np.pi / n)
        margin = rng.uniform(0.0, 0.9) * inradius
        expected = centre + (P - centre) * (inradius - margin) / inradius
        out = shrink(P, margin)
        assert _same_points(out, expected, tol=1e-12)
        assert all(signed_distance(P, p) == pytest.approx(margin, abs=1e-12) for p in out)


def test_every_shrunk_vertex_is_at_least_the_margin_inside():
    # the 52nd polygon (inradius 0.425, margin 0.298, the points 0.298 inside: area 0.246) shrinks
    # to its vertices' centroid, 0.257 inside
    rng = np.random.default_rng(5)
    for _ in range(200):
        P = _random_convex(rng, 7)
        margin = rng.uniform(0.0, 0.3)
        out = shrink(P, margin)
        assert all(signed_distance(P, p) >= margin - 1e-9 for p in out)


def test_a_polygon_too_small_for_the_margin_shrinks_to_its_vertices_centroid():
    R = np.array([[1.0, 2.0], [1.2, 2.0], [1.2, 2.1], [1.0, 2.1]])  # 0.2 x 0.1
    for margin in (0.06, 1.0):  # beyond half its width, far beyond
        out = shrink(R, margin)
        assert out.shape == (1, 2) and np.allclose(out, [[1.1, 2.05]], rtol=0, atol=1e-15)


def test_a_zero_margin_gives_the_polygons_hull():
    P = np.vstack([SQUARE, [[0.5, 0.5]]])
    assert np.array_equal(shrink(P, 0.0), SQUARE)


def test_a_chamfer_edge_that_vanishes_leaves_the_corner_of_its_neighbours():
    # the unit square with a 0.05 chamfer at (1, 1): shrunk by 0.1 the chamfer's line
    # (x + y <= 1.95 - 0.1 √2 = 1.809) no longer binds, the result is [0.1, 0.9]² (area 0.64);
    # shrink returns the triangle (0.1, 0.9), (0.1, 0.1), (0.9, 0.1) (area 0.32)
    P = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.95], [0.95, 1.0], [0.0, 1.0]])
    out = shrink(P, 0.1)
    assert _area(out) == pytest.approx(0.64, abs=1e-12)
    assert _same_points(out, [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]])


def test_a_square_whose_two_chamfers_vanish_is_not_too_small_for_the_margin():
    # chamfers of 0.05 at both top corners: shrunk by 0.1 neither binds, the result is [0.1, 0.9]²;
    # only two corners of consecutive offset edges survive, and shrink returns the point (0.5, 0.65)
    P = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 0.95], [0.95, 1.0], [0.05, 1.0], [0.0, 0.95]])
    out = shrink(P, 0.1)
    assert _same_points(out, [[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]])


def test_random_shrinks_are_the_intersection_of_the_offset_half_planes():
    # 12 of these 200 shrinks are smaller than the intersection (one of them a single point)
    rng = np.random.default_rng(6)
    smaller = 0
    for _ in range(200):
        P = _random_convex(rng, 7)
        margin = rng.uniform(0.0, 0.3)
        expected = _half_plane_intersection(_edge_lines(P, margin))
        out = shrink(P, margin)
        if len(expected) >= 3 and _area(out) < _area(expected) - 1e-9:
            smaller += 1
    assert smaller == 0
