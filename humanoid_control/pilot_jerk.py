"""An optional jerk-limited filter on the pilot's command stream (Ruckig's online mode, the
``ruckig`` package), after `humanoid_control.pilot_limits.StepLimiter`.

The step limiter keeps every cycle's step within the joints' speed and acceleration limits, but
the acceleration may jump from one cycle to the next (a slider dragged, a target set: full
acceleration at once). With the filter on, each cycle the limited configuration's joint positions
become the target of a time-optimal move within the speed limits, the acceleration limit and the
jerk limit, from the filter's own state (position, velocity, acceleration), and the command sent is
that move's state one cycle later. The target is reached at rest: a step command is followed by
an S-curve that settles exactly on it; a command moving steadily is followed at its speed, a
little behind. The session's solver keeps its own configuration: the filter only shapes what is
sent, as MoveIt Servo's smoothing plugins do. While it catches up, the commands are not the
solved configuration, so a closure (a welded foot) holds only to the lag; and a filtered joint
may pass its commanded limit by its overshoot when a command reverses faster than the jerk
allows.
"""

from __future__ import annotations

import numpy as np

from humanoid_control.exceptions import KinematicsError
from humanoid_control.pilot_limits import speed_limits

__all__ = ["JerkFilter", "PILOT_JERK", "UNBOUNDED"]

#: [rad/s³] or [m/s³] (chosen) jerk limit of the filter: the pilot's acceleration limit
#: (`pilot_limits.ACCELERATION`, 10 rad/s²) is reached in 0.1 s, and so ramped over 2.5 cycles of
#: the pilot's 25 Hz rather than stepped; the robot bridge's jerk-limited approach takes the same
#: number (`humanoid_control.bridge.settings.APPROACH_JERK`)
PILOT_JERK = 100.0
#: [rad/s] (chosen) the speed given to Ruckig for a joint without a URDF limit: finite, far beyond
#: any joint
UNBOUNDED = 1e3


class JerkFilter:
    """Ruckig's online mode over the 1-DOF joints of a structure (module docstring): ``update``
    once per cycle of ``dt`` [s]. ``v_max`` (n,) [rad/s] (inf: `UNBOUNDED`), ``a_max`` and
    ``j_max`` numbers [rad/s², rad/s³]; ``iq`` (n,) the joints' indices in a configuration."""

    def __init__(self, iq, v_max, a_max: float, j_max: float, dt: float):
        from ruckig import InputParameter, OutputParameter, Ruckig

        self.iq = np.asarray(iq, dtype=int)
        n = self.iq.size
        self.dt = float(dt)
        self.otg, self.inp, self.out = Ruckig(n, self.dt), InputParameter(n), OutputParameter(n)
        v = np.asarray(v_max, float)
        self.inp.max_velocity = np.where(np.isfinite(v), v, UNBOUNDED).tolist()
        self.inp.max_acceleration = [float(a_max)] * n
        self.inp.max_jerk = [float(j_max)] * n
        self.inp.target_velocity = self.inp.target_acceleration = [0.0] * n
        self.positions = np.zeros(n)

    @classmethod
    def for_structure(cls, structure, a_max: float, j_max: float, rate: float) -> JerkFilter:
        """The filter of ``structure``'s 1-DOF joints (its ``joint_names`` order) at ``rate`` [Hz],
        their URDF speed limits (`speed_limits`)."""
        if not (np.isfinite(j_max) and j_max > 0):
            raise KinematicsError(f"pilot: field 'jerk' must be a finite number > 0 [rad/s³]; value {j_max!r}")
        idx = [structure.joint_index(n) for n in structure.joint_names]
        v = speed_limits(structure)[[iv for _, iv in idx]]
        return cls([iq for iq, _ in idx], v, a_max, j_max, 1.0 / rate)

    def reset(self, q) -> None:
        """At rest at the joint positions of configuration ``q``."""
        n = self.iq.size
        self.positions = np.asarray(q, float)[self.iq].copy()
        self.inp.current_position = self.positions.tolist()
        self.inp.current_velocity = self.inp.current_acceleration = [0.0] * n

    def update(self, q) -> np.ndarray:
        """The joint positions (n,) to command this cycle toward the joint positions of
        configuration ``q``; the last command again when Ruckig answers an error."""
        from ruckig import Result

        self.inp.target_position = np.asarray(q, float)[self.iq].tolist()
        if self.otg.update(self.inp, self.out) in (Result.Working, Result.Finished):
            self.out.pass_to_input(self.inp)
            self.positions = np.array(self.out.new_position)
        return self.positions.copy()

    @property
    def velocities(self) -> np.ndarray:
        """(n,) the filter's joint velocities [rad/s] after the last update."""
        return np.array(self.inp.current_velocity)
