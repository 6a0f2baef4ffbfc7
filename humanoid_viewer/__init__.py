"""humanoid_viewer: the embedded web viewer (viser), ROS-free, used when RViz2 is not there (the
ROS node is `humanoid_ros.viewer`).

- `app`: `Viewer`, the robot (optional) in a scene (optional), with the posture selector, the joint
  sliders, the haptic pointer, the phantom robot, markers and replay;
- `robot_meshes`: the robot drawn as meshes; `camera`: where the camera starts;
  `scene_view`: the scene drawn; `geometry`: triangle meshes of geometry objects;
- `markers`: a ROS-free ``visualization_msgs/Marker`` and its drawing; `marker_layer`: the markers
  shown, by group;
- `replay`: recordings read into a `Recording` (through `humanoid_model.formats`);
  `replay_player`: playing them; `plan_view`: a contact plan's stances as markers;
- `pilot_view`: the piloting page; `serving`: where the viewer serves and whom it answers;
  `exceptions`: `ViewerError`, `RecordingError`, `MarkerError`, `RecordingWarning`.
"""
