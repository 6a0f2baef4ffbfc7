"""Field checks shared by the file formats' readers (`humanoid_model.formats`), with one wording:
``"<file>: field '<field>': missing"`` for an absent field, ``"<file>: field '<field>': <why>"``
for a malformed one, and the shared wording of `humanoid_model.validation` for numbers, every
number within ±`BOUND`. Each check raises the exception class it is given (`RecordingError` for the
viewer, `BridgeError` for the robot bridge, ...).
"""

from __future__ import annotations

import numpy as np

from humanoid_model.validation import finite_rows, finite_vector, short

__all__ = [
    "BOUND",
    "fail",
    "missing",
    "require",
    "times",
    "rows",
    "vector",
    "joint_names",
    "unit_quaternions",
    "pose_rows",
    "base_rows",
]

# [s, m, rad, N] (chosen) every number of a file lies within ±1e9: far beyond any time, coordinate,
# angle or force the project writes (the simulator refuses forces above 1e6 N), small enough that
# differences, norms and a browser's float32 (max 3.4e38) stay finite. 1e308 passed the finite
# check and failed later with a message naming neither the file nor the field.
BOUND = 1e9


def fail(error, src, field: str, why: str):
    """Raise ``error`` ``"<src>: field '<field>': <why>"``."""
    raise error(f"{src}: field '{field}': {why}")


def missing(error, src, field: str, why: str = ""):
    """Raise ``error`` ``"<src>: field '<field>': missing<why>"``."""
    fail(error, src, field, f"missing{why}")


def require(mapping: dict, keys, src, prefix: str, error) -> None:
    """`missing` for the first of ``keys`` absent from ``mapping`` (named ``prefix.key``)."""
    for key in keys:
        if key not in mapping:
            missing(error, src, f"{prefix}{key}")


def times(value, src, field: str, error) -> np.ndarray:
    """Non-empty, non-decreasing finite times [s]."""
    t = finite_vector(value, None, src, field, error, bound=BOUND)
    if t.size == 0:
        fail(error, src, field, "is empty")
    if np.any(np.diff(t) < 0):
        i = int(np.argmax(np.diff(t) < 0))
        fail(error, src, field, f"times decrease at index {i + 1} ({t[i]} -> {t[i + 1]})")
    return t


def rows(value, src, field: str, error, width: int | None = None, n: int | None = None) -> np.ndarray:
    """``n`` (None: any number) rows of ``width`` (None: any equal length) finite numbers."""
    return finite_rows(value, width, src, field, rows=n, error=error, bound=BOUND)


def vector(value, src, field: str, width: int, error) -> np.ndarray:
    """``width`` finite numbers."""
    return finite_vector(value, width, src, field, error, bound=BOUND)


def joint_names(value, src, field: str, error) -> list[str]:
    """A list of joint names (strings)."""
    if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
        fail(error, src, field, f"expected a list of joint names, got {short(value)}")
    return list(value)


def unit_quaternions(quats: np.ndarray, src, field: str, error) -> np.ndarray:
    """The rows of ``quats`` (n, 4) scaled to unit length; ``error`` for a zero one."""
    norms = np.linalg.norm(quats, axis=1)
    if np.any(norms < 1e-9):
        fail(error, src, field, f"zero quaternion at row {int(np.argmax(norms < 1e-9))}")
    return quats / norms[:, None]


def pose_rows(value, src, field: str, n: int, error) -> tuple[np.ndarray, np.ndarray]:
    """``{position: (n, 3), quaternion: (n, 4)}`` -> (positions [m], quaternions xyzw as given)."""
    if not isinstance(value, dict):
        fail(error, src, field, f"expected {{position, quaternion}}, got {short(value)}")
    require(value, ("position", "quaternion"), src, f"{field}.", error)
    pos = rows(value["position"], src, f"{field}.position", error, 3, n)
    return pos, rows(value["quaternion"], src, f"{field}.quaternion", error, 4, n)


def base_rows(value, src, field: str, n: int, error) -> np.ndarray:
    """Base poses (n, 7): rows ``[x, y, z, qx, qy, qz, qw]`` or ``{position, quaternion}``."""
    if isinstance(value, dict):
        return np.hstack(pose_rows(value, src, field, n, error))
    return rows(value, src, field, error, 7, n)
