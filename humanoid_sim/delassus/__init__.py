"""The Delassus operator Λ = J M⁻¹ Jᵀ of point contacts (W = dt Λ in the step's contact problem).

On the step:

- `group`: `GroupDelassus`, the delassus stage of a World step: per collision group J, M̃⁻¹Jᵀ,
  W = dt J M̃⁻¹ Jᵀ and J q̇_free, as one `GroupSystem`;
- `cholesky`: `CholeskyDelassus` / `delassus_cholesky`, the exact fast path (Pinocchio's crba, a
  tree-sparse LᵀDL in numba), with the two oracles `delassus_dense` and `delassus_pinocchio`.

Reference code, not on the step (the thesis's algorithms, for its comparison and operation counts):

- `recursive`: `RecursiveDelassus` (the initial, Chang–Khatib and new recursive algorithms) and
  `thesis_operation_counts`;
- `recursive_kernels`: their numba kernels with operation counters.
"""
