"""Model error on the stairs: the first three of the five seeds of `test.support.model_error`
(~120 s of closed loop each; the other two in test_execute_model_error_stairs_last_seeds.py, so
that two test workers share them). The plan is the session's (test/conftest.py)."""

import pytest
from support.model_error import SEEDS, check_model_error_run


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS[:3])
def test_a_controller_with_every_mass_off_by_up_to_ten_percent_still_climbs(stairs_plan, seed):
    check_model_error_run(stairs_plan, seed)
