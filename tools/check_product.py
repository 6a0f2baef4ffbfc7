"""Checks that keep the product readable (run by `make lint`, hence by `make test`).

1. No Python module over MAX_LINES lines in the packages (``humanoid_*``).
2. No process words in tracked text: "issue N", "the issue", "this issue", "issue's", "stop N",
   "session N", "audit", "brief", or a git commit hash. A gait's "stop" phase is not a process
   word: only "stop" followed by a number is ("stop phase", "the stop step" pass; "stop 12"
   fails). "issues" without a number passes: it names other projects' trackers ("GitHub
   issues", "known issues of rclpy"), not the request a change answers; the singular with an
   article or a possessive is always the request, so it fails even where a product word was
   meant (say "the problem").
3. No reference outside the repository: ``../shared``, the digest files, a line of a thesis's text
   extraction ("L1234") or an absolute path of the machine the code was written on.

    python tools/check_product.py            # exit 1 and one line per violation
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MAX_LINES = 650  # chosen: a module a reader can hold in mind; the largest split ones were 700-920 lines
BINARY = {".png", ".jpg", ".jpeg", ".stl", ".dae", ".obj", ".npz", ".npy", ".bin", ".pdf", ".msh", ".ico"}
SELF = Path(__file__).resolve()

PROCESS = re.compile(
    r"\b(?:issue|stop|session)s?[ -]?#?\d+\b|\b(?:the|this)\s+issue\b|\bissue['’]s\b|\baudit(?:s|ed|ing)?\b|\bbrief\b",
    re.IGNORECASE,
)
# 7 to 40 hex digits with at least one letter and one digit, not a colour (#fff...) or 0x number
HASH = re.compile(r"(?<![#0-9A-Za-z_/.\-])(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}(?![0-9A-Za-z_\-])")
# the theses' digests and the text files behind them are not in the repository: a citation names the
# thesis's own section, equation or table (docs/references.md), never a digest file or a line number of
# a text extraction ("L1234"); nor a path of the machine the code was written on
OUTSIDE = re.compile(
    r"\.\./shared|/work/|\b(?:00[0-4]_[a-z]+|bip_data|hrp2_data)\.md\b|\bL\d{3,4}\b|\bdigests?\b", re.IGNORECASE
)


def tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True)
    return [ROOT / p for p in out.stdout.splitlines() if p]


def check(paths) -> list[str]:
    problems = []
    for path in paths:
        if path.suffix.lower() in BINARY or not path.is_file() or path.resolve() == SELF:
            continue
        rel = path.relative_to(ROOT)
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        lines = text.splitlines()
        if path.suffix == ".py" and rel.parts[0].startswith("humanoid_") and len(lines) > MAX_LINES:
            problems.append(f"{rel}: {len(lines)} lines (at most {MAX_LINES} per module: split it by concept)")
        for i, line in enumerate(lines, 1):
            for rule, pattern in (("process word", PROCESS), ("commit hash", HASH), ("outside reference", OUTSIDE)):
                m = pattern.search(line)
                if m:
                    problems.append(f"{rel}:{i}: {rule} {m.group(0)!r}")
    return problems


def main(argv=None) -> int:
    problems = check(tracked())
    for p in problems:
        print(p)
    if problems:
        print(f"check_product: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
