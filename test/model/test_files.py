"""`humanoid_model.files`: an input is read only if it is a regular file under the bound, at once
(a FIFO with no writer, /dev/zero, a directory or a socket is refused without blocking or growing),
and an output is written atomically (the old file stays when the write fails, nothing is left
behind, the folder is never created)."""

import os
import socket
import threading

import pytest

from humanoid_model import files
from humanoid_model.documents import read_document, read_json_lines
from humanoid_model.exceptions import ConfigError


def _in_time(fn, seconds=10.0):
    """Run ``fn`` in a thread; fail when it has not returned after ``seconds`` (a blocked open)."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except Exception as exc:  # noqa: BLE001 (handed back to the test)
            out["error"] = exc

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), "the read blocked"
    return out


def test_a_regular_file_is_read(tmp_path):
    p = tmp_path / "a.txt"
    p.write_text("héllo\n")
    assert files.read_text(p, "test file", ConfigError) == "héllo\n"
    assert files.read_bytes(p, "test file", ConfigError) == "héllo\n".encode()


def test_a_fifo_without_writer_is_refused_at_once(tmp_path):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    out = _in_time(lambda: files.read_text(fifo, "replay file", ConfigError))
    assert isinstance(out.get("error"), ConfigError)
    assert "FIFO" in str(out["error"]) and "not a regular file" in str(out["error"])
    out = _in_time(lambda: list(read_json_lines(fifo, "recording", ConfigError)))
    assert isinstance(out.get("error"), ConfigError)


@pytest.mark.parametrize("path", ["/dev/zero", "/dev/null"])
def test_a_device_is_refused_without_reading(path):
    with pytest.raises(ConfigError, match="character device, not a regular file"):
        files.read_bytes(path, "replay file", ConfigError)
    with pytest.raises(ConfigError, match="not a regular file"):
        read_document(path, "replay file", ConfigError, "JSON")


def test_a_directory_and_a_socket_are_refused(tmp_path):
    with pytest.raises(ConfigError, match="directory"):
        files.read_text(tmp_path, "scene", ConfigError)
    sock_path = tmp_path / "s"
    s = socket.socket(socket.AF_UNIX)
    try:
        s.bind(str(sock_path))
        with pytest.raises(ConfigError, match="socket|cannot read"):
            files.read_text(sock_path, "scene", ConfigError)
    finally:
        s.close()


def test_a_missing_file_names_itself(tmp_path):
    with pytest.raises(ConfigError, match=r"nope\.json: cannot read the replay file: No such file"):
        files.read_text(tmp_path / "nope.json", "replay file", ConfigError)


def test_a_file_over_the_bound_is_refused_before_reading(tmp_path):
    p = tmp_path / "big.json"
    p.write_bytes(b"x" * 101)
    assert files.read_bytes(p, "f", ConfigError, limit=101) == b"x" * 101
    with pytest.raises(ConfigError, match="101 bytes, more than the 100 bytes"):
        files.read_bytes(p, "f", ConfigError, limit=100)


def test_json_lines_refuse_an_endless_line(tmp_path, monkeypatch):
    monkeypatch.setattr(files, "MAX_LINE_BYTES", 64)
    p = tmp_path / "run.jsonl"
    p.write_bytes(b'{"t": 0}\n' + b"1" * 200)
    with pytest.raises(ConfigError, match="line 2: longer than 64 bytes"):
        list(read_json_lines(p, "recording", ConfigError))


def test_write_is_atomic_and_keeps_the_old_file_on_failure(tmp_path, monkeypatch):
    target = tmp_path / "PLAN.json"
    files.write_text(target, "old", "PLAN.json", ConfigError)
    assert target.read_text() == "old"
    assert oct(target.stat().st_mode & 0o777) == oct(0o666 & ~_umask())

    def full_disk(fd):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", full_disk)
    with pytest.raises(ConfigError, match="PLAN.json: cannot write the PLAN.json: No space left on device"):
        files.write_text(target, "new and longer", "PLAN.json", ConfigError)
    assert target.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["PLAN.json"]  # no temporary left


def test_write_refuses_a_directory_and_a_missing_folder(tmp_path):
    with pytest.raises(ConfigError, match="is a directory"):
        files.write_text(tmp_path, "x", "WALK.json", ConfigError)
    missing = tmp_path / "nonexistent" / "w.json"
    with pytest.raises(ConfigError, match="does not exist"):
        files.write_text(missing, "x", "WALK.json", ConfigError)
    assert not missing.parent.exists()


def _umask() -> int:
    old = os.umask(0)
    os.umask(old)
    return old


def test_an_output_that_is_not_a_regular_file_is_refused_and_left_alone(tmp_path):
    """The atomic writer renames a new file over its target: over a device node (``-o /dev/null``)
    it would replace the node. A FIFO stands in for a device here (a test must not risk /dev/null):
    refused by the writer and by clear_output, and still a FIFO."""
    fifo = tmp_path / "out.json"
    os.mkfifo(fifo)
    for call in (
        lambda: files.write_text(fifo, "x", "PLAN.json", ConfigError),
        lambda: files.clear_output(fifo, "PLAN.json", ConfigError),
        lambda: files.check_output(fifo, "PLAN.json", ConfigError),
    ):
        with pytest.raises(ConfigError, match=r"out.json: a FIFO \(named pipe\), not a regular file: not written"):
            call()
        assert fifo.is_fifo()
    assert files.check_output(fifo, "recording", ConfigError, regular=False) == fifo  # a stream may go there


def test_a_link_is_followed_to_the_file_it_names(tmp_path):
    real, link = tmp_path / "real.json", tmp_path / "PLAN.json"
    real.write_text("old")
    link.symlink_to(real)
    files.write_text(link, "new", "PLAN.json", ConfigError)
    assert link.is_symlink() and real.read_text() == "new"
    files.clear_output(link, "PLAN.json", ConfigError)
    assert link.is_symlink() and not real.exists()
    files.write_text(link, "again", "PLAN.json", ConfigError)  # a dangling link: its file is written
    assert real.read_text() == "again"


def test_clear_output_removes_an_older_file_and_checks_the_folder(tmp_path):
    old = tmp_path / "GAIT.json"
    old.write_text("an older run's")
    assert files.clear_output(old, "GAIT.json", ConfigError) == old and not old.exists()
    files.clear_output(old, "GAIT.json", ConfigError)  # nothing there: nothing to do
    with pytest.raises(ConfigError, match="does not exist"):
        files.clear_output(tmp_path / "no" / "GAIT.json", "GAIT.json", ConfigError)


def test_check_input_is_the_reader_s_checks_for_a_reader_that_opens_by_name(tmp_path):
    mesh = tmp_path / "m.stl"
    mesh.write_bytes(b"x" * 10)
    assert files.check_input(mesh, "mesh file", ConfigError) == mesh
    with pytest.raises(ConfigError, match="10 bytes, more than the 9 bytes"):
        files.check_input(mesh, "mesh file", ConfigError, limit=9)
    with pytest.raises(ConfigError, match="character device"):
        files.check_input("/dev/zero", "mesh file", ConfigError)


def test_a_mesh_larger_than_the_bound_is_refused_before_a_mesh_loader_opens_it(tmp_path, scene_file):
    """Mesh files (a scene's, a URDF's) are opened by name by trimesh, coal and Pinocchio: they are
    checked as inputs first. A sparse file of 600 MiB (no disk used) stands for a huge one."""
    from humanoid_model.exceptions import ModelError, SceneError
    from humanoid_model.mesh_paths import resolve_urdf_paths
    from humanoid_model.scene import load_scene

    big = tmp_path / "big.stl"
    with open(big, "wb") as f:
        f.truncate(600 * 1024 * 1024)
    scene = scene_file("bodies: [{name: m, shape: mesh, file: big.stl}]\n")
    with pytest.raises(SceneError, match=r"'bodies\[0\].file'.*629145600 bytes, more than the 536870912 bytes"):
        load_scene(scene)
    urdf = tmp_path / "r.urdf"
    urdf.write_text(
        '<robot name="r"><link name="a"><visual><geometry><mesh filename="big.stl"/></geometry></visual></link></robot>'
    )
    with pytest.raises(ModelError, match=r"big.stl: 629145600 bytes, more than the 536870912 bytes read at most"):
        resolve_urdf_paths(urdf)
