"""Playing a `humanoid_viewer.replay.Recording` in the viewer: the replay GUI (timeline, play /
pause, speed, loop, force scale), the playing thread and the contact-force arrows.

`humanoid_viewer.app.Viewer` owns one `ReplayPlayer` (``viewer.replay``) and delegates
``load_replay``, ``play``, ``pause``, ``show_time`` and ``show_index`` to it. The player moves the
robot and the free bodies through the viewer's public methods (``set_q``, ``set_body_pose``).
"""

from __future__ import annotations

import threading
import time
from pathlib import Path

import numpy as np

from humanoid_model.display import FORCE_SCALE
from humanoid_viewer.exceptions import ViewerError
from humanoid_viewer.plan_view import stance_markers

# Choices of ours (display only, no physics):
CONTACT_COLOR = (230, 40, 40)  # replayed contact force arrows and points (RGB)
SOLE_COLOR = (90, 90, 90)  # replayed FEM soles' deformed surfaces (RGB)
REPLAY_RATE = 30.0  # [Hz] frames drawn per second while playing
SPEEDS = ("0.1", "0.25", "0.5", "1", "2", "4")  # playback speeds offered (multiples of real time)
DEFAULT_DT = 0.01  # [s] timeline step when the recording's times do not give one
MIN_DT = 1e-4  # [s] finest timeline step


PLAN_GROUP = "replay/plan"  # marker group of a contact plan's stance (`humanoid_viewer.plan_view`)
STANCE_TOLERANCE = 1e-9  # [s] (chosen: below any recorded time step) a frame this close to a stance's time is in it


def _stance_label(k: int, stance) -> str:
    change = f"{stance.kind} {stance.changed}" if stance.changed else (stance.kind or "stance")
    return f"{k}: {change} ({', '.join(c.location for c in stance.contacts)})"


def contact_segments(contacts, scale: float) -> np.ndarray:
    """(k, 2, 3) start/end points [m] of the arrows of one step's contacts: from the point to
    point + ``scale`` [m/N] x force [N]."""
    if not contacts:
        return np.zeros((0, 2, 3))
    pts = np.array([c.point for c in contacts])
    forces = np.array([c.force for c in contacts])
    return np.stack([pts, pts + scale * forces], axis=1)


