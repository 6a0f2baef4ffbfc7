"""humanoid_model: robot and scene loading, contact locations, ROS-free (the state-publisher
node is `humanoid_ros.state_publisher`), and the dynamic-model generator (`humanoid_model.dynmodel`).

`load_robot`, `Robot`, `ContactLocation`, `available_robots` and `load_scene` are imported lazily,
so `import humanoid_model.exceptions` stays cheap (no Pinocchio import).
"""

_LAZY = {
    "load_robot": "humanoid_model.robot",
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
