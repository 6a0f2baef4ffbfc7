"""A sweep file (SWEEP.yaml, docs/sweeps.md): the job kind, the base arguments of every job and
the axes whose cartesian product is the job list.

    kind: simulate                  # simulate | plan | execute (humanoid_execution.sweep.jobs.KINDS)
    base: {scene: flat, duration: 2.0}
    axes:
      robot: [hrp2, bip]
      scene.ground.friction: [0.4, 0.8]   # scene.PATH: a scene override (--set PATH=VALUE)
      seed: [0, 1, 2]

`read_sweep` checks the whole file before any job runs (`humanoid_model.validation`'s wording,
`ConfigError` naming the file and the field): the kind, every argument's type and range, the
axes' lists, the planner settings (``planner.KEY``, by the planner's own rules) and the solver
settings' names (``solver.KEY``), a scene file or a motion file that must exist, at most `MAX_JOBS`
jobs. What only a job can find (a scene override the scene refuses, a robot that does not load)
fails that job alone, in its row.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path

from humanoid_execution.sweep.jobs import GROUPS, KINDS, job
from humanoid_model.exceptions import ConfigError
from humanoid_model.validation import did_you_mean, message

__all__ = ["Sweep", "read_sweep", "sweep_from_dict", "MAX_JOBS"]

#: (chosen) jobs of one sweep at most: a grid past this is a typo more often than a plan (10,000 runs
#: of 2 s of HRP-2 are about 10 hours on 2 cores)
MAX_JOBS = 10_000
KEYS = ("kind", "description", "base", "axes")


@dataclass
class Sweep:
    """A checked sweep: its ``kind``, ``source`` (the file), ``base`` and ``axes`` (name -> values,
    in the file's order), and ``jobs``: every argument set of the grid, the last axis varying
    fastest, and ``points``: each job's axis values."""

    kind: str
    source: str
    base: dict
    axes: dict
    jobs: list
    points: list


def read_sweep(path_or_name) -> Sweep:
    """The sweep file at ``path_or_name``, or a shipped one (``config/sweeps/NAME.yaml``; module
    docstring); `ConfigError` in one line when it is not one."""
    from humanoid_model.paths import config_dir, resolve, shipped_files
    from humanoid_model.yaml_file import read_yaml

    shipped = shipped_files(config_dir() / "sweeps", ".yaml")
    path = resolve(path_or_name, shipped, "sweep", (".yaml", ".yml"), ConfigError, "sweep file")
    doc = read_yaml(path, "sweep file", ConfigError)
    return sweep_from_dict(doc, str(path_or_name), path.parent)


def _mapping(value, source, name) -> dict:
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(message(source, name, "a mapping", value))
    return value


class _Checker:
    def __init__(self, kind: str, source: str, folder: Path):
        self.kind, self.spec, self.source, self.folder = kind, KINDS[kind], source, folder
        self.files = {}  #: (argument, value) -> the file it names (`file`), found once per sweep

    def value(self, name: str, value, where: str):
        """One argument's value checked (``where``: its field in messages)."""
        prefix, dot, key = name.partition(".")
        if dot and prefix in GROUPS and prefix in self.spec.groups:
            return self._grouped(prefix, key, value, where)
        if name not in self.spec.arguments:
            known = [*self.spec.arguments, *(f"{g}.KEY" for g in self.spec.groups)]
            raise ConfigError(
                f"{self.source}: field '{where}': unknown argument '{name}'{did_you_mean(name, known)}; "
                f"the arguments: {', '.join(known)}"
            )
        arg = self.spec.arguments[name]
        if value is None and name not in self.spec.required:
            return None
        value = arg.check(value, self.source, where)
        if arg.path:
            self.files[(name, value)] = self.file(name, value)
        return value

    def file(self, name: str, value: str) -> str:
        """The file a ``scene`` or ``motion`` argument names (`humanoid_model.paths.resolve`: a
        file relative to the sweep file's folder, else to the working directory, else a shipped
        scene), as an absolute path, a shipped scene by its name (each machine of a cluster finds its
        own); `ConfigError` when there is none."""
        from humanoid_model.paths import resolve, scenes_dir, shipped_files

        if name == "scene":
            shipped, suffixes = shipped_files(scenes_dir(), ".yaml"), (".yaml", ".yml")
        else:
            shipped, suffixes = {}, (".json",)
        where = f"{self.source}: field '{name}'"
        path = resolve(value, shipped, name, suffixes, ConfigError, f"{name} file", self.folder, where)
        return value if value in shipped and path == shipped[value].resolve() else str(path)

    def _grouped(self, prefix, key, value, where):
        if not key or any(not part for part in key.split(".")):
            raise ConfigError(message(self.source, where, f"{prefix}.KEY with a non-empty KEY", key))
        if prefix == "planner":
            from humanoid_planner.contact.settings_check import check_settings

            return check_settings({key: value}, self.source, ConfigError, field=lambda k: where)[key]
        if prefix == "solver":
            import dataclasses

            from humanoid_sim.solvers import SolverSettings

            known = [f.name for f in dataclasses.fields(SolverSettings)]
            if key not in known:
                raise ConfigError(message(self.source, where, f"solver.KEY, KEY one of {', '.join(known)}", key))
        return value


def sweep_from_dict(doc, source: str, folder: Path) -> Sweep:
    """The sweep of the decoded document ``doc`` (``source`` names it in messages; relative file
    names are relative to ``folder``)."""
    doc = _mapping(doc, source, "(document)")
    for key in doc:
        if key not in KEYS:
            raise ConfigError(
                f"{source}: unknown field '{key}'{did_you_mean(key, KEYS)}; the fields: {', '.join(KEYS)}"
            )
    kind = doc.get("kind")
    if kind not in KINDS:
        raise ConfigError(message(source, "kind", f"one of {', '.join(KINDS)}", kind))
    check = _Checker(kind, source, folder)
    base = {k: check.value(str(k), v, f"base.{k}") for k, v in _mapping(doc.get("base"), source, "base").items()}
    axes = {}
    for name, values in _mapping(doc.get("axes"), source, "axes").items():
        name = str(name)
        if not isinstance(values, list) or not values:
            raise ConfigError(message(source, f"axes.{name}", "a non-empty list of values", values))
        if name in base:
            raise ConfigError(f"{source}: field 'axes.{name}': also in base; an argument is in one or the other")
        axes[name] = [check.value(name, v, f"axes.{name}[{i}]") for i, v in enumerate(values)]
    count = math.prod(len(values) for values in axes.values())
    if count > MAX_JOBS:
        raise ConfigError(message(source, "axes", f"a grid of at most {MAX_JOBS} jobs", f"{count} jobs"))
    spec = KINDS[kind]
    missing = [name for name in spec.required if name not in base and name not in axes]
    if missing:
        raise ConfigError(message(source, "base", f"a mapping with {', '.join(missing)} (or an axis of it)", base))
    points = [dict(zip(axes, combo, strict=True)) for combo in itertools.product(*axes.values())]
    jobs = [_job(spec, {**base, **point}, check) for point in points]
    return Sweep(kind, source, base, axes, jobs, points)


def _job(spec, values: dict, check: _Checker) -> dict:
    """The complete argument set of one grid point (`jobs.job`), its files as absolute paths (found
    when their values were checked)."""
    files = {k: check.files[(k, v)] for k, v in values.items() if k in spec.arguments and spec.arguments[k].path and v}
    return job(check.kind, {**values, **files})
