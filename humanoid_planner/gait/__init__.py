"""Optimal gait generator for the sagittal BIP biped (Chessé 2002, Chapter III, §III.3.2):
the optimal phase sequence of a walk (start step, cyclic double and single support, pre-stop and stop steps)
on planar dynamic models. docs/gait.md.

- `params`: parameter sets (the thesis's table, the URDF's); `cost`: the weights and limits;
- `model`: hand-written planar CasADi dynamics (`PlanarTree`, double and single support);
  `generated_model`: the same trees from a planar biped URDF; `pinocchio_model`: the same in
  Pinocchio for the cross-checks;
- `boundary`: the inverse kinematics of the boundary states, the support relabelling, the rest
  posture;
- `direct`: collocation with IPOPT; `pmp`: the Pontryagin two-point boundary-value method;
  `multiphase`: the cyclic step as one NLP;
- `phase_sequence`: the phase sequence and its solve (`solve_gait_sequence`,
  `solve_cyclic_gait_sequence`), checks, GAIT.json, `plan_walk`;
- `biped`: any planar biped from its URDF; `plots`: figures of a solution.

No ROS imports here; the ROS 2 node is ``humanoid_ros.gait_generator``.
"""
