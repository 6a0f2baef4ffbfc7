"""Model error on the flat walk (0.8 m): the five seeds of `test.support.model_error`
(~25 s of closed loop each). The flat walk and the stairs are separate files so that two test
workers run them side by side. The plan is the session's (test/conftest.py)."""

import pytest
from support.model_error import SEEDS, check_model_error_run


@pytest.mark.slow
@pytest.mark.parametrize("seed", SEEDS)
def test_a_controller_with_every_mass_off_by_up_to_ten_percent_still_succeeds(flat_plan, seed):
    check_model_error_run(flat_plan, seed)
