"""The project's file formats, one module each, with the one writer and the one reader of each
(the simulator, the planners, the viewer, the robot bridge and the commands all go through them).
A reader checks a file against its format and raises the caller's error class with one line
naming the file and the field; what a caller needs beyond the format (a robot's configurations,
the bridge's stricter rules) it checks on what the reader returns.

- `recording`: the simulator recording (``humanoid-stack simulate --output RUN.jsonl``, format
  ``humanoid_stack.sim_recording/2``, JSON Lines; /1, one document, still read), docs/recording.md;
- `bag` (with `bag_messages`): the simulator recording as a rosbag2 bag with MCAP storage
  (``humanoid-stack simulate --output RUN``, the pure-Python ``rosbags`` library, no rclpy),
  docs/recording.md; its reader seeks, and reads any bag with /joint_states;
- `trajectory`: the joint trajectory files GAIT.json (``humanoid-stack gait``, docs/gait.md) and
  WALK.json (``humanoid-stack walk``, docs/walking.md);
- `plan`: the contact planner's PLAN.json (``humanoid-stack plan``, format
  ``humanoid_stack.contact_plan/1``), docs/planning.md;
- `configurations`: ``{t, q, joint_names?}`` configuration files (docs/viewer.md);
- `detect`: which of these a file holds (`read_format_file`, `document_kind`);
- `fields`: the field checks the readers share (one wording, every number within ±`fields.BOUND`).
"""