class ReplayPlayer:
    """The replay part of a viewer (see the module docstring); thread-safe through ``lock``."""

    def __init__(self, viewer, lock):
        self._viewer = viewer
        self._lock = lock
        self._recording = None
        self._index = 0
        self._playing = threading.Event()
        self._closed = threading.Event()
        self._thread: threading.Thread | None = None
        self._syncing = False
        self._folder = None
        self._contact_handles: dict[str, object] = {}
        self._sole_handles: dict[str, object] = {}
        self._stance = None  # index of the contact plan's stance shown (None: none)

    # ------------------------------------------------------------------ state and GUI hooks
    @property
    def recording(self):
        """The loaded `Recording`, or None."""
        return self._recording

    @property
    def index(self) -> int:
        """The step shown."""
        return self._index

    @property
    def playing(self) -> bool:
        """Whether the replay is playing."""
        return self._playing.is_set()

    @property
    def timeline(self):
        """The timeline slider (time [s]); setting its value shows that time, as dragging it does."""
        return self._gui("_timeline")

    @property
    def force_scale(self) -> float:
        """[m/N] contact-arrow length per newton (the GUI number, default `FORCE_SCALE`)."""
        return float(self._gui("_force_scale").value)

    @force_scale.setter
    def force_scale(self, value: float):
        self._gui("_force_scale").value = float(value)

    @property
    def speed(self) -> float:
        """Playback speed (a multiple of real time, one of `SPEEDS`)."""
        return float(self._gui("_speed").value)

    @speed.setter
    def speed(self, value: float):
        text = f"{float(value):g}"
        if text not in SPEEDS:
            raise ViewerError(f"replay: field 'speed' must be one of {', '.join(SPEEDS)}; value {value!r}")
        self._gui("_speed").value = text

    @property
    def loop(self) -> bool:
        """Whether playing restarts at the end."""
        return bool(self._gui("_loop").value)

    @loop.setter
    def loop(self, value: bool):
        self._gui("_loop").value = bool(value)

    @property
    def contact_handles(self) -> dict[str, object]:
        """The viser nodes of the contacts shown: ``points`` and, when a force is drawn, ``forces``."""
        with self._lock:
            return dict(self._contact_handles)

    @property
    def stance_index(self) -> int | None:
        """The contact plan's stance shown (the last whose witness posture the replay passed), or None."""
        return self._stance

    @property
    def stance_selector(self):
        """The "stance" dropdown of a contact plan: choosing one shows its witness posture."""
        return self._gui("_stance_dropdown")

    def _gui(self, name):
        if self._recording is None:
            raise ViewerError("replay: no replay loaded")
        return getattr(self, name)

    # ------------------------------------------------------------------ loading and showing
    def load(self, recording, gui) -> None:
        """Show ``recording`` (checked by the viewer): replaces the previous one and its GUI."""
        self.pause()
        if self._thread is not None:
            self._thread.join(timeout=2.0)
        with self._lock:
            if self._folder is not None:  # a new recording replaces the previous one
                self._folder.remove()
                self._remove_contacts()
                for h in self._sole_handles.values():
                    h.remove()
                self._sole_handles = {}
            if self._stance is not None:
                self._viewer.clear_markers(PLAN_GROUP)
            self._stance, self._stance_dropdown = None, None
            self._recording = recording
            t = recording.t
            dt = float(np.min(np.diff(t))) if len(t) > 1 and np.any(np.diff(t) > 0) else DEFAULT_DT
            dt = max(dt if dt > 0 else DEFAULT_DT, MIN_DT)
            self._folder = gui.add_folder("replay")
            with self._folder:
                gui.add_markdown(f"{Path(recording.source).name}: {len(t)} steps, {recording.duration:.3f} s")
                self._timeline = gui.add_slider(
                    "time [s]", min=float(t[0]), max=float(max(t[-1], t[0] + dt)), step=dt, initial_value=float(t[0])
                )
                self._timeline.on_update(lambda _: None if self._syncing else self.show_time(self._timeline.value))
                play_button = gui.add_button("play / pause")
                play_button.on_click(lambda _: self.pause() if self.playing else self.play())
                self._speed = gui.add_dropdown("speed", list(SPEEDS), initial_value="1")
                self._loop = gui.add_checkbox("loop", True)
                self._force_scale = gui.add_number("force scale [m/N]", FORCE_SCALE, min=0.0, step=1e-4)
                if recording.stances:
                    self._add_stance_selector(gui, recording.stances)
        self.show_index(0)

    def _add_stance_selector(self, gui, stances):
        """A dropdown of the plan's stances; choosing one shows its witness posture (a recording's
        frame at the stance's time, or the first one after it)."""
        labels = [_stance_label(k, s) for k, s in enumerate(stances)]
        self._stance_dropdown = gui.add_dropdown("stance", labels, initial_value=labels[0])

        def chosen(_):
            if self._syncing:
                return
            s = stances[labels.index(self._stance_dropdown.value)]
            if s.t is not None:
                i = self._recording.index_at(s.t)
                self.show_index(i + 1 if self._recording.t[i] < s.t - STANCE_TOLERANCE else i)

        self._stance_dropdown.on_update(chosen)

    def show_time(self, time_s: float) -> None:
        """Show the step at or just before ``time_s`` [s]."""
        if self._recording is not None:
            self.show_index(self._recording.index_at(time_s))

    def show_index(self, i: int) -> None:
        """Show step ``i``: robot configuration, free-body poses, contact forces."""
        rec = self._recording
        if rec is None:
            raise ViewerError("show_index: no replay loaded")
        i = int(min(max(i, 0), len(rec) - 1))
        q, bodies, contacts, soles = rec.frame(i)
        with self._lock:
            self._index = i
            if q is not None:
                self._viewer.set_q(q)
            for name, (pos, quat) in bodies.items():
                self._viewer.set_body_pose(name, pos, quat)
            self._draw_contacts(contacts)
            self._draw_soles(soles)
            self._syncing = True
            try:
                self._timeline.value = float(np.clip(rec.t[i], self._timeline.min, self._timeline.max))
                self._show_stance(rec, i)
            finally:
                self._syncing = False

    def _show_stance(self, rec, i):
        """Draw the markers of the stance whose witness time is the last at or before step ``i``."""
        if not rec.stances:
            return
        times = [s.t if s.t is not None else np.inf for s in rec.stances]
        k = max(int(np.searchsorted(times, rec.t[i] + STANCE_TOLERANCE, side="right")) - 1, 0)
        if k != self._stance:
            self._stance = k
            self._viewer.apply_markers(stance_markers(rec.stances[k]), PLAN_GROUP)
            if self._stance_dropdown is not None:
                self._stance_dropdown.value = self._stance_dropdown.options[k]

    def contact_segments(self, i: int | None = None) -> np.ndarray:
        """(k, 2, 3) start/end points [m] of the force arrows of step ``i`` (default: current)."""
        rec = self._recording
        i = self._index if i is None else i
        if rec is None:
            return np.zeros((0, 2, 3))
        return contact_segments(rec.frame(i)[2], self.force_scale)

    def _remove_contacts(self):
        for h in self._contact_handles.values():
            h.remove()
        self._contact_handles = {}

    def _draw_soles(self, soles):
        """The FEM soles' deformed surfaces of a step (name -> (triangles, points); one mesh per
        sole, replaced each step)."""
        scene = self._viewer.server.scene
        for name, (tri, pts) in soles.items():
            self._sole_handles[name] = scene.add_mesh_simple(
                f"/replay/soles/{name}", vertices=pts, faces=tri, color=SOLE_COLOR, flat_shading=True
            )

    @property
    def sole_handles(self) -> dict[str, object]:
        """The viser meshes of the FEM soles shown (sole name -> handle; empty without soles)."""
        with self._lock:
            return dict(self._sole_handles)

    def _draw_contacts(self, contacts):
        self._remove_contacts()
        seg = contact_segments(contacts, self.force_scale)
        if not len(seg):
            return
        scene = self._viewer.server.scene
        self._contact_handles["points"] = scene.add_point_cloud(
            "/replay/contact_points", seg[:, 0], CONTACT_COLOR, point_size=0.015, point_shape="circle"
        )
        keep = np.linalg.norm(seg[:, 1] - seg[:, 0], axis=1) > 1e-6
        if np.any(keep):
            self._contact_handles["forces"] = scene.add_arrows(
                "/replay/contact_forces",
                seg[keep],
                CONTACT_COLOR,
                shaft_radius=0.004,
                head_radius=0.01,
                head_length=0.02,
            )

    # ------------------------------------------------------------------ playing
    def play(self) -> None:
        """Start playing from the current step (at the selected speed)."""
        if self._recording is None:
            raise ViewerError("play: no replay loaded")
        self._playing.set()
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._play_loop, name="viewer-replay", daemon=True)
            self._thread.start()

    def pause(self) -> None:
        """Stop playing (the step shown stays)."""
        self._playing.clear()

    def close(self) -> None:
        """Stop the playing thread for good."""
        self._closed.set()
        self._playing.clear()
        if self._thread is not None:
            self._thread.join(timeout=2.0)

    def _play_loop(self):
        rec = self._recording
        sim_t = float(rec.t[self._index])
        if self._index >= len(rec) - 1:
            sim_t = float(rec.t[0])
        last = time.monotonic()
        while not self._closed.is_set() and self._playing.is_set():
            now = time.monotonic()
            sim_t += (now - last) * self.speed
            last = now
            if sim_t > rec.t[-1]:
                if self.loop and rec.duration > 0:
                    sim_t = float(rec.t[0])
                else:
                    self.show_index(len(rec) - 1)
                    self._playing.clear()
                    break
            self.show_index(rec.index_at(sim_t))
            self._closed.wait(1.0 / REPLAY_RATE)
