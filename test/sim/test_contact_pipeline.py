"""The contacts, Delassus and solve stages in one compiled call (`humanoid_sim.contact_pipeline`)
against the three stages themselves: the same trajectories, forces, iterations and solver
residuals to the last bit, on steps that take the compiled call and on steps it leaves to the
stages (a penetration's split solve, joint-limit rows), and only where the world allows it."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import humanoid_sim.world as world_module
from humanoid_sim.world import World


def _run(scene: str, pipeline: bool, steps: int, setup=None, **kw):
    """(per-step rows of q, v, the contact forces and the solver iterations; the step statistics'
    largest residuals; how many steps the compiled call solved, and left to the stages)."""
    w = World.from_scene(scene, dt=1e-3, **kw)
    w.pipeline = pipeline and w.pipeline
    if setup is not None:
        setup(w)
    counts = {"solved": 0, "left": 0}
    call = world_module.contact_pipeline

    def counted(*a):
        out = call(*a)
        counts["solved" if out is not None else "left"] += 1
        return out

    world_module.contact_pipeline = counted
    try:
        rows = []
        for _ in range(steps):
            w.step(1)
            f = w.last.forces.reshape(-1)
            rows.append(np.concatenate([w.q, w.v, f, [w.last.iterations]]))
    finally:
        world_module.contact_pipeline = call
    return rows, dict(w.step_stats._max_residuals), counts


def _same(scene, steps, setup=None, **kw):
    a, ra, ca = _run(scene, True, steps, setup, **kw)
    b, rb, cb = _run(scene, False, steps, setup, **kw)
    assert cb["solved"] == cb["left"] == 0  # the stages alone
    assert len(a) == len(b)
    for k, (x, y) in enumerate(zip(a, b)):
        assert x.shape == y.shape and np.array_equal(x, y), f"step {k}: the compiled call differs from the stages"
    assert ra == rb
    return ca


def test_standing_hrp2_takes_the_compiled_call_with_the_stages_results_to_the_last_bit():
    """HRP-2 standing on 8 points from its first step (every contact new: the frictionless start
    of the new contacts in the call) for 600 steps: every step solved by the call."""
    counts = _same("flat", 600)
    assert counts == {"solved": 600, "left": 0}


def test_pushed_hrp2_on_16_points_gives_the_stages_results_to_the_last_bit():
    """16 points a step and a 60 N push on the chest for 0.2 s (the contacts move, some are lost
    and found again): the same bits."""

    def push(w):
        w.apply_wrench("CHEST_LINK1", force=(60.0, 20.0, 0.0), duration=0.2)

    counts = _same("flat", 500, push, patch_points=8)
    assert counts["solved"] == 500


def test_a_penetration_that_needs_a_split_solve_is_left_to_the_stages():
    """HRP-2 started 8 mm into the floor: the penetration's correction asks for a split solve
    (`humanoid_sim.stages.solve`), which the call leaves to the stages; once it is out, the call
    solves again. The same bits throughout."""

    def sink(w):
        w.q = w.q.copy()
        w.q[2] -= 0.008

    counts = _same("flat", 200, sink)
    assert counts["left"] >= 1 and counts["solved"] >= 100


def test_fem_soles_couple_between_the_two_calls_with_the_stages_results_to_the_last_bit():
    """HRP-2 on its FEM soles (8 ground nodes a sole, 3 x 1 x 2 cells: 16 node contacts): the
    soles' compliance coupled into W and J q̇_free between `contact_system` and `contact_solve`,
    their displacements updated after it, as the Delassus and solve stages do."""
    from humanoid_model import load_robot

    soles = [dataclasses.replace(s, resolution=(0.074, 0.13, 0.01)) for s in load_robot("hrp2").soles.values()]
    counts = _same("flat", 300, soles=soles)
    assert counts["solved"] >= 290


@pytest.mark.parametrize(
    "scene, kw",
    [("cube_stack", {}), ("flat", {"solver": "pinocchio_admm"}), ("flat", {"solver": "lemke_lcp"})],
    ids=["several bodies", "ADMM solver", "Lemke solver"],
)
def test_worlds_the_call_does_not_cover_run_the_stages(scene, kw):
    """Several mobile trees (collision groups), or a solver outside the Gauss-Seidel family: the
    World never takes the call."""
    w = World.from_scene(scene, dt=1e-3, **kw)
    assert w.pipeline is False
