"""Deformable FEM soles in the World step (Chardonnet 2009, §4.3.4, eqs. (4.16)–(4.22) with the
corrections named in humanoid_sim/soles/coupling.py; docs/soles.md "In the simulator").

HRP-2 stands on 'flat' on FEM soles (E = 3 MPa, ν = 0.4, Chardonnet 2009, §4.4.1) for 7 s (module
fixture). Claims, each checked against an independent quantity:
- it settles: Σ f_n = m |g| to 1e-6 relative (chosen bound);
- the sole compression the simulator holds matches a static FEM solve of the same load to 1 %:
  the static solve is the uncondensed K^r U = F of
  `CondensedSole.solve_full` (eqs 4.10–4.11), fed the simulator's node forces; the sink it
  predicts at each loaded node must equal how far the rigid foot has moved that node's
  undeformed position below the ground;
- the soles do not slip and every solve converges (the standing test's claims).
Configuration and state: test_soles_world_state.py.

Mesh (chosen, for the test's cost): 3 × 1 × 2 cells, 8 ground nodes per sole (the
"FEM soles 8 nodes/sole" row of benchmarks/sim_step.py); the shipped default has 16 (urdf/hrp2.yaml).
"""

import dataclasses

import numpy as np
import pinocchio as pin
import pytest

from humanoid_model import load_robot
from humanoid_sim.world import World

RESOLUTION = (0.074, 0.13, 0.01)  # [m] 3 × 1 × 2 cells: 4 × 2 ground nodes per sole (chosen, module docstring)
SETTLE = 7000  # steps of 1 ms: the whole-body sway (period ~0.7 s) decays below 1e-6 of m g (measured)


def coarse_specs(robot):
    return [dataclasses.replace(s, resolution=RESOLUTION) for s in robot.soles.values()]


@pytest.fixture(scope="module")
def standing():
    robot = load_robot("hrp2")
    w = World.from_scene("flat", robot=robot, soles=coarse_specs(robot))
    feet = [w.model.getFrameId(n) for n in ("RLEG_SOLE", "LLEG_SOLE")]
    d = w.model.createData()

    def feet_xy():
        pin.framesForwardKinematics(w.model, d, w.q)
        return np.array([d.oMf[f].translation[:2].copy() for f in feet])

    w.step(500)
    xy0 = feet_xy()
    w.step(500)
    transient = w.stats()["unconverged_solves"]
    w.step_stats.drain()
    w.step(SETTLE - 1000)
    return {"world": w, "slip": float(np.abs(feet_xy() - xy0).max()), "transient_unconverged": transient}


def test_standing_on_fem_soles_settles_with_the_weight_on_the_nodes(standing):
    w = standing["world"]
    assert w.last.batch.m == 16  # the 8 ground nodes of each sole, and no rigid contact
    assert set(w.last.batch.geom_a.tolist()) == {s.geom for s in w.soles.soles}
    mg = w.robot.mass * np.linalg.norm(w.scene.gravity)
    fz = w.last.forces_world()[:, 2].sum()
    assert abs(fz - mg) / mg < 1e-6  # chosen bound
    # every solve from 1 s on converges; in the first second one (of 1000) stick-slip transition of
    # the edge nodes ends on the 500-sweep budget (complementarity 1.2e-5 N m/s, measured; docs/soles.md)
    assert w.stats()["unconverged_solves"] == 0
    assert standing["transient_unconverged"] <= 1


def test_standing_on_fem_soles_does_not_slip(standing):
    assert standing["slip"] < 1e-4  # < 0.1 mm from 0.5 s to 7 s (the rigid standing test's bound)


def test_sole_sink_matches_a_static_fem_solve_of_the_same_load(standing):
    """The sole compression matches a static FEM solve of the same load to 1 %
    (`humanoid_sim.soles.static_check`: the uncondensed K^r U = F of the simulator's node forces)."""
    from humanoid_sim.soles.static_check import sole_sinks

    w = standing["world"]
    sinks = sole_sinks(w)
    for s in sinks:
        assert len(s.depth) >= 2
        assert np.all(s.depth > 5e-6)  # the sole is compressed (tens of µm, docs/soles.md)
        np.testing.assert_allclose(s.depth, s.sink, rtol=1e-2)
    total = sum(s.force for s in sinks)
    assert abs(total[2] - w.robot.mass * np.linalg.norm(w.scene.gravity)) < 1e-3
