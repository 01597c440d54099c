"""`PROG --from-run DIR [more overrides]`: a recorded run composed again, with changes on top.

DIR/run.json (a sweep point's record, or a single run's from `write_run_record`) holds the
argv the run was composed from, the sha256 of every file it read, and the variables of the
environment layer that set its values. If every file still holds that text, the recorded argv
is composed again with the new overrides after it, so origins point at the original files. If
one changed or is gone, or the argv holds a secret's mask (records never hold a secret), the
run is built on its recorded resolved config (DIR/configs/PROG.toml) instead, with a warning
that says why: what ran, not what the files say now. The environment layer is the recorded one
(a secret's value, masked there, is taken from the environment of now); the run's instant
(`now` in run.json) is what `${now:}` gives again.

A record is data, never a command: its argv is one run's, of the same program, and may name
files and flags, not sweep mode, another `--from-run` or help. And a rerun never rewrites the
record it reads: one that changes the config while its output directory is still DIR is
refused before the app gets the config (`refuse_rewrite`), and `write_run_record` never
replaces a record of another config unless the command line names that directory.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from compose._atomic import write_file
from compose._input.argv import HelpItem, ValueItem, item_spans
from compose._input.files import FileCache, read_text
from compose._input.options import NO_OPTIONS, Options, options
from compose._input.search import Dirs
from compose._interp.clock import NOW_VARIABLE, run_instant
from compose._jsonfile import os_text, read_record, record_text
from compose._output.plain import to_data
from compose._runs.fingerprint import fingerprint, run_fingerprint, same_run
from compose._runs.masked import masked_tokens
from compose._runs.provenance import git_state_meanwhile, versions
from compose._runs.run import (
    RUN_FILE,
    config_file,
    leaf_origins,
    read_run,
    recorded_environment,
    recorded_now,
    run_record,
    sha256_text,
)
from compose._syntax import (
    FROM_RUN_FLAG,
    SECRET_MASK,
    is_from_run_flag,
    is_own_line,
    is_sweep_flag,
    kebab_case,
    snake_key,
)
from compose._warn import held, warn
from compose.errors import (
    ArgvError,
    ComposeError,
    ComposeWarning,
    OutputError,
    SourceError,
    printable,
)

if TYPE_CHECKING:
    from compose._api import HydraCall
    from compose._input.hydra.grammar import Override


@dataclass(frozen=True)
class Rerun:
    """`--from-run DIR` read: what composes the run again, and how."""

    directory: Path
    """DIR, as given."""
    base: tuple[str, ...]
    """What the run is composed from: its recorded argv, or `@ DIR/configs/PROG.toml`."""
    changes: tuple[str, ...]
    """The rest of the command line: the user's own tokens, after the base."""
    now: datetime.datetime | None
    """The instant the run was composed at (None in a record that holds none)."""
    environ: Mapping[str, str] | None
    """The environment to compose in: the recorded variables of the app's prefix, the others
    as they are now (None: as it is now, for a record that kept none)."""
    output: str | None
    """The key the record says names DIR (a sweep's output key), if it says one."""
    fingerprint: str | None
    """The fingerprint the record says its config has."""
    hydra: Mapping[str, Any] | None = None
    """A Hydra app's run: the tree its `base` overrides compose (`config_dir`, `config_name`,
    `config_dirs`); None for compose's own command line, or a run built on its resolved
    config."""

    @property
    def argv(self) -> list[str]:
        return [*self.base, *self.changes]

    def hydra_call(self, overrides: Sequence[str]) -> HydraCall:
        """The Hydra app's tree the run composed, with `overrides` (its own, and more)."""
        from compose._api import HydraCall  # noqa: PLC0415  # a Hydra app's rerun only

        tree = self.hydra or {}
        return HydraCall(
            tree.get("config_dir"), tree.get("config_name"), overrides, tree.get("config_dirs", ())
        )

    def knobs(self, knobs: Options) -> Options:
        """`knobs`, at the run's instant and in its environment."""
        changes: dict[str, Any] = {}
        if self.now is not None:
            changes["now"] = self.now
        if self.environ is not None:
            changes["environ"] = self.environ
        return knobs.but(**changes) if changes else knobs


def asks_from_run(tokens: Sequence[str]) -> bool:
    """Whether a command line holds `--from-run DIR` (or `--from-run=DIR`)."""
    return any(map(is_from_run_flag, tokens))


