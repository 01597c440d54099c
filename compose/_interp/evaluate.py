"""The evaluation of interpolations: the syntax trees of `compose._interp.grammar` resolved
against a plain tree, with no node objects and no parent pointers.

A value is known by its path, and relative references are path arithmetic. Each evaluation is
a generator that yields the `(path, raw value)` it needs and is sent back the resolved value;
one loop with an explicit stack drives them (`Resolution.resolve`), memoises each path, and
finds cycles from the stack of active paths. Chains of any length therefore need no Python
recursion. Most values are `${a.b}` or text around such references: `compose._interp.quick`
resolves those by walking the tree directly, and hands anything it cannot settle to the
evaluation here.
"""

from __future__ import annotations

import datetime
from collections.abc import Callable, Generator, Iterable, Mapping
from typing import Any

from compose._interp.clock import STRFTIME_WIDEST
from compose._interp.data import (
    CONTAINERS,
    MANDATORY,
    all_paths,
    copy_size,
    deep_copy,
    is_missing_spelling,
    kind,
    needs_resolution,
)
from compose._interp.grammar import (
    Call,
    Concat,
    Const,
    Element,
    GrammarError,
    Key,
    ListArg,
    Ref,
    parse,
    split_key,
    syntax_message,
)
from compose._interp.quick import SLOW, join, lone_reference, plan_of, walk
from compose._interp.resolvers import (
    BUILTINS,
    NOW,
    REGISTRY,
    Resolver,
    ResolverRefusal,
    oc_select,
    omegaconf_names,
    omegaconf_resolver,
    pinned_now,
)
from compose._shortcuts import SHORTCUTS
from compose._syntax import INTERPOLATION, SECRET_MASK, dotted
from compose._tree import KeyPath
from compose.errors import ComposeError, InterpolationError, closest, gather

# What one `resolve_tree` call may build, in characters of strings made by concatenation plus
# elements of tables and lists copied: past it, `a: ${b}${b}`, `b: ${c}${c}`, ... is an error
# instead of a hang.
MAX_EXPANSION = 10_000_000


# A generator that yields the (path, raw value) it needs and is sent back its resolved value.
_Eval = Generator[tuple[KeyPath, Any], Any, Any]


class _Site:
    """The value being resolved: where errors point (its key, origin, original text)."""

    def __init__(self, path: KeyPath, raw: str) -> None:
        self.path = path
        self.raw = raw


class _Cycle(Exception):
    """Thrown into the evaluation that asked for a path already being resolved."""

    def __init__(self, chain: str) -> None:
        super().__init__(chain)
        self.chain = chain


class _Absent:
    """What a lenient lookup (`oc.select`) finds where there is no value."""


_ABSENT = _Absent()


