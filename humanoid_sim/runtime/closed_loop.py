"""A robot controller in the loop of a `World`: each step the controller reads the measured state
and the measured contact forces, the world applies its torques, and the run's measurements are
logged (what an execution report needs: CoM, contact loads and their centres of pressure, friction
use, torque saturation, falls).

    loop = ClosedLoop(world, controller, locations={"l_sole": ..., "r_sole": ...})
    log = loop.run(duration=12.0, recorder=rec, progress=callback)
    log.t, log.com, log.cop_margin["l_sole"], log.fell, log.fall_reason

The controller is any object with ``update(t, q, v, contact_forces) -> command`` (or None: the
world's own actuator runs, a PD following a joint trajectory for instance) where ``q``
(nq,) and ``v`` (nv,) are the robot's configuration and velocity (the world's robot tree), and
``contact_forces`` maps each contact location to the measured normal force on its link [N] (the
sum over that link's contacts with anything but the robot: what a force sensor at the link's joint
measures of its contacts); the command has ``tau`` (the actuated joints' torques [N·m]) and
``solved`` (bool). The world's actuator is switched to torque mode.

Measurements per step (after the step, from its contacts):

- the robot's CoM (3,) and its base's position and tilt (the angle of its z axis to the vertical);
- per location: the normal force [N] along the location's normal on its link and the links that
  link carries (a hand and its jaw) and, when it carries at least
  `MIN_LOAD` of the robot's weight, the centre of pressure's signed distance to the edges of the
  location's surface (positive inside, [m], as `humanoid_model.planar_polygon.signed_distance`) and
  its force-to-cone ratio ‖f_t‖ / (μ f_n) of the resultant (1: on the friction cone's boundary:
  the location slides);
- the largest torque-to-limit ratio |τ_j| / τ_max,j of the applied torques.

A fall ends the run (``fell``, ``fall_reason``): the base tilted beyond `FALL_TILT`, its height
below `FALL_HEIGHT` of its start height above its lowest contact, or a robot link other than the
locations' links (and the ``allowed`` links) carrying at least `MIN_LOAD` of the weight on the
environment for `FALL_TOUCH` seconds (a knee on the floor; a finger grazing the table is not a
fall).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from humanoid_model.planar_polygon import convex_hull

__all__ = ["ClosedLoop", "ClosedLoopLog", "ContactMeasurement", "FALL_TILT", "FALL_HEIGHT", "FALL_TOUCH", "MIN_LOAD"]

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
    step_time: list = field(default_factory=list)
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
                "step_time",
            )
        }


def _carried_links(model, link: str) -> set:
    """``link`` and the links it carries (its descendants: a hand's jaw), by name."""
    fid = model.getFrameId(link)
    if fid >= model.nframes:
        return {link}
    root = model.frames[fid].parentJoint
    joints = {root}
    for j in range(root + 1, model.njoints):  # Pinocchio orders joints parents first
        if model.parents[j] in joints:
            joints.add(j)
    names = {f.name for f in model.frames if f.type == pin.FrameType.BODY and f.parentJoint in joints}
    return names | {link}


class ContactMeasurement:
    """What a force sensor at each contact location's link would read of the robot's contacts with
    its environment after a step of ``world`` (module docstring): ``locations`` name ->
    `humanoid_model.contact_location.ContactLocation`; ``allowed``: further links that may touch
    the environment. `read` after each step."""

    def __init__(self, world, locations: dict, allowed=()):
        if world.robot is None:
            from humanoid_model.exceptions import ConfigError

            raise ConfigError("contact measurement: the world has no robot")
        self.world = world
        self.locations = dict(locations)
        robot = world.robot
        self.model, self.nq = robot.model, robot.model.nq
        self.data = robot.model.createData()
        self.names = list(self.locations)
        self._carried = {n: _carried_links(robot.model, loc.body) for n, loc in self.locations.items()}
        self.allowed = set().union(*self._carried.values()) | set(allowed) if self._carried else set(allowed)
        # each mobile geometry's robot link as an index into self._links (-1: a free body's)
        self._links = sorted({g.body for g in world.mobile if g.tree == 0})
        index = {name: i for i, name in enumerate(self._links)}
        self._geom_link = np.array([index[g.body] if g.tree == 0 else -1 for g in world.mobile], np.int64)
        self._allowed_link = np.array([name in self.allowed for name in self._links] + [True])
        self._link_mask = {}  # location -> (n_links,) bool: its link and the links it carries
        for n in self.names:
            mask = np.zeros(len(self._links) + 1, bool)  # the last entry: "no link" (-1)
            mask[[index[b] for b in self._carried[n] if b in index]] = True
            self._link_mask[n] = mask
        self._fid = {n: robot.frame_id(loc.body) for n, loc in self.locations.items()}
        self._hulls = {}
        for n, loc in self.locations.items():  # each surface in its own plane: (origin, axes (3, 2), hull (k, 2))
            normal = np.asarray(loc.normal, float) / np.linalg.norm(loc.normal)
            t = np.asarray(loc.tangent, float)
            axes = np.column_stack([t, np.cross(normal, t)])
            pts = (np.asarray(loc.hull, float) - loc.point) @ axes
            hull = convex_hull(pts) if len(pts) >= 3 else None
            edges = None
            if hull is not None and len(hull) >= 3:
                e = np.roll(hull, -1, axis=0) - hull
                edges = (hull, e / np.linalg.norm(e, axis=1)[:, None])
            self._hulls[n] = (np.asarray(loc.point, float), axes, normal, edges)
        self.weight = robot.mass * float(np.linalg.norm(world.model.gravity.linear))
        self.forces = dict.fromkeys(self.names, 0.0)

    def read(self):
        """(CoM (3,), per location: normal force, CoP margin, cone ratio; the other links loaded on
        the environment) after the world's last step; ``forces`` keeps the normal forces."""
        q = self.world.q[: self.nq]
        com = pin.centerOfMass(self.model, self.data, q, False).copy()
        pin.updateFramePlacements(self.model, self.data)
        forces, margins, cones, others = self._contacts()
        self.forces = forces
        return com, forces, margins, cones, others

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
        link_a = self._geom_link[b.geom_a]  # each contact's robot link on each side (-1: none)
        link_b = np.where(b.b_static, -1, self._geom_link[np.where(b.b_static, 0, b.geom_b)])
        outer = (link_a >= 0) != (link_b >= 0)  # the robot against the environment
        if not outer.any():
            return forces, margins, cones, set()
        link = np.where(link_a >= 0, link_a, link_b)
        fn = last.forces[:, 0]
        stray = outer & ~self._allowed_link[link] & (fn > 0)  # other links on the environment, loaded
        others = set()
        if stray.any():
            load = np.bincount(link[stray], weights=fn[stray], minlength=len(self._links))
            others = {self._links[i] for i in np.flatnonzero(load >= MIN_LOAD * self.weight)}
        fw = None
        data = self.data
        for n in self.names:
            idx = np.flatnonzero(outer & self._link_mask[n][link])
            if idx.size == 0:
                continue
            if fw is None:
                fw = last.forces_world()
            M = data.oMf[self._fid[n]]
            origin, axes, normal, edges = self._hulls[n]
            sign = np.where(link_a[idx] >= 0, 1.0, -1.0)
            f = sign[:, None] * fw[idx]  # the forces on the location's links [N], world
            nw = M.rotation @ normal
            fz = f @ nw
            forces[n] = float(fz.sum())
            if forces[n] >= MIN_LOAD * self.weight:
                total = f.sum(axis=0)
                tangential = np.linalg.norm(total - (total @ nw) * nw)
                mu = float(np.mean(b.mu[idx]))
                cones[n] = float(tangential / (mu * forces[n])) if mu > 0 else 0.0
                if edges is not None:
                    local = ((b.points[idx] - M.translation) @ M.rotation - origin) @ axes  # in the surface's plane
                    cop = (fz @ local) / forces[n]
                    A, E = edges  # signed distance to the hull's edge lines (planar_polygon.signed_distance)
                    margins[n] = float(np.min(E[:, 0] * (cop[1] - A[:, 1]) - E[:, 1] * (cop[0] - A[:, 0])))
        return forces, margins, cones, others


class ClosedLoop:
    """``controller`` in the loop of ``world`` (module docstring). ``locations``: contact
    location name -> `humanoid_model.contact_location.ContactLocation` of the world's robot;
    ``allowed``: further robot links that may touch the environment without counting as a fall."""

    def __init__(self, world, controller, locations: dict, allowed=()):
        self.measurement = ContactMeasurement(world, locations, allowed)
        self.world, self.controller = world, controller
        robot = world.robot
        self.nq, self.nv = robot.model.nq, robot.model.nv
        self.names = self.measurement.names
        self.effort = np.asarray(robot.effort_max, float)
        if controller is not None:
            world.actuator.set_torque(np.zeros(world.n_act))
        self._touch_time = 0.0
        self.h0 = None

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
    def run(self, duration: float, recorder=None, progress=None, done=None, before_step=None) -> ClosedLoopLog:
        """Step ``duration`` [s] of closed loop (or until ``done()`` is true, or a fall). Each
        step: ``before_step(world)`` (a scripted push, say), ``controller.update``, its torques,
        `World.step`, ``recorder.maybe_record()`` (a `humanoid_sim.runtime.recording.Recorder`),
        the measurements, ``progress(t)`` every 100 steps."""
        w, meas = self.world, self.measurement
        log = ClosedLoopLog(self.names)
        steps = int(round(duration / w.dt))
        t_wall = time.perf_counter()
        _, forces, _, _, _ = meas.read()
        lows = [meas.data.oMf[meas._fid[n]].translation[2] for n in self.names]
        self._ground = min(lows) if lows else 0.0
        self.h0 = w.q[2] - self._ground
        for k in range(steps):
            if before_step is not None:
                before_step(w)
            cmd = None
            if self.controller is not None:
                q, v = w.q[: self.nq], w.v[: self.nv]
                cmd = self.controller.update(w.t, q.copy(), v.copy(), forces)
                w.actuator.set_torque(cmd.tau)
            t_step = time.perf_counter()
            w.step()
            step_time = time.perf_counter() - t_step
            if recorder is not None:
                recorder.maybe_record()
            q = w.q[: self.nq]
            com, forces, margins, cone, others = meas.read()
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
            log.step_time.append(step_time)
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
