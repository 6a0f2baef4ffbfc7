"""Collision filtering rules of a scene or a robot sidecar: which pairs of bodies the simulator
tests (Chardonnet 2009, §3.1.1 lets the user choose the collision pairs). Schema in
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

__all__ = [
    "DEFAULT_MASK",
    "MAX_MASK",
    "MIN_SELF_JOINTS",
    "CollisionRules",
    "joints_apart",
    "joints_between",
    "masks_collide",
    "read_collision_rules",
    "self_pair_by_default",
]

DEFAULT_MASK = (1, 1)  # (contype, conaffinity) of a body without an entry: everything collides (MuJoCo's default)
MAX_MASK = 2**31 - 1  # masks are 31-bit non-negative integers (MuJoCo's int contype)
KEYS = ("masks", "include", "exclude")
#: robot self pairs are tested by default when at least this many joints lie between their links
#: (`self_pair_by_default`): the simulator's contacts and the planner's self-collision rows
MIN_SELF_JOINTS = 3


def joints_between(parents, a: int, b: int) -> set:
    """The joints on the tree path between the bodies of joints ``a`` and ``b`` (``parents``: a
    Pinocchio model's parent joint per joint, 0 the universe): those on one root chain but not on
    the other."""

    def chain(j):
        out = set()
        while j > 0:
            out.add(j)
            j = parents[j]
        return out

    return chain(int(a)) ^ chain(int(b))


def joints_apart(parents, a: int, b: int) -> int:
    """The number of joints between the bodies of joints ``a`` and ``b`` (`joints_between`): a
    link and its parent 1; two links across a two-axis joint (waist and chest, shank and foot) 2."""
    return len(joints_between(parents, a, b))


def self_pair_by_default(parents, a: int, b: int) -> bool:
    """Whether the default rule tests two bodies of one robot, on joints ``a`` and ``b``: at least
    `MIN_SELF_JOINTS` (3) joints apart. Why 3, for both users:

    - the simulator (`humanoid_sim.collision.pairs.candidate_pairs`): with fewer joints between two
      links, the relative velocity of a point spans fewer than 3 dimensions and a point contact's
      3x3 Delassus block is singular;
    - the planner (`humanoid_planner.posture.constraints.geometry_self_collision`): the thesis leaves bodies
      across one joint, simple or composite (two or three concurrent axes: waist, neck, wrists,
      ankles), to the joint limits and to analytic joint-space functions fitted on the real robot
      (Escande 2008, §3.4.3), which we do not have; and a witness the simulator would not push
      apart is one it executes. On HRP-2 this leaves out waist-chest, chest-head,
      forearm-hand and shank-foot (14 geometry pairs), whose URDF boxes meet inside the joint
      ranges (waist and chest at a forward chest pitch) where the real robot's shells pass.

    A scene's or a robot sidecar's ``collision`` rules (`CollisionRules.verdict`) override it."""
    return a != b and joints_apart(parents, a, b) >= MIN_SELF_JOINTS


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

    def __reduce__(self):  # a mappingproxy does not pickle (the planner's worker processes carry these rules)
        return _rules, (dict(self.masks), self.include, self.exclude)

    def verdict(self, a: str, b: str) -> bool | None:
        """False: never test bodies ``a`` and ``b``; True: always; None: the default rule decides
        (``exclude`` wins over ``include``; masks that never touch exclude)."""
        key = frozenset((a, b))
        if key in self.exclude:
            return False
        if key in self.include:
            return True
        if not masks_collide(self.masks.get(a, DEFAULT_MASK), self.masks.get(b, DEFAULT_MASK)):
            return False
        return None

    def merged(self, other: CollisionRules) -> CollisionRules:
        """These rules with ``other``'s added (its masks replace these for the same name)."""
        return CollisionRules(
            MappingProxyType({**self.masks, **other.masks}), self.include | other.include, self.exclude | other.exclude
        )


def _rules(masks: dict, include: frozenset, exclude: frozenset) -> CollisionRules:
    """`CollisionRules` from plain values (its pickled form)."""
    return CollisionRules(MappingProxyType(masks), include, exclude)


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