class Resolution:
    """State of one `resolve_tree` call: the memo of resolved paths and the active stack."""

    def __init__(
        self,
        tree: dict[str, Any],
        resolvers: Mapping[str, Resolver],
        default_at: Callable[[KeyPath], Any] | None,
        describe: Callable[[KeyPath], tuple[str, str | None]],
        suggest: Callable[[str], str | None] | None,
        now: datetime.datetime | None = None,
        environ: Mapping[str, str] | None = None,
        hidden: Callable[[KeyPath], bool] | None = None,
        copies_secret: Callable[[KeyPath, KeyPath], str | None] | None = None,
    ) -> None:
        self.tree = tree
        self.resolvers = resolvers
        self.default_at = default_at
        self.describe = describe
        self.hidden = hidden
        self.copies_secret = copies_secret
        # The shortcuts read a reference's value without the path it names, which a check of
        # where a secret goes needs: with one, every reference takes the general way.
        self.quick = SHORTCUTS and copies_secret is None
        self.suggest = suggest
        self.memo: dict[KeyPath, Any] = {}
        self.failed: dict[KeyPath, ComposeError] = {}
        self.active: dict[KeyPath, None] = {}  # insertion-ordered: the chain of a cycle
        self.budget = MAX_EXPANSION
        # Sizes of containers by id; the container is kept so that its id stays its own.
        self.sizes: dict[int, tuple[Any, int]] = {}
        # `${now:}` is one instant per resolution: every use in one composition, in any format,
        # is the same (hydra #2070: ranks composing apart disagree on the time).
        self.now = pinned_now(now, environ)

    # -- the driver

    def settle_all(self, pending: list[tuple[KeyPath, str]]) -> list[Any]:
        """The final values of the tree's leaves at `pending`, in order; every error at once."""
        values: list[Any] = []
        errors: list[ComposeError] = []
        for path, raw in pending:
            value = self._quick(path, raw) if self.quick else SLOW
            if value is SLOW:
                try:
                    value = self._settle(path, raw)
                except ComposeError as exc:
                    errors.append(exc)
                    if self.budget < 0:
                        break  # everything after an explosion would fail the same way
                    continue
            values.append(value)
        if errors:
            raise gather(_unique(errors))
        return values

    def _settle(self, path: KeyPath, raw: str) -> Any:
        """The final value of the tree's leaf at `path`: resolved, and copied if a container."""
        site = _Site(path, raw)
        if raw == MANDATORY:
            raise self._error(site, "missing mandatory value")
        return self._copy(site, raw, self.resolve(path, raw))

    def _quick(self, path: KeyPath, raw: str) -> Any:
        """The fast path's value of a leaf (memoised like any other), else SLOW."""
        lone = lone_reference(raw)
        if lone is not None:
            value = walk(self.tree, self.memo, path, lone[0], lone[1])
            if value is SLOW or isinstance(value, CONTAINERS):
                return SLOW  # a container is copied: `_settle` does that, from the memo
        elif path in self.memo:  # made (and counted) ahead, for a value that needed it
            value = self.memo[path]
            return SLOW if isinstance(value, CONTAINERS) else value  # `_settle` copies those
        else:
            plan = plan_of(raw)
            value = SLOW if plan is None else join(self.tree, self.memo, path, plan)
            if value is SLOW or len(value) > self.budget:
                return SLOW  # the general evaluation spends the budget and reports it spent
            self.budget -= len(value)
        self.memo[path] = value
        return value

    def resolve(self, path: KeyPath, raw: Any) -> Any:
        """The resolved value at `path`, driving evaluations with an explicit stack."""
        if path in self.memo:
            return self.memo[path]
        if path in self.failed:
            raise self.failed[path]
        stack = [self._start(path, raw)]
        reply: Any = None
        error: BaseException | None = None
        while stack:
            try:
                request = stack[-1][1].throw(error) if error else stack[-1][1].send(reply)
            except StopIteration as done:
                reply, error = self._finish(stack, done.value), None
                continue
            except ComposeError as exc:
                reply, error = None, self._fail(stack, exc)
                continue
            reply, error = self._answer(stack, *request)
        if error is not None:
            raise error
        return reply

    def _answer(
        self, stack: list[tuple[KeyPath, _Eval]], path: KeyPath, raw: Any
    ) -> tuple[Any, Any]:
        if path in self.memo:
            return self.memo[path], None
        if path in self.failed:
            return None, self.failed[path]
        if path in self.active:
            return None, _Cycle(self._chain(path))
        stack.append(self._start(path, raw))
        return None, None

    def _start(self, path: KeyPath, raw: Any) -> tuple[KeyPath, _Eval]:
        self.active[path] = None
        return path, self._evaluate(path, raw)

    def _finish(self, stack: list[tuple[KeyPath, _Eval]], value: Any) -> Any:
        path = stack.pop()[0]
        del self.active[path]
        self.memo[path] = value
        return value

    def _fail(self, stack: list[tuple[KeyPath, _Eval]], error: ComposeError) -> ComposeError:
        path = stack.pop()[0]
        del self.active[path]
        self.failed[path] = error
        return error

    def _chain(self, path: KeyPath) -> str:
        active = list(self.active)
        chain = [*active[active.index(path) :], path]
        return " -> ".join(dotted(step) for step in chain)

    def _need(self, site: _Site, text: str, path: KeyPath, raw: Any) -> _Eval:
        """Every request goes through here, so that a cycle is reported where it closes."""
        try:
            return (yield (path, raw))
        except _Cycle as cycle:
            raise self._error(site, f"interpolation {text}: cycle {cycle.chain}") from None

    # -- values

    def _evaluate(self, path: KeyPath, raw: Any) -> _Eval:
        if isinstance(raw, str):
            return (yield from self._evaluate_string(_Site(path, raw)))
        if isinstance(raw, CONTAINERS):
            return (yield from self._evaluate_container(path, raw))
        return raw

    def _evaluate_string(self, site: _Site) -> _Eval:
        raw = site.raw
        if is_missing_spelling(raw) and raw != MANDATORY:
            return raw[1:]  # `\???` is a literal `???`, `\\???` a literal `\???`
        if INTERPOLATION not in raw:
            return raw
        try:
            element = parse(raw)
        except GrammarError as exc:
            raise self._error(site, syntax_message(exc)) from None
        value = yield from self._element(site, element)
        if isinstance(element, Concat) and value == MANDATORY:
            raise self._error(site, "value resolved to ???, the missing-value marker")
        return value

    def _evaluate_container(self, path: KeyPath, raw: dict[str, Any] | list[Any]) -> _Eval:
        """A table or list with its interpolations resolved (a new container)."""
        items: Iterable[tuple[Any, Any]] = raw.items() if isinstance(raw, dict) else enumerate(raw)
        resolved: dict[Any, Any] = {}
        for key, child in items:
            resolved[key] = yield from self._child((*path, key), child)
        return resolved if isinstance(raw, dict) else list(resolved.values())

    def _child(self, path: KeyPath, child: Any) -> _Eval:
        if isinstance(child, CONTAINERS):
            return (yield from self._evaluate_container(path, child))
        if not isinstance(child, str) or not needs_resolution(child):
            return child
        if child == MANDATORY:
            # a table copied whole (`opt: ${optimizer}`) copies its `???` too, as omegaconf
            # does: only reading that key is an error (its own leaf is checked where it is)
            return child
        return (yield from self._need(_Site(path, child), child, path, child))

    def _element(self, site: _Site, element: Element) -> _Eval:
        if isinstance(element, Const):
            return element.value
        if isinstance(element, Ref):
            return (yield from self._reference(site, element))
        if isinstance(element, Call):
            return (yield from self._call(site, element))
        if isinstance(element, Concat):
            return (yield from self._concat(site, element))
        if isinstance(element, ListArg):
            items: list[Any] = []
            for item in element.items:
                items.append((yield from self._element(site, item)))
            return items
        table: dict[Any, Any] = {}
        for key, item in element.items:
            table[key] = yield from self._element(site, item)
        return table

    def _concat(self, site: _Site, concat: Concat) -> _Eval:
        pieces: list[str] = []
        for part in concat.parts:
            if isinstance(part, str):
                pieces.append(part)
            else:
                value = yield from self._element(site, part)
                pieces.append(self._text(site, part.text, value))
        joined = "".join(pieces)
        self._spend(site, len(joined))
        return joined

    def _text(self, site: _Site, text: str, value: Any) -> str:
        """`str(value)` as an embedded interpolation shows it, within the budget."""
        if not isinstance(value, CONTAINERS):
            return str(value)
        if copy_size(value, self.sizes) > self.budget:
            raise self._error(site, self._overflow(text))
        try:
            return str(value)
        except RecursionError:
            raise self._error(site, f"interpolation {text}: too deeply nested to embed") from None

    # -- references

    def _reference(self, site: _Site, ref: Ref) -> _Eval:
        if self.quick and ref.plain is not None:
            value = walk(self.tree, self.memo, site.path, ref.dots, ref.plain)
            if value is not SLOW:
                return value
        dots = ref.dots
        keys: list[str] = []
        for key in ref.keys:
            if isinstance(key.part, str):
                keys.append(key.part)
                continue
            first = not keys and not dots
            extra, split = yield from self._computed_key(site, ref.text, key, first=first)
            dots += extra
            keys.extend(split)
        path = self._absolute(site, ref.text, dots, keys)
        return (yield from self._lookup(site, ref.text, path))

    def _computed_key(self, site: _Site, text: str, key: Key, *, first: bool) -> _Eval:
        """`${a.${k}}`: the value of `k` as keys (it may hold dots; first, it may be relative)."""
        assert not isinstance(key.part, str)
        value = yield from self._element(site, key.part)
        if type(value) is int:
            value = str(value)
        if not isinstance(value, str):
            message = f"a key must be a string or an int, but {key.part.text} is {kind(value)}"
            raise self._error(site, f"interpolation {text}: {message}")
        if key.bracketed:
            return 0, [value]
        dots, keys = split_key(value)
        return (dots, keys) if first else (0, [""] * dots + keys)

    def _absolute(self, site: _Site, text: str, dots: int, keys: list[str]) -> KeyPath:
        """Relative paths start at the container holding the value; each extra dot climbs one."""
        if not dots:
            return tuple(keys)
        base = site.path[:-1]
        if dots - 1 > len(base):
            raise self._error(site, f"interpolation {text}: climbs above the top of the config")
        return base[: len(base) - (dots - 1)] + tuple(keys)

    def _lookup(self, site: _Site, text: str, path: KeyPath, *, lenient: bool = False) -> _Eval:
        """The resolved value at `path`. Lenient (`oc.select`): `_ABSENT` where nothing is."""
        if self.copies_secret is not None:
            self._refuse_secret_copy(site, text, path)
        node: Any = self.tree
        walked: list[str | int] = []
        derived = False  # past an interpolation: the rest is resolved data, not the tree
        for key in path:
            if not derived and isinstance(node, str) and needs_resolution(node):
                if node == MANDATORY:
                    return self._absent(site, text, "missing", walked, lenient)
                node = yield from self._need(site, text, tuple(walked), node)
                derived = True
            if isinstance(node, dict) and key in node:
                node = node[key]
                walked.append(key)
            elif isinstance(node, dict):
                if derived:
                    return self._absent(site, text, "not found", path, lenient)
                rest = (*walked, *path[len(walked) :])
                return (yield from self._fallback(site, text, rest, lenient))
            elif isinstance(node, list):
                index = self._index(site, text, node, key, walked, lenient)
                if index is None:
                    return _ABSENT
                node = node[index]
                walked.append(index)
            else:
                return self._absent(site, text, "scalar", walked, lenient, node)
        if derived:
            return node
        return (yield from self._settled(site, text, tuple(walked), node, lenient))

    def _refuse_secret_copy(self, site: _Site, text: str, path: KeyPath) -> None:
        """A secret read into a value the schema does not take as one is refused: it would be
        shown and recorded in clear (`compose._schema.secrets.SecretCopies`)."""
        assert self.copies_secret is not None
        secret = self.copies_secret(site.path, path)
        if secret is not None:
            key = dotted(site.path)
            message = (
                f"interpolation {text}: copies the secret {secret} into {key}, which is not a "
                "secret field: its value would be shown and recorded in clear"
            )
            hint = f"make {key} a SecretStr (the app reads it with .get_secret_value())"
            raise self._error(site, message, hint)

    def _index(
        self,
        site: _Site,
        text: str,
        node: list[Any],
        key: str | int,
        walked: list[str | int],
        lenient: bool,
    ) -> int | None:
        try:
            index = int(key)
        except ValueError:
            # Even `oc.select` fails here, as in OmegaConf.
            message = f"{dotted(walked)} is a list and {key} is not an index"
            raise self._error(site, f"interpolation {text}: {message}") from None
        if -len(node) <= index < len(node):  # negative indices count from the end (2.4)
            return index % len(node)
        if lenient:
            return None
        message = f"index {key} is out of range for {dotted(walked)} (length {len(node)})"
        raise self._error(site, f"interpolation {text}: {message}")

    def _fallback(self, site: _Site, text: str, path: KeyPath, lenient: bool) -> _Eval:
        """A path the tree does not hold: ask `default_at` (the schema's class defaults)."""
        if self.default_at is None:
            return self._absent(site, text, "not found", path, lenient)
        try:
            raw = self.default_at(path)
        except KeyError:
            return self._absent(site, text, "not found", path, lenient)
        return (yield from self._settled(site, text, path, raw, lenient))

    def _settled(self, site: _Site, text: str, path: KeyPath, raw: Any, lenient: bool) -> _Eval:
        """A raw value found at `path`, resolved (through the memo) when it needs to be."""
        if isinstance(raw, str):
            if raw == MANDATORY:
                return self._absent(site, text, "missing", path, lenient)
            if not needs_resolution(raw):
                return raw
        elif not isinstance(raw, CONTAINERS):
            return raw
        return (yield from self._need(site, text, path, raw))

    def _absent(
        self,
        site: _Site,
        text: str,
        why: str,
        path: KeyPath | list[str | int],
        lenient: bool,
        value: Any = None,
    ) -> _Absent:
        if lenient:
            return _ABSENT
        shown = dotted(path)
        if why == "missing":
            raise self._error(site, f"interpolation {text}: {shown} is a missing mandatory value")
        if why == "scalar":
            message = f"{shown} is {kind(value)}, not a table or list"
            raise self._error(site, f"interpolation {text}: {message}")
        hint = self._did_you_mean(shown)
        if hint is None and text == f"{INTERPOLATION}{shown}}}" and _looks_like_a_variable(shown):
            # `${SLURM_JOB_ID}` in a shell command is meant for the shell
            hint = f"to keep it as text write \\{text}; for the variable, ${{oc.env:{shown}}}"
        raise self._error(site, f"interpolation {text}: key {shown} not found", hint)

    def _did_you_mean(self, shown: str) -> str | None:
        """A close key of the tree, else `suggest`'s (the schema's keys are not in the tree)."""
        close = closest(shown, all_paths(self.tree), cutoff=0.6)
        if close is not None:
            return f"did you mean {close}?"
        suggestion = self.suggest(shown) if self.suggest is not None else None
        return f"did you mean {suggestion}?" if suggestion and suggestion != shown else None

    # -- resolvers

    def _call(self, site: _Site, call: Call) -> _Eval:
        name = yield from self._resolver_name(site, call)
        args: list[Any] = []
        for element in call.args:
            args.append((yield from self._element(site, element)))
        fn = self._find(name)
        if fn is None:
            hint = "known resolvers: " + ", ".join(self._known())
            raise self._error(site, f"interpolation {call.text}: unknown resolver {name}", hint)
        if fn is oc_select:
            return (yield from self._select(site, call, args))
        result = self._invoke(site, call, name, fn, args)
        if isinstance(result, str) and result == MANDATORY:
            message = f"resolver {name} returned ???, the missing-value marker"
            raise self._error(site, f"interpolation {call.text}: {message}")
        return result

    def _resolver_name(self, site: _Site, call: Call) -> _Eval:
        parts: list[str] = []
        for part in call.name:
            value = part if isinstance(part, str) else (yield from self._element(site, part))
            if not isinstance(value, str):
                message = f"a resolver name must be a string, not {kind(value)}"
                raise self._error(site, f"interpolation {call.text}: {message}")
            parts.append(value)
        return ".".join(parts)

    def _invoke(self, site: _Site, call: Call, name: str, fn: Resolver, args: list[Any]) -> Any:
        if fn is self.now and args and isinstance(args[0], str):
            self._bound_format(site, args[0])
        try:
            result = fn(*self._copy(site, call.text, args))
        except ComposeError:
            raise
        except ResolverRefusal as refusal:
            message = f"interpolation {call.text}: {refusal.message}"
            raise self._error(site, message, refusal.hint) from None
        except Exception as exc:
            failure = f"resolver {name} failed: {type(exc).__name__}: {exc}"
            raise self._error(site, f"interpolation {call.text}: {failure}") from exc
        if isinstance(result, str):  # a resolver's text is built too: it counts
            self._spend(site, len(result))
        return result

    def _bound_format(self, site: _Site, fmt: str) -> None:
        """`${now:FORMAT}` refused before it is formatted when what it may give (`FORMAT`'s
        length times `STRFTIME_WIDEST`) would pass what the resolution may still build."""
        widest = len(fmt) * STRFTIME_WIDEST
        if widest > self.budget:
            self.budget = -1  # spent, as `_overflow` leaves it
            message = (
                f"interpolation {INTERPOLATION}{NOW}:...}}: a format of {len(fmt):,} characters "
                f"may give {widest:,}, past the {MAX_EXPANSION:,} a resolution may build"
            )
            raise self._error(site, message)

    def _select(self, site: _Site, call: Call, args: list[Any]) -> _Eval:
        """`${oc.select:key,default}`: the value at key (relative keys allowed), else default."""
        if len(args) not in (1, 2):
            message = f"interpolation {call.text}: oc.select takes a key and an optional default"
            raise self._error(site, message)
        default = args[1] if len(args) == 2 else None
        dots, keys = split_key(str(args[0]))
        if dots > len(site.path):  # climbs above the top: nothing there
            return default
        path = self._absolute(site, call.text, dots, keys)
        value = yield from self._lookup(site, call.text, path, lenient=True)
        return default if value is _ABSENT else value

    def _find(self, name: str) -> Resolver | None:
        for registry in (self.resolvers, REGISTRY, BUILTINS):
            if name in registry:
                return registry[name]
        if name == NOW:
            return self.now
        return omegaconf_resolver(name)

    def _known(self) -> list[str]:
        return sorted({*self.resolvers, *REGISTRY, *BUILTINS, NOW, *omegaconf_names()})

    # -- budget and errors

    def _copy(self, site: _Site, text: str, value: Any) -> Any:
        """An independent deep copy (values by reference must not share containers)."""
        if not isinstance(value, CONTAINERS):
            return value
        size = copy_size(value, self.sizes)
        if size > self.budget:
            raise self._error(site, self._overflow(text))
        self.budget -= size
        return deep_copy(value)

    def _spend(self, site: _Site, size: int) -> None:
        self.budget -= size
        if self.budget < 0:
            raise self._error(site, self._overflow(site.raw))

    def _overflow(self, text: str) -> str:
        self.budget = -1  # spent: what follows fails at once instead of copying again
        return f"interpolation {text}: results grow past {MAX_EXPANSION:,} characters or elements"

    def _error(self, site: _Site, message: str, hint: str | None = None) -> InterpolationError:
        key, origin = self.describe(site.path)
        if self.hidden is not None and self.hidden(site.path):  # a secret's text is never shown
            message = message.replace(site.raw, SECRET_MASK)
            return InterpolationError(message, key=key, value=SECRET_MASK, origin=origin, hint=hint)
        return InterpolationError(message, key=key, value=site.raw, origin=origin, hint=hint)


def _unique(errors: list[ComposeError]) -> list[ComposeError]:
    """One error per cause: a value that fails because what it references fails repeats it."""
    seen: set[tuple[str | None, str]] = set()
    unique: list[ComposeError] = []
    for error in errors:
        mark = (error.key, error.message)
        if mark not in seen:
            seen.add(mark)
            unique.append(error)
    return unique


def _looks_like_a_variable(name: str) -> bool:
    """`HOME`, `SLURM_JOB_ID`: an environment variable's name, never a config key's."""
    return name.isupper() and name.replace("_", "").isalnum()
