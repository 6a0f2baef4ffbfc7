"""The repository's own checks: docs/acceptance.md is generated from the tests' spec markers and
current; `tools/check_product.py` (run by `make lint`) flags process words, commit hashes and
references outside the repository (among the process words: "issue" after "the" or "this", and
its possessive), and lets the gait's "stop" phases and the plural "issues" of other projects'
trackers pass; every module path and dotted name the docs give exists (so docs/architecture.md
and the pages describe the code as it is)."""

import importlib
import re
import runpy
import subprocess
import sys

import pytest
from support import REPO

CHECK = runpy.run_path(str(REPO / "tools" / "check_product.py"))


def test_acceptance_page_is_generated_from_the_markers_and_current():
    r = subprocess.run(
        [sys.executable, str(REPO / "tools" / "acceptance.py"), "--check", str(REPO / "docs" / "acceptance.md")],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=REPO,
    )
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.mark.parametrize(
    "text",
    [
        "as " + "issue" + " 12 asked",
        "off by default, as the " + "issue" + " asks",
        "This " + "Issue" + " needs a fixed base",
        "the kinematics " + "issue" + "'s 0.1 mm",
        "the " + "issue" + "’s bound",
        "measured at " + "stop" + " 27",
        "since " + "Session" + " 4",
        "the acceptance " + "au" + "dit",
        "the " + "bri" + "ef" + "'s bound",
        "fixed in " + "8238" + "eba",
        "see ../" + "shared/spec/x.md",
        "di" + "gest " + "000_chardonnet" + ".md:12",
        "table in " + "hrp2_data" + ".md",
        "the thesis at " + "L" + "1318",
        "as the " + "di" + "gest says",
    ],
)
def test_check_product_flags_process_words_hashes_and_outside_references(text):
    assert any(pattern.search(text) for pattern in (CHECK["PROCESS"], CHECK["HASH"], CHECK["OUTSIDE"])), text


@pytest.mark.parametrize(
    "text",
    [
        "the stop phase of the gait",
        "start, cyclic and stop steps",
        "colour #ff00aa12",
        "0x1f2e3d4c",
        "the 1e-6 tolerance",
        "pin 4.1.0",
        "see the GitHub issues of rclpy",
        "known issues: none",
        "issues a warning",
    ],
)
def test_check_product_passes_product_text(text):
    assert not any(pattern.search(text) for pattern in (CHECK["PROCESS"], CHECK["HASH"], CHECK["OUTSIDE"])), text


def test_check_product_finds_nothing_in_the_repository():
    problems = CHECK["check"](CHECK["tracked"]())
    assert not problems, "\n".join(problems[:20])


# A docs path or dotted name is a placeholder when it holds an upper-case word (NAME, FILE) or a
# one-letter file name (x.yaml); format identifiers (``humanoid_stack.sim_recording/2``) are not modules.
PATH = re.compile(
    r"(?<![/\w])((?:humanoid_[a-z]+|test|benchmarks|tools|config|urdf|launch)/[A-Za-z0-9_./-]*[A-Za-z0-9_])"
)
DOTTED = re.compile(r"`(humanoid_[a-z]+(?:\.[A-Za-z_][A-Za-z0-9_]*)+)(?![/A-Za-z0-9_])")
DOCS = [*sorted((REPO / "docs").glob("*.md")), REPO / "README.md", REPO / "DEVELOPERS.md"]


def _placeholder(path: str) -> bool:
    return bool(re.search(r"(^|/)[A-Z_]+(\.|/|$)|(^|/)[a-z](\.[a-z]+)+$|NAME", path))


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for k in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:k]))
        except ImportError:
            continue
        for attr in parts[k:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


@pytest.mark.parametrize("doc", [d for d in DOCS if d.name != "references.md"], ids=lambda d: d.name)
def test_docs_name_only_paths_and_modules_that_exist(doc):
    text = doc.read_text()
    missing = [m.group(1) for m in PATH.finditer(text) if not _placeholder(m.group(1))]
    missing = [p for p in missing if not (REPO / p.rstrip(".")).exists()]
    missing += [m.group(1) for m in DOTTED.finditer(text) if not _resolves(m.group(1))]
    assert not missing, f"{doc.name} names what does not exist: {sorted(set(missing))}"
