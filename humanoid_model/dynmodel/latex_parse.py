"""Read back the LaTeX written by `printers.to_latex` / `printers.latex_expr` into SymPy.

SymPy's own ``parse_latex`` (ANTLR backend) mis-reads decorated names such as
``\\ddot{q}_{1}`` (it silently drops the rest of the line), so the generator writes a small, fixed
grammar and this module parses exactly that grammar into SymPy expressions (symbols are named by
their LaTeX text):

    line    := NAME '&=' expr
    expr    := ['-'] term (('+' | '-') term)*
    term    := factor ('\\,' factor)*
    factor  := NUMBER | '\\frac{' INT '}{' INT '}' | NAME
             | ('\\cos' | '\\sin' | '\\operatorname{sgn}') '\\left(' expr '\\right)'
             | '\\left(' expr '\\right)' | '{' factor '}^{' INT '}' | '-' factor
    NUMBER  := digits ['.' digits] [' \\cdot 10^{' ['-'] digits '}']
    NAME    := BASE ['^{' text '}'] '_{\\mathrm{' text '}}'   (BASE: a letter, \\cmd or \\cmd{text})
"""

from __future__ import annotations

import re

import sympy as sp

from humanoid_model.exceptions import LatexParseError

__all__ = ["LatexParseError", "parse_expr", "parse_equations"]

_TOKENS = [
    ("NAME", r"(?:\\[A-Za-z]+\{[^{}]*\}|\\[A-Za-z]+|[A-Za-z])(?:\^\{[^{}]*\})?_\{\\mathrm\{(?:[^{}\\]|\\_)+\}\}"),
    ("FRAC", r"\\frac\{(\d+)\}\{(\d+)\}"),
    ("NUMBER", r"\d+(?:\.\d*)?(?:\s*\\cdot\s*10\^\{-?\d+\})?"),
    ("FUNC", r"\\(?:cos|sin)(?![A-Za-z])|\\operatorname\{sgn\}"),
    ("LP", r"\\left\("),
    ("RP", r"\\right\)"),
    ("POW", r"\}\^\{(\d+)\}"),
    ("LB", r"\{"),
    ("THIN", r"\\,"),
    ("PLUS", r"\+"),
    ("MINUS", r"-"),
    ("WS", r"\s+"),
]
_RX = re.compile("|".join(f"(?P<{n}>{p})" for n, p in _TOKENS))


def _tokenize(s):
    pos, out = 0, []
    while pos < len(s):
        m = _RX.match(s, pos)
        if not m:
            raise LatexParseError(f"unexpected text at {pos}: {s[pos : pos + 30]!r}")
        if m.lastgroup != "WS":
            out.append((m.lastgroup, m.group(m.lastgroup), m))
        pos = m.end()
    return out


class _Parser:
    def __init__(self, s):
        self.toks = _tokenize(s)
        self.i = 0

    def peek(self):
        return self.toks[self.i][0] if self.i < len(self.toks) else None

    def take(self, kind):
        if self.peek() != kind:
            raise LatexParseError(f"expected {kind}, got {self.toks[self.i][1] if self.i < len(self.toks) else 'end'}")
        t = self.toks[self.i]
        self.i += 1
        return t

    def expr(self):
        neg = False
        if self.peek() == "MINUS":
            self.take("MINUS")
            neg = True
        e = self.term()
        if neg:
            e = -e
        while self.peek() in ("PLUS", "MINUS"):
            op = self.take(self.peek())[0]
            t = self.term()
            e = e + t if op == "PLUS" else e - t
        return e

    def term(self):
        e = self.factor()
        while self.peek() == "THIN":
            self.take("THIN")
            e = e * self.factor()
        return e

    def factor(self):
        k = self.peek()
        if k == "MINUS":
            self.take("MINUS")
            return -self.factor()
        if k == "NUMBER":
            txt = self.take("NUMBER")[1]
            m = re.match(r"([\d.]+)(?:\s*\\cdot\s*10\^\{(-?\d+)\})?", txt)
            return sp.Float(float(m.group(1) + ("e" + m.group(2) if m.group(2) else "")))
        if k == "FRAC":
            a, b = re.match(r"\\frac\{(\d+)\}\{(\d+)\}", self.take("FRAC")[1]).groups()
            return sp.Rational(int(a), int(b))
        if k == "NAME":
            return sp.Symbol(self.take("NAME")[1])
        if k == "FUNC":
            f = {"\\cos": sp.cos, "\\sin": sp.sin, "\\operatorname{sgn}": sp.sign}[self.take("FUNC")[1]]
            self.take("LP")
            e = self.expr()
            self.take("RP")
            return f(e)
        if k == "LP":
            self.take("LP")
            e = self.expr()
            self.take("RP")
            return e
        if k == "LB":
            self.take("LB")
            e = self.factor()
            t = self.take("POW")
            return e ** int(re.match(r"\}\^\{(\d+)\}", t[1]).group(1))
        raise LatexParseError(f"unexpected token {self.toks[self.i][1] if self.i < len(self.toks) else 'end'}")


def parse_expr(s: str) -> sp.Expr:
    """One expression of the grammar above."""
    p = _Parser(s)
    e = p.expr()
    if p.i != len(p.toks):
        raise LatexParseError(f"trailing text: {s!r} at token {p.toks[p.i][1]!r}")
    return e


def parse_equations(tex: str) -> list:
    """[(lhs name, rhs expression)] for every ``lhs &= rhs`` line of align blocks, in order."""
    out = []
    joined = []  # equations wrapped by `wrap.latex_line` continue on indented lines
    for raw in tex.splitlines():
        if raw.startswith(" ") and joined and "&=" in joined[-1] and "&=" not in raw:
            joined[-1] += " " + raw.strip()
        else:
            joined.append(raw)
    for line in joined:
        line = line.strip()
        if "&=" not in line or line.startswith("%"):
            continue
        if line.endswith("\\\\"):
            line = line[:-2].rstrip()
        lhs, rhs = line.split("&=", 1)
        out.append((lhs.strip(), parse_expr(rhs.strip())))
    return out
