"""The piloting page of the web viewer (ROS-free, solver-free): the `Viewer` plus a draggable
transform gizmo per driven frame, an inverse/direct mode switch, joint sliders that command
joints instead of showing them, a readout (dexterity σmax/σmin, residual, loop gap, solve time,
refusals), a plot of the dexterity over time, and a stick figure of the structure's joints and
frames (the thesis robots' URDFs have no geometry).

    viewer = PilotViewer(robot, gizmos={"r_hand": (p, R)}, on_target=..., on_joint=..., on_control=...)
    viewer.set_q(q); viewer.set_readout("dexterity 49.3"); viewer.place_gizmo("r_hand", p, R)
    viewer.set_dexterity_history(t, sigma_ratio)      # the dexterity-over-time plot

What a user does becomes a callback, called in viser's threads: ``on_target(frame, position (3,),
rotation (3, 3))`` when a gizmo is dragged, ``on_joint(joint, value)`` when a slider moves,
``on_control("inverse" | "direct")`` when the mode changes, ``on_camera(rotation (3, 3))`` when a
browser's camera moves (for view-axes gizmos), ``on_reset()``. The caller
(`humanoid_stack.pilot_app`) turns them into solver commands and sends the solved configuration
back with `set_q`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pinocchio as pin

from humanoid_viewer.app import Viewer
from humanoid_viewer.markers import rotation_to_wxyz, wxyz_to_rotation

__all__ = ["PilotViewer", "GIZMO_SCALE", "CONTROL_LABELS"]

GIZMO_SCALE = 0.15  # [m] (chosen) gizmo arm length: about a hand's size next to HRP-2
SKELETON_COLOR = (40, 90, 200)  # stick figure of joints and frames (chosen)
SKELETON_THICKNESS = 0.008  # [m] (chosen)
CONTROL_LABELS = {"inverse": "inverse (gizmos)", "direct": "direct (sliders)"}


class PilotViewer(Viewer):
    """`Viewer` with the piloting controls (see the module docstring).

    Args:
        robot: as `Viewer` (a `humanoid_model.Robot`: the structure's URDF).
        gizmos: {frame: (position (3,), axes rotation (3, 3))} where each gizmo starts.
        on_target, on_joint, on_control, on_camera, on_reset: the callbacks (None: ignored).
        skeleton: draw the stick figure (default: when the robot has no geometry to draw).
        **kwargs: the `Viewer`'s (scene, host, port, verbose, allow_origins).
    """

    def __init__(
        self,
        robot,
        gizmos: Mapping[str, tuple],
        on_target: Callable | None = None,
        on_joint: Callable | None = None,
        on_control: Callable | None = None,
        on_camera: Callable | None = None,
        on_reset: Callable | None = None,
        skeleton: bool | None = None,
        **kwargs,
    ):
        self._callbacks = {"target": on_target, "joint": on_joint, "control": on_control, "camera": on_camera}
        self._on_reset = on_reset
        self._gizmo_names = dict(gizmos)
        self.gizmos: dict = {}
        self._skeleton = None
        self._skeleton_wanted = skeleton
        self.control = "inverse"
        self.refusal_text = ""  # the last refusal shown (plain text)
        self._commanded: set[int] = set()  # idx_q of the joints a slider commands (not synced back)
        super().__init__(robot, **kwargs)
        try:
            with self._lock:
                self._build_pilot()
        except BaseException:
            self.close()
            raise

    # ------------------------------------------------------------------ building
    def _build_pilot(self):
        gui, scene = self.server.gui, self.server.scene
        for frame, (p, R) in self._gizmo_names.items():
            h = scene.add_transform_controls(
                f"/pilot/gizmos/{frame}",
                scale=GIZMO_SCALE,
                position=tuple(np.asarray(p, float)),
                wxyz=tuple(rotation_to_wxyz(R)),
            )
            h.on_update(lambda ev, f=frame: self._gizmo_moved(f, ev.target))
            self.gizmos[frame] = h
        self._control = gui.add_dropdown(
            "control", tuple(CONTROL_LABELS.values()), initial_value=CONTROL_LABELS["inverse"]
        )
        self._control.on_update(lambda _: self._control_changed())
        reset = gui.add_button("reset")
        reset.on_click(lambda _: self._on_reset and self._on_reset())
        self._readout = gui.add_markdown("")
        self._refusal = gui.add_markdown("")
        self._dexterity = gui.add_uplot(
            (np.zeros(2), np.ones(2)),
            ({"label": "t [s]"}, {"label": "σmax/σmin", "stroke": "#2a5ac8", "width": 2}),
            title="dexterity over time",
            aspect=2.0,
        )
        want = self._skeleton_wanted
        if want or (want is None and not self._geom_handles):
            self._skeleton = scene.add_line_segments(
                "/pilot/skeleton", self._skeleton_points(), SKELETON_COLOR, thickness=SKELETON_THICKNESS
            )
        self.add_camera_listener(lambda _position, rotation: self._call("camera", rotation))
        self._enable_sliders(False)

    def _skeleton_points(self) -> np.ndarray:
        """(k, 2, 3) segments: parent joint -> joint, and joint -> each of its frames [m]."""
        model, data = self.robot.model, self._data
        pin.framesForwardKinematics(model, data, self._q)
        seg = []
        for j in range(2 if model.names[1] == "root_joint" else 1, model.njoints):
            seg.append((data.oMi[model.parents[j]].translation, data.oMi[j].translation))
        for f in model.frames:
            if f.parentJoint > 0 and f.type in (pin.FrameType.OP_FRAME, pin.FrameType.BODY):
                seg.append((data.oMi[f.parentJoint].translation, data.oMf[model.getFrameId(f.name)].translation))
        pts = np.array(seg, dtype=np.float32).reshape(-1, 2, 3)
        keep = np.linalg.norm(pts[:, 1] - pts[:, 0], axis=1) > 1e-9
        return pts[keep] if keep.any() else np.zeros((1, 2, 3), np.float32)

    def robot_bounds(self) -> np.ndarray | None:  # extends Viewer: a robot without geometry is framed by its joints
        """(2, 3) world bounding box [m] of the robot's geometry, or of its joint and frame origins
        when it has none (the thesis robots), so that the camera frames it."""
        bounds = super().robot_bounds()
        if bounds is not None or self.robot is None:
            return bounds
        pts = self._skeleton_points().reshape(-1, 3)
        return np.stack([pts.min(axis=0), pts.max(axis=0)])

    # ------------------------------------------------------------------ user input -> callbacks
    def _call(self, key, *args):
        cb = self._callbacks.get(key)
        if cb is not None:
            cb(*args)

    def _gizmo_moved(self, frame, handle):
        self._call("target", frame, np.array(handle.position, float), wxyz_to_rotation(handle.wxyz))

    def _control_changed(self):
        label = self._control.value
        control = next(k for k, v in CONTROL_LABELS.items() if v == label)
        if control == self.control:
            return
        self.control = control
        self._commanded.clear()
        self._enable_sliders(control == "direct")
        self.show_gizmos(control == "inverse")
        self._call("control", control)

    def _on_slider(self, j, s):  # overrides Viewer: a slider commands the solver, it does not set q
        if self._syncing:
            return
        model = self.robot.model
        name = next((n for n in self.robot.joint_names if model.joints[model.getJointId(n)].idx_q == j.idx_q), None)
        if name is not None:
            self._commanded.add(j.idx_q)
            self._call("joint", name, float(s.value))

    def _joint_value(self, j):  # overrides Viewer: a slider the user commands keeps the user's value
        if j.idx_q in self._commanded:
            for jj, s in self._sliders:
                if jj.idx_q == j.idx_q:
                    return float(s.value)
        return super()._joint_value(j)

    def _on_posture(self, _event):  # overrides Viewer: the solver owns the configuration
        return

    # ------------------------------------------------------------------ solver -> display
    def set_control(self, control: str) -> None:
        """Select ``inverse`` or ``direct`` as the user would (calls ``on_control``)."""
        self._control.value = CONTROL_LABELS[control]
        self._control_changed()

    def _enable_sliders(self, enabled: bool):
        for _j, s in self._sliders:
            s.disabled = not enabled
        if self._posture_dropdown is not None:
            self._posture_dropdown.disabled = True

    def show_gizmos(self, visible: bool) -> None:
        """Show (inverse mode) or hide (direct mode) the gizmos."""
        with self._lock:
            for h in self.gizmos.values():
                h.visible = bool(visible)

    def place_gizmo(self, frame: str, position, rotation) -> None:
        """Put gizmo ``frame`` at ``position`` (3,) [m] with axes ``rotation`` (3, 3) (no callback)."""
        with self._lock:
            h = self.gizmos[frame]
            h.position = tuple(np.asarray(position, float))
            h.wxyz = tuple(rotation_to_wxyz(rotation))

    def set_q(self, q) -> None:
        super().set_q(q)
        if self._skeleton is not None:
            with self._lock:
                self._skeleton.points = self._skeleton_points()

    @property
    def readout(self) -> tuple[str, str]:
        """(readout markdown, refusal markdown) as shown."""
        return self._readout.content, self._refusal.content

    @property
    def skeleton_points(self) -> np.ndarray | None:
        """(k, 2, 3) segments of the stick figure as drawn [m], or None when not drawn."""
        return None if self._skeleton is None else np.array(self._skeleton.points)

    @property
    def dexterity_history(self) -> tuple[np.ndarray, np.ndarray]:
        """(t [s], σmax/σmin) as plotted."""
        t, d = self._dexterity.data
        return np.asarray(t), np.asarray(d)

    def set_dexterity_history(self, t, dexterity) -> None:
        """Plot σmax/σmin (Flückiger 1998, §6.2.2, Fig. 6-8) against time ``t`` [s] (equal lengths >= 2)."""
        t, d = np.asarray(t, float), np.asarray(dexterity, float)
        if t.shape == d.shape and t.size >= 2:
            self._dexterity.data = (t, d)

    def set_readout(self, text: str, refusal: str = "") -> None:
        """The readout's markdown text, and the last refusal ("" hides it)."""
        if self._readout.content != text:
            self._readout.content = text
        self.refusal_text = refusal
        shown = f"**refused:** {refusal}" if refusal else ""
        if self._refusal.content != shown:
            self._refusal.content = shown
