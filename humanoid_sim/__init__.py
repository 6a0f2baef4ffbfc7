"""humanoid_sim: the physics simulator (docs/simulator.md).

Layout:

- `world`: `World`, the simulated world: it builds the combined model, the geometry and the
  stages' objects, holds the state, runs the step as a list of stage calls and hands out the
  outputs; `state` holds the records it hands out (`WorldState`, `StepResult`, `WorldSnapshot`),
  `step_stats` the step's timers and statistics, `exceptions` the simulator's errors;
- `stages/`: the step, one module per stage in the order of MuJoCo's ``mj_step`` (kinematics,
  actuators, free, collision, contacts, delassus, solve, integration), with what they call
  (actuators and wrenches, haptics, impacts, warm start, joint-limit rows, the contact solve,
  the integrator);
- `contact_pipeline`: the contacts, Delassus and solve stages in one compiled call, for a world of
  one mobile tree (the same results);
- `collision/`: collision detection (geometry, pair selection and filter, broad phase, narrow
  phase and patches, mesh patches) into one `ContactBatch` per step;
- `delassus/`: the Delassus operator: the step's per-group stage and its Cholesky path; the
  thesis's recursive algorithms are reference code, not on the step (`delassus.recursive`);
- `solvers/`: the frictional contact solvers, one module each, and their registry;
- `soles/`: the deformable (FEM) soles and their coupling to a world;
- `runtime/`: what runs around a world and is never called by its step: the simulation session
  and real-time stepping of the simulator node, pacing, command checks, sensors, markers,
  diagnostics, recordings, plan replay, and the contact-consistent gravity feedforward.

Nothing in `humanoid_sim` imports rclpy or ROS messages: the simulator node
(`humanoid_ros.simulator`) is a thin adapter over `runtime.session` and `runtime.realtime`.
"""
