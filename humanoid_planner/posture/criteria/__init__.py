"""The posture criteria (Escande 2008, §3.3): one module per member of the family, each a
`base.PostureCriterion` (``evaluate(q) -> (f, df/dv)``); the registry ``CRITERIA`` (name ->
class) is in `humanoid_planner.posture`.

- `reference_posture`: the distance to a reference posture (4.11);
- `path_distance`: the distance to a piecewise-linear path in configuration space (3.27);
- `potential_criterion`: a potential given as callables (a planner's potential as criterion);
- `configuration_distance`: the squared distance to a configuration over the tangent space
  (the criterion of the projection on a stance, (7.2));
- `criterion_sum`: a weighted sum of criteria.
"""
