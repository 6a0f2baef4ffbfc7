"""Checks of user input shared by every package, with one error wording.

Every message reads ``"<source>: field '<field>' must be <requirement>; value <value>"`` (the
wording of `humanoid_sim.solvers.ContactProblem`): ``source`` names the file, topic, node or
function the value came from, ``field`` the key or argument, and the value is shown as given
(truncated to `SHORT` characters); a vector or matrix check adds the first non-finite entry,
``" (index 1 is nan)"``. Numbers are ints or floats (NumPy's too): booleans and text
are refused, also inside lists. Each check raises the exception class it is given (default
`ConfigError`), so a scene loader raises `SceneError`, a model loader `ModelError`, and so on.

    from humanoid_model.validation import finite_vector, finite_number
    force = finite_vector(value, 3, source="world: apply_wrench('box')", field="force")
    dt = finite_number(dt, source="world", field="dt", minimum=0.0, strict=True, maximum=0.1)
"""

from __future__ import annotations

import reprlib

import numpy as np

from humanoid_model.exceptions import ConfigError, HumanoidStackError

__all__ = ["SHORT", "short", "did_you_mean", "message", "finite_vector", "finite_rows", "finite_number", "integer"]

SHORT = 80  # [characters] longest value repr quoted in a message (chosen: one terminal line)


REPR_VALUES = 10_000  # containers with more values than this are not repr'd whole (chosen)


def _values_beyond(value, cap: int) -> bool:
    """Whether the nested lists / tuples / dicts of ``value`` hold more than ``cap`` values
    (counted with shared parts counted again, as repr would print them; stops at the cap)."""
    count, stack = 0, [value]
    while stack:
        x = stack.pop()
        count += 1
        if count > cap:
            return True
        if isinstance(x, dict):
            stack.extend(x.values())
        elif isinstance(x, (list, tuple)):
            stack.extend(x)
    return False


def short(value, limit: int = SHORT) -> str:
    """``repr(value)``, truncated to ``limit`` characters with the full length noted. A container
    of more than REPR_VALUES values (e.g. YAML aliases expanding to 10^8 values) is shown by its
    opening only: its full repr is never built."""
    if isinstance(value, np.ndarray):
        value = value.ravel()[: REPR_VALUES + 1].tolist() if value.size > REPR_VALUES else value.tolist()
    if _values_beyond(value, REPR_VALUES):
        abbrev = reprlib.Repr()  # Python 3.11: limits are attributes, not arguments
        abbrev.maxlevel, abbrev.maxlist, abbrev.maxdict, abbrev.maxtuple, abbrev.maxstring = 3, 8, 8, 8, limit
        r = abbrev.repr(value)
        return r[:limit] + f"... (more than {REPR_VALUES} values)"
    r = repr(value)
    return r if len(r) <= limit else r[:limit] + f"... ({len(r)} characters)"


def did_you_mean(name, candidates) -> str:
    """`` (did you mean 'x'?)`` with the candidate closest to ``name`` (difflib), or "" when none is close."""
    import difflib

    hint = difflib.get_close_matches(str(name), list(candidates), n=1)
    return f" (did you mean '{hint[0]}'?)" if hint else ""


def message(source: str, field: str, requirement: str, value) -> str:
    """The shared wording: ``"<source>: field '<field>' must be <requirement>; value <value>"``."""
    return f"{source}: field '{field}' must be {requirement}; value {short(value)}"


def _fail(error, source, field, requirement, value, array=None, bound=None):
    if not (isinstance(error, type) and issubclass(error, HumanoidStackError)):
        raise TypeError(f"validation: 'error' must be a HumanoidStackError subclass; value {error!r}")
    text = message(source, field, requirement, value)
    bad = None
    if array is not None and array.size:
        bad = ~np.isfinite(array)
        if bound is not None:
            bad |= np.abs(np.nan_to_num(array)) > bound
    if bad is not None and np.any(bad):
        where = np.argwhere(bad)[0]  # the first bad entry (the value may be truncated)
        index = int(where[0]) if len(where) == 1 else tuple(int(i) for i in where)
        text += f" (index {index} is {array[tuple(where)]})"
    raise error(text)


