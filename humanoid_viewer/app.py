"""The web viewer (viser), ROS-free: robot, scene, posture selector, joint sliders, markers, replay.

    from humanoid_viewer.app import Viewer
    viewer = Viewer("hrp2", scene="flat", port=8080)   # prints http://127.0.0.1:8080/
    viewer.set_q(q)                                     # full configuration (nq,)
    viewer.apply_markers([Marker(ns="f", id=0, type=ARROW, points=[[0, 0, 0], [0, 0, 1]])])
    viewer.load_replay(load_recording("run.json", viewer.robot)); viewer.play()
    viewer.close()

The robot is drawn from its visual geometry model (collision model when there is no visual
geometry, `humanoid_viewer.robot_meshes`), placed with ``pin.updateGeometryPlacements``; the camera
starts framing it (`humanoid_viewer.camera`). Every public method is thread-safe (GUI callbacks
run in viser's threads, ROS callbacks in the executor's).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import ModelError
from humanoid_model.robot import joint_angle, load_robot, set_joint_angle
from humanoid_model.start_posture import scene_robot_q
from humanoid_model.validation import finite_vector
from humanoid_viewer import camera
from humanoid_viewer.exceptions import ViewerError
from humanoid_viewer.marker_layer import MarkerLayer
from humanoid_viewer.markers import (
    WORLD_FRAMES,
    Marker,
    quat_xyzw_to_wxyz,
    rotation_to_wxyz,
    wxyz_to_rotation,
)
from humanoid_viewer.replay_player import ReplayPlayer
from humanoid_viewer.robot_meshes import PHANTOM_COLOR, PHANTOM_OPACITY, add_robot_meshes, drawn_geometry, place_meshes
from humanoid_viewer.scene_view import draw_scene
from humanoid_viewer.serving import OriginGuard, check_bindable, guarded_viser

# Choices of ours (display only, no physics):
POINTER_SCALE = 0.2  # [m] (chosen) the haptic pointer gizmo's arm length: a hand's reach per drag
POINTER_COLOR = (255, 140, 0)  # (chosen) the pointer's sphere, orange as the pilot's speed spheres
POINTER_RADIUS = 0.02  # [m] (chosen) radius of the sphere drawn at the pointer


def _load_robot(robot):
    if robot is None or hasattr(robot, "model"):
        return robot
    return load_robot(robot)


def _load_scene(scene):
    if scene is None or not isinstance(scene, (str, Path)):
        return scene
    from humanoid_model.scene import load_scene

    return load_scene(scene)


class Viewer:
    """A viser server showing a robot (optional) in a scene (optional).

    Args:
        robot: a `humanoid_model.Robot`, a shipped robot name or a URDF path, or None.
        scene: a `humanoid_model.scene.Scene`, a scene name or file, or None (ground grid only).
        posture: initial posture name (default: the scene's robot posture, else the robot's default).
        host, port: where to serve (port 0: any free port); the URL is in `url`.
        follow: True when configurations come from outside (ROS /joint_states): the sliders show
            them but cannot be moved.
        verbose: print the URL on start.
        allow_origins: origins (``scheme://host[:port]``) whose pages may use the viewer besides
            its own, e.g. a reverse proxy's; ``"*"``: any page and any Host (unsafe). Requests
            from other pages or with a Host that is not this machine get HTTP 403
            (`humanoid_viewer.serving.OriginGuard`).
    """

    def __init__(
        self,
        robot=None,
        scene=None,
        posture: str | None = None,
        host: str = "127.0.0.1",
        port: int = 8080,
        follow: bool = False,
        verbose: bool = True,
        allow_origins: Sequence[str] = (),
    ):
        import viser

        self.origin_guard = OriginGuard(host, allow_origins)  # a malformed origin fails before any loading
        self.robot = _load_robot(robot)
        self.scene = _load_scene(scene)
        self.follow = bool(follow)
        self._lock = threading.RLock()
        self._syncing = False
        self._replay = ReplayPlayer(self, self._lock)
        self._posture_dropdown = None
        self._sliders: list = []
        self._show_surfaces = None

        self._q = None
        self._geom_handles = []
        self._phantom_handles: list = []
        self._phantom_q = None
        self.pointer = None  # the haptic pointer's transform-controls handle (`add_pointer`)
        self.pointer_buttons: dict = {}
        self.pointer_status = None
        if self.robot is not None:  # bad input fails here, before a server starts
            self._data = self.robot.model.createData()
            self._gdata = pin.GeometryData(self._geometry_model)
            self._q = self._initial_q(posture)

        check_bindable(host, int(port))  # fail fast: viser's thread dies on a bad bind, silently
        with guarded_viser(self.origin_guard) as guarded:
            self.server = viser.ViserServer(host=host, port=int(port), verbose=False)
        try:
            if not guarded:  # a viser that no longer starts its server this way: do not serve unguarded
                raise ViewerError("viewer: cannot install the Origin/Host check in this viser version")
            self.host = host
            self.port = int(self.server.get_port())
            self._markers = MarkerLayer(self.server.scene, self._frame_pose)
            self.server.scene.set_up_direction("+z")
            self.server.gui.configure_theme(control_width="medium")
            self._draw_scene()
            if self.robot is not None:
                self._build_robot()
            self._build_gui()
            if self.robot is not None:
                self._push_robot()
            self._place_camera()
        except BaseException:
            self.server.stop()
            raise
        if verbose:
            print(f"humanoid viewer: {self.url}", flush=True)

    # ------------------------------------------------------------------ properties
    @property
    def url(self) -> str:
        """The address the viewer serves on."""
        return f"http://{self.host}:{self.port}/"

    @property
    def q(self) -> np.ndarray | None:
        """A copy of the robot configuration shown (nq,), or None without a robot."""
        with self._lock:
            return None if self._q is None else self._q.copy()

    @property
    def postures(self) -> list[str]:
        """The robot's posture names (empty without a robot)."""
        return list(self.robot.postures) if self.robot is not None else []

    @property
    def _geometry_model(self):
        return drawn_geometry(self.robot)

    @property
    def show_robot(self) -> bool:
        """Whether the robot is shown (the "show robot" checkbox; False without a robot)."""
        return bool(self._show_robot.value) if self.robot is not None else False

    @show_robot.setter
    def show_robot(self, value: bool):
        if self.robot is not None:
            self._show_robot.value = bool(value)

    @property
    def show_surfaces(self) -> bool:
        """Whether the planner surfaces are shown (the "show surfaces" checkbox; False without any)."""
        return bool(self._show_surfaces.value) if self._show_surfaces is not None else False

    @show_surfaces.setter
    def show_surfaces(self, value: bool):
        if self._show_surfaces is not None:
            self._show_surfaces.value = bool(value)

    # ------------------------------------------------------------------ GUI and scene hooks
    @property
    def posture_selector(self):
        """The posture dropdown (None without a robot); setting its value acts as a click."""
        return self._posture_dropdown

    @property
    def joint_sliders(self) -> list:
        """``[(pinocchio joint model, slider)]``, one per 1-DOF actuated joint in model order;
        setting a slider's value acts as dragging it."""
        return list(self._sliders)

    @property
    def geometry_handles(self) -> list:
        """``[(geometry index, mesh handle)]`` of the robot's drawn geometry objects."""
        return list(self._geom_handles)

    @property
    def scene_handles(self):
        """The scene's viser nodes (`humanoid_viewer.scene_view.SceneHandles`)."""
        return self._scene_handles

    @property
    def replay(self) -> ReplayPlayer:
        """The replay player: timeline, speed, loop, force scale and contact handles."""
        return self._replay

    # ------------------------------------------------------------------ robot
    def _scene_robot_spec(self):
        """The scene's robot entry when it describes this robot (same URDF), else None."""
        spec = getattr(self.scene, "robot", None) if self.scene is not None else None
        if spec is None or self.robot is None:
            return None
        try:
            same = Path(spec.urdf_path).resolve() == Path(self.robot.urdf_path).resolve()
        except (TypeError, AttributeError):
            same = False
        return spec if same else None

    def _initial_q(self, posture):
        """The start configuration (`humanoid_model.start_posture.scene_robot_q`, no sole lift):
        ``posture`` (None: the scene's robot posture with its joint overrides), placed as the
        scene's robot when the scene's robot is this robot."""
        return self._scene_q(posture, joints=None if posture is None else {})

    def _posture_q(self, name):
        """Configuration of posture ``name`` (None: default), placed as the scene's robot."""
        return self._scene_q(name or self.robot.default_posture, joints={})

    def _scene_q(self, posture, joints):
        try:
            return scene_robot_q(self.robot, self._scene_robot_spec(), posture=posture, joints=joints)
        except ModelError as exc:
            raise ViewerError(str(exc)) from None

    def _build_robot(self):
        self._robot_root = self.server.scene.add_frame("/robot", show_axes=False)
        self._geom_handles = self._add_robot_meshes("/robot")

    def _add_robot_meshes(self, root: str, color=None, opacity=None) -> list:
        """The robot's meshes under ``root`` (`robot_meshes.add_robot_meshes`): [(geometry index, handle)]."""
        return add_robot_meshes(self.server.scene, self._geometry_model, root, color, opacity)

    def _place_meshes(self, handles, q) -> None:
        """Send the placements of ``handles``' geometries at configuration ``q``."""
        place_meshes(self.server, self.robot.model, self._data, self._geometry_model, self._gdata, handles, q)

    def _push_robot(self):
        """Compute geometry placements for ``self._q`` and send them (lock held by caller or init)."""
        self._place_meshes(self._geom_handles, self._q)

    # ------------------------------------------------------------------ haptic pointer
    def add_pointer(self, position, on_move, actions: Sequence[str] = (), on_action=None) -> None:
        """A draggable haptic pointer (Chardonnet 2009, §3.4; docs/haptics.md): a transform gizmo with a
        sphere at ``position`` [m]; every drag calls ``on_move(position (3,), quaternion xyzw (4,))`` (in
        viser's thread), and a "haptic device" folder has a button per name of ``actions`` calling
        ``on_action(name)``. A second call moves the existing pointer."""
        p = finite_vector(position, 3, "haptic pointer", "position", ViewerError)
        if self.pointer is not None:
            self.pointer.position = tuple(p)
            return
        scene, gui = self.server.scene, self.server.gui
        self.pointer = scene.add_transform_controls("/haptic/pointer", scale=POINTER_SCALE, position=tuple(p))
        scene.add_icosphere("/haptic/pointer/sphere", radius=POINTER_RADIUS, color=POINTER_COLOR)

        def moved(event):
            h = event.target
            w, x, y, z = h.wxyz
            on_move(np.array(h.position, float), np.array([x, y, z, w], float))

        self.pointer.on_update(moved)
        with gui.add_folder("haptic device"):
            for name in actions:
                b = gui.add_button(name)
                b.on_click(lambda _, name=name: on_action and on_action(name))
                self.pointer_buttons[name] = b
            self.pointer_status = gui.add_markdown("drag the orange gizmo; attach or touch a body")

    # ------------------------------------------------------------------ browser camera
    def add_camera_listener(self, on_camera) -> None:
        """Call ``on_camera(position (3,) [m], rotation (3, 3))`` whenever a browser's camera moves:
        the camera's pose in the world, its axes x right, y down, z into the screen (viser's camera
        convention), for the browsers connected now and later (in viser's threads)."""

        def attach(client):
            client.camera.on_update(lambda cam: on_camera(np.array(cam.position, float), wxyz_to_rotation(cam.wxyz)))

        self.server.on_client_connect(attach)
        for client in self.server.get_clients().values():
            attach(client)

    def set_pointer_status(self, text: str) -> None:
        """The "haptic device" folder's status line (markdown)."""
        if self.pointer_status is not None and self.pointer_status.content != text:
            self.pointer_status.content = text

    # ------------------------------------------------------------------ phantom robot
    @property
    def phantom_q(self) -> np.ndarray | None:
        """The phantom (commanded) robot's configuration, None when none is shown."""
        return None if self._phantom_q is None else self._phantom_q.copy()

    @property
    def phantom_handles(self) -> list:
        """[(geometry index, handle)] of the phantom's meshes (empty before the first phantom)."""
        return list(self._phantom_handles)

    def set_phantom_joint_positions(self, names: Sequence[str], positions: Sequence[float]) -> None:
        """Show the "phantom" robot: a translucent copy at the commanded joint positions (the
        pilot's ~/joint_states) over the measured one; its base and the joints not named are the
        measured robot's. Unknown names are ignored; non-finite values are refused (`ViewerError`)."""
        if self.robot is None:
            return
        model = self.robot.model
        values = finite_vector(positions, len(names), "phantom joint positions", "position", ViewerError)
        with self._lock:
            q = self._q.copy()
            for name, value in zip(names, values):
                if name == model.names[1] or not model.existJointName(name):
                    continue
                set_joint_angle(q, model.joints[model.getJointId(name)], value)
            if not self._phantom_handles:
                self.server.scene.add_frame("/phantom", show_axes=False)
                self._phantom_handles = self._add_robot_meshes("/phantom", PHANTOM_COLOR, PHANTOM_OPACITY)
            self._phantom_q = q
            self._place_meshes(self._phantom_handles, q)

    def clear_phantom(self) -> None:
        """Remove the phantom robot."""
        with self._lock:
            for _, h in self._phantom_handles:
                h.remove()
            self._phantom_handles, self._phantom_q = [], None

    def set_q(self, q) -> None:
        """Show configuration ``q`` (nq,): base xyz [m], quaternion xyzw, joints [rad]."""
        if self.robot is None:
            raise ViewerError("set_q: this viewer has no robot")
        q = finite_vector(q, self.robot.model.nq, f"set_q (robot '{self.robot.name}')", "q", ViewerError)
        n = np.linalg.norm(q[3:7])
        if n < 1e-9:
            raise ViewerError("set_q: base quaternion q[3:7] is zero")
        q[3:7] /= n
        with self._lock:
            self._q = q
            self._push_robot()
            self._sync_sliders()
            self._markers.follow_robot()

    def set_joint_positions(
        self, names: Sequence[str], positions: Sequence[float], base: Sequence[float] | None = None
    ) -> None:
        """Set named 1-DOF joints [rad] (unknown names are ignored) and optionally the base pose
        ``(x, y, z, qx, qy, qz, qw)``; the other joints keep their value."""
        if self.robot is None:
            return
        model = self.robot.model
        with self._lock:
            q = self._q.copy()
            for name, value in zip(names, positions):
                if name == model.names[1] or not model.existJointName(name):
                    continue
                set_joint_angle(q, model.joints[model.getJointId(name)], value)
            if base is not None:
                q[:7] = np.asarray(base, dtype=float)
        self.set_q(q)

    def set_posture(self, name: str) -> None:
        """Show the robot's posture ``name`` (also selects it in the GUI)."""
        q = self._posture_q(name)
        with self._lock:
            self._syncing = True
            try:
                if self.robot is not None and name in self._posture_dropdown.options:
                    self._posture_dropdown.value = name
            finally:
                self._syncing = False
        self.set_q(q)

    # ------------------------------------------------------------------ GUI
    def _build_gui(self):
        gui = self.server.gui
        if self.robot is not None:
            title = f"**{self.robot.name}**" + (" (following /joint_states)" if self.follow else "")
            gui.add_markdown(title)
            self._show_robot = gui.add_checkbox("show robot", True)
            self._show_robot.on_update(lambda _: self._set_robot_visible(self._show_robot.value))
            names = list(self.robot.postures)
            self._posture_dropdown = gui.add_dropdown(
                "posture", names, initial_value=self._current_posture_name(names), disabled=self.follow
            )
            self._posture_dropdown.on_update(self._on_posture)
            with gui.add_folder("joints", expand_by_default=False):
                model = self.robot.model
                for name in self.robot.joint_names:
                    jid = model.getJointId(name)
                    j = model.joints[jid]
                    if j.nv != 1:
                        continue
                    lo, hi = model.lowerPositionLimit[j.idx_q], model.upperPositionLimit[j.idx_q]
                    if j.nq == 2 or not (np.isfinite(lo) and np.isfinite(hi)) or hi <= lo:
                        lo, hi = -np.pi, np.pi  # continuous or unlimited joint: one turn
                    value = self._joint_value(j)
                    s = gui.add_slider(
                        name,
                        min=float(lo),
                        max=float(hi),
                        step=1e-3,
                        initial_value=float(np.clip(value, lo, hi)),
                        disabled=self.follow,
                    )
                    s.on_update(lambda _ev, j=j, s=s: self._on_slider(j, s))
                    self._sliders.append((j, s))
        if self._scene_handles.surfaces:
            self._show_surfaces = gui.add_checkbox("show surfaces", True)
            self._show_surfaces.on_update(
                lambda _: self._set_visible(self._scene_handles.surfaces, self._show_surfaces.value)
            )
        self._show_markers = gui.add_checkbox("show markers", True)
        self._show_markers.on_update(lambda _: self._set_markers_visible(self._show_markers.value))

    def _current_posture_name(self, names):
        for n in names:
            if self._q is not None and np.allclose(self.robot.postures[n], self._q):
                return n
        return self.robot.default_posture if self.robot.default_posture in names else names[0]

    def _joint_value(self, j):
        return joint_angle(self._q, j)

    def _sync_sliders(self):
        self._syncing = True
        try:
            for j, s in self._sliders:
                v = float(np.clip(self._joint_value(j), s.min, s.max))
                if abs(s.value - v) > 1e-6:
                    s.value = v
        finally:
            self._syncing = False

    def _on_slider(self, j, s):
        if self._syncing or self.robot is None:
            return
        with self._lock:
            q = self._q.copy()
            set_joint_angle(q, j, s.value)
        self.set_q(q)

    def _on_posture(self, _event):
        if self._syncing:
            return
        self.set_q(self._posture_q(self._posture_dropdown.value))

    def _set_robot_visible(self, visible: bool):
        with self._lock:
            self._robot_root.visible = bool(visible)
            for _, h in self._geom_handles:
                h.visible = bool(visible)

    def _set_visible(self, handles, visible: bool):
        with self._lock:
            for h in handles:
                h.visible = bool(visible)

    def _set_markers_visible(self, visible: bool):
        with self._lock:
            self._markers.set_visible(visible)

    # ------------------------------------------------------------------ camera
    def robot_bounds(self) -> np.ndarray | None:
        """(2, 3) world bounding box [m] of the robot's geometry at the current q, or None."""
        if self.robot is None:
            return None
        with self._lock:
            return camera.geometry_bounds(self._geometry_model, self._data)

    def scene_bounds(self) -> np.ndarray | None:
        """(2, 3) box [m] around the scene's static (not plane) and free bodies' origins, or None."""
        return camera.scene_bounds(self.scene)

    def _place_camera(self):
        bounds = self.robot_bounds()
        if bounds is None:
            bounds = self.scene_bounds()
        look_at, position = camera.camera_pose(bounds)
        self.server.initial_camera.look_at = tuple(look_at)
        self.server.initial_camera.position = tuple(position)
        self.server.initial_camera.up = (0.0, 0.0, 1.0)

    # ------------------------------------------------------------------ scene
    def _draw_scene(self):
        self._scene_handles = draw_scene(self.server.scene, self.scene)
        self._free_body_handles = self._scene_handles.free_bodies

    def set_body_pose(self, name: str, position, quaternion_xyzw) -> bool:
        """Move a drawn free body (scene ``free_bodies`` name); False if there is no such body."""
        h = self._free_body_handles.get(name)
        if h is None:
            return False
        h.position = tuple(np.asarray(position, dtype=float))
        h.wxyz = tuple(quat_xyzw_to_wxyz(quaternion_xyzw))
        return True

    def body_position(self, name: str) -> np.ndarray | None:
        """Where free body ``name`` is drawn (its frame's position [m]), or None if there is none."""
        h = self._free_body_handles.get(name)
        return None if h is None else np.array(h.position, dtype=float)

    # ------------------------------------------------------------------ markers
    def _frame_pose(self, frame_id: str):
        """World pose (position, wxyz) of a marker frame: world frames, or a robot frame."""
        if frame_id.lstrip("/") in WORLD_FRAMES or self.robot is None:
            return None
        model = self.robot.model
        name = frame_id.lstrip("/")
        if not model.existFrame(name):
            return None  # unknown frame: drawn in the world frame
        fid = model.getFrameId(name)
        M = pin.updateFramePlacement(model, self._data, fid)
        return np.array(M.translation), rotation_to_wxyz(M.rotation)

    def apply_markers(self, markers: Sequence[Marker], group: str = "") -> None:
        """Apply markers (ADD/MODIFY, DELETE, DELETEALL) and redraw the ones that changed.

        ``group`` separates marker sources (the ROS node uses the topic name): keys are
        ``(ns, id)`` within a group, and DELETEALL clears its own group only.
        """
        with self._lock:
            self._markers.apply(markers, group)

    def markers(self, group: str = "") -> dict[tuple[str, int], Marker]:
        """The current markers of ``group`` by ``(ns, id)``."""
        with self._lock:
            return self._markers.markers(group)

    def marker_handles(self, group: str = "") -> dict[tuple[str, int], list]:
        """The viser handles drawn per marker key of ``group`` (empty list: type not drawn)."""
        with self._lock:
            return self._markers.handles(group)

    def clear_markers(self, group: str = "") -> None:
        """Remove every marker of ``group``."""
        self.apply_markers([Marker(action=3)], group)

    # ------------------------------------------------------------------ replay
    def load_replay(self, recording) -> None:
        """Show a `humanoid_viewer.replay.Recording` (or a `humanoid_viewer.bag_replay.BagRecording`):
        adds a timeline, play/pause and speed (`humanoid_viewer.replay_player.ReplayPlayer`, ``viewer.replay``)."""
        if recording.nq is not None:
            if self.robot is None:
                raise ViewerError(
                    f"{recording.source}: the recording holds robot configurations but the viewer has no robot"
                )
            if recording.nq != self.robot.model.nq:
                raise ViewerError(
                    f"{recording.source}: configurations have {recording.nq} values, "
                    f"robot '{self.robot.name}' has nq = {self.robot.model.nq}"
                )
        self._replay.load(recording, self.server.gui)

    @property
    def replay_index(self) -> int:
        """The replay step shown."""
        return self._replay.index

    @property
    def playing(self) -> bool:
        """Whether the replay is playing."""
        return self._replay.playing

    def show_time(self, time_s: float) -> None:
        """Show the replay step at or just before ``time_s`` [s]."""
        self._replay.show_time(time_s)

    def show_index(self, i: int) -> None:
        """Show replay step ``i``: robot configuration, free-body poses, contact forces."""
        self._replay.show_index(i)

    def contact_segments(self, i: int | None = None) -> np.ndarray:
        """(k, 2, 3) start/end points [m] of the force arrows of replay step ``i`` (default: current)."""
        return self._replay.contact_segments(i)

    def play(self) -> None:
        """Start playing the replay from the current step (at the selected speed)."""
        self._replay.play()

    def pause(self) -> None:
        """Pause the replay."""
        self._replay.pause()

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Stop the replay thread and the server."""
        self._replay.close()
        with contextlib.suppress(Exception):
            self.server.stop()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