def from_run_argv(tokens: Sequence[str], prog: str, knobs: Options = NO_OPTIONS) -> list[str]:
    """`tokens` with `--from-run DIR` replaced by what DIR's run was composed from."""
    return rerun(tokens, prog, knobs).argv


def rerun(
    tokens: Sequence[str], prog: str, knobs: Options = NO_OPTIONS, *, hydra: bool = False
) -> Rerun:
    """What `tokens`' `--from-run DIR` composes: DIR's record read and checked, with one
    `ComposeError` naming run.json for a record that cannot be composed again. With `hydra`
    (an app of `cli(hydra=)`), the record is a Hydra app's, its argv Hydra's overrides of the
    tree it names, and the rest of `tokens` more overrides."""
    directory, rest = _take_directory(list(tokens))
    path = directory / RUN_FILE
    record = read_run(path)
    if record is None:
        raise ArgvError(
            "holds no run record (run.json)",
            key=FROM_RUN_FLAG,
            value=str(directory),
            origin=str(path),
        )
    if record.get("prog", prog) != prog:
        raise ArgvError(
            f"is a run of {record['prog']}, not of {prog}", key=FROM_RUN_FLAG, value=str(directory)
        )
    tree = _hydra_tree(record, path) if hydra else None
    own = tree is None  # compose's own command line (a Hydra app's `@ FILE` too)
    argv = _single_run(record["argv"], path) if own else _single_hydra_run(record["argv"], path)
    now = recorded_now(record, path)
    environ = _environment(record, path, knobs)
    output = _text(record.get("output"))
    recorded = (output, _text(record.get("fingerprint")))
    problem = _changed_source(record.get("sources") or {})
    masked = _masked_flags(argv) if own else [text for text in argv if SECRET_MASK in text]
    if problem is None and masked:
        problem = f"its argv holds the secret of {', '.join(masked)}, which run.json keeps masked"
    if hydra and rest and (own or problem is not None):
        raise _no_tree_to_override(problem or f"the run was built on {' '.join(argv)}", directory)
    if problem is None:
        return Rerun(directory, tuple(argv), tuple(rest), now, environ, *recorded, tree)
    resolved = directory / str(record.get("config") or config_file(Path(), prog))
    if not resolved.is_file():
        raise ArgvError(
            f"{problem}, and the run's resolved config is gone too: it cannot be composed again",
            key=FROM_RUN_FLAG,
            value=str(directory),
            origin=str(resolved),
        )
    warn(
        f"{FROM_RUN_FLAG} {directory}: {problem}; building on the run's resolved config "
        f"{resolved} instead",
        ComposeWarning,
        stacklevel=2,
    )
    return Rerun(directory, ("@", str(resolved)), tuple(rest), now, environ, *recorded)


def _no_tree_to_override(why: str, directory: Path) -> ArgvError:
    """A Hydra app's `--from-run DIR OVERRIDE...` where the run is composed from a resolved
    config (the tree changed since, or the run was built on one): no tree to override."""
    return ArgvError(
        f"{why}: Hydra's overrides apply to a tree, not to a run's resolved config",
        key=FROM_RUN_FLAG,
        value=str(directory),
        hint="rerun it without overrides (its resolved config), or rerun a run of the tree "
        "as it is",
    )


def _text(value: Any) -> str | None:
    """A record's optional text field: None for anything else (an older or damaged record)."""
    return value if isinstance(value, str) and value else None


def _take_directory(tokens: list[str]) -> tuple[Path, list[str]]:
    found: list[str] = []
    rest: list[str] = []
    position = 0
    while position < len(tokens):
        token = tokens[position]
        if is_from_run_flag(token) and "=" in token:
            found.append(token.partition("=")[2])
        elif is_from_run_flag(token):
            if position + 1 >= len(tokens) or tokens[position + 1].startswith("--"):
                raise ArgvError("needs the directory of a run", key=FROM_RUN_FLAG)
            position += 1
            found.append(tokens[position])
        else:
            rest.append(token)
        position += 1
    if len(found) > 1:
        raise ArgvError(
            "is given twice: rerun one run at a time", key=FROM_RUN_FLAG, value=found[-1]
        )
    return Path(found[0]), rest


def _single_run(argv: list[str], path: Path) -> list[str]:
    """A record's argv (text, as `read_run` checked), which must be one run's command line: no
    flag of sweep mode, no `--from-run` and no help (a crafted record would turn a rerun into a
    sweep that is submitted)."""
    for token in argv:
        if is_sweep_flag(token) or is_from_run_flag(token):
            raise _not_one_run(token, path)
    try:
        spans = item_spans(argv)
    except ComposeError as error:
        raise ComposeError(
            f"is no command line: {error.message}", key="argv", value=error.value, origin=str(path)
        ) from None
    for item, given in spans:
        if isinstance(item, HelpItem):
            raise _not_one_run(given[0], path)
    return argv


