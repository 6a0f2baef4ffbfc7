"""The model-error acceptance check shared by the execution tests (Escande 2008, §5.4.2): a plan
executed by a whole-body controller whose model has every body's mass off by a random factor
within +-10 % (`humanoid_execution.model_error`) succeeds without a fall. The simulator keeps the
true model; the controller believes the wrong one (its inverse dynamics, its CoM)."""

import pytest

from humanoid_execution.run import RunSettings, execute

ERROR = 0.1  # the acceptance item's +-10 %
SEEDS = range(5)  # the acceptance item's five seeds


def check_model_error_run(plan, seed: int) -> None:
    run = execute(plan, RunSettings(model_error=ERROR, seed=seed))
    print("\n".join(run.report.lines()[:4]))
    believed = [i.mass for i in run.executor.ctrl.model.inertias]
    true = [i.mass for i in run.world.robot.model.inertias]
    assert believed != pytest.approx(true, rel=0.01)  # the controller does run on the wrong masses
    assert run.report.success, run.report.reason
