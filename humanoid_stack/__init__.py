"""humanoid_stack: the command-line runner (`humanoid-stack`) and the node-set launcher (`up`).

The libraries live in `humanoid_model`, `humanoid_sim`, `humanoid_planner`,
`humanoid_control` and `humanoid_viewer`; this package only wires them to the command line.
It is named after the ROS 2 package so that `python -m humanoid_stack` works.
"""

__version__ = "0.1.0"
