"""Model error on the stairs: seed 1 of the five of `test.support.model_error` in `make test`, seed 4
in `make test-long` (marker ``long``); the others in test_execute_model_error_stairs.py. The plan
is the session's (test/conftest.py)."""

import pytest
from support.model_error import SEEDS, check_model_error_run


@pytest.mark.slow
@pytest.mark.parametrize("seed", [SEEDS[1], pytest.param(SEEDS[4], marks=pytest.mark.long)])
def test_a_controller_with_every_mass_off_by_up_to_ten_percent_still_climbs(stairs_plan, seed):
    check_model_error_run(stairs_plan, seed)
