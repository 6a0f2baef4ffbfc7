"""Bad input to `humanoid-stack execute` (acceptance item): a plan for another robot or scene, a
missing stance, a contact on a surface that does not exist, a NaN in a reference: one line and exit
2, never a traceback; a contact the controller could not make (planned 25 cm above its floor) is
refused the same way before anything moves (the safe hold of a contact that never comes:
test_wbc_executor).

One short flat plan (0.2 m, 3 projections per transition) is the base of every case."""

import copy
import json

import pytest

from humanoid_stack.cli import main


@pytest.fixture(scope="module")
def plan(tmp_path_factory):
    out = tmp_path_factory.mktemp("plan") / "PLAN.json"
    argv = ["plan", "flat", "--goal", "0.2,0", "--steps", "3", "--joint-speed", "60", "--base-speed", "0.3"]
    assert main([*argv, "--base-rotation-speed", "30", "--quiet", "--output", str(out)]) == 0
    return json.loads(out.read_text())


def _bad(plan, kind):
    doc = copy.deepcopy(plan)
    if kind == "robot":
        doc["robot"] = "bip"
    elif kind == "stance":
        del doc["stances"][1]
    elif kind == "surface":
        doc["stances"][-1]["contacts"][0]["surface"] = "lava"
    elif kind == "nan":
        doc["trajectory"]["q"][5][10] = float("nan")
    return doc


@pytest.mark.parametrize(
    "kind, text",
    [
        ("robot", "field 'joint_names' must name the robot's joints"),  # BIP's world, HRP-2's joints
        ("stance", "field 'transitions' must join"),
        ("surface", "'lava', which scene 'flat' does not have"),
        ("nan", "finite"),
    ],
)
def test_a_bad_plan_is_one_line_and_exit_2(plan, kind, text, tmp_path, capsys):
    path = tmp_path / "PLAN.json"
    path.write_text(json.dumps(_bad(plan, kind)))
    assert main(["execute", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert text in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err, err


def test_a_plan_of_another_scene_is_one_line_and_exit_2(plan, tmp_path, capsys):
    path = tmp_path / "PLAN.json"
    path.write_text(json.dumps(plan))
    assert main(["execute", str(path), "--scene", "stairs", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "planned in scene 'flat', not in 'stairs'" in err and "Traceback" not in err, err


@pytest.mark.parametrize(
    "argv, text",
    [
        (["--push", "1,2"], "--push"),
        (["--model-error", "2"], "--model-error"),
        (["--seed", "-1"], "--seed"),
        (["--controller", "pd", "--gain-scale", "0"], "--gain-scale"),
        (["--controller", "pd", "--gain-scale", "11"], "--gain-scale"),
        (["--gain-scale", "3"], "1 with --controller wbc"),  # the controller commands torques, not a PD
        (["--until", "-1"], "--until"),
        (["--until", "nan"], "--until"),
        (["--robot", "bip"], "field 'robot' must be 'bip' (the robot executing it); value 'hrp2'"),
        (["--robot", "no_such_robot"], "unknown robot 'no_such_robot'"),
    ],
)
def test_bad_options_are_one_line_and_exit_2(plan, tmp_path, argv, text, capsys):
    path = tmp_path / "PLAN.json"
    path.write_text(json.dumps(plan))
    assert main(["execute", str(path), "--quiet", *argv]) == 2
    err = capsys.readouterr().err
    assert text in err and "Traceback" not in err, err


def test_a_contact_planned_above_its_surface_is_refused_in_one_line(plan, tmp_path, capsys):
    doc = copy.deepcopy(plan)
    moved = [c for c in doc["stances"][-1]["contacts"] if c["location"] == doc["stances"][-1]["changed"]][0]
    target = list(moved["position"])
    for stance in doc["stances"]:  # the foot's last placement, planned 25 cm above the floor
        for c in stance["contacts"]:
            if c["location"] == moved["location"] and c["position"] == target:
                c["position"][2] += 0.25
    path = tmp_path / "PLAN.json"
    path.write_text(json.dumps(doc))
    assert main(["execute", str(path), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "is not on surface 'floor': its frame is 250 mm from the surface's plane" in err, err
