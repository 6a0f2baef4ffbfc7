"""`humanoid_model.validation`: each check accepts good input and refuses each kind of bad input
with the shared wording ``"<source>: field '<field>' must be <requirement>; value <value>"`` and
the exception class it is given."""

import re

import numpy as np
import pytest

from humanoid_model.exceptions import ConfigError, HumanoidStackError, ModelError, SceneError
from humanoid_model.validation import SHORT, finite_number, finite_rows, finite_vector, integer, message, short


def wording(source, field, requirement):
    """A regex for the shared wording up to the value."""
    return "^" + re.escape(f"{source}: field '{field}' must be {requirement}; value ")


# ---------------------------------------------------------------------- message and short
def test_message_is_the_shared_wording():
    assert message("scene.yaml", "gravity", "3 finite numbers", [0, 0]) == (
        "scene.yaml: field 'gravity' must be 3 finite numbers; value [0, 0]"
    )
    assert short(np.array([1.0, 2.0])) == "[1.0, 2.0]"  # arrays shown as lists
    assert short("abc") == "'abc'"


def test_short_truncates_long_values_and_says_how_long():
    text = short("x" * 500)
    assert text.startswith("'xxx") and text.endswith("... (502 characters)")
    assert len(text) == SHORT + len("... (502 characters)")
    assert short([1, 2, 3], limit=5) == "[1, 2... (9 characters)"


# ---------------------------------------------------------------------- finite_vector
@pytest.mark.parametrize(
    "value, n, expected",
    [
        ([1, 2, 3], 3, [1.0, 2.0, 3.0]),
        ((0.5, -1.0), 2, [0.5, -1.0]),
        (np.array([1.0, 2.0, 3.0, 4.0]), 4, [1.0, 2.0, 3.0, 4.0]),
        (np.array([1, 2], dtype=np.int32), 2, [1.0, 2.0]),
        ([np.float32(1.5), np.int64(2)], 2, [1.5, 2.0]),
        ([], None, []),
        ([1e300, -1e-300, 0], None, [1e300, -1e-300, 0.0]),
    ],
)
def test_finite_vector_accepts(value, n, expected):
    out = finite_vector(value, n, "src", "f")
    assert out.dtype == float and out.shape == (len(expected),)
    np.testing.assert_array_equal(out, expected)


def test_finite_vector_returns_a_copy():
    a = np.array([1.0, 2.0, 3.0])
    out = finite_vector(a, 3, "src", "f")
    out[0] = 9.0
    assert a[0] == 1.0


@pytest.mark.parametrize(
    "value, n, requirement, detail",
    [
        ([1, 2], 3, "3 finite numbers (no NaN or inf)", None),  # too short
        ([1, 2, 3, 4], 3, "3 finite numbers (no NaN or inf)", None),  # too long
        ([[1, 2, 3]], 3, "3 finite numbers (no NaN or inf)", None),  # 2-D
        (5.0, 3, "3 finite numbers (no NaN or inf)", None),  # a scalar
        ([0, float("nan"), 1], 3, "3 finite numbers (no NaN or inf)", " (index 1 is nan)"),
        ([0, 1, float("-inf")], None, "a list of finite numbers (no NaN or inf)", " (index 2 is -inf)"),
        (["1", "2", "3"], 3, "3 finite numbers (no NaN or inf)", None),  # text, even numeric
        ("abc", 3, "3 finite numbers (no NaN or inf)", None),
        ([True, 0, 0], 3, "3 finite numbers (no NaN or inf)", None),  # a boolean among numbers
        (np.array([True, False, True]), 3, "3 finite numbers (no NaN or inf)", None),
        ([1, None, 3], 3, "3 finite numbers (no NaN or inf)", None),
        ({"x": 1}, None, "a list of finite numbers (no NaN or inf)", None),
        ([[1], [1, 2]], None, "a list of finite numbers (no NaN or inf)", None),  # ragged
    ],
)
def test_finite_vector_refuses(value, n, requirement, detail):
    with pytest.raises(ConfigError, match=wording("world: apply_wrench('box')", "force", requirement)) as info:
        finite_vector(value, n, "world: apply_wrench('box')", "force")
    text = str(info.value)
    assert text.split("; value ", 1)[1].startswith(short(value)[:20])  # the value as given
    if detail is None:
        assert "(index" not in text
    else:
        assert text.endswith(detail)


# ---------------------------------------------------------------------- finite_rows
def test_finite_rows_accepts():
    out = finite_rows([[0, 0, 1], [1, 2, 3]], 3, "src", "hull")
    assert out.shape == (2, 3) and out.dtype == float
    np.testing.assert_array_equal(finite_rows(np.eye(2), None, "src", "m", rows=2), np.eye(2))
    assert finite_rows([[1, 2]] * 5, 2, "src", "m").shape == (5, 2)


