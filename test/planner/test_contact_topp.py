"""The time-optimal retiming of a contact plan (`humanoid_planner.motion.contact_topp`,
docs/planning.md "Time-optimal motion"): the contact wrench cone's face form against forces at the
corners, and the flat walk's plan retimed, checked on its own samples: the contact wrench the motion
needs (Pinocchio's centroidal momentum, finite differences of the retimed postures) inside the held
soles' cone, the held soles still, the path the plan's, at rest at every contact event."""

import json

import numpy as np
import pinocchio as pin
import pytest
from scipy.optimize import linprog
from support.contact_wrench import held_drift, worst_wrench

from humanoid_model.exceptions import PlanningError
from humanoid_model.scene import load_scene
from humanoid_planner.motion.contact_topp import (
    SegmentPath,
    ToppSettings,
    contact_wrench_cone,
    retime_plan,
)

SETTINGS = ToppSettings()


def _generators(contacts, mu_scale, center):
    out = []
    for corners, normal, mu in contacts:
        n = np.asarray(normal, float) / np.linalg.norm(normal)
        t1 = np.cross(n, [1.0, 0.0, 0.0])
        t1 /= np.linalg.norm(t1)
        t2 = np.cross(n, t1)
        k = mu / np.sqrt(2.0) * mu_scale
        for p in corners:
            for e in (n + k * t1, n - k * t1, n + k * t2, n - k * t2):
                out.append(np.concatenate([e, np.cross(np.asarray(p) - center, e)]))
    return np.array(out).T


def test_the_cone_face_form_holds_exactly_the_wrenches_forces_at_the_corners_make():
    """Two soles on two steps (one tilted 10 deg): F w <= 0 exactly when non-negative
    combinations of the corners' pyramid edges make w (a linear programme), for 300 wrenches
    about the weight (a robot's CoM moving and turning)."""
    rng = np.random.default_rng(3)
    sole = np.array([[-0.1, -0.06, 0.0], [0.13, -0.06, 0.0], [0.13, 0.06, 0.0], [-0.1, 0.06, 0.0]])
    tilt = pin.utils.rpyToMatrix(0.0, np.radians(10.0), 0.0)
    contacts = [
        (sole + [0.0, 0.1, 0.0], [0.0, 0.0, 1.0], 0.4),
        (sole @ tilt.T + [0.3, -0.1, 0.15], tilt[:, 2], 0.6),
    ]
    center = np.array([0.1, 0.0, 0.05])
    F = contact_wrench_cone(contacts, 0.7, center)
    G = _generators(contacts, 0.7, center)
    agree = decided = 0
    for _ in range(300):
        com = center + rng.uniform([-0.2, -0.2, 0.6], [0.2, 0.2, 0.9])
        f = 550.0 * np.array([0.0, 0.0, 9.81]) / 9.81 + rng.normal(0.0, 150.0, 3)
        w = np.concatenate([f, np.cross(com - center, f) + rng.normal(0.0, 20.0, 3)])
        margin = float((F @ w).max())
        if abs(margin) < 1e-6 * np.linalg.norm(w):
            continue
        lp = linprog(np.zeros(G.shape[1]), A_eq=G, b_eq=w, bounds=(0, None), method="highs")
        decided += 1
        agree += (margin < 0) == (lp.status == 0)
    assert decided > 250
    assert agree == decided
    assert (F @ G).max() <= 1e-9 * np.abs(G).max()  # every generator in the cone


@pytest.fixture(scope="module")
def retimed(flat_walk_plan, robot):
    doc = flat_walk_plan["doc"]
    return doc, retime_plan(doc, robot, load_scene("flat"), SETTINGS)


