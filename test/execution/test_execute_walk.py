"""HRP-2's walking pattern (`humanoid-stack walk --steps 6 --step-length 0.2`: ZMP preview control,
Kajita 2003, docs/walking.md) walked in closed loop by the whole-body controller: every foot lands
within 1 cm of its footprint, and a lateral push of 60 N for 0.1 s in mid-walk, either way, is
survived (acceptance items); a NaN in the walk's reference is refused in one line."""

import json

import numpy as np
import pytest

from humanoid_control.exceptions import ControlError
from humanoid_execution.run import Push, RunSettings, execute
from humanoid_stack.cli import main

FOOTPRINT_TOL = 0.01  # [m] a foot lands within 1 cm of its footprint (acceptance item)
PUSH = 60.0  # [N] for 0.1 s, sideways, in mid-walk (acceptance item)
PUSH_AT = 4.2  # [s] single support on the left foot, the fourth step's swing (chosen: mid-walk)


@pytest.fixture(scope="module")
def walk_file(tmp_path_factory):
    out = tmp_path_factory.mktemp("walk") / "WALK.json"
    assert main(["walk", "--steps", "6", "--step-length", "0.2", "--output", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def walked(walk_file):
    run = execute(walk_file, RunSettings())
    print("\n".join(run.report.lines()))
    return run


@pytest.mark.slow
def test_every_foot_lands_within_a_centimetre_of_its_footprint(walked, walk_file):
    report = walked.report
    assert report.success, report.reason
    steps = json.loads(walk_file.read_text())["walking"]["footsteps"]
    landings = [c for c in report.contacts if c.kind == "landing"]
    assert len(landings) == len(steps) == 6
    centre = None
    for c, step in zip(landings, steps, strict=True):
        assert c.location == {"r": "r_sole", "l": "l_sole"}[step["foot"]]
        assert c.position_error <= FOOTPRINT_TOL, c  # against the planned placement of the contact frame
        # against the footprint itself (the sole centre the pattern targets): the sole's contact
        # point sits a fixed offset from its centre, the same at every landing
        offset = np.asarray(c.measured[:2]) - np.asarray(step["target"])
        if step["foot"] == "r":
            centre = offset if centre is None else centre
            assert np.linalg.norm(offset - centre) <= FOOTPRINT_TOL, (offset, centre)


@pytest.mark.slow
@pytest.mark.parametrize("side", [1.0, -1.0], ids=["left", "right"])
def test_a_lateral_push_of_60_n_for_a_tenth_of_a_second_in_mid_walk_is_survived(walk_file, side):
    run = execute(walk_file, RunSettings(pushes=[Push(PUSH_AT, (0.0, side * PUSH, 0.0), 0.1)]))
    assert run.report.success, run.report.reason
    assert run.report.com_max > 0.001  # the push moved the CoM off its reference: it was felt


@pytest.mark.slow
def test_a_nan_in_a_reference_is_refused_in_one_line(walk_file, tmp_path):
    doc = json.loads(walk_file.read_text())
    doc["trajectory"]["joint_positions"][100][3] = float("nan")
    bad = tmp_path / "WALK.json"
    bad.write_text(json.dumps(doc))
    with pytest.raises(ControlError, match="finite"):
        execute(bad, RunSettings())
