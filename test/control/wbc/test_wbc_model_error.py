"""The wrong-mass models the whole-body controller is tried with (`humanoid_execution.model_error`):
every body of HRP-2 off by a random factor within ±error, its centre of mass and its shape kept
(its rotational inertia scaled by the same factor)."""

import numpy as np
import pinocchio as pin
import pytest

from humanoid_execution.model_error import perturbed_masses
from humanoid_model.exceptions import ConfigError
from humanoid_model.robot import load_robot


@pytest.fixture(scope="module")
def model():
    return load_robot("hrp2").model


def _bodies(model):
    return [j for j in range(1, model.njoints) if model.inertias[j].mass > 0]


@pytest.mark.parametrize("error, seed", [(0.1, 3), (0.3, 0), (0.9, 7)])
def test_every_body_mass_is_within_the_error_and_its_lever_and_shape_are_kept(model, error, seed):
    out = perturbed_masses(model, error, seed)
    factors = []
    for j in _bodies(model):
        a, b = model.inertias[j], out.inertias[j]
        s = b.mass / a.mass
        factors.append(s)
        assert 1 - error - 1e-12 <= s <= 1 + error + 1e-12
        assert np.array_equal(b.lever, a.lever)
        assert np.allclose(b.inertia, s * a.inertia, rtol=1e-12, atol=0)  # the same density change
    assert len(factors) > 20 and np.std(factors) > error / 10  # really drawn, not one factor


def test_the_same_seed_gives_the_same_model_and_another_seed_another(model):
    a, b, c = perturbed_masses(model, 0.2, 5), perturbed_masses(model, 0.2, 5), perturbed_masses(model, 0.2, 6)
    masses = [np.array([m.inertias[j].mass for j in _bodies(model)]) for m in (a, b, c)]
    assert np.array_equal(masses[0], masses[1])
    assert not np.allclose(masses[0], masses[2])


def test_no_error_keeps_every_mass_and_the_original_model_is_untouched(model):
    before = [model.inertias[j].mass for j in range(model.njoints)]
    same = perturbed_masses(model, 0.0, 1)
    assert [same.inertias[j].mass for j in range(model.njoints)] == before
    perturbed_masses(model, 0.5, 1)
    assert [model.inertias[j].mass for j in range(model.njoints)] == before


def test_the_perturbed_robots_dynamics_follow_its_masses(model):
    # rnea is linear in the inertias: the perturbed model's gravity torques are the sum of each
    # body's own (the model with that body alone), scaled by that body's mass factor
    out = perturbed_masses(model, 0.3, 2)
    q = pin.neutral(model)
    zero = np.zeros(model.nv)
    total = np.zeros(model.nv)
    for j in _bodies(model):
        single = pin.Model(model)
        for i in range(1, single.njoints):
            if i != j:
                single.inertias[i] = pin.Inertia.Zero()
        s = out.inertias[j].mass / model.inertias[j].mass
        total += s * pin.rnea(single, single.createData(), q, zero, zero)
    assert np.allclose(pin.rnea(out, out.createData(), q, zero, zero), total, rtol=0, atol=1e-9)


@pytest.mark.parametrize("error, seed", [(-0.1, 0), (0.95, 0), (np.nan, 0), (0.1, -1), (0.1, 1.5)])
def test_an_error_outside_0_to_0_9_or_a_bad_seed_is_refused(model, error, seed):
    with pytest.raises(ConfigError, match="model error"):
        perturbed_masses(model, error, seed)