def _has_bool_or_text(items) -> bool:
    return any(
        isinstance(x, (bool, np.bool_, str, bytes)) or (isinstance(x, (list, tuple)) and _has_bool_or_text(x))
        for x in items
    )


def _array(value):
    """``value`` as a float array, or None when it is not numbers (text, mappings, booleans and
    text inside lists, ragged lists, None entries)."""
    if isinstance(value, (str, bytes, dict)):
        return None
    try:
        a = np.asarray(value)
    except (TypeError, ValueError):  # ragged nested lists
        return None
    if a.dtype.kind not in "iuf" or (isinstance(value, (list, tuple)) and _has_bool_or_text(value)):
        return None
    return a.astype(float)


def _beyond(a, bound) -> bool:
    return bound is not None and bool(np.any(np.abs(a) > bound))


def _bound_text(bound) -> str:
    return "" if bound is None else f" within ±{bound:g}"


def finite_vector(
    value, n: int | None, source: str, field: str, error=ConfigError, bound: float | None = None
) -> np.ndarray:
    """A copy of ``value`` as a float vector of ``n`` finite numbers (any length when ``n`` is
    None), each within ±``bound`` when given, or ``error`` naming the source, the field and the value."""
    a = _array(value)
    what = ("a list of finite numbers" if n is None else f"{n} finite numbers") + _bound_text(bound)
    shape_ok = a is not None and a.ndim == 1 and (n is None or a.shape[0] == n)
    if not shape_ok or not np.all(np.isfinite(a)) or _beyond(a, bound):
        _fail(error, source, field, what + " (no NaN or inf)", value, a, bound)
    return a.copy()


def finite_rows(
    value,
    width: int | None,
    source: str,
    field: str,
    rows: int | None = None,
    error=ConfigError,
    bound: float | None = None,
):
    """A copy of ``value`` as a float matrix of ``rows`` rows of ``width`` finite numbers each
    (any count where None), each within ±``bound`` when given, or ``error``."""
    a = _array(value)
    shape = f"{'rows' if rows is None else f'{rows} rows'} of {'equal length' if width is None else width}"
    if (
        a is None
        or a.ndim != 2
        or (width is not None and a.shape[1] != width)
        or (rows is not None and a.shape[0] != rows)
        or not np.all(np.isfinite(a))
        or _beyond(a, bound)
    ):
        _fail(error, source, field, f"{shape} finite numbers{_bound_text(bound)} (no NaN or inf)", value, a, bound)
    return a.copy()


def finite_number(
    value,
    source: str,
    field: str,
    minimum: float | None = None,
    maximum: float | None = None,
    strict: bool = False,
    unit: str = "",
    error=ConfigError,
) -> float:
    """``value`` as a finite float (booleans refused) within [minimum, maximum] (``strict``: the
    lower bound is excluded), or ``error``. ``unit`` is only quoted in the message."""
    ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))
    x = float(value) if ok else float("nan")
    u = f" {unit}" if unit else ""
    lo = "" if minimum is None else f"{'>' if strict else '>='} {minimum:g}{u}"
    hi = "" if maximum is None else f"<= {maximum:g}{u}"
    what = "a finite number" + (f" {lo}" if lo else "") + (" and " if lo and hi else " " if hi else "") + hi
    if (
        not np.isfinite(x)
        or (minimum is not None and (x <= minimum if strict else x < minimum))
        or (maximum is not None and x > maximum)
    ):
        _fail(error, source, field, what.strip(), value)
    return x


def integer(
    value, source: str, field: str, minimum: int | None = None, error=ConfigError, maximum: int | None = None
) -> int:
    """``value`` as an int (booleans and floats refused) within [minimum, maximum], or ``error``."""
    ok = not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, np.integer))
    if not ok or (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        lo = "" if minimum is None else f" >= {minimum}"
        hi = "" if maximum is None else f"{' and' if lo else ''} <= {maximum}"
        _fail(error, source, field, "an integer" + lo + hi, value)
    return int(value)
