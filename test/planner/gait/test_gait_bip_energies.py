"""BIP's energies at the gait generator's defaults (`make_problem("thesis")`: the thesis's parameters with the
contact extension; the session's walk, conftest `gait_walk`) against Chessé 2002, §III.3.2.8 (acceptance items
003 A12, A13; ±25 %, the thesis's weights and several of its parameters being unpublished). The values the
defaults miss are expected failures whose reasons give the measured energies; docs/gait.md ("Results") gives
why, and the calibrated variant that meets them all (a calibration from sweeps of these energies, so not the
default)."""

import pytest

TOL = 0.25  # the acceptance items' ±25 %
THESIS = {  # [J] Chessé 2002, §III.3.2.8
    "start_ss": 81.9,
    "cyclic_ds": 96.3,
    "cyclic_ss": 109.5,
    "prestop_ds": 112.1,
    "stop_ss": 105.1,
}
STEP, POWER, WALK = 205.8, 307.0, 504.9  # [J], [W], [J] the cyclic step (DS + SS), its mean power, the 5 phases


def _energies(gait_walk) -> dict:
    _, sols = gait_walk
    return {s.phase.name: s.checks["energy"] for s in sols}


def _durations(gait_walk) -> dict:
    _, sols = gait_walk
    return {s.phase.name: float(s.t[-1] - s.t[0]) for s in sols}


@pytest.mark.spec("003", "A12")
def test_cyclic_single_support_step_and_power_are_within_25_percent(gait_walk):
    """Cyclic SS 109.5 J, the step (DS + SS) 205.8 J and its mean power 307 W, each within ±25 % (measured 113.1 J,
    159.6 J, 238 W); E_SS > E_DS."""
    e, d = _energies(gait_walk), _durations(gait_walk)
    step = e["cyclic_ds"] + e["cyclic_ss"]
    assert e["cyclic_ss"] == pytest.approx(THESIS["cyclic_ss"], rel=TOL)
    assert step == pytest.approx(STEP, rel=TOL)
    assert step / (d["cyclic_ds"] + d["cyclic_ss"]) == pytest.approx(POWER, rel=TOL)
    assert e["cyclic_ss"] > e["cyclic_ds"]


@pytest.mark.spec("003", "A12")
@pytest.mark.xfail(
    strict=True,
    reason="measured 46.5 J (0.48 x 96.3): the DS energy is set by the front-foot force weights the thesis does not "
    "publish (eq. (III.21)); docs/gait.md 'Results'",
)
def test_cyclic_double_support_energy_is_within_25_percent(gait_walk):
    assert _energies(gait_walk)["cyclic_ds"] == pytest.approx(THESIS["cyclic_ds"], rel=TOL)


@pytest.mark.spec("003", "A13")
def test_stop_step_and_whole_walk_are_within_25_percent_and_the_orderings_hold(gait_walk):
    """Stop SS 105.1 J and the five-phase walk 504.9 J within ±25 % (measured 120.6, 449.3 J); the pre-stop DS costs
    more than the cyclic DS (the thesis's E(c) > E_DS(b): measured 57.9 > 46.5 J)."""
    e = _energies(gait_walk)
    assert list(e) == list(THESIS)
    assert e["stop_ss"] == pytest.approx(THESIS["stop_ss"], rel=TOL)
    assert sum(e.values()) == pytest.approx(WALK, rel=TOL)
    assert e["prestop_ds"] > e["cyclic_ds"]


@pytest.mark.spec("003", "A13")
@pytest.mark.xfail(
    strict=True,
    reason="measured start SS 111.2 J (1.36 x 81.9; its 'legs together, feet flat' start posture is not published) "
    "and pre-stop DS 57.9 J (0.52 x 112.1; the DS weights as in A12); docs/gait.md 'Results'",
)
def test_start_step_and_pre_stop_double_support_are_within_25_percent(gait_walk):
    e = _energies(gait_walk)
    assert e["start_ss"] == pytest.approx(THESIS["start_ss"], rel=TOL)
    assert e["prestop_ds"] == pytest.approx(THESIS["prestop_ds"], rel=TOL)
