"""A robot whose URDF has no contact frames (no sole or hand frame, no foot geometry on both
sides: an arm) cannot plan: `humanoid-stack plan` says so in one line naming the robot, what is
missing and how to declare it, and exits 2 (bad input, docs/planning.md), for the flat walk and
for a scene's planning section alike."""

from __future__ import annotations

import pytest

from humanoid_stack.cli import main

INERTIAL = '<inertial><mass value="1"/><inertia ixx="0.01" iyy="0.01" izz="0.01" ixy="0" ixz="0" iyz="0"/></inertial>'
ARM = f"""<?xml version="1.0"?>
<robot name="lone_arm">
  <link name="base">{INERTIAL}<collision><geometry><box size="0.1 0.1 0.1"/></geometry></collision></link>
  <joint name="shoulder" type="revolute"><parent link="base"/><child link="upper"/>
    <origin xyz="0 0 0.1"/><axis xyz="0 1 0"/><limit lower="-1" upper="1" effort="10" velocity="1"/></joint>
  <link name="upper">{INERTIAL}<collision><origin xyz="0 0 0.15"/><geometry><cylinder radius="0.03" length="0.3"/></geometry></collision></link>
</robot>
"""


@pytest.mark.parametrize("scene", ["flat", "stairs"])
def test_a_robot_without_contact_frames_is_refused_in_one_line_with_exit_2(scene, tmp_path, capsys):
    urdf = tmp_path / "lone_arm.urdf"
    urdf.write_text(ARM)
    out = tmp_path / "PLAN.json"
    assert main(["plan", scene, "--robot", str(urdf), "--quiet", "--output", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "Traceback" not in err
    assert "robot 'lone_arm'" in err and "no sole or hand frames" in err and "lone_arm.yaml" in err
    assert not out.exists()
