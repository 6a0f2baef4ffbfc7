"""A walk planned for rigid feet executed by the whole-body controller on FEM soles (`robot: {soles:
fem}`): the simulator raises the robot by the soles' 2 cm, and `execute` raises the motion's reference
with it (`MotionReference.raise_by`), so the feet land on schedule where they were planned. One run, executed
in the scene file's world and recorded, serves the landing and the record checks. Without it
the controller holds the CoM 2 cm low and lowers each swing foot 2 cm into the ground: contacts 90 ms
early and landings 20 mm off (measured on the 6-step walk). The walk is measured as the
shock-attenuation benchmark measures it (`humanoid_execution.walk_record`)."""

import json

import numpy as np
import pytest
from support import REPO

from humanoid_control.wbc.controller import WbcSettings, WholeBodyController
from humanoid_control.wbc.sources import motion_reference
from humanoid_execution.walk_record import walk_in_closed_loop, walk_strike_peaks
from humanoid_model import load_robot
from humanoid_model.scene import load_scene
from humanoid_model.start_posture import sole_lift
from humanoid_sim.world import World
from humanoid_stack.cli import main

LANDING_TOL = 1e-3  # [m] chosen: rigid feet land within 0.1 mm (docs/execution.md); 20 mm without the raise


@pytest.fixture(scope="module")
def walk_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("walk") / "WALK.json"
    assert main(["walk", "--steps", "2", "--step-length", "0.2", "--output", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def soles_scene(tmp_path_factory):
    path = tmp_path_factory.mktemp("scene") / "flat_soles.yaml"
    text = (REPO / "config" / "scenes" / "flat.yaml").read_text()
    assert "  posture: half-sitting\n" in text
    path.write_text(text.replace("  posture: half-sitting\n", "  posture: half-sitting\n  soles: fem\n"))
    return path


@pytest.fixture(scope="module")
def walked(walk_file, soles_scene):
    """(world, ReplayRecord, ExecutionReport) of the walk executed (`execute`, through `walk_in_closed_loop`) in
    the scene file's world: HRP-2 on its FEM soles."""
    world = World.from_scene(load_scene(str(soles_scene)))
    rec, report = walk_in_closed_loop(world, json.loads(walk_file.read_text()))
    return world, rec, report


@pytest.mark.slow
def test_a_rigid_feet_walk_lands_on_schedule_on_fem_soles(walked):
    world, _, report = walked
    assert report.success, report.reason
    assert sole_lift(world.sole_specs) == pytest.approx(0.02)  # the robot does stand on its soles
    assert not report.early_contacts and not report.late_contacts
    landings = [c for c in report.contacts if c.kind == "landing"]
    assert len(landings) == 2
    assert all(c.position_error < LANDING_TOL for c in report.contacts), report.contacts


def test_raise_by_moves_every_part_of_a_reference(walk_file):
    """The configurations, the CoM, each frame and each phase's placement move up together."""
    doc = json.loads(walk_file.read_text())
    robot = load_robot("hrp2")
    ctrl = WholeBodyController(robot, WbcSettings())
    ref = motion_reference(doc, "WALK.json", robot, ctrl)
    before = ref.sample(1.0)
    placements = [ph.placement.translation.copy() for ph in ref.phases]
    ref.raise_by(0.02)
    after = ref.sample(1.0)
    up = np.array([0.0, 0.0, 0.02])
    assert np.allclose(after.q[:3], before.q[:3] + up, atol=1e-12)
    assert np.allclose(after.com[0], before.com[0] + up, atol=1e-12)
    for name, (M, _, _) in before.frames.items():
        assert np.allclose(after.frames[name][0].translation, M.translation + up, atol=1e-12)
    for ph, p in zip(ref.phases, placements, strict=True):
        assert np.allclose(ph.placement.translation, p + up, atol=1e-12)


@pytest.mark.slow
def test_the_closed_loop_walk_record_finds_every_strike(walked, walk_file):
    """`walk_in_closed_loop` on FEM soles: a row per simulator step, both strikes detected, and a soft landing (no
    impact under the controller: peaks below g; measured 0.2 m/s²)."""
    world, rec, report = walked
    assert report.success, report.reason
    assert np.allclose(np.diff(rec.t), world.dt)
    strikes, peaks = walk_strike_peaks(rec, json.loads(walk_file.read_text()))
    assert np.isfinite(strikes).all() and len(strikes) == 2
    assert (peaks < 9.81).all(), peaks
