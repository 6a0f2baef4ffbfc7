"""The box-on-the-floor conditions of the dynamic lift (Chardonnet 2009, §5.2.1.5, (5.19)–(5.22);
`humanoid_planner.lifting.box_hold`), checked against the box's statics from first principles."""

import numpy as np
import pytest

from humanoid_planner.exceptions import PlanningError
from humanoid_planner.lifting.box_hold import MARGINS, THESIS_BOX, THESIS_HAND_HEIGHT, Box, G, hold_margins


def _floor_reaction(box, f, tau, x_h, z_h):
    """The floor's reaction that holds the box still under the hands' force, from the box's
    equilibrium (force and moment about the origin): normal N [N], tangential F_x [N], centre of
    pressure x_c [m]."""
    n = box.mass * G - f[..., 1]
    fx = -f[..., 0]
    # moments about (0, 0): x_c N − x_o m g + (x_h f_hz − z_h f_hx) + τ_h = 0
    x_c = (box.mass * G * box.com_x - (x_h * f[..., 1] - z_h * f[..., 0]) - tau) / n
    return n, fx, x_c


def test_the_four_margins_hold_exactly_when_the_floor_can_hold_the_box_still():
    """Over 20 000 random hand forces (±60 N), moments (±5 N·m) and grasp points on the box, the
    four margins are all ≥ 0 exactly when the reaction that keeps the box still is a floor's: a
    positive normal force, in the friction cone, its centre of pressure between the two bottom edges.
    The tipping margins are that reaction's moments about the edges, N x_c and N (d_o − x_c)."""
    rng = np.random.default_rng(0)
    k = 20_000
    box = THESIS_BOX
    f = rng.uniform(-60.0, 60.0, (k, 2))
    tau = rng.uniform(-5.0, 5.0, k)
    x_h = rng.uniform(0.0, box.depth, k)
    z_h = rng.uniform(0.0, 2 * THESIS_HAND_HEIGHT, k)
    m = hold_margins(box, f, tau, x_h, z_h)
    assert m.shape == (k, len(MARGINS))
    n, fx, x_c = _floor_reaction(box, f, tau, x_h, z_h)
    held = (n > 0) & (np.abs(fx) <= box.friction * n) & (x_c >= 0) & (x_c <= box.depth)
    assert np.array_equal(held, np.all(m >= 0, axis=1))
    assert 0.05 * k < held.sum() < 0.95 * k  # both cases are sampled
    up = n > 0
    np.testing.assert_allclose(m[up, 1], n[up] * x_c[up], atol=1e-9)
    np.testing.assert_allclose(m[up, 2], n[up] * (box.depth - x_c[up]), atol=1e-9)


def test_the_thesis_box_tips_forward_before_it_slides_when_pushed_at_the_hands_height():
    """The thesis's 4.5 kg box (μ_o 0.4, d_o 0.3 m) pushed horizontally at z_h = 0.495 m: it tips
    about its far edge at m_o g (d_o − x_o) / z_h = 13.38 N, below the 17.66 N at which it would
    slide (μ_o m_o g); with no force each margin is the box's own: μ m g, m g x_o, m g (d_o − x_o),
    m g."""
    box, z = THESIS_BOX, THESIS_HAND_HEIGHT
    w = box.mass * G
    np.testing.assert_allclose(hold_margins(box, [0.0, 0.0], 0.0, 0.1, z), [0.4 * w, 0.15 * w, 0.15 * w, w], rtol=1e-12)
    tip = w * (box.depth - box.com_x) / z
    assert tip == pytest.approx(13.38, abs=0.01) and box.friction * w == pytest.approx(17.66, abs=0.01)
    below, above = hold_margins(box, [[tip - 0.01, 0.0], [tip + 0.01, 0.0]], 0.0, 0.0, z)
    assert np.all(below >= 0)
    assert above[2] < 0 and above[0] > 0 and above[1] > 0 and above[3] > 0  # tips forward, does not slide
    lifted = hold_margins(box, [0.0, w + 1.0], 0.0, box.com_x, z)
    assert lifted[3] < 0 and lifted[0] < 0  # pulled up off the floor: no normal force, no friction


def test_bad_boxes_and_forces_are_refused_in_one_line():
    for kw, word in [
        ({"mass": 0.0}, "mass"),
        ({"depth": -0.3}, "depth"),
        ({"friction": float("nan")}, "friction"),
        ({"com_x": 0.4}, "com_x"),
    ]:
        args = {"mass": 4.5, "friction": 0.4, "depth": 0.3, "com_x": 0.15} | kw
        with pytest.raises(PlanningError, match=word):
            Box(**args)
    with pytest.raises(PlanningError, match="2 components"):
        hold_margins(THESIS_BOX, [1.0, 2.0, 3.0], 0.0, 0.1, 0.5)
