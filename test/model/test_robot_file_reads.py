"""A scene's robot is read once: loading a scene, its robot and a World reads the robot's URDF and
its sidecar once each (`humanoid_model.urdf_description.read_once`); outside such a block every
read opens the file again, so a changed file is seen."""

import builtins
import collections
import io
import os
import pathlib
import shutil

import pytest

from humanoid_model.paths import urdf_dir
from humanoid_model.robot import load_robot
from humanoid_model.scene import load_scene
from humanoid_model.urdf_description import read_once, read_sidecar, read_urdf
from humanoid_sim.world import World


@pytest.fixture
def reads(monkeypatch):
    """Counter of the opens of files under urdf/, by file name: every open goes through `io.open`
    (`open`, `Path.open`, `Path.read_text`, `Path.read_bytes`) or `os.open` (the project's input
    reader, `humanoid_model.files.open_input`)."""
    counts = collections.Counter()
    root = str(urdf_dir().resolve())
    original_open, original_os_open = io.open, os.open

    def count(file):
        if isinstance(file, (str, pathlib.Path)):
            p = pathlib.Path(file).resolve()
            if str(p).startswith(root):
                counts[p.name] += 1

    def counting_open(file, *a, **k):
        count(file)
        return original_open(file, *a, **k)

    def counting_os_open(file, *a, **k):
        count(file)
        return original_os_open(file, *a, **k)

    monkeypatch.setattr(io, "open", counting_open)
    monkeypatch.setattr(builtins, "open", counting_open)
    monkeypatch.setattr(os, "open", counting_os_open)
    return counts


def test_a_world_of_the_stairs_reads_hrp2s_urdf_and_sidecar_once(reads):
    World.from_scene("stairs")
    assert reads["hrp2.urdf"] == 1
    assert reads["hrp2.yaml"] == 1


def test_a_scene_and_a_robot_each_read_their_files_once(reads):
    load_scene("stairs")  # movable joints, link names, posture names (twice), sidecar soles
    assert (reads["hrp2.urdf"], reads["hrp2.yaml"]) == (1, 1)
    load_robot("hrp2")
    assert (reads["hrp2.urdf"], reads["hrp2.yaml"]) == (2, 2)


def test_inside_a_block_a_file_is_read_once_and_outside_again(tmp_path):
    urdf = tmp_path / "r.urdf"
    shutil.copy(urdf_dir() / "bip.urdf", urdf)
    (tmp_path / "r.yaml").write_text("default_posture: zero\n")
    with read_once():
        first = read_sidecar(urdf)
        (tmp_path / "r.yaml").write_text("default_posture: other\npostures: {other: {}}\n")
        assert read_sidecar(urdf) is first and first.default_posture == "zero"
        with read_once():  # nested: the outer block's reads
            assert read_sidecar(urdf) is first
        assert read_urdf(urdf) is read_urdf(str(urdf))
    assert read_sidecar(urdf).default_posture == "other"  # outside: read again
    assert read_sidecar(urdf) is not read_sidecar(urdf)
