"""Hydra's command-line override grammar, the one parser of it: text -> `Override`.

Group choices (`db=mysql`), value overrides (`trainer.lr=1e-3`) and sweeps (`lr=0.1,0.2`) are
all read here; `tree` and `compose._merge.hydra_values` take what they need of the result.

    override  = key "=" [ws] [value]          set (`key=` is the empty string)
              | "~" key [ "=" [ws] [value] ]  delete (strict when a value is given)
              | "+" key "=" [ws] [value]      add (the key must be absent)
              | "++" key "=" [ws] [value]     add or set
    key       = key_path [ "@" package ]
    key_path  = package | ID ( "/" ID )+        `db.user`, `server/db`, `$x`
    package   = "" | KEY_ID | DOT_PATH
    value     = element | element ( "," element )+          the second form is a sweep
    element   = function | list | dict | primitive
    function  = ID "(" [ arg ( "," arg )* ] ")"        arg = [ ID "=" ] element
    list      = "[" [ element ( "," element )* ] "]"
    dict      = "{" [ dkey ":" element ( "," dkey ":" element )* ] "}"
    primitive = QUOTED | ( ID | NULL | INT | FLOAT | BOOL | INTERP | UNQUOTED | ":" | ESC | WS )+
    dkey      = ( ID | NULL | INT | FLOAT | BOOL | UNQUOTED | ESC | WS )+

The tokens of the value part are matched longest first; on a tie the earlier kind in
`_VALUE_TOKENS` wins (`true` is a BOOL, not an ID; `inf` a FLOAT). Spaces and tabs around
punctuation belong to the punctuation. A primitive of one token has that token's type; of
several, the text of all of them (escapes undone, outer whitespace dropped): `0x10` is the text
`0x10` (an INT `0` and an ID `x10`), `a b c` the text `a b c`.
"""

from __future__ import annotations

import dataclasses
import fnmatch
import math
import re
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Literal

from compose._tree import MAX_DEPTH
from compose.errors import ArgvError, integer_too_long

# --- values -------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Quoted:
    """A quoted primitive: its text, and the quote it was written with (for job overrides)."""

    text: str
    quote: str


@dataclasses.dataclass(frozen=True)
class ChoiceSweep:
    items: tuple[Any, ...]
    simple: bool = False  # `a,b` rather than `choice(a,b)`: ambiguous outside multirun
    shuffled: bool = False
    tags: frozenset[str] = frozenset()


@dataclasses.dataclass(frozen=True)
class RangeSweep:
    start: int | float
    stop: int | float
    step: int | float = 1
    shuffled: bool = False
    tags: frozenset[str] = frozenset()


@dataclasses.dataclass(frozen=True)
class IntervalSweep:
    start: float
    end: float
    tags: frozenset[str] = frozenset()


@dataclasses.dataclass(frozen=True)
class GlobSweep:
    include: tuple[str, ...]
    exclude: tuple[str, ...] = ()
    tags: frozenset[str] = frozenset()

    def select(self, names: list[str]) -> list[str]:
        def matches(name: str, patterns: tuple[str, ...]) -> bool:
            return any(fnmatch.fnmatch(name, pattern) for pattern in patterns)

        return [n for n in names if matches(n, self.include) and not matches(n, self.exclude)]


Sweep = ChoiceSweep | RangeSweep | IntervalSweep | GlobSweep
SWEEPS = (ChoiceSweep, RangeSweep, IntervalSweep, GlobSweep)

Action = Literal["set", "add", "force", "delete"]
_PREFIX: dict[Action, str] = {"set": "", "add": "+", "force": "++", "delete": "~"}


@dataclasses.dataclass(frozen=True)
class Override:
    """One command-line override, parsed; `value` keeps `Quoted` texts (see `plain`)."""

    text: str  # as typed
    action: Action
    key: str  # the key path or group, without "@package"
    package: str | None  # after "@", "" for `key@=...`; None without "@"
    value: Any  # a parsed element, a Sweep, or None for `~key` without a value
    has_value: bool

    @property
    def is_sweep(self) -> bool:
        return isinstance(self.value, SWEEPS)

    @property
    def key_element(self) -> str:
        """The key as typed with its prefix: `+db@src`, `~x`."""
        key = self.key if self.package is None else f"{self.key}@{self.package}"
        return _PREFIX[self.action] + key

    @property
    def choice_key(self) -> str:
        """The key without its prefix, as defaults lists name a choice: `db@src`."""
        return self.key if self.package is None else f"{self.key}@{self.package}"

    @property
    def is_hydra(self) -> bool:
        return self.key.startswith(("hydra.", "hydra/"))

    def plain(self) -> Any:
        return plain(self.value)


