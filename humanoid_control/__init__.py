"""humanoid_control: the kinematic generator from a text description and its single constraint
solver for closed loops and IK, the interactive piloting node, and the bridge to real robot
controllers (002_fluckiger.md; ros2_control topics). Not implemented yet: a later issue fills it."""
