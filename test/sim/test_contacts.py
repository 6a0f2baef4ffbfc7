"""Contact stage (`humanoid_sim.stages.contacts`; Chardonnet
2009, §3.1.4.1, §3.2.5): contact frames, relative Jacobians against finite
differences of the material points' velocities on HRP-2, collision groups of a known contact
graph, the gap term and the per-contact data of a step (the warm-start match is in
test_warm_start.py)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_sim.stages.contacts import (
    BETA,
    ContactSet,
    collision_groups,
    contact_jacobian,
    contact_projectors,
    frame_from_normal,
    frames_from_normals,
    gap_term,
    relative_jacobian,
    support_masks,
)
from humanoid_sim.world import World


# ----------------------------------------------------------------------------- frames
def test_contact_frames_are_orthonormal_right_handed_with_the_normal_first():
    rng = np.random.default_rng(7)
    normals = np.vstack(
        [rng.normal(size=(200, 3)), np.eye(3), -np.eye(3), [[1, 1, 0], [0, 1, 1], [1, 1, 1], [1e-9, 0, 1]]]
    )
    F = frames_from_normals(normals)
    assert F.shape == (len(normals), 3, 3)
    for n, R in zip(normals, F):
        np.testing.assert_allclose(R @ R.T, np.eye(3), atol=1e-14)
        assert np.linalg.det(R) == pytest.approx(1.0, abs=1e-14)  # t2 = n × t1
        np.testing.assert_allclose(R[0], n / np.linalg.norm(n), atol=1e-15)
        # t1 is built from the world axis least aligned with n: it is orthogonal to that axis
        assert abs(R[1, int(np.argmin(np.abs(n)))]) < 1e-15
    np.testing.assert_array_equal(frame_from_normal(normals[0]), F[0])


def test_contact_projector_is_frame_times_point_transport():
    """X_c = R_c [I, −skew(p_c)]: the contact-frame velocity of the point p_c of a body moving
    with world-origin spatial velocity (v_O, ω) is R_c (v_O + ω × p_c)."""
    rng = np.random.default_rng(3)
    F = frames_from_normals(rng.normal(size=(5, 3)))
    P = rng.normal(size=(5, 3))
    X = contact_projectors(F, P)
    for k in range(5):
        vO, w = rng.normal(size=3), rng.normal(size=3)
        np.testing.assert_allclose(X[k] @ np.concatenate([vO, w]), F[k] @ (vO + np.cross(w, P[k])), atol=1e-14)


# ----------------------------------------------------------------------------- Jacobians
def _point_velocity_fd(model, q, v, joint, p, eps=1e-6):
    """World velocity [m/s] of the material point at p [m] of the body of ``joint`` when the
    configuration moves along v: central differences of its world position (0 for joint 0)."""
    if joint == 0:
        return np.zeros(3)
    d = model.createData()
    pin.forwardKinematics(model, d, q)
    local = d.oMi[joint].actInv(p)
    pos = []
    for s in (eps, -eps):
        pin.forwardKinematics(model, d, pin.integrate(model, q, s * v))
        pos.append(d.oMi[joint].act(local))
    return (pos[0] - pos[1]) / (2 * eps)


def test_relative_jacobian_rows_are_finite_differences_of_the_point_velocity():
    """Random HRP-2 configuration and velocity (seeded); contacts of a foot on the ground, a hand
    on the thigh and a hand on the other forearm (relative: both bodies mobile). J v equals
    R_c (v_A(p) − v_B(p)) from finite differences of the material points' positions, to 1e-7
    relative (central differences, ε = 1e-6: O(ε²) error; chosen)."""
    from humanoid_model import load_robot

    robot = load_robot("hrp2")
    model, data = robot.model, robot.model.createData()
    rng = np.random.default_rng(11)
    q = pin.randomConfiguration(
        model, np.maximum(model.lowerPositionLimit, -1), np.minimum(model.upperPositionLimit, 1)
    )
    v = rng.normal(scale=0.5, size=model.nv)
    jid = {
        n: model.frames[model.getFrameId(n)].parentJoint
        for n in ("RLEG_LINK5", "RARM_LINK5", "RLEG_LINK2", "LARM_LINK4")
    }
    ja = [jid["RLEG_LINK5"], jid["RARM_LINK5"], jid["RARM_LINK5"]]
    jb = [0, jid["RLEG_LINK2"], jid["LARM_LINK4"]]
    pts = rng.normal(scale=0.3, size=(3, 3))
    cs = ContactSet.make(ja, pts, rng.normal(size=(3, 3)), joint_b=jb)
    J = contact_jacobian(model, data, cs, q)
    assert J.shape == (9, model.nv)
    for c in range(3):
        rel = _point_velocity_fd(model, q, v, ja[c], pts[c]) - _point_velocity_fd(model, q, v, jb[c], pts[c])
        ref = cs.frames[c] @ rel
        assert np.linalg.norm(J[3 * c : 3 * c + 3] @ v - ref) <= 1e-7 * np.linalg.norm(ref)
    # the group form: columns selected from the same rows
    cols = np.arange(6, model.nv, 2)
    Jg = relative_jacobian(data.J, support_masks(model), cs.frames, cs.points, cs.joint_a, cs.joint_b, cols)
    np.testing.assert_array_equal(Jg, J[:, cols])


# ----------------------------------------------------------------------------- groups
def test_collision_groups_of_a_known_contact_graph():
    """Trees 0..5; contacts 0: 1–env, 1: 2–3, 2: 3–4, 3: 0–env, 4: 5–2, 5: 4–env. Components:
    {0}, {1}, {2, 3, 4, 5} (the environment joins none); each group's columns are its trees'
    columns in tree order. merge_all: one group of every tree in contact."""
    tree_cols = [np.arange(6 * t, 6 * t + 6) for t in range(6)]
    ta = [1, 2, 3, 0, 5, 4]
    tb = [-1, 3, 4, -1, 2, -1]
    groups = collision_groups(ta, tb, 6, tree_cols)
    by_trees = {tuple(g.trees): g for g in groups}
    assert set(by_trees) == {(0,), (1,), (2, 3, 4, 5)}
    assert by_trees[(0,)].contacts.tolist() == [3]
    assert by_trees[(1,)].contacts.tolist() == [0]
    assert sorted(by_trees[(2, 3, 4, 5)].contacts.tolist()) == [1, 2, 4, 5]
    np.testing.assert_array_equal(by_trees[(2, 3, 4, 5)].cols, np.arange(12, 36))
    (one,) = collision_groups(ta, tb, 6, tree_cols, merge_all=True)
    assert one.trees == [0, 1, 2, 3, 4, 5] and sorted(one.contacts.tolist()) == list(range(6))
    assert collision_groups([], [], 6, tree_cols) == []


def test_gap_term_closes_gaps_in_one_step_and_a_fifth_of_penetrations():
    dt = 1e-3
    np.testing.assert_allclose(gap_term([0.002, 0.0, -0.001], dt), [2.0, 0.0, -BETA * 1.0])
    assert BETA == 0.2


# ----------------------------------------------------------------------------- the stage
def test_step_contacts_of_cubes_on_the_ground(tmp_path):
    """Two resting cubes (two free-body trees) after a few steps: 8 contacts, one group per cube,
    pair keys equal within a cube–ground pair and different between pairs, contact points
    expressed in the cube's frame at its bottom corners (±0.05, ±0.05, −0.05) m, frames with the
    batch normals first, gap terms gap/dt (gaps ≥ 0) or β gap/dt."""
    p = tmp_path / "cubes.yaml"
    p.write_text(
        """
