"""The markers a viewer shows, by group (`MarkerLayer`): each group's `MarkerStore` (a ROS topic's
MarkerArray, the replay's plan markers, ...), the viser nodes drawn for each marker, their
visibility (the "show markers" checkbox), and the markers attached to a robot frame, which move
with the robot. The caller holds its lock around every call.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence

from humanoid_viewer.markers import WORLD_FRAMES, Marker, MarkerStore, draw_marker
from humanoid_viewer.scene_view import safe_name

__all__ = ["MarkerLayer"]


class MarkerLayer:
    """Markers drawn in the viser ``scene``; ``frame_pose(frame_id)`` gives a marker frame's world
    pose ``(position, wxyz)``, or None for the world frame (an unknown frame is drawn in the world)."""

    def __init__(self, scene, frame_pose: Callable):
        self.scene, self.frame_pose = scene, frame_pose
        self.visible = True
        self._stores: dict[str, MarkerStore] = {}
        self._handles: dict[tuple[str, str, int], list] = {}  # (group, ns, id)

    def apply(self, markers: Sequence[Marker], group: str) -> None:
        """Apply markers (ADD/MODIFY, DELETE, DELETEALL) to ``group`` and redraw the ones that changed."""
        store = self._stores.setdefault(group, MarkerStore())
        changed, removed = store.apply(markers)
        for key in removed + changed:
            for h in reversed(self._handles.pop((group, *key), [])):
                with contextlib.suppress(Exception):
                    h.remove()
        for key in changed:
            self._draw(group, key)

    def _draw(self, group, key):
        m = self._stores[group].markers[key]
        handles = draw_marker(
            self.scene, f"/markers/{safe_name(group)}/{safe_name(m.ns)}/{m.id}", m, self.frame_pose(m.frame_id)
        )
        if handles and not self.visible:
            handles[0].visible = False
        self._handles[(group, *key)] = handles

    def follow_robot(self) -> None:
        """Move the markers attached to robot frames to their frames' present poses."""
        for group, store in self._stores.items():
            for key, m in store.markers.items():
                handles = self._handles.get((group, *key))
                if m.frame_id.lstrip("/") not in WORLD_FRAMES and handles:
                    pose = self.frame_pose(m.frame_id)
                    if pose is not None:
                        handles[0].position, handles[0].wxyz = tuple(pose[0]), tuple(pose[1])

    def set_visible(self, visible: bool) -> None:
        """Show or hide every marker (and those drawn later)."""
        self.visible = bool(visible)
        for handles in self._handles.values():
            if handles:
                handles[0].visible = self.visible

    def markers(self, group: str) -> dict[tuple[str, int], Marker]:
        """The current markers of ``group`` by ``(ns, id)``."""
        store = self._stores.get(group)
        return dict(store.markers) if store is not None else {}

    def handles(self, group: str) -> dict[tuple[str, int], list]:
        """The viser handles drawn per marker key of ``group`` (empty list: type not drawn)."""
        return {k[1:]: v for k, v in self._handles.items() if k[0] == group}
