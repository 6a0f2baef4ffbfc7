"""The web viewer (viser), ROS-free: robot, scene, posture selector, joint sliders, markers, replay.

    from humanoid_viewer.app import Viewer
    viewer = Viewer("hrp2", scene="flat", port=8080)   # prints http://127.0.0.1:8080/
    viewer.set_q(q)                                     # full configuration (nq,)
    viewer.apply_markers([Marker(ns="f", id=0, type=ARROW, points=[[0, 0, 0], [0, 0, 1]])])
    viewer.load_replay(load_recording("run.json", viewer.robot)); viewer.play()
    viewer.close()

The robot is drawn from its visual geometry model (collision model when there is no visual
geometry), placed with ``pin.updateGeometryPlacements``. Every public method is thread-safe
(GUI callbacks run in viser's threads, ROS callbacks in the executor's).
"""
from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pinocchio as pin

from humanoid_model.exceptions import HumanoidStackError, ModelError
from humanoid_viewer.geometry import shape_mesh
from humanoid_viewer.markers import (WORLD_FRAMES, Marker, MarkerStore, draw_marker,
                                     quat_xyzw_to_wxyz)

# Choices of ours (display only, no physics):
DEFAULT_ROBOT_COLOR = (0.75, 0.75, 0.78, 1.0)  # links without a URDF material colour
CONTACT_COLOR = (230, 40, 40)                  # replayed contact force arrows and points (RGB)
FORCE_SCALE = 1e-3                             # [m/N] contact arrow length: 600 N (HRP-2's weight) -> 0.6 m
REPLAY_RATE = 30.0                             # [Hz] frames drawn per second while playing
CAMERA_FOV = 75.0 * np.pi / 180.0              # viser's default vertical field of view [rad]
CAMERA_DIRECTION = np.array([1.0, 0.55, 0.35])  # camera seen from front-left-above (robot faces +x)
CAMERA_MARGIN = 1.25                           # fraction of the robot's height shown in the view
SCENE_MARGIN = 0.3                             # [m] added around body origins to frame a robot-less scene


class ViewerError(HumanoidStackError):
    """Bad input to the viewer (wrong configuration size, unknown posture...)."""


def _load_robot(robot):
    if robot is None or hasattr(robot, "model"):
        return robot
    from humanoid_model.robot import load_robot

    return load_robot(robot)


def _load_scene(scene):
    if scene is None or not isinstance(scene, (str, Path)):
        return scene
    from humanoid_model.scene import load_scene

    return load_scene(scene)


