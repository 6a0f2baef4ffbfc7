"""A humanoid standing on both feet, moving symmetrically in its sagittal plane: the planar serial
chain of the weight-lifting application (Chardonnet 2009, §5.2.2.1, Fig. 5.25: "the robot, the object
and the motion being symmetric, the system is considered in two dimensions ... seven joints").

The chain is rooted at the feet, which stay flat on the ground, and runs ankle, knee, hip (the legs,
walked from the foot up, against the URDF's tree), then chest, shoulder, elbow, wrist (forward). Each of
its seven bodies lumps the URDF links that move together when every other joint is locked at zero and
the left and right joints move as one: the shank, the thigh, the waist (with the hip yaw and roll links
and the chest yaw link), the chest (with the head), the upper arm, the forearm and the hand (with the
carried object, modelled as mass and inertia added to the hand, §5.2.2.2). A body's mass, centre of
mass (x, z) and inertia about the lateral axis are the sums over its links on both sides, which is
exact for the sagittal dynamics: the lateral offsets of a symmetric pair do not enter it.

The chain is a `humanoid_planner.gait.model.PlanarTree` (absolute angles, X0 forward, Y0 up). Its
relative angle at joint k is ``sign[k]`` times the URDF joint angle (+1 for the reversed leg joints, -1
for the forward ones, as the planar angle turns about -y), and its joint torque is the sum over both
sides of the URDF joint torques times ``sign[k]``. `SagittalChain` gives the symbolic inverse dynamics,
the ground reaction and its ZMP, and the wrench at the wrist force sensors; test/planner/lifting checks
them against Pinocchio's RNEA on the three-dimensional robot.
"""

from __future__ import annotations

from dataclasses import dataclass

import casadi as ca
import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import ModelError
from humanoid_model.robot import Robot, set_joint_angle

from ..gait.model import PlanarBody, PlanarTree
from ..gait.params import SagittalSegment

__all__ = ["CarriedObject", "SagittalJoints", "SagittalChain", "HRP2_SAGITTAL"]

G = 9.81  # [m/s^2]


@dataclass(frozen=True)
class SagittalJoints:
    """The chain's joints, from the foot up: each entry names the URDF joints (one per side, or one on
    the mid-plane) that move as one sagittal joint. The first ``legs`` entries are walked against the
    URDF tree (ankle, knee, hip); the rest hang from the root forward (chest, shoulder, elbow, wrist).
    ``sole``: the sole contact locations (robot YAML) whose hulls bound the ZMP; ``hand``: the hand
    contact locations whose points are the grasp points; ``sensor``: the wrist force-sensor frames."""

    names: tuple
    labels: tuple
    legs: int
    sole: tuple
    hand: tuple
    sensor: tuple


# HRP-2 (urdf/hrp2.urdf): hip, knee and ankle pitch; chest pitch; shoulder, elbow and wrist pitch
HRP2_SAGITTAL = SagittalJoints(
    names=(
        ("LLEG_JOINT4", "RLEG_JOINT4"),
        ("LLEG_JOINT3", "RLEG_JOINT3"),
        ("LLEG_JOINT2", "RLEG_JOINT2"),
        ("CHEST_JOINT1",),
        ("LARM_JOINT0", "RARM_JOINT0"),
        ("LARM_JOINT3", "RARM_JOINT3"),
        ("LARM_JOINT5", "RARM_JOINT5"),
    ),
    labels=("ankle", "knee", "hip", "chest", "shoulder", "elbow", "wrist"),
    legs=3,
    sole=("l_sole", "r_sole"),
    hand=("l_hand", "r_hand"),
    sensor=("LARM_FT", "RARM_FT"),
)


@dataclass(frozen=True)
class CarriedObject:
    """The object held in both hands, its centre of mass at the grasp points: mass [kg] and its extent
    in the sagittal plane [m] (a uniform box, inertia m (w² + h²) / 12 about the lateral axis)."""

    mass: float
    width: float
    height: float

    @property
    def inertia(self) -> float:
        return self.mass * (self.width**2 + self.height**2) / 12.0


