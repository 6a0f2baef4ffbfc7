"""The `humanoid-stack` command: every subcommand documents itself, errors exit 2 without traceback."""

import subprocess
import sys

import pytest

from humanoid_stack.cli import COMMANDS, available_commands, main


def _run(*args):
    return subprocess.run([sys.executable, "-m", "humanoid_stack", *args], capture_output=True, text=True, timeout=120)


def test_help_lists_every_available_subcommand():
    r = _run("--help")
    assert r.returncode == 0
    sub = available_commands()
    assert "info" in sub and "view" in sub
    for name in sub:
        assert name in r.stdout and name in COMMANDS


def test_every_subcommand_has_help(capsys):
    sub = available_commands()
    for name in sub:
        with pytest.raises(SystemExit) as e:
            main([name, "--help"])
        assert e.value.code == 0
        text = capsys.readouterr().out
        assert f"humanoid-stack {name}" in text and len(text) > 80, name


def test_info_unknown_robot_is_a_clear_error():
    r = _run("info", "asimo")
    assert r.returncode == 2
    assert "unknown robot 'asimo'" in r.stderr and "Traceback" not in r.stderr


def test_info_hrp2_prints_joints_contacts_and_mass():
    r = _run("info", "hrp2")
    assert r.returncode == 0, r.stderr
    assert "RLEG_JOINT0" in r.stdout and "r_sole" in r.stdout and "mass" in r.stdout


def test_readme_lists_every_subcommand_with_existing_docs(repo_root):
    """The README's command table names every registered subcommand, and each docs file it points
    to exists and mentions the command."""
    import re

    text = (repo_root / "README.md").read_text()
    section = text.split("## Commands", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        cells = [c.strip() for c in line.replace("\\|", "/").strip("|").split("|")]  # \| inside a cell
        rows[cells[0].strip("`").split()[0]] = re.findall(r"`([^`]+\.md)`", cells[2])
    sub = available_commands()
    assert set(sub) == set(rows), "README command table vs registered subcommands"
    for name, docs in rows.items():
        assert docs, f"README gives no docs file for '{name}'"
        for doc in docs:
            path = repo_root / doc
            assert path.is_file(), f"README: {doc} (for '{name}') does not exist"
        assert any(re.search(rf"(humanoid-stack|make) {name}\b|`{name}", (repo_root / d).read_text()) for d in docs), (
            f"none of {docs} mentions '{name}'"
        )
