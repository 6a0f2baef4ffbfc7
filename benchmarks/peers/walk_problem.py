"""The project's side of the Crocoddyl peer of the dynamic walk (``benchmarks/dynamic_walk.py
--crocoddyl``; docs/planning.md "Dynamic motion"): our walk written as a SPEC for
``benchmarks/peers/walk_crocoddyl.py`` (run in ``.venv-crocoddyl``, a subprocess), and its result read
back beside ours.

The shared problem: HRP-2's URDF, the start posture, the plan's footsteps with our phase durations
(Crocoddyl's problem has fixed durations; ours chose them), the held soles' placements, the swing soles
on our swing paths, each landing at rest, and our planned centre of mass as a tracking target, every
``KNOT`` seconds; the torques within the URDF's efforts (Crocoddyl's box-constrained FDDP). The weights
are those of Crocoddyl's own biped walking example (``SimpleBipedGaitProblem``: centre of mass and
swing foot 1e6, state 1e1 with its per-coordinate weights, control 1e-3, friction cone 1e1), the
landing's velocity weighted as the swing foot; ``tracking`` scales the centre-of-mass, swing and
landing weights (at 1 the solution stays centimetres off the targets: measured, docs/planning.md).
The contact gains (Baumgarte, (100 1/s², 20 1/s)) and the iteration limit are ours.
"""

from __future__ import annotations

import json
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pinocchio as pin

ROOT = Path(__file__).resolve().parents[2]
PEER_PYTHON = ROOT / ".venv-crocoddyl" / "bin" / "python"
PEER = Path(__file__).resolve().parent / "walk_crocoddyl.py"
KNOT = 0.02  # [s] Crocoddyl's time step (chosen: 4 of our 5 ms samples; its example uses 0.02-0.03 s)
WEIGHTS = {"com": 1e6, "swing": 1e6, "state": 1e1, "control": 1e-3, "cone": 1e1, "touchdown": 1e6}
CONTACT_GAINS = (100.0, 20.0)
MAX_ITER = 200
FRICTION = 0.4  # the floor's (Chardonnet 2009, §3.1.6.1)


def walk_spec(robot, walk, feet: dict, tracking: float = 1.0) -> dict:
    """The SPEC of ``walk`` (a `humanoid_execution.dynamic_walk.DynamicWalk` of ``robot``); ``feet``:
    the plan's sole locations -> their link frames (e.g. ``l_sole`` -> ``LLEG_LINK5``); ``tracking``
    scales the tracking weights (module docstring)."""
    model, data = robot.model, robot.model.createData()
    motion, q = walk.motion, walk.ik.q
    step = int(round(KNOT / float(motion.t[1] - motion.t[0])))
    index = list(range(0, len(motion.t), step))
    if index[-1] != len(motion.t) - 1:
        index.append(len(motion.t) - 1)
    knots = []
    for i in index:
        t = float(motion.t[i])
        pin.framesForwardKinematics(model, data, q[i])
        held, swing = [], []
        for loc, frame in feet.items():
            pose = data.oMf[model.getFrameId(frame)].homogeneous.tolist()
            flying = any(m.location == loc and m.t_lift < t < m.t_land for m in motion.moves)
            (swing if flying else held).append({"frame": frame, "placement": pose})
        knots.append({"t": t, "held": held, "swing": swing, "com": motion.com[i].tolist(), "touchdown": []})
    for m in motion.moves:  # the knot at or after each landing
        k = next(k for k, knot in enumerate(knots) if knot["t"] >= m.t_land - 1e-9)
        knots[k]["touchdown"].append(feet[m.location])
    q0 = q[0]
    joints = {}
    for name in robot.joint_names:
        j = model.joints[model.getJointId(name)]
        joints[name] = float(q0[j.idx_q])
    return {
        "urdf": str(robot.urdf_path),
        "base": q0[:7].tolist(),
        "joints": joints,
        "frames": sorted(feet.values()),
        "dt": KNOT,
        "knots": knots,
        "friction": FRICTION,
        "weights": {k: v * (tracking if k in ("com", "swing", "touchdown") else 1.0) for k, v in WEIGHTS.items()},
        "contact_gains": list(CONTACT_GAINS),
        "max_iter": MAX_ITER,
    }


def run_peer(spec: dict, timeout: float = 1800.0) -> dict:
    """Crocoddyl's result for ``spec`` (module docstring); RuntimeError naming the fix if the peer's
    venv is missing or the peer fails."""
    if not PEER_PYTHON.exists():
        raise RuntimeError(f"{PEER_PYTHON} not found: run `make venv-crocoddyl` first")
    with tempfile.TemporaryDirectory() as tmp:
        spec_path, result_path = Path(tmp) / "spec.json", Path(tmp) / "result.json"
        spec_path.write_text(json.dumps(spec))
        done = subprocess.run(
            [str(PEER_PYTHON), str(PEER), str(spec_path), str(result_path)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        if done.returncode != 0:
            raise RuntimeError(f"the Crocoddyl peer failed: {done.stderr.strip()[-2000:]}")
        return json.loads(result_path.read_text())


def com_difference(spec: dict, result: dict) -> tuple[float, float]:
    """(RMS, largest) [m] distance between Crocoddyl's centre of mass and ours at the knots."""
    ours = np.array([k["com"] for k in spec["knots"]])
    theirs = np.asarray(result["com"], float)
    e = np.linalg.norm(theirs - ours, axis=1)
    return float(np.sqrt(np.mean(e**2))), float(e.max())
