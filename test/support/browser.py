"""Headless-Chromium helpers of the browser tests (`browser` marker): screenshots of a viewer page,
the projection of world points through the viewer's initial camera, and a viser client message
sent over the viewer's websocket exactly as the browser sends it.

Chromium missing is a failure, not a skip: ``make test`` installs it (``apt-get install chromium``).
"""

import shutil
import subprocess
import tempfile
from pathlib import Path

import numpy as np
import pytest

WIDTH, HEIGHT = 800, 600  # [px] window size of the screenshots
PIXEL_DIFF = 40  # a pixel "differs" when a channel changes by more than this (of 255)


def chromium_path():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    pytest.fail(
        "chromium is missing: install it with `apt-get install chromium` "
        "(`make test` does this; browser tests fail rather than skip without it)"
    )


def screenshot(url: str, out: Path) -> np.ndarray:
    with tempfile.TemporaryDirectory() as profile:
        cmd = [
            chromium_path(),
            "--headless",
            "--no-sandbox",
            "--use-angle=swiftshader",
            "--enable-unsafe-swiftshader",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            f"--user-data-dir={profile}",
            f"--window-size={WIDTH},{HEIGHT}",
            "--virtual-time-budget=8000",
            f"--screenshot={out}",
            url,
        ]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert out.is_file(), f"chromium wrote no screenshot (rc {proc.returncode}):\n{proc.stderr[-2000:]}"
    from PIL import Image

    return np.asarray(Image.open(out).convert("RGB"), dtype=np.int16)


#: a pixel belongs to the drawn ground grid when a channel is this far (of 255) from its region's mean colour
GRID_DIFF = 15
#: the least share of grid pixels in the lower-left quarter of a drawn view: a quarter of the 8.6 % a drawn
#: flat scene shows there (hrp2 hidden, 800 x 600); a view shot while WebGL was still drawing showed 0.8 %
#: below the robot's feet
GRID_SHARE = 0.02


def grid_share(region: np.ndarray) -> float:
    """The share of the pixels of ``region`` (v, u, 3) that differ from its mean colour by more than
    `GRID_DIFF` in a channel: the ground grid's lines on a plain background."""
    return float(np.mean(np.abs(region - region.mean(axis=(0, 1))).max(axis=2) > GRID_DIFF)) if region.size else 0.0


PANEL = (470, 60, 780, 120)  # [px] u0, v0, u1, v1: the top of viser's control panel below its "Connected" header


def rendered_screenshot(url: str, out: Path, attempts: int = 3, panel: bool = False) -> np.ndarray:
    """`screenshot`, taken again (at most ``attempts`` times) while its lower-left quarter, where the
    initial camera always shows the ground grid, has less than `GRID_SHARE` of grid pixels
    (`grid_share`): under load headless Chromium sometimes shoots before WebGL drew the scene (a
    white 3-D view beside the HTML panel, or a grid partly drawn). With ``panel`` (a page whose
    server adds GUI controls) also while the top of the control panel (`PANEL`) is blank: a loaded
    CI shot the pilot's page before the server's initial state was applied (the panel empty, the
    robot lit differently), and two such shots agree. The checks below hold on the image it ends
    with."""
    u0, v0, u1, v1 = PANEL
    for _ in range(attempts):
        img = screenshot(url, out)
        drawn = grid_share(img[HEIGHT // 2 :, : WIDTH // 2]) >= GRID_SHARE
        if drawn and (not panel or np.ptp(img[v0:v1, u0:u1]) > PIXEL_DIFF):
            break
    return img


def project(points, eye, target, fov_y, width, height):
    """Pixel coordinates (u right, v down) of world points seen by a pinhole camera (z up)."""
    f = target - eye
    f = f / np.linalg.norm(f)
    r = np.cross(f, [0.0, 0.0, 1.0])
    r = r / np.linalg.norm(r)
    u_axis = np.cross(r, f)
    d = points - eye
    x, y, z = d @ r, d @ u_axis, d @ f
    assert np.all(z > 0), "robot behind the camera"
    focal = 0.5 * height / np.tan(0.5 * fov_y)
    return np.stack([0.5 * width + focal * x / z, 0.5 * height - focal * y / z], axis=1)


def send_client_message(url: str, message, linger: float = 0.3) -> None:
    """Send viser client messages (one, e.g. ``viser._messages.TransformControlsUpdateMessage``, or
    a list, in order) to the viewer at ``url`` over one websocket, as the browser page does:
    viser's subprotocol ``viser-v<version>``, the page's Origin, each message as msgpack; wait
    ``linger`` [s] for the server to handle them, then close. viser counts a page as a connected
    client once it sent its camera (`camera_message`): GUI callbacks (buttons) need that first."""
    import asyncio

    import msgspec
    import viser
    import websockets

    messages = message if isinstance(message, (list, tuple)) else [message]

    async def go():
        async with websockets.connect(
            url.replace("http://", "ws://", 1),
            subprotocols=[f"viser-v{viser.__version__}"],
            origin=url.rstrip("/"),
            max_size=None,
            close_timeout=0.5,
        ) as ws:
            for m in messages:
                await ws.send(msgspec.msgpack.encode(m.as_serializable_dict([])))
            await asyncio.sleep(linger)

    asyncio.run(go())


def camera_message():
    """The first message a page sends: its camera (an 800x600 view from (3, 0, 1.5) at the origin)."""
    from viser._messages import ViewerCameraMessage

    return ViewerCameraMessage(
        wxyz=(1.0, 0.0, 0.0, 0.0),
        position=(3.0, 0.0, 1.5),
        fov=1.3,
        near=0.01,
        far=100.0,
        image_height=HEIGHT,
        image_width=WIDTH,
        look_at=(0.0, 0.0, 0.0),
        up_direction=(0.0, 0.0, 1.0),
    )