def plain(value: Any) -> Any:
    """A parsed element as data: quoted texts become their text."""
    if isinstance(value, Quoted):
        return value.text
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {plain(k): plain(v) for k, v in value.items()}
    return value


# --- the key part -------------------------------------------------------------------------

_INT_UNSIGNED = r"(?:0|[1-9](?:_?[0-9])*)"
_ID = r"[A-Za-z_][A-Za-z0-9_\-]*"
_KEY_SPECIAL = r"[A-Za-z_$][A-Za-z0-9_\-$]*"
_SEGMENT = rf"(?:{_KEY_SPECIAL}|{_INT_UNSIGNED})"
_PACKAGE = re.compile(rf"(?:{_KEY_SPECIAL}|{_SEGMENT}(?:\.{_SEGMENT})+)?")
_GROUP = re.compile(rf"{_ID}(?:/{_ID})+")


def _split_key(text: str, key: str) -> tuple[str, str | None]:
    path, at, package = key.partition("@")
    if not (_PACKAGE.fullmatch(path) or _GROUP.fullmatch(path)):
        raise ArgvError(
            f"{path or 'an empty key'} is not a key (a dotted path or a group/path)", origin=text
        )
    if at and not _PACKAGE.fullmatch(package):
        raise ArgvError(f"{package} is not a package (a dotted path)", origin=text)
    for part in (path, package):  # the tree it would build is walked recursively
        if len(re.split(r"[./]", part)) > MAX_DEPTH:
            raise ArgvError(f"a key path of more than {MAX_DEPTH} segments", origin=text)
    return path, (package if at else None)


def parse_override(text: str) -> Override:
    """One override as typed on the command line."""
    action: Action = "set"
    rest = text
    if rest.startswith("++"):
        action, rest = "force", rest[2:]
    elif rest.startswith("+"):
        action, rest = "add", rest[1:]
    elif rest.startswith("~"):
        action, rest = "delete", rest[1:]
    key, eq, value_text = rest.partition("=")
    if not key.partition("@")[0]:  # `=1`, `+=1`, `@pkg=x`: `_PACKAGE` takes an empty path
        raise ArgvError(
            f"an override needs a key before '{rest[0]}'" if rest else "an override needs a key",
            origin=text,
            hint="an override is KEY=VALUE, +KEY=VALUE, ++KEY=VALUE or ~KEY",
        )
    path, package = _split_key(text, key)
    if not eq:
        if action != "delete":
            raise ArgvError(
                "an override is KEY=VALUE, +KEY=VALUE, ++KEY=VALUE or ~KEY", origin=text
            )
        return Override(text, action, path, package, None, False)
    value_text = value_text.lstrip(" \t")
    value = _Parser(text, value_text).value() if value_text else ""
    return Override(text, action, path, package, value, True)


def parse_element(text: str) -> Any:
    """One element of the value grammar (`oc.decode`'s reading of a text), quotes undone."""
    return plain(_Parser(text, text).element()) if text.strip() else text


# --- the value part: tokens ---------------------------------------------------------------

_WS = r"[ \t]*"
_DIGITS = r"[0-9](?:_?[0-9])*"
_POINT = rf"(?:{_INT_UNSIGNED}?\.{_DIGITS}|{_INT_UNSIGNED}\.)"
_FLOAT = (
    rf"[+-]?(?:(?:{_POINT}|{_INT_UNSIGNED})[eE][+-]?{_DIGITS}|{_POINT}|[Ii][Nn][Ff]|[Nn][Aa][Nn])"
)
_QUOTED = r"""(?s:"(?:(?:\\\\)*|.*?[^\\](?:\\\\)*)"|'(?:(?:\\\\)*|.*?[^\\](?:\\\\)*)')"""
_ESCAPES = r"(?:\\\\|\\\(|\\\)|\\\[|\\\]|\\\{|\\\}|\\:|\\=|\\,|\\ |\\\t)+"

