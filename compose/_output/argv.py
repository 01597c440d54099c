"""A config as command-line flags: the overrides that, put after a base command line, give it.

`to_argv(config, base)` (`compose._api`) composes `base`, and this module compares the two
configs section by section beside the schema, writing a flag for each value that differs:

- a scalar as `--key=TEXT`, typed back by its field as any flag is (`compose._schema.coerce`):
  a float as its repr, `${` and `???` escaped as a file writes them (`compose._interp.data`);
  in an untyped key, text that would read as a number or a list is written as a TOML string;
- a plain bool field as `--key` or `--section.no-key`; None as `--key=None`;
- a list whole, as one JSON value (`--tags=["a", "b"]`), as lists on the command line replace;
  its sections without the fields at their class defaults (all of them, if that falls short);
- a dict key by key (`--env-vars.HOME=/x`); keys it lost that a node set (still there a round
  later: a validator may fill a dict's defaults itself) by deleting it (`~key`) and setting it
  again whole, since flags merge into what the files set;
- an optional section switched on as a bare `--key`, off as `--key=None`; a section switched
  on, to another union variant (its tag, `--trainer.optim.type=muon`) or from a plain value
  with every field, a default alone may not compose (a required field has none).

Each round composes base + flags again (`reparse`, from `compose._api`) and compares once more,
until nothing differs. A last pass drops each flag the result does not need, the deepest
first: one a validator derives from another (an app that copies a shared `max_steps` into its
components), a switched section's fields at what the switch gives. What still differs after
the rounds, or is refused, is an `OutputError` naming the key: text starting with `@` (a file
node), a key no flag spells, a key one of the base's own flags set (`~key` deletes only what
files set).

The pass is greedy: in that order, a flag goes when the flags still kept compose the config
without it. Asked flag by flag, that is one composition of all the flags per flag, and the
pass grew with the square of their number (2,000 flags: 29 s). It asks far fewer, for the
same flags:

- Screening (from `_SCREEN_FROM` flags): compositions that each leave a part of the flags out.
  For each bit of a flag's rank in the pass, the flags whose rank has it, then those whose
  rank has it not, so that of any two flags, one is left out and the other kept in one of
  them; and the flags of each depth, when there are several. A union's tag is left out only
  with every flag of its section (they would name keys of another variant), in parts of tags.
  A part refused whole is halved, a few times (a half keeps what the part kept). The value a
  composition gives at the key of a flag it left out shows that flag *free* (the config's
  value) or not. A flag that every part leaving it out composed and showed not free, and
  whose key is its alone (no other flag sets it or a key below it), is *needed*.
- The pass, in its order: a needed flag is kept as it is; a run of flags shown free is left
  out all at once where the rest still composes the config, else each half in turn; any other
  flag is asked on its own, as before. About 2 log2(N) compositions when most flags are
  needed, and a few more for each flag the screening leaves open
  (tests/output/test_argv_pruning.py counts them).

Every flag is dropped by a composition of what is left, so the argv always composes the
config. The flags are those of the pass asked flag by flag when (1) a flag the others make
unneeded stays so beside more of them (flags only set the config's own values), which makes a
run left out at once the same as one at a time; and (2) what gives a flag's value when it is
left out is one other flag (a shared value a validator copies, the tag of a variant whose
default it is, a flag below a bare `--section`), or flags at other depths, whatever else is
left out: a part leaves the flag out and keeps those, and shows it free. An app whose
validators break these still gets an argv that composes its config, where a flag more may be
kept.

A secret (`SecretStr`, `SecretBytes`) is never written: its flag holds the mask `**********`
and a warning says the argv does not carry it; one read from `${oc.env:NAME}` is written as
that reference, which is no secret.
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import Any

from pydantic import BaseModel, SecretBytes, SecretStr

from compose._interp.data import escape  # as the TOML writer: not the resolver, only escapes
from compose._merge.defaults import holds_interpolation
from compose._output.plain import holds_secret, to_data
from compose._output.toml import inline_value, scalar_text
from compose._schema.coerce import parse_toml_value
from compose._schema.keys import flag_segment
from compose._schema.plan import field_name, plan_of
from compose._schema.secrets import FromEnvironment, Verbatim
from compose._schema.shape import ANY, Kind, Shape
from compose._syntax import NEGATIONS, NONE_TEXT, SECRET_MASK
from compose._warn import warn
from compose.errors import ComposeError, ComposeWarning, OutputError, gather, integer_too_long

Reparse = Callable[[list[str]], Any]  # flags -> the config base + flags compose to

_ROUNDS = 8  # a dict's lost keys and a list's defaults each may take one more round
_SCREEN_FROM = 24  # fewer flags: a composition each costs less than the screening's


class _Missing:
    """Nothing known at a key: every value below it is written."""

    def __repr__(self) -> str:
        return "(unset)"


_MISSING: Any = _Missing()
_SECRETS = (SecretStr, SecretBytes)


@dataclass(frozen=True)
class Override:
    """One unit of the argv: a flag (or a deletion) at `key`, the dotted key as flags spell it."""

    key: str
    tokens: tuple[str, ...]
    depth: int
    secret: bool = False  # holds the mask, not the value
    tag: bool = False  # a union's tag: without it, the flags below its section name no key

    @property
    def deletes(self) -> bool:
        return self.tokens[0].startswith("~")


def overrides_between(
    want: Any,
    have: Any,
    root: Shape,
    reparse: Reparse,
    *,
    minimal: bool = True,
    open_ended: bool = False,
) -> list[str]:
    """The flags that turn `have` (what the base composes) into `want` (both models of the
    `root` schema, or plain dicts without one); `reparse(flags)` composes base + flags.
    `open_ended`: the base ends with a flag that takes every token up to the next flag."""
    trials = _Trials(reparse, open_ended)
    differ = _Differ(schemaless=root.model is None)
    found: dict[tuple[str, bool], Override] = {}
    current = have
    for _ in range(_ROUNDS):
        new = list(differ.diff(want, current, root, "", 0))
        if not new:
            break
        for override in new:
            found[(override.key, override.deletes)] = override
        current = trials.compose(list(found.values()))
    else:
        raise _unwritable(want, current, root, differ)
    kept = list(found.values())
    if minimal:
        kept = _pruned(kept, want, root, trials, differ)
    _warn_secrets(kept)
    return trials.tokens(kept)


class _Trials:
    """Compositions of the base with some of the flags."""

    def __init__(self, reparse: Reparse, open_ended: bool) -> None:
        self.reparse = reparse
        self.open_ended = open_ended

    def tokens(self, overrides: list[Override]) -> list[str]:
        """Deletions, `--key=VALUE` flags, then bare flags: a `~key` right after a flag written
        without `=` (`--dry-run`) would be its value; after an open-ended base, a
        `--key=VALUE` first."""
        return [
            token for override in sorted(overrides, key=self._rank) for token in override.tokens
        ]

    def _rank(self, override: Override) -> int:
        if override.deletes:
            return 1 if self.open_ended else 0
        if "=" not in override.tokens[0]:
            return 2
        return 0 if self.open_ended else 1

    def attempt(self, overrides: list[Override]) -> Any:
        return self.reparse(self.tokens(overrides))

    def compose(self, overrides: list[Override]) -> Any:
        try:
            return self.attempt(overrides)
        except ComposeError as error:
            first = error.errors[0]
            raise OutputError(
                "cannot be written as a flag: composed again, it is refused",
                key=first.key,
                hint=first.format(),
            ) from None


def _pruned(
    overrides: list[Override], want: Any, root: Shape, trials: _Trials, differ: _Differ
) -> list[Override]:
    """Without each flag the result does not need: one a validator derives from another (a
    shared value copied into sections), a bare `--section` a flag below it also turns on.

    The pass of the module's docstring: flags the screening shows needed are kept, runs of
    those it shows free are left out together (halved where that fails), the rest one by one."""
    order = [
        override
        for _, override in sorted(enumerate(overrides), key=lambda pair: (-pair[1].depth, -pair[0]))
        if not override.secret  # its mask is no value: it would seem unneeded
    ]
    needed, free = _screened(order, overrides, want, trials)
    kept = list(overrides)
    run: list[Override] = []
    for override in order:
        if override in needed:
            continue
        if override in free:
            run.append(override)
            continue
        kept = _without(run, kept, want, root, trials, differ)
        kept = _without([override], kept, want, root, trials, differ)
        run = []
    return _without(run, kept, want, root, trials, differ)


def _without(
    block: list[Override],
    kept: list[Override],
    want: Any,
    root: Shape,
    trials: _Trials,
    differ: _Differ,
) -> list[Override]:
    """`kept` without the flags of `block` (in the pass's order) the result does not need: all
    of them, where leaving them all out still composes `want`; else each half in turn (a
    single flag is kept)."""
    if not block:
        return kept
    out = set(block)
    trial = [override for override in kept if override not in out]
    try:
        result = trials.attempt(trial)
    except ComposeError:
        needed = True
    else:
        needed = any(True for _ in differ.diff(want, result, root, "", 0))
    if not needed:
        return trial
    if len(block) == 1:
        return kept
    half = len(block) // 2
    kept = _without(block[:half], kept, want, root, trials, differ)
    return _without(block[half:], kept, want, root, trials, differ)


def _screened(
    order: list[Override], overrides: list[Override], want: Any, trials: _Trials
) -> tuple[set[Override], set[Override]]:
    """The flags of `order` shown needed, and those shown free, by compositions that each leave
    a part of the flags out (the module's docstring says which parts and what they show)."""
    if len(order) < _SCREEN_FROM:
        return set(), set()
    plain = [override for override in order if not override.tag]
    parts = _apart(plain) + _apart([override for override in order if override.tag])
    depths = {override.depth for override in plain}
    if len(depths) > 1:
        parts += [[override for override in plain if override.depth == d] for d in depths]
    below = {  # a tag goes with every flag of its section
        tag: [o for o in overrides if o.key.startswith(tag.key.rpartition(".")[0] + ".")]
        for tag in order
        if tag.tag
    }
    budget = 2 * len(parts)  # compositions of the halves of parts refused whole
    free: set[Override] = set()
    differs: set[Override] = set()
    unknown: set[Override] = set()
    while parts:
        part = parts.pop()
        out = set(part).union(*(below[o] for o in part if o.tag))
        try:
            result = trials.attempt([override for override in overrides if override not in out])
        except ComposeError:
            if len(part) > 1 and budget >= 2:
                budget -= 2
                half = len(part) // 2
                parts += [part[:half], part[half:]]  # apart still from what the part was
            else:
                unknown.update(part)
            continue
        for override in part:
            same = _same(_at(want, override.key), _at(result, override.key))
            (free if same else differs).add(override)
    return (differs - free - unknown) & _alone(overrides), free


def _apart(flags: list[Override]) -> list[list[Override]]:
    """Parts of `flags` that set any two of them apart: for each bit of a flag's rank, the
    flags whose rank has it, and those whose rank has it not (two ranks differ in a bit)."""
    bits = max(1, (len(flags) - 1).bit_length())
    parts = [
        [override for rank, override in enumerate(flags) if rank >> bit & 1 == side]
        for bit in range(bits)
        for side in (0, 1)
    ]
    return [part for part in parts if part]


def _alone(overrides: list[Override]) -> set[Override]:
    """The flags whose key no other flag shares nor sets a key below: what a composition holds
    at their key is theirs alone to give."""
    counts = Counter(override.key for override in overrides)
    above = {
        key[:at]
        for key in counts
        for at, character in enumerate(key)
        if character == "."  # every key above one a flag sets
    }
    return {o for o in overrides if counts[o.key] == 1 and o.key not in above}


def _at(config: Any, key: str) -> Any:
    """The value at a flag's dotted `key` in a config (`_MISSING` where it holds none)."""
    value = config
    for segment in key.split("."):
        if isinstance(value, BaseModel):
            name = field_name(type(value), segment)
            if name is not None:
                value = getattr(value, name)
                continue
            value = value.__pydantic_extra__ or {}
        if not isinstance(value, dict):
            return _MISSING
        value = value.get(segment, _MISSING)
    return value


def _unwritable(want: Any, have: Any, root: Shape, differ: _Differ) -> ComposeError:
    errors = [
        OutputError(
            "cannot be written as a flag: composed again with the base, it gives another value",
            key=f"--{override.key}",
            value=_shown(override),
            hint=_DELETES_FILES_ONLY if override.deletes else None,
        )
        for override in differ.diff(want, have, root, "", 0)
    ]
    return gather(errors or [OutputError("cannot be written as flags")])


_DELETES_FILES_ONLY = (
    "~KEY deletes what files set, not what the base's flags set: set those keys in a file"
)


def _shown(override: Override) -> str:
    return " ".join(override.tokens)


def _warn_secrets(overrides: list[Override]) -> None:
    for override in overrides:
        if override.secret:
            warn(
                f"--{override.key} is a secret: the argv holds {SECRET_MASK}, not its value; "
                "set it by a file or an environment variable (${oc.env:NAME})",
                ComposeWarning,
                stacklevel=4,
            )


class _Differ:
    """Walks two configs beside the schema and writes a flag where they differ (what it learns
    in a round, it keeps for the next)."""

    def __init__(self, *, schemaless: bool) -> None:
        self.schemaless = schemaless
        # Dicts that held keys the config lacks. Keys a validator fills in (a default table
        # that any key set replaces) go by themselves; those still there a round later were
        # set by a node, and are deleted: `~key` then the dict whole.
        self.lost: set[str] = set()
        # Lists written once already: next time, their sections with every field.
        self.whole: set[str] = set()

    def diff(self, want: Any, have: Any, shape: Shape, key: str, depth: int) -> Iterator[Override]:
        """Flags for `want` where `have` is at `key` (`_MISSING`: unknown, write it all)."""
        if have is not _MISSING and _same(want, have):
            return
        if isinstance(want, BaseModel):
            yield from self._section(want, have, shape, key, depth)
        elif want is None:
            yield self._flag(key, depth, NONE_TEXT)
        elif isinstance(want, dict):
            yield from self._table(want, have, shape, key, depth)
        elif isinstance(want, (list, tuple, set, frozenset)):
            yield self._list(want, shape, key, depth)
        else:
            yield self._scalar(want, shape, key, depth)

    def _section(
        self, want: BaseModel, have: Any, shape: Shape, key: str, depth: int
    ) -> Iterator[Override]:
        tag = _join(key, flag_segment(shape.tag)) if shape.tag else None
        for override in self._section_flags(want, have, key, depth):
            yield replace(override, tag=True) if override.key == tag else override

    def _section_flags(
        self, want: BaseModel, have: Any, key: str, depth: int
    ) -> Iterator[Override]:
        if have is _MISSING or (isinstance(have, BaseModel) and type(have) is type(want)):
            yield from self._fields(want, have, key, depth)
            return
        # Turned on, another variant, or a table for a value (`Literal["policy"] | Endpoint`):
        # every field (a default may not compose alone: a required one has none), and the
        # pruning keeps what is needed, a bare `--section` for an optional one turned on
        if have is None and key:
            yield Override(key, (f"--{key}",), depth)
        if isinstance(have, BaseModel):
            yield from self._kept_tables(want, have, key, depth)
        yield from self._fields(want, _MISSING, key, depth)

    def _kept_tables(
        self, want: BaseModel, have: BaseModel, key: str, depth: int
    ) -> Iterator[Override]:
        """Deletions of the tables the variant switched from held under a name the new one
        has too, as another kind of table: a switch keeps them, and flags would merge into them
        (a section's keys in what is now a dict of sections). A table of the same kind is
        merged into as before (a dict's lost keys are deleted a round later)."""
        shared = plan_of(type(want)).fields.keys() & plan_of(type(have)).fields.keys()
        for name in plan_of(type(want)).fields:
            if name in shared:
                old = getattr(have, name)
                if isinstance(old, (BaseModel, dict)) and type(old) is not type(
                    getattr(want, name)
                ):
                    below = _join(key, flag_segment(name))
                    yield Override(below, (f"~{below}",), depth + 1)

    def _fields(self, want: BaseModel, have: Any, key: str, depth: int) -> Iterator[Override]:
        fields = plan_of(type(want)).fields
        for name, field in fields.items():
            before = _MISSING if have is _MISSING else getattr(have, name)
            below = _join(key, flag_segment(name))
            yield from self.diff(getattr(want, name), before, field.shape, below, depth + 1)
        extra = want.__pydantic_extra__
        if extra:  # a model that allows extra keys: they pass as untyped flags
            before = _MISSING if have is _MISSING else (have.__pydantic_extra__ or {})
            for name, value in extra.items():
                held = before.get(name, _MISSING) if isinstance(before, dict) else _MISSING
                yield from self.diff(value, held, ANY, _join(key, name), depth + 1)

    def _table(
        self, want: dict[Any, Any], have: Any, shape: Shape, key: str, depth: int
    ) -> Iterator[Override]:
        """A dict key by key; one that lost keys (or holds keys no flag spells) whole."""
        item = shape.item or ANY if shape.kind is Kind.DICT else ANY
        if not key:  # the root of a schema-less config: no flag names it whole
            yield from self._root_keys(want, have, item)
            return
        before = have if isinstance(have, dict) else _MISSING
        spelt = all(self._spells(name) for name in want)
        if before is not _MISSING and spelt and key not in self.lost:
            flags = [
                override
                for name, value in want.items()
                for override in self.diff(
                    value, before.get(name, _MISSING), item, _join(key, str(name)), depth + 1
                )
            ]
            if before.keys() <= want.keys() or flags:
                if not before.keys() <= want.keys():
                    self.lost.add(key)  # still there next round: a node set them, delete them
                yield from flags
                return
        if have is not _MISSING:
            yield Override(key, (f"~{key}",), depth)  # what files set there goes: set it whole
        if want and spelt:
            for name, value in want.items():
                yield from self.diff(value, _MISSING, item, _join(key, str(name)), depth + 1)
        else:
            text = _json(to_data(want, references=True), key)
            yield Override(key, (f"--{key}={text}",), depth, secret=holds_secret(want))

    def _root_keys(self, want: dict[Any, Any], have: Any, item: Shape) -> Iterator[Override]:
        before = have if isinstance(have, dict) else {}
        for name in want.keys() | before.keys():
            if not self._spells(name) and not _same(
                want.get(name, _MISSING), before.get(name, _MISSING)
            ):
                raise OutputError(
                    "cannot be written as a flag: no flag spells this key",
                    key=repr(name),
                    hint="a flag's key holds no dot nor =, and starts with no - or ~",
                )
        for name, value in want.items():
            yield from self.diff(value, before.get(name, _MISSING), item, str(name), 1)
        for name in before.keys() - want.keys():
            yield Override(str(name), (f"~{name}",), 1)

    def _spells(self, name: object) -> bool:
        """Whether a dict key can be a flag's segment as it is: not split at a dot or an `=`,
        not read as an append (`+`), not snake-cased (schema-less, flag segments are)."""
        if not isinstance(name, str) or not name or name.startswith(("-", "~")):
            return False
        if "." in name or "=" in name or name.endswith("+"):
            return False
        return not (self.schemaless and "-" in name)

    def _list(self, want: Any, shape: Shape, key: str, depth: int) -> Override:
        if key in self.whole:
            data = to_data(want, references=True)
        else:  # sections without the fields at their defaults, until that falls short
            self.whole.add(key)
            data = [_compact(item) for item in want]
        # A typed list reads one token starting with `[` as JSON; an untyped key, as TOML
        text = _json(data, key) if shape.kind is Kind.LIST else _untyped_text(data, key)
        flag = f"--{key}={text}"
        secret = holds_secret(want)  # masked, as a secret field's own flag is
        if shape.merge is not None:  # a strategy list merges a flag into what files set
            return Override(key, (f"~{key}", flag), depth, secret)
        return Override(key, (flag,), depth, secret)

    def _scalar(self, want: Any, shape: Shape, key: str, depth: int) -> Override:
        if isinstance(want, _SECRETS):
            if isinstance(want, FromEnvironment):
                return self._flag(key, depth, want.reference)  # a reference, read where it runs
            return Override(key, (f"--{key}={SECRET_MASK}",), depth, secret=True)
        if shape.is_section and shape.alternative is not None:
            shape = shape.alternative
        if isinstance(want, bool) and shape.kind is Kind.BOOL and not shape.nullable:
            return Override(key, (_bool_flag(key, want),), depth)
        data = to_data(want, reveal=True)
        if isinstance(data, str):
            text = _untyped_text(data, key) if shape.kind is Kind.ANY else escape(data)
        elif isinstance(data, (dict, list)):
            text = _json(data, key)
        else:
            text = scalar_text(data)
        return self._flag(key, depth, text)

    def _flag(self, key: str, depth: int, text: str) -> Override:
        if text.startswith("@"):
            raise OutputError(
                "cannot be written as a flag: a value starting with @ is read as a file",
                key=f"--{key}",
                value=text,
                hint="set it in a file",
            )
        return Override(key, (f"--{key}={text}",), depth)


def _compact(value: Any) -> Any:
    """A list element as plain data, a section without the fields that equal their class
    default (a tag is kept: it says which variant the section is; and a default holding `${`,
    which composing the element again resolves, where the value is that text itself)."""
    if not isinstance(value, BaseModel):
        return to_data(value, references=True)
    table = {}
    for name, field in plan_of(type(value)).fields.items():
        item = getattr(value, name)
        tag = field.shape.literal and len(field.shape.members) == 1
        if tag or field.info.is_required() or not _same(item, field.default):
            table[name] = _compact(item)
        elif holds_interpolation(field.default):
            table[name] = to_data(item, references=True)
    return table


def _same(want: Any, have: Any) -> bool:
    """Equal as configs compare (`==`: None is not the text "None", and the secret read from
    `${oc.env:NAME}` equals the same value written out); a secret equal to the mask the argv
    wrote for it, and NaN to NaN, at any depth of a list, dict or section."""
    if want == have:
        return True
    if isinstance(want, float) and isinstance(have, float):
        return math.isnan(want) and math.isnan(have)
    if isinstance(want, _SECRETS):
        masked = isinstance(have, _SECRETS) and _secret_text(have) == SECRET_MASK
        return masked and not isinstance(want, FromEnvironment)
    if isinstance(want, BaseModel):
        fields = type(want).model_fields
        return (
            type(have) is type(want)
            and want.__pydantic_extra__ == have.__pydantic_extra__
            and all(_same(getattr(want, name), getattr(have, name)) for name in fields)
        )
    if isinstance(want, dict):
        return (
            isinstance(have, dict)
            and want.keys() == have.keys()
            and all(_same(item, have[name]) for name, item in want.items())
        )
    if isinstance(want, (list, tuple)):
        return (
            isinstance(have, (list, tuple))
            and len(want) == len(have)
            and all(_same(item, held) for item, held in zip(want, have, strict=True))
        )
    return False


def _secret_text(secret: SecretStr | SecretBytes) -> str:
    value = secret.get_secret_value()
    return value.decode("utf-8", "replace") if isinstance(value, bytes) else value


def _join(key: str, segment: str) -> str:
    return f"{key}.{segment}" if key else segment


def _bool_flag(key: str, value: bool) -> str:
    """`--dry-run`, `--trainer.wandb.no-offline`: the spellings a user types."""
    if value:
        return f"--{key}"
    parent, _, name = key.rpartition(".")
    return f"--{_join(parent, NEGATIONS[0] + name)}"


def _untyped_text(data: Any, key: str) -> str:
    """A value for a key no type converts: read as TOML where it parses as TOML, as JSON where
    it starts with `{`, else as text (`compose._schema.coerce.untyped`)."""
    if isinstance(data, dict):
        return _json(data, key)
    if isinstance(data, str):
        if data.startswith(("{", "@")) or parse_toml_value(data) is not None:
            return inline_value(data)  # `"3"`: the text, not the number (nor a file)
        return escape(data)
    return inline_value(data)


def _json(data: Any, key: str) -> str:
    """A list or dict as JSON, text escaped as a file's is (elements are resolved)."""
    try:
        text = json.dumps(escaped(data), ensure_ascii=False, default=_json_default)
    except ValueError as error:  # an integer past Python's 4,300-digit conversion limit
        raise OutputError(
            f"cannot be written as a flag: {integer_too_long(error)}", key=f"--{key}", value=data
        ) from None
    return text


def escaped(data: Any) -> Any:
    """Plain data whose text resolves to itself: `${` and `???` escaped in every string (as a
    file writes them), a secret's `${oc.env:NAME}` reference left to be read where it runs."""
    if isinstance(data, Verbatim):  # a secret's `${oc.env:NAME}`: read where it runs
        return str(data)
    if isinstance(data, str):
        return escape(data)
    if isinstance(data, dict):
        return {name: escaped(value) for name, value in data.items()}
    if isinstance(data, list):
        return [escaped(value) for value in data]
    return data


def _json_default(value: Any) -> str:
    """Dates and times as ISO text, which Pydantic reads back."""
    isoformat = getattr(value, "isoformat", None)
    return str(isoformat()) if callable(isoformat) else str(value)
