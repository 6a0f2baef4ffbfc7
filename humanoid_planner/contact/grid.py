"""Grid Best First Planning and Very Best First Planning (Escande 2008, §5.2.1, Algorithm 1, and
§6.2.1, Algorithm 6): the templates the contact planner transposes, on a regular grid
q = q0 + k delta with 1-neighbours (one coordinate changed by ±1), for the thesis's count of
Fig. 6.3 (§6.2.1: BFP's leaves grow with the dimension, VBFP's do not, same path).

- `bfp`: pop the lowest potential, add every unvisited neighbour with U < M to the tree and the
  list; the goal is tested when a node is generated.
- `vbfp`: pop the lowest potential q; add the best unvisited neighbour of q's father (q's best
  young brother) and the best unvisited neighbour of q (its best son), each if U < M: at any
  time the list holds, for every internal node, its best child not yet generated (§6.2.1);
  the goal is tested on both nodes generated.

Both return a `GridSearch`: the path (start to goal), the tree T (node -> father), its internal
nodes (fathers of some node) and leaves (the others), as the thesis counts them (§6.2.1), and
the nodes popped. Ties are broken by generation order.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

import numpy as np

__all__ = ["GridSearch", "bfp", "vbfp"]


@dataclass
class GridSearch:
    """``path`` (list of grid points, tuples) or None; ``tree`` point -> father (None for the
    start); ``expanded`` the points popped, in order."""

    path: list | None
    tree: dict
    expanded: list

    @property
    def internal(self) -> list:
        """The points of T that are the father of another."""
        fathers = set(self.tree.values())
        return [p for p in self.tree if p in fathers]

    @property
    def leaves(self) -> list:
        """The points of T without a child."""
        fathers = set(self.tree.values())
        return [p for p in self.tree if p not in fathers]


def _neighbours(p, lo, hi):
    for i in range(len(p)):
        for s in (-1, 1):
            c = list(p)
            c[i] += s
            if lo[i] <= c[i] <= hi[i]:
                yield tuple(c)


def _backtrack(tree, p):
    out = [p]
    while tree[out[-1]] is not None:
        out.append(tree[out[-1]])
    return out[::-1]


def _search(U, start, goal, children) -> GridSearch:
    """Best-first over the grid: pop the lowest potential, add what ``children(p, tree)`` yields
    ((U, child, father) triples) to the tree and the list, stop when the goal is generated."""
    start, goal = tuple(start), tuple(goal)
    tree, heap, expanded, k = {start: None}, [(U(start), 0, start)], [], 1
    while heap:
        _, _, p = heapq.heappop(heap)
        expanded.append(p)
        for u, c, father in children(p, tree):
            tree[c] = father
            heapq.heappush(heap, (u, k, c))
            k += 1
            if c == goal:
                return GridSearch(_backtrack(tree, c), tree, expanded)
    return GridSearch(None, tree, expanded)


def bfp(U, start, goal, lo, hi, M=np.inf) -> GridSearch:
    """Algorithm 1 on the integer grid lo <= p <= hi (tuples) with potential ``U(p)``."""

    def children(p, tree):
        for c in _neighbours(p, lo, hi):
            u = U(c)
            if u < M and c not in tree:
                yield u, c, p

    return _search(U, start, goal, children)


def vbfp(U, start, goal, lo, hi, M=np.inf) -> GridSearch:
    """Algorithm 6 on the same grid (module docstring): p's best young brother, then its best son."""

    def children(p, tree):
        for father in (tree[p], p):
            if father is None:
                continue
            kids = [(U(c), c) for c in _neighbours(father, lo, hi) if c not in tree]
            kids = [kc for kc in kids if kc[0] < M]
            if kids:
                u, c = min(kids)
                yield u, c, father

    return _search(U, start, goal, children)
