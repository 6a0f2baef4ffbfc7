"""The stances of a contact plan (PLAN.json, `humanoid_model.formats.plan`) as viewer markers: each
contact frame's axes (d_E red, b_E green, n_E blue, `PlanStance.frame_segments`) and the support
polygon (`PlanStance.polygon_loop`, Escande 2008, §3.4.4, eq. (3.63)). The replay shows the markers of
the stance whose witness posture was the last one passed (`humanoid_viewer.replay_player`); so does
the replay of a recording of an executed plan, whose stances carry their times in the run.
Display only; colours and widths are our choices."""

from __future__ import annotations

import numpy as np

from humanoid_viewer.markers import DELETEALL, LINE_LIST, LINE_STRIP, Marker

__all__ = ["AXIS_COLORS", "POLYGON_COLOR", "stance_markers"]

AXIS_COLORS = ((0.9, 0.1, 0.1, 1.0), (0.1, 0.8, 0.1, 1.0), (0.1, 0.3, 0.95, 1.0))  # d_E, b_E, n_E
POLYGON_COLOR = (1.0, 0.75, 0.0, 1.0)  # support polygon (amber)
LINE_WIDTH = 0.01  # [m] scale.x of the lines


def stance_markers(stance, ns: str = "plan") -> list[Marker]:
    """Markers replacing the previous ones: DELETEALL, the frames' axes (LINE_LIST, id 0) and the
    support polygon (LINE_STRIP, id 1, when the stance has one) of a `PlanStance`."""
    seg = stance.frame_segments()
    colors = np.repeat(np.tile(np.array(AXIS_COLORS), (len(seg) // 3, 1)), 2, axis=0)
    out = [
        Marker(ns=ns, action=DELETEALL),
        Marker(ns=ns, id=0, type=LINE_LIST, scale=(LINE_WIDTH, 0, 0), points=seg.reshape(-1, 3), colors=colors),
    ]
    loop = stance.polygon_loop()
    if len(loop):
        out.append(Marker(ns=ns, id=1, type=LINE_STRIP, scale=(LINE_WIDTH, 0, 0), color=POLYGON_COLOR, points=loop))
    return out
