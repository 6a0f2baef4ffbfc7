"""A walk (WALK.json) executed by the whole-body controller in closed loop in a given world (rigid
feet, flexible ankles, FEM soles of any material), measured as `humanoid_sim.runtime.plan_replay`
measures a PD replay: the torso's vertical velocity and acceleration, the soles, the strikes. The
shock-attenuation benchmark (`benchmarks/walking.py --controller wbc`, Chardonnet 2009, §4.4.2)
compares the feet so under the one controller that keeps balance.

    rec, report = walk_in_closed_loop(world, doc)
    strikes, peaks = walk_strike_peaks(rec, doc)

The run is `humanoid-stack execute`'s (`humanoid_execution.run.execute` in the given world: the
reference raised onto FEM soles); a row is recorded before each simulator step (the state after the
previous one).
"""

from __future__ import annotations

import dataclasses

from humanoid_execution.run import RunSettings, execute
from humanoid_sim.runtime.plan_replay import WalkRecorder, strike_peaks

SETTLE = 0.5  # [s] run after the walk's end (chosen: the last strike's window and the stance after it)


def walk_in_closed_loop(world, doc: dict, settings: RunSettings | None = None, src: str = "WALK.json"):
    """(`ReplayRecord`, `ExecutionReport`) of the walk ``doc`` run by `execute` (the whole-body controller)
    in ``world`` for its duration plus `SETTLE` (``settings``' other fields as given)."""
    rec = WalkRecorder(world)
    s = dataclasses.replace(settings or RunSettings(), extra_time=SETTLE)
    run = execute(doc, s, src=src, world=world, before_step=rec)
    return rec.record(stopped=not run.report.success), run.report


def walk_strike_peaks(rec, doc: dict):
    """`strike_peaks` of a WALK.json's footsteps (each foot's lift-off and single support from the file)."""
    steps = doc["walking"]["footsteps"]
    t_ss = min(s["t_land"] - s["t_lift"] for s in steps)
    return strike_peaks(rec, [s["t_lift"] for s in steps], t_ss, [s["foot"] for s in steps])
