"""Geometry of the simulator's /contacts markers, ROS-free (`humanoid_sim.runtime.markers`): the arrow is
force_scale · f from the contact point (none for a contact carrying nothing); the friction cone
has its apex at the point, axis n, height force_scale · f_n and radius μ · height, so a sliding
force's arrow ends on the cone's rim."""

import numpy as np

from humanoid_sim.runtime.markers import CONE_SEGMENTS, contact_markers


def test_contact_marker_arrow_is_the_scaled_force_inside_a_cone_of_radius_mu_height():
    """Arrow = scale·f (world); cone apex at the point, axis n, height scale·f_n, radius μ·height;
    a force on the cone boundary (sliding) ends on the cone's rim circle."""
    s, mu = 0.002, 0.5
    n = np.array([0.0, 0.0, 1.0])
    frames = np.array([[n, [1.0, 0, 0], [0, 1.0, 0]], [n, [1.0, 0, 0], [0, 1.0, 0]]])
    P = np.array([[0.1, 0.2, 0.0], [0.5, 0.0, 0.0]])
    f = np.array([[100.0, 50.0, 0.0], [0.0, 0.0, 0.0]])  # second contact carries nothing
    cm = contact_markers(P, frames, f, [mu, mu], force_scale=s)
    assert cm.points.shape == (2, 3) and cm.arrows.shape == (1, 2, 3)
    np.testing.assert_allclose(cm.arrows[0, 1] - cm.arrows[0, 0], s * np.array([50.0, 0.0, 100.0]))
    tri = cm.cones.reshape(-1, 3, 3)
    assert tri.shape[0] == CONE_SEGMENTS
    np.testing.assert_allclose(tri[:, 0], np.tile(P[0], (CONE_SEGMENTS, 1)))  # apex
    rim = tri[:, 1] - P[0]
    np.testing.assert_allclose(rim[:, 2], s * 100.0)  # height
    np.testing.assert_allclose(np.linalg.norm(rim[:, :2], axis=1), mu * s * 100.0)
    # the sliding force's arrow tip lies on the rim circle: |f_t| = mu f_n
    tip = cm.arrows[0, 1] - P[0]
    assert np.isclose(np.linalg.norm(tip[:2]), mu * tip[2])