_VALUE_TOKENS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(pattern))
    for kind, pattern in [
        ("(", rf"{_WS}\({_WS}"),
        (",", rf"{_WS},{_WS}"),
        (")", rf"{_WS}\)"),
        ("[", rf"\[{_WS}"),
        ("]", rf"{_WS}\]"),
        ("{", rf"\{{{_WS}"),
        ("}", rf"{_WS}\}}"),
        (":", rf"{_WS}:{_WS}"),
        ("=", rf"{_WS}={_WS}"),
        ("FLOAT", _FLOAT),
        ("INT", rf"[+-]?{_INT_UNSIGNED}"),
        ("BOOL", r"(?i:true|false)"),
        ("NULL", r"(?i:null)"),
        ("UNQUOTED", r"[/\-\\+.$%*@?|]"),
        ("ID", _ID),
        ("ESC", _ESCAPES),
        ("WS", r"[ \t]+"),
        ("QUOTED", _QUOTED),
        ("INTERP", r"\$\{[^}]+\}"),
    ]
]
_PRIMITIVE_KINDS = {"ID", "NULL", "INT", "FLOAT", "BOOL", "INTERP", "UNQUOTED", ":", "ESC", "WS"}
_DICT_KEY_KINDS = _PRIMITIVE_KINDS - {"INTERP", ":"}


@dataclasses.dataclass(frozen=True)
class _Token:
    kind: str
    text: str
    column: int


def _tokens(whole: str, text: str) -> list[_Token]:
    out: list[_Token] = []
    pos = 0
    while pos < len(text):
        best: tuple[int, str] | None = None
        for kind, pattern in _VALUE_TOKENS:
            match = pattern.match(text, pos)
            if match and match.end() > pos and (best is None or match.end() > best[0]):
                best = (match.end(), kind)
        if best is None:
            raise ArgvError(
                f"unexpected character {text[pos]!r} at column {pos + 1} of the value",
                origin=whole,
                hint="quote a value that holds it: key='...'",
            )
        out.append(_Token(best[1], text[pos : best[0]], pos))
        pos = best[0]
    return out


# --- the value part: parser ---------------------------------------------------------------


class _Parser:
    def __init__(self, whole: str, text: str) -> None:
        self.whole = whole
        self.toks = _tokens(whole, text)
        self.pos = 0
        self.depth = 0

    def _peek(self, offset: int = 0) -> str | None:
        at = self.pos + offset
        return self.toks[at].kind if at < len(self.toks) else None

    def _fail(self, what: str) -> ArgvError:
        at = self.pos < len(self.toks)
        where = f"column {self.toks[self.pos].column + 1}" if at else "the end"
        hint = None
        if at and self.toks[self.pos].kind in ("=", ",", ":"):
            hint = f"quote a value that holds {self.toks[self.pos].kind.strip()!r}: key='...'"
        return ArgvError(f"{what} at {where} of the value", origin=self.whole, hint=hint)

    def _expect(self, kind: str) -> None:
        if self._peek() != kind:
            raise self._fail(f"expected {kind!r}")
        self.pos += 1

    def value(self) -> Any:
        first = self.element()
        if self._peek() != ",":
            if self._peek() is not None:
                raise self._fail("unexpected text")
            return first
        items = [first]
        while self._peek() == ",":
            self.pos += 1
            items.append(self.element())
        if self._peek() is not None:
            raise self._fail("unexpected text")
        return ChoiceSweep(tuple(items), simple=True)

    def element(self) -> Any:
        kind = self._peek()
        if kind in ("[", "{") or (kind == "ID" and self._peek(1) == "("):
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise self._fail(f"lists, dicts or calls nested deeper than {MAX_DEPTH} levels")
            try:
                if kind == "[":
                    return self.list_()
                return self.dict_() if kind == "{" else self.function()
            finally:
                self.depth -= 1
        return self.primitive(_PRIMITIVE_KINDS)

    def list_(self) -> list[Any]:
        self._expect("[")
        items: list[Any] = []
        if self._peek() != "]":
            items.append(self.element())
            while self._peek() == ",":
                self.pos += 1
                items.append(self.element())
        self._expect("]")
        return items

    def dict_(self) -> dict[Any, Any]:
        self._expect("{")
        out: dict[Any, Any] = {}
        if self._peek() != "}":
            while True:
                key = self.primitive(_DICT_KEY_KINDS, quoted=False)
                self._expect(":")
                out[key] = self.element()
                if self._peek() != ",":
                    break
                self.pos += 1
        self._expect("}")
        return out

    def function(self) -> Any:
        name = self.toks[self.pos].text
        self.pos += 1
        self._expect("(")
        args: list[Any] = []
        kwargs: dict[str, Any] = {}
        if self._peek() != ")":
            while True:
                if self._peek() == "ID" and self._peek(1) == "=":
                    arg_name = self.toks[self.pos].text
                    self.pos += 2
                    kwargs[arg_name] = self.element()
                elif kwargs:
                    raise self._fail("a positional argument after a keyword argument")
                else:
                    args.append(self.element())
                if self._peek() != ",":
                    break
                self.pos += 1
        self._expect(")")
        return call_function(self.whole, name, args, kwargs)

    def primitive(self, kinds: set[str], *, quoted: bool = True) -> Any:
        """A quoted text, or a run of tokens of `kinds` (a dict key: never quoted)."""
        if self._peek() == "QUOTED" and quoted:
            tok = self.toks[self.pos]
            self.pos += 1
            return Quoted(unquote(tok.text), tok.text[0])
        start = self.pos
        while self._peek() in kinds:
            self.pos += 1
        run = self.toks[start : self.pos]
        if not run:
            raise self._fail("expected a value")
        while run and run[0].kind == "WS" and len(run) > 1:
            run = run[1:]
        while run and run[-1].kind == "WS" and len(run) > 1:
            run = run[:-1]
        if len(run) == 1:
            if run[0].kind == "WS":
                raise self._fail("a value of whitespace only")
            try:
                return _typed(run[0])
            except ValueError as error:  # an integer of more digits than Python converts
                raise self._fail(integer_too_long(error)) from None
        return "".join(t.text[1::2] if t.kind == "ESC" else t.text for t in run)


