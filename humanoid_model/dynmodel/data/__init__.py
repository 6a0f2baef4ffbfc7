"""Bundled URDFs of the dynamic-model generator: robot_2R.urdf (the report's 2R robot) and human36.urdf
(the 36-DoF human body, written by make_human36.py)."""