def _hydra_tree(record: Mapping[str, Any], path: Path) -> dict[str, Any] | None:
    """The tree a Hydra app's run composed (run.json's `hydra`), checked: one error naming
    run.json for a record of another kind of run, or a damaged one. None for a run of
    compose's own `@ FILE`, which a Hydra app takes too (a rerun built on a resolved config
    keeps it so)."""
    tree = record.get("hydra")
    if is_own_line(record["argv"]):
        if tree is None:
            return None
        raise ComposeError(  # a run built on `@ FILE` composed no tree: its record names none
            "is compose's own command line (@ FILE), yet the record names a Hydra tree: no "
            "run's record holds both",
            key="argv",
            value=" ".join(record["argv"]),
            origin=str(path),
        )
    if tree is None:
        raise ComposeError(
            "is the record of a run of compose's own command line, not of a Hydra app's",
            key="argv",
            value=" ".join(record["argv"]),
            origin=str(path),
            hint="rerun it with the program that made it",
        )
    fields: dict[str, Callable[[Any], bool]] = {
        "config_dir": _or_text,
        "config_name": _or_text,
        "config_dirs": _texts,
    }
    valid = isinstance(tree, dict) and all(check(tree.get(k)) for k, check in fields.items())
    if not valid:
        raise ComposeError(
            "expects the tree of a Hydra app's run: config_dir, config_name, config_dirs",
            key="hydra",
            value=tree,
            origin=str(path),
        )
    return {key: tree[key] for key in fields}


def _or_text(value: Any) -> bool:
    return value is None or os_text(value)


def _texts(value: Any) -> bool:
    return isinstance(value, list) and all(map(os_text, value))


def _single_hydra_run(argv: list[str], path: Path) -> list[str]:
    """A Hydra app's record's argv: Hydra's overrides of one run, no flag among them (a
    crafted record would turn a rerun into a multirun that is submitted)."""
    for token in argv:
        if token.startswith("-"):
            raise _not_one_run(token, path)
    return argv


def _masked_flags(argv: list[str]) -> list[str]:
    """The flags of `argv` whose value a record keeps masked (`compose._runs.masked`)."""
    return [
        item.shown
        for item, _ in item_spans(argv)
        if isinstance(item, ValueItem) and any(SECRET_MASK in token for token in item.tokens)
    ]


def _not_one_run(token: str, path: Path) -> ComposeError:
    return ComposeError(
        "holds a flag no run's record holds: a record's argv is one run's command line",
        key="argv",
        value=token,
        origin=str(path),
    )


def _environment(record: Mapping[str, Any], path: Path, knobs: Options) -> Mapping[str, str] | None:
    """The environment a rerun composes in: the variables of the app's prefix as the record
    has them (a masked secret's taken from now's environment, else an error naming it), every
    other as it is now. A variable of the prefix set now that the record does not have, or has
    with another value, is ignored, with a warning; a record that kept no environment (made
    before compose kept one) leaves it as it is now, with a warning if that sets values."""
    prefix = knobs.env_prefix
    if prefix is None:
        return None  # the app reads no environment
    now = os.environ if knobs.environ is None else knobs.environ
    own = sorted(name for name in now if name.startswith(prefix))
    recorded = record.get("environment")
    if recorded is None:
        if own:
            warn(
                f"{FROM_RUN_FLAG} {path.parent}: run.json keeps no environment (an older compose "
                f"made it): {_names(own)} set here apply",
                ComposeWarning,
                stacklevel=3,
            )
        return None
    if not isinstance(recorded, dict):
        raise ComposeError(
            "is a table of variables", key="environment", value=recorded, origin=str(path)
        )
    variables: dict[str, str] = {}
    for name, value in recorded.items():
        if not (isinstance(value, str) and name.startswith(prefix)):
            raise ComposeError(
                f"holds {printable(name)}, which is no variable of the app's ({prefix}...) "
                "with a text value",
                key="environment",
                value=value,
                origin=str(path),
            )
        secret = value == SECRET_MASK
        if secret and name not in now:
            raise ComposeError(
                f"set a secret, which run.json keeps masked: set ${name} to rerun the run",
                key="environment",
                value=f"${name}",
                origin=str(path),
            )
        variables[name] = now[name] if secret else value
    ignored = [name for name in own if variables.get(name) != now[name]]
    if ignored:
        warn(
            f"{FROM_RUN_FLAG} {path.parent} composes the run's recorded environment: "
            f"{_names(ignored)} set here {'is' if len(ignored) == 1 else 'are'} "
            "ignored (a flag changes a value)",
            ComposeWarning,
            stacklevel=3,
        )
    return {**{n: v for n, v in now.items() if not n.startswith(prefix)}, **variables}


