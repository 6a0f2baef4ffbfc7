"""The compiled part of `humanoid_sim.collision.detector.CollisionDetector.detect` in one call:
the mobile shapes' placements and the broad phase (`broad_phase`'s `_placements` and `_broad`), the
collision filter's blocked mobile–static pairs, the separation bounds
(`separation._advance_select`), the hull–plane patches (`hull_plane.hull_plane_patches`) and,
when those patches are all the step's contacts, their assembly into the batch's arrays
(`narrow_phase._assemble`).

The same kernels run in the same order on the same arrays as the separate calls did; only the
arrays that crossed back to Python in between (each returned array costs a boxing) now stay in
compiled code or go to the detector's buffers. What the Python narrow phase needs when coal has
pairs to test (placements, the pairs left, the patches) is written into those buffers, whose
capacities bound every count (`buffers`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from humanoid_sim.collision.broad_phase import _broad, _placements
from humanoid_sim.collision.hull_plane import hull_plane_patches
from humanoid_sim.collision.narrow_phase import _assemble, with_perimeters
from humanoid_sim.collision.separation import _advance_select

__all__ = ["buffers", "detect_compiled"]


def buffers(n: int, n_candidates: int, n_pairs: int, n_points: int) -> tuple:
    """The output buffers of `detect_compiled` for n mobile shapes, at most ``n_candidates``
    mobile–static candidates, ``n_pairs`` mobile pairs and ``n_points`` patch points: (R (n, 3, 3),
    p (n, 3), the pairs left to coal (2, n_candidates), mobile pairs (n_pairs, 2), points
    (n_points, 3), I (n_candidates, 5), F (n_candidates, 7), N (n_candidates, 3))."""
    return (
        np.zeros((n, 3, 3)),
        np.zeros((n, 3)),
        np.zeros((2, n_candidates), np.int64),
        np.zeros((n_pairs, 2), np.int64),
        np.zeros((n_points, 3)),
        np.zeros((n_candidates, 5), np.int64),
        np.zeros((n_candidates, 7)),
        np.zeros((n_candidates, 3)),
    )


@njit(cache=True)
def detect_compiled(
    oR, op, joint, PR, Pp,
    margin, kind, half, cyl_r, rad, box_ext, hull_v, hull_start, hs_idx, hs_n, hs_d, fin_idx, fin_c, fin_r, fin_R,
    fin_half, pairs, sweep, blocked, filtered,
    sep_R, sep_p, sep_radius, bound, moved, known, separated, still, safety,
    polytope, plane, plane_n, plane_d, mu, e, tol, max_points, patch_points,
    rr, sR, sp, skind, shalf, srr,
    R, p, rest, mp_out, pts_out, I_out, F_out, N_out,
):  # fmt: skip
    """One step of the detector's compiled part (module docstring). The arguments are, in order,
    those of `_placements`, `_broad` (with ``sweep``: the detector's zero sweep when ``still``),
    the blocked (n_mobile, n_static) mask and whether to apply it (``filtered``), the
    `SeparationBounds` arrays and flags, `hull_plane_patches`'s, ``patch_points`` (0, or the
    points a patch gets on its perimeter: `narrow_phase.with_perimeters`), `_assemble`'s static
    shapes, and the output buffers of `buffers`.

    Returns (assembled, pairs left to coal, mobile pairs, points, patches, then `_assemble`'s five
    arrays): with ``assembled`` 1 the five arrays are the batch of the patches alone (nothing is
    left to coal); with 0 the counts say how much of each buffer holds this step's placements,
    pairs left, mobile pairs, points and patches, and the five arrays are empty."""
    Rk, pk = _placements(oR, op, joint, PR, Pp)
    ms, ss, mp = _broad(
        pk, Rk, margin, kind, half, cyl_r, rad, box_ext, hull_v, hull_start, hs_idx, hs_n, hs_d, fin_idx, fin_c,
        fin_r, fin_R, fin_half, pairs, sweep,
    )  # fmt: skip
    both = np.empty((2, ms.shape[0]), np.int64)
    both[0], both[1] = ms, ss
    if filtered and both.shape[1]:  # ms[:, ~blocked[ms[0], ms[1]]]
        keep = 0
        for i in range(both.shape[1]):
            if not blocked[both[0, i], both[1, i]]:
                both[0, keep], both[1, keep] = both[0, i], both[1, i]
                keep += 1
        both = both[:, :keep].copy()
    if separated:
        mp = _advance_select(Rk, pk, sep_R, sep_p, sep_radius, bound, moved, known, mp, margin, sweep, still, safety)
    pts, I, F, N, left = hull_plane_patches(
        both, polytope, plane, margin, sweep, Rk, pk, hull_v, hull_start, plane_n, plane_d, mu, e, tol, max_points
    )
    R[:] = Rk
    p[:] = pk
    if left.shape[1] == 0 and mp.shape[0] == 0 and I.shape[0] > 0:
        if patch_points:
            pts, I = with_perimeters(pts, I, patch_points)
        I3, BS, PT, NN, F3 = _assemble(pts, pts, I, F, N, Rk, pk, kind, half, rr, sR, sp, skind, shalf, srr)
        return 1, 0, 0, pts.shape[0], I.shape[0], I3, BS, PT, NN, F3
    rest[:, : left.shape[1]] = left
    mp_out[: mp.shape[0]] = mp
    pts_out[: pts.shape[0]] = pts
    I_out[: I.shape[0]] = I
    F_out[: F.shape[0]] = F
    N_out[: N.shape[0]] = N
    return (
        0, left.shape[1], mp.shape[0], pts.shape[0], I.shape[0],
        np.empty((3, 0), np.int64), np.empty(0, np.bool_), np.empty((0, 3)), np.empty((0, 3)), np.empty((3, 0)),
    )  # fmt: skip
