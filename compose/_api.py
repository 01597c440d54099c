"""The programmatic surface: `compose()` for files plus overrides, `parse()` for argv.

Both run one pipeline: items -> composition graph -> interpolation -> binding.
"""

from __future__ import annotations

import datetime
import functools
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, TypeAlias, TypeVar, overload

from pydantic import BaseModel

from compose._bind.validate import bind, plain_nones, unknown_keys
from compose._input.argv import (
    DataItem,
    EnvItem,
    FileItem,
    HelpItem,
    Item,
    ValueItem,
    item_spans,
    parse_overrides,
    program_name,
    split_argv,
)
from compose._input.env import with_environment
from compose._input.files import FileCache
from compose._input.options import NO_OPTIONS, Options, Resolvers, options
from compose._input.search import Dirs
from compose._merge.composed import Composed
from compose._merge.defaults import (
    default_at,
    inject_interpolated_defaults,
    may_have_interpolated_defaults,
    set_fields,
)
from compose._merge.fold import compose_items, root_shape
from compose._schema.coerce import may_spell_none
from compose._schema.keys import suggest
from compose._schema.secrets import masks_secret, secret_fields
from compose._schema.shape import Shape
from compose._shortcuts import SHORTCUTS
from compose._syntax import SECRET_MASK, kebab_case, snake_case
from compose._tree import KeyPath, at_path, leaf_paths
from compose._warn import held
from compose.errors import ArgvError, ComposeError, ConfigValidationError, HelpRequested, gather

M = TypeVar("M", bound=BaseModel)
Source = str | os.PathLike[str]
Now: TypeAlias = "datetime.datetime | str | None"


@overload
def compose(
    sources: Sequence[Source] | Source,
    overrides: Sequence[str] = (),
    *,
    schema: type[M],
    resolvers: Resolvers = None,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    now: Now = None,
    frozen: bool = False,
) -> M: ...
@overload
def compose(
    sources: Sequence[Source] | Source,
    overrides: Sequence[str] = (),
    *,
    schema: None = None,
    resolvers: Resolvers = None,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    now: Now = None,
    frozen: bool = False,
) -> dict[str, Any]: ...
def compose(
    sources: Sequence[Source] | Source,
    overrides: Sequence[str] = (),
    *,
    schema: type[M] | None = None,
    resolvers: Resolvers = None,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    now: Now = None,
    frozen: bool = False,
) -> M | dict[str, Any]:
    """Merge TOML `sources` left to right, then `overrides` (`key=value`, `key+=value` to append
    to a list, `key=@file`, `~key`).

    With `schema`, the validated instance; without, the resolved plain dict. Raises
    `ComposeError` for bad input.

    The options are those of `parse` and `cli`, and mean the same there: `resolvers` add
    interpolation resolvers for this call only, before the registered ones. A file name not
    found as written is looked up in `search_path`, the working directory, then $COMPOSE_PATH.
    With `env_prefix` (`"RL_"`), the variables of `environ` (default `os.environ`) named with
    it are a node below the files and the flags or overrides (`RL_SECTION__FIELD=VALUE`).
    `now` (a datetime, or ISO 8601 text) is the instant `${now:FORMAT}` gives; without it,
    $COMPOSE_NOW of `environ`, else the clock when the first `${now:}` is resolved.
    `frozen=True` (or a schema whose `model_config` says `frozen=True`) gives a frozen result:
    assigning, deleting or mutating any part of it raises `FrozenError` (docs/06).
    """
    if not isinstance(sources, (list, tuple)) and isinstance(sources, (str, os.PathLike)):
        sources = [sources]  # (`isinstance` of an ABC costs several times what a list's does)
    _check_overrides(overrides)
    knobs = options(
        resolvers=resolvers,
        search_path=search_path,
        env_prefix=env_prefix,
        environ=environ,
        now=now,
        frozen=frozen,
    )
    return compose_with(list(map(os.fspath, sources)), overrides, schema, knobs)


def _check_overrides(overrides: Sequence[str]) -> None:
    if isinstance(overrides, str):  # one string would be one override per character
        raise ArgvError(
            "overrides is a list of strings, one override each",
            value=overrides,
            origin="overrides",
            hint=f"write overrides=[{overrides!r}]",
        )


