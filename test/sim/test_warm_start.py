"""Warm start of the contact solve (`humanoid_sim.stages.warm_start`; our addition, docs/simulator.md
"Warm start"): a contact reuses last step's force of the same body pair's nearest point within
WARM_MATCH = 2 mm, and on HRP-2 standing the warm start at least halves the solver's sweeps
(the thesis warm-starts its Newton solves from the previous step, Chardonnet 2009, §3.1.4.2)."""

import numpy as np
import pytest

from humanoid_sim.solvers import SolverSettings
from humanoid_sim.stages.warm_start import WARM_MATCH, WarmStart
from humanoid_sim.world import World


def test_warm_start_matches_by_pair_and_point_within_two_millimetres():
    ws = WarmStart()
    keys = np.array([7, 7, 9], np.int64)
    local = np.array([[0.0, 0, 0], [0.1, 0, 0], [0.0, 0, 0]])
    forces = np.array([[1.0, 0, 0], [2.0, 0, 0], [3.0, 0, 0]])
    warm, hit, new = ws.lookup(keys, local)
    assert new and not hit.any() and not warm.any()  # nothing remembered yet
    ws.remember(keys, forces, local)
    moved = np.array([[0.1 + 0.9 * WARM_MATCH, 0, 0], [0.0, 0.5e-3, 0], [0.0, 0, 0], [0.05, 0, 0]])
    warm, hit, new = ws.lookup(np.array([7, 7, 8, 7], np.int64), moved)
    assert hit.tolist() == [True, True, False, False] and new  # other key; 5 cm from both points
    np.testing.assert_array_equal(warm[:, 0], [2.0, 1.0, 0.0, 0.0])  # nearest point of the same pair
    cold = WarmStart(enabled=False)
    cold.remember(keys, forces, local)
    warm, hit, new = cold.lookup(keys, local)
    assert hit.all() and not new and not warm.any()  # matched, but started from zero


@pytest.mark.spec("000", "B6")
def test_warm_start_halves_the_solver_iterations_of_hrp2_standing():
    """2 s of HRP-2 standing, total solver
    sweeps with warm start <= 50 % of cold start; both runs stop on the same true-residual
    thresholds (the solver's defaults) and every solve converged."""
    s = SolverSettings()
    runs = {}
    for warm in (True, False):
        w = World.from_scene("flat", warm_start=warm)
        w.step(2000)
        st = w.stats()
        assert st["unconverged_solves"] == 0
        assert st["max_residuals"]["complementarity"] <= s.tol_complementarity
        assert st["max_residuals"]["penetration"] <= s.tol_penetration
        assert st["max_residuals"]["cone"] <= s.tol_cone
        runs[warm] = st["iterations_total"]
    assert runs[True] <= 0.5 * runs[False]
