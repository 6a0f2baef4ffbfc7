"""Check numbers of the identification models: mass matrix, nonlinear effects,
regressor and base parameters of the dynamic-model generator against Pinocchio.

For 2R, a random branched tree, BIP, HRP-2 and the 36-DoF human body, prints one Markdown row:
nv, standard and base parameter counts, the largest relative error (max|x - x_ref| /
max(1, max|x_ref|)) of M vs ``pin.crba``, h vs ``pin.nonLinearEffects`` and Y pi vs ``pin.rnea`` on
20 random states (seed 0, q, qd, qdd uniform in [-pi, pi]), the SymPy build time of each model and
the time of the base-parameter QR.

Run:  .venv/bin/python benchmarks/dynmodel_models.py
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from humanoid_model import dynmodel
from humanoid_model.dynmodel.base_parameters import base_parameters
from humanoid_model.dynmodel.check import PinocchioReference, max_error, random_tree_urdf
from humanoid_model.dynmodel.function_printers import function_to_python
from humanoid_model.dynmodel.models import mass_matrix, nonlinear_effects
from humanoid_model.dynmodel.regressor import parameters, regressor
from humanoid_model.paths import urdf_dir

G = (0.0, 0.0, -9.81)
DATA = Path(dynmodel.__file__).resolve().parent / "data"
ROBOTS = [
    ("2R", DATA / "robot_2R.urdf"),
    ("random tree (7 links)", random_tree_urdf(7, seed=4)),
    ("BIP", urdf_dir() / "bip.urdf"),
    ("HRP-2", urdf_dir() / "hrp2.urdf"),
    ("human 3P33R", DATA / "human36.urdf"),
]


def _timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def row(name, urdf) -> str:
    tree = dynmodel.parse_urdf(urdf)
    ref = PinocchioReference(urdf, G, tree=tree)
    M, tM = _timed(mass_matrix, tree)
    h, th = _timed(nonlinear_effects, tree, G)
    Y, tY = _timed(regressor, tree, G)
    Mm, hm, Ym = (dynmodel.load_python(function_to_python(f)) for f in (M, h, Y))
    pi = parameters(tree)
    rng = np.random.default_rng(0)
    eM = eh = eY = 0.0
    for _ in range(20):
        q, qd, qdd = rng.uniform(-np.pi, np.pi, (3, tree.nv))
        eM = max(eM, max_error(Mm.mass_matrix(q), ref.crba(q)))
        eh = max(eh, max_error(hm.nonlinear_effects(q, qd)[:, 0], ref.nle(q, qd)))
        eY = max(eY, max_error(Ym.regressor(q, qd, qdd) @ pi, ref.rnea(q, qd, qdd)))
    B, tB = _timed(base_parameters, Ym.regressor, tree.nv, Y.col_names)
    return (
        f"| {name} | {tree.nv} | {len(pi)} | {B.rank} | {eM:.1e} | {eh:.1e} | {eY:.1e} "
        f"| {tM:.2g} | {th:.2g} | {tY:.2g} | {tB:.2g} |"
    )


def main():
    print(
        "| robot | nv | standard params | base params r | M vs crba | h vs nle | Y·π vs rnea "
        "| build M [s] | build h [s] | build Y [s] | QR [s] |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, urdf in ROBOTS:
        print(row(name, urdf), flush=True)


if __name__ == "__main__":
    main()
