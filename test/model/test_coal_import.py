"""humanoid_model.coal_import: coal's box distances do not depend on the process's first query
(its module docstring). Each case runs in a fresh interpreter, since the state under test is the
process's."""

import json
import subprocess
import sys

import pytest

# A rotated box pair queried after a first query that is a capsule against a rotated thin box:
# that first query's box support direction has no zero component (coal's factor would be 1).
QUERY = """
import json
import numpy as np
{import_line}
def rot(a, b, c):
    ca, sa, cb, sb, cc, sc = np.cos(a), np.sin(a), np.cos(b), np.sin(b), np.cos(c), np.sin(c)
    rx = np.array([[1, 0, 0], [0, ca, -sa], [0, sa, ca]])
    ry = np.array([[cb, 0, sb], [0, 1, 0], [-sb, 0, cb]])
    rz = np.array([[cc, -sc, 0], [sc, cc, 0], [0, 0, 1]])
    return rz @ ry @ rx
if {capsule_first}:
    coal.distance(coal.Capsule(0.196, 0.26), coal.Transform3s(rot(0.3, 0.2, 0.1), np.array([0, 0, 0.48])),
                  coal.Box(1.2, 2.0, 0.03), coal.Transform3s(np.eye(3), np.array([1.6, 0, 0.815])),
                  coal.DistanceRequest(), coal.DistanceResult())
out = []
for k in range(20):
    request = coal.DistanceRequest()
    request.gjk_tolerance = 1e-10
    result = coal.DistanceResult()
    d = coal.distance(coal.Box(0.2, 0.3, 0.1), coal.Transform3s(rot(0.1 * k, 0.7, -0.4), np.zeros(3)),
                      coal.Box(0.1, 0.25, 0.3), coal.Transform3s(rot(-0.3, 0.05 * k, 1.1),
                      np.array([0.3, 0.02 * k - 0.2, 0.1])), request, result)
    out.append([d, *map(float, result.getNearestPoint1())])
print(json.dumps(out))
"""


def _distances(import_line: str, capsule_first: bool) -> list:
    code = QUERY.format(import_line=import_line, capsule_first=capsule_first)
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(run.stdout)


def test_box_distances_do_not_depend_on_the_first_query_of_the_process():
    fixed = "from humanoid_model.coal_import import coal"
    plain = _distances("import coal", capsule_first=False), _distances("import coal", capsule_first=True)
    if plain[0] == plain[1]:
        pytest.skip("this coal no longer keeps its box support's first-call constant: coal_import can go")
    # the plain import answers differently after the capsule query (the defect coal_import fixes) ...
    assert plain[0] != plain[1]
    # ... and through coal_import both histories give the same answers, bit for bit
    assert _distances(fixed, capsule_first=True) == _distances(fixed, capsule_first=False)