def compose_with(
    sources: Sequence[str], overrides: Sequence[str], schema: type[M] | None, knobs: Options
) -> M | dict[str, Any]:
    """`compose`, its keywords as one `Options` value."""
    items: list[Item] = [FileItem(path, "", path) for path in sources]
    if overrides:
        items += parse_overrides(list(overrides))
    flagged = bool(overrides) or knobs.env_prefix is not None  # values besides the files
    if knobs.env_prefix is not None:
        items = with_environment(items, knobs.env_prefix, knobs.environ)
    composed = compose_items(items, schema, knobs.search_path)
    if schema is not None:
        resolve(composed, knobs)
        return finished(bind(composed, schema), knobs.frozen)
    result = _plain_result(composed, items, flagged, knobs)
    return _frozen(result) if knobs.frozen else result


def _plain_result(
    composed: Composed, items: list[Item], flagged: bool, knobs: Options
) -> dict[str, Any]:
    """A schema-less composition resolved, its "None" text None: the dict `compose` gives.
    Resolution itself turns "None" into None in the values it writes, so the whole-tree walk is
    needed only where files or flags (when `flagged`: values besides the files) may hold it."""
    if composed.may_interpolate:  # what `resolve` asks first, without a schema's defaults
        resolve(composed, knobs, convert=plain_nones)
    if composed.pending:
        raise gather(composed.pending)
    if SHORTCUTS and not (composed.may_hold_none or (flagged and flags_may_hold_none(items))):
        return composed.tree  # no "None" text anywhere: nothing to convert
    result: dict[str, Any] = plain_nones(composed.tree)
    return result


def parse(
    schema: type[M],
    argv: Sequence[str],
    *,
    prog: str | None = None,
    resolvers: Resolvers = None,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    default: BaseModel | None = None,
    now: Now = None,
    frozen: bool = False,
) -> M:
    """argv tokens (without the program name) -> a validated `schema` instance.

    Never prints, never exits. Raises `ComposeError` for bad input, and `HelpRequested` for
    `--help`: a `ComposeError` too, whose `exit_code` is 0 and whose `str()` is the help, so
    catch it first: `except HelpRequested as h: print(h); sys.exit(h.exit_code)`, then
    `except ComposeError as e: print(e, file=sys.stderr); sys.exit(e.exit_code)`.

    The options are those of `compose` and `cli`, and mean the same there: `prog` names the
    program in the help's usage line (default: the file name of `sys.argv[0]`). `resolvers` add
    interpolation resolvers for this call only, before the registered ones. A file name not
    found as written is looked up in `search_path`, the working directory, then $COMPOSE_PATH.
    With `env_prefix` (`"RL_"`), the variables of `environ` (default `os.environ`) named with
    it are a node below the files and the flags or overrides (`RL_SECTION__FIELD=VALUE`).
    `default`, an instance, is a node below all others: the fields its author set
    (pydantic-config's `cli(default=)`). `now` (a datetime, or ISO 8601 text) is the instant
    `${now:FORMAT}` gives; without it, $COMPOSE_NOW of `environ`, else the clock when the first
    `${now:}` is resolved.
    `frozen=True` (or a schema whose `model_config` says `frozen=True`) gives a frozen result:
    changing any part of it raises `FrozenError`.
    """
    knobs = options(
        resolvers=resolvers,
        search_path=search_path,
        env_prefix=env_prefix,
        environ=environ,
        default=default,
        now=now,
        frozen=frozen,
    )
    return parse_with(schema, argv, knobs, prog=prog)


def parse_with(
    schema: type[M],
    argv: Sequence[str],
    knobs: Options,
    *,
    prog: str | None = None,
    files: FileCache | None = None,
) -> M:
    """`parse`, its keywords as one `Options` value. Reading files through `files`, kept by a
    caller that parses many command lines over the same files (a sweep's points), reads and
    parses each file once."""
    return _parse_items(schema, argv_items(argv, knobs), files, prog, knobs)


def argv_items(argv: Sequence[str], knobs: Options) -> list[Item]:
    """A command line's nodes, with those the options add below them: the app's `default=`
    instance, then the environment layer."""
    items = with_environment(split_argv(list(argv)), knobs.env_prefix, knobs.environ)
    if knobs.default is not None:
        items.insert(0, DataItem(set_fields(knobs.default), "default="))
    return items