def test_the_retimed_walk_is_faster_and_starts_and_ends_each_transition_at_rest(retimed, robot):
    doc, r = retimed
    assert r.after < r.before  # the thesis's caps (10 deg/s); the plan's CoM 2 cm from its soles' edges
    m, out = robot.model, r.doc["trajectory"]
    t, q = np.array(out["t"]), np.array(out["q"])
    h = t[1] - t[0]
    steps = np.linalg.norm([pin.difference(m, q[k], q[k + 1]) for k in range(len(q) - 1)], axis=1) / h
    for tr in r.doc["transitions"]:
        for x in tr["t"]:
            k = int(np.clip(round((x - t[0]) / h), 1, len(t) - 2))
            assert min(steps[k - 1], steps[k]) < 0.01 * steps.max(), x  # at rest within a sample
    assert np.allclose(q[0], np.array(doc["trajectory"]["q"])[0]) and np.allclose(q[-1], doc["trajectory"]["q"][-1])


def test_the_retimed_walk_needs_a_contact_wrench_its_soles_can_give(retimed, robot):
    """At every 5 ms sample (finite differences of the retimed postures, Pinocchio's centroidal
    momentum) the wrench the motion needs lies in the held soles' cone, the soles' full area with
    the friction pyramid the retiming used (it kept a 2 cm CoP margin: room for the sampling)."""
    _, r = retimed
    worst, checked = worst_wrench(r.doc, robot, load_scene("flat"))
    assert checked > 0.9 * len(r.doc["trajectory"]["t"])
    assert worst <= 0.0


def test_the_held_soles_stay_where_the_plan_put_them(retimed, robot):
    """The path is the plan's, smoothed at the projections' spacing: each held sole within 1 mm of
    its placement at every sample."""
    assert held_drift(retimed[1].doc, robot) < 1e-3


def test_a_segment_path_goes_through_its_end_postures_and_is_c2(robot):
    m = robot.model
    q0 = robot.q()
    q1 = pin.integrate(m, q0, np.r_[0.1, 0.0, 0.0, 0.0, 0.0, 0.2, np.full(m.nv - 6, 0.3)])
    t = np.linspace(0.0, 1.0, 101)
    q = np.array([pin.interpolate(m, q0, q1, 0.5 - 0.5 * np.cos(np.pi * x)) for x in t])
    path = SegmentPath(m, t, q)
    assert np.allclose(path(0.0)[0], q0) and np.allclose(path(path.length)[0], q1, atol=1e-9)
    _, d1, d2 = path.derivatives(np.linspace(0.0, path.length, 50))
    assert np.allclose(np.linalg.norm(d1, axis=1), 1.0, atol=0.02)  # moves with the posture: unit speed in s
    assert np.abs(d2).max() < 1e-3  # a straight geodesic


def test_bad_settings_and_plans_are_refused(flat_walk_plan, robot):
    doc = flat_walk_plan["doc"]
    with pytest.raises(PlanningError, match="cop_margin"):
        retime_plan(doc, robot, load_scene("flat"), ToppSettings(cop_margin=-0.01))
    with pytest.raises(PlanningError, match="knots"):
        retime_plan(doc, robot, load_scene("flat"), ToppSettings(knots=0))
    with pytest.raises(PlanningError, match="no transitions"):
        retime_plan({**doc, "transitions": []}, robot, load_scene("flat"))

    def away(c):  # the sole's area 1 m ahead of the robot: no force there can hold it
        return {**c, "hull": [[x + 1.0, y, z] for x, y, z in c["hull"]]}

    far = {**doc, "stances": [{**s, "contacts": [away(c) for c in s["contacts"]]} for s in doc["stances"]]}
    with pytest.raises(PlanningError, match="cannot carry"):
        retime_plan(far, robot, load_scene("flat"))


def test_the_command_writes_the_quasi_static_plan_and_exits_1_when_the_retiming_fails(tmp_path, monkeypatch, capsys):
    import humanoid_planner.motion.contact_topp as topp
    from humanoid_stack.cli import main

    def fail(*args, **kwargs):
        raise PlanningError("time-optimal motion: the contacts cannot carry the motion (a test)")

    monkeypatch.setattr(topp, "retime_plan", fail)
    out = tmp_path / "PLAN.json"
    assert main(["plan", "flat", "--goal", "0.2,0", "--time-optimal", "--quiet", "--output", str(out)]) == 1
    err = capsys.readouterr().err
    assert "no time-optimal motion (the quasi-static one written)" in err and "cannot carry" in err
    assert "time_optimal" not in json.loads(out.read_text())["stats"]
