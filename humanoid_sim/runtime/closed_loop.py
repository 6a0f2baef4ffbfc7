"""A robot controller in the loop of a `World`: each step the controller reads the measured state
and the measured contact forces, the world applies its torques, and the run's measurements are
logged (what an execution report needs: CoM, contact loads and their centres of pressure, friction
use, torque saturation, falls).

    loop = ClosedLoop(world, controller, locations={"l_sole": ..., "r_sole": ...})
    log = loop.run(duration=12.0, recorder=rec, progress=callback)
    log.t, log.com, log.cop_margin["l_sole"], log.fell, log.fall_reason

The controller is any object with ``update(t, q, v, contact_forces) -> command`` where ``q``
(nq,) and ``v`` (nv,) are the robot's configuration and velocity (the world's robot tree), and
``contact_forces`` maps each contact location to the measured normal force on its link [N] (the
sum over that link's contacts with anything but the robot: what a force sensor at the link's joint
measures of its contacts); the command has ``tau`` (the actuated joints' torques [N·m]) and
``solved`` (bool). The world's actuator is switched to torque mode.

Measurements per step (after the step, from its contacts):

- the robot's CoM (3,) and its base's position and tilt (the angle of its z axis to the vertical);
- per location: the normal force [N] along the location's normal and, when it carries at least
  `MIN_LOAD` of the robot's weight, the centre of pressure's signed distance to the edges of the
  location's surface (positive inside, [m], `humanoid_model.planar_polygon.signed_distance`) and
  its force-to-cone ratio ‖f_t‖ / (μ f_n) of the resultant (1: on the friction cone's boundary:
  the location slides);
- the largest torque-to-limit ratio |τ_j| / τ_max,j of the applied torques.

A fall ends the run (``fell``, ``fall_reason``): the base tilted beyond `FALL_TILT`, its height
below `FALL_HEIGHT` of its start height above its lowest contact, or a robot link other than the
locations' links (``allowed`` links) touching the environment for `FALL_TOUCH` seconds.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from humanoid_model.planar_polygon import convex_hull, signed_distance

__all__ = ["ClosedLoop", "ClosedLoopLog", "FALL_TILT", "FALL_HEIGHT", "FALL_TOUCH", "MIN_LOAD"]

FALL_TILT = math.radians(60.0)  # (chosen) a base tilted more has fallen (the plans' bases lean < 30 deg)
FALL_HEIGHT = 0.5  # (chosen) a base lower than half its start height has fallen (HRP-2 kneels at ~0.6)
FALL_TOUCH = 0.05  # [s] (chosen) a link outside the motion's contacts touching this long: a fall, not a graze
MIN_LOAD = 0.1  # (chosen) of the weight: a location carrying less does not hold the robot (a foot touching down)


@dataclass
class ClosedLoopLog:
    """The measurements of a run, one row per step (module docstring); ``locations`` the names
    of ``forces`` and ``cop_margin`` columns (NaN where a location carries less than MIN_LOAD)."""

    locations: list
    t: list = field(default_factory=list)
    com: list = field(default_factory=list)
    base: list = field(default_factory=list)
    tilt: list = field(default_factory=list)
    forces: list = field(default_factory=list)
    cop_margin: list = field(default_factory=list)
    cone_ratio: list = field(default_factory=list)  # per location
    torque_ratio: list = field(default_factory=list)
    solved: list = field(default_factory=list)
    cycle_time: list = field(default_factory=list)
    fell: bool = False
    fall_reason: str = ""
    wall_time: float = 0.0

    def arrays(self) -> dict:
        """The logged columns as numpy arrays."""
        return {
            k: np.asarray(getattr(self, k))
            for k in (
                "t",
                "com",
                "base",
                "tilt",
                "forces",
                "cop_margin",
                "cone_ratio",
                "torque_ratio",
                "solved",
                "cycle_time",
            )
        }


class ClosedLoop:
    """``controller`` in the loop of ``world`` (module docstring). ``locations``: contact
    location name -> `humanoid_model.contact_location.ContactLocation` of the world's robot;
    ``allowed``: further robot links that may touch the environment without counting as a fall."""

    def __init__(self, world, controller, locations: dict, allowed=()):
        if world.robot is None:
            from humanoid_model.exceptions import ConfigError

            raise ConfigError("closed loop: the world has no robot to control")
        self.world, self.controller = world, controller
        self.locations = dict(locations)
        robot = world.robot
        self.nq, self.nv = robot.model.nq, robot.model.nv
        self.data = robot.model.createData()
        self.names = list(self.locations)
        self.link_of = {n: loc.body for n, loc in self.locations.items()}
        self.allowed = set(self.link_of.values()) | set(allowed)
        self.robot_links = {g.body for g in world.mobile if g.tree == 0}
        self._fid = {n: robot.frame_id(loc.body) for n, loc in self.locations.items()}
        self._hulls = {}
        for n, loc in self.locations.items():  # each surface in its own plane: (origin, axes (3, 2), hull (k, 2))
            normal = np.asarray(loc.normal, float) / np.linalg.norm(loc.normal)
            t = np.asarray(loc.tangent, float)
            axes = np.column_stack([t, np.cross(normal, t)])
            pts = (np.asarray(loc.hull, float) - loc.point) @ axes
            self._hulls[n] = (np.asarray(loc.point, float), axes, normal, convex_hull(pts) if len(pts) >= 3 else None)
        self.effort = np.asarray(robot.effort_max, float)
        self.weight = robot.mass * float(np.linalg.norm(world.model.gravity.linear))
        world.actuator.set_torque(np.zeros(world.n_act))
        self._touch_time = 0.0
        self.h0 = None

    # ------------------------------------------------------------------ measurements
    def _contacts(self):
        """(per location: normal force, CoP margin, cone ratio; the other links touching)."""
        w = self.world
        forces = dict.fromkeys(self.names, 0.0)
        margins = dict.fromkeys(self.names, np.nan)
        cones = dict.fromkeys(self.names, np.nan)
        last = w.last
        if last is None or last.m == 0:
            return forces, margins, cones, set()
        b = last.batch
        fw = last.forces_world()
        fn = last.forces[:, 0]
        mobile = w.mobile
        links_a = [mobile[g].body for g in b.geom_a]
        links_b = [None if s else mobile[g].body for g, s in zip(b.geom_b, b.b_static)]
        others = set()
        per_link: dict[str, list[int]] = {}
        for k in range(b.m):
            a, bb = links_a[k], links_b[k]
            robot_a, robot_b = a in self.robot_links, bb in self.robot_links
            if robot_a and robot_b:
                continue  # the robot against itself
            link = a if robot_a else bb
            if link is None or link not in self.robot_links:
                continue
            per_link.setdefault(link, []).append(k)
            if link not in self.allowed and fn[k] > 0:
                others.add(link)
        data = self.data
        for n in self.names:
            idx = per_link.get(self.link_of[n])
            if not idx:
                continue
            M = data.oMf[self._fid[n]]
            origin, axes, normal, hull = self._hulls[n]
            sign = [1.0 if links_a[k] == self.link_of[n] else -1.0 for k in idx]
            f = np.array(sign)[:, None] * fw[idx]  # the forces on the location's link [N], world
            nw = M.rotation @ normal
            fz = f @ nw
            forces[n] = float(fz.sum())
            if forces[n] >= MIN_LOAD * self.weight:
                total = f.sum(axis=0)
                tangential = np.linalg.norm(total - (total @ nw) * nw)
                mu = float(np.mean(b.mu[idx]))
                cones[n] = float(tangential / (mu * forces[n])) if mu > 0 else 0.0
                if hull is not None:
                    local = ((b.points[idx] - M.translation) @ M.rotation - origin) @ axes  # in the surface's plane
                    cop = (fz @ local) / fz.sum()
                    margins[n] = float(signed_distance(hull, cop))
        return forces, margins, cones, others

    def _fall(self, log, base, tilt, others) -> str:
        if tilt > FALL_TILT:
            return f"the base tilted {math.degrees(tilt):.0f} deg (more than {math.degrees(FALL_TILT):.0f})"
        if self.h0 is not None and base[2] - self._ground < FALL_HEIGHT * self.h0:
            return f"the base dropped to {base[2]:.3f} m (below {FALL_HEIGHT:g} of its start height)"
        if others:
            self._touch_time += self.world.dt
            if self._touch_time >= FALL_TOUCH:
                return f"{sorted(others)} touched the environment"
        else:
            self._touch_time = 0.0
        return ""

    # ------------------------------------------------------------------ run
    def run(self, duration: float, recorder=None, progress=None, done=None) -> ClosedLoopLog:
        """Step ``duration`` [s] of closed loop (or until ``done()`` is true, or a fall). Each
        step: measurements, ``controller.update``, torques, `World.step`, ``recorder.maybe_record()``
        (a `humanoid_sim.runtime.recording.Recorder`), ``progress(t)`` every 100 steps."""
        w, robot = self.world, self.world.robot
        log = ClosedLoopLog(self.names)
        steps = int(round(duration / w.dt))
        t_wall = time.perf_counter()
        pin.framesForwardKinematics(robot.model, self.data, w.q[: self.nq])
        forces, margins, cone, others = self._contacts()
        lows = [self.data.oMf[self._fid[n]].translation[2] for n in self.names]
        self._ground = min(lows) if lows else 0.0
        self.h0 = w.q[2] - self._ground
        for k in range(steps):
            q, v = w.q[: self.nq], w.v[: self.nv]
            cmd = self.controller.update(w.t, q.copy(), v.copy(), forces)
            w.actuator.set_torque(cmd.tau)
            w.step()
            if recorder is not None:
                recorder.maybe_record()
            q = w.q[: self.nq]
            com = pin.centerOfMass(robot.model, self.data, q, False).copy()
            pin.updateFramePlacements(robot.model, self.data)
            forces, margins, cone, others = self._contacts()
            R = pin.Quaternion(q[6], q[3], q[4], q[5]).toRotationMatrix()
            tilt = math.acos(max(-1.0, min(1.0, R[2, 2])))
            log.t.append(w.t)
            log.com.append(com)
            log.base.append(q[:3].copy())
            log.tilt.append(tilt)
            log.forces.append([forces[n] for n in self.names])
            log.cop_margin.append([margins[n] for n in self.names])
            log.cone_ratio.append([cone[n] for n in self.names])
            log.torque_ratio.append(float(np.max(np.abs(w.tau_applied) / self.effort)) if self.effort.size else 0.0)
            log.solved.append(bool(getattr(cmd, "solved", True)))
            log.cycle_time.append(float(getattr(cmd, "cycle_time", 0.0)))
            reason = self._fall(log, q[:3], tilt, others)
            if reason:
                log.fell, log.fall_reason = True, f"fell at t = {w.t:.3f} s: {reason}"
                break
            if progress is not None and k % 100 == 0:
                progress(w.t)
            if done is not None and done():
                break
        log.wall_time = time.perf_counter() - t_wall
        return log
