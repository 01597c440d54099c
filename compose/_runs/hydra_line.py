"""A Hydra app's command line (`cli(Schema, hydra="DIR:NAME")`, `compose._cli.hydra_app`), read:
the overrides, the flags that name the tree (`-cp`, `-cn`, `-cd`), multirun, help, compose's
sweep controls and `--from-run`; and the tree and overrides a single run composed from it,
which its record keeps (`write_run_record(hydra=)`). Here, below the shell, so that a run
record is written from the same reading of the line as `cli` composed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from compose._api import HydraCall
from compose._input.hydra.prepare import config_spec
from compose._syntax import (
    FROM_RUN_FLAG,
    HELP_FLAGS,
    SWEEP_CONTROLS,
    SWEEP_DRY_RUN,
    SWEEP_FLAG,
    flag_name,
)
from compose.errors import ArgvError

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


def line_call(line: HydraLine, tree: tuple[str, str], app_file: str | None) -> HydraCall:
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


def single_run(tokens: list[str]) -> HydraLine:
    """A single run's command line (`tokens`, as `cli` took them), read for its record: one
    that holds -m or --help is no run's, and refused naming the flag."""
    line = read_line(tokens)
    if line.multirun or line.help:
        flag = "--multirun" if line.multirun else "--help"
        raise ArgvError(
            "is no single run: a record describes one run (a multirun's jobs have theirs)",
            key=flag,
        )
    return line
