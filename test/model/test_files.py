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