def _typed(tok: _Token) -> Any:
    if tok.kind == "INT":
        return int(tok.text)
    if tok.kind == "FLOAT":
        return float(tok.text)
    if tok.kind == "NULL":
        return None
    if tok.kind == "BOOL":
        return tok.text.lower() == "true"
    if tok.kind == "ESC":
        return tok.text[1::2]
    return tok.text


_ESCAPED_QUOTE = {"'": re.compile(r"(\\)+'"), '"': re.compile(r'(\\)+"')}


def unquote(token: str) -> str:
    """A quoted token's text: backslashes before a quote are halved; others are kept."""
    quote, body = token[0], token[1:]
    out: list[str] = []
    match = _ESCAPED_QUOTE[quote].search(body)
    while match is not None:
        start, stop = match.span()
        out.append(body[:start])
        out.append(body[start + 1 : stop : 2])
        body = body[stop:]
        match = _ESCAPED_QUOTE[quote].search(body)
    if len(body) > 1:
        out.append(body[:-1])
    return "".join(out)


# --- functions ----------------------------------------------------------------------------


def call_function(whole: str, name: str, args: list[Any], kwargs: dict[str, Any]) -> Any:
    function = _FUNCTIONS.get(name)
    if function is None:
        raise ArgvError(
            f"unknown function {name}()",
            origin=whole,
            hint=f"the functions are {', '.join(sorted(_FUNCTIONS))}",
        )
    args = [a.text if isinstance(a, Quoted) else a for a in args]
    kwargs = {k: (v.text if isinstance(v, Quoted) else v) for k, v in kwargs.items()}
    try:
        return function(*args, **kwargs)
    except (TypeError, ArithmeticError) as error:
        raise ArgvError(f"{name}(): {error}", origin=whole) from None
    except ValueError as error:  # int() of a text of more digits than Python converts too
        raise ArgvError(f"{name}(): {integer_too_long(error)}", origin=whole) from None


def _one_or_choice(args: tuple[Any, ...], value: Any) -> Any:
    if args and value is not None:
        raise TypeError("positional and named arguments at once")
    if value is not None:
        return value
    if not args:
        raise TypeError("no argument")
    return args[0] if len(args) == 1 else ChoiceSweep(tuple(args), simple=True)


