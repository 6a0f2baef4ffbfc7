"""`humanoid-stack pilot`'s application: a `humanoid_control.piloting.PilotSession` solving in a
`PilotLoop` thread and a `humanoid_viewer.pilot_view.PilotViewer` in one process, so that a
newcomer can drag a hand of HRP-2 with both feet welded, or drive the hybrid robot with its loop
closed, from a browser.

    app = PilotApp("hrp2", port=0).start()      # or "robot.mad", "NAME.kin.yaml", "robot.urdf"
    print(app.viewer.url); ...; app.close()

The viewer's callbacks become session commands (a gizmo's pose through `gizmo_target` with the
command frame's axes, a slider's value, the mode); after each cycle the solved configuration, the
readout and the joint-speed spheres go back to the viewer.
"""

from __future__ import annotations

import collections
import contextlib
import tempfile
import time
from pathlib import Path

import numpy as np

from humanoid_control.exceptions import KinematicsError
from humanoid_control.kinematics import build_structure, parse_kin_sidecar, read_kin_sidecar
from humanoid_control.kinematics.structure import shipped_structures
from humanoid_control.piloting import (
    COMMAND_FRAMES,
    PilotLoop,
    PilotSession,
    command_axes,
    gizmo_target,
    speed_spheres,
)
from humanoid_model.urdf_description import resolve_robot_path

__all__ = ["PilotApp", "load_pilot_target", "MIN_SPHERE_RADIUS"]

MIN_SPHERE_RADIUS = 0.001  # [m] (chosen) a joint-speed sphere below 1 mm (0.02 rad/s) is not drawn
SPHERE_COLOR = (1.0, 0.55, 0.1, 0.7)  # (chosen) orange, translucent
SPHERE_GROUP = "pilot"
#: [rad] or [m] (chosen) a configuration change below this is not sent to the browsers: a robot at
#: rest (the posture task settling by nanometres) sends nothing, and headless pages go idle
DISPLAY_RESOLUTION = 1e-5
#: (chosen) singular values below this fraction of the largest count as zero in the readout's rank
#: (a planar robot's out-of-plane rows give exact zeros; round-off is ~1e-16)
RANK_TOLERANCE = 1e-9
READOUT_PERIOD = 0.25  # [s] (chosen) the readout text is refreshed at most 4 times a second
DEXTERITY_WINDOW = 20.0  # [s] (chosen) the dexterity plot shows the last 20 s (500 cycles at 25 Hz)


def load_pilot_target(target: str):
    """(structure, URDF path, temporary folder or None) of a pilot TARGET: a shipped structure
    name (``hrp2``, ``hybrid_planar``, ...), a ``NAME.kin.yaml`` sidecar, a ``.mad`` file
    (converted into a temporary folder by the MAD importer; close it when done) or a URDF without
    sidecar (a fixed base, no closures). `KinematicsError` (a `MadError` naming the line) otherwise."""
    from humanoid_control.kinematics.mad import write_converted

    text = str(target)
    path = Path(text).expanduser()
    suffix = path.name.lower()
    tmp = None
    if suffix.endswith(".mad") or suffix.endswith(".urdf"):
        if not path.is_file():
            raise KinematicsError(f"{path}: no such file")
        if suffix.endswith(".urdf"):  # no sidecar: every joint free, nothing closed, fixed base
            side = parse_kin_sidecar({"urdf": str(path.resolve())}, str(path), path.parent)
            return build_structure(side), path.resolve(), None
        tmp = tempfile.TemporaryDirectory(prefix="humanoid-pilot-")
        try:
            _, sidecar = write_converted(path, tmp.name)
        except BaseException:
            tmp.cleanup()
            raise
        path = sidecar
    elif not path.is_file():
        shipped = shipped_structures()
        if text not in shipped:
            from humanoid_control.kinematics import load_structure

            load_structure(text)  # raises the loader's own error (unknown name, did you mean)
        path = shipped[text]
    try:
        side = read_kin_sidecar(path)
        structure = build_structure(side)
        urdf = resolve_robot_path(
            side.urdf, base=side.base_dir, context=f"{side.source}: field 'urdf'", error=KinematicsError
        )
    except BaseException:
        if tmp is not None:
            tmp.cleanup()
        raise
    return structure, Path(urdf), tmp


