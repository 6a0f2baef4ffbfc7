"""Lifting applications of the simulator thesis (Chardonnet 2009, ch. 5) on a symmetric sagittal
model of the robot: `sagittal` (the seven-joint planar chain from the URDF, rooted at the feet) and
`overhead` (the overhead lift of a heavy object: joint B-splines optimised for the actuators' energy
under DC-motor limits with IPOPT, §5.2.2), and the dynamic box lift (§5.2.1): `box_hold` (the box's
conditions (5.19)–(5.22)), `impact` (the impact that leaves the feet still, (5.9)–(5.14)), `cam` (the
cam profile, (5.15)–(5.18)), `box_lift` (the preliminary motion up to the impact), `box_swing` (the
swing back over the feet after it) and `lift_tasks` (their task functions on the chain)."""
