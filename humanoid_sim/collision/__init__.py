"""Collision detection of the simulator: the point contacts of a step between the world's mobile
shapes (robot links, free bodies) and against its static environment, found by coal (broad phase
in numba, then coal's collision and contact-patch queries).

- `geometry`: the world's mobile and static shapes (`MobileGeom`, `StaticGeom`), built once;
- `pairs`: pair selection, `candidate_pairs` (the mobile–mobile pairs the narrow phase tests);
- `pair_filter`: `PairFilter`, the scene's and the robot's ``collision`` rules on a world;
- `detector`: `CollisionDetector`, the stage's detector: placements, broad phase, narrow phase,
  assembled into one `ContactBatch` per step (its input: the joints' world placements as views
  of Pinocchio's memory, `humanoid_model.joint_frames`); `DEFAULT_MARGIN`;
- `broad_phase`: the numba placements and broad-phase kernels;
- `narrow_phase`: `NarrowPhase`, coal's queries on one pair and its patch points, each with its
  own gap (`_assemble`);
- `mesh`: `MeshPatches`, patches against a static triangle mesh: face patches clipped to the
  triangles, reduced by the shared 2-D convex hull (`humanoid_model.planar_polygon`);
- `batch`: `ContactBatch`, the step's contacts as arrays.

The collision stage of a World step (`humanoid_sim.stages.collision`) calls the detector and adds
the FEM soles' contacts.
"""
