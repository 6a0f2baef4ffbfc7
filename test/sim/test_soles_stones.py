"""FEM soles on stones: contact points that are not mesh nodes, distributed over the contacted sole
triangle by P (Chardonnet 2009, §4.5, eqs. (4.24)–(4.32), with the
virtual-work-consistent mapping of humanoid_sim/soles/distribution.py; obstacles.py, world_coupling.py).

HRP-2 stands on FEM soles on 'flat' with one 2 × 2 × 0.3 cm stone under its right sole (away
from the nodes of the coarse mesh). After 1.5 s: the stone carries part of the weight; the
sole's deformation is the static FEM answer of its loads: the uncondensed solve K^r U = F of
the node forces Pᵀ f (eqs 4.10–4.11, an independent path), interpolated with P at each loaded
stone contact (u_p = P U, eq. 4.31), equals how far the stone vertex reaches into the
undeformed sole (to 1 %, the bound of the sole-compression check). On the `gravel` scene the
soles meet stones through P as well (a smoke run: contacts, finite state).

Mesh (chosen, for the cost): 3 × 1 × 2 cells, 8 ground nodes per sole.
"""

import dataclasses
from pathlib import Path

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model import load_robot
from humanoid_model.scene import load_scene, scene_from_dict
from humanoid_sim.world import World

RESOLUTION = (0.074, 0.13, 0.01)  # [m] 8 ground nodes per sole (chosen: the test's cost)
H = 0.003  # [m] stone height (chosen: 15 % of the sole's thickness)


def coarse(robot):
    return [dataclasses.replace(s, resolution=RESOLUTION) for s in robot.soles.values()]


@pytest.fixture(scope="module")
def on_a_stone():
    robot = load_robot("hrp2")
    d = robot.model.createData()
    pin.framesForwardKinematics(robot.model, d, robot.q("half-sitting"))
    c = d.oMf[robot.model.getFrameId("RLEG_SOLE")].translation
    doc = {
        "ground": {},
        "robot": {"name": "hrp2", "placement": {"xyz": [0, 0, H]}},  # the sole starts on the stone
        "bodies": [
            {
                "name": "stone",
                "shape": "box",
                "size": [0.02, 0.02, H],
                "pose": {"xyz": [c[0] + 0.03, c[1] + 0.01, H / 2]},
            }
        ],
    }
    w = World(scene_from_dict(doc, Path("stone.yaml")), robot, soles=coarse(robot))
    w.step(1500)
    return w


def test_the_stone_carries_part_of_the_weight_through_p(on_a_stone):
    w = on_a_stone
    b = w.last.batch
    stone = b.b_static & (b.geom_b == 1)  # static 0 is the ground, 1 the stone
    fz = w.last.forces_world()[:, 2]
    assert fz[stone].sum() > 50.0  # measured 346 N of the 554 N weight
    right = w.soles.soles[0]
    assert right.P is not None and set(right.rows) >= set(np.flatnonzero(stone))
    np.testing.assert_allclose(right.P.sum(axis=1), 1.0, atol=1e-12)  # on live rows: Σ d_j = 1


def test_the_sole_meets_the_stone_where_the_static_fem_puts_it(on_a_stone):
    w = on_a_stone
    data = w.model.createData()
    pin.forwardKinematics(w.model, data, w.q)
    s, F = w.soles.soles[0], w.soles.node_forces(w.last.forces, w.last.frames)[0]
    mesh = s.sole.mesh
    F_all = np.zeros((mesh.n_nodes, 3))
    F_all[mesh.surface_nodes] = F
    U = s.sole.solve_full(F_all)[mesh.surface_nodes]  # K^r U = F, no condensation
    oMi = data.oMi[s.joint]
    R, p = oMi.rotation @ s.jR, oMi.translation + oMi.rotation @ s.jp
    f = w.last.forces[s.rows]
    loaded = f[:, 0] > 1e-3 * f[:, 0].max()
    X = (w.last.batch.points[s.rows] - p) @ R  # contact points in the sole frame
    depth = X[loaded, 2] + s.spec.thickness  # above the undeformed ground face: into the sole
    sink = (s.P @ U[s.nodes])[loaded, 2]  # u_p = P U (eq. 4.31)
    stone = w.last.batch.geom_b[s.rows][loaded] == 1
    assert stone.any() and np.all(depth > 5e-6)
    np.testing.assert_allclose(depth, sink, rtol=1e-2)  # measured agreement 2e-6


def test_gravel_scene_soles_meet_the_stones():
    """The `gravel` scene with HRP-2 placed over the stones (x = 1.0 m): within 0.2 s its FEM soles
    touch stones through P, the state stays finite and the node loads Pᵀ f add up to the
    contact forces (virtual work)."""
    robot = load_robot("hrp2")
    sc = load_scene("gravel")
    sc = dataclasses.replace(
        sc,
        robot=dataclasses.replace(
            sc.robot, placement=dataclasses.replace(sc.robot.placement, xyz=np.array([1.0, 0.0, 0.035]))
        ),
    )
    w = World(sc, robot, soles=coarse(robot))
    stones = 0
    for _ in range(200):
        w.step()
        stones = max(stones, sum(s.P is not None for s in w.soles.soles))
    assert stones >= 1 and np.all(np.isfinite(w.q))
    for s, F in zip(w.soles.soles, w.soles.node_forces(w.last.forces, w.last.frames), strict=True):
        f_sole = (w.last.forces_world()[s.rows]).sum(axis=0)  # world forces on the sole
        np.testing.assert_allclose(F.sum(axis=0) @ s.R.T, f_sole, atol=1e-6 * max(1.0, np.abs(f_sole).max()))