class PilotApp:
    """The solver loop and the web viewer of one pilot TARGET (see the module docstring).

    Args:
        target: see `load_pilot_target`.
        frames: gizmo frames (default: the sidecar's source frames: HRP-2's hands).
        mode: ``pose``, ``position`` or ``orientation`` (what of a frame follows its gizmo).
        solver: ``prioritized`` or ``svd``.
        rate: solver cycles per second [Hz] (default 25: the thesis's >= 25 Hz, Flückiger 1998, §5.1.1).
        command_frame: gizmo axes: ``world``, ``tool`` or ``view`` (Flückiger 1998, §6.1.2.2).
        host, port, allow_origins: where the viewer serves (as `humanoid-stack view`).
    """

    def __init__(
        self,
        target,
        frames=None,
        mode="pose",
        solver="prioritized",
        rate=25.0,
        command_frame="world",
        host="127.0.0.1",
        port=8080,
        allow_origins=(),
    ):
        from humanoid_model.robot import load_robot
        from humanoid_viewer.pilot_view import PilotViewer

        if command_frame not in COMMAND_FRAMES:
            raise KinematicsError(
                f"pilot: field 'command_frame' must be one of {', '.join(COMMAND_FRAMES)}; value {command_frame!r}"
            )
        structure, urdf, self._tmp = load_pilot_target(target)
        self.viewer = None
        try:
            self.structure = structure
            self.session = PilotSession(structure, frames=frames, mode=mode, solver=solver, rate=rate)
            self.command_frame = command_frame
            self.camera = None  # (3, 3) the last browser camera rotation (view axes)
            self.anchors: dict = {}  # frame -> (gizmo axes, goal) when the gizmo was placed
            robot = load_robot(urdf)
            model = robot.model
            self._viewer_q = np.array(robot.q())
            self._viewer_q[:7] = [0, 0, 0, 0, 0, 0, 1]
            self._index = np.array([model.joints[model.getJointId(n)].idx_q for n in structure.joint_names])
            self._source_index = np.array([structure.joint_index(n)[0] for n in structure.joint_names])
            self._drawn: dict = {}  # joint -> (rounded centre, rounded radius) of its speed sphere
            self._shown_q = None  # the viewer configuration last sent
            self._readout_at = -np.inf  # time.monotonic() of the last readout refresh
            self._dexterity = collections.deque()  # (t [s] since start, σmax/σmin) of the cycles shown
            self._started = time.monotonic()
            gizmos = {f: self._anchor(f) for f in self.session.frames}
            self.viewer = PilotViewer(
                robot,
                gizmos,
                on_target=self.drag,
                on_joint=self.session.set_joint,
                on_control=self.set_control,
                on_camera=self.camera_moved,
                on_reset=self.reset,
                host=host,
                port=port,
                verbose=False,
                allow_origins=allow_origins,
            )
            self.show(None)
        except BaseException:
            self.close()
            raise
        self.loop = PilotLoop(self.session, self.show)

    # ------------------------------------------------------------------ lifetime
    def start(self) -> PilotApp:
        """Start the solver loop; returns self."""
        self.loop.start()
        return self

    def close(self) -> None:
        """Stop the loop and the viewer; remove a MAD conversion's temporary folder."""
        loop = getattr(self, "loop", None)
        if loop is not None:
            loop.stop()
        if self.viewer is not None:
            self.viewer.close()
        if self._tmp is not None:
            with contextlib.suppress(OSError):
                self._tmp.cleanup()
            self._tmp = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    # ------------------------------------------------------------------ viewer -> session
    def _anchor(self, frame):
        """(position, axes) of gizmo ``frame`` at its goal with the command frame's axes; kept so
        that its dragged pose can be turned into a goal (`gizmo_target`)."""
        goal = self.session.goal(frame)
        axes = command_axes(self.command_frame, goal.rotation, self.camera)
        self.anchors[frame] = (axes, goal)
        return goal.translation.copy(), axes

    def place_gizmos(self) -> None:
        """Every gizmo at its frame's goal with the command frame's axes."""
        for f in self.session.frames:
            p, axes = self._anchor(f)
            if self.viewer is not None:
                self.viewer.place_gizmo(f, p, axes)

    def drag(self, frame, position, rotation) -> bool:
        """A gizmo moved to (``position`` (3,), ``rotation`` (3, 3)): its frame's new goal."""
        if frame not in self.anchors:
            return self.session.set_target(frame, None)  # refused, naming the frame
        axes, goal = self.anchors[frame]
        try:
            pose = gizmo_target(axes, goal, position, rotation)
        except (ValueError, TypeError) as exc:
            return self.session.refuse(f"pilot: gizmo '{frame}': {exc}")
        return self.session.set_target(frame, pose)

    def set_control(self, control) -> bool:
        ok = self.session.set_control(control)
        if ok and control == "inverse":
            self.place_gizmos()
        return ok

    def camera_moved(self, rotation) -> None:
        self.camera = np.asarray(rotation, float)
        if self.command_frame == "view" and self.session.control == "inverse":
            self.place_gizmos()

    def reset(self) -> None:
        self.session.reset()
        if self.viewer is not None:
            self.viewer.set_control("inverse")
        self.place_gizmos()

    # ------------------------------------------------------------------ session -> viewer
    def viewer_q(self, q) -> np.ndarray:
        """The viewer robot's configuration (free-flyer model) of the structure's ``q``."""
        out = self._viewer_q.copy()
        if self.structure.floating:
            out[:7] = q[:7]
        out[self._index] = q[self._source_index]
        return out

    def readout(self, state) -> str:
        """The GUI readout (markdown) of a cycle."""
        s = self.session
        if state is None:
            return f"**{self.structure.name}**: {len(s.frames)} gizmo frame(s), solver {s.solver}, {s.rate:g} Hz"
        sigma = np.asarray(state.report.sigma)
        kept = sigma[sigma > RANK_TOLERANCE * sigma[0]] if sigma.size else sigma
        if kept.size == sigma.size:
            dex_text = f"{state.dexterity:.1f}" if sigma.size else "n/a"
        else:  # e.g. a planar robot's out-of-plane rows: the ratio over the rank it has
            dex_text = f"singular (rank {kept.size} of {sigma.size}); {kept[0] / kept[-1]:.1f} over the rank"
        return (
            f"dexterity σmax/σmin **{dex_text}**  \n"
            f"residual {1e3 * state.residual:.3f} mm · loop gap {1e3 * state.loop_gap[0]:.4f} mm  \n"
            f"solve {1e3 * state.solve_s:.1f} ms ({state.solves}×) · {state.control} mode"
        )

    def show(self, state) -> None:
        """Send a cycle's result to the viewer: the robot (when it moved by more than
        `DISPLAY_RESOLUTION`), the joint-speed spheres, the readout (every `READOUT_PERIOD`, and at
        once for a new refusal)."""
        v = self.viewer
        if v is None:
            return
        if state is not None:
            q = self.viewer_q(state.q)
            if self._shown_q is None or np.abs(q - self._shown_q).max() > DISPLAY_RESOLUTION:
                v.set_q(q)
                self._shown_q = q
            self._spheres(state)
        now = time.monotonic()
        refusal = self.session.last_refusal
        if state is not None and np.isfinite(state.dexterity):
            t = now - self._started
            self._dexterity.append((t, float(state.dexterity)))
            while self._dexterity[0][0] < t - DEXTERITY_WINDOW:
                self._dexterity.popleft()
        if state is None or now - self._readout_at >= READOUT_PERIOD or refusal != v.refusal_text:
            v.set_readout(self.readout(state), refusal)
            if len(self._dexterity) >= 2:
                v.set_dexterity_history(*np.array(self._dexterity).T)
            self._readout_at = now

    def _spheres(self, state):
        from humanoid_viewer.markers import DELETE, SPHERE, Marker

        out = []
        for name, centre, radius in speed_spheres(self.structure, state.q, state.speeds):
            key = (tuple(np.round(centre, 3)), round(radius, 3))
            if radius < MIN_SPHERE_RADIUS:
                if name in self._drawn:
                    del self._drawn[name]
                    out.append(Marker(ns="joint_speed", id=self.structure.joint_names.index(name), action=DELETE))
                continue
            if self._drawn.get(name) == key:
                continue
            self._drawn[name] = key
            out.append(
                Marker(
                    ns="joint_speed",
                    id=self.structure.joint_names.index(name),
                    type=SPHERE,
                    position=centre,
                    scale=[2 * radius] * 3,
                    color=SPHERE_COLOR,
                )
            )
        if out:
            self.viewer.apply_markers(out, SPHERE_GROUP)
