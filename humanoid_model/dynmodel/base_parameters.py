"""Base (identifiable) inertial parameters by numerical QR on random states, as SymPyBotics does
(Gautier's numerical method).

The regressor Y(q, qd, qdd) (`regressor.regressor`) is evaluated on `samples` random states and
stacked into W (samples nv x n). A QR decomposition with column pivoting, W P = Q R, gives the
rank r (diagonal entries |R_ii| > `RANK_RTOL` |R_00|) and splits the columns into r independent
ones b (in pivot order, then sorted) and dependent ones d. With R = [[R1, R2], [0, ~0]],
Y_d = Y_b R1^-1 R2 on every state, so

    tau = Y pi = Y_b beta,   beta = pi_b + (R1^-1 R2) pi_d = K pi

K (r x n) has the identity on the columns b and R1^-1 R2 on the columns d (entries within
`ZERO_ATOL` of an integer are set to it: round-off of exact 0, 1, -1).
Y_b has full column rank r (the base parameters are identifiable); the columns no
state excites (a link's parameters that no joint feels) are dependent ones with zero columns in K.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

__all__ = ["BaseParameters", "base_parameters", "RANK_RTOL", "ZERO_ATOL"]

# [-] rank threshold relative to the largest pivot (chosen): the regressor entries are O(1..100)
# for unit-scale states, their round-off ~1e-13 relative; structurally zero pivots come out at
# ~1e-15..1e-13 relative and the smallest true pivots of the test robots at > 1e-6 relative.
RANK_RTOL = 1e-9
ZERO_ATOL = 1e-10  # [-] entries of R1^-1 R2 below this are round-off of exact zeros (chosen as RANK_RTOL)


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


def base_parameters(Y, nv: int, names, samples: int | None = None, seed: int = 0, scale: float = 1.0):
    """`BaseParameters` of the regressor function ``Y(q, qd, qdd) -> (nv, n)``.

    `samples` random states (default: enough for 3x more rows than columns), each of q, qd,
    qdd uniform in [-scale * pi, scale * pi]."""
    n = len(names)
    samples = samples or max(10, int(np.ceil(3 * n / max(nv, 1))))
    rng = np.random.default_rng(seed)
    W = np.vstack([Y(*rng.uniform(-scale * np.pi, scale * np.pi, (3, nv))) for _ in range(samples)])
    _Q, R, piv = scipy.linalg.qr(W, mode="economic", pivoting=True)
    d = np.abs(np.diag(R))
    r = int(np.sum(d > RANK_RTOL * d[0])) if d.size and d[0] > 0 else 0
    b, dep = piv[:r], piv[r:]
    R1, R2 = R[:r, :r], R[:r, r:]
    T = scipy.linalg.solve_triangular(R1, R2) if r else np.zeros((0, len(dep)))
    T[np.abs(T) < ZERO_ATOL] = 0.0
    snapped = np.round(T)
    T = np.where(np.abs(T - snapped) < ZERO_ATOL, snapped, T)  # 0.9999999999999998 -> 1
    K = np.zeros((r, n))
    K[np.arange(r), b] = 1.0
    K[:, dep] = T
    order = np.argsort(b)
    b, K = b[order], K[order]
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
    base = base_parameters(Y, model.nv, full.col_names, samples, seed)
    beta = base.beta(parameters(model, terms))
    out = [[row[c] for c in base.columns] for row in full.out]
    doc = [
        f"Base regressor Y_b(q, qd, qdd) of robot '{model.name}': tau = Y_b beta, {base.rank} base parameters "
        f"(numerical QR with column pivoting on {samples or 'default'} random states, seed {seed}).",
        "COL_NAMES: each base parameter as a combination of the standard ones (see the regressor); "
        "BASE_PARAMETERS: their values for the URDF.",
    ]
    consts = {"BASE_PARAMETERS": tuple(float(_float_text(x)) for x in beta)}
    f = replace(full, name="base_regressor", out=out, col_names=list(base.names), doc=doc, constants=consts)
    return f, base
