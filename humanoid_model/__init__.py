"""humanoid_model: the bottom layer, ROS-free, imported by every other package and importing none
of them: robots, scenes, the file formats, and what every package shares.

- robots: `robot` (`load_robot` -> `Robot`, `robot_from_urdf_text`, joint angles),
  `urdf_description` (the one URDF and sidecar reader), `urdf_xml` (the one editable URDF),
  `xacro_file` (xacro robot files), `srdf` (SRDF postures and exclusions), `mesh_paths`,
  `contact_location` (`ContactLocation`), `collision_geometry`,
  `collision_rules`, `sole_spec`, `spherical_joints`, `flexible_ankle`, `tf_tree` (the state
  publisher's core), `dynmodel/` (the dynamic-model generator);
- scenes: `scene` (`load_scene` -> `Scene`), `scene_types`, `scene_fields`, `scene_params`,
  `scene_generators`, `scene_geometry`, `planning_spec` (the scene's ``planning`` section),
  `start_posture` (the scene robot's start configuration);
- file formats: `formats/` (the simulator recording, GAIT.json / WALK.json, PLAN.json,
  configuration files: one writer and one reader each);
- shared: `exceptions`, `validation` (input checks, one wording), `documents` and `yaml_file`
  (the one reader of text documents), `paths`, `interpolation`, `display`, `coal_import`,
  `planar_polygon` (the 2-D convex hull, signed distance and inside test).

`load_robot`, `robot_from_urdf_text`, `Robot`, `ContactLocation`, `available_robots`, `load_scene` and `Scene` are
imported lazily, so `import humanoid_model.exceptions` stays cheap (no Pinocchio import).
"""

_LAZY = {
    "load_robot": "humanoid_model.robot",
    "robot_from_urdf_text": "humanoid_model.robot",
    "Robot": "humanoid_model.robot",
    "ContactLocation": "humanoid_model.contact_location",
    "available_robots": "humanoid_model.robot",
    "load_scene": "humanoid_model.scene",
    "Scene": "humanoid_model.scene",
}
__all__ = list(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'humanoid_model' has no attribute {name!r}")