def from_flat(
    schema: type[M],
    flat: Mapping[str, Any],
    base: Sequence[str] = (),
    *,
    resolvers: Resolvers = None,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    now: Now = None,
    frozen: bool = False,
) -> M:
    """`base` (argv tokens, as `parse` takes them: files and flags), then each
    `{dotted.key: value}` of `flat` as a flag: the validated `schema` instance.

    What a sweep agent or an HPO trial hands over: typed values (Optuna's `trial.params`), or
    the text of them (W&B's `str()`: `['a', 'b']`, `{'k': 1}`, `True`, `None`), each read as
    the flag `--KEY=VALUE` reads it. A dict given to a section (W&B's nested parameters) sets
    its fields. Keys are dotted keys as flags spell them (snake_case or kebab-case). Raises
    `ComposeError` for bad input, naming the key and `flat key KEY` as its origin: a key no
    field names (with a did-you-mean), a value its field rejects, a secret given back as its
    mask (`**********`, what `to_flat` logged), a value `to_flat` cut to a tracker's limit.
    The options are those of `parse`.
    """
    knobs = options(
        resolvers=resolvers,
        search_path=search_path,
        env_prefix=env_prefix,
        environ=environ,
        now=now,
        frozen=frozen,
    )
    root = root_shape(schema)
    items = with_environment(split_argv(list(base)), knobs.env_prefix, knobs.environ)
    items += [item for key, value in flat.items() for item in _flat_items(root, key, value)]
    return _parse_items(schema, items, None, None, knobs)


def _flat_items(root: Shape, key: object, value: Any) -> list[Item]:
    """The flags one key of a flat dict sets, named `flat key KEY` in errors."""
    from compose._output.flat import flags_of, is_cut, is_flat_key  # noqa: PLC0415  # not on parse's path

    if not isinstance(key, str) or not is_flat_key(key):
        raise ArgvError("a flat key is a dotted key (`trainer.optim.lr`)", value=key, origin="flat")
    origin = f"flat key {key}"
    if is_cut(key):
        raise ConfigValidationError(
            "was cut to fit a tracker's length limit: give the whole key",
            key="--" + key,
            origin=origin,
        )
    try:
        flags = list(flags_of(root, key, value))
    except (TypeError, ValueError) as error:  # a value no config holds (an object, say)
        raise ArgvError(str(error), key="--" + key, value=value, origin=origin) from None
    items: list[Item] = []
    for dotted_key, tokens in flags:
        flag = "--" + dotted_key
        if tokens and masks_secret(root, flag, tokens[0]):
            raise ConfigValidationError(
                "is a secret shown masked, not its value: leave it out, or set it from the "
                "environment (${oc.env:NAME})",
                key=flag,
                value=SECRET_MASK,
                origin=origin,
            )
        if tokens and is_cut(tokens[0]):
            raise ConfigValidationError(
                "was cut to fit a tracker's length limit: give the whole value",
                key=flag,
                value=tokens[0],
                origin=origin,
            )
        if tokens and tokens[0].startswith("@"):  # as `--KEY=@FILE`: a file at the section
            items.append(FileItem(tokens[0][1:], dotted_key, origin))
        else:
            items.append(ValueItem(dotted_key, tokens, origin))
    return items


def _parse_items(
    schema: type[M], items: list[Item], files: FileCache | None, prog: str | None, knobs: Options
) -> M:
    asked = [item for item in items if isinstance(item, HelpItem)]
    if asked:
        raise _help(schema, items, asked[-1].section, prog or program_name(), knobs)
    composed = compose_items(items, schema, knobs.search_path, files)
    resolve(composed, knobs)
    return finished(bind(composed, schema), knobs.frozen)


def finished(instance: M, frozen: bool) -> M:
    """The validated instance, frozen if the caller or the schema asks (sweep points too)."""
    if frozen or type(instance).model_config.get("frozen"):
        frozen_instance: M = _frozen(instance)
        return frozen_instance
    return instance


def _frozen(value: Any) -> Any:
    from compose._schema.frozen import freeze  # noqa: PLC0415  # only frozen results need it

    return freeze(value)


