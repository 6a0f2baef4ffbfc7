"""The simulator's whole-body controller: a motion received at run time executed by
`humanoid_control.wbc` in the loop of a running simulation, as a ros2_control controller runs in
gz_ros2_control's simulated robot (the simulator node loads it beside its joint-trajectory and
forward controllers, docs/ros.md).

    motion = WholeBodyMotion(session.world, doc, "PLAN.json")   # refused in one line if it cannot run
    session.attach_controller(motion, motion.locations)        # every step: motion.update(...)
    motion.status()                                            # state, progress, reason
    motion.stop("operator")                                    # a safe hold

It reads what a robot gives: the joints' encoders and the base's odometry (q, v) and the normal
force on each contact location's link (a force sensor); it commands the joints' torques.
"""

from __future__ import annotations

import numpy as np

from humanoid_execution.run import RunSettings, controller_for

__all__ = ["WholeBodyMotion"]


class WholeBodyMotion:
    """A motion document ``doc`` (PLAN.json, WALK.json or GAIT.json, decoded; ``src`` names it)
    for the robot of ``world`` where it stands now (module docstring). ``id`` tags its status."""

    def __init__(self, world, doc: dict, src: str = "motion", settings: RunSettings | None = None, id: str = ""):
        self.controller, self.executor, self.reference = controller_for(world, doc, src, settings or RunSettings())
        self.id, self.src = str(id), src
        robot = world.robot
        used = sorted({ph.location for ph in self.reference.phases})
        self.locations = {n: robot.contact_locations[n] for n in used}
        self._t0 = self._t = None

    def update(self, t, q, v, contact_forces):
        """The command of one control period (`humanoid_control.wbc.executor.MotionExecutor.update`)."""
        if self._t0 is None:
            self._t0 = float(t)
        command = self.executor.update(t, q, v, contact_forces)
        self._t = float(t)
        return command

    def stop(self, reason: str = "stop requested") -> None:
        """A safe hold from the next period (the robot stands where it is)."""
        self.executor.stop(reason)

    def status(self) -> dict:
        """{id, source, state (tracking, waiting, done, holding), reason, time [s] along the
        reference, plan_time [s] along the file's own timing, stamp [s] (the simulated instant of
        that plan_time: the last update's; None before the first), duration and nominal_duration
        [s], late and early contacts}: what the robot bridge monitors (it compares the measured
        state of the instant ``stamp`` with the plan at ``plan_time``)."""
        ex, ref = self.executor, self.reference
        elapsed = min(float(ex.clock - ref.start), float(ref.duration))  # the executor's clock runs on after the end
        plan_time = float(np.interp(ex.clock, ref.t, ref.nominal_t) - ref.nominal_t[0])
        return {
            "id": self.id,
            "source": self.src,
            "state": ex.state,
            "reason": ex.reason,
            "time": elapsed,
            "plan_time": plan_time,
            "stamp": self._t,
            "duration": float(ref.duration),
            "nominal_duration": float(ref.nominal_duration),
            "late": [[n, float(w)] for n, w in ex.late_contacts],
            "early": [[n, float(w)] for n, w in ex.early_contacts],
        }
