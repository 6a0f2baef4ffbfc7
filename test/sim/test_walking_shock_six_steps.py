"""Shock attenuation over the thesis's 6 steps (Chardonnet 2009, §4.4.2 and §4.6; acceptance test 000 D4,
restated): one plan (`plan_pattern`, 6 steps of 0.2 m) replayed by one controller (the walking PD,
`humanoid_control.walking_ik.stiffen`) with rigid feet, flexible ankles, the simple FEM sole (2 cm, E = 3 MPa,
ν = 0.4, the robot YAML's 16-node mesh) and the two-layer pad sole (`PAD_LAYERS`), as `benchmarks/walking.py
--generator smooth` runs them. Every compliant variant lowers the peak vertical torso acceleration at the strikes
below the rigid feet's; the pad sole does not lower it below the simple sole's (expected failure, the measured
reason in docs/walking.md)."""

import dataclasses

import numpy as np
import pytest

from humanoid_control.walking_ik import solve_walking_ik, stiffen
from humanoid_model import load_robot
from humanoid_model.sole_spec import PAD_LAYERS
from humanoid_planner.walking_pattern import WalkParameters, foot_geometry, plan_pattern
from humanoid_sim.runtime.plan_replay import replay, strike_peaks
from humanoid_sim.world import World

CASES = ("rigid", "flexible", "sole", "pads")
STEPS = 6  # the thesis's walk (Chardonnet 2009, §4.4.2)


def _world(case):
    if case == "flexible":
        return World.from_scene("flat", robot=load_robot("hrp2", ankle="flexible"))
    if case == "sole":
        return World.from_scene("flat", soles="fem")
    if case == "pads":
        soles = [dataclasses.replace(s, layers=PAD_LAYERS) for s in load_robot("hrp2").soles.values()]
        return World.from_scene("flat", soles=soles)
    return World.from_scene("flat")


@pytest.fixture(scope="module")
def peaks():
    """case -> (6,) peak |a_z| of the torso's CoM at each strike [m/s²]."""
    params = WalkParameters(n_steps=STEPS, step_length=0.2)
    pattern = plan_pattern(params, foot_geometry(load_robot("hrp2")))
    ik = solve_walking_ik(pattern.com, pattern.feet, hold=params.hold)
    steps = pattern.steps
    out = {}
    for case in CASES:
        w = _world(case)
        stiffen(w.actuator, keep=w.robot.springs or ())
        rec = replay(w, pattern.t, ik.joint_positions(), ik.joint_names)
        assert not rec.stopped, case  # it walks the 6 steps
        _, p = strike_peaks(rec, [s.t_lift for s in steps], params.t_ss, [s.foot for s in steps])
        out[case] = p
    return out


@pytest.mark.slow
@pytest.mark.spec("000", "D4")
def test_every_compliant_variant_lowers_the_strike_peak_below_the_rigid_feet(peaks):
    """The peak over the 6 strikes: flexible ankle, FEM sole and pad sole each below the rigid feet's (measured
    2.69, 1.19, 3.80 against 8.92 m/s²; the thesis's 30, 5, 2 against 50), every strike detected."""
    assert all(np.isfinite(p).all() and len(p) == STEPS for p in peaks.values())
    rigid = peaks["rigid"].max()
    for case in ("flexible", "sole", "pads"):
        assert peaks[case].max() < rigid, (case, peaks[case], rigid)


@pytest.mark.slow
@pytest.mark.spec("000", "D4")
@pytest.mark.xfail(
    strict=True,
    reason="measured 3.80 m/s² for the pads against 1.19 for the simple sole: the pads' last strike lands on an edge "
    "of the softer sole (0.6-1.3 m/s² at the five before it, the simple sole's 0.5-1.0); docs/walking.md",
)
def test_the_pad_sole_lowers_the_strike_peak_below_the_simple_sole(peaks):
    """The thesis's "about 2 from about 5" (Chardonnet 2009, §4.6): the pad sole's peak below the simple sole's."""
    assert peaks["pads"].max() < peaks["sole"].max()
