"""An app that reads a Hydra tree: `cli(Schema, hydra="conf:config")` takes Hydra's command line.

    app db=postgresql trainer.lr=1e-3 +x=1 ~y     overrides, in Hydra's grammar
    app --config-path DIR (-cp)                    the config directory, relative to the app's
                                                   file as `hydra="DIR:NAME"`'s is
    app --config-name NAME (-cn)                   the primary config
    app --config-dir DIR (-cd)                     one more directory configs are found in
                                                   (relative to the working directory)
    app -m db=a,b lr=range(3) [--sweep-dir DIR]... multirun: Hydra's job list as a sweep, in
                                                   a new directory named by its start
                                                   (runs/2026-12-07_23-50-12) unless
                                                   --sweep-name names it
    app --from-run DIR [OVERRIDE ...]              a run (a multirun's job) composed again from
                                                   its record, with more overrides after its own
    app --help (-h)                                the schema's help, the tree's values, and
                                                   these forms

A command line starting with `@` is compose's own (`@ FILE`): what a sweep's point runs, its
resolved config. Hydra's other flags (`--cfg`, `--info`, `--run`...) are refused, naming what
does their work (`compose show --hydra`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn, TypeVar

from pydantic import BaseModel

from compose._api import HydraCall, check_keys, finished, hydra_composed
from compose._input.options import Options
from compose._runs.hydra_line import HydraLine, line_call, read_line
from compose._syntax import FROM_RUN_FLAG, snake_case
from compose.errors import ArgvError, ComposeError, HelpRequested

M = TypeVar("M", bound=BaseModel)
# Runs a sweep, told of its progress, to its end: how `cli` ends in sweep mode
SweepMode = Callable[[Callable[[Any], str]], NoReturn]


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
    call = line_call(line, tree, app_file)
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