def _names(variables: Sequence[str]) -> str:
    return ", ".join(f"${name}" for name in variables)


def _changed_source(sources: Mapping[str, Any]) -> str | None:
    """The first recorded file (read from here, as composing again would) whose text is not
    the text the run was made from, said as what happened to it; None if all are the same."""
    for shown, digest in sources.items():
        try:
            text = read_text(shown)
        except ComposeError:
            return f"{shown} is gone"
        if sha256_text(text) != digest:
            return f"{shown} changed since the run"
    return None


def refuse_rewrite(again: Rerun, config: BaseModel, knobs: Options, prog: str) -> None:
    """Refuse a rerun that would rewrite the record it was made from: one whose changes make
    another config while the key that names DIR (the record's `output`, else any key whose
    value is DIR) still does, unless the user's own tokens name DIR there. Called before the
    app gets `config` (composed from `again.argv` with `knobs`), so nothing is written."""
    if not again.changes:
        return  # the run itself, composed again
    directory = Path(os.path.abspath(again.directory))
    keys = _directory_keys(config, directory)
    if again.output is not None:
        keys = [key for key in keys if key == snake_key(again.output)]
    hydra = again.hydra is not None
    if not keys or _names_directory(again.changes, keys, directory, hydra=hydra):
        return
    if _same_config(again, config, knobs, prog):
        return
    flag = keys[0] if hydra else f"--{kebab_case(keys[0])}"  # as the app's overrides name it
    raise ArgvError(
        f"a rerun with changes is a new run, but its {flag} is still {again.directory}, whose "
        "record it would rewrite",
        key=FROM_RUN_FLAG,
        value=str(again.directory),
        hint=f"give it its own {flag} (naming {again.directory} with {flag} replaces its record)",
    )


def _same_config(again: Rerun, config: BaseModel, knobs: Options, prog: str) -> bool:
    """Whether `config` is the recorded run's: its fingerprint is the record's, or that of the
    record's base composed alone (a value interpolated from the output key differs between a
    sweep's fingerprint and its point's); a base that no longer composes is another run."""
    if same_run(again.fingerprint, config, again.output):
        return True
    made = fingerprint(config)
    from compose._api import parse_with  # noqa: PLC0415  # only a rerun with changes into DIR

    try:
        if again.hydra is not None:
            before = again.hydra_call(again.base).config(type(config))
        else:
            before = parse_with(type(config), list(again.base), knobs, prog=prog)
    except ComposeError:
        return False
    return fingerprint(before) == made


def _directory_keys(config: BaseModel, directory: Path) -> list[str]:
    """The dotted keys of `config` whose value names `directory` (a path, or its text)."""
    return [key for key, value in _leaves(to_data(config), "") if _is_directory(value, directory)]


def _leaves(data: Any, prefix: str) -> Iterator[tuple[str, Any]]:
    if isinstance(data, dict):
        for key, value in data.items():
            yield from _leaves(value, f"{prefix}{key}.")
    else:
        yield prefix[:-1], data


def _is_directory(value: Any, directory: Path) -> bool:
    if not isinstance(value, str) or not value or "\0" in value:
        return False
    return Path(os.path.abspath(value)) == directory


def _names_directory(
    tokens: Sequence[str], keys: Sequence[str], directory: Path, *, hydra: bool = False
) -> bool:
    """Whether the user's `tokens` set one of `keys` to `directory` themselves (with `hydra`,
    in Hydra's overrides: `trainer.out_dir=DIR`)."""
    if hydra:
        return any(
            ov.action != "delete" and ov.key in keys and _is_directory(ov.plain(), directory)
            for ov in _hydra_overrides(tokens)
        )
    try:
        spans = item_spans(list(tokens))
    except ComposeError:
        return False
    return any(
        isinstance(item, ValueItem)
        and snake_key(item.key) in keys
        and len(item.tokens) == 1
        and _is_directory(item.tokens[0], directory)
        for item, _ in spans
    )


