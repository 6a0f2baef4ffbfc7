"""Base (identifiable) inertial parameters by numerical QR on random states, as SymPyBotics does
(Gautier's numerical method).

The regressor Y(q, qd, qdd) (`regressor.regressor`) is evaluated on `samples` random states and
stacked into W (samples nv x n). Columns whose norm is below `ZERO_COLUMN_RTOL` times the largest
are parameters no state excites. The others are scaled to unit norm and decomposed, **without
pivoting**, W = Q R: column i is independent of the columns before it when |R_ii| > `RANK_RTOL`
(the sine of its angle to their span). So, as in SymPyBotics, a parameter of a link nearer the
root absorbs the parameters of later links it cannot be told apart from, which gives the
textbook grouping (planar 2R: ZZ1 + l1^2 m2, MX1 + l1 m2). With b the independent columns and d
the others, Y_d = Y_b T on every state (T by least squares), so

    tau = Y pi = Y_b beta,   beta = pi_b + T pi_d = K pi

K (r x n) has the identity on the columns b and T on the columns d (entries within `ZERO_ATOL`
of an integer are set to it: round-off of exact 0, 1, -1). Y_b has full column rank r (the
base parameters are identifiable); parameters no state excites have zero columns in K.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

__all__ = ["BaseParameters", "base_parameters", "RANK_RTOL", "ZERO_ATOL"]

# [-] thresholds (chosen from measurements on 2R, a random 7-link tree, BIP and HRP-2, default
# states): unexcited columns have norms <= 1.5e-17 of the largest, excited ones >= 2e-3; the
# |R_ii| (sine of a column's angle to the earlier ones) of dependent columns are <= 1e-15, of
# independent ones >= 0.26. 1e-10 and 1e-8 sit far from both sides.
ZERO_COLUMN_RTOL = 1e-10
RANK_RTOL = 1e-8
ZERO_ATOL = 1e-10  # [-] entries of T within this of an integer are round-off of it (chosen as ZERO_COLUMN_RTOL)


@dataclass(frozen=True)
class BaseParameters:
    """``columns``: indices b of the independent regressor columns (ascending); ``K`` (r, n) with
    beta = K pi; ``names``: one readable linear combination per base parameter."""

    columns: np.ndarray
    K: np.ndarray
    names: list

    @property
    def rank(self) -> int:
        return len(self.columns)

    def beta(self, pi) -> np.ndarray:
        """The base parameters of the standard parameters pi."""
        return self.K @ np.asarray(pi, float)


def _combination(row, names) -> str:
    terms = []
    for k in np.flatnonzero(row):
        c = float(row[k])
        if c == 1.0:
            terms.append(("+", names[k]))
        elif c == -1.0:
            terms.append(("-", names[k]))
        else:
            terms.append(("-" if c < 0 else "+", f"{abs(c):.12g}*{names[k]}"))
    text = " ".join(f"{s} {t}" for s, t in terms)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


def _default_samples(n: int, nv: int) -> int:
    """Random states stacked by default: 3x more rows than columns, at least 10 states."""
    return max(10, int(np.ceil(3 * n / max(nv, 1))))


def base_parameters(Y, nv: int, names, samples: int | None = None, seed: int = 0, scale: float = 1.0):
    """`BaseParameters` of the regressor function ``Y(q, qd, qdd) -> (nv, n)``.

    `samples` random states (default: enough for 3x more rows than columns), each of q, qd,
    qdd uniform in [-scale * pi, scale * pi]."""
    n = len(names)
    if n == 0 or nv == 0:  # a robot without joints: nothing to identify
        return BaseParameters(np.zeros(0, int), np.zeros((0, n)), [])
    samples = samples or _default_samples(n, nv)
    rng = np.random.default_rng(seed)
    W = np.vstack([Y(*rng.uniform(-scale * np.pi, scale * np.pi, (3, nv))) for _ in range(samples)])
    norms = np.linalg.norm(W, axis=0)
    live = np.flatnonzero(norms > ZERO_COLUMN_RTOL * max(float(norms.max()), 1e-300))
    if W.shape[0] < live.size:
        raise ValueError(f"base_parameters: {samples} states give {W.shape[0]} rows < {live.size} columns; use more")
    R = scipy.linalg.qr(W[:, live] / norms[live], mode="economic")[1]
    b = live[np.abs(np.diag(R)) > RANK_RTOL]
    dep = np.setdiff1d(np.arange(n), b)
    r = b.size
    T = np.linalg.lstsq(W[:, b], W[:, dep], rcond=None)[0] if r else np.zeros((0, dep.size))
    T[np.abs(T) < ZERO_ATOL] = 0.0
    snapped = np.round(T)
    T = np.where(np.abs(T - snapped) < ZERO_ATOL, snapped, T)  # 0.9999999999999998 -> 1
    K = np.zeros((r, n))
    K[np.arange(r), b] = 1.0
    K[:, dep] = T
    return BaseParameters(b, K, [_combination(row, names) for row in K])


def base_regressor(model, gravity=(0.0, 0.0, -9.81), terms=None, samples: int | None = None, seed: int = 0):
    """(`Function` Y_b(q, qd, qdd), `BaseParameters`): the regressor restricted to the base
    columns; its constants give the base parameters of the URDF (``BASE_PARAMETERS``) and their
    definitions (``COL_NAMES``: linear combinations of the standard parameters)."""
    from dataclasses import replace

    from .function_printers import function_to_python
    from .printers import _float_text
    from .regressor import parameters, regressor

    full = regressor(model, gravity, terms)
    from . import load_python

    Y = load_python(function_to_python(full), f"{model.name}_regressor").regressor
    samples = samples or _default_samples(len(full.col_names), model.nv)
    base = base_parameters(Y, model.nv, full.col_names, samples, seed)
    beta = base.beta(parameters(model, terms))
    out = [[row[c] for c in base.columns] for row in full.out]
    doc = [
        f"Base regressor Y_b(q, qd, qdd) of robot '{model.name}': tau = Y_b beta, {base.rank} base parameters "
        f"(numerical QR with column pivoting on {samples} random states, seed {seed}).",
        "COL_NAMES: each base parameter as a combination of the standard ones (see the regressor); "
        "BASE_PARAMETERS: their values for the URDF.",
    ]
    consts = {"BASE_PARAMETERS": tuple(float(_float_text(x)) for x in beta)}
    f = replace(full, name="base_regressor", out=out, col_names=list(base.names), doc=doc, constants=consts)
    return f, base
