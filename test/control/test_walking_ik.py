"""`humanoid-stack walk`: the whole-body IK of a 2-step pattern, checked from the written
plan alone by forward kinematics of the HRP-2 model (not from the solver's own report): soles
where the footstep plan puts them, CoM on the preview trajectory, waist upright, joints within
their limits, and the plan read by the bridge's plan reader. Bounds: docs/walking.md. The command's
refusals: counts beyond their bounds, a missing output folder, a full disk (no WALK.json left)."""

import json

import numpy as np
import pinocchio as pin
import pytest

from humanoid_control.bridge.plan_files import load_plan
from humanoid_model import load_robot
from humanoid_stack.cli import main

FOOT_BOUND = 1e-4  # [m] the 0.1 mm foot accuracy of the kinematic generator's HRP-2 tests (docs/walking.md)
TILT_BOUND = 1e-6  # [rad] chosen: the waist task is met exactly when feasible (measured ~2e-12)


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    out = tmp_path_factory.mktemp("walk") / "WALK.json"
    assert main(["walk", "--robot", "hrp2", "--steps", "2", "--step-length", "0.2", "--output", str(out)]) == 0
    return out, json.loads(out.read_text())


@pytest.fixture(scope="module")
def fk(plan):
    """Per sample: sole centres (r, l) and rotations, waist rotation, CoM, from the file's rows."""
    _, doc = plan
    robot = load_robot("hrp2")
    model, data = robot.model, robot.model.createData()
    tr = doc["trajectory"]
    assert doc["joint_names"] == robot.joint_names
    Q = np.hstack([np.asarray(tr["base_pose"]), np.asarray(tr["joint_positions"])])
    locs = {k: robot.contact_locations[f"{k}_sole"] for k in ("r", "l")}
    fids = {k: model.getFrameId(loc.body) for k, loc in locs.items()}
    body = model.getFrameId("BODY")
    out = {"r": [], "l": [], "r_rot": [], "l_rot": [], "waist": [], "com": []}
    for q in Q:
        pin.framesForwardKinematics(model, data, q)
        for k, loc in locs.items():
            M = data.oMf[fids[k]]
            out[k].append(M.act(np.asarray(loc.point, float)))
            out[f"{k}_rot"].append(M.rotation.copy())
        out["waist"].append(data.oMf[body].rotation.copy())
        out["com"].append(pin.centerOfMass(model, data, q).copy())
    return robot, Q, {k: np.asarray(v) for k, v in out.items()}


def test_soles_follow_the_footstep_plan_within_0_1_mm(plan, fk):
    _, doc = plan
    _, _, f = fk
    for k in ("r", "l"):
        err = np.linalg.norm(f[k] - np.asarray(doc["walking"]["feet"][k]), axis=1)
        assert err.max() < FOOT_BOUND
        tilt = [np.linalg.norm(pin.log3(R)) for R in f[f"{k}_rot"]]
        assert max(tilt) < 1e-3  # [rad] flat soles (0.1 mm over the 0.115 m half length)
    steps = doc["walking"]["footsteps"]
    t = np.asarray(doc["trajectory"]["t"])
    for s in steps:  # the foot is at its footprint from touch-down to the end
        k = int(np.searchsorted(t, s["t_land"] - 1e-9))
        assert np.linalg.norm(f[s["foot"]][k:, :2] - s["target"], axis=1).max() < FOOT_BOUND


def test_com_follows_the_preview_trajectory_and_the_waist_stays_upright(plan, fk):
    _, doc = plan
    _, _, f = fk
    assert np.linalg.norm(f["com"] - np.asarray(doc["walking"]["com"]), axis=1).max() < FOOT_BOUND
    tilt = [np.arctan2(np.linalg.norm(R[:2, 2]), R[2, 2]) for R in f["waist"]]
    assert max(tilt) < TILT_BOUND


def test_joints_stay_within_limits_and_speeds(plan, fk):
    robot, Q, _ = fk
    P = Q[:, 7:]
    assert np.all(robot.q_lower - 1e-9 <= P) and np.all(robot.q_upper + 1e-9 >= P)
    dt = np.diff(plan[1]["trajectory"]["t"])
    speed = np.abs(np.diff(P, axis=0) / dt[:, None]).max(axis=0)
    assert np.all(speed <= robot.v_max)


def test_the_plan_is_read_by_the_bridge_plan_reader(plan):
    path, doc = plan
    traj, notes = load_plan(path, load_robot("hrp2"))
    assert traj.joint_names == load_robot("hrp2").joint_names
    assert traj.n_points == len(doc["trajectory"]["t"])
    assert np.diff(traj.times) == pytest.approx(np.full(traj.n_points - 1, 0.005))
    assert traj.duration == pytest.approx(1.8 + 2 * 1.0 + 1.0)
    assert any("floating-base plan" in n for n in notes)