def to_argv(
    config: BaseModel | Mapping[str, Any],
    base: Sequence[str],
    *,
    schema: type[BaseModel] | None = None,
    minimal: bool = True,
    resolvers: Resolvers = None,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """The flags that, put after the command line `base`, give `config`: the overrides that
    differ, so that `parse(type(config), [*base, *to_argv(config, base)]) == config`.

    `config` is a validated model (its class is the schema `base` is composed with; `schema`,
    when given, must be that class) or, without a schema, a plain dict as `compose(files)`
    returns. `base` is composed as `parse` composes it, with the same options. With `minimal`
    (the default), flags that other flags make unneeded (a value a validator derives from a
    shared one) are left out. A secret's flag holds the mask `**********`, with a warning: the
    argv never carries a secret's value. Raises `ComposeError`: the base's own, or an
    `OutputError` naming a key whose value no flag can give.
    """
    from compose._output.argv import overrides_between  # noqa: PLC0415  # only this needs it

    schema = _schema_of(config, schema)
    knobs = options(
        resolvers=resolvers, search_path=search_path, env_prefix=env_prefix, environ=environ
    )
    files = FileCache()  # each file read once, for the many compositions below

    def composed(argv: list[str]) -> Any:
        with held():  # the base's warnings are not this call's, nor a trial's
            if schema is None:
                return parse_plain(argv, knobs, files)
            return parse_with(schema, argv, knobs, files=files)

    tokens = list(base)
    have = composed(tokens)
    root = root_shape(schema)
    want = dict(config) if isinstance(config, Mapping) else config
    return overrides_between(
        want,
        have,
        root,
        lambda flags: composed([*tokens, *flags]),
        minimal=minimal,
        open_ended=_open_ended(tokens),
    )


def _open_ended(argv: list[str]) -> bool:
    """Whether argv ends with a flag that takes the tokens after it (`--tags a b`)."""
    spans = item_spans(argv)
    if not spans or not isinstance(spans[-1][0], ValueItem):
        return False
    return "=" not in spans[-1][1][0]


def _schema_of(
    config: BaseModel | Mapping[str, Any], schema: type[BaseModel] | None
) -> type[BaseModel] | None:
    """The class `config` is of, which must be the `schema` given; None for a plain dict."""
    if isinstance(config, BaseModel):
        if schema is not None and type(config) is not schema:
            raise ArgvError(
                f"config is a {type(config).__name__}, but the base composes a {schema.__name__}",
                origin="to_argv",
                hint="pass a config of the schema the base command line is for",
            )
        return type(config)
    if not isinstance(config, Mapping):
        raise ArgvError(
            "config is a model instance or a plain dict",
            value=type(config).__name__,
            origin="to_argv",
        )
    if schema is not None:
        raise ArgvError(
            f"config is a plain dict, but the base composes a {schema.__name__}",
            origin="to_argv",
            hint="pass the validated model instead (a dict goes with no schema)",
        )
    return None


def parse_plain(
    argv: Sequence[str], knobs: Options = NO_OPTIONS, files: FileCache | None = None
) -> dict[str, Any]:
    """A command line composed without a schema, resolved: the dict `compose(files)` gives."""
    items = with_environment(split_argv(list(argv)), knobs.env_prefix, knobs.environ)
    composed = compose_items(items, None, knobs.search_path, files)
    return _plain_result(composed, items, True, knobs)


def flags_may_hold_none(items: list[Item]) -> bool:
    """Whether a flag's (or a variable's) text may give a "None" string (JSON and TOML values
    parse to text)."""
    return any(may_spell_none(token) for value in _values(items) for token in value.tokens)


def _values(items: list[Item]) -> Iterator[ValueItem]:
    """The flags, and the variables of the environment node."""
    for item in items:
        if isinstance(item, ValueItem):
            yield item
        elif isinstance(item, EnvItem):
            yield from item.values


def resolve(
    composed: Composed,
    knobs: Options = NO_OPTIONS,
    convert: Callable[[Any], Any] | None = None,
) -> None:
    """Resolve `${...}` and check `???` in place; free when no node and no default needs it.
    `convert` is applied to each value resolution writes; `knobs` give the resolvers, and
    `${now:}` its instant (`now`, else $COMPOSE_NOW of `environ`, else the clock)."""
    root = composed.root
    if root.model is not None and may_have_interpolated_defaults(root.model):
        inject_interpolated_defaults(composed.tree, root, composed.origins)
        composed.work_below = None  # defaults come in anywhere: injected, or filling lists
    if not composed.may_interpolate:
        return
    composed.env_secrets = _env_secrets(composed)
    try:
        _resolve_tree(composed, knobs, convert)
    except ComposeError as error:  # with the flags' errors, all at once
        raise gather([*composed.pending, *error.errors]) from None


def _resolve_tree(composed: Composed, knobs: Options, convert: Callable[[Any], Any] | None) -> None:
    from compose._interp.resolve import resolve_tree  # noqa: PLC0415  # see TYPE_CHECKING

    root = composed.root
    lookup = functools.partial(default_at, root, composed.tree) if root.model else None
    composed.tree = resolve_tree(
        composed.tree,
        resolvers=knobs.resolvers,
        default_at=lookup,
        describe=functools.partial(_describe, composed),
        suggest=functools.partial(_suggest_key, root) if root.model else None,
        convert=convert,
        below=composed.work_below,
        now=knobs.now,
        environ=knobs.environ,
        hidden=functools.partial(_is_secret, composed) if root.model else None,
        copies_secret=_secret_copies(composed),
    )


def _secret_copies(composed: Composed) -> Callable[[KeyPath, KeyPath], str | None] | None:
    """What refuses a secret copied into a field that is not secret; None for a schema that
    holds no secret (or none at all), whose references keep the shortcuts."""
    from compose._schema.secrets import SecretCopies, schema_holds_secrets  # noqa: PLC0415

    model = composed.root.model
    if model is None or not schema_holds_secrets(model):
        return None
    return SecretCopies(composed.root, composed.tree).copied


def _is_secret(composed: Composed, path: KeyPath) -> bool:
    from compose._schema.secrets import is_secret_path  # noqa: PLC0415  # errors only

    return is_secret_path(composed.root, composed.tree, path)


def _env_secrets(composed: Composed) -> dict[KeyPath, tuple[str, Any]]:
    """The secret fields that name an environment variable (`${oc.env:NAME}`), before it is
    resolved: written files give the reference, not the value."""
    from compose._schema.secrets import env_reference  # noqa: PLC0415  # only with interpolation

    found = {}
    for path, field in secret_fields(composed.root, composed.tree):
        value = at_path(composed.tree, path)
        if isinstance(value, str) and env_reference(value):
            found[path] = (value, field.info.annotation)
    return found


def _suggest_key(root: Shape, key: str) -> str | None:
    """A close key of the schema for a missing reference (`model.nme` -> `model.name`)."""
    found = suggest(root, "--" + kebab_case(key))
    return snake_case(found.removeprefix("--")) if found else None


def check_keys(composed: Composed) -> None:
    """Raise for keys the schema does not have, without binding (nothing resolved yet)."""
    errors = unknown_keys(composed) if composed.root.model is not None else []
    if composed.pending or errors:
        raise gather([*composed.pending, *errors])


def described_leaves(composed: Composed) -> dict[str, str]:
    """Where each leaf of a composition was set, by dotted key (`trainer.optim.lr` ->
    `rl.toml:30`, or the flag or override): a run record's origins. A leaf no node set (a
    class default) is left out."""
    found = {}
    for path in leaf_paths(composed.tree, ()):
        origin = composed.origins.describe(path)
        if origin:
            found[".".join(map(str, path))] = origin
    return found


def _describe(composed: Composed, path: KeyPath) -> tuple[str, str | None]:
    return composed.show_key(path), composed.origins.describe(path)


def _help(
    schema: type[M], items: list[Item], narrow: str, prog: str, knobs: Options
) -> HelpRequested:
    """Help; after `@ files` or flags, with the values they compose and who set each."""
    from compose._output.help import help_screen, plain_help  # noqa: PLC0415  # asked for help only

    nodes: list[Item] = [item for item in items if not isinstance(item, HelpItem)]
    composed, problem = None, ""
    try:
        composed = compose_items(nodes, schema, knobs.search_path) if nodes else None
        if composed is not None:
            check_keys(composed)
    except ComposeError as error:  # help still helps: bare defaults, and what went wrong
        composed, problem = None, error.format()
    screen = help_screen(
        schema, prog, narrow, composed, problem, knobs.search_path, knobs.env_prefix
    )
    return HelpRequested(plain_help(screen), screen)


# --- Hydra config trees ----------------------------------------------------------------------

HydraStore = Mapping[str, "Mapping[str, Any] | type[BaseModel]"]


@overload
def compose_hydra(
    config_dir: Source | None,
    config_name: str | None,
    overrides: Sequence[str] = (),
    *,
    schema: type[M],
    store: HydraStore | None = None,
    multirun: bool = False,
) -> Any: ...
@overload
def compose_hydra(
    config_dir: Source | None,
    config_name: str | None,
    overrides: Sequence[str] = (),
    *,
    schema: None = None,
    store: HydraStore | None = None,
    multirun: bool = False,
) -> Any: ...
def compose_hydra(
    config_dir: Source | None,
    config_name: str | None,
    overrides: Sequence[str] = (),
    *,
    schema: type[M] | None = None,
    store: HydraStore | None = None,
    multirun: bool = False,
) -> Any:
    """A Hydra 1.3 config tree composed as Hydra composes it: `config_name` (`.yaml` optional;
    None: an empty primary) found in `config_dir`, its defaults list expanded, Hydra's
    command-line `overrides` applied (`db=postgresql`, `+x=1`, `~y`, `trainer.lr=1e-3`).

    Gives a plain dict, interpolations resolved, or an instance of `schema`. `store` holds
    in-memory configs, as Hydra's ConfigStore: `"group/name"` (or `"name"`), optionally
    `"@package"`, -> a dict or a Pydantic model class (a typed node). `multirun=True` gives
    `[(job_overrides, config), ...]` in Hydra's job order (`a=1,2`, `range()`, `glob()`...).
    Bad input is one `ComposeError` (several gathered) naming FILE:LINE of the defaults entry
    and the chain of configs that led there, or the override as typed.
    """
    _check_overrides(overrides)
    if config_name is not None and not isinstance(config_name, str):
        raise ArgvError("config_name is a config's name, or None", value=config_name)
    if store is not None and not isinstance(store, Mapping):
        raise ArgvError('store maps "group/name" to a dict or a model class', value=store)
    directory = os.fspath(config_dir) if config_dir is not None else None
    call = HydraCall(directory, config_name, overrides, store=store)
    if not multirun:
        return call.config(schema)
    master = call.multirun()
    _hydra_compose(master.prepared, None)  # the config every job starts from must compose
    results: list[tuple[list[str], Any]] = []
    problems: list[ComposeError] = []
    for index, job in enumerate(master.jobs):
        try:
            results.append((job, master.job(job).config(schema, sources=master.prepared)))
        except ComposeError as error:
            point = f"job {index} ({' '.join(job)})"
            problems += [_point_error(point, e) for e in error.errors]
    if problems:
        raise gather(problems)
    return results


def _hydra_warnings(prepared: Any) -> None:
    from compose._warn import warn  # noqa: PLC0415  # Hydra trees only
    from compose.errors import ComposeWarning  # noqa: PLC0415  # Hydra trees only

    for text in (*prepared.warnings, *prepared.defaults.warnings):
        warn(text, ComposeWarning, stacklevel=3)


def _point_error(point: str, error: ComposeError) -> ComposeError:
    from compose.errors import PointError  # noqa: PLC0415  # an error path

    fields: dict[str, Any] = {"key": error.key, "origin": error.origin, "hint": error.hint}
    if error.has_value:
        fields["value"] = error.value
    return PointError(error.message, point=point, **fields)


def _hydra_prepare(
    directory: str | None,
    config_name: str | None,
    overrides: list[str],
    *,
    store: HydraStore | None,
    multirun: bool = False,
    sources: Any = None,
    config_dirs: Sequence[str] = (),
) -> Any:
    """Parse the overrides, find the sources (the search path; `sources`: a multirun master's,
    shared) and expand the defaults tree."""
    from compose._input.hydra.prepare import prepare  # noqa: PLC0415  # Hydra trees only

    return prepare(
        directory,
        config_name,
        overrides,
        store=store,
        multirun=multirun,
        sources=sources,
        config_dirs=config_dirs,
    )


def _hydra_compose(prepared: Any, schema: type[M] | None) -> Any:
    """The prepared tree's leaves folded, the value overrides applied, Hydra's node dropped,
    interpolations resolved; bound to `schema` when one is given."""
    from compose._merge.typed import leaf_items  # noqa: PLC0415  # Hydra trees only

    return _hydra_finish(hydra_composed(leaf_items(prepared), schema), schema)


def _hydra_finish(composed: Composed, schema: type[M] | None) -> Any:
    """A Hydra composition resolved, and bound to `schema` when one is given."""
    hydra_resolve(composed)
    if schema is None:
        return composed.tree
    try:
        return bind(composed, schema)
    except ComposeError as error:
        raise gather([_as_typed(each) for each in error.errors]) from None


def _as_typed(error: ComposeError) -> ComposeError:
    """A value an override gave, named as Hydra's errors name it: the key as Hydra's overrides
    write it and the override as typed (`trainer.epochs (from trainer.epochs=many)`), which
    holds the value. A masked value (a secret's) and a value a file set keep their form
    (`db.port = 'x' (from db.yaml:3)`)."""
    origin = error.origin
    if not (error.has_value and origin and error.key) or error.value == SECRET_MASK:
        return error
    key = error.key.removeprefix("--")  # an unknown key: the schema's key finder's flag form
    if origin.lstrip("+").partition("=")[0] != key:
        return error
    hint = error.hint  # a key the schema suggests, in Hydra's form too
    if hint is not None and hint.startswith("did you mean --"):
        hint = "did you mean " + hint.removeprefix("did you mean --")
    return type(error)(error.message, key=key, origin=origin, hint=hint)


def hydra_composed(
    items: list[Item], schema: type[BaseModel] | None, *, recording: bool = False
) -> Composed:
    """A prepared Hydra tree's items (`leaf_items`) folded, its value overrides applied and
    Hydra's own node dropped: nothing resolved (what `compose show --hydra` shows as written).
    `recording`: who set what is recorded while merging (`compose_items`), for a caller that
    asks it of every leaf."""
    from compose._syntax import HYDRA_NODE  # noqa: PLC0415  # Hydra trees only

    composed = compose_items(items, schema, recording=recording)
    composed.tree.pop(HYDRA_NODE, None)
    return composed


def hydra_resolve(composed: Composed) -> None:
    """Resolve a Hydra composition's interpolations in place, as Hydra reads them: only the
    values holding `${` (a `???` nobody reads stays)."""
    from compose._input.hydra.hydra_node import runtime  # noqa: PLC0415  # Hydra trees only
    from compose._interp.resolve import resolve_tree  # noqa: PLC0415  # see TYPE_CHECKING
    from compose._interp.resolvers import REGISTRY  # noqa: PLC0415  # see TYPE_CHECKING

    below = _interpolated(composed.tree)
    if below:
        # `${hydra:...}`: one clear refusal (not omegaconf's "HydraConfig was not set"),
        # unless the user registered a `hydra` resolver of their own
        own = {} if "hydra" in REGISTRY else {"hydra": runtime}
        composed.tree = resolve_tree(
            composed.tree,
            below=below,
            describe=functools.partial(_hydra_describe, composed),
            resolvers=own,
            copies_secret=_secret_copies(composed),
        )


def _hydra_describe(composed: Composed, path: KeyPath) -> tuple[str, str | None]:
    """A key as Hydra's command line names it (`db.port`), and where its value came from."""
    from compose._syntax import dotted  # noqa: PLC0415  # Hydra trees only

    return dotted(path), composed.origins.describe(path)


def _interpolated(tree: dict[str, Any]) -> list[KeyPath]:
    """The paths of values holding `${`, in the tree's order: only those are resolved (a `???`
    nobody reads stays, as Hydra leaves it)."""
    from compose._syntax import INTERPOLATION  # noqa: PLC0415  # Hydra trees only

    found: list[KeyPath] = []

    def walk(value: Any, path: KeyPath) -> None:  # a plain recursion: every value is looked at
        pairs = value.items() if isinstance(value, dict) else enumerate(value)
        for key, below in pairs:
            if isinstance(below, str):
                if INTERPOLATION in below:
                    found.append((*path, key))
            elif isinstance(below, (dict, list)):
                walk(below, (*path, key))

    walk(tree, ())
    return found


class HydraCall:
    """A Hydra tree named as a command line names it (`DIR:NAME`, or an app's `--config-path`,
    `--config-name` and `--config-dir`), and Hydra's overrides of it: what `compose_hydra`,
    `compose show --hydra`, `explain` and an app's `cli(hydra=)` compose, single or multirun."""

    __slots__ = ("config_dirs", "directory", "name", "overrides", "store")

    def __init__(
        self,
        directory: str | None,
        name: str | None,
        overrides: Sequence[str],
        config_dirs: Sequence[str] = (),
        *,
        store: HydraStore | None = None,
    ) -> None:
        self.directory = directory
        self.name = name
        self.overrides = list(overrides)
        self.config_dirs = tuple(config_dirs)
        self.store = store

    @classmethod
    def of(cls, spec: str, overrides: Sequence[str], origin: str) -> HydraCall:
        """`DIR:NAME` and the overrides; a spec without both is an error naming `origin`."""
        from compose._input.hydra.prepare import config_spec  # noqa: PLC0415  # Hydra trees only

        directory, name = config_spec(spec, origin)
        return cls(directory, name, overrides)

    def but(self, overrides: Sequence[str]) -> HydraCall:
        """The same tree with other overrides (a job of a multirun)."""
        return HydraCall(self.directory, self.name, overrides, self.config_dirs, store=self.store)

    def prepared(self, *, multirun: bool = False, sources: Any = None) -> Any:
        """The overrides parsed and the defaults tree expanded. `sources`: a multirun's master
        (`multirun`), whose tree, read once, every job shares; its warnings were given once,
        so a job's are not given again."""
        prepared = _hydra_prepare(
            self.directory,
            self.name,
            self.overrides,
            store=self.store,
            multirun=multirun,
            sources=sources,
            config_dirs=self.config_dirs,
        )
        if sources is None:
            _hydra_warnings(prepared)
        return prepared

    def multirun(self) -> HydraMultirun:
        """Hydra's multirun of these overrides: the tree read once, and the job list."""
        from compose._input.hydra.sweeps import jobs  # noqa: PLC0415  # Hydra trees only

        master = self.prepared(multirun=True)
        own = [ov.text for ov in master.overrides if ov.is_hydra]
        return HydraMultirun(self, master, own, jobs(list(master.overrides), master.repo.options))

    def items(self, texts: dict[str, str] | None = None, sources: Any = None) -> list[Item]:
        """What the fold merges: each config of the defaults tree at its package, in merge
        order, then the value overrides (`compose._merge.typed.leaf_items`); each file's text
        kept in `texts`, by the name it is shown as, when given (a run record's sources)."""
        from compose._merge.typed import leaf_items  # noqa: PLC0415  # Hydra trees only

        prepared = self.prepared(sources=sources)
        if texts is not None:
            for leaf in prepared.defaults.leaves:
                loaded = prepared.repo.load(leaf.config_path)
                if loaded is not None and loaded.text is not None:
                    texts[loaded.shown] = loaded.text
        return leaf_items(prepared)

    def config(
        self,
        schema: type[M] | None,
        texts: dict[str, str] | None = None,
        *,
        sources: Any = None,
        origins: dict[str, str] | None = None,
    ) -> Any:
        """The config, as `compose_hydra` gives it: validated by `schema`, or a plain dict.
        `sources`: a multirun's master prepared (`multirun`), the tree read once for every
        job. `origins`, when given, is filled with where each leaf was set, by dotted key
        (the YAML file:line, or the override): a run record's."""
        recording = origins is not None
        composed = hydra_composed(self.items(texts, sources), schema, recording=recording)
        if origins is not None:
            origins.update(described_leaves(composed))
        return _hydra_finish(composed, schema)


def chosen_groups(prepared: Any) -> frozenset[str]:
    """The keys of a prepared call's overrides that choose a group's option (`db=postgresql`):
    their values are names of configs, which a record keeps as they are (never masked)."""
    return frozenset(
        ov.key_element
        for ov in prepared.overrides
        if not ov.is_hydra and prepared.repo.group_exists(ov.key)
    )


class HydraMultirun:
    """Hydra's multirun of a `HydraCall`: the master prepared once (the tree read, the sweeps
    parsed), Hydra's own settings (`hydra.*` overrides, given to every job) and the job list
    in Hydra's order. Each job is composed on the master's tree: `compose_hydra(...,
    multirun=True)` and an app's `-m` both compose their jobs so."""

    __slots__ = ("call", "jobs", "own", "prepared")

    def __init__(
        self, call: HydraCall, prepared: Any, own: list[str], jobs: list[list[str]]
    ) -> None:
        self.call = call
        self.prepared = prepared
        self.own = own
        self.jobs = jobs

    def job(self, overrides: Sequence[str]) -> HydraCall:
        """A job: Hydra's own settings, then the job's overrides."""
        return self.call.but([*self.own, *overrides])
