"""Model error on the stairs: seed 0 of the five of `test.support.model_error` in `make test`, seeds
2 and 3 in `make test-long` (marker ``long``); seeds 1 and 4 in
test_execute_model_error_stairs_last_seeds.py, so that two test workers share them. Each seed is
a whole climb in closed loop (about 7 min of CPU on 2 shared cores, 2 min on a fast one), which is
why `make test` runs two of the five. The plan is the session's (test/conftest.py)."""

import pytest
from support.model_error import SEEDS, check_model_error_run


@pytest.mark.slow
@pytest.mark.parametrize("seed", [SEEDS[0], *(pytest.param(s, marks=pytest.mark.long) for s in SEEDS[2:4])])
def test_a_controller_with_every_mass_off_by_up_to_ten_percent_still_climbs(stairs_plan, seed):
    check_model_error_run(stairs_plan, seed)
