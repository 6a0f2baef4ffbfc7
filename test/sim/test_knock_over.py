"""Object knock-over repeatability (the thesis's sim-vs-real comparison, Chardonnet 2009, §5.1.1,
replayed in simulation only): HRP-2 on a platform knocks over an object standing on a table
(`config/scenes/knock_over.yaml`: the right arm swings into it); the object topples, falls onto
the table and slides. Its sliding distance after falling must be repeatable within 2 mm, the
thesis's sim-vs-real gap, across solver tolerances ε ∈ {1e-3, 1e-4, 1e-5}.

ε is the thesis's Gauss-Seidel stopping tolerance (eq. (3.34); the thesis gives no value):
here every stopping threshold of `SolverSettings` that the run's convergence depends on, the
relative change ``tol_rel`` and the complementarity and penetration residuals (as the simulator
node's ``solver_tolerance``). The three runs share the 0.5 s before the hand meets the object
(one run, its `get_state` snapshot restored into the other two worlds: the standing robot's steps
differ only by rounding there); from there each runs 0.42 s with its own ε. "After falling" =
from the first step at which the object lies (tilt > 80°) on the table to rest.
"""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_sim.solvers import SolverSettings
from humanoid_sim.world import World

EPSILONS = (1e-3, 1e-4, 1e-5)
SHARED, RUN = 500, 420  # [steps of 1 ms] before the hand meets the object (0.56 s), after (lands 0.82 s, rests 0.88 s)


def _tilt(w) -> float:
    b = w.body_state("object")
    R = pin.Quaternion(b.quaternion[3], *b.quaternion[:3]).toRotationMatrix()
    return float(np.degrees(np.arccos(np.clip(R[2, 2], -1.0, 1.0))))


@pytest.fixture(scope="module")
def knocked():
    worlds = {
        e: World.from_scene(
            "knock_over", solver_settings=SolverSettings(tol_rel=e, tol_complementarity=e, tol_penetration=e)
        )
        for e in EPSILONS
    }
    first = worlds[EPSILONS[0]]
    first.step(SHARED)
    start = first.body_state("object").position.copy()
    snapshot = first.get_state()
    out = {}
    for e, w in worlds.items():
        if w is not first:
            w.set_state(snapshot)
        landed = None
        for _ in range(RUN):
            w.step()
            if landed is None and _tilt(w) > 80:  # lying: its side is on the table (0.7 m; checked at rest)
                landed = w.body_state("object").position.copy()
        rest = w.body_state("object")
        out[e] = {
            "start": start,
            "landed": landed,
            "rest": rest.position.copy(),
            "speed": np.linalg.norm(rest.linear_velocity),
        }
    return out


@pytest.mark.spec("000", "F5")
def test_the_object_topples_onto_the_table_and_slides(knocked):
    for r in knocked.values():
        assert r["landed"] is not None  # it fell over onto the table ...
        assert r["speed"] < 1e-6 and abs(r["rest"][2] - (0.70 + 0.025)) < 1e-4  # ... and lies at rest on its side
        assert 0.01 < np.linalg.norm((r["rest"] - r["landed"])[:2]) < 0.05  # it slid (measured 17.9 mm)


@pytest.mark.spec("000", "F5")
def test_sliding_distance_repeatable_within_2_mm_across_solver_tolerances(knocked):
    slides = [np.linalg.norm((r["rest"] - r["landed"])[:2]) for r in knocked.values()]
    travel = [np.linalg.norm((r["rest"] - r["start"])[:2]) for r in knocked.values()]
    assert max(slides) - min(slides) < 2e-3  # the thesis's 2 mm sim-vs-real gap, §5.1.1 (measured 2.5e-6 m)
    assert max(travel) - min(travel) < 2e-3  # the whole displacement too (measured 1.3e-5 m)
