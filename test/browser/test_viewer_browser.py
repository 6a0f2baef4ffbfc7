"""Browser test of the web viewer: headless Chromium (Debian package) renders the page twice.

The viewer serves HRP-2 half-sitting on the flat scene; one screenshot with the robot shown, one
with it hidden ("show robot" off). The robot's image region is computed by projecting the robot's
geometry bounding box through the viewer's initial camera. The test requires that many pixels
differ inside that region and far fewer outside it: a ground grid alone (robot not drawn) gives
two equal images and fails, and a difference elsewhere on the page (not where the robot is) fails.

The helpers (screenshots, projection) are in test/support/browser.py. Set HUMANOID_VIEWER_SCREENSHOTS=DIR to keep the PNGs.
"""

import os
from pathlib import Path

import numpy as np
import pytest
from support.browser import HEIGHT, PIXEL_DIFF, WIDTH, grid_share, project, rendered_screenshot

pytestmark = pytest.mark.browser

MIN_INSIDE_FRACTION = 0.15  # chosen: HRP-2 covers ~40 % of its bounding box's image
MIN_CONTRAST = 5.0  # inside fraction / outside fraction of differing pixels


def test_robot_visible_in_headless_chromium(tmp_path):
    from humanoid_viewer.app import Viewer

    keep = os.environ.get("HUMANOID_VIEWER_SCREENSHOTS")
    outdir = Path(keep) if keep else tmp_path
    outdir.mkdir(parents=True, exist_ok=True)
    with Viewer("hrp2", scene="flat", port=0, verbose=False) as viewer:
        lo, hi = viewer.robot_bounds()
        corners = np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])
        cam = viewer.server.initial_camera
        uv = project(corners, np.asarray(cam.position), np.asarray(cam.look_at), cam.fov, WIDTH, HEIGHT)
        shown = rendered_screenshot(viewer.url, outdir / "viewer_robot_shown.png")
        viewer.show_robot = False
        hidden = rendered_screenshot(viewer.url, outdir / "viewer_robot_hidden.png")

    assert shown.shape == hidden.shape == (HEIGHT, WIDTH, 3)
    u0, v0 = np.floor(uv.min(axis=0)).astype(int)
    u1, v1 = np.ceil(uv.max(axis=0)).astype(int)
    u0, v0, u1, v1 = max(u0, 0), max(v0, 0), min(u1, WIDTH), min(v1, HEIGHT)
    assert (u1 - u0) * (v1 - v0) > 0.05 * WIDTH * HEIGHT, "the camera does not frame the robot"
    # The page rendered a 3-D view at all: the ground grid draws lines below the robot's feet.
    ground = hidden[v1:, : WIDTH // 2]
    assert grid_share(ground) > 0.01, "the hidden-robot view shows no ground grid: WebGL did not render"

    differs = np.abs(shown - hidden).max(axis=2) > PIXEL_DIFF
    assert differs.any(), "robot shown and hidden give identical screenshots"
    inside = np.zeros_like(differs)
    inside[v0:v1, u0:u1] = True
    frac_in = differs[inside].mean()
    frac_out = differs[~inside].mean()
    assert frac_in > MIN_INSIDE_FRACTION, (
        f"only {frac_in:.1%} of the robot's region changes when the robot is hidden "
        f"(region u {u0}..{u1}, v {v0}..{v1}; screenshots in {outdir})"
    )
    assert frac_in > MIN_CONTRAST * frac_out, (
        f"the change is not where the robot is: {frac_in:.1%} inside vs {frac_out:.1%} outside"
    )
