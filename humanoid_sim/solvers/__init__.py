"""Contact solvers, one module each, sharing one interface (W, v_free, mu, warm start ->
impulses, iterations, residuals)."""
