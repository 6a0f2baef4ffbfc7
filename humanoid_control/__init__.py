"""humanoid_control: kinematics, piloting, whole-body walking IK and the bridge to a real robot's
controllers, ROS-free (the nodes in `humanoid_ros` call them).

- `kinematics/`: the kinematic generator (Flückiger 1998): any structure from a URDF plus a
  sidecar (closed loops, frames, sources, limits), its tasks (`FrameTarget`, `ComTask`,
  `CenterOfMassTask`, `FrameHeightTask`, `JointTask`, `PostureTask`, the `Weld` and `Ball`
  closures; registry `CONSTRAINTS`) and its solvers (`prioritized`, `svd`; registry `SOLVERS`),
  with the MAD file importer (docs/kinematics.md).
- `piloting`: `PilotSession`, the one piloting engine (gizmo frames, sliders, twists, one solver
  cycle per `step`), `PilotLoop` (its thread at a rate, `pilot_loop`), the gizmo axes, the held
  twist and the joint-speed spheres (`pilot_devices`), and the bounds of what it commands
  (`pilot_limits`: bounded goals, joint speed and acceleration limits, finite commands)
  (docs/piloting.md); the `pilot` node and `humanoid-stack pilot` both run it.
- `walking_ik`: `solve_walking_ik`, HRP-2's whole-body IK along a walking pattern, the walking
  plan document and the PD gains for executing it (docs/walking.md).
- `bridge/`: validation of a joint trajectory before a real robot's controller gets it, the
  execution monitor, the execution state machine `BridgeExecutor` and the plan files it reads
  (docs/bridge.md); the `robot_bridge` node runs it.
- `exceptions`: `ControlError`, `BridgeError`, `KinematicsError`, `MadError`.
"""
