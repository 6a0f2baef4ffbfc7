"""Sensors (Chardonnet 2009, §5.1.2.2): force/torque sensors, IMU, joint
encoders, centre of pressure per foot and ZMP.

    s = Sensors(world)            # after world.step()
    s.force_torque()["r_ankle"]   # (force (3,), torque (3,)) in the sensor frame [N], [N·m]

Readings refer to the step just taken: its start configuration qᵗ and velocity q̇ᵗ, the
acceleration (q̇ᵗ⁺¹ − q̇ᵗ)/dt over it and its contact forces.

* **F/T** (hrp2.yaml ``sensors.force_torque``: ``frame``, ``body``): the raw wrench is the one
  transmitted through the parent joint of ``body`` (the force of the parent side on the
  sub-tree beyond it, as in test_hrp2_model's wrist-sensor check), from Pinocchio's RNEA with the contact
  forces as external forces, expressed in the sensor frame. Sensor model (eqs. (5.3)–(5.6)):
  output = G (raw + f_d) + noise, with the calibration gain G (6×6, identity by default), the
  offset f_d (6,) (zero by default) and Gaussian noise of standard deviation ``noise`` (6,)
  (zero by default). The thesis gives no values (Chardonnet 2009, §5.1.2.2).
* **IMU** (``sensors.imu.frame``): orientation (quaternion xyzw of the frame in the world),
  angular velocity and proper linear acceleration (a − g), both in the IMU frame.
* **Encoders**: joint positions and velocities at the end of the step, optionally quantised
  to ``resolution`` [rad] (none by default).
* **CoP** of each foot (sole contact locations): Σ f_z p / Σ f_z over the contacts on the foot
  link, world frame (None when the foot carries < ``MIN_LOAD``); **ZMP**: the same over both
  feet (flat ground: the point where the horizontal moment of the contact forces vanishes).
"""

from __future__ import annotations

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import ConfigError

__all__ = ["Sensors", "ForceTorqueModel", "MIN_LOAD"]

MIN_LOAD = 1.0  # [N] a foot carrying less has no CoP (chosen)


class ForceTorqueModel:
    """output = G (raw + offset) + noise (Chardonnet 2009, eqs. (5.3)–(5.6)); raw is (force, torque) (6,)."""

    def __init__(self, gain=None, offset=None, noise=None, seed: int = 0):
        self.G = np.eye(6) if gain is None else np.asarray(gain, float).reshape(6, 6)
        self.offset = np.zeros(6) if offset is None else np.asarray(offset, float).reshape(6)
        self.noise = np.zeros(6) if noise is None else np.asarray(noise, float).reshape(6)
        if not (np.all(np.isfinite(self.G)) and np.all(np.isfinite(self.offset)) and np.all(self.noise >= 0)):
            raise ConfigError("sensor model: fields 'gain'/'offset' must be finite and 'noise' >= 0")
        self.rng = np.random.default_rng(seed)

    def __call__(self, raw):
        out = self.G @ (np.asarray(raw, float) + self.offset)
        if np.any(self.noise > 0):
            out = out + self.rng.normal(scale=self.noise)
        return out