gravity: [0, 0, -9.81]
ground: {height: 0.0}
free_bodies:
  - {name: c0, shape: box, size: [0.1, 0.1, 0.1], mass: 1.0, pose: {xyz: [0, 0, 0.05]}}
  - {name: c1, shape: box, size: [0.1, 0.1, 0.1], mass: 1.0, pose: {xyz: [0.5, 0, 0.05], rpy_deg: [0, 0, 40]}}
"""
    )
    w = World.from_scene(p)
    w.step(5)
    R, P = w.detector.joint_placements(w.data)
    b = w.last.batch
    cs = w.contacts(b, R, P)
    assert b.m == 8 and len(cs.groups) == 2 and not cs.single
    assert sorted(tuple(g.trees) for g in cs.groups) == [(0,), (1,)]
    for g in cs.groups:
        assert len(set(cs.keys[g.contacts].tolist())) == 1
    assert len(set(cs.keys.tolist())) == 2
    np.testing.assert_allclose(np.abs(cs.local), 0.05, atol=1e-6)  # resting: within 1 µm of the corners
    np.testing.assert_allclose(cs.frames[:, 0], b.normals, atol=1e-15)
    np.testing.assert_allclose(cs.gap, gap_term(b.gaps, w.dt), atol=1e-12)
    assert cs.min_gap == min(0.0, float(b.gaps.min()))
    np.testing.assert_array_equal(cs.tree_b, -1)
    np.testing.assert_array_equal(cs.joint_b, 0)
