"""The spellings the engine reserves, and the rules that read them, each defined once.

Imported by every stage (readers, merge, interpolation, binding, output), it imports nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

NONE_TEXT = "None"  # TOML has no null: the text "None" means None where a type admits it
MANDATORY = "???"  # OmegaConf's mandatory value: still unset at the end, an error
INTERPOLATION = "${"  # where resolution has work to do
SECRET_MASK = "**********"  # a secret, as people are shown it (Pydantic's own mask)
# The end of a value cut to a tracker's length limit (`to_flat(text=True)`); never read back
TRUNCATED = "... [{count} more characters]"
# ... and of a key: a digest of the whole key keeps cut keys apart; only characters that MLflow
# takes in a key (`mlflow.utils.validation.validate_param_and_metric_name`: no [ ] , :)
TRUNCATED_KEY = "... {count} more characters {digest}"
INCLUDE = "_include_"  # a file's key that lists the files it builds on
SELF = "_self_"  # an entry of that list: where the including file's own keys go
SCHEMA_VERSION = "schema_version"  # a file's key in an app that declares versions (`versioned`)
NEGATIONS = ("no-", "no_")  # `--no-x`, `--no_x`: x false, or None
# Where an instance of a frozen result keeps its key path: a key of its `__dict__`, not a slot
# or a private attribute, so that its copies and pickles are frozen too, while equality, dumps
# and repr (which read fields only) ignore it (`compose._schema.frozen`)
FROZEN_ATTR = "__compose_frozen__"
# The variable the completion scripts set when they ask an entrypoint for candidates
COMPLETE_VARIABLE = "_COMPOSE_COMPLETE"

# What a bare TOML key may hold (a set: nothing to compile at import)
BARE_KEY_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_")


def is_bare_key(key: str) -> bool:
    """Whether TOML can write `key` without quotes."""
    return bool(key) and BARE_KEY_CHARS.issuperset(key)


def snake_case(segment: str) -> str:
    """A key segment as fields and file keys spell it: `max-steps` is `max_steps`."""
    return segment.replace("-", "_")


def kebab_case(name: str) -> str:
    """A field name as flags spell it: `max_steps` is `max-steps`."""
    return name.replace("_", "-")


def dotted(path: Iterable[str | int]) -> str:
    """A key path as one dotted key: ("trainer", "optim", 0) is `trainer.optim.0`."""
    return ".".join(str(segment) for segment in path)


def split_dotted(key: str) -> list[str]:
    """A dotted key's segments, as written: `trainer.optim.lr` is [trainer, optim, lr]."""
    return key.split(".")


def snake_key(key: str) -> str:
    """A dotted key as fields spell it, segment by segment: `trainer.max-lr` is `trainer.max_lr`."""
    return dotted(snake_case(segment) for segment in split_dotted(key))


def without_negation(segment: str) -> str | None:
    """`x` for a segment spelt `no-x` or `no_x`, else None."""
    for prefix in NEGATIONS:
        if segment.startswith(prefix) and len(segment) > len(prefix):
            return segment[len(prefix) :]
    return None


# Where compose keeps its caches (the docstring index), and the switch that turns them off
CACHE_DIR_VARIABLE = "COMPOSE_CACHE_DIR"
NO_CACHE_VARIABLE = "COMPOSE_NO_CACHE"

# Set in a sweep's job's environment (`compose job`): any value but empty or 0 turns the
# environment layer off, so that the job composes the config its record holds, never what the
# node's own variables would add (`compose._input.env`)
NO_ENV_VARIABLE = "COMPOSE_NO_ENV"

# Before the node a warning is about, in the text of an old name's and a migrated key's warning
# (`errors.RenamedWarning`, `MigratedWarning`: tools read their `.origin`, not this text).
FOUND_IN = "; found in "

# The flags an entrypoint takes for many runs (`compose._runs`), besides the schema's own:
# `--sweep @ FILE`, `--sweep.KEY V1 V2`, the sweep's controls, and `--from-run DIR`. Matched
# exactly (a field `sweep_count` is the schema's flag `--sweep-count`, not a sweep's), here only.
SWEEP_FLAG = "--sweep"
SWEEP_CONTROLS = (
    "--sweep-name",
    "--sweep-dir",
    "--sweep-output",
    "--sweep-executor",
    "--sweep-resume",
)
FROM_RUN_FLAG = "--from-run"
SWEEP_DRY_RUN = "--dry-run"  # in sweep mode only: write the records, submit nothing
HELP_FLAGS = ("-h", "--help")  # `--help [SECTION]`: an entrypoint's help, or a section's

# The width plain help fills when set (else the terminal's, else 80): as rich and argparse read it
COLUMNS_VARIABLE = "COLUMNS"


def flag_name(token: str) -> str:
    """A command-line token's flag, kebab-case, without its `=VALUE` (`--sweep-dir=x` is
    `--sweep-dir`); a token that is no flag gives itself."""
    if not token.startswith("--"):
        return token
    return "--" + kebab_case(token[2:].partition("=")[0])


def is_sweep_flag(token: str) -> bool:
    """Whether `token` is a flag of sweep mode: `--sweep`, `--sweep.KEY`, or a control."""
    name = flag_name(token)
    return name == SWEEP_FLAG or name.startswith(SWEEP_FLAG + ".") or name in SWEEP_CONTROLS


def is_own_line(tokens: Sequence[str]) -> bool:
    """Whether a Hydra app's command line (`cli(hydra=)`) is compose's own instead: one that
    starts with `@` (`@ FILE`: what a sweep's point runs, and a rerun built on a run's resolved
    config, as their records keep it)."""
    return list(tokens[:1]) == ["@"]


def is_from_run_flag(token: str) -> bool:
    """Whether `token` is `--from-run` (or `--from-run=DIR`)."""
    return flag_name(token) == FROM_RUN_FLAG


# The names of keys that hold a run's output directory: two points of a sweep holding the same
# value at such a key would write over each other's outputs (`compose._runs.sweep`)
OUTPUT_DIR_NAMES = ("output_dir", "out_dir")


def is_output_dir_name(name: str) -> bool:
    """Whether a key's last segment names an output directory: `output_dir`, `out_dir`, or
    a name ending in `_output_dir` or `_out_dir` (`ckpt_out_dir`; not `layout_dir`), in
    either case (`output-dir`)."""
    if "dir" not in name.lower():
        return False  # most keys: said before the work
    name = snake_case(name)
    return any(name == end or name.endswith("_" + end) for end in OUTPUT_DIR_NAMES)


# Hydra 1.3 config trees (`compose_hydra`, compose._input.hydra): the spellings its defaults
# lists, package headers and command lines reserve
HYDRA_GLOBAL = "_global_"  # a package: the root of the config
HYDRA_HERE = "_here_"  # a package: the containing config's own
HYDRA_GROUP = "_group_"  # in an entry's package: the group's own path
HYDRA_DEFAULTS = "defaults"  # a config's key that holds its defaults list
HYDRA_NODE = "hydra"  # Hydra's own node: read for its search path, then dropped
HYDRA_SEARCHPATH = "hydra.searchpath"  # the override (and key) that adds config sources
HYDRA_OPTIONAL = "optional"  # a defaults-list keyword: skipped when the config is not there
HYDRA_OVERRIDE = "override"  # a defaults-list keyword: changes a choice made elsewhere
HYDRA_PACKAGE = "package"  # the header key: `# @package PKG`
HYDRA_SUFFIX = ".yaml"  # the only suffix of a Hydra config file
