"""Browser test of the haptic pointer (the attach mode of Chardonnet 2009, §3.4; docs/haptics.md
"From a browser"): in the web viewer a draggable gizmo is the pointer, and a user can grab a box
of the `box_push` scene and pull it from a browser. Here headless Chromium does it, the gizmo
moved programmatically.

The simulator and viewer nodes of `humanoid-stack up haptics` (config/haptics.yaml) run in this
process with real rclpy on the shipped `haptic_box` scene (HRP-2 and box_push's 1 kg box 1 m in
front of it). The page's own messages go over the viewer's websocket, as a browser sends them
(test/support/browser.py): the pointer gizmo dragged onto the box (viser's TransformControlsUpdateMessage),
the page's camera and the "attach" click, the gizmo dragged MOVE along -y. Once the simulator has
pulled the box there and the viewer node draws it there (states waited for, not durations), ONE
headless-Chromium screenshot (retaken only if WebGL drew nothing). The robot, the pointer and the
contact markers are hidden, so the only blue in the 3-D view is the box (FREE_COLOR): the test
requires the box's blue over much of the projection of its new place (the box's corners through
the viewer's initial camera) and nearly none where it started. A box the simulator did not move,
a page that does not follow the simulator (the box drawn where it started), a blank or an
unlit view, or a moved camera fail. Helpers: test/support/browser.py; HUMANOID_VIEWER_SCREENSHOTS=DIR
keeps the PNG. (A Chromium screenshot takes 5-45 s with software WebGL, by the machine's load.)
"""

import os
from pathlib import Path

import numpy as np
import pytest
from support.browser import HEIGHT, WIDTH, camera_message, project, rendered_screenshot, send_client_message

pytestmark = [pytest.mark.browser, pytest.mark.ros]

rclpy = pytest.importorskip("rclpy", reason="rclpy (ROS 2 wheels) not installed")  # noqa: E402
from rclpy.parameter import Parameter  # noqa: E402

TIMEOUT = 90.0  # [s] wall bound for each awaited state on a loaded 2-core machine (chosen, as the ROS tests)
MOVE = np.array([0.0, -0.25, 0.0])  # [m] (chosen) the gizmo's pull: 2.5 box widths, so the two places are apart
DEADBAND = 0.4 * 9.81 * 1.0 / 500.0 + 2e-3  # [m] mu m g / k_p of the attach spring (+2 mm): where the box stops
DRAWN_TOL = 1e-3  # [m] the page's box vs the simulator's (the box creeps in its deadband between messages)
MIN_NEW = 0.3  # chosen: the box's blue over its new place's image box (a cube fills ~60 % of it; 0 if not drawn)
MAX_OLD = 0.02  # chosen: blue left where the box started (0 measured)


def _blue(img: np.ndarray) -> np.ndarray:
    """Pixels of the free bodies' blue (humanoid_viewer.scene_view.FREE_COLOR = (70, 130, 200)) under
    any lighting: blue well above red and above green (the grid, the shadows and the background are
    grey; chosen margins)."""
    r, g, b = img[..., 0], img[..., 1], img[..., 2]
    return (b - r > 40) & (b - g > 20)


def _image_box(centre, size, cam):
    """(u0, v0, u1, v1) [px]: the image rectangle of a cube of edge ``size`` [m] at ``centre``."""
    half = 0.5 * size
    corners = np.array([centre + [x, y, z] for x in (-half, half) for y in (-half, half) for z in (-half, half)])
    uv = project(corners, np.asarray(cam.position), np.asarray(cam.look_at), cam.fov, WIDTH, HEIGHT)
    u0, v0 = np.floor(uv.min(axis=0)).astype(int)
    u1, v1 = np.ceil(uv.max(axis=0)).astype(int)
    return max(u0, 0), max(v0, 0), min(u1, WIDTH), min(v1, HEIGHT)


