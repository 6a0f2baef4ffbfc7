"""`humanoid-stack pilot` without a browser (humanoid_stack/pilot_app.py): the solver
loop and the viewer in one process. A gizmo update sent over the viewer's websocket as the
browser sends it moves HRP-2's hand (feet welded) and the robot the viewer shows; a joint slider
in direct mode turns the chest; the hybrid robot's stick figure and joint-speed spheres follow the
solver; bad targets exit 2 with one line."""

import time

import numpy as np
import pinocchio as pin
import pytest
from support.browser import send_client_message

from humanoid_control.piloting import SPEED_SPHERE_SCALE, loop_gap
from humanoid_stack.cli import main
from humanoid_stack.pilot_app import MIN_SPHERE_RADIUS, PilotApp

FOOT_TOL = 1e-4  # [m] (chosen) foot error < 0.1 mm with both feet welded: the feet must not slip
HAND_TOL = 1e-3  # [m] (chosen) hand tracking error < 1 mm
WAIT = 15.0  # [s] (chosen) longest wait for the loop on a loaded machine; it normally takes < 1 s


@pytest.fixture(scope="module")
def hrp2_app():
    with PilotApp("hrp2", port=0) as app:
        app.start()
        yield app


def _wait(predicate, timeout=WAIT):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return predicate()


def _frame(model, q, name):
    data = model.createData()
    pin.framesForwardKinematics(model, data, q)
    return data.oMf[model.getFrameId(name)].copy()


def _feet_error(s, q):
    return max(
        np.linalg.norm(_frame(s.model, q, f).translation - c.anchor.translation)
        for f, c in (("r_sole", s.closures["r_foot"]), ("l_sole", s.closures["l_foot"]))
    )


def test_gizmo_update_over_websocket_moves_hand_and_shown_robot(hrp2_app):
    from viser._messages import TransformControlsUpdateMessage

    app, s = hrp2_app, hrp2_app.structure
    handle = app.viewer.gizmos["r_hand"]
    start = app.session.placement("r_hand")
    goal = np.array(handle.position) + [0.05, -0.03, 0.05]
    msg = TransformControlsUpdateMessage(name=handle.name, wxyz=tuple(handle.wxyz), position=tuple(goal))
    send_client_message(app.viewer.url, msg)
    assert np.allclose(app.session.goal("r_hand").translation, goal, atol=1e-12)  # the callback ran
    assert _wait(lambda: np.linalg.norm(app.session.placement("r_hand").translation - goal) < HAND_TOL)
    q = app.session.q
    assert _feet_error(s, q) < FOOT_TOL
    assert np.linalg.norm(pin.log3(start.rotation.T @ _frame(s.model, q, "r_hand").rotation)) < 1e-3

    # the viewer shows the solved robot: its own model's hand link where the structure's is
    # (both read while the loop runs: compared once the posture task has settled)
    def shown_is_solved():
        shown = _frame(app.viewer.robot.model, app.viewer.q, "RARM_LINK5").translation
        solved = _frame(s.model, app.session.q, "RARM_LINK5").translation
        return np.linalg.norm(shown - solved) < 1e-6

    assert _wait(shown_is_solved)
    text, refusal = app.viewer.readout
    assert "σmax/σmin" in text and refusal == ""


def test_direct_mode_slider_turns_chest_with_feet_welded(hrp2_app):
    app, s = hrp2_app, hrp2_app.structure
    chest = next(sl for j, sl in app.viewer.joint_sliders if j.idx_q == _idx(app, "CHEST_JOINT0"))
    assert chest.disabled  # inverse mode: sliders show the joints only
    app.viewer.set_control("direct")
    assert app.session.control == "direct" and not chest.disabled
    assert not any(h.visible for h in app.viewer.gizmos.values())
    iq = s.joint_index("CHEST_JOINT0")[0]
    value = app.session.q[iq] + 0.3
    start = app.session.placement("r_hand").translation
    chest.value = value  # as a drag of the slider
    assert _wait(lambda: abs(app.session.q[iq] - value) < 1e-6)
    assert _feet_error(s, app.session.q) < FOOT_TOL
    app.viewer.set_control("inverse")
    assert app.session.control == "inverse" and chest.disabled
    assert all(h.visible for h in app.viewer.gizmos.values())
    goal = app.session.goal("r_hand").translation  # the hand where the chest took it
    assert np.linalg.norm(np.array(app.viewer.gizmos["r_hand"].position) - goal) < 1e-12  # the gizmo on it
    assert np.linalg.norm(goal - start) > 0.05  # the chest's turn carried the hand
    assert _wait(lambda: np.linalg.norm(app.session.placement("r_hand").translation - goal) < HAND_TOL)


def _idx(app, joint):
    model = app.viewer.robot.model
    return model.joints[model.getJointId(joint)].idx_q