def _hydra_overrides(tokens: Sequence[str]) -> list[Override]:
    """`tokens` read by Hydra's override grammar (a quoted directory, `'runs/a b'`, as the
    app read it); a token it refuses names no directory."""
    from compose._input.hydra.grammar import parse_override  # noqa: PLC0415  # Hydra apps only

    found = []
    for token in tokens:
        with contextlib.suppress(ComposeError):
            found.append(parse_override(token))
    return found


def describe_run(
    config: BaseModel,
    argv: Sequence[str],
    prog: str,
    knobs: Options,
    directory: Path,
    *,
    hydra: tuple[str, str | None] | None = None,
) -> dict[str, Any]:
    """run.json for a single run in `directory`: `config`, as composed from `argv` (whose
    `--from-run` is taken as it was when the run was made) with `knobs`, at their instant `now`
    if known. `hydra`: a Hydra app's (`cli(hydra=)`'s spec and the app's file), whose `argv`
    is Hydra's command line: the record names the tree its overrides compose."""
    cwd = os.getcwd()
    tree: dict[str, Any] | None = None
    with git_state_meanwhile(cwd) as git:  # git works while the origins are found
        with held():  # dropped: the run itself has shown them
            call = None
            if hydra is not None:
                call, knobs = _recorded_call(list(argv), prog, knobs, hydra)
                recorded = knobs.now
            if call is not None:
                tokens, origins, texts, tree = _hydra_run(config, call)
            else:
                if asks_from_run(argv):
                    again = rerun(argv, prog, knobs, hydra=hydra is not None)
                    tokens, knobs, recorded = again.argv, again.knobs(knobs), again.now
                else:
                    tokens, recorded = list(argv), None
                files = FileCache()
                origins = leaf_origins(type(config), tokens, files, knobs)
                tokens = masked_tokens(type(config), tokens, config)
                texts = files.texts
        output = next(iter(_directory_keys(config, Path(os.path.abspath(directory)))), None)
        record = run_record(
            prog=prog,
            argv=tokens,
            fingerprint=run_fingerprint(config, output),
            origins=origins,
            sources={shown: sha256_text(text) for shown, text in texts.items()},
            cwd=cwd,
            git=git(),
            versions=versions(),
            environment=recorded_environment(config, knobs),
            output=output,
            now=recorded or knobs.now or _environment_instant(knobs.environ),
        )
    if tree is not None:
        record["hydra"] = tree
    return record


def _recorded_call(
    argv: list[str], prog: str, knobs: Options, hydra: tuple[str, str | None]
) -> tuple[HydraCall | None, Options]:
    """What a Hydra app's single run composed from its command line `argv` (`hydra`: the
    app's spec and file): the tree and its overrides, with the options it composed at (a
    `--from-run` line: the run composed again, the line's overrides after its own). None for
    a rerun built on its recorded resolved config: compose's own `@ FILE` describes it."""
    from compose._runs.hydra_line import app_tree, line_call, single_run  # noqa: PLC0415  # Hydra apps

    spec, app_file = hydra
    line = single_run(argv)
    if line.from_run is None:
        return line_call(line, app_tree(spec, app_file), app_file), knobs
    again = rerun([FROM_RUN_FLAG, line.from_run, *line.overrides], prog, knobs, hydra=True)
    if again.hydra is None:
        return None, knobs
    return again.hydra_call(again.argv), again.knobs(knobs)


def _hydra_run(
    config: BaseModel, call: HydraCall
) -> tuple[list[str], dict[str, str], dict[str, str], dict[str, Any]]:
    """A Hydra app's single run, as its record keeps it (as a multirun's job's): its
    overrides and its origins (secrets masked; a group's option is a name, kept), the text of
    each config of the tree it read, and the tree (what `--from-run` composes again)."""
    from compose._api import chosen_groups  # noqa: PLC0415  # Hydra apps only

    schema = type(config)
    names = chosen_groups(call.prepared())
    texts: dict[str, str] = {}
    found: dict[str, str] = {}
    try:
        call.config(schema, texts, origins=found)
    except ComposeError:
        found = {}  # as `leaf_origins`: a run composed otherwise has no origins to give
    said = masked_tokens(schema, list(found.values()), config, hydra=True, names=names)
    origins = dict(zip(found, said, strict=True))
    argv = masked_tokens(schema, call.overrides, config, hydra=True, names=names)
    tree = {
        "config_dir": call.directory,
        "config_name": call.name,
        "config_dirs": list(call.config_dirs),
    }
    return argv, origins, texts, tree


