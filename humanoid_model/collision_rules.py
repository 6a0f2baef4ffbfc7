"""Collision filtering rules of a scene or a robot sidecar: which pairs of bodies the simulator
tests (issue 14 §3; the thesis lets the user choose the collision pairs). Schema in
``docs/scenes.md`` ("collision") and ``docs/robots.md``.

One section, read by `read_collision_rules` for both files::

    collision:
      masks:   {NAME: {contype: 1, conaffinity: 1}, ...}   # bit masks, MuJoCo's rule
      include: [[NAME_A, NAME_B], ...]                     # always tested
      exclude: [[NAME_A, NAME_B], ...]                     # never tested

A body without a mask entry has contype = conaffinity = 1 (`DEFAULT_MASK`), so by default
every pair the simulator's own rule picks is tested. Two bodies may touch iff
``(contype_a & conaffinity_b) or (contype_b & conaffinity_a)`` (MuJoCo's contype/conaffinity,
the same expressive power as Drake's filter groups). ``include`` adds a pair whatever the masks
and the default self-collision rule say; ``exclude`` removes it, and wins over ``include``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from humanoid_model.validation import did_you_mean, integer, message, short

__all__ = ["DEFAULT_MASK", "MAX_MASK", "CollisionRules", "read_collision_rules", "masks_collide"]

DEFAULT_MASK = (1, 1)  # (contype, conaffinity) of a body without an entry: everything collides (MuJoCo's default)
MAX_MASK = 2**31 - 1  # masks are 31-bit non-negative integers (MuJoCo's int contype)
KEYS = ("masks", "include", "exclude")


def masks_collide(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """MuJoCo's rule: bodies with (contype, conaffinity) ``a`` and ``b`` may touch."""
    return bool((a[0] & b[1]) or (b[0] & a[1]))


@dataclass(frozen=True)
class CollisionRules:
    """A file's filtering rules: ``masks`` name -> (contype, conaffinity), ``include`` and
    ``exclude`` sets of unordered name pairs (frozensets of two names)."""

    masks: Mapping[str, tuple[int, int]] = field(default_factory=lambda: MappingProxyType({}))
    include: frozenset = frozenset()
    exclude: frozenset = frozenset()

    def __bool__(self) -> bool:
        return bool(self.masks or self.include or self.exclude)

    def merged(self, other: CollisionRules) -> CollisionRules:
        """These rules with ``other``'s added (its masks replace these for the same name)."""
        return CollisionRules(
            MappingProxyType({**self.masks, **other.masks}), self.include | other.include, self.exclude | other.exclude
        )


def read_collision_rules(section, names: Iterable[str], source: str, where: str, error) -> CollisionRules:
    """Check and read a ``collision`` section (None: no rules). ``names``: the body names it may
    use; ``where``: the section's field path (``collision``); errors raise ``error`` in one line
    naming the file, the field and the value (an unknown name with a close-match hint)."""
    if section is None:
        return CollisionRules()
    names = list(names)
    known = set(names)

    def fail(field_, value, problem):
        raise error(f"{source}: field '{field_}': {problem}; value {short(value)}")

    if not isinstance(section, Mapping):
        fail(where, section, f"expected a mapping with keys {', '.join(KEYS)}")
    for k in section:
        if k not in KEYS:
            fail(f"{where}.{k}", section[k], f"unknown field '{k}'{did_you_mean(k, KEYS)}; allowed: {', '.join(KEYS)}")

    def name(value, field_):
        if not isinstance(value, str) or value not in known:
            hint = did_you_mean(value, names) if isinstance(value, str) else ""
            fail(field_, value, f"no body or link of that name{hint}")
        return value

    masks = {}
    raw = section.get("masks") or {}
    if not isinstance(raw, Mapping):
        fail(f"{where}.masks", raw, "expected a mapping NAME -> {contype, conaffinity}")
    for n, m in raw.items():
        w = f"{where}.masks.{n}"
        name(n, w)
        if not isinstance(m, Mapping) or not set(m) <= {"contype", "conaffinity"}:
            fail(w, m, "expected a mapping with keys contype, conaffinity")
        vals = []
        for k, default in zip(("contype", "conaffinity"), DEFAULT_MASK):
            v = integer(m.get(k, default), source, f"{w}.{k}", minimum=0, error=error)
            if v > MAX_MASK:
                raise error(message(source, f"{w}.{k}", f"an integer in [0, {MAX_MASK}] (a 31-bit mask)", v))
            vals.append(v)
        masks[n] = tuple(vals)

    pairs = {}
    for key in ("include", "exclude"):
        raw = section.get(key) or []
        if not isinstance(raw, list):
            fail(f"{where}.{key}", raw, "expected a list of name pairs [[A, B], ...]")
        out = set()
        for i, p in enumerate(raw):
            w = f"{where}.{key}[{i}]"
            if not isinstance(p, list) or len(p) != 2:
                fail(w, p, "expected a pair of names [A, B]")
            a, b = name(p[0], w), name(p[1], w)
            if a == b:
                fail(w, p, "a pair of two different names")
            out.add(frozenset((a, b)))
        pairs[key] = frozenset(out)
    both = pairs["include"] & pairs["exclude"]
    if both:
        p = sorted(next(iter(both)))
        fail(f"{where}.include", p, "the pair is also in 'exclude'")
    return CollisionRules(MappingProxyType(masks), pairs["include"], pairs["exclude"])