def _cast(convert: Callable[[Any], Any], name: str) -> Callable[..., Any]:
    def apply(value: Any) -> Any:
        if isinstance(value, Quoted):
            return apply(value.text)
        if isinstance(value, dict):
            return {k: apply(v) for k, v in value.items()}
        if isinstance(value, list):
            return [apply(v) for v in value]
        if isinstance(value, ChoiceSweep):
            return dataclasses.replace(value, items=tuple(apply(v) for v in value.items))
        if isinstance(value, RangeSweep):
            if name not in ("int", "float"):
                raise ValueError("a range casts to int or float only")
            return dataclasses.replace(
                value, start=apply(value.start), stop=apply(value.stop), step=apply(value.step)
            )
        if isinstance(value, IntervalSweep):
            if name not in ("int", "float"):
                raise ValueError(f"an interval does not cast to {name}")
            return dataclasses.replace(value, start=apply(value.start), end=apply(value.end))
        if not isinstance(value, (int, float, bool, str)):
            raise TypeError(f"cannot cast {value!r}")
        return convert(value)

    def cast(*args: Any, value: Any = None) -> Any:
        return apply(_one_or_choice(args, value))

    return cast


def _to_str(value: int | float | bool | str) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _to_bool(value: int | float | bool | str) -> bool:
    if isinstance(value, str):
        if value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise ValueError(f"cannot cast {value!r} to bool")
    return bool(value)


def _choice(*args: Any) -> ChoiceSweep:
    if not args:
        raise ValueError("an empty choice")
    if len(args) == 1 and isinstance(args[0], ChoiceSweep):
        if not args[0].simple:
            raise ValueError("choices do not nest")
        return dataclasses.replace(args[0], simple=False)
    return ChoiceSweep(tuple(args))


def _number(value: Any, what: str) -> int | float:
    if not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a number, not {value!r}")
    return value


def _range(start: Any, stop: Any = None, step: Any = 1) -> RangeSweep:
    if stop is None:
        start, stop = 0, start
    return RangeSweep(_number(start, "start"), _number(stop, "stop"), _number(step, "step"))


def _interval(start: Any, end: Any) -> IntervalSweep:
    return IntervalSweep(float(_number(start, "start")), float(_number(end, "end")))


def _tag(*args: Any, sweep: Any = None) -> Any:
    if sweep is not None:
        args = (*args, sweep)
    if not args or not isinstance(args[-1], SWEEPS):
        raise ValueError("the last argument of tag() is a sweep")
    tags = args[:-1]
    if not all(isinstance(t, str) for t in tags):
        raise ValueError("tags are text")
    return dataclasses.replace(args[-1], tags=frozenset(tags))


def _shuffle(*args: Any, sweep: Any = None, **named: Any) -> Any:
    given = named.pop("list", None)  # Hydra's argument name, which shadows a builtin
    if named:
        raise TypeError(f"unexpected arguments {sorted(named)}")
    if given is not None or sweep is not None:
        return _shuffle(given if given is not None else sweep)
    if len(args) == 1:
        if isinstance(args[0], (ChoiceSweep, RangeSweep)):
            return dataclasses.replace(args[0], shuffled=True)
        raise ValueError("shuffle() of a list is random: not reproducible, not supported here")
    return ChoiceSweep(tuple(args), simple=True, shuffled=True)


def _sort(*args: Any, sweep: Any = None, reverse: bool = False, **named: Any) -> Any:
    given = named.pop("list", None)
    if named:
        raise TypeError(f"unexpected arguments {sorted(named)}")
    if given is not None:
        return sorted(given, reverse=reverse)
    if sweep is not None:
        return _sort_sweep(sweep, reverse)
    if len(args) == 1:
        only = args[0]
        if isinstance(only, (ChoiceSweep, RangeSweep)):
            return _sort_sweep(only, reverse)
        return sorted(only, reverse=reverse) if isinstance(only, list) else only
    if not args:
        raise ValueError("sort() of nothing")
    if not all(isinstance(a, (int, float, bool, str)) for a in args):
        raise TypeError("sort() takes values or one sweep")
    return _sort_sweep(ChoiceSweep(tuple(args), simple=True), reverse)


