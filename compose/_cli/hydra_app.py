"""An app that reads a Hydra tree: `cli(Schema, hydra="conf:config")` takes Hydra's command line.

    app db=postgresql trainer.lr=1e-3 +x=1 ~y     overrides, in Hydra's grammar
    app --config-path DIR (-cp)                    the config directory, relative to the app's
                                                   file as `hydra="DIR:NAME"`'s is
    app --config-name NAME (-cn)                   the primary config
    app --config-dir DIR (-cd)                     one more directory configs are found in
                                                   (relative to the working directory)
    app -m db=a,b lr=range(3) [--sweep-dir DIR]... multirun: Hydra's job list as a sweep
    app --from-run DIR [OVERRIDE ...]              a run (a multirun's job) composed again from
                                                   its record, with more overrides after its own
    app --help (-h)                                the schema's help, the tree's values, and
                                                   these forms

A command line starting with `@` is compose's own (`@ FILE`): what a sweep's point runs, its
resolved config. Hydra's other flags (`--cfg`, `--info`, `--run`...) are refused, naming what
does their work (`compose show --hydra`).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel

from compose._api import HydraCall, check_keys, finished, hydra_composed
from compose._input.hydra.prepare import config_spec
from compose._input.options import Options
from compose._syntax import (
    FROM_RUN_FLAG,
    HELP_FLAGS,
    SWEEP_CONTROLS,
    SWEEP_DRY_RUN,
    SWEEP_FLAG,
    flag_name,
    snake_case,
)
from compose.errors import ArgvError, ComposeError, HelpRequested

M = TypeVar("M", bound=BaseModel)
# Runs a sweep, told of its progress, to its end: how `cli` ends in sweep mode
SweepMode = Callable[[Callable[[Any], str]], NoReturn]

MULTIRUN_FLAGS = ("-m", "--multirun")
# Hydra's flags that name the tree, each a long and a short spelling, and what it sets
TREE_FLAGS = {
    "--config-path": "path",
    "-cp": "path",
    "--config-name": "name",
    "-cn": "name",
    "--config-dir": "dirs",
    "-cd": "dirs",
}
_VALUED_CONTROLS = frozenset(SWEEP_CONTROLS) - {"--sweep-resume"}  # each takes one value
# Hydra's own flags that compose does not take, and what does their work here
_INSTEAD = {
    "--cfg": "compose show --hydra DIR:NAME OVERRIDES... prints the config",
    "-c": "compose show --hydra DIR:NAME OVERRIDES... prints the config",
    "--info": "compose show --hydra DIR:NAME --defaults OVERRIDES... lists the defaults",
    "-i": "compose show --hydra DIR:NAME --defaults OVERRIDES... lists the defaults",
    "--resolve": "compose show --resolved --hydra DIR:NAME OVERRIDES...",
}


@dataclass
class HydraLine:
    """A Hydra command line, parted: the overrides, the tree's flags, multirun, help, and
    compose's sweep controls (for multirun), as typed."""

    overrides: list[str] = field(default_factory=list)
    path: str | None = None  # --config-path, as given
    name: str | None = None  # --config-name
    dirs: list[str] = field(default_factory=list)  # --config-dir, each
    multirun: bool = False
    help: bool = False
    controls: list[str] = field(default_factory=list)  # `--sweep-dir runs`, `--dry-run`
    from_run: str | None = None  # --from-run DIR


