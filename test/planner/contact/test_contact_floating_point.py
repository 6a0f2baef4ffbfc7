"""The contact planner takes the same search whatever floating-point path the process runs
(docs/contact_planner.md "Same plan on every machine").

Each case plans in two fresh processes: one in the default environment and one with the numerics
forced onto other code: numba compiling for a generic x86-64 (``NUMBA_CPU_NAME=generic``, with a
cache of its own) and numpy's SIMD loops for AVX-512 disabled (``NPY_DISABLE_CPU_FEATURES``, the
AVX-512 groups this processor has; none on a processor without AVX-512, where that part of the
check is moot). Both must give the identical trace: every posture-generator call's purpose,
outcome and resulting posture (its bytes), the search's counts and best potential after every
expansion, and the plan's stances and witnesses (bytes).

- Under the table, the first 20 expansions (455 PG calls): before the planner computed its angles
  with the C library's functions, numpy's arctan2, arccos and tan rounded differently on the two
  paths (the body potentials' arc angles by 7e-18 rad, a search box's contact angle by one unit in
  the last place), the posture generator's call 370 ended 5e-13 rad apart and the full search
  generated 981 nodes on one path and 979 on the other, with other stances.
- The can on the table, planned to its goal (3 stances).

On a processor without AVX-512 the forced environment changes less, so the sources are also
checked: no numpy call of a function whose loops differ between the two paths (measured with
numpy 2.4: arctan2, arccos, arcsin, arctan, tan, the hyperbolic ones, exp, log and their
relatives; sin, cos, sqrt and hypot give the same bits) in the packages the search runs.
"""

import json
import os
import re
import subprocess
import sys

import pytest
from support import REPO

TRACE = r"""
import hashlib, json, sys
from humanoid_model import load_robot
from humanoid_model.scene import load_scene
from humanoid_planner.planning import problem_for
from humanoid_planner.posture.solver.call_log import CallLog, recording

class Trace(CallLog):
    def __init__(self):
        super().__init__()
        self.lines = []

    def record(self, result, label=""):
        key = hashlib.sha256(result.q.tobytes()).hexdigest()[:16]
        self.lines.append(f"{label} {result.outcome.name} {key}")

scene, expanded = sys.argv[1], int(sys.argv[2])
problem = problem_for(load_scene(scene), load_robot("hrp2"), max_expanded=expanded)
trace, steps = Trace(), []
with recording(trace):
    plan = problem.planner.plan(
        problem.start, problem.start_q, progress=lambda p: steps.append([p.generated, p.expanded, p.best.hex()])
    )
nodes = [[str(n.stance), n.q.tobytes().hex()] for n in plan.nodes]
print(json.dumps({"calls": trace.lines, "steps": steps, "success": plan.success, "nodes": nodes}))
"""


def _avx512_groups() -> list[str]:
    """numpy's dispatch groups of AVX-512 that this processor has (empty without AVX-512)."""
    from numpy._core._multiarray_umath import __cpu_features__

    return [f for f in ("X86_V4", "AVX512_ICL", "AVX512_SPR", "AVX512F", "AVX512_SKX") if __cpu_features__.get(f)]


def _trace(scene: str, expanded: int, env: dict) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", TRACE, scene, str(expanded)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**os.environ, **env},
        timeout=600,
        check=False,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize(("scene", "expanded"), [("under_table", 20), ("table_can", 200)])
def test_search_is_the_same_on_another_floating_point_path(scene, expanded, tmp_path):
    default = _trace(scene, expanded, {})
    forced = _trace(
        scene,
        expanded,
        {
            "NUMBA_CPU_NAME": "generic",
            "NUMBA_CACHE_DIR": str(tmp_path / "numba"),
            "NPY_DISABLE_CPU_FEATURES": " ".join(_avx512_groups()),
        },
    )
    if scene == "under_table":
        assert len(default["calls"]) > 370  # past the call that diverged (module docstring)
    else:
        assert default["success"]
    first = next((i for i, (a, b) in enumerate(zip(default["calls"], forced["calls"])) if a != b), None)
    assert first is None, f"PG call {first}: {default['calls'][first]} against {forced['calls'][first]}"
    assert default["calls"] == forced["calls"]
    assert default["steps"] == forced["steps"]
    assert default["success"] == forced["success"]
    assert default["nodes"] == forced["nodes"]


# numpy's float64 loops that numpy dispatches per processor and whose results differ in the last bit
# between its AVX-512 and AVX2 paths (module docstring); the search's code uses `math` instead
PROCESSOR_DEPENDENT = re.compile(
    r"\bnp\.(arctan2|arccos|arcsin|arctan|tan|sinh|cosh|tanh|arcsinh|arccosh|arctanh|exp|exp2|expm1|log|log2|log10|log1p|cbrt)\("
)
SEARCH_CODE = ("humanoid_planner/contact", "humanoid_planner/posture", "humanoid_planner/planning")


def test_search_code_takes_angles_from_the_c_library():
    hits = [
        f"{path.relative_to(REPO)}:{i}: {line.strip()}"
        for folder in SEARCH_CODE
        for path in sorted((REPO / folder).rglob("*.py"))
        for i, line in enumerate(path.read_text().splitlines(), 1)
        if PROCESSOR_DEPENDENT.search(line)
    ]
    assert not hits, "numpy functions whose bits depend on the processor:\n" + "\n".join(hits)
    assert PROCESSOR_DEPENDENT.search("u = float(np.arctan2(y, x))")  # the pattern finds such a call
    assert not PROCESSOR_DEPENDENT.search("u = math.atan2(y, x) + np.cos(a)")