def _environment_instant(environ: Mapping[str, str] | None) -> datetime.datetime | None:
    """$COMPOSE_NOW's instant, if it is set: the one every composition of the run took."""
    if NOW_VARIABLE not in (os.environ if environ is None else environ):
        return None
    return run_instant(environ)


def write_run_record(
    directory: str | os.PathLike[str],
    config: BaseModel,
    argv: Sequence[str],
    *,
    prog: str,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    now: datetime.datetime | str | None = None,
    replace: bool = False,
    hydra: str | None = None,
) -> Path:
    """Write `DIRECTORY/run.json` for a single run: how `config` was made from `argv` (the
    tokens after the program's name, as `cli` took them), so that `PROG --from-run DIRECTORY`
    composes it again. Returns the file's path.

    The resolved config belongs at `DIRECTORY/configs/PROG.toml`, where `write_configs`
    writes it: `--from-run` builds on it when a file the run read has changed. Call this
    first: a record is never replaced behind the user, and when this refuses, nothing of the
    directory has changed yet. A run.json already there is kept when it describes this run
    better: when `argv` is `@` that very configs/PROG.toml (a sweep point's job keeps its
    sweep's record), or when it has the same fingerprint. A record of another config is
    replaced only when `argv` itself sets a key of `config` to DIRECTORY (`--output-dir
    DIRECTORY`: the user named it), or when `replace` is true (an app's own flag, say);
    otherwise it is an `OutputError` naming the file. The options are those `cli` was given,
    and mean the same.

    `now` is the instant `cli` was given as `now=` (what `run_instant` chose): run.json keeps
    it, and `--from-run` composes at it again. A rerun keeps its run's instant, as `cli` does;
    without `now`, $COMPOSE_NOW's is kept if set, else none is recorded.

    `hydra="DIR:NAME"`, as the app gave `cli(hydra=)` (DIR relative to the file that calls
    this, as there): `argv` is the Hydra command line the app took, and the record names the
    tree and keeps the overrides, as a multirun's job's does, so that the app's
    `--from-run DIRECTORY` composes the tree again.
    """
    path = Path(directory) / RUN_FILE
    if _runs_its_record(Path(directory), argv, prog):
        return path
    knobs = options(search_path=search_path, env_prefix=env_prefix, environ=environ, now=now)
    app = None
    if hydra is not None and not is_own_line(argv):  # `@ FILE` is compose's own, as in cli
        app = (hydra, sys._getframe(1).f_globals.get("__file__"))
    record = describe_run(config, argv, prog, knobs, Path(directory), hydra=app)
    previous = _previous_record(path)
    if previous is not None and same_run(previous.get("fingerprint"), config, record["output"]):
        return path
    if previous is not None:
        _may_replace(record, path, argv, replace, hydra=app is not None)
    return write_file(path, record_text(record))  # no secret in it: `masked_tokens`


def _previous_record(path: Path) -> dict[str, Any] | None:
    """The run.json at `path`, if there is one to be read: one that cannot be is this run's to
    write (it is the run's record, in the run's own directory)."""
    try:
        return read_record(path)
    except SourceError:
        return None


def _may_replace(
    record: Mapping[str, Any], path: Path, argv: Sequence[str], replace: bool, *, hydra: bool
) -> None:
    """Refuse to replace the record at `path`, of another config than `record`'s, unless told
    to: by `replace`, or by `argv` setting the record's output key to its directory (with
    `hydra`, in Hydra's overrides)."""
    directory = Path(os.path.abspath(path.parent))
    keys = [record["output"]] if record.get("output") else []
    given = _take_directory(list(argv))[1] if asks_from_run(argv) else list(argv)
    if replace or _names_directory(given, keys, directory, hydra=hydra):
        return
    if keys:
        flag = f"{keys[0]}={path.parent}" if hydra else f"--{kebab_case(keys[0])} {path.parent}"
    else:
        flag = "its own directory"
    raise OutputError(
        "holds the record of a run of another config: this run is a new run",
        origin=str(path),
        hint=f"give this run a directory of its own, or name this one ({flag}) to replace "
        "its record",
    )


def _runs_its_record(directory: Path, argv: Sequence[str], prog: str) -> bool:
    """Whether `argv` is `@ DIRECTORY/configs/PROG.toml` alone, with a run.json beside it: a
    sweep's job, which that record describes better than `@ FILE` would."""
    if len(argv) != 2 or argv[0] != "@" or not (directory / RUN_FILE).is_file():
        return False
    return Path(argv[1]).resolve() == config_file(directory, prog).resolve()