def read_line(tokens: list[str]) -> HydraLine:
    """Hydra's command line: each flag with its value (`-cp DIR` or `--config-path=DIR`),
    every other token an override; a flag compose does not take is an error naming it."""
    line = HydraLine()
    pos = 0
    while pos < len(tokens):
        token = tokens[pos]
        name, eq, value = token.partition("=")
        if token in MULTIRUN_FLAGS:
            line.multirun = True
        elif token in HELP_FLAGS:
            line.help = True
        elif name in TREE_FLAGS or name in _VALUED_CONTROLS or name == FROM_RUN_FLAG:
            if not eq:
                pos += 1
                if pos >= len(tokens):
                    raise ArgvError("expects a value", key=name)
                value = tokens[pos]
            if name in _VALUED_CONTROLS:
                line.controls += [name, value]
            elif name == FROM_RUN_FLAG:
                if line.from_run is not None:
                    raise ArgvError(
                        "is given twice: rerun one run at a time", key=name, value=value
                    )
                line.from_run = value
            elif TREE_FLAGS[name] == "dirs":
                line.dirs.append(value)
            else:
                setattr(line, TREE_FLAGS[name], value)
        elif token in ("--sweep-resume", SWEEP_DRY_RUN):
            line.controls.append(token)
        elif token.startswith("-"):
            raise _not_taken(flag_name(token) if token.startswith("--") else name)
        else:
            line.overrides.append(token)
        pos += 1
    if line.controls and not line.multirun:
        raise ArgvError(
            "steers a multirun's sweep: it needs -m", key=line.controls[0], hint="add -m"
        )
    return line


def _not_taken(flag: str) -> ArgvError:
    if flag == SWEEP_FLAG or flag.startswith(SWEEP_FLAG + "."):
        return ArgvError(
            "is compose's own sweep: with Hydra's command line, -m sweeps its overrides "
            "(db=a,b lr=range(3))",
            key=flag,
        )
    instead = _INSTEAD.get(flag)
    return ArgvError(
        "is not a flag this app takes (it reads Hydra's overrides: KEY=VALUE, GROUP=OPTION, "
        "+KEY=VALUE, ~KEY)",
        key=flag,
        hint=instead or "see --help",
    )


def app_tree(spec: str, app_file: str | None) -> tuple[str, str]:
    """`cli(hydra="DIR:NAME")`'s directory (relative to the app's file, as Hydra reads
    `config_path`; to the working directory for an app with no file) and config name."""
    directory, name = config_spec(spec, "hydra=")
    return _beside(directory, app_file), name


def _beside(directory: str, app_file: str | None) -> str:
    if os.path.isabs(directory) or app_file is None:
        return directory
    return os.path.join(os.path.dirname(os.path.abspath(app_file)), directory)


def parse_hydra(
    schema: type[M],
    tokens: list[str],
    prog: str,
    knobs: Options,
    tree: tuple[str, str],
    app_file: str | None,
    sweep_mode: SweepMode,
) -> M:
    """The app's config from Hydra's command line (see the module docstring): composed once
    and validated, or, with -m, a sweep run to its end by `sweep_mode` (`entry.sweep_mode`,
    which ends the app); help is `HelpRequested`."""
    line = read_line(tokens)
    if line.from_run is not None:
        return _from_run(schema, line, prog, knobs)
    call = _line_call(line, tree, app_file)
    if line.help:
        raise _help(schema, call, prog)
    if line.multirun:
        from compose._runs.command import run_hydra_sweep  # noqa: PLC0415  # multirun only

        sweep_mode(
            lambda progress: run_hydra_sweep(
                schema, call, line.controls, prog, knobs, progress=progress
            )
        )
    config: M = call.config(schema)
    return finished(config, knobs.frozen)


def _line_call(line: HydraLine, tree: tuple[str, str], app_file: str | None) -> HydraCall:
    """The tree the line names (the app's, or its `-cp`/`-cn`/`-cd`) and its overrides."""
    directory, name = tree
    if line.path is not None:
        directory = _beside(line.path, app_file)
        if not os.path.isdir(directory):  # named here, not as a config no directory holds
            raise ArgvError(
                f"is no directory (relative to the app's file: {directory})",
                key="--config-path",
                value=line.path,
            )
    for given in line.dirs:
        if not os.path.isdir(given):
            raise ArgvError("is no directory", key="--config-dir", value=given)
    dirs = [os.path.abspath(given) for given in line.dirs]
    return HydraCall(directory, line.name or name, line.overrides, dirs)


