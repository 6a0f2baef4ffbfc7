"""The stages of a World step and what they call: what `humanoid_sim.world.World._step` runs.

One module per stage, named after its `humanoid_sim.step_stats` timer and holding a function of
the same name, ``stage(world, ...)``, which `World._step` calls in this order (the order of
MuJoCo's ``mj_step``):

- `kinematics`: joint placements and world Jacobians;
- `actuators`: the step's generalised forces: the PD / torque / trajectory actuator (`PDActuator`,
  `Actuation`), plus `wrenches` (scene and user wrenches, `PushSchedule`) and `haptics` (a haptic
  device's coupling, with `admittance` for a compliant robot) and `grasp` (bodies held by a
  spring-damper, `World.grasp`);
- `free`: the free velocity q̇_free = q̇ + dt M̃⁻¹(τ − b);
- `collision`: the point contacts (`humanoid_sim.collision`), each shape's margin widened to its
  travel in the step (`impacts.SweptMargins`), plus the FEM soles' contacts;
- `contacts`: frames, Jacobians, collision groups and per-contact data (`ContactStage`), plus
  `warm_start` (last step's forces) and `joint_limits` (`JointLimitRows`: joint limits as
  unilateral rows of the contact solve);
- `delassus`: per group J, M̃⁻¹Jᵀ, W and J q̇_free (`humanoid_sim.delassus.group`);
- `solve`: `impacts` (restitution, when any body has e > 0), then the frictional problem of each
  group (`ContactSolve`, with `humanoid_sim.solvers`);
- (`humanoid_sim.contact_pipeline` runs `contacts`, `delassus` and `solve` as one compiled call in a
  world of one mobile tree, with the same results, when the step needs nothing else of them);
- `integration`: the end velocity and positions with `integrator` (semi-implicit Euler on the
  configuration Lie group, free flyers on R³ × SO(3), momentum projection).
"""
