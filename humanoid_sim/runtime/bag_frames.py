"""What a recording bag (`humanoid_model.formats.bag`) holds of a `World` at a recorded frame: the
messages the simulator node publishes, gathered without ROS.

    frames = BagFrames(world)
    out = frames.open("run")                     # a `BagWriter`
    frames.write_static(out)                     # /tf_static
    frames.write_frame(out, world.contact_list())

Frames and names follow the state publisher (`humanoid_model.tf_tree.KinematicTree`): /tf holds
odom -> root link and every movable joint, /tf_static the fixed joints, /odom the base pose and its
twist in the root link frame. /joint_states holds the actuated joints (a robot with ball joints:
the URDF's revolute triples, angles only, as the simulator node publishes them). IMU and F/T
readings are `humanoid_sim.runtime.sensors.Sensors`' of the step just taken (none at t = 0).
"""

from __future__ import annotations

from humanoid_model.exceptions import ConfigError
from humanoid_model.formats.bag import BagWriter
from humanoid_model.tf_tree import KinematicTree

__all__ = ["BagFrames"]


class BagFrames:
    """The bag messages of ``world`` (module docstring)."""

    def __init__(self, world):
        self.world = world
        robot = world.robot
        self.tree = KinematicTree(robot.model) if robot is not None else None
        self.sensors = None
        self._ft_frames, self._imu_frame = {}, None
        if robot is not None and robot.sensors:
            from humanoid_sim.runtime.sensors import Sensors

            self.sensors = Sensors(world)
            frames = world.model.frames
            self._ft_frames = {name: frames[fid].name for name, (fid, _) in self.sensors.ft.items()}
            if self.sensors.imu_frame is not None:
                self._imu_frame = frames[self.sensors.imu_frame].name
        soles = getattr(world, "soles", None)
        self._sole_triangles = {k: v["triangles"] for k, v in soles.surface_triangles().items()} if soles else {}

    def open(self, path) -> BagWriter:
        """A `BagWriter` of the bag ``path`` (`ConfigError` naming 'output')."""
        return BagWriter(path, ConfigError)

    def write_static(self, out: BagWriter) -> None:
        """/tf_static: the robot's fixed joints (nothing without a robot)."""
        if self.tree is not None:
            out.write_static(self.tree.static_transforms(), self.world.t)

    def write_frame(self, out: BagWriter, contacts) -> None:
        """One frame of the world now; ``contacts``: `World.contact_list` or None (not recorded)."""
        w = self.world
        st = w.state
        kwargs = {"contacts": contacts}
        robot = w.robot
        if robot is not None:
            nq = robot.model.nq
            if robot.spherical is None:
                kwargs["joints"] = (st.joint_names, st.joint_positions, st.joint_velocities, st.joint_torques)
            else:  # the URDF's revolute triples (the simulator node's /joint_states)
                angles = robot.spherical.angles(w.q[:nq])
                kwargs["joints"] = (list(robot.spherical.urdf_model.names[2:]), angles[7:], [], [])
            base = st.bodies[robot.name]
            kwargs["base"] = (self.tree.root_link, base.position, base.quaternion, w.v[:6].copy())
            kwargs["transforms"] = self.tree.moving_transforms(w.q[:nq])
            if self.sensors is not None and w.steps > 0:
                if self.sensors.ft:
                    ft = self.sensors.force_torque()
                    kwargs["wrenches"] = {n: (self._ft_frames[n], f, tq) for n, (f, tq) in ft.items()}
                reading = self.sensors.imu()
                if reading is not None:
                    kwargs["imu"] = (self._imu_frame, reading)
        free = {}
        for name, jid in w.body_joint.items():  # a free flyer's twist is in its own frame
            j = w.model.joints[jid]
            b = st.bodies[name]
            free[name] = (b.position, b.quaternion, w.v[j.idx_v : j.idx_v + 6].copy())
        kwargs["free_bodies"] = free
        if self._sole_triangles:
            pts = w.soles.surface_points(w.model, w.q)
            kwargs["soles"] = {name: (self._sole_triangles[name], pts[name]) for name in pts}
        out.write_frame(st.t, odom_frame=self.tree.odom_frame if self.tree is not None else "odom", **kwargs)
