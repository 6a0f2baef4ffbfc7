"""Headless-run recordings, streamed to disk as JSON Lines (format in ``docs/recording.md``).

    with Recorder(world, "run.jsonl", every=10) as rec:   # header line + the frame at t = 0
        for _ in range(n):
            world.step()
            rec.maybe_record()                            # one line per recorded frame
    # leaving the block writes the end line (the run's statistics) and closes the file

or, as ``humanoid-stack simulate`` does, ``record_run(world, steps, "run.jsonl", every=10)``.

Each frame is written as one line as soon as it is recorded, so a run holds constant memory
however long it is (issue 14 §5b: the in-memory recording took 641 MB of RSS after 300 s of
HRP-2), and a run cut off at any point (Ctrl-C, a kill, a full disk, an error in a step) leaves a
file that replays up to its last complete line: a run that stops on an exception gets no end line.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from humanoid_model.exceptions import ConfigError

__all__ = ["Recorder", "record_run", "FORMAT", "FLUSH_PERIOD"]

FORMAT = "humanoid_stack.sim_recording/2"  # /1: one JSON document, kept in memory until the end
# [s wall clock] (chosen) longest time a frame waits in the write buffer: a killed run loses at most
# the frames of this last second
FLUSH_PERIOD = 1.0


def _r(x, nd=9):
    return np.round(np.asarray(x, float), nd).tolist()


def _rounded(v):
    """A contact entry's value rounded like the body states (lists to 1e-9, numbers to 1e-12)."""
    return _r(v) if isinstance(v, list) else (round(v, 12) if isinstance(v, float) else v)


class Recorder:
    """Samples a `World` every ``every`` steps (and at t = 0) into the JSON Lines file ``path``
    (parents created; `ConfigError` naming the field 'output' when it cannot be written)."""

    def __init__(self, world, path, every: int = 1, contacts: bool = True):
        if int(every) < 1:
            raise ConfigError(f"recording: field 'record_every' must be >= 1; value {every!r}")
        self.world, self.every, self.with_contacts = world, int(every), contacts
        self.path = Path(path)
        self.frames = 0
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._file = open(self.path, "w", encoding="utf-8")  # noqa: SIM115 (closed by close())
        except OSError as exc:
            raise self._error(exc) from None
        self._flushed = time.monotonic()
        w = world
        src = getattr(w.scene, "source", None)
        header = {
            "format": FORMAT,
            "scene": str(src) if src is not None else w.scene.name,
            "scene_name": w.scene.name,
            "robot": w.robot.name if w.robot is not None else None,
            "dt": w.dt,
            "record_every": self.every,
            "contacts": bool(contacts),
        }
        names = w.state.joint_names
        if names:
            header["joints"] = {"names": list(names)}
        if getattr(w, "soles", None) is not None:  # FEM soles: their surface triangles (docs/recording.md)
            header["soles"] = w.soles.surface_triangles()
        self._write(header)
        self.record()
        self._flush()  # header and first frame on disk at once: a run killed in its first second replays too

    def _flush(self):
        try:
            self._file.flush()
        except OSError as exc:
            raise self._error(exc) from None
        self._flushed = time.monotonic()

    # ------------------------------------------------------------------ writing
    def _error(self, exc) -> ConfigError:
        return ConfigError(f"recording: cannot write field 'output' = {str(self.path)!r}: {exc}")

    def _write(self, obj):
        try:
            self._file.write(json.dumps(obj, allow_nan=False) + "\n")
            now = time.monotonic()
            if now - self._flushed >= FLUSH_PERIOD:
                self._file.flush()
                self._flushed = now
        except (OSError, ValueError) as exc:  # ValueError: a non-finite value (allow_nan=False)
            raise self._error(exc) from None

    def maybe_record(self):
        """Record when the world's step count is a multiple of ``every``."""
        if self.world.steps % self.every == 0:
            self.record()

    def record(self):
        """Write one frame: the world's time, body states, joints and contacts (docs/recording.md)."""
        w = self.world
        st = w.state
        frame = {"t": round(float(st.t), 12)}
        frame["bodies"] = {
            name: {
                "position": _r(b.position),
                "quaternion": _r(b.quaternion, 12),
                "linear_velocity": _r(b.linear_velocity),
                "angular_velocity": _r(b.angular_velocity),
            }
            for name, b in st.bodies.items()
        }
        if st.joint_names:
            frame["joints"] = {
                "positions": _r(st.joint_positions),
                "velocities": _r(st.joint_velocities),
                "torques": _r(st.joint_torques, 6),
            }
        if self.with_contacts:
            frame["contacts"] = [{k: _rounded(v) for k, v in c.items()} for c in w.contact_list()]
        if getattr(w, "soles", None) is not None:  # the deformed sole surfaces, world points [m]
            frame["soles"] = {k: _r(v) for k, v in w.soles.surface_points(w.model, w.q).items()}
        self._write(frame)
        self.frames += 1

    def stats(self) -> dict:
        """The run's statistics as written on the end line (docs/recording.md)."""
        w = self.world
        s = w.stats()
        return {
            "steps": s["steps"],
            "dt": w.dt,
            "solver": s["solver"],
            "median_step_time": s["median_step_time"],
            "max_step_time": s["max_step_time"],
            "mean_step_time": s["mean_step_time"],
            "stage_time": s["stage_time"],
            "solver_iterations": {
                "total": s["iterations_total"],
                "max": s["iterations_max"],
                "mean": s["iterations_total"] / max(s["steps"], 1),
            },
            "unconverged_solves": s["unconverged_solves"],
            "impacts": s["impacts"],
            "max_residuals": s["max_residuals"],
        }

    def close(self, complete: bool = True) -> Path:
        """Write the end line ``{"stats": ...}`` (``complete``; a cut-off run has none) and close
        the file. Returns the path; closing twice does nothing."""
        if self._file.closed:
            return self.path
        try:
            if complete:
                self._write({"stats": self.stats()})
        finally:
            try:
                self._file.close()
            except OSError as exc:
                raise self._error(exc) from None
        return self.path

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close(complete=exc_type is None)


def record_run(
    world, steps: int, path, every: int = 10, contacts: bool = True, progress: Callable[[int], None] | None = None
) -> Path:
    """Step ``world`` ``steps`` times, recording every ``every`` steps to the JSON Lines file
    ``path`` (`Recorder`); ``progress(k)`` is called after step k (1..steps). The run of
    ``humanoid-stack simulate``. An exception (or Ctrl-C) leaves the frames written so far, without
    the end line."""
    with Recorder(world, path, every=every, contacts=contacts) as rec:
        for k in range(1, steps + 1):
            world.step()
            rec.maybe_record()
            if progress is not None:
                progress(k)
    return rec.path
