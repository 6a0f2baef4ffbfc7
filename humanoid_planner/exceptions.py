"""Exceptions of the planner package (all `humanoid_model.exceptions.HumanoidStackError`).

`PlanningError` is the package's error: an infeasible or malformed planning request. It is
defined in `humanoid_model.exceptions` because the gait node, the command line and the control
package raise it too, and `humanoid_model` cannot re-export from a package above it; planner code
imports it from here.
"""

from humanoid_model.exceptions import PlanningError

__all__ = ["PlanningError"]