class Sensors:
    """Sensor readings of a `World` with a robot (see the module docstring)."""

    def __init__(self, world, models: dict[str, ForceTorqueModel] | None = None, resolution: float = 0.0):
        if world.robot is None:
            raise ConfigError("sensors: the world has no robot")
        self.world = world
        self.model = world.model
        self.data = world.model.createData()
        spec = world.robot.sensors or {}
        self.ft = {}
        for name, s in (spec.get("force_torque") or {}).items():
            fid = self.model.getFrameId(s["frame"])
            bid = self.model.getFrameId(s["body"])
            self.ft[name] = (fid, self.model.frames[bid].parentJoint)
        self.models = models or {}
        imu = spec.get("imu")
        self.imu_frame = self.model.getFrameId(imu["frame"]) if imu else None
        self.resolution = float(resolution)
        self.feet = {}
        for c in world.robot.contact_locations.values():
            if c.kind == "sole":
                self.feet[c.name] = c.body

    # ------------------------------------------------------------------ dynamics of the step
    def _external_forces(self):
        w = self.world
        fext = [pin.Force.Zero() for _ in range(self.model.njoints)]
        if w.last is None or w.last.batch.m == 0:
            return fext
        b = w.last.batch
        pts, F = w.contact_forces_world()
        oMi = self.data.oMi
        for k in range(b.m):
            A = w.mobile[b.geom_a[k]]
            sides = [(A, 1.0)]
            if not b.b_static[k]:
                sides.append((w.mobile[b.geom_b[k]], -1.0))
            for g, sgn in sides:
                if g.tree != 0:
                    continue
                f = sgn * F[k]
                fw = pin.Force(f, np.cross(pts[k], f))
                fext[g.joint] = fext[g.joint] + oMi[g.joint].actInv(fw)
        return fext

    def _rnea(self):
        w = self.world
        q, v = w.q_start, w.v_start
        a = (w.v - v) / w.dt
        pin.forwardKinematics(self.model, self.data, q, v, a)
        fext = self._external_forces()
        pin.rnea(self.model, self.data, q, v, a, pin.StdVec_Force(fext))
        pin.updateFramePlacements(self.model, self.data)
        return a

    # ------------------------------------------------------------------ readings
    def force_torque(self) -> dict[str, tuple]:
        """name -> (force (3,), torque (3,)) in the sensor frame, after the sensor model."""
        self._rnea()
        out = {}
        for name, (fid, jid) in self.ft.items():
            f = self.model.frames[fid].placement.actInv(self.data.f[jid])
            raw = np.concatenate([f.linear, f.angular])
            val = self.models[name](raw) if name in self.models else raw
            out[name] = (val[:3], val[3:])
        return out

    def imu(self) -> dict | None:
        """IMU reading (orientation xyzw, angular velocity [rad/s] and proper acceleration [m/s²] in
        the IMU frame), or None when the robot has no IMU."""
        if self.imu_frame is None:
            return None
        self._rnea()
        m, d, fid = self.model, self.data, self.imu_frame
        R = d.oMf[fid].rotation
        vel = pin.getFrameVelocity(m, d, fid, pin.LOCAL)
        acc = pin.getFrameClassicalAcceleration(m, d, fid, pin.LOCAL)
        proper = acc.linear - R.T @ np.asarray(m.gravity.linear)
        return {
            "orientation": pin.Quaternion(R).coeffs().copy(),
            "angular_velocity": vel.angular.copy(),
            "linear_acceleration": proper,
        }

    def encoders(self):
        """(joint positions [rad], quantised to ``resolution`` if > 0, joint velocities [rad/s])."""
        st = self.world.state
        q = st.joint_positions
        if self.resolution > 0:
            q = np.round(q / self.resolution) * self.resolution
        return q, st.joint_velocities

    def _foot_forces(self):
        w = self.world
        out = {name: [] for name in self.feet}
        if w.last is None or w.last.batch.m == 0:
            return out
        b = w.last.batch
        pts, F = w.contact_forces_world()
        for k in range(b.m):
            link = w.mobile[b.geom_a[k]].body
            for name, body in self.feet.items():
                if link == body and w.mobile[b.geom_a[k]].tree == 0:
                    out[name].append((pts[k], F[k]))
        return out

    def cop(self) -> dict[str, np.ndarray | None]:
        """Centre of pressure of each foot (world) [m], or None when unloaded."""
        res = {}
        for name, items in self._foot_forces().items():
            fz = sum(f[2] for _, f in items) if items else 0.0
            res[name] = None if fz < MIN_LOAD else sum(f[2] * p for p, f in items) / fz
        return res

    def zmp(self) -> np.ndarray | None:
        """ZMP of both feet together (world) [m], or None when the feet carry < MIN_LOAD."""
        items = [x for v in self._foot_forces().values() for x in v]
        fz = sum(f[2] for _, f in items) if items else 0.0
        return None if fz < MIN_LOAD else sum(f[2] * p for p, f in items) / fz
