"""The runtime around a `humanoid_sim.world.World`: what builds, drives, paces, records, checks
and reads a world from outside its step. Nothing here is called by `World.step`, and nothing here
imports ROS: the simulator node (`humanoid_ros.simulator`) and ``humanoid-stack simulate`` are
thin adapters over these modules.

- `session`: `SimulationSession`, a world built from the node's settings with what lives as long
  as that world (scripted push, command checks, output schedule, markers, physics statistics);
- `realtime`: `RealTimeStepper`, the stepping thread paced to a real-time factor;
- `pacing`: `Pacer`, simulated time paced to the wall clock;
- `commands`: the checks of joint commands, trajectories and external wrenches (`CommandError`);
- `sensors`: `Sensors`, the F/T, IMU, encoder, CoP and ZMP readings of the last step;
- `markers`: the /contacts marker geometry (points, force arrows, friction cones, FEM soles);
- `diagnostics`: the physics report of /diagnostics (`PhysicsMonitor`, `physics_report`);
- `recording`: headless-run recordings streamed to JSON Lines (`Recorder`, `record_run`);
- `plan_replay`: a joint trajectory plan replayed on a world's robot, with its walk measured;
- `contact_gravity`: the joint feedforward that holds a posture in a known stance (the contacts
  carry the weight), for a world's PD.
"""