def _wxyz(R) -> np.ndarray:
    return quat_xyzw_to_wxyz(pin.Quaternion(np.asarray(R)).coeffs())


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
    """

    def __init__(self, robot=None, scene=None, posture: Optional[str] = None, host: str = "127.0.0.1",
                 port: int = 8080, follow: bool = False, verbose: bool = True):
        import viser

        self.robot = _load_robot(robot)
        self.scene = _load_scene(scene)
        self.follow = bool(follow)
        self._lock = threading.RLock()
        self._syncing = False
        self._q_callbacks: List[Callable[[np.ndarray], None]] = []
        self._stores: Dict[str, MarkerStore] = {}
        self._marker_handles: Dict[Tuple[str, str, int], list] = {}  # (group, ns, id)
        self._replay = None
        self._replay_index = 0
        self._playing = threading.Event()
        self._closed = threading.Event()
        self._player: Optional[threading.Thread] = None

        self._q = None
        self._geom_handles = []
        if self.robot is not None:  # bad input fails here, before a server starts
            self._data = self.robot.model.createData()
            self._gdata = pin.GeometryData(self._geometry_model)
            self._q = self._initial_q(posture)

        self.server = viser.ViserServer(host=host, port=int(port), verbose=False)
        try:
            self.host = host
            self.port = int(self.server.get_port())
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
        return f"http://{self.host}:{self.port}/"

    @property
    def q(self) -> Optional[np.ndarray]:
        """A copy of the robot configuration shown (nq,), or None without a robot."""
        with self._lock:
            return None if self._q is None else self._q.copy()

    @property
    def postures(self) -> List[str]:
        return list(self.robot.postures) if self.robot is not None else []

    @property
    def _geometry_model(self):
        vm = self.robot.visual_model
        return vm if vm.ngeoms > 0 else self.robot.collision_model

    @property
    def show_robot(self) -> bool:
        return bool(self._show_robot.value) if self.robot is not None else False

    @show_robot.setter
    def show_robot(self, value: bool):
        if self.robot is not None:
            self._show_robot.value = bool(value)

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
        spec = self._scene_robot_spec()
        q = self._posture_q(posture if posture is not None else getattr(spec, "posture", None))
        if spec is not None and posture is None:  # the scene's joint overrides [rad]
            model = self.robot.model
            for name, value in (getattr(spec, "joints", None) or {}).items():
                if model.existJointName(name) and model.joints[model.getJointId(name)].nq == 1:
                    q[model.joints[model.getJointId(name)].idx_q] = value
        return q

    def _posture_q(self, name):
        """Configuration of posture ``name`` (None: default), placed as the scene's robot."""
        try:
            q = self.robot.q(name)
        except ModelError as exc:
            raise ViewerError(str(exc)) from None
        spec = self._scene_robot_spec()
        if spec is not None:
            q[:7] = spec.base_pose(q[:7])
        return q

    def _build_robot(self):
        gm = self._geometry_model
        self._robot_root = self.server.scene.add_frame("/robot", show_axes=False)
        for i, geom in enumerate(gm.geometryObjects):
            try:
                verts, faces = shape_mesh(geom)
            except ModelError:
                continue  # planes/half-spaces or unreadable meshes: nothing to draw
            color = np.asarray(geom.meshColor, dtype=float)
            if not getattr(geom, "overrideMaterial", False) and np.allclose(color, [0.9, 0.9, 0.9, 1.0]):
                color = np.asarray(DEFAULT_ROBOT_COLOR)
            rgb = tuple(int(round(255 * c)) for c in np.clip(color[:3], 0, 1))
            opacity = None if color[3] >= 1 else float(color[3])
            safe = geom.name.replace("/", "_")
            h = self.server.scene.add_mesh_simple(f"/robot/{i:03d}_{safe}", verts.astype(np.float32),
                                                  faces.astype(np.uint32), color=rgb, opacity=opacity,
                                                  flat_shading=False)
            self._geom_handles.append((i, h))

    def _push_robot(self):
        """Compute geometry placements for ``self._q`` and send them (lock held by caller or init)."""
        model = self.robot.model
        gm = self._geometry_model
        pin.forwardKinematics(model, self._data, self._q)
        pin.updateGeometryPlacements(model, self._data, gm, self._gdata)
        with self.server.atomic():
            for i, h in self._geom_handles:
                M = self._gdata.oMg[i]
                h.position = tuple(M.translation)
                h.wxyz = tuple(_wxyz(M.rotation))

    def set_q(self, q) -> None:
        """Show configuration ``q`` (nq,): base xyz [m], quaternion xyzw, joints [rad]."""
        if self.robot is None:
            raise ViewerError("set_q: this viewer has no robot")
        q = np.asarray(q, dtype=float).reshape(-1)
        nq = self.robot.model.nq
        if q.shape != (nq,):
            raise ViewerError(f"set_q: configuration has {q.size} values, robot '{self.robot.name}' has nq = {nq}")
        if not np.all(np.isfinite(q)):
            raise ViewerError(f"set_q: configuration contains NaN or infinity: {q.tolist()}")
        n = np.linalg.norm(q[3:7])
        if n < 1e-9:
            raise ViewerError("set_q: base quaternion q[3:7] is zero")
        q = q.copy()
        q[3:7] /= n
        with self._lock:
            self._q = q
            self._push_robot()
            self._sync_sliders()
            self._refresh_robot_frame_markers()
        self._notify()

    def set_joint_positions(self, names: Sequence[str], positions: Sequence[float],
                            base: Optional[Sequence[float]] = None) -> None:
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
                j = model.joints[model.getJointId(name)]
                if j.nq == 1:
                    q[j.idx_q] = value
                elif j.nq == 2 and j.nv == 1:
                    q[j.idx_q:j.idx_q + 2] = (np.cos(value), np.sin(value))
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

    def on_q_change(self, callback: Callable[[np.ndarray], None]) -> None:
        """Call ``callback(q)`` after every configuration change (sliders, postures, set_q)."""
        self._q_callbacks.append(callback)

    def _notify(self):
        q = self.q
        for cb in list(self._q_callbacks):
            cb(q)

    # ------------------------------------------------------------------ GUI
    def _build_gui(self):
        gui = self.server.gui
        self._sliders = []
        if self.robot is not None:
            title = f"**{self.robot.name}**" + (" (following /joint_states)" if self.follow else "")
            gui.add_markdown(title)
            self._show_robot = gui.add_checkbox("show robot", True)
            self._show_robot.on_update(lambda _: self._set_robot_visible(self._show_robot.value))
            names = list(self.robot.postures)
            self._posture_dropdown = gui.add_dropdown("posture", names, initial_value=self._current_posture_name(names),
                                                      disabled=self.follow)
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
                    s = gui.add_slider(name, min=float(lo), max=float(hi), step=1e-3,
                                       initial_value=float(np.clip(value, lo, hi)), disabled=self.follow)
                    s.on_update(lambda _ev, j=j, s=s: self._on_slider(j, s))
                    self._sliders.append((j, s))
        if self._scene_handles.surfaces:
            self._show_surfaces = gui.add_checkbox("show surfaces", True)
            self._show_surfaces.on_update(lambda _: self._set_visible(self._scene_handles.surfaces,
                                                                      self._show_surfaces.value))
        self._show_markers = gui.add_checkbox("show markers", True)
        self._show_markers.on_update(lambda _: self._set_markers_visible(self._show_markers.value))
        self._replay_folder = None

    def _current_posture_name(self, names):
        for n in names:
            if self._q is not None and np.allclose(self.robot.postures[n], self._q):
                return n
        return self.robot.default_posture if self.robot.default_posture in names else names[0]

    def _joint_value(self, j):
        if j.nq == 2:
            return float(np.arctan2(self._q[j.idx_q + 1], self._q[j.idx_q]))
        return float(self._q[j.idx_q])

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
            if j.nq == 2:
                q[j.idx_q:j.idx_q + 2] = (np.cos(s.value), np.sin(s.value))
            else:
                q[j.idx_q] = s.value
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
            for handles in self._marker_handles.values():
                if handles:
                    handles[0].visible = bool(visible)

    # ------------------------------------------------------------------ camera
    def robot_bounds(self) -> Optional[np.ndarray]:
        """(2, 3) world bounding box [m] of the robot's geometry at the current q, or None."""
        if self.robot is None:
            return None
        gm = self._geometry_model
        pts = []
        with self._lock:
            from humanoid_model.robot import geometry_points

            for i, geom in enumerate(gm.geometryObjects):
                try:
                    local = geometry_points(geom)  # in the parent joint frame
                except Exception:
                    continue
                oMi = self._data.oMi[geom.parentJoint]
                pts.append((oMi.rotation @ local.T).T + oMi.translation)
        if not pts:
            return None
        pts = np.vstack(pts)
        return np.stack([pts.min(axis=0), pts.max(axis=0)])

    def scene_bounds(self) -> Optional[np.ndarray]:
        """(2, 3) box [m] around the scene's static (not plane) and free bodies' origins, or None."""
        if self.scene is None:
            return None
        pts = [np.asarray(b.pose.xyz, float) for b in self.scene.bodies if b.shape.kind != "plane"]
        pts += [np.asarray(fb.pose.xyz, float) for fb in self.scene.free_bodies]
        if not pts:
            return None
        pts = np.array(pts)
        return np.stack([pts.min(axis=0) - SCENE_MARGIN, pts.max(axis=0) + SCENE_MARGIN])

    def _place_camera(self):
        bounds = self.robot_bounds()
        if bounds is None:
            bounds = self.scene_bounds()
        if bounds is None:
            centre, size = np.zeros(3), 2.0
        else:
            centre = bounds.mean(axis=0)
            size = float(max(bounds[1] - bounds[0]))
        d = CAMERA_MARGIN * 0.5 * size / np.tan(0.5 * CAMERA_FOV) + 0.5 * size
        direction = CAMERA_DIRECTION / np.linalg.norm(CAMERA_DIRECTION)
        self.server.initial_camera.look_at = tuple(centre)
        self.server.initial_camera.position = tuple(centre + d * direction)
        self.server.initial_camera.up = (0.0, 0.0, 1.0)

    # ------------------------------------------------------------------ scene
    def _draw_scene(self):
        from humanoid_viewer.scene_view import draw_scene

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
        return np.array(M.translation), _wxyz(M.rotation)

    def apply_markers(self, markers: Sequence[Marker], group: str = "") -> None:
        """Apply markers (ADD/MODIFY, DELETE, DELETEALL) and redraw the ones that changed.

        ``group`` separates marker sources (the ROS node uses the topic name): keys are
        ``(ns, id)`` within a group, and DELETEALL clears its own group only.
        """
        with self._lock:
            store = self._stores.setdefault(group, MarkerStore())
            changed, removed = store.apply(markers)
            for key in removed + changed:
                for h in reversed(self._marker_handles.pop((group, *key), [])):
                    try:
                        h.remove()
                    except Exception:
                        pass
            for key in changed:
                self._draw_marker(group, key)

    def _draw_marker(self, group, key):
        m = self._stores[group].markers[key]
        safe = lambda s: "".join(c if c.isalnum() or c in "-_." else "_" for c in s) or "_"
        handles = draw_marker(self.server.scene, f"/markers/{safe(group)}/{safe(m.ns)}/{m.id}", m,
                              self._frame_pose(m.frame_id))
        if handles and not self._show_markers.value:
            handles[0].visible = False
        self._marker_handles[(group, *key)] = handles

    def _refresh_robot_frame_markers(self):
        """Markers attached to robot frames move with the robot."""
        for group, store in self._stores.items():
            for key, m in store.markers.items():
                handles = self._marker_handles.get((group, *key))
                if m.frame_id.lstrip("/") not in WORLD_FRAMES and handles:
                    pose = self._frame_pose(m.frame_id)
                    if pose is not None:
                        handles[0].position, handles[0].wxyz = tuple(pose[0]), tuple(pose[1])

    def markers(self, group: str = "") -> Dict[Tuple[str, int], Marker]:
        """The current markers of ``group`` by ``(ns, id)``."""
        with self._lock:
            store = self._stores.get(group)
            return dict(store.markers) if store is not None else {}

    def marker_handles(self, group: str = "") -> Dict[Tuple[str, int], list]:
        """The viser handles drawn per marker key of ``group`` (empty list: type not drawn)."""
        with self._lock:
            return {k[1:]: v for k, v in self._marker_handles.items() if k[0] == group}

    def clear_markers(self, group: str = "") -> None:
        self.apply_markers([Marker(action=3)], group)

    # ------------------------------------------------------------------ replay
    def load_replay(self, recording) -> None:
        """Show a `humanoid_viewer.replay.Recording`: adds a timeline, play/pause and speed."""
        if recording.q is not None:
            if self.robot is None:
                raise ViewerError(f"{recording.source}: the recording holds robot configurations "
                                  "but the viewer has no robot")
            if recording.q.shape[1] != self.robot.model.nq:
                raise ViewerError(f"{recording.source}: configurations have {recording.q.shape[1]} values, "
                                  f"robot '{self.robot.name}' has nq = {self.robot.model.nq}")
        gui = self.server.gui
        self.pause()
        if self._player is not None:
            self._player.join(timeout=2.0)
        with self._lock:
            if self._replay_folder is not None:  # a new recording replaces the previous one
                self._replay_folder.remove()
                for h in self._contact_handles:
                    h.remove()
            self._replay = recording
            t = recording.t
            dt = float(np.min(np.diff(t))) if len(t) > 1 and np.any(np.diff(t) > 0) else 0.01
            dt = max(dt if dt > 0 else 0.01, 1e-4)
            self._replay_folder = gui.add_folder("replay")
            with self._replay_folder:
                gui.add_markdown(f"{Path(recording.source).name}: {len(t)} steps, {recording.duration:.3f} s")
                self._timeline = gui.add_slider("time [s]", min=float(t[0]), max=float(max(t[-1], t[0] + dt)),
                                                step=dt, initial_value=float(t[0]))
                self._timeline.on_update(lambda _: None if self._syncing else self.show_time(self._timeline.value))
                self._play_button = gui.add_button("play / pause")
                self._play_button.on_click(lambda _: self.pause() if self._playing.is_set() else self.play())
                self._speed = gui.add_dropdown("speed", ["0.1", "0.25", "0.5", "1", "2", "4"], initial_value="1")
                self._loop = gui.add_checkbox("loop", True)
                self._force_scale = gui.add_number("force scale [m/N]", FORCE_SCALE, min=0.0, step=1e-4)
            self._contact_handles = []
        self.show_index(0)

    @property
    def replay_index(self) -> int:
        return self._replay_index

    @property
    def playing(self) -> bool:
        return self._playing.is_set()

    def show_time(self, time_s: float) -> None:
        """Show the replay step at or just before ``time_s`` [s]."""
        if self._replay is not None:
            self.show_index(self._replay.index_at(time_s))

    def show_index(self, i: int) -> None:
        """Show replay step ``i``: robot configuration, free-body poses, contact forces."""
        rec = self._replay
        if rec is None:
            raise ViewerError("show_index: no replay loaded")
        i = int(min(max(i, 0), len(rec) - 1))
        with self._lock:
            self._replay_index = i
            if rec.q is not None:
                self.set_q(rec.q[i])
            for name, (pos, quat) in rec.bodies.items():
                self.set_body_pose(name, pos[i], quat[i])
            self._draw_contacts(i)
            self._syncing = True
            try:
                self._timeline.value = float(np.clip(rec.t[i], self._timeline.min, self._timeline.max))
            finally:
                self._syncing = False

    def _draw_contacts(self, i):
        rec = self._replay
        for h in self._contact_handles:
            h.remove()
        self._contact_handles = []
        if rec.contacts is None or not rec.contacts[i]:
            return
        scale = float(self._force_scale.value)
        pts = np.array([c.point for c in rec.contacts[i]])
        forces = np.array([c.force for c in rec.contacts[i]])
        seg = np.stack([pts, pts + scale * forces], axis=1)
        keep = np.linalg.norm(seg[:, 1] - seg[:, 0], axis=1) > 1e-6
        self._contact_handles.append(self.server.scene.add_point_cloud(
            "/replay/contact_points", pts, CONTACT_COLOR, point_size=0.015, point_shape="circle"))
        if np.any(keep):
            self._contact_handles.append(self.server.scene.add_arrows(
                "/replay/contact_forces", seg[keep], CONTACT_COLOR, shaft_radius=0.004,
                head_radius=0.01, head_length=0.02))

    def contact_segments(self, i: Optional[int] = None) -> np.ndarray:
        """(k, 2, 3) start/end points [m] of the force arrows of replay step ``i`` (default: current)."""
        rec = self._replay
        i = self._replay_index if i is None else i
        if rec is None or rec.contacts is None or not rec.contacts[i]:
            return np.zeros((0, 2, 3))
        scale = float(self._force_scale.value)
        pts = np.array([c.point for c in rec.contacts[i]])
        forces = np.array([c.force for c in rec.contacts[i]])
        return np.stack([pts, pts + scale * forces], axis=1)

    def play(self) -> None:
        """Start playing the replay from the current step (at the selected speed)."""
        if self._replay is None:
            raise ViewerError("play: no replay loaded")
        self._playing.set()
        if self._player is None or not self._player.is_alive():
            self._player = threading.Thread(target=self._play_loop, name="viewer-replay", daemon=True)
            self._player.start()

    def pause(self) -> None:
        self._playing.clear()

    def _play_loop(self):
        rec = self._replay
        sim_t = float(rec.t[self._replay_index])
        if self._replay_index >= len(rec) - 1:
            sim_t = float(rec.t[0])
        last = time.monotonic()
        while not self._closed.is_set() and self._playing.is_set():
            now = time.monotonic()
            sim_t += (now - last) * float(self._speed.value)
            last = now
            if sim_t > rec.t[-1]:
                if self._loop.value and rec.duration > 0:
                    sim_t = float(rec.t[0])
                else:
                    self.show_index(len(rec) - 1)
                    self._playing.clear()
                    break
            self.show_index(rec.index_at(sim_t))
            self._closed.wait(1.0 / REPLAY_RATE)

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Stop the replay thread and the server."""
        self._closed.set()
        self._playing.clear()
        if self._player is not None:
            self._player.join(timeout=2.0)
        try:
            self.server.stop()
        except Exception:
            pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
