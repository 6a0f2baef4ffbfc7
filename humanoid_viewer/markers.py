"""A ROS-free representation of ``visualization_msgs/Marker`` and its drawing in viser.

`Marker` mirrors the message fields the viewer uses (same type and action constants as the
message), `marker_from_msg` converts a message (or any object with the same attributes: no ROS
import here), `MarkerStore` keeps the current markers keyed by ``(ns, id)`` and applies
ADD/MODIFY, DELETE and DELETEALL, and `draw_marker` turns one marker into viser scene nodes.

Supported types: ARROW, CUBE, SPHERE, CYLINDER, LINE_STRIP, LINE_LIST, SPHERE_LIST, POINTS,
TRIANGLE_LIST and TEXT_VIEW_FACING. CUBE_LIST and MESH_RESOURCE are stored but not drawn.
Units: positions and scales in [m], colours as RGBA in [0, 1], quaternions xyzw.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import pinocchio as pin

from humanoid_model.validation import finite_rows, finite_vector
from humanoid_viewer.exceptions import MarkerError

# visualization_msgs/Marker type constants (same values as the message definition).
ARROW, CUBE, SPHERE, CYLINDER, LINE_STRIP, LINE_LIST = 0, 1, 2, 3, 4, 5
CUBE_LIST, SPHERE_LIST, POINTS, TEXT_VIEW_FACING, MESH_RESOURCE, TRIANGLE_LIST = 6, 7, 8, 9, 10, 11
# Actions (MODIFY == ADD in the message definition).
ADD, MODIFY, DELETE, DELETEALL = 0, 0, 2, 3

DRAWN_TYPES = {
    ARROW,
    CUBE,
    SPHERE,
    CYLINDER,
    LINE_STRIP,
    LINE_LIST,
    SPHERE_LIST,
    POINTS,
    TRIANGLE_LIST,
    TEXT_VIEW_FACING,
}

# Frames that mean "world" for the viewer (the simulator's fixed frames).
WORLD_FRAMES = ("", "world", "map", "odom")

# Pose-form ARROW proportions: the shaft takes this fraction of the length (scale.x), the head the
# rest. The value is RViz's documented proportion, kept so that arrows look the same in both tools.
ARROW_SHAFT_FRACTION = 0.77


@dataclass
class Marker:
    """One marker, in the fields of ``visualization_msgs/Marker``.

    Attributes:
        ns, id: the key; a later marker with the same key replaces the earlier one.
        type: one of the type constants above.
        action: ADD (== MODIFY), DELETE or DELETEALL.
        frame_id: frame the pose and points are expressed in (``WORLD_FRAMES`` or a robot frame).
        position: pose translation [m], shape (3,).
        orientation: pose rotation as a unit quaternion xyzw, shape (4,).
        scale: per-type size [m] (as in the message: e.g. SPHERE diameters, line width in x).
        color: RGBA in [0, 1], shape (4,).
        points: (k, 3) points [m] for ARROW (start, end), lists, strips and triangles.
        colors: (k, 4) per-point RGBA, or empty.
        text: the TEXT_VIEW_FACING string.
    """

    ns: str = ""
    id: int = 0
    type: int = ARROW
    action: int = ADD
    frame_id: str = ""
    position: np.ndarray = field(default_factory=lambda: np.zeros(3))
    orientation: np.ndarray = field(default_factory=lambda: np.array([0.0, 0.0, 0.0, 1.0]))
    scale: np.ndarray = field(default_factory=lambda: np.ones(3))
    color: np.ndarray = field(default_factory=lambda: np.array([1.0, 0.0, 0.0, 1.0]))
    points: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    colors: np.ndarray = field(default_factory=lambda: np.zeros((0, 4)))
    text: str = ""

    def __post_init__(self):
        where = f"marker (ns='{self.ns}', id={self.id})"
        self.id = int(self.id)
        self.type = int(self.type)
        self.action = int(self.action)
        if self.action not in (ADD, DELETE, DELETEALL):
            raise MarkerError(f"{where}: action {self.action} is not ADD (0), DELETE (2) or DELETEALL (3)")
        self.position = finite_vector(self.position, 3, where, "pose.position", MarkerError)
        self.orientation = finite_vector(self.orientation, 4, where, "pose.orientation", MarkerError)
        norm = float(np.linalg.norm(self.orientation))
        # A zero quaternion (a default-constructed message) means identity, as in RViz.
        self.orientation = np.array([0.0, 0.0, 0.0, 1.0]) if norm < 1e-12 else self.orientation / norm
        self.scale = finite_vector(self.scale, 3, where, "scale", MarkerError)
        self.color = finite_vector(self.color, 4, where, "color", MarkerError)
        self.points = _rows(self.points, 3, where, "points")
        self.colors = _rows(self.colors, 4, where, "colors")
        if len(self.colors) and len(self.colors) != len(self.points):
            raise MarkerError(f"{where}: {len(self.colors)} colors for {len(self.points)} points")

    @property
    def key(self) -> tuple[str, int]:
        """The marker's key ``(ns, id)``."""
        return (self.ns, self.id)


