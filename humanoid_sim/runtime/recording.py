"""Headless-run recordings, streamed to disk as JSON Lines or written as a rosbag2 bag with MCAP
storage (formats in ``docs/recording.md``; the formats and their writers:
`humanoid_model.formats.recording`, `humanoid_model.formats.bag`).

    with Recorder(world, "run.jsonl", every=10) as rec:   # header line + the frame at t = 0
        for _ in range(n):
            world.step()
            rec.maybe_record()                            # one line per recorded frame
    # leaving the block writes the end line (the run's statistics) and closes the file

or, as ``humanoid-stack simulate`` does, ``record_run(world, steps, "run.jsonl", every=10)``.

Each frame is written as one line as soon as it is recorded, so a run holds constant memory however
long it is (300 s of HRP-2 held in memory take 641 MB of RSS), and a run cut off at any point
(Ctrl-C, a kill, a full disk, an error in a step) leaves a file that replays up to its last complete
line: a run that stops on an exception gets no end line.

``format="mcap"`` writes the same frames as a bag (`FORMATS`): /joint_states, /odom, /tf and
/tf_static (the state publisher's frames, `humanoid_model.tf_tree`), /free_bodies, /imu and the
F/T sensors' wrenches (`humanoid_sim.runtime.sensors`, readings of the step just taken), /contacts;
a run stopped by an exception or Ctrl-C closes its bag without the end line.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from humanoid_model.exceptions import ConfigError
from humanoid_model.files import check_output
from humanoid_model.formats.recording import RecordingWriter
from humanoid_model.validation import message

__all__ = ["FORMATS", "Recorder", "record_run", "format_of", "check_recording_output"]

FORMATS = ("jsonl", "mcap")  # JSON Lines (humanoid_model.formats.recording), rosbag2 MCAP (formats.bag)


def format_of(path, record_format: str | None = None) -> str:
    """The recording format of the output ``path``: ``record_format`` when given (one of
    `FORMATS`), else ``jsonl`` for a name ending in .jsonl or .json (a JSON file is what such a name
    promises) and ``mcap`` (a bag folder) otherwise."""
    if record_format is None:
        return "jsonl" if str(path).endswith((".jsonl", ".json")) else "mcap"
    if record_format not in FORMATS:
        raise ConfigError(message("recording", "record_format", f"one of {', '.join(FORMATS)}", record_format))
    return record_format


def check_recording_output(path, record_format: str | None = None) -> str:
    """The format (`format_of`) of a recording written to ``path``, after `ConfigError` in one line
    when it cannot be: its folder is missing (`humanoid_model.files.check_output`'s wording), a
    JSON Lines stream on a directory, or a bag on anything that exists (a bag is a new folder, as
    for ``ros2 bag record -o``). Nothing is created."""
    fmt = format_of(path, record_format)
    p = Path(path)
    if fmt == "mcap" and (p.exists() or p.is_symlink()):
        raise ConfigError(f"{path}: exists already: a bag is written as a new folder (remove it or give another name)")
    check_output(p, "recording", ConfigError, regular=False)  # a stream: a FIFO or /dev/null will do
    return fmt


class Recorder:
    """Samples a `World` every ``every`` steps (and at t = 0) into the JSON Lines file ``path``,
    or the bag folder ``path`` with ``format="mcap"`` (its folder must exist; `ConfigError` naming
    the field 'output' when it cannot be written). ``plan``: the header's ``plan`` field of an
    executed contact plan (its stances on the run's clock,
    `humanoid_model.formats.recording.plan_field`), or None."""

    def __init__(self, world, path, every: int = 1, contacts: bool = True, plan: dict | None = None, format="jsonl"):
        if int(every) < 1:
            raise ConfigError(f"recording: field 'record_every' must be >= 1; value {every!r}")
        self.world, self.every, self.with_contacts = world, int(every), contacts
        self.path = Path(path)
        self.frames = 0
        self.format = format_of(path, format)
        self._bag = None
        if self.format == "mcap":
            from humanoid_sim.runtime.bag_frames import BagFrames

            self._bag = BagFrames(world)
            self._out = self._bag.open(self.path)
        else:
            self._out = RecordingWriter(self.path, ConfigError)
        w = world
        src = getattr(w.scene, "source", None)
        self._out.write_header(
            scene=str(src) if src is not None else w.scene.name,
            scene_name=w.scene.name,
            robot=w.robot.name if w.robot is not None else None,
            dt=w.dt,
            record_every=self.every,
            contacts=contacts,
            joint_names=w.state.joint_names,
            # FEM soles: their surface triangles (docs/recording.md)
            soles=w.soles.surface_triangles() if getattr(w, "soles", None) is not None else None,
            plan=plan,
        )
        if self._bag is not None:
            self._bag.write_static(self._out)
        self.record()
        self._out.flush()  # header and first frame on disk at once: a run killed in its first second replays too

    def maybe_record(self):
        """Record when the world's step count is a multiple of ``every``."""
        if self.world.steps % self.every == 0:
            self.record()

    def record(self):
        """Write one frame: the world's time, body states, joints and contacts (docs/recording.md)."""
        w = self.world
        if self._bag is not None:
            self._bag.write_frame(self._out, w.contact_list() if self.with_contacts else None)
            self.frames += 1
            return
        st = w.state
        self._out.write_frame(
            st.t,
            {n: (b.position, b.quaternion, b.linear_velocity, b.angular_velocity) for n, b in st.bodies.items()},
            joints=(st.joint_positions, st.joint_velocities, st.joint_torques) if st.joint_names else None,
            contacts=w.contact_list() if self.with_contacts else None,
            # the deformed sole surfaces, world points [m]
            soles=w.soles.surface_points(w.model, w.q) if getattr(w, "soles", None) is not None else None,
        )
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
        if self._out.closed:
            return self.path
        try:
            if complete:
                self._out.write_end(self.stats())
        finally:
            self._out.close()
        return self.path

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        self.close(complete=exc_type is None)


def record_run(
    world,
    steps: int,
    path,
    every: int = 10,
    contacts: bool = True,
    progress: Callable[[int], None] | None = None,
    format: str = "jsonl",
) -> Path:
    """Step ``world`` ``steps`` times, recording every ``every`` steps to the JSON Lines file
    ``path`` (or the bag ``path``, ``format="mcap"``: `Recorder`); ``progress(k)`` is called after
    step k (1..steps). The run of ``humanoid-stack simulate``. An exception (or Ctrl-C) leaves the
    frames written so far, without the end line."""
    with Recorder(world, path, every=every, contacts=contacts, format=format) as rec:
        for k in range(1, steps + 1):
            world.step()
            rec.maybe_record()
            if progress is not None:
                progress(k)
    return rec.path