def test_the_pointer_gizmo_pulls_the_box_and_the_page_draws_it_there(ros_harness, tmp_path):
    from viser._messages import GuiUpdateMessage, TransformControlsUpdateMessage

    from humanoid_model.scene import load_scene
    from humanoid_ros.simulator import SimulatorNode
    from humanoid_ros.viewer import ViewerNode

    keep = os.environ.get("HUMANOID_VIEWER_SCREENSHOTS")
    outdir = Path(keep) if keep else tmp_path
    outdir.mkdir(parents=True, exist_ok=True)
    size = float(load_scene("haptic_box").free_bodies[0].parts[0].shape.size[0])  # [m] the cube's edge
    h = ros_harness(timeout=TIMEOUT, period=0.05)
    sim_params = {"scene": "haptic_box", "haptic.body": "box", "real_time_factor": 0.0}
    sim = h.add(
        SimulatorNode(context=h.context, parameter_overrides=[Parameter(k, value=v) for k, v in sim_params.items()])
    )
    view_params = {
        "port": 0,
        "scene": "haptic_box",
        "joint_state_source": False,
        "haptic_device": "/simulator",
        "marker_topics": [""],  # no contact markers: only the box may be blue
    }
    node = h.add(
        ViewerNode(context=h.context, parameter_overrides=[Parameter(k, value=v) for k, v in view_params.items()])
    )
    viewer = node.viewer

    def box():
        return np.array(sim.world.body_state("box").position)

    def drag(p):
        msg = TransformControlsUpdateMessage(name=viewer.pointer.name, wxyz=(1.0, 0, 0, 0), position=tuple(p))
        send_client_message(viewer.url, msg)

    start = box()
    drag(start)
    assert h.spin_until(lambda: sim.world.haptics is not None and sim.world.haptics.position is not None)
    assert h.spin_until(lambda: np.allclose(sim.world.haptics.position, start, atol=1e-9))
    click = GuiUpdateMessage(viewer.pointer_buttons["attach"]._impl.uuid, {"value": True})
    send_client_message(viewer.url, [camera_message(), click])  # a page is a client once it sent its camera
    assert h.spin_until(lambda: node.haptic_results), "the attach button did not call the simulator"
    assert node.haptic_results[-1][:2] == ("attach", True), node.haptic_results[-1]
    goal = start + MOVE
    drag(goal)
    assert h.spin_until(lambda: np.linalg.norm(box()[:2] - goal[:2]) < DEADBAND), "the box did not follow"
    assert h.spin_until(lambda: np.linalg.norm(viewer.body_position("box") - box()) < DRAWN_TOL), (
        "the page does not draw the box where the simulator has it"
    )
    end = box()
    viewer.pointer.visible = False  # only the box may change the picture: no gizmo, no robot
    viewer.show_robot = False
    cam = viewer.server.initial_camera
    img = rendered_screenshot(viewer.url, outdir / "haptic_box_pulled.png")

    assert img.shape == (HEIGHT, WIDTH, 3)
    blue = _blue(img)
    u0, v0, u1, v1 = _image_box(end, size, cam)
    assert (u1 - u0) * (v1 - v0) > 100, "the camera does not frame the box"
    new = blue[v0:v1, u0:u1].mean()
    old_only = np.zeros_like(blue)
    a0, b0, a1, b1 = _image_box(start, size, cam)
    old_only[b0:b1, a0:a1] = True
    old_only[v0:v1, u0:u1] = False  # where the two image boxes overlap counts as new
    assert old_only.sum() > 100, "the box's two places overlap in the image: MOVE too small"
    old = blue[old_only].mean()
    assert new > MIN_NEW, f"only {new:.1%} of the box's new place is its blue (box {u0, v0, u1, v1}; PNG in {outdir})"
    assert old < MAX_OLD, f"{old:.1%} of the box's old place is still blue (box {a0, b0, a1, b1}; PNG in {outdir})"
