"""`--where`: a small, safe filter language over a row's facts. Never `eval`: a tokenizer and a
recursive-descent parser build a tree of closures; the only names are the row's facts and axes.

    expr    := or
    or      := and ("or" and)*
    and     := not ("and" not)*
    not     := "not" not | compare
    compare := atom (("==" | "!=" | "<" | "<=" | ">" | ">=") atom)?
    atom    := NUMBER | STRING | true | false | none | NAME | "(" expr ")"

A NAME is a fact key (`registers`, `spills`, `occupancy` — a percentage number, 25 for 25% —,
`tensor_core_path`, ...), a grid axis (`BLOCK_SIZE_N`, `num_stages`), `arch`, `fits`, `ok` (it compiled)
or `error`. A comparison with an unknown value (the fact could not be had, the point did not compile)
is false. Anything else — attribute access, calls, subscripts, `__import__` — is a syntax error, and
so is nesting deeper than MAX_DEPTH (parentheses and `not`): the parser and the filter it builds recurse
once per level, and a level past Python's recursion limit would be a crash, not an answer.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Mapping

from ttinspect.errors import UsageError

_TOKEN = re.compile(r"""
    (?P<space>\s+)
  | (?P<number>-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?%?)
  | (?P<string>'[^'\\]*'|"[^"\\]*")
  | (?P<op>==|!=|<=|>=|<|>|\(|\))
  | (?P<name>[A-Za-z_][A-Za-z0-9_]*)
""", re.VERBOSE)

_COMPARE: dict[str, Callable[[Any, Any], bool]] = {
    "==": lambda a, b: a == b, "!=": lambda a, b: a != b, "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, ">=": lambda a, b: a >= b,
}
_KEYWORDS = {"and", "or", "not", "true", "false", "none", "True", "False", "None"}
MAX_DEPTH = 64  # parentheses and `not` nested; a level costs the parser 5 frames, the filter 2

Row = Mapping[str, Any]


class WhereError(UsageError):
    pass


def tokenize(text: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(text):
        match = _TOKEN.match(text, pos)
        if match is None:
            raise WhereError(f"--where: unexpected {text[pos]!r} at position {pos + 1} in {_short(text)} (only "
                             "comparisons, and/or/not, parentheses, numbers, quoted strings and fact names)")
        kind = match.lastgroup
        assert kind is not None  # every alternative of _TOKEN is a named group
        if kind != "space":
            tokens.append((kind, match.group()))
        pos = match.end()
    return tokens


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.tokens = tokenize(text)
        self.pos = 0
        self.depth = 0
        self.names: set[str] = set()

    def peek(self) -> tuple[str, str] | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise WhereError(f"--where {_short(self.text)}: it ends too early")
        self.pos += 1
        return token

    def fail(self, what: str) -> WhereError:
        token = self.peek()
        at = f"at {token[1]!r}" if token else "at the end"
        return WhereError(f"--where {_short(self.text)}: {what} {at}")

    def deeper(self) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise WhereError(f"--where {_short(self.text)}: nested more than {MAX_DEPTH} deep "
                             "(parentheses and not)")

    def parse(self) -> Callable[[Row], Any]:
        if not self.tokens:
            raise WhereError("--where: empty expression")
        node = self.or_()
        if self.peek() is not None:
            raise self.fail("expected and/or or the end")
        return node

    def or_(self):
        parts = [self.and_()]
        while self.peek() == ("name", "or"):
            self.take()
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else (lambda row: any(_truth(p(row)) for p in parts))

    def and_(self):
        parts = [self.not_()]
        while self.peek() == ("name", "and"):
            self.take()
            parts.append(self.not_())
        return parts[0] if len(parts) == 1 else (lambda row: all(_truth(p(row)) for p in parts))

    def not_(self):
        if self.peek() == ("name", "not"):
            self.take()
            self.deeper()
            inner = self.not_()
            self.depth -= 1
            return lambda row: not _truth(inner(row))
        return self.compare()

    def compare(self):
        left = self.atom()
        token = self.peek()
        if token is None or token[0] != "op" or token[1] in "()":
            return left
        op = _COMPARE[self.take()[1]]
        right = self.atom()

        def node(row):
            a, b = left(row), right(row)
            if a is None or b is None:  # unknown: only `== none` / `!= none` say anything about it
                if op is _COMPARE["=="]:
                    return a is None and b is None
                if op is _COMPARE["!="]:
                    return (a is None) != (b is None)
                return False
            try:
                return op(a, b)
            except TypeError:  # a number against a string: not equal, not ordered
                return op is _COMPARE["!="]
        return node

    def atom(self):
        kind, text = self.take()
        if kind == "number":
            number = float(text[:-1]) if text.endswith("%") else (float(text) if any(c in text for c in ".eE")
                                                                  else int(text))
            return lambda row: number
        if kind == "string":
            string = text[1:-1]
            return lambda row: string
        if kind == "op" and text == "(":
            self.deeper()
            inner = self.or_()
            if self.take() != ("op", ")"):
                self.pos -= 1
                raise self.fail("expected )")
            self.depth -= 1
            return inner
        if kind == "name":
            if text in ("true", "True"):
                return lambda row: True
            if text in ("false", "False"):
                return lambda row: False
            if text in ("none", "None"):
                return lambda row: None
            if text in _KEYWORDS:
                self.pos -= 1
                raise self.fail(f"expected a value, not {text!r}")
            if text.startswith("__"):
                self.pos -= 1
                raise self.fail("no such name")
            nxt = self.peek()
            if nxt is not None and nxt[0] == "op" and nxt[1] == "(":
                raise self.fail("calls are not part of the language")
            self.names.add(text)
            return lambda row: row.get(text)
        self.pos -= 1
        raise self.fail("expected a number, a string, a name or (")


def _truth(value: Any) -> bool:
    return bool(value) if value is not None else False


class Where:
    """A compiled filter: `Where("spills == 0 and occupancy >= 25")(row_values) -> bool`."""

    def __init__(self, text: str):
        self.text = text
        try:
            parser = _Parser(text)
            self._node = parser.parse()
        except RecursionError:  # MAX_DEPTH keeps clear of it; whatever still gets there is refused alike
            raise WhereError(f"--where {_short(text)}: nested too deep") from None
        self.names = frozenset(parser.names)

    def check_names(self, known: set[str]) -> None:
        """A name no row has is a typo: refused with the nearest names."""
        import difflib

        for name in sorted(self.names - known):
            near = difflib.get_close_matches(name, sorted(known), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(near)}?" if near else ""
            raise WhereError(f"--where: unknown name {name!r}{hint} (facts: `ttinspect report REF --json`; "
                             "also the grid's keys, arch, fits, ok, error)")

    def __call__(self, values: Row) -> bool:
        try:
            return _truth(self._node(values))
        except RecursionError:
            raise WhereError(f"--where {_short(self.text)}: nested too deep") from None


def _short(text: str, most: int = 80) -> str:
    """The expression as a message quotes it: repr (one line whatever it holds), long ones cut."""
    return repr(text) if len(text) <= most else repr(text[:most]) + f"... ({len(text)} characters)"
