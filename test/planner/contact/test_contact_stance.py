"""Stances, their total order and the scaled epsilon duplicate test (Escande 2008, §5.3.3), the
ordered registry N, the node bookkeeping and the search-box splitting
(humanoid_planner/contact/{stance,registry,node,boxes}.py). No posture-generator call."""

import itertools

import numpy as np
import pytest

from humanoid_planner.contact import Box, Contact, Node, Stance, StanceMetric, StanceRegistry
from humanoid_planner.contact.node import ADDED, RELEASED
from humanoid_planner.exceptions import PlanningError

METRIC = StanceMetric()  # a_theta 0.12 m/rad, eps 0.02 m (stance.py docstring)


def _feet(dx=0.0, dy=0.0, dth=0.0):
    return Stance([Contact("r_sole", "floor", 0.3 + dx, -0.1 + dy, dth), Contact("l_sole", "floor", 0.0, 0.1, 0.0)])


@pytest.mark.spec("001", "A12")
def test_stances_closer_than_eps_are_one_node_farther_are_two():
    reg = StanceRegistry(METRIC)
    assert reg.add(_feet())
    assert not reg.add(_feet(dx=0.019))  # 1.9 cm < eps
    assert not reg.add(_feet(dx=0.012, dy=0.012))  # ||(0.012, 0.012)|| = 1.7 cm
    assert not reg.add(_feet(dth=0.15))  # 0.15 rad x 0.12 m/rad = 1.8 cm
    assert len(reg) == 1
    assert reg.add(_feet(dx=0.021))  # 2.1 cm > eps
    assert reg.add(_feet(dth=0.2))  # 2.4 cm
    assert reg.add(_feet(dx=-0.015, dy=-0.015))  # 2.12 cm from the first, farther from the others
    assert len(reg) == 4


@pytest.mark.spec("001", "A12")
def test_theta_wraps_around_pi():
    a = Stance([Contact("r_sole", "floor", 0, 0, np.pi - 0.05)])
    b = Stance([Contact("r_sole", "floor", 0, 0, -np.pi + 0.05)])  # 0.1 rad apart across pi
    assert METRIC.equal(a, b) and METRIC.compare(a, b) == 0


@pytest.mark.spec("001", "A12")
def test_different_pairs_or_cardinality_never_equal():
    one = Stance([Contact("r_sole", "floor", 0, 0, 0)])
    other_surface = Stance([Contact("r_sole", "step", 0, 0, 0)])
    assert not METRIC.equal(one, other_surface)
    assert METRIC.compare(one, _feet()) == -1 and METRIC.compare(_feet(), one) == 1  # card first
    assert METRIC.compare(one, other_surface) == -1  # ind lexicographic: ("r_sole","floor") < ("r_sole","step")


@pytest.mark.spec("001", "A12")
def test_order_is_a_strict_total_order_on_distinct_stances():
    rng = np.random.default_rng(3)
    stances = [_feet(*rng.uniform(-0.3, 0.3, 2), rng.uniform(-1, 1)) for _ in range(30)]
    stances += [Stance([Contact("r_sole", "floor", *rng.uniform(-0.3, 0.3, 2), 0.0)]) for _ in range(10)]
    distinct = []
    for s in stances:
        if all(METRIC.compare(s, t) != 0 for t in distinct):
            distinct.append(s)
    for s, t in itertools.permutations(distinct, 2):
        assert METRIC.compare(s, t) == -METRIC.compare(t, s) != 0  # antisymmetric, total
    for s, t, u in itertools.permutations(distinct[:15], 3):
        if METRIC.compare(s, t) < 0 and METRIC.compare(t, u) < 0:
            assert METRIC.compare(s, u) < 0  # transitive
    reg = StanceRegistry(METRIC)
    for s in distinct:
        assert reg.add(s)
    ordered = reg.ordered()
    assert all(METRIC.compare(a, b) < 0 for a, b in itertools.pairwise(ordered))


@pytest.mark.spec("001", "A12")
def test_insertion_order_does_not_change_the_result():
    """Contacts given in any order make one stance; the registry finds a near-duplicate whatever
    is inserted between (the window search of registry.py, not only sorted neighbours)."""
    c1, c2 = Contact("r_sole", "floor", 0.3, -0.1, 0), Contact("l_sole", "floor", 0, 0.1, 0)
    assert Stance([c1, c2]) == Stance([c2, c1]) and hash(Stance([c1, c2])) == hash(Stance([c2, c1]))
    rng = np.random.default_rng(5)
    base = [_feet(*rng.uniform(-0.5, 0.5, 2), rng.uniform(-3, 3)) for _ in range(120)]
    kept = []
    for _ in range(3):
        reg = StanceRegistry(METRIC)
        order = rng.permutation(len(base))
        for i in order:
            reg.add(base[i])
        # every stance offered is either in or equal to one in (no duplicate missed, none kept twice)
        stored = reg.ordered()
        for s in base:
            assert reg.find(s) is not None
        for a, b in itertools.combinations(stored, 2):
            assert not METRIC.equal(a, b)
        kept.append(len(stored))
    assert min(kept) > 90  # eps 2 cm in a 1 m x 1 m x 6 rad cube: few merges


