"""Solving a posture problem (Escande 2008, §3.2.1): the solvers, their outcome codes (those of
the thesis's Table 7.1) and their call records.

- `two_phase`: the posture generator's solver, an explicit phase 1 then SLSQP (`solve`,
  `PostureSolverSettings`);
- `slsqp`: SciPy's SLSQP routine driven without `scipy.optimize.minimize`'s wrapping, behind an
  import-time check, else through `scipy.optimize.minimize`;
- `newton_projection`: minimum-norm Newton steps onto the constraints, without criterion;
- `collision_solve`: a solve in two stages, without then with the collision rows;
- `outcome`: the outcome codes of Table 7.1 and the result record;
- `call_log`: per-call statistics (outcome, time, iterations) for the Table 7.1 histogram;
- `blas_threads`: single-threaded OpenBLAS for a block.
"""
