"""pink, differential IK on Pinocchio (S. Caron), on the common IK problem of `ik_problem`.

The problem: HRP-2 at half-sitting, both soles fixed in 6-D, the CoM's x-y fixed, the left hand's
point sent to a target 0.2 m away; part A, 20 episodes of 50 steps toward seeded random targets;
part C, 100 projections from seeded starts; success by one Pinocchio check (`ik_problem.Check`).

pink solves weighted least squares, one QP per step (quadprog by default): the soles cost
``FOOT_COST`` (position and orientation), the CoM x-y ``COM_COST``, the hand ``HAND_COST``
(position only) and a posture task toward half-sitting ``POSTURE_COST``; its default limits keep the
joints within their bounds. A step is one ``pink.solve_ik`` (limits check, QP build and solve) and
``Configuration.integrate_inplace`` (integration, then kinematics and Jacobians at the new
configuration), with ``dt`` = 1: Gauss-Newton-like steps. Parts A (the episodes) and C (the
projections, at most ``MAX_STEPS`` steps each) are timed step by step; the check between steps is
not timed.

Run (with an interpreter where pink and qpsolvers are installed; benchmarks/README.md):

    .venv/bin/python benchmarks/peers/ik_pink.py [--episodes 20] [--starts 100] [--solver quadprog]

Prints one JSON line on stdout: ``{"library": "pink", "versions": ..., "rows": [ROW]}``, ROW with the
step time (median, p90) [us], the episodes that reach the check and their median steps, the
projections that pass it, their median time [ms] and steps; ``{"library": "pink", "skipped": ...}``
when pink is not installed. ``benchmarks/kinematics.py`` runs it beside our solvers.
"""

from __future__ import annotations

import os

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # single-threaded, as our benchmarks

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import time  # noqa: E402

import ik_problem as P  # noqa: E402 - this folder's module (the script's own directory is on sys.path)
import numpy as np  # noqa: E402
import run_peer  # noqa: E402

FOOT_COST = 100.0  # pink's costs weigh the task errors, so the QP's weights are their squares (1e4)
COM_COST = (100.0, 100.0, 0.0)  # the CoM's z is free
HAND_COST = 1.0
POSTURE_COST = 1e-2
DAMPING = 1e-12  # pink's default Tikhonov damping
DT = 1.0


class PinkSolver:
    """pink's tasks for the common problem on ``model`` at ``q0``, one `step` at a time."""

    def __init__(self, model, q0, solver: str):
        import pink
        from pink.tasks import ComTask, FrameTask, PostureTask

        self.pink, self.solver = pink, solver
        self.configuration = pink.Configuration(model, model.createData(), q0)
        self.feet = [FrameTask(f, position_cost=FOOT_COST, orientation_cost=FOOT_COST) for f in P.SOLE_FRAMES]
        self.hand = FrameTask(P.HAND_FRAME, position_cost=HAND_COST, orientation_cost=0.0)
        com, posture = ComTask(cost=np.array(COM_COST)), PostureTask(cost=POSTURE_COST)
        for task in (*self.feet, self.hand, com):
            task.set_target_from_configuration(self.configuration)
        posture.set_target(q0)
        self.tasks = [*self.feet, com, self.hand, posture]

    def reset(self, q, target) -> None:
        """Start at ``q`` with the hand sent to ``target``."""
        self.configuration.update(q)
        placement = self.configuration.get_transform_frame_to_world(P.HAND_FRAME).copy()
        placement.translation = np.asarray(target, dtype=float)
        self.hand.set_target(placement)

    def step(self) -> float:
        """One IK step; its wall time [s]."""
        t = time.perf_counter()
        c = self.configuration
        v = self.pink.solve_ik(c, self.tasks, DT, solver=self.solver, damping=DAMPING, safety_break=False)
        c.integrate_inplace(v, DT)
        return time.perf_counter() - t

    @property
    def q(self):
        return self.configuration.q


def measure(episodes: int, starts: int, solver: str) -> dict:
    """Parts A and C of the common problem with pink (module docstring)."""
    model, q0 = P.load_model()
    ik = PinkSolver(model, q0, solver)
    hand0, canon = P.hand_position(model, q0), P.canonical_target(model, q0)
    ik.reset(q0, canon)
    for _ in range(20):  # warm-up
        ik.step()
    times, reached = [], []
    for d in P.directions(episodes):
        target = hand0 + P.REACH * d
        check = P.Check(model, q0, target)
        ik.reset(q0, target)
        done = False
        for i in range(P.STEPS):
            times.append(ik.step())
            if not done and check.ok(ik.q):
                done = True
                reached.append(i + 1)
    check = P.Check(model, q0, canon)
    proj_ms, proj_steps = [], []
    for trial in range(starts):
        ik.reset(P.random_start(model, q0, trial), canon)
        elapsed = 0.0
        for i in range(P.MAX_STEPS):
            elapsed += ik.step()
            if check.ok(ik.q):
                proj_ms.append(1e3 * elapsed)
                proj_steps.append(i + 1)
                break
    us = 1e6 * np.array(times)
    return {
        "solver": solver,
        "step_us": P.percentile(us),
        "step_us_p90": P.percentile(us, 90),
        "episodes": f"{len(reached)}/{episodes}",
        "episode_steps": P.percentile(reached),
        "projections": f"{len(proj_ms)}/{starts}",
        "projection_ms": P.percentile(proj_ms),
        "projection_ms_p90": P.percentile(proj_ms, 90),
        "projection_steps": P.percentile(proj_steps),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=P.EPISODES, help=f"part A: episodes of {P.STEPS} steps")
    ap.add_argument("--starts", type=int, default=P.STARTS, help="part C: projections from seeded starts")
    ap.add_argument("--solver", default="quadprog", help="qpsolvers backend")
    a = ap.parse_args(argv)
    try:
        import pink
        import qpsolvers
    except ImportError as exc:
        print(json.dumps(run_peer.skipped("pink", f"{exc.name} not installed")))
        return 0
    if a.solver not in qpsolvers.available_solvers:
        print(json.dumps(run_peer.skipped("pink", f"QP solver {a.solver} not installed")))
        return 0
    logging.getLogger().setLevel(logging.ERROR)  # pink warns at every step that ends 1e-5 rad past a limit
    import pinocchio

    row = measure(a.episodes, a.starts, a.solver)
    versions = {"pink": pink.__version__, "qpsolvers": qpsolvers.__version__, "pinocchio": pinocchio.__version__}
    print(json.dumps({"library": "pink", "versions": versions, "rows": [row]}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