def _rows(value, width, where, fieldname) -> np.ndarray:
    """(k, width) finite numbers; an empty list gives (0, width)."""
    if isinstance(value, (list, tuple, np.ndarray)) and len(value) == 0:
        return np.zeros((0, width))
    return finite_rows(value, width, where, fieldname, error=MarkerError)


def marker_from_msg(msg) -> Marker:
    """Convert a ``visualization_msgs/Marker`` (duck-typed: any object with its attributes)."""
    p, o = msg.pose.position, msg.pose.orientation
    return Marker(
        ns=str(msg.ns),
        id=int(msg.id),
        type=int(msg.type),
        action=int(msg.action),
        frame_id=str(msg.header.frame_id),
        position=[p.x, p.y, p.z],
        orientation=[o.x, o.y, o.z, o.w],
        scale=[msg.scale.x, msg.scale.y, msg.scale.z],
        color=[msg.color.r, msg.color.g, msg.color.b, msg.color.a],
        points=[[q.x, q.y, q.z] for q in msg.points],
        colors=[[c.r, c.g, c.b, c.a] for c in msg.colors],
        text=str(getattr(msg, "text", "")),
    )


def markers_from_array_msg(msg) -> list[Marker]:
    """Convert a ``visualization_msgs/MarkerArray`` into a list of `Marker` (order kept)."""
    return [marker_from_msg(m) for m in msg.markers]