def _sort_sweep(sweep: Any, reverse: bool) -> Any:
    if isinstance(sweep, ChoiceSweep):
        return dataclasses.replace(sweep, items=tuple(sorted(sweep.items, reverse=reverse)))
    if isinstance(sweep, RangeSweep):
        start, stop, step = sweep.start, sweep.stop, sweep.step
        if not reverse and start > stop:
            start, stop, step = stop + abs(step), start + abs(step), -step
        elif reverse and start < stop:
            start, stop, step = stop - abs(step), start - abs(step), -step
        return dataclasses.replace(sweep, start=start, stop=stop, step=step)
    raise TypeError("sort() takes a choice or a range")


def _glob(include: Any, exclude: Any = None) -> GlobSweep:
    def patterns(value: Any) -> tuple[str, ...]:
        items = [value] if isinstance(value, str) else value
        if not isinstance(items, (list, tuple)) or not all(isinstance(i, str) for i in items):
            raise TypeError("glob patterns are text")
        return tuple(items)

    return GlobSweep(patterns(include), patterns(exclude) if exclude is not None else ())


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "int": _cast(int, "int"),
    "float": _cast(float, "float"),
    "str": _cast(_to_str, "str"),
    "bool": _cast(_to_bool, "bool"),
    "choice": _choice,
    "range": _range,
    "interval": _interval,
    "tag": _tag,
    "shuffle": _shuffle,
    "sort": _sort,
    "glob": _glob,
}


# --- sweeps as job overrides --------------------------------------------------------------


MAX_SWEEP_VALUES = 100_000  # values one sweep may take: counted before any is made


def sweep_values(sweep: Any, options: Callable[[], list[str]], text: str) -> list[Any]:
    """The values a discrete sweep takes, in order; `options` lists a group's (for glob);
    `text`: the override as typed, for errors."""
    if getattr(sweep, "shuffled", False):
        raise ArgvError(
            "shuffle() is random: a sweep here is reproducible, so it is refused",
            origin=text,
            hint="list the values in the order wanted",
        )
    if isinstance(sweep, ChoiceSweep):
        return list(sweep.items)
    if isinstance(sweep, RangeSweep):
        return _range_values(sweep, text)
    if isinstance(sweep, GlobSweep):
        return list(sweep.select(options()))
    raise ArgvError("an interval is not a list of values: a sweep here needs values", origin=text)


def _range_values(sweep: RangeSweep, text: str) -> list[int | float]:
    if sweep.step == 0:
        raise ArgvError("range() with a step of 0", origin=text)
    if all(isinstance(v, int) for v in (sweep.start, sweep.stop, sweep.step)):
        first, end, by = int(sweep.start), int(sweep.stop), int(sweep.step)
        # counted by arithmetic: len() of a range past sys.maxsize raises OverflowError
        if -((first - end) // by) > MAX_SWEEP_VALUES:
            raise _too_many(text)
        return list(range(first, end, by))
    if not all(math.isfinite(v) for v in (sweep.start, sweep.stop, sweep.step)):
        raise ArgvError("range() of values that are not finite", origin=text)
    start, stop, step = Decimal(sweep.start), Decimal(sweep.stop), Decimal(sweep.step)
    if (stop - start) / step > MAX_SWEEP_VALUES:
        raise _too_many(text)
    out: list[int | float] = []
    while (start < stop) if step > 0 else (start > stop):
        out.append(float(start))
        start += step
    return out


def _too_many(text: str) -> ArgvError:
    return ArgvError(f"a range of more than {MAX_SWEEP_VALUES:,} values", origin=text)


_SPECIAL = re.compile(r"[\\()\[\]{}:=, \t]")


def as_text(value: Any) -> str:
    """An element written back as override text (a job's `key=value`)."""
    if value is None:
        return "null"
    if isinstance(value, Quoted):
        return _with_quotes(value)
    if isinstance(value, list):
        return "[" + ",".join(as_text(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{as_text(k)}:{as_text(v)}" for k, v in value.items()) + "}"
    if isinstance(value, str):
        return _SPECIAL.sub(lambda m: "\\" + m.group(0), value)
    return str(value)


def _with_quotes(value: Quoted) -> str:
    q = value.quote
    text = value.text
    if "\\" in text:  # backslashes before a quote (or the end) double, as `unquote` halves them
        text = re.sub(r"(\\+)(?=" + re.escape(q) + "|$)", lambda m: m.group(1) * 2, text)
    return q + text.replace(q, "\\" + q) + q
