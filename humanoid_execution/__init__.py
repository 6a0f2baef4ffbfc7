"""humanoid_execution: motions executed in closed loop, a controller of `humanoid_control` in the
loop of a `humanoid_sim` world (docs/execution.md). The one layer that joins the simulator and
the controllers: the `execute` command, the simulator node's whole-body controller and the tests
run motions through it.

- `run`: `execute(motion, RunSettings)` -> `Execution` (report, log, world), `prepare`;
- `model_error`: a model with wrong masses (`perturbed_masses`);
- `lateral`: a sagittal gait (GAIT.json) walked in 3-D: its start, stances, lateral sway, swing lift.
"""