def recorded_call(
    tokens: list[str], prog: str, knobs: Options, spec: str, app_file: str | None
) -> tuple[HydraCall | None, Options]:
    """What a Hydra app's single run composed from its command line `tokens` (as `cli` took
    them), for its record: the tree and its overrides, with the options it composed at (a
    `--from-run` line: the run composed again, the line's overrides after its own). None for
    a rerun built on its recorded resolved config: compose's own `@ FILE` describes it."""
    line = read_line(tokens)
    if line.multirun or line.help:
        flag = "--multirun" if line.multirun else "--help"
        raise ArgvError(
            "is no single run: a record describes one run (a multirun's jobs have theirs)",
            key=flag,
        )
    if line.from_run is None:
        return _line_call(line, app_tree(spec, app_file), app_file), knobs
    from compose._runs.rerun import rerun  # noqa: PLC0415  # reruns only

    again = rerun([FROM_RUN_FLAG, line.from_run, *line.overrides], prog, knobs, hydra=True)
    if again.hydra is None:
        return None, knobs
    return again.hydra_call(again.argv), again.knobs(knobs)


def _from_run(schema: type[M], line: HydraLine, prog: str, knobs: Options) -> M:
    """`app --from-run DIR [OVERRIDE ...]`: the run DIR records (a multirun's job) composed
    again from the tree its record names, its overrides then the line's; the record's
    resolved config instead when the tree changed since (with a warning naming the file)."""
    from compose._runs.rerun import refuse_rewrite, rerun  # noqa: PLC0415  # reruns only

    given = line.multirun or line.help or line.path or line.name or line.dirs
    if given:
        raise ArgvError(
            "composes the run its record names, on the tree it names: it takes overrides only",
            key=FROM_RUN_FLAG,
            value=line.from_run,
            hint="leave out -m, --help, --config-path, --config-name and --config-dir",
        )
    assert line.from_run is not None
    again = rerun([FROM_RUN_FLAG, line.from_run, *line.overrides], prog, knobs, hydra=True)
    knobs = again.knobs(knobs)
    if again.hydra is None:  # built on its resolved config: compose's own `@ FILE`
        from compose._api import parse_with  # noqa: PLC0415  # reruns only

        config = parse_with(schema, list(again.base), knobs, prog=prog)
    else:
        config = again.hydra_call(again.argv).config(schema)
    refuse_rewrite(again, config, knobs, prog)
    return finished(config, knobs.frozen)


def _help(schema: type[BaseModel], call: HydraCall, prog: str) -> HelpRequested:
    """The schema's help with the values the tree composes (and who set each), then Hydra's
    command line; a tree that does not compose still gets its help, saying why."""
    from compose._output.help import (  # noqa: PLC0415  # help only
        HYDRA_USAGE_PARTS,  # help only
        help_screen,
        hydra_section,
        plain_help,
    )

    composed: Any = None
    problem = ""
    try:
        composed = hydra_composed(call.items(), schema)
        check_keys(composed)
    except ComposeError as error:
        composed, problem = None, error.format()
    screen = help_screen(schema, prog, "", composed, problem)
    sections = screen.sections[:-1]  # the schema's; then Hydra's line, not compose's
    for section in sections:  # keys as Hydra's overrides name them, the fields' own
        # names (trainer.batch_size=VALUE), not compose's flags (--trainer.batch-size)
        name = section.flag.removeprefix("--")
        if section.title.startswith(name):
            section.title = snake_case(name) + section.title[len(name) :]
        for entry in section.entries:
            entry.flag = snake_case(entry.flag.removeprefix("--"))
    screen.sections = [*sections, hydra_section()]
    screen.usage_parts = HYDRA_USAGE_PARTS
    screen.footer = ""
    return HelpRequested(plain_help(screen), screen)