@pytest.mark.parametrize(
    "argv, field",
    [(["--robot", "bip"], "--robot"), (["--steps", "0"], "steps"), (["--step-length", "0.6"], "step_length")],
)
def test_walk_command_bad_input_exits_2_naming_the_field(argv, field, capsys, tmp_path):
    assert main(["walk", *argv, "--output", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err
    assert field in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_walkgen2008_plan_holds_the_waist_height_and_follows_the_com_ground_track(plan, tmp_path):
    """`--generator walkgen2008` (the thesis's generator keeps the torso at constant height): from the
    written plan alone, the waist (BODY) height is constant and the CoM's x-y follows the preview
    trajectory, with the soles on their plan; the default plan (3-D CoM) moves the waist by > 5 mm."""
    out = tmp_path / "W.json"
    argv = ["walk", "--generator", "walkgen2008", "--steps", "2", "--step-length", "0.15", "--output", str(out)]
    assert main(argv) == 0
    doc = json.loads(out.read_text())
    assert doc["walking"]["parameters"]["hold"] == "waist" and doc["walking"]["parameters"]["t_ds"] == 0.02
    robot = load_robot("hrp2")
    model, data = robot.model, robot.model.createData()
    tr = doc["trajectory"]
    Q = np.hstack([np.asarray(tr["base_pose"]), np.asarray(tr["joint_positions"])])
    body = model.getFrameId("BODY")
    loc = robot.contact_locations["r_sole"]
    waist, com, sole = [], [], []
    for q in Q:
        pin.framesForwardKinematics(model, data, q)
        waist.append(data.oMf[body].translation[2])
        com.append(pin.centerOfMass(model, data, q)[:2].copy())
        sole.append(data.oMf[model.getFrameId(loc.body)].act(np.asarray(loc.point, float)))
    assert np.ptp(waist) < FOOT_BOUND  # measured 2e-11 m
    assert np.abs(np.asarray(com) - np.asarray(doc["walking"]["com"])[:, :2]).max() < FOOT_BOUND
    assert np.linalg.norm(np.asarray(sole) - np.asarray(doc["walking"]["feet"]["r"]), axis=1).max() < FOOT_BOUND
    default_base = np.asarray(plan[1]["trajectory"]["base_pose"])  # the free flyer is the waist, BODY
    assert np.ptp(default_base[:, 2]) > 0.002  # [m] the 3-D CoM task moves the waist (measured 4.7 mm)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--steps", "101"], "walk: field 'steps' must be an integer >= 1 and <= 100; value 101"),
        (["--steps", "100000000"], "walk: field 'steps' must be an integer >= 1 and <= 100"),
        (["--steps", "100", "--ss", "9", "--ds", "1", "--rate", "1000"], "1002800 samples, more than 150000"),
    ],
)
def test_walk_counts_are_bounded_before_anything_is_computed(argv, message, capsys, tmp_path):
    """The footsteps and the samples are bounded (humanoid_planner.bounds): unbounded, --steps 1e8
    grows the process by 150 MB/s before anything is written (measured)."""
    assert main(["walk", *argv, "--output", str(tmp_path / "x.json")]) == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err and "Traceback" not in err


def test_walk_into_a_missing_folder_is_refused_and_creates_no_folder(capsys, tmp_path):
    """`walk -o /nonexistent/w.json` is refused at once: the command creates no folder on the user's
    behalf."""
    out = tmp_path / "nonexistent" / "w.json"
    assert main(["walk", "--steps", "1", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == (
        f"humanoid-stack walk: error: {out}: folder {out.parent} does not exist: cannot write the WALK.json "
        "(create it first)"
    )
    assert not out.parent.exists()


def test_walk_on_a_full_disk_exits_2_in_one_line_and_leaves_no_walk_json(monkeypatch, capsys, tmp_path):
    """The disk fills while WALK.json is written (os.fsync raises ENOSPC): one line, exit 2, and
    nothing at the output path: neither the WALK.json an earlier run left there (removed when the
    run starts) nor a truncated one, nor a temporary file."""
    import errno
    import os

    out = tmp_path / "WALK.json"
    out.write_text('{"older": true}')

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    assert main(["walk", "--steps", "1", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == f"humanoid-stack walk: error: {out}: cannot write the WALK.json: No space left on device"
    assert list(tmp_path.iterdir()) == []
