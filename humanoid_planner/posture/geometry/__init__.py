"""The geometry the collision constraints measure ((3.47)-(3.56) of Escande 2008, §3.4.2, and its
ch. 4): bounding volumes of the robot's bodies and of obstacles, and their distances. No constraint
here: the rows are in `humanoid_planner.posture.constraints`.

- `capsules`: bounding capsules fitted to a robot's collision model, the self-collision pair filter;
- `segment_distance`: closest points between segments (capsule-capsule distances, closed form);
- `obstacles`: fixed convex obstacles (a scene's bodies, the ground) and the body-obstacle pairs;
- `pair_distances`: signed distances between coal shapes on a model's joints, through Pinocchio;
- `stpbv`: closed-form pieces of the STP-BV (sphere-torus-patch bounding volume);
- `stpbv_build`: an STP-BV from a point cloud;
- `stpbv_distance`: the smooth distance between STP-BVs and its witness points (compiled);
- `stpbv_bodies`: the STP-BVs of a robot's bodies and of obstacles, their pairwise distances.
"""
