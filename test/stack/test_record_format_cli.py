"""`simulate --record-format` and `view --replay` of a bag on the command line (docs/recording.md):
the format follows OUTPUT's name unless given, a bag is never written over an existing path, and a
bag cut in half is one line on `view --replay`, exit 2."""

import shutil

from humanoid_model.formats.bag import is_bag
from humanoid_model.formats.recording import recording_stream_header
from humanoid_stack.cli import main

RUN = ["simulate", "sphere_drop", "--duration", "0.01", "--quiet"]


def test_the_format_follows_the_output_name_unless_given(tmp_path):
    assert main([*RUN, "--output", str(tmp_path / "a.jsonl")]) == 0
    assert recording_stream_header(tmp_path / "a.jsonl") is not None
    assert main([*RUN, "--output", str(tmp_path / "b")]) == 0
    assert is_bag(tmp_path / "b") and (tmp_path / "b" / "b.mcap").is_file()
    assert main([*RUN, "--record-format", "jsonl", "--output", str(tmp_path / "c")]) == 0
    assert recording_stream_header(tmp_path / "c") is not None
    assert main([*RUN, "--record-format", "mcap", "--output", str(tmp_path / "d.jsonl")]) == 0
    assert is_bag(tmp_path / "d.jsonl")


def test_a_bag_is_not_written_over_an_existing_path(tmp_path, capsys):
    for existing in (tmp_path / "folder", tmp_path / "file"):
        existing.mkdir() if existing.name == "folder" else existing.write_text("keep")
        assert main([*RUN, "--output", str(existing)]) == 2
        err = capsys.readouterr().err.strip()
        assert len(err.splitlines()) == 1 and "exists already" in err and str(existing) in err
    assert (tmp_path / "file").read_text() == "keep" and list((tmp_path / "folder").iterdir()) == []


def test_view_of_a_bag_cut_in_half_is_one_line(tmp_path, capsys):
    assert main([*RUN, "--output", str(tmp_path / "run")]) == 0
    cut = tmp_path / "cut"
    shutil.copytree(tmp_path / "run", cut)
    mcap = cut / "run.mcap"
    mcap.write_bytes(mcap.read_bytes()[: mcap.stat().st_size // 2])
    capsys.readouterr()
    assert main(["view", "hrp2", "--replay", str(cut), "--port", "0", "--duration", "1"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "truncated" in err and "Traceback" not in err