def _sagittal_inertia(Y: pin.Inertia) -> tuple[float, float, float, float]:
    """(mass, com x, com z, inertia about the lateral axis through the com) of a world-frame inertia."""
    c = Y.lever
    return Y.mass, float(c[0]), float(c[2]), float(Y.inertia[1, 1])


class SagittalChain:
    """The symmetric sagittal model of `robot` carrying `carried` (None: nothing in the hands; see the
    module docstring). Coordinates: the seven URDF joint angles ``theta`` (one per entry of
    ``joints.names``, the same on both sides)."""

    def __init__(self, robot: Robot, carried: CarriedObject | None = None, joints: SagittalJoints = HRP2_SAGITTAL):
        model = robot.model
        self.robot, self.joints = robot, joints
        self.carried = carried or CarriedObject(0.0, 0.0, 0.0)
        ids = []
        for group in joints.names:
            for name in group:
                if not model.existJointName(name):
                    raise ModelError(f"{robot.name}: sagittal joint {name!r} is not a joint of the robot")
            ids.append([model.getJointId(n) for n in group])
        n = len(ids)
        self.n = n
        self.sign = np.array([1.0] * joints.legs + [-1.0] * (n - joints.legs))
        data = model.createData()
        q0 = pin.neutral(model)
        pin.forwardKinematics(model, data, q0)
        pin.updateFramePlacements(model, data)
        # each URDF body's group: its nearest sagittal ancestor, or None (the root's group)
        owner = {j: k for k, grp in enumerate(ids) for j in grp}

        def group(j):
            while j > 0:
                if j in owner:
                    return owner[j]
                j = model.parents[j]
            return None

        lumps = {k: pin.Inertia.Zero() for k in [*range(n), None]}
        for j in range(1, model.njoints):
            lumps[group(j)] += data.oMi[j].act(model.inertias[j])
        # the chain's body after joint k: reversed legs take the next leg joint's group (the hip: the root's)
        body_group = [(k + 1 if k + 1 < joints.legs else None) if k < joints.legs else k for k in range(n)]
        pos = [data.oMi[grp[0]].translation for grp in ids]
        sole = robot.contact_locations[joints.sole[0]]
        foot = data.oMi[model.frames[model.getFrameId(sole.body)].parentJoint]
        hull = np.array([foot.act(p) for p in sole.hull])
        self.ground = float(hull[:, 2].min())
        self.origin = np.array([pos[0][0], self.ground])  # the world origin of the chain: under the ankle
        self.foot_x = (float(hull[:, 0].min() - pos[0][0]), float(hull[:, 0].max() - pos[0][0]))
        foot_mass, fx, fz, foot_inertia = _sagittal_inertia(lumps[0])
        self.foot = (foot_mass, fx - pos[0][0])
        # the feet at rest: their centre of mass (x, z) in the chain's frame and inertia about it
        self.foot_com, self.foot_inertia = np.array([fx - pos[0][0], fz - self.ground]), foot_inertia
        hand = robot.contact_locations[joints.hand[0]]
        hand_frame = data.oMf[model.getFrameId(hand.body)]
        grasp = hand_frame.act(hand.point)
        sensor = data.oMf[model.getFrameId(joints.sensor[0])].translation
        bodies = []
        for k in range(n):
            m, cx, cz, iy = _sagittal_inertia(lumps[body_group[k]])
            if k == n - 1 and self.carried.mass > 0:  # the object at the grasp point (both hands)
                mo = self.carried.mass
                cx, cz = (m * cx + mo * grasp[0]) / (m + mo), (m * cz + mo * grasp[2]) / (m + mo)
                iy = self._shifted(lumps[body_group[k]], mo, grasp, cx, cz, self.carried.inertia)
                m = m + mo
            a, b = cx - pos[k][0], cz - pos[k][2]
            attach = (
                (pos[0][0] - self.origin[0], pos[0][2] - self.ground)
                if k == 0
                else (pos[k][0] - pos[k - 1][0], pos[k][2] - pos[k - 1][2])
            )
            bodies.append(
                PlanarBody(
                    joints.labels[k],
                    k - 1,
                    tuple(float(v) for v in attach),
                    SagittalSegment(m, a, b, iy + m * (a * a + b * b)),
                )
            )
        last = pos[-1]
        points = {
            "grasp": (n - 1, (float(grasp[0] - last[0]), float(grasp[2] - last[2]))),
            "sensor": (n - 1, (float(sensor[0] - last[0]), float(sensor[2] - last[2]))),
            "wrist": (n - 1, (0.0, 0.0)),
        }
        axis = hand_frame.rotation @ -np.asarray(hand.normal, dtype=float)  # from the palm out, zero posture
        self.hand_axis = np.array([axis[0], axis[2]]) / np.hypot(axis[0], axis[2])
        self.sides = [len(grp) for grp in ids]
        self.ids = ids
        jt = [(k - 1, k, joints.labels[k], True, 0.0) for k in range(n)]
        self.tree = PlanarTree(f"{robot.name}_sagittal", bodies, jt, points, [], g=G)
        iv = [model.joints[g[0]].idx_v for g in ids]  # one motor of each joint (both sides alike)
        self.effort, self.velocity = model.effortLimit[iv], model.velocityLimit[iv]
        # joint friction per motor, the URDF's <dynamics damping friction>: viscous [N m s/rad], dry [N m]
        self.viscous, self.dry = model.damping[iv], model.friction[iv]
        self.lower = np.array([max(model.lowerPositionLimit[model.joints[j].idx_q] for j in g) for g in ids])
        self.upper = np.array([min(model.upperPositionLimit[model.joints[j].idx_q] for j in g) for g in ids])
        self.total_mass = sum(b.seg.mass for b in bodies) + foot_mass
        self._build()

    @staticmethod
    def _shifted(hand: pin.Inertia, mo, grasp, cx, cz, io) -> float:
        """Lateral-axis inertia about (cx, cz) of the hand plus a body (mo, io) at the grasp point."""
        mh, hx, _hy, hz = hand.mass, *hand.lever
        ih = float(hand.inertia[1, 1])
        return ih + mh * ((hx - cx) ** 2 + (hz - cz) ** 2) + io + mo * ((grasp[0] - cx) ** 2 + (grasp[2] - cz) ** 2)

    def _build(self) -> None:
        tree, n = self.tree, self.n
        th, thd, thdd = ca.SX.sym("theta", n), ca.SX.sym("theta_d", n), ca.SX.sym("theta_dd", n)
        # absolute angles from the relative ones: q_k = sum_{i <= k} phi_i, phi = sign * theta
        L = np.tril(np.ones((n, n)))
        q, v, a = L @ (self.sign * th), L @ (self.sign * thd), L @ (self.sign * thdd)
        M, bias = tree.f_M(q), tree.f_bias(q, v)
        C = ca.DM(np.linalg.inv(tree.S_act.T)) @ (M @ a + bias)  # planar joint torques (both sides summed)
        tau = self.sign * C  # back to the URDF convention (still both sides summed)
        coms = tree.f_coms(q)
        fx, fy, mo = 0, 0, 0
        for i, b in enumerate(tree.bodies):
            c = coms[:, i]
            J = ca.jacobian(c, th)
            acc = J @ thdd + ca.jacobian(J @ thd, th) @ thd
            f = b.seg.mass * ca.vertcat(acc[0], acc[1] + G)  # what moves the body against gravity
            fx, fy = fx + f[0], fy + f[1]
            mo = mo + c[0] * f[1] - c[1] * f[0] + b.seg.I_c * a[i]
        fm, fxm = self.foot
        fy, mo = fy + fm * G, mo + fxm * fm * G
        hand, ch, fh = tree.bodies[-1], c, f  # the last body: the force the forearm exerts on the hand (+ object)
        ps = tree.f_points["sensor"](q)
        mh = (ch[0] - ps[0]) * fh[1] - (ch[1] - ps[1]) * fh[0] + hand.seg.I_c * a[n - 1]
        ax = ca.vertcat(
            ca.cos(q[n - 1]) * self.hand_axis[0] - ca.sin(q[n - 1]) * self.hand_axis[1],
            ca.sin(q[n - 1]) * self.hand_axis[0] + ca.cos(q[n - 1]) * self.hand_axis[1],
        )
        along = fh[0] * ax[0] + fh[1] * ax[1]
        across = -fh[0] * ax[1] + fh[1] * ax[0]
        args = [th, thd, thdd]
        self.f_tau = ca.Function("tau", args, [tau], ["theta", "theta_d", "theta_dd"], ["tau"])
        self.f_reaction = ca.Function("reaction", args, [ca.vertcat(fx, fy, mo)])
        self.f_zmp = ca.Function("zmp", args, [mo / fy])
        self.f_hand = ca.Function("hand", args, [ca.vertcat(along, across, mh) / self.sides[-1]])
        self.f_points = {k: ca.Function(k, [th], [f(q)]) for k, f in tree.f_points.items()}
        self.f_origins = ca.Function("origins", [th], [tree.f_origins(q)])
        self.f_com = ca.Function("com", [th], [tree.f_com(q)])
        # the object's angle as the thesis gives it (§5.2.2.3): 90 deg with the hand pointing down, -90 deg up
        self.f_object_angle = ca.Function("object_angle", [th], [np.pi / 2 - q[n - 1]])

    # -- numeric helpers -----------------------------------------------------------------------
    def configuration(self, theta) -> np.ndarray:
        """The robot's full configuration (feet flat on the ground under the world origin; every other
        joint at zero) for the sagittal angles `theta`."""
        model = self.robot.model
        q = pin.neutral(model)
        for k, grp in enumerate(self.joints.names):
            for name in grp:
                set_joint_angle(q, model.joints[model.getJointId(name)], float(theta[k]))
        data = model.createData()
        pin.forwardKinematics(model, data, q)
        # move the free flyer so that the foot is flat with its ankle above the world origin
        ankle = data.oMi[self.ids[0][0]]
        target = pin.SE3(np.eye(3), np.array([0.0, ankle.translation[1], self.ankle_height]))
        place = target * ankle.inverse() * data.oMi[1]
        q[:3] = place.translation
        q[3:7] = pin.Quaternion(place.rotation).coeffs()
        return q

    @property
    def ankle_height(self) -> float:
        return float(self.tree.bodies[0].attach[1])

    def trajectory_document(self, t, theta) -> dict:
        """The WALK.json document (`humanoid_model.formats.trajectory`) of the robot's full
        configurations for the sagittal angles ``theta`` (k, 7) at the times ``t`` (k,) [s]."""
        from humanoid_model.formats.trajectory import trajectory_samples, walk_document

        robot, model = self.robot, self.robot.model
        q = np.array([self.configuration(th) for th in theta])
        cols = [model.joints[model.getJointId(n)].idx_q for n in robot.joint_names]
        return walk_document(
            robot=robot.name, joint_names=robot.joint_names, trajectory=trajectory_samples(t, q[:, cols], q[:, :7])
        )

    def tau(self, theta, theta_d, theta_dd) -> np.ndarray:
        return np.array(self.f_tau(theta, theta_d, theta_dd)).ravel()

    def point(self, name: str, theta) -> np.ndarray:
        return np.array(self.f_points[name](theta)).ravel()
