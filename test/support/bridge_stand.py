"""The robot bridge's executor on a two-joint robot without DDS: fake clocks, a recorder of what
would reach the controller, a rest-to-rest motion (test_bridge_executor.py, test_bridge_whole_body.py)."""

import numpy as np

from humanoid_control.bridge import BridgeExecutor, ExecutorSettings, JointLimits, Trajectory, sample

NAMES = ["a", "b"]
TIMEOUT = 0.2  # [s] the watchdog in these tests (the node's default)


class FakeClock:
    """A clock the test advances by hand [s]."""

    def __init__(self, t=100.0):
        self.t = t

    def __call__(self):
        return self.t

    def advance(self, dt):
        self.t += dt


class Recorder:
    """The executor's outputs, recorded in order: (kind, payload)."""

    def __init__(self, mode="joint_trajectory"):
        self.mode = mode
        self.events = []

    def send_mode(self):
        return self.mode

    def send(self, execution):
        self.events.append(("send", execution))

    def command(self, positions):
        self.events.append(("command", dict(positions)))

    def hold(self, positions):
        self.events.append(("hold", dict(positions)))

    def cancel(self, execution):
        self.events.append(("cancel", execution))

    def log(self, level, text):
        self.events.append(("log", (level, text)))

    def diagnose(self, level, text, values=None):
        self.events.append(("diagnose", (level, text, values)))

    def of(self, kind):
        return [p for k, p in self.events if k == kind]

    def sent(self):
        """Everything that would reach the controller."""
        return [(k, p) for k, p in self.events if k in ("send", "command", "hold", "cancel")]


class Stand:
    """An executor with its recorder, its motion clock and its steady clock."""

    def __init__(self, mode="joint_trajectory", **settings):
        self.clock, self.steady = FakeClock(100.0), FakeClock(5.0)
        self.out = Recorder(mode)
        limits = JointLimits(NAMES, [-1.0, -1.0], [1.0, 1.0], [1.0, 1.0], [10.0, 10.0])
        self.ex = BridgeExecutor(
            limits,
            self.out,
            clock=self.clock,
            steady=self.steady,
            settings=ExecutorSettings(state_timeout=TIMEOUT, **settings),
            state_name="/joint_states",
            controller="jtc",
        )

    def measure(self, a=0.0, b=0.0):
        self.ex.measure(NAMES, [a, b])

    def advance(self, dt, measured=None):
        """Both clocks advance by dt; then a measurement (positions by name) if given."""
        self.clock.advance(dt)
        self.steady.advance(dt)
        if measured is not None:
            self.ex.measure(list(measured), list(measured.values()))


def motion(start=(0.0, 0.0), goal=(0.2, -0.1), duration=1.0):
    """A cubic rest-to-rest motion of both joints (peak 0.3 rad/s, 1.2 rad/s^2: within the limits)."""
    return Trajectory(NAMES, [0.0, duration], [start, goal], velocities=np.zeros((2, 2)), source="test")


def followed(traj, t):
    return dict(zip(traj.joint_names, sample(traj, min(t, traj.duration))))
