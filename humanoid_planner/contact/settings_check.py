"""The checks of the contact planner's settings: one rule per `search.PlannerSettings` field.

`PlannerSettings` runs them on every value, however it arrives: a library call, a scene's
``planning`` section (after its own reader's type checks), the ``plan`` command's options and its
``--set KEY=VALUE`` (a JSON value), the contact_planner node. So a wrongly typed value (``dl="x"``,
``metric=5``, ``locations=["nose"]`` is a robot's concern: `ContactPlanner` checks the names) is
one line, `"<source>: field '<field>' must be <requirement>; value <value>"`, never a traceback
deep in the search, and a command can check its options with the same rules before it loads
anything (`check_settings`). Lists arrive from JSON and YAML as lists: the rules return the
tuples the planner keeps. ``metric`` and ``solver`` take a `StanceMetric` / `PostureSolverSettings`
or a mapping of their fields (``--set 'solver={"max_iterations": 50}'``).

The bounds on the counts (``workers``, ``max_candidates``, ``max_expanded``, ``density``,
``time_limit``, ``seed``, the solver's iterations) are `humanoid_planner.bounds`'s, with their reasons.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import fields, replace

from humanoid_model.validation import finite_number, integer, message
from humanoid_planner.bounds import (
    MAX_CANDIDATES,
    MAX_DENSITY,
    MAX_EXPANDED,
    MAX_RESTART_JITTER,
    MAX_RESTARTS,
    MAX_SEED,
    MAX_SOLVER_ITERATIONS,
    MAX_TIME_LIMIT,
    MAX_WORKERS,
)
from humanoid_planner.exceptions import PlanningError
from humanoid_planner.posture import PostureSolverSettings

from .feasibility import STABILITY_MODELS
from .stance import StanceMetric

__all__ = [
    "ALGORITHMS",
    "CANDIDATES",
    "RULES",
    "check_setting",
    "check_settings",
]

ALGORITHMS = ("bfp", "vbfp")
CANDIDATES = ("box", "random")
FULL_TURN = 2 * math.pi


def _number(minimum=None, maximum=None, strict=False, unit=""):
    def rule(value, source, field, error):
        return finite_number(value, source, field, minimum, maximum, strict, unit, error)

    return rule


def _integer(minimum, maximum):
    def rule(value, source, field, error):
        return integer(value, source, field, minimum, error, maximum)

    return rule


def _choice(options):
    def rule(value, source, field, error):
        if not isinstance(value, str) or value not in options:
            raise error(message(source, field, f"one of {', '.join(options)}", value))
        return value

    return rule


def _boolean(value, source, field, error):
    if not isinstance(value, bool):
        raise error(message(source, field, "true or false", value))
    return value


def _names(value, source, field, error):
    ok = isinstance(value, (list, tuple)) and all(isinstance(v, str) and v for v in value)
    if not ok:
        raise error(message(source, field, "a list of names (strings)", value))
    return tuple(value)


def _pairs(value, source, field, error):
    ok = isinstance(value, (list, tuple)) and all(
        isinstance(p, (list, tuple)) and len(p) == 2 and all(isinstance(v, str) and v for v in p) for p in value
    )
    if not ok:
        raise error(message(source, field, "a list of [location, surface] name pairs", value))
    return tuple(tuple(p) for p in value)


def _threshold(value, source, field, error):
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not number or math.isnan(value):
        raise error(message(source, field, "a number (inf: no bound)", value))
    return float(value)


def _theta_range(value, source, field, error):
    ok = (
        isinstance(value, (list, tuple))
        and len(value) == 2
        and all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in value)
    )
    if not ok or not value[0] < value[1] or value[1] - value[0] > FULL_TURN + 1e-9:
        raise error(message(source, field, "[lo, hi] [rad], two finite numbers, lo < hi, at most a full turn", value))
    return (float(value[0]), float(value[1]))


def _dataclass_rule(cls, rules):
    """A rule for a settings object of dataclass ``cls``: an instance, or a mapping of some of its
    fields (the others keep their defaults), each field checked by ``rules``."""

    names = [f.name for f in fields(cls)]

    def rule(value, source, field, error):
        if isinstance(value, cls):
            given = {n: getattr(value, n) for n in names}
        elif isinstance(value, Mapping):
            unknown = [k for k in value if k not in names]
            if unknown:
                raise error(message(source, f"{field}.{unknown[0]}", f"one of the fields {', '.join(names)}", value))
            given = dict(value)
        else:
            raise error(message(source, field, f"a mapping of some of the fields {', '.join(names)}", value))
        checked = {k: rules[k](v, source, f"{field}.{k}", error) for k, v in given.items()}
        return replace(value if isinstance(value, cls) else cls(), **checked)

    return rule


_metric = _dataclass_rule(
    StanceMetric, {"a_theta": _number(0.0, strict=True, unit="m/rad"), "eps": _number(0.0, strict=True, unit="m")}
)
_solver = _dataclass_rule(
    PostureSolverSettings,
    {
        "tolerance": _number(0.0, strict=True),
        "max_iterations": _integer(1, MAX_SOLVER_ITERATIONS),
        "phase1_iterations": _integer(1, MAX_SOLVER_ITERATIONS),
        "phase1_slack": _number(0.0),
        "ftol": _number(0.0, strict=True),
        "stall_iterations": _integer(1, MAX_SOLVER_ITERATIONS),
        "stall_ratio": _number(0.0),
    },
)

#: PlannerSettings field -> rule(value, source, field, error) returning the value the planner keeps
RULES = {
    "algorithm": _choice(ALGORITHMS),
    "threshold": _threshold,
    "dl": _number(0.0, strict=True, unit="m"),
    "dtheta": _number(0.0, strict=True, unit="rad"),
    "theta_range": _theta_range,
    "reach": _number(0.0, unit="m"),
    "max_candidates": _integer(0, MAX_CANDIDATES),
    "metric": _metric,
    "locations": _names,
    "forbidden": _pairs,
    "margin": _number(0.0, unit="m"),
    "pre_contact_distance": _number(0.0, unit="m"),
    "max_expanded": _integer(1, MAX_EXPANDED),
    "time_limit": _number(0.0, MAX_TIME_LIMIT, strict=True, unit="s"),
    "solver": _solver,
    "joint_margin": _number(0.0, unit="rad"),
    "candidates": _choice(CANDIDATES),
    "density": _number(0.0, MAX_DENSITY, strict=True, unit="1/m"),
    "seed": _integer(0, MAX_SEED),
    "placed_candidates": _boolean,
    "deformable": _names,
    "deformable_angle": _number(0.0, unit="rad"),
    "self_collision": _boolean,
    "collision_margin": _number(0.0, unit="m"),
    "activation": _number(0.0, unit="m"),
    "stability": _choice(STABILITY_MODELS),
    "band": _number(0.0),
    "workers": _integer(0, MAX_WORKERS),
    "settle_releases": _boolean,
    "crowding": _number(0.0),
    "crowding_radius": _number(0.0, strict=True, unit="m"),
    "restarts": _integer(0, MAX_RESTARTS),
    "restart_expanded": _integer(0, MAX_EXPANDED),
    "restart_jitter": _number(0.0, MAX_RESTART_JITTER, unit="rad"),
}


def check_setting(name: str, value, source: str = "planner settings", field: str | None = None, error=PlanningError):
    """``value`` checked by the rule of setting ``name`` (and converted: lists to tuples, a
    mapping to its settings object); ``error`` naming ``source`` and ``field`` (default ``name``)
    otherwise, or for a name that is no setting."""
    rule = RULES.get(name)
    if rule is None:
        raise error(message(source, field or name, f"a planner setting ({', '.join(RULES)})", name))
    return rule(value, source, field or name, error)


def check_settings(values: Mapping, source: str = "planner settings", error=PlanningError, field=None) -> dict:
    """`check_setting` of each item of ``values``; ``field(name)`` names a setting in messages
    (default: its name). Returns the checked values."""
    return {k: check_setting(k, v, source, field(k) if field else None, error) for k, v in values.items()}