@pytest.mark.spec("002", "A20")
def test_hybrid_stick_figure_and_speed_spheres_follow_the_solver():
    """The thesis robots' URDFs have no geometry: the stick figure joins the joint origins; the
    joint-speed spheres (Flückiger 1998, Fig. 6-9) have radius SPEED_SPHERE_SCALE × |q̇_i| at the joint origins.
    The loop is not started: each cycle is stepped here and shown with the app's own `show`."""
    with PilotApp("urdf/kinematics/hybrid_planar.mad", port=0, mode="position") as app:
        s = app.structure
        assert app.session.frames == ["frame9"] and "loop1" in s.closures
        drawn = app.viewer.skeleton_points
        assert drawn is not None and len(drawn) >= len(s.joint_names)
        goal = app.session.placement("frame9").translation + [0.03, 0.02, 0.0]
        assert app.drag("frame9", goal, np.eye(3))  # the callback viser calls
        state = app.session.step()
        app.show(state)
        assert loop_gap(s, state.q)[0] < 1e-5  # 0.01 mm (acceptance test 002 A7)
        markers = app.viewer.markers("pilot")
        data = s.model.createData()
        pin.forwardKinematics(s.model, data, state.q)
        expected = 0
        for k, name in enumerate(s.joint_names):
            radius = SPEED_SPHERE_SCALE * state.speeds[s.joint_index(name)[1]]
            m = markers.get(("joint_speed", k))
            if radius < MIN_SPHERE_RADIUS:
                assert m is None
                continue
            expected += 1
            assert m.scale[0] == pytest.approx(2 * radius, rel=1e-12)
            np.testing.assert_allclose(m.position, data.oMi[s.model.getJointId(name)].translation, atol=1e-12)
        assert expected >= 3 and len(markers) == expected
        # the stick figure moved with the solved joints: a segment ends at joint 3's new origin
        origin = data.oMi[s.model.getJointId("joint3")].translation
        assert np.min(np.linalg.norm(app.viewer.skeleton_points[:, 1] - origin, axis=1)) < 1e-6
        assert np.min(np.linalg.norm(drawn[:, 1] - origin, axis=1)) > 1e-4
        assert not app.drag("frame8", goal, np.eye(3))  # not a gizmo frame: refused, named
        assert "unknown gizmo frame 'frame8'" in app.session.last_refusal
        app.show(state)  # a new refusal refreshes the readout at once
        text, refusal = app.viewer.readout
        assert "frame8" in refusal
        # planar robot (the dexterity readout): the loop's weld has 3 in-plane rows (x, y, θz) and the target's
        # position 2 (x, y), so J_aug (6 + 3 rows x 7 joints) has rank 5: shown as singular, rank 5 of 7
        assert "singular (rank 5 of 7)" in text


@pytest.mark.spec("002", "A16")
def test_view_axes_follow_the_browser_camera():
    """--command-frame view (the thesis's viewpoint frame, Flückiger 1998, §3.4.3.1): the gizmo
    takes the camera's axes when a browser's camera moves; a turn of the gizmo about its (view) z
    axis turns the goal about the camera's viewing axis, through the frame's origin."""
    with PilotApp("hybrid_planar", port=0, command_frame="view") as app:
        R0 = app.session.goal("frame9").rotation
        handle = app.viewer.gizmos["frame9"]
        np.testing.assert_allclose(handle.wxyz, [1, 0, 0, 0], atol=1e-12)  # no camera yet: world axes
        cam = pin.exp3(np.array([0.4, -0.2, 1.0]))
        app.camera_moved(cam)  # the callback a browser's camera update calls
        shown = pin.Quaternion(*(float(c) for c in handle.wxyz)).toRotationMatrix()  # (w, x, y, z) arguments
        np.testing.assert_allclose(shown, cam, atol=1e-12)
        p = np.array(handle.position)
        turn = pin.exp3(np.array([0.0, 0.0, 0.3]))  # about the gizmo's own z: the viewing axis
        assert app.drag("frame9", p, cam @ turn)
        goal = app.session.goal("frame9")
        np.testing.assert_allclose(goal.rotation, pin.exp3(0.3 * cam[:, 2]) @ R0, atol=1e-12)
        np.testing.assert_allclose(goal.translation, p, atol=1e-12)


@pytest.mark.parametrize(
    "argv, words",
    [
        (["pilot", "no/such/robot.mad"], ["no/such/robot.mad", "no such file"]),
        (["pilot", "no_such.urdf"], ["no_such.urdf", "no such file"]),
        (["pilot", "hrp3"], ["unknown kinematic structure 'hrp3'", "did you mean 'hrp2'"]),
        (["pilot", "hrp2", "--frames", "r_hnd"], ["unknown frame 'r_hnd'", "did you mean 'r_hand'"]),
        (["pilot", "hrp2", "--rate", "0"], ["--rate must be in (0, 1000]"]),
    ],
)
def test_bad_target_exits_2_with_one_line(capsys, argv, words):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and err.startswith("humanoid-stack pilot: error: ")
    for w in words:
        assert w in err


def test_malformed_mad_names_the_line(tmp_path, capsys):
    bad = tmp_path / "bad.mad"
    bad.write_text("RAFF 1 scene\nrobot arm\n  link 1 revolute banana\n")
    assert main(["pilot", str(bad)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{bad}:" in err and "Traceback" not in err


def test_cli_prints_url_and_stops(capsys):
    assert main(["pilot", "hybrid_planar", "--port", "0", "--duration", "0.5"]) == 0
    out = capsys.readouterr().out
    assert "humanoid-stack pilot: http://127.0.0.1:" in out and "gizmos on frame9" in out


@pytest.mark.spec("002", "A19")
def test_dexterity_is_plotted_over_time():
    """The dexterity σmax/σmin plotted over time (Flückiger 1998, §6.2.2, Fig. 6-8): every shown
    cycle's σmax/σmin goes into the plot, in time order, the last point the last cycle's value."""
    with PilotApp("hrp2", port=0) as app:
        goal = app.session.placement("r_hand").translation + [0.05, 0.0, 0.05]
        assert app.drag("r_hand", goal, app.session.placement("r_hand").rotation)
        values = []
        for _ in range(6):
            state = app.session.step()
            app._readout_at = -np.inf  # refresh the readout and the plot at every shown cycle here
            app.show(state)
            values.append(state.dexterity)
        t, d = app.viewer.dexterity_history
        assert t.size == d.size == 6 and np.all(np.diff(t) > 0)
        np.testing.assert_allclose(d, values, rtol=1e-12)
        sigma = np.asarray(state.report.sigma)
        assert d[-1] == pytest.approx(sigma[0] / sigma[-1], rel=1e-9)