@pytest.mark.parametrize(
    "value, width, rows, requirement, detail",
    [
        ([[0, 0], [1, 1]], 3, None, "rows of 3 finite numbers (no NaN or inf)", None),  # width
        ([[0, 0, 0]], 3, 2, "2 rows of 3 finite numbers (no NaN or inf)", None),  # row count
        ([[0, 0], [1, 1]], None, 3, "3 rows of equal length finite numbers (no NaN or inf)", None),
        ([0, 0, 0], 3, None, "rows of 3 finite numbers (no NaN or inf)", None),  # 1-D
        ([[0, 1], [2]], 2, None, "rows of 2 finite numbers (no NaN or inf)", None),  # ragged
        ([[0, 1], [float("inf"), 2]], 2, None, "rows of 2 finite numbers (no NaN or inf)", " (index (1, 0) is inf)"),
        ([[0, "1"]], 2, None, "rows of 2 finite numbers (no NaN or inf)", None),
        ([[0, False]], 2, None, "rows of 2 finite numbers (no NaN or inf)", None),
    ],
)
def test_finite_rows_refuses(value, width, rows, requirement, detail):
    with pytest.raises(SceneError, match=wording("x.yaml", "vertices", requirement)) as info:
        finite_rows(value, width, "x.yaml", "vertices", rows=rows, error=SceneError)
    if detail is not None:
        assert str(info.value).endswith(detail)


# ---------------------------------------------------------------------- finite_number
@pytest.mark.parametrize(
    "value, kwargs",
    [
        (0.01, dict(minimum=0.0, strict=True, maximum=0.1)),
        (0, dict(minimum=0.0)),  # the bound itself when not strict
        (0.1, dict(maximum=0.1)),
        (np.float64(2.5), {}),
        (np.int64(-3), {}),
        (7, {}),
    ],
)
def test_finite_number_accepts(value, kwargs):
    out = finite_number(value, "world", "dt", **kwargs)
    assert isinstance(out, float) and out == float(value)


@pytest.mark.parametrize(
    "value, kwargs, requirement",
    [
        (0.0, dict(minimum=0.0, strict=True, unit="[s]"), "a finite number > 0 [s]"),
        (-1e-9, dict(minimum=0.0), "a finite number >= 0"),
        (0.2, dict(maximum=0.1), "a finite number <= 0.1"),
        (0.2, dict(minimum=0.0, strict=True, maximum=0.1, unit="[s]"), "a finite number > 0 [s] and <= 0.1 [s]"),
        (float("nan"), {}, "a finite number"),
        (float("inf"), dict(minimum=0.0), "a finite number >= 0"),
        (True, {}, "a finite number"),  # booleans are not numbers here
        ("0.01", {}, "a finite number"),
        (None, {}, "a finite number"),
        ([0.01], {}, "a finite number"),
    ],
)
def test_finite_number_refuses(value, kwargs, requirement):
    with pytest.raises(ModelError, match=wording("world", "dt", requirement) + re.escape(short(value)) + "$"):
        finite_number(value, "world", "dt", error=ModelError, **kwargs)


# ---------------------------------------------------------------------- integer
def test_integer_accepts():
    assert integer(3, "gen", "count") == 3 and isinstance(integer(np.int32(4), "gen", "count"), int)
    assert integer(0, "gen", "count", minimum=0) == 0


@pytest.mark.parametrize(
    "value, minimum, requirement",
    [
        (2.0, None, "an integer"),  # a float, even integral
        (True, None, "an integer"),
        ("3", None, "an integer"),
        (-1, 0, "an integer >= 0"),
    ],
)
def test_integer_refuses(value, minimum, requirement):
    with pytest.raises(ConfigError, match=wording("gen", "count", requirement) + re.escape(short(value)) + "$"):
        integer(value, "gen", "count", minimum=minimum)


# ---------------------------------------------------------------------- the exception class
@pytest.mark.parametrize("error", [ConfigError, ModelError, SceneError])
def test_each_check_raises_the_class_it_is_given(error):
    checks = [
        lambda: finite_vector([np.nan], 1, "s", "f", error),
        lambda: finite_rows([[np.nan]], 1, "s", "f", error=error),
        lambda: finite_number(np.nan, "s", "f", error=error),
        lambda: integer(0.5, "s", "f", error=error),
    ]
    for check in checks:
        with pytest.raises(error) as info:
            check()
        assert type(info.value) is error and isinstance(info.value, HumanoidStackError)


def test_the_default_class_is_config_error_and_others_are_refused():
    with pytest.raises(ConfigError):
        finite_number("x", "s", "f")
    with pytest.raises(TypeError, match="'error' must be a HumanoidStackError subclass"):
        finite_number("x", "s", "f", error=ValueError)


def test_short_never_builds_the_repr_of_a_huge_container():
    """A YAML alias chain of 10^8 values (a few hundred bytes of file) is not repr'd whole (358 MB,
    5 s) to quote 80 characters of it."""
    level = [0] * 10
    for _ in range(7):
        level = [level] * 10  # shared, as YAML aliases are: 10^8 values
    text = short({"L7": level})
    assert text.endswith("... (more than 10000 values)") and len(text) <= SHORT + 40
    assert short([0] * 9_000).endswith("(27000 characters)")  # small enough: the exact length