class MarkerStore:
    """The current set of markers keyed by ``(ns, id)``.

    `apply` follows the message semantics: ADD/MODIFY inserts or replaces, DELETE removes one key,
    DELETEALL removes every marker (of every namespace, as in RViz) before the markers after it in
    the same array are added. It returns the keys whose drawing must be refreshed and removed.
    """

    def __init__(self):
        self.markers: dict[tuple[str, int], Marker] = {}

    def apply(self, markers: Iterable[Marker]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """Apply markers in order; returns (keys added or changed, keys removed)."""
        changed: dict[tuple[str, int], None] = {}
        removed: dict[tuple[str, int], None] = {}
        for m in markers:
            if m.action == DELETEALL:
                for k in self.markers:
                    removed[k] = None
                    changed.pop(k, None)
                self.markers.clear()
            elif m.action == DELETE:
                if self.markers.pop(m.key, None) is not None:
                    removed[m.key] = None
                changed.pop(m.key, None)
            else:
                self.markers[m.key] = m
                changed[m.key] = None
                removed.pop(m.key, None)
        return list(changed), list(removed)

    def __len__(self):
        return len(self.markers)

    def __contains__(self, key):
        return key in self.markers


# ---------------------------------------------------------------------- drawing in viser
def quat_xyzw_to_wxyz(q) -> np.ndarray:
    """A quaternion (x, y, z, w) reordered as viser's (w, x, y, z)."""
    q = np.asarray(q, dtype=float)
    return np.array([q[3], q[0], q[1], q[2]])


def rotation_to_wxyz(R) -> np.ndarray:
    """A rotation (3, 3) as viser's quaternion (w, x, y, z)."""
    return quat_xyzw_to_wxyz(pin.Quaternion(np.asarray(R)).coeffs())


def wxyz_to_rotation(wxyz) -> np.ndarray:
    """The rotation (3, 3) of a viser quaternion (w, x, y, z), normalised."""
    w, x, y, z = (float(v) for v in wxyz)
    return pin.Quaternion(w, x, y, z).normalized().toRotationMatrix()


def _rgb(color) -> tuple[int, int, int]:
    c = np.clip(np.asarray(color, dtype=float)[:3], 0.0, 1.0)
    return tuple(int(round(255 * x)) for x in c)


def _opacity(color) -> float | None:
    a = float(np.clip(color[3], 0.0, 1.0))
    return None if a >= 1.0 else a


def arrow_segment(marker: Marker) -> tuple[np.ndarray, float, float, float]:
    """(start-end points (2, 3) in the marker frame, shaft radius, head radius, head length) [m].

    With two points: scale.x is the shaft diameter, scale.y the head diameter and scale.z the head
    length (0 means 0.23 of the arrow length, as RViz does). Without points: the arrow goes along
    the pose's x axis, scale.x long, scale.y shaft diameter, scale.z head diameter.
    """
    if len(marker.points) >= 2:
        seg = marker.points[:2].copy()
        length = float(np.linalg.norm(seg[1] - seg[0]))
        shaft_d, head_d, head_l = marker.scale
        if head_l <= 0:
            head_l = (1 - ARROW_SHAFT_FRACTION) * length
        if head_d <= 0:
            head_d = 2 * shaft_d
    else:
        length = float(marker.scale[0])
        seg = np.array([[0.0, 0.0, 0.0], [length, 0.0, 0.0]])
        shaft_d, head_d = marker.scale[1], marker.scale[2]
        head_l = (1 - ARROW_SHAFT_FRACTION) * length
    return seg, 0.5 * float(shaft_d), 0.5 * float(head_d), float(min(head_l, length))


def draw_marker(scene, name: str, marker: Marker, frame_pose=None) -> list:
    """Add the viser nodes of one marker under ``name``; returns the handles (empty if not drawn).

    ``frame_pose`` is ``(position (3,), wxyz (4,))`` of the marker's frame in the world (None:
    world). The marker pose is applied on a parent frame node, so points stay in marker coordinates.
    """
    if marker.type not in DRAWN_TYPES:
        return []
    handles = []
    fpos, fwxyz = frame_pose if frame_pose is not None else (np.zeros(3), np.array([1.0, 0, 0, 0]))
    outer = scene.add_frame(name, show_axes=False, position=tuple(fpos), wxyz=tuple(fwxyz))
    handles.append(outer)
    root = scene.add_frame(
        f"{name}/pose",
        show_axes=False,
        position=tuple(marker.position),
        wxyz=tuple(quat_xyzw_to_wxyz(marker.orientation)),
    )
    handles.append(root)
    g = f"{name}/pose/g"
    rgb, opacity = _rgb(marker.color), _opacity(marker.color)
    t, s = marker.type, marker.scale
    if t == ARROW:
        seg, shaft_r, head_r, head_l = arrow_segment(marker)
        if np.linalg.norm(seg[1] - seg[0]) > 0:
            handles.append(
                scene.add_arrows(g, seg[None], rgb, shaft_radius=shaft_r, head_radius=head_r, head_length=head_l)
            )
    elif t == CUBE:
        handles.append(scene.add_box(g, color=rgb, dimensions=tuple(s), opacity=opacity))
    elif t == SPHERE:
        handles.append(scene.add_icosphere(g, radius=0.5, color=rgb, scale=tuple(s), opacity=opacity, subdivisions=2))
    elif t == CYLINDER:
        handles.append(scene.add_cylinder(g, radius=0.5, height=1.0, color=rgb, scale=tuple(s), opacity=opacity))
    elif t in (LINE_STRIP, LINE_LIST):
        pts = marker.points
        if t == LINE_STRIP:
            idx = (
                np.stack([np.arange(len(pts) - 1), np.arange(1, len(pts))], axis=1)
                if len(pts) > 1
                else np.zeros((0, 2), int)
            )
        else:
            idx = np.arange(len(pts) // 2 * 2).reshape(-1, 2)
        if len(idx):
            segs = pts[idx]
            if len(marker.colors):
                colors = (np.clip(marker.colors[idx][..., :3], 0, 1) * 255).astype(np.uint8)
            else:
                colors = rgb
            handles.append(scene.add_line_segments(g, segs, colors, thickness=max(float(s[0]), 1e-4)))
    elif t in (SPHERE_LIST, POINTS):
        if len(marker.points):
            colors = (np.clip(marker.colors[:, :3], 0, 1) * 255).astype(np.uint8) if len(marker.colors) else rgb
            handles.append(
                scene.add_point_cloud(
                    g,
                    marker.points,
                    colors,
                    point_size=float(s[0]),
                    point_shape="circle" if t == SPHERE_LIST else "square",
                )
            )
    elif t == TRIANGLE_LIST:
        n = len(marker.points) // 3 * 3
        if n:
            color = _rgb(marker.colors[0]) if len(marker.colors) else rgb
            handles.append(
                scene.add_mesh_simple(
                    g,
                    marker.points[:n],
                    np.arange(n).reshape(-1, 3),
                    color=color,
                    opacity=opacity,
                    side="double",
                    flat_shading=True,
                )
            )
    elif t == TEXT_VIEW_FACING:
        handles.append(scene.add_label(g, marker.text))
    return handles
