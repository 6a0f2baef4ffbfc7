"""Reader of the MAD ("MAnipulator Description") text format of Flückiger's CINEGEN thesis (1998).

Syntax only: `parse_mad(text, source)` returns a `MadFile` (sensors, robots with their base, links,
frames and constraints, each with the line it was declared on). Reference checks (a `pred` or a
constraint naming an element that does not exist, cycles, duplicate ids) are done here too, so that
every error names the line of the offending token. The conversion to URDF + sidecar is
`humanoid_control.kinematics.mad`.

The thesis prints its grammar only as syntax diagrams (Flückiger 1998, Appendix A), which a text
reader cannot use; the grammar below is ours, reconstructed from the prose of §4.1.2 and the four
complete example files (Fig. 4-9, Appendix B), as implemented (see `docs/kinematics_mad.md`):

    mad_file   := "RAFF" [version] scene_name { sensor | robot }
    sensor     := "sensor" Int "{" { "port" String | "type" Name | "translation" Int | "rotation" Int } "}"
    robot      := "robot" Name "{" { "path" String | base | link | frame | constraint | balljoint } "}"
    base       := "base" "{" { "pos" vec3 | "ori" vec3 | "filename" files } "}"
    link       := "link" Int "{" "parameters" "{" kk+ "}" "type" (1|2) "pred" Int
                  [ "range" pair | "limits" pair ] [ "filename" files ] "}"      (any order)
    kk         := ("theta" | "r" | "alpha" | "d" | "gamma" | "epsil") Float
    frame      := "frame" Int "{" "pos" vec3 "ori" vec3 "pred" Int [ "filename" files ] "}"
    constraint := "constraint" "{" elem elem "}"
    balljoint  := ("balljoint" | "rotule") "{" elem elem "}"     (inferred: the thesis's syntax is lost)
    elem       := "link" Int | "frame" Int | "sensor" "(" Int { Int } ")"

Comments are C++ ones (`//`, `/* */`). Glued tokens such as ``theta180.0`` or ``alpha-90.0`` (as in
the thesis's listings of Appendix B) are split into the keyword and the number where a block
expects a keyword (so a robot may still be called ``link2``).

Bounds (chosen; the thesis's four files have at most 21 links and frames and are under 10 kB): a
file of at most `MAX_BYTES`, at most `MAX_ELEMENTS` links and frames and as many constraints in
it, numbers finite and within ±`MAX_NUMBER`, ids of at most `MAX_ID_DIGITS` digits. Reading is
linear in the file's size: the tokens are read once, and the pred chains are checked once each
(a chain is walked until an element already known to reach the base).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from humanoid_control.exceptions import MadError
from humanoid_model.files import read_bytes

__all__ = [
    "MAX_BYTES",
    "MAX_ELEMENTS",
    "MAX_ID_DIGITS",
    "MAX_NUMBER",
    "Token",
    "Sensor",
    "Base",
    "Link",
    "Frame",
    "MadConstraint",
    "MadRobot",
    "MadFile",
    "parse_mad",
    "read_mad",
]

MAX_BYTES = 16 * 1024 * 1024  #: [bytes] largest MAD file read (chosen: 10,000 elements of ~200 bytes each, 8x over)
MAX_ELEMENTS = 10_000  #: links and frames of a file, and constraints (chosen: 500 times the thesis's largest file)
MAX_NUMBER = 1e9  #: largest magnitude of a number (chosen: 1000 km in mm, a billion degrees; its products stay finite)
MAX_ID_DIGITS = 9  #: digits of an id (chosen: any id below a billion)
TOKEN_TEXT = 80  #: characters of a token quoted in a message (chosen: one terminal line)

KK_KEYS = ("theta", "r", "alpha", "d", "gamma", "epsil")
KK_REQUIRED = ("theta", "r", "alpha", "d")
_NUMBER = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$")
_GLUED = re.compile(r"([A-Za-z_]+)([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)$")
_WORD = re.compile(r'"[^"\n]*"|[{}()]|[^\s{}()"]+')


@dataclass(frozen=True)
class Token:
    text: str
    line: int
    kind: str  # "sym" ({ } ( )), "str" (quoted), "num", "word", "end"

    @property
    def value(self):
        return self.text[1:-1] if self.kind == "str" else self.text


@dataclass
class Sensor:
    id: int
    line: int
    port: str | None = None
    type: str | None = None
    translation: int | None = None
    rotation: int | None = None


@dataclass
class Base:
    line: int
    pos: tuple[float, float, float] = (0.0, 0.0, 0.0)
    ori: tuple[float, float, float] = (0.0, 0.0, 0.0)
    files: list[str] = field(default_factory=list)


@dataclass
class Link:
    """One MAD link: KK parameters (file units, degrees), joint type (1 prismatic, 2 revolute)."""

    id: int
    line: int
    params: dict[str, float]
    type: int
    pred: int
    pred_line: int
    range: tuple[float, float] | None = None  # relative to the initial joint value
    limits: tuple[float, float] | None = None  # absolute
    files: list[str] = field(default_factory=list)


@dataclass
class Frame:
    id: int
    line: int
    pos: tuple[float, float, float]
    ori: tuple[float, float, float]  # degrees, R = Rx(a) Ry(b) Rz(c)
    pred: int
    pred_line: int
    files: list[str] = field(default_factory=list)


@dataclass
class MadConstraint:
    """A `constraint` (weld or sensor following) or `balljoint` block: two elements, each
    ``("link", id)``, ``("frame", id)`` or ``("sensor", (ids...))``."""

    kind: str  # "constraint" or "balljoint"
    line: int
    elems: list[tuple[str, object, int]]  # (kind, id or ids, line)


@dataclass
class MadRobot:
    """A ``robot`` block of a MAD file as parsed: its base, links, frames and constraints by id
    (`humanoid_control.kinematics.mad` converts it to a URDF and a sidecar)."""

    name: str
    line: int
    path: str | None = None
    base: Base | None = None
    links: dict[int, Link] = field(default_factory=dict)
    frames: dict[int, Frame] = field(default_factory=dict)
    constraints: list[MadConstraint] = field(default_factory=list)

    def element(self, id_: int):
        """The link or frame with this id (None for the base, id 0)."""
        return self.links.get(id_) or self.frames.get(id_)


@dataclass
class MadFile:
    source: str
    scene: str
    version: str | None
    sensors: dict[int, Sensor]
    robots: list[MadRobot]


def tokenize(text: str, source: str) -> list[Token]:
    """Tokens of a MAD text, comments removed; a glued ``keyword<number>`` becomes two tokens."""
    tokens = []
    i, line, n = 0, 1, len(text)
    while i < n:
        c = text[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            if j < 0:
                raise MadError(f"{source}:{line}: unterminated comment '/*'")
            line += text.count("\n", i, j)
            i = j + 2
        else:
            m = _WORD.match(text, i)
            if m is None:  # an unterminated string: '"' up to the end of the line
                raise MadError(f"{source}:{line}: unterminated string {text[i:].splitlines()[0]!r}")
            word = m.group(0)
            i = m.end()
            if word in "{}()":
                tokens.append(Token(word, line, "sym"))
            elif word.startswith('"'):
                tokens.append(Token(word, line, "str"))
            elif _NUMBER.match(word):
                tokens.append(Token(word, line, "num"))
            else:  # a glued keyword+number is split by the parser where a keyword is expected
                tokens.append(Token(word, line, "word"))
    tokens.append(Token("<end of file>", max(1, line - 1 if text.endswith("\n") else line), "end"))
    return tokens


class _Parser:
    def __init__(self, text: str, source: str):
        self.source = source
        self.toks = tokenize(text, source)
        self.i = 0
        self.pending: Token | None = None  # the number split off a glued token, read next
        self.last = self.before_last = self.toks[0]  # the last two tokens read (error messages)
        self.elements = self.constraints = 0  # counted against MAX_ELEMENTS

    # -- token helpers -------------------------------------------------------------------------
    def fail(self, tok: Token, what: str):
        text = tok.text if len(tok.text) <= TOKEN_TEXT else f"{tok.text[:TOKEN_TEXT]}... ({len(tok.text)} characters)"
        raise MadError(f"{self.source}:{tok.line}: {what}; found '{text}'")

    def peek(self, k: int = 0) -> Token:
        if self.pending is not None:
            if k == 0:
                return self.pending
            k -= 1
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def next(self) -> Token:
        tok = self.peek()
        if self.pending is not None:
            self.pending = None
        else:
            self.i += 1
        self.before_last, self.last = self.last, tok
        return tok

    def expect(self, text: str, context: str) -> Token:
        tok = self.next()
        if tok.text != text or tok.kind not in ("sym", "word"):
            self.fail(tok, f"expected '{text}' {context}")
        return tok

    def number(self, context: str) -> float:
        tok = self.next()
        if tok.kind != "num":
            self.fail(tok, f"expected a number {context}")
        value = float(tok.text)  # a number of thousands of digits is inf here
        if not abs(value) <= MAX_NUMBER:
            self.fail(tok, f"expected a finite number of magnitude at most {MAX_NUMBER:g} {context}")
        return value

    def integer(self, context: str) -> int:
        tok = self.next()
        if tok.kind != "num" or not re.fullmatch(r"[-+]?\d+", tok.text):
            self.fail(tok, f"expected an integer {context}")
        if len(tok.text.lstrip("+-")) > MAX_ID_DIGITS:
            self.fail(tok, f"expected an integer of at most {MAX_ID_DIGITS} digits {context}")
        return int(tok.text)

    def name(self, context: str) -> str:
        tok = self.next()
        if tok.kind not in ("word", "num") or tok.text in ("RAFF", "sensor", "robot"):
            self.fail(tok, f"expected a name {context}")
        return tok.text

    def string(self, context: str) -> str:
        tok = self.next()
        if tok.kind != "str":
            self.fail(tok, f'expected a quoted "string" {context}')
        return tok.value

    def vec(self, n: int, context: str) -> tuple[float, ...]:
        self.expect("{", context)
        values = tuple(self.number(context) for _ in range(n))
        self.expect("}", f"after the {n} numbers {context}")
        return values

    def files(self, context: str) -> list[str]:
        self.expect("(", context)
        out = []
        while True:
            tok = self.next()
            if tok.text == ")" and tok.kind == "sym":
                return out
            if tok.kind == "str" or (tok.kind == "word" and tok.text == "auto"):
                out.append(tok.value)
            else:
                self.fail(tok, f"expected a quoted file name, auto or ')' {context}")

    def block_keys(self, owner: str, allowed: tuple[str, ...]):
        """Yield (keyword token) for each keyword of a `{ ... }` block until its `}`; each at most once."""
        self.expect("{", f"after {owner}")
        seen = set()
        while True:
            tok = self.next()
            if tok.kind == "sym" and tok.text == "}":
                return
            glued = _GLUED.match(tok.text) if tok.kind == "word" and tok.text not in allowed else None
            if glued and glued.group(1) in allowed:  # `theta180.0` (macdac.mad, Appendix B): keyword, then its number
                tok = self.last = Token(glued.group(1), tok.line, "word")
                self.pending = Token(glued.group(2), tok.line, "num")
            if tok.kind != "word" or tok.text not in allowed:
                from humanoid_model.validation import did_you_mean

                hint = did_you_mean(tok.text, allowed) if tok.kind == "word" else ""
                self.fail(tok, f"unknown keyword in {owner} (expected one of {', '.join(allowed)} or '}}'){hint}")
            if tok.text in seen:
                self.fail(tok, f"'{tok.text}' given twice in {owner}")
            seen.add(tok.text)
            yield tok

    # -- grammar -------------------------------------------------------------------------------
    def parse(self) -> MadFile:
        head = self.next()
        if head.text != "RAFF":
            self.fail(head, "a MAD file must start with 'RAFF [version] scene_name'")
        version = None
        after = self.peek(1).text
        if re.fullmatch(r"v\d+(\.\d+)*", self.peek().text) and after not in ("sensor", "robot", "<end of file>"):
            version = self.next().text
        scene = self.name("(the scene name after RAFF)")
        sensors: dict[int, Sensor] = {}
        robots: list[MadRobot] = []
        while True:
            tok = self.next()
            if tok.kind == "end":
                break
            if tok.text == "sensor" and tok.kind == "word":
                s = self.sensor(tok)
                if s.id in sensors:
                    raise MadError(
                        f"{self.source}:{tok.line}: sensor {s.id} declared twice "
                        f"(first on line {sensors[s.id].line}); found 'sensor {s.id}'"
                    )
                sensors[s.id] = s
            elif tok.text == "robot" and tok.kind == "word":
                r = self.robot(tok)
                if any(o.name == r.name for o in robots):
                    self.fail(tok, f"robot '{r.name}' declared twice")
                robots.append(r)
            else:
                self.fail(tok, "expected 'sensor' or 'robot' at the top level")
        if not robots:
            raise MadError(f"{self.source}:{self.peek().line}: no 'robot' block in the file; found '<end of file>'")
        mad = MadFile(self.source, scene, version, sensors, robots)
        for r in robots:
            self.check_robot(r, sensors)
        return mad

    def sensor(self, kw: Token) -> Sensor:
        s = Sensor(self.integer("after 'sensor'"), kw.line)
        if s.id < 0:
            self.fail(self.last, "a sensor id must be >= 0")
        for k in self.block_keys(f"sensor {s.id}", ("port", "type", "translation", "rotation")):
            if k.text == "port":
                s.port = self.string("after 'port'")
            elif k.text == "type":
                s.type = self.name("after 'type'")
            else:
                setattr(s, k.text, self.integer(f"after '{k.text}'"))
        return s

    def robot(self, kw: Token) -> MadRobot:
        r = MadRobot(self.name("after 'robot'"), kw.line)
        self.expect("{", f"after 'robot {r.name}'")
        while True:
            tok = self.next()
            if tok.kind == "sym" and tok.text == "}":
                break
            if tok.kind == "end":
                self.fail(tok, f"missing '}}' closing 'robot {r.name}' (line {r.line})")
            t = tok.text if tok.kind == "word" else ""
            if t == "path":
                r.path = self.string("after 'path'")
            elif t == "base":
                if r.base is not None:
                    self.fail(tok, "'base' given twice")
                r.base = self.base(tok)
            elif t == "link":
                self.count(tok, "links and frames")
                link = self.link(tok)
                self.check_id(r, link.id, tok)
                r.links[link.id] = link
            elif t == "frame":
                self.count(tok, "links and frames")
                fr = self.frame(tok)
                self.check_id(r, fr.id, tok)
                r.frames[fr.id] = fr
            elif t in ("constraint", "balljoint", "rotule"):
                self.count(tok, "constraints")
                r.constraints.append(self.constraint(tok))
            else:
                from humanoid_model.validation import did_you_mean

                allowed = ("path", "base", "link", "frame", "constraint", "balljoint")
                hint = did_you_mean(tok.text, allowed) if tok.kind == "word" else ""
                self.fail(
                    tok, f"unknown keyword in robot '{r.name}' (expected one of {', '.join(allowed)} or '}}'){hint}"
                )
        if r.base is None:
            raise MadError(f"{self.source}:{r.line}: robot '{r.name}' has no 'base' block; found 'robot {r.name}'")
        return r

    def count(self, kw: Token, what: str):
        """One more link or frame (``what`` "links and frames") or constraint: `MadError` past
        `MAX_ELEMENTS` of them in the file."""
        attr = "elements" if what == "links and frames" else "constraints"
        setattr(self, attr, getattr(self, attr) + 1)
        if getattr(self, attr) > MAX_ELEMENTS:
            self.fail(kw, f"more than {MAX_ELEMENTS} {what} in the file (the bound a MAD file may declare)")

    def check_id(self, r: MadRobot, id_: int, kw: Token):
        if id_ <= 0:
            raise MadError(f"{self.source}:{kw.line}: {kw.text} ids must be >= 1 (0 is the base); found '{id_}'")
        other = r.element(id_)
        if other is not None:
            what = "link" if id_ in r.links else "frame"
            raise MadError(
                f"{self.source}:{kw.line}: id {id_} already used by {what} {id_} (line {other.line}); links and "
                f"frames share one id space; found '{kw.text} {id_}'"
            )

    def base(self, kw: Token) -> Base:
        b = Base(kw.line)
        for k in self.block_keys("base", ("pos", "ori", "filename")):
            if k.text == "filename":
                b.files = self.files("after 'filename'")
            else:
                setattr(b, k.text, self.vec(3, f"after '{k.text}'"))
        return b

    def link(self, kw: Token) -> Link:
        id_ = self.integer("after 'link'")
        owner = f"link {id_}"
        params = typ = pred = pred_line = rng = lim = None
        files: list[str] = []
        for k in self.block_keys(owner, ("parameters", "type", "pred", "range", "limits", "filename")):
            if k.text == "parameters":
                params = {}
                for p in self.block_keys(f"{owner} parameters", KK_KEYS):
                    params[p.text] = self.number(f"after '{p.text}'")
                missing = [p for p in KK_REQUIRED if p not in params]
                if missing:
                    self.fail(self.last, f"{owner} parameters: missing {', '.join(missing)}")
            elif k.text == "type":
                t = self.next()
                if t.kind != "num" or t.text not in ("1", "2"):
                    self.fail(t, f"{owner}: 'type' must be 1 (prismatic) or 2 (revolute)")
                typ = int(t.text)
            elif k.text == "pred":
                pred_line = self.peek().line
                pred = self.integer("after 'pred'")
            elif k.text in ("range", "limits"):
                if rng is not None or lim is not None:
                    self.fail(k, f"{owner}: give 'range' or 'limits', not both")
                pair = self.vec(2, f"after '{k.text}'")
                if pair[0] > pair[1]:
                    self.fail(self.before_last, f"{owner}: {k.text} lower {pair[0]:g} > upper {pair[1]:g}")
                if k.text == "range":
                    rng = pair
                else:
                    lim = pair
            else:
                files = self.files("after 'filename'")
        end = self.last
        for key, value in (("parameters", params), ("type", typ), ("pred", pred)):
            if value is None:
                self.fail(end, f"{owner} (line {kw.line}): missing '{key}'")
        return Link(id_, kw.line, params, typ, pred, pred_line, rng, lim, files)

    def frame(self, kw: Token) -> Frame:
        id_ = self.integer("after 'frame'")
        owner = f"frame {id_}"
        got: dict = {"files": []}
        for k in self.block_keys(owner, ("pos", "ori", "pred", "filename")):
            if k.text == "pred":
                got["pred_line"] = self.peek().line
                got["pred"] = self.integer("after 'pred'")
            elif k.text == "filename":
                got["files"] = self.files("after 'filename'")
            else:
                got[k.text] = self.vec(3, f"after '{k.text}'")
        end = self.last
        for key in ("pos", "ori", "pred"):
            if key not in got:
                self.fail(end, f"{owner} (line {kw.line}): missing '{key}'")
        return Frame(id_, kw.line, got["pos"], got["ori"], got["pred"], got["pred_line"], got["files"])

    def constraint(self, kw: Token) -> MadConstraint:
        kind = "constraint" if kw.text == "constraint" else "balljoint"
        self.expect("{", f"after '{kw.text}'")
        elems = []
        while True:
            tok = self.next()
            if tok.kind == "sym" and tok.text == "}":
                break
            if tok.text in ("link", "frame") and tok.kind == "word":
                elems.append((tok.text, self.integer(f"after '{tok.text}'"), tok.line))
            elif tok.text == "sensor" and tok.kind == "word":
                self.expect("(", "after 'sensor' (a sensor list such as ( 0 1 ))")
                ids = []
                while not (self.peek().kind == "sym" and self.peek().text == ")"):
                    ids.append(self.integer("in the sensor list"))
                self.next()
                if not ids:
                    self.fail(self.last, "empty sensor list")
                elems.append(("sensor", tuple(ids), tok.line))
            else:
                self.fail(tok, f"expected 'link N', 'frame N', 'sensor ( ... )' or '}}' in {kw.text}")
        if len(elems) != 2:
            self.fail(self.last, f"{kw.text} (line {kw.line}) needs exactly 2 elements, got {len(elems)}")
        kinds = [e[0] for e in elems]
        if kinds.count("sensor") == 2:
            self.fail(
                self.last,
                f"{kw.text} (line {kw.line}): two sensor lists (give one element and one sensor list)",
            )
        if kind == "balljoint" and "sensor" in kinds:
            self.fail(self.last, f"{kw.text} (line {kw.line}): a ball joint joins two elements, not a sensor")
        return MadConstraint(kind, kw.line, elems)

    # -- references ----------------------------------------------------------------------------
    def check_robot(self, r: MadRobot, sensors: dict[int, Sensor]):
        src = self.source
        for el in [*r.links.values(), *r.frames.values()]:
            what = "link" if isinstance(el, Link) else "frame"
            if el.pred != 0 and r.element(el.pred) is None:
                raise MadError(
                    f"{src}:{el.pred_line}: {what} {el.id}: pred {el.pred} is not a link or frame of robot "
                    f"'{r.name}' (0 is the base); found '{el.pred}'"
                )
        reaches_base: set[int] = {0}  # ids whose pred chain is known to reach the base
        for el in [*r.links.values(), *r.frames.values()]:  # every chain must reach the base
            seen, on_path, cur = [], set(), el
            while cur.id not in reaches_base and cur.pred not in reaches_base:
                if cur.id in on_path:
                    what = "link" if isinstance(el, Link) else "frame"
                    chain = " -> ".join(str(i) for i in [*seen, cur.id])
                    raise MadError(f"{src}:{el.pred_line}: {what} {el.id}: pred cycle {chain}; found '{el.pred}'")
                seen.append(cur.id)
                on_path.add(cur.id)
                cur = r.element(cur.pred)
            reaches_base.update(seen)
            reaches_base.add(cur.id)
        for c in r.constraints:
            for kind, ref, line in c.elems:
                if kind == "sensor":
                    for s in ref:
                        if s != 0 and s not in sensors:
                            raise MadError(
                                f"{src}:{line}: {c.kind}: sensor {s} is not declared (declared: "
                                f"{', '.join(str(k) for k in sorted(sensors)) or 'none'}); found '{s}'"
                            )
                else:
                    table = r.links if kind == "link" else r.frames
                    if ref not in table:
                        other = "frame" if kind == "link" else "link"
                        hint = f" ({ref} is a {other})" if r.element(ref) is not None else ""
                        raise MadError(
                            f"{src}:{line}: {c.kind}: {kind} {ref} does not exist in robot '{r.name}'{hint}; "
                            f"found '{kind} {ref}'"
                        )
            a, b = c.elems
            if a[0] != "sensor" and a[:2] == b[:2]:
                raise MadError(f"{src}:{b[2]}: {c.kind} joins {a[0]} {a[1]} to itself; found '{b[0]} {b[1]}'")


def parse_mad(text: str, source: str = "<string>") -> MadFile:
    """Parse MAD text; `MadError` ("SOURCE:LINE: what; found 'TOKEN'") on the first error."""
    return _Parser(text, source).parse()


def read_mad(path) -> MadFile:
    """Parse a MAD file; a missing or unreadable file is a `MadError` too."""
    p = Path(path)
    text = read_bytes(p, "MAD file", MadError, limit=MAX_BYTES).decode("utf-8", errors="replace")
    return parse_mad(text, str(p))