def test_stance_rejects_empty_and_a_location_used_twice():
    with pytest.raises(PlanningError):
        Stance([])
    with pytest.raises(PlanningError):
        Stance([Contact("r_sole", "floor", 0, 0, 0), Contact("r_sole", "floor", 1, 0, 0)])
    s = _feet()
    assert s.without("r_sole").locations == ("l_sole",)
    assert s.differs_by_one(s.without("r_sole")) and not s.differs_by_one(_feet(dx=0.1))


def test_node_flags_geometry_of_the_larger_stability_of_the_smaller():
    s = _feet()
    new = s.contacts[1]  # r_sole
    added = Node(s, np.zeros(3), 0.0, kind=ADDED, changed=new)
    assert set(added.geometric) == set(s) and set(added.stable) == set(s) - {new}
    assert added.participates_to_stability == {"l_sole": True, "r_sole": False}
    released = Node(s.without("r_sole"), np.zeros(3), 0.0, kind=RELEASED, changed=new)
    assert set(released.geometric) == set(s) and set(released.stable) == set(s) - {new}
    assert released.is_being_released == {"l_sole": False, "r_sole": True}


def test_box_split_removes_the_cell_and_covers_the_rest(floor):
    """Υ minus V (δl × δl × δθ) as disjoint convex boxes: sampled points of Υ are in exactly one
    part, or in V."""
    box = Box.around(floor, [0.2, 0.0, 0.6], 1.0, theta=(-1.0, 1.0))
    x, y, th, dl, dth = 0.4, -0.1, 0.3, 0.1, 0.5
    parts = box.split(x, y, th, dl, dth)
    assert len(parts) == 6
    rng = np.random.default_rng(0)
    for _ in range(3000):
        p = (*rng.uniform(-1.0, 1.4, 2), rng.uniform(-1.0, 1.0))
        n = sum(b.contains(*p, tol=-1e-9) for b in parts)
        in_v = abs(p[0] - x) < dl / 2 and abs(p[1] - y) < dl / 2 and abs(p[2] - th) < dth / 2
        if box.contains(*p, tol=-1e-9) and not in_v:
            assert n == 1, p
        else:
            assert n == 0, p


def test_box_split_full_turn_keeps_one_wrapped_theta_part(floor):
    box = Box.around(floor, [0.0, 0.0, 0.6], 1.0)
    parts = box.split(0.0, 0.0, 3.0, 0.1, 0.5)
    (cell,) = [b for b in parts if b.theta[1] - b.theta[0] < 2 * np.pi - 1e-9]
    assert cell.theta == pytest.approx((3.25, 3.0 + 2 * np.pi - 0.25))
    assert cell.contains(0.0, 0.0, -3.0) and not cell.contains(0.0, 0.0, 3.1)
    sb = cell.search_box()
    assert sb.theta == cell.theta and np.all(np.abs(np.linalg.norm(sb.A, axis=1) - 1) < 1e-12)


def test_box_around_prunes_far_surfaces(floor):
    assert Box.around(floor, [0, 0, 1.2], 1.0) is None  # plane 1.2 m away, radius 1 m
    b = Box.around(floor, [0, 0, 0.6], 1.0)
    half = np.sqrt(1.0 - 0.36)
    assert np.ptp(b.polygon[:, 0]) == pytest.approx(2 * half)


def test_box_split_at_the_theta_boundary_shrinks_the_box(floor):
    """A contact found on the boundary theta = lo, read a hair below it: the split must not
    return the whole box (it did: the modulo sent lo - 1e-9 a full turn up, and the lazy brothers
    recursed without end on the walking problem)."""
    box = Box.around(floor, [0.0, 0.0, 0.6], 1.0, theta=(0.2356, 6.0188))
    for th in (0.2356 - 1e-9, 0.2356, 6.0188 + 1e-9):
        parts = box.split(0.0, 0.0, th, 0.1, 0.5)
        cells = [b for b in parts if np.ptp(b.polygon[:, 0]) <= 0.1 + 1e-9 and np.ptp(b.polygon[:, 1]) <= 0.1 + 1e-9]
        assert len(cells) == 1 and cells[0].theta[1] - cells[0].theta[0] == pytest.approx(6.0188 - 0.2356 - 0.25)
