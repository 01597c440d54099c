"""The error catalogue, as data: one entry per class of bad input a user can make.

Each `Case` says what the user did, the inputs (files as text and an argv for an entrypoint, or
`compose()` sources and overrides), the exception class, the exact `str(error)`, the `.key` and
`.origin` the error must carry, and how to fix it. `test_error_catalogue.py` runs every entry
and renders the whole catalogue as `docs/09-error-catalogue.md` ("errors you may see and how to
fix them"), so the page shows exactly what the engine prints.

An entry whose `bug` is set pins what the engine *should* print, not what it prints today: its
test fails until the engine is fixed (`bug` says what is wrong).

Argv entries run `parse(schema, argv)`, which is what an entrypoint `app` built with
`cli(schema)` does with `app ARGV...` (an argv of sweep mode, `--sweep...`, runs the sweep, one
with `--from-run` runs `cli(schema, args=argv)`); `{cwd}` in a message or origin stands for
the working directory. Most entries use `RLConfig` from `schemas.py`, a prime-rl-shaped
schema. `check` entries run `compose check PATH...` over their files: a mistake in its
mapping, `compose-check.toml`, is bad input to the check (exit 2) or a problem it finds
(exit 1).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, SecretStr
from schemas import NoDefaultVariant, Required, RLConfig

from compose import (
    ArgvError,
    BaseConfig,
    ComposeError,
    ConfigValidationError,
    ErrorGroup,
    InterpolationError,
    Migration,
    OutputError,
    PointError,
    SourceError,
    UnknownKeyError,
    convert_value,
    move_key,
    renamed,
    versioned,
)

CWD = "{cwd}"
HYDRA_DBS = {"conf/db/mysql.yaml": "driver: mysql\n", "conf/db/sqlite.yaml": "driver: sqlite\n"}


@renamed({"max_tokens": "max_completion_tokens"})
class RenamedOrchestrator(BaseConfig):
    max_completion_tokens: int = 512
    """Longest completion to sample (formerly `max_tokens`)."""


class Renamed(BaseConfig):
    """A schema whose `orchestrator.max_tokens` was renamed to `max_completion_tokens`."""

    orchestrator: RenamedOrchestrator = RenamedOrchestrator()


class VersionedOptim(BaseConfig):
    lr: float = 1e-4
    max_norm: float = 1.0


class VersionedTrainer(BaseConfig):
    optim: VersionedOptim = VersionedOptim()
    seed: int = 0


@versioned(
    Migration(
        1,
        2,
        move_key("trainer.max_norm", "trainer.optim.max_norm"),
        convert_value("trainer.seed", int),
    )
)
class Versioned(BaseConfig):
    """A schema at version 2: `trainer.max_norm` moved into the optimizer, and `trainer.seed`,
    once written as text, is converted to a number (docs/18)."""

    trainer: VersionedTrainer = VersionedTrainer()


class KeyedApi(BaseConfig):
    key: SecretStr = SecretStr("")


class Keyed(BaseConfig):
    """A schema with a secret, `api.key`."""

    api: KeyedApi = KeyedApi()


class LoggedApi(BaseConfig):
    key: SecretStr = SecretStr("")
    header: str = ""


class Logged(BaseConfig):
    """A schema with a secret, `api.key`, and a plain text beside it, `api.header`."""

    api: LoggedApi = LoggedApi()


@dataclass(frozen=True)
class Case:
    """One class of bad input: what the user did, what they see, how they fix it."""

    name: str
    """A slug: the test id and the doc's anchor."""
    title: str
    did: str
    """What you did, in one line."""
    error: type[ComposeError]
    message: str
    """The exact `str(error)`; `{cwd}` stands for the working directory."""
    key: str | None
    """The error's `.key` (None where no key applies: a file that cannot be read, a stray token)."""
    origin: str | None
    """The error's `.origin`: `FILE:LINE`, the flag as typed, or None where none applies."""
    fix: str
    """How to fix it, in one line."""
    files: Mapping[str, str | bytes] = field(default_factory=dict)
    dirs: tuple[str, ...] = ()
    argv: tuple[str, ...] | None = None
    """`parse(schema, argv)`; when None, `compose(sources, overrides, schema=schema)`."""
    sources: tuple[str, ...] = ()
    overrides: tuple[str, ...] = ()
    schema: type[BaseModel] = RLConfig
    unset_env: tuple[str, ...] = ()
    env: Mapping[str, str] = field(default_factory=dict)
    """Environment variables set for the case."""
    flat: Mapping[str, Any] | None = None
    """`from_flat(schema, flat, argv)`: a flat dict from a tracker or a sweep agent."""
    check: tuple[str, ...] | None = None
    """`compose check PATH...`, its paths; `exit` is its status (1: a problem it found)."""
    command: tuple[str, ...] | None = None
    """Another `compose` command (`job DIR`, `migrate ...`), its arguments."""
    read_only: tuple[str, ...] = ()
    """Files of `files` made read-only (0444)."""
    exit: int = 2
    hydra: str | None = None
    """`compose_hydra(DIR, NAME, overrides)` for "DIR:NAME": a Hydra config tree."""
    hydra_schema: type[BaseModel] | None = None
    """`compose_hydra(..., schema=)`: the model a Hydra tree's config is validated against."""
    hydra_app: str | None = None
    """With `argv`: the app is a Hydra app, `cli(schema, hydra="DIR:NAME")` (DIR relative to
    the working directory), and `argv` its Hydra command line."""


class HydraTrainer(BaseModel):
    epochs: int


class HydraApp(BaseModel):
    """A Hydra app's schema."""

    trainer: HydraTrainer


@dataclass(frozen=True)
class Part:
    """A heading that groups the entries after it."""

    title: str


def _argv(text: str) -> tuple[str, ...]:
    return tuple(text.split())


ENTRIES: tuple[Part | Case, ...] = (
    Part("Files that cannot be read"),
    Case(
        name="missing-file",
        title="A file that does not exist",
        did="Named a file node whose path does not exist (here a typo: bsae.toml for base.toml).",
        files={"base.toml": "seed = 1\n"},
        argv=_argv("@ bsae.toml"),
        error=SourceError,
        message=f"bsae.toml: file not found; looked in {CWD}; did you mean base.toml?",
        key=None,
        origin="bsae.toml",
        fix="Check the spelling (the hint names a close file of the folders searched); a "
        "relative path is relative to the working directory shown.",
    ),
    Case(
        name="directory-as-file",
        title="A directory given as a file",
        did="Gave a directory where a TOML file was expected.",
        dirs=("conf",),
        files={"conf/rl.toml": "seed = 1\n"},
        argv=_argv("@ conf"),
        error=SourceError,
        message="conf: is a directory, not a file",
        key=None,
        origin="conf",
        fix="Name a file inside it: `@ conf/rl.toml`.",
    ),
    Case(
        name="not-utf8",
        title="A file that is not UTF-8",
        did="Loaded a file saved in Latin-1 (the é of café is the byte 0xe9).",
        files={"run.toml": "[trainer.model]\nname = 'café'\n".encode("latin-1")},
        argv=_argv("@ run.toml"),
        error=SourceError,
        message="run.toml:2: not valid UTF-8 (byte 0xe9)",
        key=None,
        origin="run.toml:2",
        fix="Save the file as UTF-8 (TOML files are UTF-8): `iconv -f latin1 -t utf-8`.",
    ),
    Part("TOML syntax"),
    Case(
        name="toml-unclosed-header",
        title="TOML: a table header without its `]`",
        did="Wrote `[trainer` instead of `[trainer]`.",
        files={"run.toml": "[trainer\nmicro_batch_size = 8\n"},
        argv=_argv("@ run.toml"),
        error=SourceError,
        message="run.toml:1:9: invalid TOML: Expected ']' at the end of a table declaration",
        key=None,
        origin="run.toml:1:9",
        fix="Close the header: `[trainer]`.",
    ),
    Case(
        name="toml-missing-equals",
        title="TOML: `key: value` instead of `key = value`",
        did="Wrote YAML's `name: 'x'` in a TOML file.",
        files={"run.toml": "[trainer.model]\nname: 'Qwen/Qwen3-8B'\n"},
        argv=_argv("@ run.toml"),
        error=SourceError,
        message="run.toml:2:5: invalid TOML: Expected '=' after a key in a key/value pair",
        key=None,
        origin="run.toml:2:5",
        fix="TOML assigns with `=`: `name = 'Qwen/Qwen3-8B'`.",
    ),
    Case(
        name="toml-unquoted-string",
        title="TOML: a string without quotes",
        did="Wrote `name = Qwen/Qwen3-8B` without quotes.",
        files={"run.toml": "[trainer.model]\nname = Qwen/Qwen3-8B\n"},
        argv=_argv("@ run.toml"),
        error=SourceError,
        message="run.toml:2:8: invalid TOML: Invalid value",
        key=None,
        origin="run.toml:2:8",
        fix="Quote text in TOML: `name = 'Qwen/Qwen3-8B'` (only numbers, booleans, arrays and "
        "tables go bare).",
    ),
    Case(
        name="toml-unterminated-string",
        title="TOML: a string that is never closed",
        did='Forgot the closing quote: `tag = "run-1`.',
        files={"run.toml": 'tag = "run-1\nseed = 1\n'},
        argv=_argv("@ run.toml"),
        error=SourceError,
        message="run.toml:1:13: invalid TOML: Illegal character '\\n'",
        key=None,
        origin="run.toml:1:13",
        fix='Close the string on the same line: `tag = "run-1"` (use """ for text over several '
        "lines).",
    ),
    Case(
        name="toml-duplicate-key",
        title="TOML: the same key twice in one file",
        did="Set `seed` twice in one file.",
        files={"run.toml": "seed = 1\nmax_steps = 10\nseed = 2\n"},
        argv=_argv("@ run.toml"),
        error=SourceError,
        message="run.toml:3:9: invalid TOML: Cannot overwrite a value",
        key=None,
        origin="run.toml:3:9",
        fix="Keep one of them; to override a value, put it in a later file or on the command line.",
    ),
    Case(
        name="toml-table-twice",
        title="TOML: the same table header twice",
        did="Opened `[trainer]` a second time further down the file.",
        files={"run.toml": "[trainer]\nmicro_batch_size = 8\n\n[trainer]\nlr_warmup_steps = 10\n"},
        argv=_argv("@ run.toml"),
        error=SourceError,
        message="run.toml:4:9: invalid TOML: Cannot declare ('trainer',) twice",
        key=None,
        origin="run.toml:4:9",
        fix="Merge the two `[trainer]` tables into one.",
    ),
    Case(
        name="toml-unclosed-array",
        title="TOML: an array without its `]`",
        did="Forgot the `]` of an array; the parser notices on the next line.",
        files={"run.toml": "[orchestrator]\nscores = [1, 2\nseq_len = 1024\n"},
        argv=_argv("@ run.toml"),
        error=SourceError,
        message="run.toml:3:1: invalid TOML: Unclosed array",
        key=None,
        origin="run.toml:3:1",
        fix="Close the array: `scores = [1, 2]` (the error points at where the parser gave up).",
    ),
    Part("Unknown keys in files"),
    Case(
        name="unknown-key-in-file",
        title="An unknown key in a file",
        did="Misspelled a top-level key in a file.",
        files={"run.toml": "sed = 3\n"},
        argv=_argv("@ run.toml"),
        error=UnknownKeyError,
        message="--sed = 3 (from run.toml:1): unknown key; did you mean --seed?",
        key="--sed",
        origin="run.toml:1",
        fix="Use the key suggested, or look the keys up with `app --help`.",
    ),
    Case(
        name="unknown-nested-key-in-file",
        title="An unknown key in a table",
        did="Misspelled a key inside `[trainer.model]`.",
        files={"run.toml": "[trainer.model]\nnmae = 'Qwen/Qwen3-8B'\n"},
        argv=_argv("@ run.toml"),
        error=UnknownKeyError,
        message=(
            "--trainer.model.nmae = 'Qwen/Qwen3-8B' (from run.toml:2): unknown key; "
            "did you mean --trainer.model.name?"
        ),
        key="--trainer.model.nmae",
        origin="run.toml:2",
        fix="Use the key suggested: in the file, `name` under `[trainer.model]`.",
    ),
    Case(
        name="key-in-wrong-section-of-file",
        title="A key in the wrong table",
        did="Put `seq_len`, an orchestrator key, under `[trainer]`.",
        files={"run.toml": "[trainer]\nseq_len = 4096\n"},
        argv=_argv("@ run.toml"),
        error=UnknownKeyError,
        message=(
            "--trainer.seq-len = 4096 (from run.toml:2): unknown key; "
            "did you mean --orchestrator.seq-len?"
        ),
        key="--trainer.seq-len",
        origin="run.toml:2",
        fix="Move the key to the table the suggestion names: `[orchestrator]`.",
    ),
    Case(
        name="unknown-table-in-file",
        title="A table at the wrong level",
        did="Wrote `[wandb]` at the top level; it lives under the orchestrator.",
        files={"run.toml": "[wandb]\nproject = 'rl'\n"},
        argv=_argv("@ run.toml"),
        error=UnknownKeyError,
        message=(
            "--wandb = {'project': ...} (from run.toml:1): unknown key; "
            "did you mean --orchestrator.wandb?"
        ),
        key="--wandb",
        origin="run.toml:1",
        fix="Rename the header to the suggested path: `[orchestrator.wandb]`.",
    ),
    Case(
        name="unknown-key-in-list-element",
        title="An unknown key in an element of a list of tables",
        did="Misspelled a key in the first `[[orchestrator.env]]` element.",
        files={"run.toml": "[[orchestrator.env]]\nid = 'reverse-text'\nwieght = 2.0\n"},
        argv=_argv("@ run.toml"),
        error=UnknownKeyError,
        message=(
            "--orchestrator.env.0.wieght = 2.0 (from run.toml:3): unknown key; "
            "did you mean --orchestrator.env.0.weight?"
        ),
        key="--orchestrator.env.0.wieght",
        origin="run.toml:3",
        fix="Use the key suggested; the index (0) says which element holds the typo.",
    ),
    Case(
        name="key-of-another-variant-in-file",
        title="A key of another variant of a union",
        did="Set `momentum` (a Muon key) while the optimizer is still the default, AdamW.",
        files={"run.toml": "[trainer.optim]\nmomentum = 0.9\n"},
        argv=_argv("@ run.toml"),
        error=UnknownKeyError,
        message=(
            "--trainer.optim.momentum = 0.9 (from run.toml:2): unknown key; "
            "only muon has it: choose it with --trainer.optim.type muon"
        ),
        key="--trainer.optim.momentum",
        origin="run.toml:2",
        fix="Choose the variant that has the key: `type = 'muon'` in the same table (or the flag "
        "shown).",
    ),
    Case(
        name="kebab-key-in-file",
        title="A kebab-case key in a file",
        did="Wrote `batch-size` (the flag's spelling) in a TOML file.",
        files={"run.toml": "[orchestrator]\nbatch-size = 64\n"},
        argv=_argv("@ run.toml"),
        error=UnknownKeyError,
        message=(
            "--orchestrator.batch-size = 64 (from run.toml:2): unknown key; "
            "keys in files are snake_case: write batch_size"
        ),
        key="--orchestrator.batch-size",
        origin="run.toml:2",
        fix="Flags are kebab-case, TOML keys snake_case: `batch_size = 64`.",
    ),
    Case(
        name="unknown-key-in-section-file",
        title="An unknown key in a file loaded into a section",
        did="Loaded model.toml into `--trainer.model`; its keys are relative to that section.",
        files={"model.toml": "nmae = 'Qwen/Qwen3-8B'\n"},
        argv=_argv("--trainer.model @ model.toml"),
        error=UnknownKeyError,
        message=(
            "--trainer.model.nmae = 'Qwen/Qwen3-8B' (from model.toml:1): unknown key; "
            "did you mean --trainer.model.name?"
        ),
        key="--trainer.model.nmae",
        origin="model.toml:1",
        fix="Fix the key in the file; the message shows its full path in the config.",
    ),
    Part("Unknown flags and override keys"),
    Case(
        name="unknown-flag",
        title="A misspelled flag",
        did="Typed `--max-step` for `--max-steps`.",
        argv=_argv("--max-step 100"),
        error=UnknownKeyError,
        message="--max-step = '100': unknown key; did you mean --max-steps?",
        key="--max-step",
        origin="--max-step",
        fix="Use the flag suggested, or list the flags with `app --help`.",
    ),
    Case(
        name="flag-in-wrong-section",
        title="A flag under the wrong section",
        did="Typed `--trainer.batch-size`; the batch size is the orchestrator's.",
        argv=_argv("--trainer.batch-size 64"),
        error=UnknownKeyError,
        message="--trainer.batch-size = '64': unknown key; did you mean --orchestrator.batch-size?",
        key="--trainer.batch-size",
        origin="--trainer.batch-size",
        fix="Use the full path suggested: `--orchestrator.batch-size 64`.",
    ),
    Case(
        name="unknown-flag-in-list-element",
        title="A misspelled field of a list element",
        did="Typed `--orchestrator.env.0.idd` for the `id` of the first env.",
        argv=_argv("--orchestrator.env.0.idd math"),
        error=UnknownKeyError,
        message=(
            "--orchestrator.env.0.idd = 'math': unknown key; did you mean --orchestrator.env.0.id?"
        ),
        key="--orchestrator.env.0.idd",
        origin="--orchestrator.env.0.idd",
        fix="Use the flag suggested: `--orchestrator.env.0.id math`.",
    ),
    Case(
        name="flag-of-another-variant",
        title="A flag of another variant of a union",
        did="Set `--orchestrator.algo.temperature` while the algorithm is the default, grpo.",
        argv=_argv("--orchestrator.algo.temperature 0.7"),
        error=UnknownKeyError,
        message=(
            "--orchestrator.algo.temperature = '0.7': unknown key; only max_rl has it: "
            "choose it with --orchestrator.algo.type max_rl"
        ),
        key="--orchestrator.algo.temperature",
        origin="--orchestrator.algo.temperature",
        fix="Choose the variant too: `--orchestrator.algo.type max_rl "
        "--orchestrator.algo.temperature 0.7`.",
    ),
    Case(
        name="unknown-flag-without-close-match",
        title="A flag that resembles no key",
        did="Typed `--trainer.epochs`, which is like no key of the schema.",
        argv=_argv("--trainer.epochs 3"),
        error=UnknownKeyError,
        message="--trainer.epochs = '3': unknown key",
        key="--trainer.epochs",
        origin="--trainer.epochs",
        fix="List the keys with `app --help trainer`; the schema may call it something else "
        "(here `--max-steps`).",
    ),
    Case(
        name="help-for-no-such-section",
        title="`--help` for a section that does not exist",
        did="Asked for `--help trainer.optm`, a misspelled section.",
        argv=_argv("--help trainer.optm"),
        error=UnknownKeyError,
        message="--trainer.optm (from --help): no such section; did you mean --help trainer.optim?",
        key="--trainer.optm",
        origin="--help",
        fix="Ask for the section suggested; `app --help` shows them all.",
    ),
    Case(
        name="unknown-key-in-override",
        title="An unknown key in a `compose()` override",
        did="Passed an override string naming a key the schema does not have.",
        files={"base.toml": "seed = 1\n"},
        sources=("base.toml",),
        overrides=("trainer.micro_batch=3",),
        error=UnknownKeyError,
        message=(
            "--trainer.micro-batch = '3' (from override trainer.micro_batch): unknown key; "
            "did you mean --trainer.micro-batch-size?"
        ),
        key="--trainer.micro-batch",
        origin="override trainer.micro_batch",
        fix="Use the key suggested (`trainer.micro_batch_size=3`).",
    ),
    Part("Values the schema rejects"),
    Case(
        name="wrong-type-in-file",
        title="A value of the wrong type in a file",
        did="Wrote a word where the schema wants an integer.",
        files={"run.toml": "[trainer]\nmicro_batch_size = 'eight'\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message=(
            "--trainer.micro-batch-size = 'eight' (from run.toml:2): "
            "Input should be a valid integer, unable to parse string as an integer"
        ),
        key="--trainer.micro-batch-size",
        origin="run.toml:2",
        fix="Give a value of the field's type (`app --help` shows it): `micro_batch_size = 8`.",
    ),
    Case(
        name="wrong-type-on-command-line",
        title="A flag value of the wrong type",
        did="Gave a word to a float flag.",
        argv=_argv("--trainer.optim.lr fast"),
        error=ConfigValidationError,
        message=(
            "--trainer.optim.lr = 'fast': Input should be a valid number, "
            "unable to parse string as a number"
        ),
        key="--trainer.optim.lr",
        origin="--trainer.optim.lr",
        fix="Give a number: `--trainer.optim.lr 3e-4`.",
    ),
    Case(
        name="wrong-type-in-list",
        title="A list element of the wrong type",
        did="Gave a word among the integers of a `list[int]` flag.",
        argv=_argv("--orchestrator.scores 1 two 3"),
        error=ConfigValidationError,
        message=(
            "--orchestrator.scores.1 = 'two' (from --orchestrator.scores): "
            "Input should be a valid integer, unable to parse string as an integer"
        ),
        key="--orchestrator.scores.1",
        origin="--orchestrator.scores",
        fix="Fix the element the index names (counting from 0): `--orchestrator.scores 1 2 3`.",
    ),
    Case(
        name="wrong-type-in-dict",
        title="A dict value of the wrong type",
        did="Wrote an integer in `env_vars`, a `dict[str, str]`.",
        files={"run.toml": "[trainer.env_vars]\nCUDA_VISIBLE_DEVICES = 0\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message=(
            "--trainer.env-vars.CUDA_VISIBLE_DEVICES = 0 (from run.toml:2): "
            "Input should be a valid string"
        ),
        key="--trainer.env-vars.CUDA_VISIBLE_DEVICES",
        origin="run.toml:2",
        fix="Quote it: `CUDA_VISIBLE_DEVICES = '0'`.",
    ),
    Case(
        name="value-fits-no-member-of-union",
        title="A value that fits none of the types of a union",
        did="Gave 1.5 to `seed: int | str | None`.",
        files={"run.toml": "[orchestrator.sampling]\nseed = 1.5\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message=(
            "--orchestrator.sampling.seed = 1.5 (from run.toml:2): Input should be a valid "
            "integer, got a number with a fractional part; or Input should be a valid string"
        ),
        key="--orchestrator.sampling.seed",
        origin="run.toml:2",
        fix="Give a value of one of the types, each of which said why it refused: `seed = 1`.",
    ),
    Case(
        name="none-not-allowed-on-command-line",
        title="None for a field that does not accept it",
        did="Passed `None` to `--seed`, an `int` field.",
        argv=_argv("--seed None"),
        error=ConfigValidationError,
        message="--seed = 'None': does not accept None",
        key="--seed",
        origin="--seed",
        fix="Give a value; only fields typed `X | None` accept None.",
    ),
    Case(
        name="none-not-allowed-in-file",
        title='"None" in a file for a field that does not accept it',
        did='Wrote `"None"` (TOML\'s spelling of None) for an `int` field.',
        files={"run.toml": "[trainer]\nmicro_batch_size = 'None'\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message="--trainer.micro-batch-size = 'None' (from run.toml:2): does not accept None",
        key="--trainer.micro-batch-size",
        origin="run.toml:2",
        fix="Give a value, or delete the line to keep the default.",
    ),
    Case(
        name="bad-bool-on-command-line",
        title="A boolean flag given something else",
        did="Passed `yes` to a boolean flag.",
        argv=_argv("--dry-run yes"),
        error=ConfigValidationError,
        message="--dry-run = 'yes': expects a boolean: true, false, 1 or 0",
        key="--dry-run",
        origin="--dry-run",
        fix="Use `--dry-run`, `--no-dry-run` or `--dry-run true|false|1|0`.",
    ),
    Case(
        name="bad-bool-in-file",
        title="A boolean key given something else in a file",
        did="Wrote `dry_run = 'maybe'`.",
        files={"run.toml": "dry_run = 'maybe'\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message=(
            "--dry-run = 'maybe' (from run.toml:1): Input should be a valid boolean, "
            "unable to interpret input"
        ),
        key="--dry-run",
        origin="run.toml:1",
        fix="Use a TOML boolean: `dry_run = true`.",
    ),
    Case(
        name="bad-literal-choice",
        title="A value outside a fixed set of choices",
        did="Passed `flash` to `attn: Literal['sdpa', 'flash_attention_2']`.",
        argv=_argv("--trainer.model.attn flash"),
        error=ConfigValidationError,
        message="--trainer.model.attn = 'flash': Input should be 'sdpa' or 'flash_attention_2'",
        key="--trainer.model.attn",
        origin="--trainer.model.attn",
        fix="Pick one of the choices listed: `--trainer.model.attn flash_attention_2`.",
    ),
    Case(
        name="bad-enum-choice",
        title="A value that is not a member of an enum",
        did="Passed `fp16` to a `DType` enum field.",
        argv=_argv("--trainer.dtype fp16"),
        error=ConfigValidationError,
        message="--trainer.dtype = 'fp16': Input should be 'bfloat16' or 'float32'",
        key="--trainer.dtype",
        origin="--trainer.dtype",
        fix="Pick one of the values listed: `--trainer.dtype bfloat16`.",
    ),
    Case(
        name="unknown-union-tag",
        title="An unknown variant of a union",
        did="Chose `sgd` as the optimizer; the schema knows adamw and muon.",
        argv=_argv("--trainer.optim.type sgd"),
        error=ConfigValidationError,
        message=(
            "--trainer.optim.type = 'sgd': Input tag 'sgd' found using 'type' "
            "does not match any of the expected tags: 'adamw', 'muon'"
        ),
        key="--trainer.optim.type",
        origin="--trainer.optim.type",
        fix="Choose one of the tags listed: `--trainer.optim.type muon`.",
    ),
    Case(
        name="union-without-variant",
        title="A union section without a variant",
        did="Set a field of `optim`, a union with no default, without choosing its `type`.",
        schema=NoDefaultVariant,
        argv=_argv("--optim.lr 0.1"),
        error=ConfigValidationError,
        message="--optim: no variant chosen: set --optim.type to one of adamw, muon",
        key="--optim",
        origin=None,
        fix="Choose the variant: `--optim.type adamw --optim.lr 0.1` (or `type = ...` in a file).",
    ),
    Case(
        name="required-value-missing",
        title="A required value left out",
        did="Ran without `name`, a field that has no default.",
        schema=Required,
        argv=(),
        error=ConfigValidationError,
        message="--name: missing required value",
        key="--name",
        origin=None,
        fix="Set it: `--name NAME`, or `name = ...` in a file.",
    ),
    Case(
        name="required-value-missing-in-section",
        title="A required value of a section left out",
        did="Enabled the opd algorithm's `teacher` but gave only its name, not its base_url.",
        argv=_argv("--orchestrator.algo.type opd --orchestrator.algo.teacher.name qwen-72b"),
        error=ConfigValidationError,
        message="--orchestrator.algo.teacher.base-url: missing required value",
        key="--orchestrator.algo.teacher.base-url",
        origin=None,
        fix="Set it: `--orchestrator.algo.teacher.base-url http://localhost:8000/v1`.",
    ),
    Part("Paths that do not fit the config's shape"),
    Case(
        name="index-out-of-range",
        title="A list index past the end",
        did="Set a field of element 3 of a list that has one element.",
        argv=_argv("--orchestrator.env.3.id math"),
        error=ArgvError,
        message=(
            "--orchestrator.env.3.id: index 3 is out of range: "
            "the list has 1 element (index 1 appends one)"
        ),
        key="--orchestrator.env.3.id",
        origin="--orchestrator.env.3.id",
        fix="Use an existing index, or the length to append one element: "
        "`--orchestrator.env.1.id math`.",
    ),
    Case(
        name="name-where-an-index-goes",
        title="A name where a list index goes",
        did="Addressed a list element by a name instead of its index.",
        argv=_argv("--orchestrator.env.first.id math"),
        error=ArgvError,
        message=(
            "--orchestrator.env (from --orchestrator.env.first.id): is a list: "
            "expected an index, got 'first'"
        ),
        key="--orchestrator.env",
        origin="--orchestrator.env.first.id",
        fix="Use the element's index, counting from 0: `--orchestrator.env.0.id math`.",
    ),
    Case(
        name="index-path-in-file",
        title="A list index in a TOML header",
        did="Wrote `[orchestrator.env.0]` in a file; index paths are a command-line form.",
        files={"run.toml": "[orchestrator.env.0]\nid = 'math'\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message=(
            "--orchestrator.env = {'0': {'id': 'math'}} (from run.toml:1): "
            "Input should be a valid list"
        ),
        key="--orchestrator.env",
        origin="run.toml:1",
        fix="In TOML, write the list's elements as `[[orchestrator.env]]` tables, in order.",
    ),
    Case(
        name="key-below-a-value",
        title="A sub-key of a plain value",
        did="Addressed `--seed.value`, but `seed` is an integer, not a section.",
        argv=_argv("--seed.value 1"),
        error=ArgvError,
        message="--seed (from --seed.value): is a value, not a section: it has no key 'value'",
        key="--seed",
        origin="--seed.value",
        fix="Set the value itself: `--seed 1`.",
    ),
    Case(
        name="file-into-a-value",
        title="A file loaded into a plain value",
        did="Gave `--seed @ seed.toml`; only sections take a file.",
        files={"seed.toml": "seed = 1\n"},
        argv=_argv("--seed @ seed.toml"),
        error=ArgvError,
        message=(
            "--seed (from --seed @ seed.toml): is a value, not a section: "
            "a file can only be loaded into a section"
        ),
        key="--seed",
        origin="--seed @ seed.toml",
        fix="Load the file at the root (`@ seed.toml`), or give the value (`--seed 1`).",
    ),
    Case(
        name="json-for-a-section",
        title="JSON for a section",
        did="Gave a section a JSON object, as one would a dict.",
        argv=("--trainer.model", '{"name": "Qwen/Qwen3-8B"}'),
        error=ArgvError,
        message=(
            '--trainer.model = \'{"name": "Qwen/Qwen3-8B"}\': is a section: set its fields one '
            "by one, or load a file into it; use --trainer.model.FIELD VALUE or "
            "--trainer.model @ FILE"
        ),
        key="--trainer.model",
        origin="--trainer.model",
        fix="Set the field: `--trainer.model.name Qwen/Qwen3-8B`.",
    ),
    Part("Malformed command lines and overrides"),
    Case(
        name="flag-missing-its-value",
        title="A flag without its value",
        did="Left out the value of `--trainer.model.name`; the next token is a flag.",
        argv=_argv("--trainer.model.name --max-steps 10"),
        error=ArgvError,
        message="--trainer.model.name: expects a value",
        key="--trainer.model.name",
        origin="--trainer.model.name",
        fix="Give the value right after the flag: `--trainer.model.name Qwen/Qwen3-8B`.",
    ),
    Case(
        name="too-many-values",
        title="Several values for a single-valued flag",
        did="Gave a value with a space, unquoted: `--tag my run`.",
        argv=_argv("--tag my run"),
        error=ArgvError,
        message="--tag = 'my run': takes one value, got 2; quote a value that contains spaces",
        key="--tag",
        origin="--tag",
        fix="Quote it for the shell: `--tag 'my run'`.",
    ),
    Case(
        name="stray-token",
        title="A token that is neither a flag nor a file",
        did="Wrote `seed=3` (Hydra's override form) on the command line.",
        argv=_argv("seed=3"),
        error=ArgvError,
        message="'seed=3': unexpected argument; flags start with --, files are given as @ FILE",
        key=None,
        origin=None,
        fix="Write a flag: `--seed 3` or `--seed=3`.",
    ),
    Case(
        name="at-without-a-file",
        title="`@` without a file",
        did="Ended the command line with `--trainer @`.",
        files={"base.toml": "seed = 1\n"},
        argv=_argv("@ base.toml --trainer @"),
        error=ArgvError,
        message="--trainer @: @ must be followed by a file",
        key=None,
        origin="--trainer @",
        fix="Name the file: `--trainer @ trainer.toml`.",
    ),
    Case(
        name="malformed-flag",
        title="A malformed flag",
        did="Typed three dashes: `---seed`.",
        argv=_argv("---seed 1"),
        error=ArgvError,
        message="'---seed': malformed flag",
        key=None,
        origin=None,
        fix="Flags are `--` and a dotted key: `--seed 1`.",
    ),
    Case(
        name="negating-a-value",
        title="`--no-` before a flag that is not a boolean",
        did="Typed `--no-seed`; `seed` is an integer.",
        argv=_argv("--no-seed"),
        error=ArgvError,
        message="--no-seed: is neither a boolean nor optional: it cannot be negated",
        key="--no-seed",
        origin="--no-seed",
        fix="`--no-` only turns off booleans and optional sections; give `--seed` a value.",
    ),
    Case(
        name="bad-json-for-a-dict",
        title="Bad JSON for a dict",
        did="Gave a dict flag JSON without quotes around its keys.",
        argv=("--inference.vllm-extra", "{max_num_seqs: 8}"),
        error=ArgvError,
        message=(
            "--inference.vllm-extra = '{max_num_seqs: 8}': invalid JSON: "
            "Expecting property name enclosed in double quotes at column 2"
        ),
        key="--inference.vllm-extra",
        origin="--inference.vllm-extra",
        fix="""Quote the keys, and the whole value for the shell: `'{"max_num_seqs": 8}'`, """
        "or set one key: `--inference.vllm-extra.max_num_seqs 8`.",
    ),
    Case(
        name="json-array-for-a-dict",
        title="A JSON array for a dict",
        did="Gave a dict flag a JSON list.",
        argv=("--inference.vllm-extra", '["--enforce-eager"]'),
        error=ArgvError,
        message="--inference.vllm-extra = '[\"--enforce-eager\"]': expects a JSON object",
        key="--inference.vllm-extra",
        origin="--inference.vllm-extra",
        fix="""Give an object: `'{"enforce_eager": true}'`.""",
    ),
    Case(
        name="bad-json-for-a-list",
        title="Bad JSON for a list",
        did="Started a list value with `[` (JSON) and did not close it.",
        argv=("--orchestrator.scores", "[1, 2"),
        error=ArgvError,
        message=(
            "--orchestrator.scores = '[1, 2': invalid JSON: Expecting ',' delimiter at column 6"
        ),
        key="--orchestrator.scores",
        origin="--orchestrator.scores",
        fix="Close the JSON (`'[1, 2]'`), or give the elements as tokens: "
        "`--orchestrator.scores 1 2`.",
    ),
    Case(
        name="bad-override-string",
        title="An override string that is not `key=value`",
        did="Passed `seed` to `compose(overrides=...)`, without `=value`.",
        files={"base.toml": "seed = 1\n"},
        sources=("base.toml",),
        overrides=("seed",),
        error=ArgvError,
        message="'seed' (from overrides): an override is key=value, key+=value, key=@file or ~key",
        key=None,
        origin="overrides",
        fix="Write `seed=3`, `trainer=@trainer.toml` or `~seed`.",
    ),
    Part("Validators"),
    Case(
        name="field-validator",
        title="A value a field validator rejects",
        did="Set `micro_batch_size = 0`; its validator wants a positive number.",
        files={"run.toml": "[trainer]\nmicro_batch_size = 0\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message=(
            "--trainer.micro-batch-size = 0 (from run.toml:2): micro_batch_size must be positive"
        ),
        key="--trainer.micro-batch-size",
        origin="run.toml:2",
        fix="Give a value the validator's message allows.",
    ),
    Case(
        name="section-validator",
        title="A combination a section's validator rejects",
        did="Set `cp = 2` with `attn = 'sdpa'`; context parallelism needs flash attention.",
        files={"run.toml": "[trainer.model]\ncp = 2\nattn = 'sdpa'\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message=(
            "--trainer.model: context parallelism (cp > 1) requires attn = 'flash_attention_2'"
        ),
        key="--trainer.model",
        origin=None,
        fix="Change one of the values the message names, in the section it names.",
    ),
    Case(
        name="root-validator",
        title="A combination the root validator rejects",
        did="Capped `max_model_len` below the orchestrator's `seq_len` (2048 by default).",
        files={"run.toml": "[trainer.model]\nmax_model_len = 1024\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message="(root): orchestrator.seq_len (2048) exceeds trainer.model.max_model_len (1024)",
        key="(root)",
        origin=None,
        fix="Make the values agree: `--orchestrator.seq-len 1024`, or raise max_model_len.",
    ),
    Part("Interpolation"),
    Case(
        name="interpolation-missing-key",
        title="An interpolation of a key that does not exist",
        did="Referred to `${trainer.model.nam}`, a typo.",
        files={"run.toml": "tag = 'run-${trainer.model.nam}'\n"},
        argv=_argv("@ run.toml"),
        error=InterpolationError,
        message=(
            "--tag = 'run-${trainer.model.nam}' (from run.toml:1): interpolation "
            "${trainer.model.nam}: key trainer.model.nam not found; "
            "did you mean trainer.model.name?"
        ),
        key="--tag",
        origin="run.toml:1",
        fix="Interpolation paths are absolute dotted snake_case keys: `${trainer.model.name}`.",
    ),
    Case(
        name="interpolation-cycle",
        title="Interpolations that refer to each other",
        did="Made `tag` refer to the model name and the model name refer to `tag`.",
        files={"run.toml": "tag = '${trainer.model.name}'\n[trainer.model]\nname = '${tag}'\n"},
        argv=_argv("@ run.toml"),
        error=InterpolationError,
        message=(
            "--trainer.model.name = '${tag}' (from run.toml:3): interpolation ${tag}: "
            "cycle tag -> trainer.model.name -> tag"
        ),
        key="--trainer.model.name",
        origin="run.toml:3",
        fix="Break the cycle: give one of the keys in the chain a plain value.",
    ),
    Case(
        name="interpolation-syntax",
        title="An interpolation that is not closed",
        did="Wrote `${trainer.model.name` without its `}`.",
        files={"run.toml": "tag = '${trainer.model.name'\n"},
        argv=_argv("@ run.toml"),
        error=InterpolationError,
        message=(
            "--tag = '${trainer.model.name' (from run.toml:1): invalid interpolation syntax: "
            "unexpected end of text at column 21"
        ),
        key="--tag",
        origin="run.toml:1",
        fix="Close it: `${trainer.model.name}`; for a literal `${`, write `\\${`.",
    ),
    Case(
        name="unknown-resolver",
        title="An unknown resolver",
        did="Used `${today:...}`, a resolver that is not registered.",
        files={"run.toml": "tag = '${today:%Y-%m-%d}'\n"},
        argv=_argv("@ run.toml"),
        error=InterpolationError,
        message=(
            "--tag = '${today:%Y-%m-%d}' (from run.toml:1): interpolation ${today:%Y-%m-%d}: "
            "unknown resolver today; known resolvers: now, oc.env, oc.select"
        ),
        key="--tag",
        origin="run.toml:1",
        fix="Register it first (`compose.register_resolver('today', fn)`) or use a known one.",
    ),
    Case(
        name="unset-environment-variable",
        title="An environment variable that is not set",
        did="Used `${oc.env:RUN_NAME}` with RUN_NAME unset and no default.",
        files={"run.toml": "tag = '${oc.env:RUN_NAME}'\n"},
        argv=_argv("@ run.toml"),
        unset_env=("RUN_NAME",),
        error=InterpolationError,
        message=(
            "--tag = '${oc.env:RUN_NAME}' (from run.toml:1): interpolation ${oc.env:RUN_NAME}: "
            "environment variable RUN_NAME is not set; set it, or give a default: "
            "${oc.env:RUN_NAME,default}"
        ),
        key="--tag",
        origin="run.toml:1",
        fix="Export the variable, or give a default: `${oc.env:RUN_NAME,debug}`.",
    ),
    Case(
        name="mandatory-value-unset",
        title="A mandatory `???` value left unset",
        did="Composed a base file that marks the model name `???`, without setting it.",
        files={"base.toml": "[trainer.model]\nname = '???'\n"},
        argv=_argv("@ base.toml"),
        error=InterpolationError,
        message="--trainer.model.name = '???' (from base.toml:2): missing mandatory value",
        key="--trainer.model.name",
        origin="base.toml:2",
        fix="Set it in a later file or with `--trainer.model.name NAME`.",
    ),
    Case(
        name="interpolation-copies-secret",
        title="A secret copied into a field that is not secret",
        did="Built a plain `str` header from the API key: `header = 'Bearer ${api.key}'`.",
        schema=Logged,
        files={"run.toml": "[api]\nkey = 'sk-123'\nheader = 'Bearer ${api.key}'\n"},
        argv=_argv("@ run.toml"),
        error=InterpolationError,
        message=(
            "--api.header = 'Bearer ${api.key}' (from run.toml:3): interpolation ${api.key}: "
            "copies the secret api.key into api.header, which is not a secret field: its value "
            "would be shown and recorded in clear; make api.header a SecretStr (the app reads "
            "it with .get_secret_value())"
        ),
        key="--api.header",
        origin="run.toml:3",
        fix=(
            "Type the field `SecretStr` (compose masks a value by its field's type), or build "
            "the text in the app from `config.api.key.get_secret_value()`."
        ),
    ),
    Part("Renamed keys"),
    Case(
        name="renamed-key-and-new-key-in-file",
        title="A renamed key and its new name in one file",
        did="Set both `max_tokens` (the old name) and `max_completion_tokens` in one file.",
        schema=Renamed,
        files={"run.toml": "[orchestrator]\nmax_tokens = 256\nmax_completion_tokens = 512\n"},
        argv=_argv("@ run.toml"),
        error=ConfigValidationError,
        message=(
            "--orchestrator.max-tokens (from run.toml:2): both `max_tokens` and its new name "
            "`max_completion_tokens` are set; keep only `max_completion_tokens`"
        ),
        key="--orchestrator.max-tokens",
        origin="run.toml:2",
        fix="Delete the old key and keep the new one.",
    ),
    Case(
        name="renamed-flag-and-new-flag",
        title="A renamed flag and its new name together",
        did="Passed both `--orchestrator.max-tokens` (the old name) and its new name.",
        schema=Renamed,
        argv=_argv("--orchestrator.max-tokens 256 --orchestrator.max-completion-tokens 512"),
        error=ArgvError,
        message=(
            "--orchestrator.max-completion-tokens (from --orchestrator.max-tokens): both "
            "--orchestrator.max-tokens and its new name --orchestrator.max-completion-tokens are "
            "set; keep only --orchestrator.max-completion-tokens"
        ),
        key="--orchestrator.max-completion-tokens",
        origin="--orchestrator.max-tokens",
        fix="Drop the old flag.",
    ),
    Part("Schema versions and migrations"),
    Case(
        name="migration-step-fails",
        title="A value a migration step cannot convert",
        did="Loaded an old file whose `seed` the schema's migration converts with `int`.",
        schema=Versioned,
        files={"old.toml": '[trainer]\nseed = "seven"\n'},
        argv=_argv("@ old.toml"),
        error=ConfigValidationError,
        message=(
            "--trainer.seed = 'seven' (from old.toml:2): migration 1 -> 2 failed: ValueError: "
            "invalid literal for int() with base 10: 'seven'"
        ),
        key="--trainer.seed",
        origin="old.toml:2",
        fix="Write the value in its new format (`seed = 7`), then `compose migrate` the file.",
    ),
    Case(
        name="migration-old-and-new-key",
        title="A moved key and its new place in one old file",
        did="Set `trainer.max_norm`, which version 2 moves, and its new place, in one old file.",
        schema=Versioned,
        files={"both.toml": "[trainer]\nmax_norm = 0.5\n[trainer.optim]\nmax_norm = 0.1\n"},
        argv=_argv("@ both.toml"),
        error=ConfigValidationError,
        message=(
            "--trainer.max-norm = 0.5 (from both.toml:2): migration 1 -> 2 failed: both it and "
            "its new name --trainer.optim.max-norm are set; keep only --trainer.optim.max-norm"
        ),
        key="--trainer.max-norm",
        origin="both.toml:2",
        fix="Delete the old key and keep the new one.",
    ),
    Case(
        name="file-newer-than-schema",
        title="A file written for a newer schema",
        did="Loaded a file stamped `schema_version = 3` with an app at version 2.",
        schema=Versioned,
        files={"new.toml": "schema_version = 3\n"},
        argv=_argv("@ new.toml"),
        error=ConfigValidationError,
        message=(
            "schema_version = 3 (from new.toml:1): the file is written for a newer schema: this "
            "app reads versions up to 2; run it with the version of the app that wrote it"
        ),
        key="schema_version",
        origin="new.toml:1",
        fix="Upgrade the app, or run the version that wrote the file.",
    ),
    Case(
        name="bad-schema-version",
        title="A schema version that is not a whole number",
        did='Wrote `schema_version = "2"` (text) at the top of a file.',
        schema=Versioned,
        files={"bad.toml": 'schema_version = "2"\n'},
        argv=_argv("@ bad.toml"),
        error=ConfigValidationError,
        message=(
            "schema_version = '2' (from bad.toml:1): is not a schema version: a whole number from 1"
        ),
        key="schema_version",
        origin="bad.toml:1",
        fix="Write the number without quotes: `schema_version = 2`.",
    ),
    Case(
        name="migrate-read-only-file",
        title="`compose migrate` of a read-only file",
        did="Migrated two old files, the second of which is read-only (`chmod a-w`).",
        schema=Versioned,
        files={"a.toml": "[trainer]\nmax_norm = 0.5\n", "b.toml": "[trainer]\nmax_norm = 0.1\n"},
        read_only=("b.toml",),
        command=("migrate", "--schema", "error_catalogue:Versioned", "a.toml", "b.toml"),
        error=OutputError,
        message=(
            "b.toml: is read-only: it is not replaced, and nothing else was written; "
            "make it writable (chmod u+w) if it is to be rewritten"
        ),
        key=None,
        origin="b.toml",
        fix="Make it writable if it is to be migrated (`chmod u+w b.toml`), or leave it out; "
        "a.toml was not written either.",
    ),
    Part("Run records"),
    Case(
        name="from-run-record-field",
        title="A run.json field of the wrong kind",
        did="Reran a run (`--from-run run`) whose run.json, edited by hand, lists its sources.",
        files={"run/run.json": '{"argv": ["@", "rl.toml"], "sources": ["rl.toml"]}\n'},
        argv=_argv("--from-run run"),
        error=SourceError,
        message=(
            "sources = ['rl.toml'] (from run/run.json): expects a table of file names (text "
            "without a NUL or a lone surrogate) and their sha256"
        ),
        key="sources",
        origin="run/run.json",
        fix="Rerun a record compose wrote (`sources` maps each file read to its sha256), or "
        "compose the run again from its files.",
    ),
    Case(
        name="job-variable-name",
        title="A job's variable whose name holds `=`",
        did="Ran `compose job p` on a point whose job.json sets a variable named `A=B`.",
        files={"p/job.json": '{"argv": ["true"], "env": {"A=B": "1"}, "cwd": "/"}\n'},
        command=("job", "p"),
        error=SourceError,
        message=(
            "env = {'A=B': '1'} (from p/job.json): expects a table of variables: names without "
            "'=', names and values text without a NUL or a lone surrogate"
        ),
        key="env",
        origin="p/job.json",
        fix="Name the variable without `=` (the OS reads `A=B=1` as A set to `B=1`), or write "
        "the sweep's records again.",
    ),
    Case(
        name="job-record-not-json",
        title="A job.json that is not JSON",
        did="Ran `compose job p` on a point whose job.json was cut short (a full disk, an edit).",
        files={"p/job.json": '{"argv": ["true"], "env": {'},
        command=("job", "p"),
        error=SourceError,
        message="p/job.json: is not JSON: Expecting property name enclosed in double quotes",
        key=None,
        origin="p/job.json",
        fix="Write the sweep's records again (the same sweep rewrites them); compose writes each "
        "record whole, so only a hand or another program leaves one cut.",
    ),
    Case(
        name="rerun-into-its-own-record",
        title="A rerun with changes into the run's own directory",
        did="Reran a run with a change, its output directory still the run's: `--from-run first "
        "--seed 2`.",
        files={
            "base.toml": "seed = 1\n",
            "first/run.json": '{"argv": ["@", "base.toml", "--output-dir", "first"]}\n',
        },
        argv=_argv("--from-run first --seed 2"),
        error=ArgvError,
        message=(
            "--from-run = 'first': a rerun with changes is a new run, but its --output-dir is "
            "still first, whose record it would rewrite; give it its own --output-dir (naming "
            "first with --output-dir replaces its record)"
        ),
        key="--from-run",
        origin=None,
        fix="Give the new run its own `--output-dir`; name the run's own (`--output-dir first`) "
        "to replace its record.",
    ),
    Case(
        name="record-argv-not-one-run",
        title="A run record whose argv is not one run's",
        did="Reran a `run.json` whose `argv` holds a sweep flag (a crafted or damaged record).",
        files={"first/run.json": '{"argv": ["--sweep.seed", "1", "2"]}\n'},
        argv=_argv("--from-run first"),
        error=ComposeError,
        message=(
            "argv = '--sweep.seed' (from first/run.json): holds a flag no run's record holds: a "
            "record's argv is one run's command line"
        ),
        key="argv",
        origin="first/run.json",
        fix="Rerun a record compose wrote; a record never starts a sweep, reruns another run "
        "or asks for help.",
    ),
    Part("Flat configs from trackers and sweep agents"),
    Case(
        name="flat-key-names-no-field",
        title="A flat key that names no field",
        did="Handed `from_flat` an Optuna trial's params with a misspelled key.",
        flat={"trainer.optim.lrr": 1e-4},
        argv=(),
        error=UnknownKeyError,
        message=(
            "--trainer.optim.lrr = '0.0001' (from flat key trainer.optim.lrr): unknown key; "
            "did you mean --trainer.optim.lr?"
        ),
        key="--trainer.optim.lrr",
        origin="flat key trainer.optim.lrr",
        fix="Name the parameter by the config's dotted key (`trainer.optim.lr`).",
    ),
    Case(
        name="flat-value-of-wrong-type",
        title="A flat value its field rejects",
        did="Handed `from_flat` W&B's nested parameters with a value of the wrong type.",
        flat={"trainer": {"micro_batch_size": "eight"}},
        argv=(),
        error=ConfigValidationError,
        message=(
            "--trainer.micro-batch-size = 'eight' (from flat key trainer): Input should be a "
            "valid integer, unable to parse string as an integer"
        ),
        key="--trainer.micro-batch-size",
        origin="flat key trainer",
        fix="Fix the sweep's values for that parameter.",
    ),
    Case(
        name="flat-masked-secret",
        title="A secret handed back as its mask",
        did="Handed `from_flat` what `to_flat` logged, secret keys included.",
        schema=Keyed,
        flat={"api.key": "**********"},
        argv=(),
        error=ConfigValidationError,
        message=(
            "--api.key = '**********' (from flat key api.key): is a secret shown masked, not its "
            "value: leave it out, or set it from the environment (${oc.env:NAME})"
        ),
        key="--api.key",
        origin="flat key api.key",
        fix="Leave secret keys out of the flat dict; the files or the environment set them.",
    ),
    Case(
        name="flat-value-cut",
        title="A value cut to a tracker's length limit",
        did="Handed `from_flat` a list that `to_flat(text=True)` cut to MLflow's limit.",
        flat={"orchestrator.sampling.stop": '["s-000", "s-001", "s-0... [1180 more characters]'},
        argv=(),
        error=ConfigValidationError,
        message=(
            '--orchestrator.sampling.stop = \'["s-000", "s-001", "s-0... [1180 more '
            "characters]' (from flat key orchestrator.sampling.stop): was cut to fit a "
            "tracker's length limit: give the whole value"
        ),
        key="--orchestrator.sampling.stop",
        origin="flat key orchestrator.sampling.stop",
        fix="Give the whole value (from the config artifact), or leave the key out.",
    ),
    Case(
        name="flat-key-cut",
        title="A key cut to a tracker's length limit",
        did="Handed `from_flat` a dict key that `to_flat(text=True)` cut to MLflow's key limit.",
        flat={"trainer.env_vars.HF_HUB_XXXXXXXXXX... 296 more characters 47b6f3f5dc75": "/srv"},
        argv=(),
        error=ConfigValidationError,
        message=(
            "--trainer.env_vars.HF_HUB_XXXXXXXXXX... 296 more characters 47b6f3f5dc75 (from flat "
            "key trainer.env_vars.HF_HUB_XXXXXXXXXX... 296 more characters 47b6f3f5dc75): was "
            "cut to fit a tracker's length limit: give the whole key"
        ),
        key="--trainer.env_vars.HF_HUB_XXXXXXXXXX... 296 more characters 47b6f3f5dc75",
        origin="flat key trainer.env_vars.HF_HUB_XXXXXXXXXX... 296 more characters 47b6f3f5dc75",
        fix="Give the whole key (from the config artifact), or leave the key out.",
    ),
    Part("`compose check` and its mapping"),
    Case(
        name="check-pattern-matches-no-file",
        title="A `[[files]]` pattern that matches no file",
        did="Made a typo in a pattern of `compose-check.toml`, then ran `compose check conf`.",
        files={
            "compose-check.toml": (
                '[entrypoints]\napp = "schemas:RLConfig"\n\n[[files]]\n'
                'match = ["conf/debug/traner.toml"]\noverlay = true\n'
            ),
            "conf/debug/trainer.toml": "[trainer]\nmicro_batch_size = 2\n",
        },
        check=("conf",),
        exit=1,
        error=ConfigValidationError,
        message=(
            "--files.0.match.0 = 'conf/debug/traner.toml' (from compose-check.toml:5): matches "
            "no file under the paths checked; did you mean conf/debug/trainer.toml?"
        ),
        key="--files.0.match.0",
        origin="compose-check.toml:5",
        fix="Correct the pattern (relative to the mapping's directory), or drop the rule.",
    ),
    Case(
        name="check-rule-decided-by-an-earlier-one",
        title="A `[[files]]` rule whose files an earlier rule decides",
        did="Wrote a broad pattern above a narrow one in `compose-check.toml`.",
        files={
            "compose-check.toml": (
                '[entrypoints]\napp = "schemas:RLConfig"\n\n[[files]]\n'
                'match = ["conf/*"]\noverlay = true\n\n[[files]]\n'
                'match = ["conf/debug/trainer.toml"]\nsection = "trainer"\n'
            ),
            "conf/debug/trainer.toml": "micro_batch_size = 2\n",
        },
        check=("conf",),
        exit=1,
        error=ConfigValidationError,
        message=(
            "--files.1.match.0 = 'conf/debug/trainer.toml' (from compose-check.toml:9): every "
            "file it matches is decided by an earlier rule, --files.0 (compose-check.toml:5); "
            "the first rule whose patterns match decides: put this one first"
        ),
        key="--files.1.match.0",
        origin="compose-check.toml:9",
        fix="Put the narrow rule above the broad one, or drop it.",
    ),
    Case(
        name="check-section-not-in-schema",
        title="A rule's `section` the schema has no section at",
        did="Wrote a `section` with a typo in a `[[files]]` rule of `compose-check.toml`.",
        files={
            "compose-check.toml": (
                '[entrypoints]\napp = "schemas:RLConfig"\n\n[[files]]\n'
                'match = ["conf/*.toml"]\nsection = "trainer.optm"\n'
            ),
            "conf/muon.toml": "type = 'muon'\n",
        },
        check=("conf",),
        error=ConfigValidationError,
        message=(
            "--files.0.section = 'trainer.optm' (from compose-check.toml:6): names no section "
            "of app: unknown key; did you mean --trainer.optim?"
        ),
        key="--files.0.section",
        origin="compose-check.toml:6",
        fix="Name the section as a flag would (`trainer.optim`), without the dashes.",
    ),
    Case(
        name="check-section-with-sweep-over",
        title="A rule with both `section` and `sweep_over`",
        did="Gave a `[[files]]` rule of `compose-check.toml` a `section` and a `sweep_over`.",
        files={
            "compose-check.toml": (
                '[entrypoints]\napp = "schemas:RLConfig"\n\n[[files]]\n'
                'match = ["sweeps/*.toml"]\nsection = "trainer"\nsweep_over = ["@", "rl.toml"]\n'
            ),
        },
        check=(".",),
        error=ConfigValidationError,
        message=(
            "--files.0.section = 'trainer' (from compose-check.toml:6): a rule with sweep_over "
            "judges a sweep's file, which is not mounted at a section: its axes name keys of "
            "the whole config; drop section, or sweep_over if the file is no sweep's"
        ),
        key="--files.0.section",
        origin="compose-check.toml:6",
        fix="Drop `section`: a sweep's axes name whole keys (`trainer.optim.lr`).",
    ),
    Part("The time, `${now:}`"),
    Case(
        name="compose-now-not-an-instant",
        title="`$COMPOSE_NOW` that is not an instant",
        did="Set `COMPOSE_NOW=soon` and composed a file that uses `${now:}`.",
        files={"run.toml": 'output_dir = "runs/${now:%Y-%m-%d}"\n'},
        env={"COMPOSE_NOW": "soon"},
        argv=_argv("@ run.toml"),
        error=InterpolationError,
        message=(
            "--output-dir = 'runs/${now:%Y-%m-%d}' (from run.toml:1): interpolation "
            "${now:%Y-%m-%d}: COMPOSE_NOW='soon' is no ISO 8601 instant; set it as `date "
            "-Iseconds` prints one: COMPOSE_NOW=2026-12-04T21:00:00+00:00"
        ),
        key="--output-dir",
        origin="run.toml:1",
        fix="Set it as `date -Iseconds` prints it, or unset it to read the clock.",
    ),
    Case(
        name="now-format-with-a-comma",
        title="A comma in a `${now:}` format",
        did="Wrote `${now:%b %d, %Y}`: resolver arguments split at a bare comma.",
        files={"run.toml": 'output_dir = "runs/${now:%b %d, %Y}"\n'},
        argv=_argv("@ run.toml"),
        error=InterpolationError,
        message=(
            "--output-dir = 'runs/${now:%b %d, %Y}' (from run.toml:1): interpolation "
            "${now:%b %d, %Y}: now takes one strftime format: write a comma in it as \\,"
        ),
        key="--output-dir",
        origin="run.toml:1",
        fix="Escape the comma: `${now:%b %d\\, %Y}`.",
    ),
    Part("Several errors at once"),
    Case(
        name="several-errors",
        title="Several errors at once",
        did="Composed a file with an unknown key and a bad value, and a bad flag.",
        files={"run.toml": "[trainer]\nmicro_batch_size = 0\n[orchestrator]\nbatch_sizee = 64\n"},
        argv=_argv("@ run.toml --seed x"),
        error=ErrorGroup,
        message=(
            "3 errors:\n"
            "  - --orchestrator.batch-sizee = 64 (from run.toml:4): unknown key; "
            "did you mean --orchestrator.batch-size?\n"
            "  - --trainer.micro-batch-size = 0 (from run.toml:2): "
            "micro_batch_size must be positive\n"
            "  - --seed = 'x': Input should be a valid integer, "
            "unable to parse string as an integer"
        ),
        key=None,
        origin=None,
        fix="Fix each; `.errors` holds them one by one, each with its key and origin.",
    ),
    Part("Sweeps and their executors"),
    Case(
        name="sweep-executor-unknown",
        title="An executor that does not exist",
        did="Misspelt the executor's name: `--sweep-executor lokal`.",
        argv=_argv("--sweep.seed 1 2 --sweep-output output_dir --sweep-executor lokal"),
        error=ComposeError,
        message="--sweep-executor = 'lokal': no such executor; did you mean local?",
        key="--sweep-executor",
        origin=None,
        fix="Name one of none, local, submitit, sbatch, ray (an empty name is none of them).",
    ),
    Case(
        name="sweep-executor-option-unknown",
        title="An option the executor does not have",
        did="Misspelt an option in the sweep file's `[sweep.executor]` table.",
        files={
            "sweep.toml": '[sweep.executor]\nname = "local"\nmax_paralel = 4\n\n'
            '[axes]\nseed = [1, 2]\n\n[sweep]\noutput = "output_dir"\n'
        },
        argv=_argv("--sweep @ sweep.toml"),
        error=ComposeError,
        message="sweep.executor.max_paralel = 4 (from sweep.toml:3): is not an option of the "
        "executor 'local'; did you mean max_parallel?",
        key="sweep.executor.max_paralel",
        origin="sweep.toml:3",
        fix="Spell the option as docs/16 lists it for that executor.",
    ),
    Case(
        name="sweep-sbatch-value-with-a-line-break",
        title="An sbatch option holding a line break",
        did="Gave the sbatch executor a `job_name` with line breaks in it.",
        files={
            "sweep.toml": '[sweep.executor]\nname = "sbatch"\njob_name = "x\\ntouch PWNED\\n#"'
            '\n\n[axes]\nseed = [1, 2]\n\n[sweep]\noutput = "output_dir"\n'
        },
        argv=_argv("--sweep @ sweep.toml"),
        error=ComposeError,
        message="sweep.executor.job_name = 'x\\ntouch PWNED\\n#' (from sweep.toml:3): cannot be "
        "written into sweep.sbatch: it holds a line break or a control character",
        key="sweep.executor.job_name",
        origin="sweep.toml:3",
        fix="Keep each value on one line: it is one word of its `#SBATCH` line, never a line.",
    ),
    Case(
        name="sweep-command-cannot-start",
        title="A command the executor cannot start",
        did="Named a script that is not on PATH as the command of a sweep run by `local`.",
        files={
            "sweep.toml": '[sweep]\ncommand = ["trian.py"]\nexecutor = "local"\n'
            'output = "output_dir"\n\n[axes]\nseed = [1, 2]\n'
        },
        argv=_argv("--sweep @ sweep.toml"),
        error=ComposeError,
        message="sweep.command = 'trian.py' (from sweep.toml:2): cannot start the points: no "
        "such program on PATH; set [sweep] command to the words that start the program: "
        '["python", "train.py"]',
        key="sweep.command",
        origin="sweep.toml:2",
        fix='Name a program on PATH or an executable file: `["python", "train.py"]`.',
    ),
    Case(
        name="sweep-name-not-a-directory-name",
        title="A sweep name that is no directory name",
        did="Named a sweep `../elsewhere` to put it beside the others' directory.",
        argv=("--sweep.seed", "1", "2", "--sweep-name", "../elsewhere"),
        error=ComposeError,
        message=(
            "--sweep-name = '../elsewhere': a sweep's name is one directory name: up to 255 "
            "letters, digits and _ . = + -, not . or ..; name it with --sweep-name NAME (or name "
            '= "NAME" in [sweep])'
        ),
        key="--sweep-name",
        origin=None,
        fix="Give a plain name, and say where sweeps go with `--sweep-dir DIR`.",
    ),
    Case(
        name="sweep-control-empty",
        title="An empty sweep control",
        did='Gave `--sweep-dir "$RUNS"` with `RUNS` unset, meaning the default directory.',
        argv=("--sweep.seed", "1", "2", "--sweep-dir", ""),
        error=ComposeError,
        message="--sweep-dir: is empty: give a value, or leave it out for the default",
        key="--sweep-dir",
        origin=None,
        fix="Leave the flag out for the default, or give it a value.",
    ),
    Case(
        name="sweep-control-wrong-type",
        title="A sweep file's control of the wrong type",
        did="Wrote a sweep file's `command` as one string instead of a list of words.",
        files={"sweep.toml": '[sweep]\ncommand = "uv run rl"\n[axes]\nseed = [1, 2]\n'},
        argv=("--sweep", "@", "sweep.toml"),
        error=ComposeError,
        message=(
            "sweep.command = 'uv run rl' (from sweep.toml:2): command is a list of words, the "
            'program first; command = ["uv", "run", "rl"]'
        ),
        key="sweep.command",
        origin="sweep.toml:2",
        fix='Write it as a list: `command = ["uv", "run", "rl"]`.',
    ),
    Case(
        name="sweep-too-many-points",
        title="A sweep past the size limit",
        did="Swept two ranges whose product is 100,000 points.",
        argv=("--sweep.seed", "{range = [0, 1000]}", "--sweep.max-steps", "{range = [1, 101]}"),
        error=ComposeError,
        message=(
            "--sweep.seed: the sweep makes 100,000 points, past the limit of 10,000: seed "
            "(1,000) x max-steps (100); sweep fewer values, or split it into sweeps of at most "
            "10,000 points (each its own --sweep-name)"
        ),
        key=None,
        origin="--sweep.seed",
        fix="Sweep fewer values, or run several sweeps of at most 10,000 points (docs/15).",
    ),
    Case(
        name="sweep-spaced-bounds-not-finite",
        title="A `linspace` or `logspace` bound that is not a finite number",
        did="Wrote `inf` as the high end of a `logspace`.",
        argv=("--sweep.trainer.optim.lr", "{logspace = [1e-6, inf, 5]}"),
        error=ComposeError,
        message=(
            "trainer.optim.lr = [1e-06, inf, 5] (from --sweep.trainer.optim.lr): logspace takes "
            "finite numbers for low and high"
        ),
        key="trainer.optim.lr",
        origin="--sweep.trainer.optim.lr",
        fix="Give both ends as finite numbers (`1e-2`).",
    ),
    Case(
        name="sweep-points-share-an-output-directory",
        title="Points that would share an output directory",
        did="Swept the seed without giving each point its own `output_dir`.",
        argv=("--sweep.seed", "1", "2"),
        error=ComposeError,
        message=(
            "output_dir = 'outputs': is the output directory of 2 of the 2 points (0, 1): they "
            "would write over each other's; give each point its own with --sweep-output "
            'output_dir (or output = "output_dir" in [sweep])'
        ),
        key="output_dir",
        origin=None,
        fix="Add `--sweep-output output_dir`: each point runs in its own directory.",
    ),
    Case(
        name="sweep-mistake-every-point-shares",
        title="A mistake every point of a sweep shares",
        did="Misspelled `--sweep-name` as `--sweep-nmae`: the base command line took it.",
        argv=("--sweep.seed", "1", "2", "--sweep-output", "output_dir", "--sweep-nmae", "x"),
        error=PointError,
        message="every point: --sweep-nmae = 'x': unknown key; did you mean --sweep-name?",
        key="--sweep-nmae",
        origin="--sweep-nmae",
        fix="Correct the flag; a mistake all points share is said once.",
    ),
    Case(
        name="sweep-directory-without-definition",
        title="A sweep directory that holds files but no sweep.json",
        did="Started a sweep whose directory holds points of a sweep that never wrote its "
        "definition (or another program's files).",
        files={"runs/s/0123456789ab/run.json": "{}\n"},
        argv=_argv("--sweep.seed 1 2 --sweep-name s --sweep-output output_dir --dry-run"),
        error=ComposeError,
        message=(
            f"{CWD}/runs/s: holds files (0123456789ab) but no sweep.json: not this sweep's "
            "directory (a sweep stopped before its definition was written, or another "
            "program's); give this sweep a new --sweep-name (or --sweep-dir), or remove the "
            "directory"
        ),
        key=None,
        origin=f"{CWD}/runs/s",
        fix="Give the sweep a new `--sweep-name`, or remove the directory.",
    ),
    Part("Hydra config trees (compose_hydra)"),
    Case(
        name="hydra-unknown-option",
        title="A defaults list names an option its group does not have",
        did="Wrote `/db: mysq` in an experiment's defaults list; the group has mysql and sqlite.",
        files={
            "conf/config.yaml": "defaults:\n  - experiment: nglite\n",
            "conf/experiment/nglite.yaml": "defaults:\n  - /db: mysq\n",
            **HYDRA_DBS,
        },
        hydra="conf:config",
        error=SourceError,
        message=(
            "'mysq' (from conf/config.yaml:2 -> conf/experiment/nglite.yaml:2): no config "
            "db/mysq; did you mean mysql? (the options of db are mysql, sqlite)"
        ),
        key=None,
        origin="conf/config.yaml:2 -> conf/experiment/nglite.yaml:2",
        fix="Name an option the group has; the chain says which entry of which file to correct.",
    ),
    Case(
        name="hydra-path-outside-tree",
        title="A config path that leaves its group or the tree",
        did="Wrote `db: ../shared/mysql` to reach a config beside the tree's group directory.",
        files={
            "conf/config.yaml": "defaults:\n  - db: ../shared/mysql\n",
            "shared/mysql.yaml": "driver: mysql\n",
            **HYDRA_DBS,
        },
        hydra="conf:config",
        error=SourceError,
        message=(
            "'db/../shared/mysql' (from conf/config.yaml:2): a config path is names joined by "
            "`/`, inside the config tree; `..`, `.` and an empty name would read a config "
            "outside its group or tree (a nested entry may go up to a sibling group with its "
            "own package: `../engine@fsdp: x`)"
        ),
        key=None,
        origin="conf/config.yaml:2",
        fix=(
            "Put the config in the group's directory, or name it from the top of the tree "
            "(`/shared/mysql`, with `shared/` inside the config directory or on "
            "`hydra.searchpath`)."
        ),
    ),
    Case(
        name="hydra-group-chosen-twice",
        title="A group chosen twice in one defaults tree",
        did="Chose `db: mysql` in the primary and `/db: sqlite` in an experiment it includes.",
        files={
            "conf/config.yaml": "defaults:\n  - db: mysql\n  - experiment: nglite\n",
            "conf/experiment/nglite.yaml": ("# @package _global_\ndefaults:\n  - /db: sqlite\n"),
            **HYDRA_DBS,
        },
        hydra="conf:config",
        error=SourceError,
        message=(
            "conf/config.yaml:2: db is chosen twice: mysql here, sqlite at conf/config.yaml:3 -> "
            "conf/experiment/nglite.yaml:3; to change the choice, write `override db: mysql` "
            "after the others"
        ),
        key=None,
        origin="conf/config.yaml:2",
        fix="Change a choice made elsewhere with an `override` entry, last in its list.",
    ),
    Case(
        name="hydra-choice-nothing-chooses",
        title="A group override that no defaults entry chooses",
        did="Gave `db@source=sqlite` where the defaults list chooses `db` at its own package.",
        files={"conf/config.yaml": "defaults:\n  - db: mysql\n", **HYDRA_DBS},
        hydra="conf:config",
        overrides=("db@source=sqlite",),
        error=ArgvError,
        message=(
            "db@source=sqlite: no entry of the defaults list chooses db@source; did you mean db? "
            "Or +db@source=sqlite appends the entry"
        ),
        key=None,
        origin="db@source=sqlite",
        fix="Name the choice as the defaults list makes it, or append an entry with `+`.",
    ),
    Case(
        name="hydra-missing-choice",
        title="A group whose option must be chosen",
        did="Composed a tree whose defaults list says `db: ???` without choosing a db.",
        files={"conf/config.yaml": "defaults:\n  - db: ???\n", **HYDRA_DBS},
        hydra="conf:config",
        error=SourceError,
        message=(
            "conf/config.yaml:2: db must be chosen; add db=OPTION; the options are mysql, sqlite"
        ),
        key=None,
        origin="conf/config.yaml:2",
        fix="Choose one on the command line: `db=mysql`.",
    ),
    Case(
        name="hydra-override-entry-order",
        title="An `override` entry before a plain entry",
        did="Wrote `override db: sqlite` above another entry of the same defaults list.",
        files={
            "conf/config.yaml": "defaults:\n  - override db: sqlite\n  - db: mysql\n",
            **HYDRA_DBS,
        },
        hydra="conf:config",
        error=SourceError,
        message=(
            "'db: mysql' (from conf/config.yaml:3): `override` entries come after every other "
            "entry of a defaults list; move `override db` (line 2) to the end"
        ),
        key=None,
        origin="conf/config.yaml:3",
        fix="Move the `override` entries to the end of the list.",
    ),
    Case(
        name="hydra-override-syntax",
        title="A Hydra override that does not parse",
        did="Gave `lr=0.1=0.2`: an unquoted `=` inside a value.",
        files={"conf/config.yaml": "lr: 0.1\n"},
        hydra="conf:config",
        overrides=("lr=0.1=0.2",),
        error=ArgvError,
        message=(
            "lr=0.1=0.2: unexpected text at column 4 of the value; quote a value that holds "
            "'=': key='...'"
        ),
        key=None,
        origin="lr=0.1=0.2",
        fix="Quote the value: `lr='0.1=0.2'`.",
    ),
    Case(
        name="hydra-override-unknown-key",
        title="A Hydra value override of a key the config does not have",
        did="Gave `trainer.lrr=0.2`: the composed config has `trainer.lr`.",
        files={"conf/config.yaml": "trainer:\n  lr: 0.1\n"},
        hydra="conf:config",
        overrides=("trainer.lrr=0.2",),
        error=UnknownKeyError,
        message=(
            "trainer.lrr (from trainer.lrr=0.2): no such key in the composed config; did you "
            "mean trainer.lr? +trainer.lrr=0.2 adds it"
        ),
        key="trainer.lrr",
        origin="trainer.lrr=0.2",
        fix="Correct the key, or add a new one with `+`.",
    ),
    Case(
        name="hydra-override-wrong-type",
        title="A Hydra value override the schema's field refuses",
        did="Gave `trainer.epochs=many` where the schema's `trainer.epochs` is an int.",
        files={"conf/config.yaml": "trainer:\n  epochs: 10\n"},
        hydra="conf:config",
        hydra_schema=HydraApp,
        overrides=("trainer.epochs=many",),
        error=ConfigValidationError,
        message=(
            "trainer.epochs (from trainer.epochs=many): Input should be a valid integer, "
            "unable to parse string as an integer"
        ),
        key="trainer.epochs",
        origin="trainer.epochs=many",
        fix="Give a value of the field's type: `trainer.epochs=100`.",
    ),
    Case(
        name="hydra-override-adds-existing-key",
        title="A Hydra `+key=value` of a key that is set",
        did="Gave `+trainer.lr=0.2`: `+` adds a key, and `trainer.lr` is there.",
        files={"conf/config.yaml": "trainer:\n  lr: 0.1\n"},
        hydra="conf:config",
        overrides=("+trainer.lr=0.2",),
        error=ArgvError,
        message=(
            "trainer.lr (from +trainer.lr=0.2): the key is set already: `+` adds a new key; "
            "trainer.lr=0.2 sets it; ++trainer.lr=0.2 sets or adds it"
        ),
        key="trainer.lr",
        origin="+trainer.lr=0.2",
        fix="Drop the `+` to set it, or write `++` to set or add it.",
    ),
    Case(
        name="hydra-sweep-outside-multirun",
        title="A comma list outside multirun",
        did="Gave `lr=0.1,0.2` to a single composition.",
        files={"conf/config.yaml": "lr: 0.1\n"},
        hydra="conf:config",
        overrides=("lr=0.1,0.2",),
        error=ArgvError,
        message=(
            "lr=0.1,0.2: a comma list is a sweep: it needs multirun; a list is [a,b]; a text "
            "with a comma is quoted: 'a,b'"
        ),
        key=None,
        origin="lr=0.1,0.2",
        fix="Sweep with `multirun=True`, write a list as `[0.1,0.2]`, or quote a text.",
    ),
    Case(
        name="hydra-list-onto-table",
        title="A list merged onto a table in a Hydra tree",
        did="Included a config setting `layers: [8, 8]` where the primary has a `layers` table.",
        files={
            "conf/config.yaml": "defaults:\n  - _self_\n  - extra: big\nlayers:\n  width: 8\n",
            "conf/extra/big.yaml": "# @package _global_\nlayers: [8, 8]\n",
        },
        hydra="conf:config",
        error=SourceError,
        message=(
            "layers (from conf/config.yaml:3 -> conf/extra/big.yaml:2): a list cannot merge "
            "into a table; a table and a list never merge: ~KEY first"
        ),
        key="layers",
        origin="conf/config.yaml:3 -> conf/extra/big.yaml:2",
        fix="Give the key one kind in every config, or delete it first (`~layers`).",
    ),
    Case(
        name="hydra-override-without-key",
        title="A Hydra override with nothing before its `=`",
        did="Typed `=sqlite` (or `+=sqlite`, `@source=sqlite`), the group's name left out.",
        files={"conf/config.yaml": "defaults:\n  - db: mysql\n", **HYDRA_DBS},
        hydra="conf:config",
        overrides=("=sqlite",),
        error=ArgvError,
        message=(
            "=sqlite: an override needs a key before '='; an override is KEY=VALUE, "
            "+KEY=VALUE, ++KEY=VALUE or ~KEY"
        ),
        key=None,
        origin="=sqlite",
        fix="Name the key or group the override sets: `db=sqlite`.",
    ),
    Part("A Hydra app's command line (`cli(Schema, hydra=...)`)"),
    Case(
        name="hydra-app-resume-without-name",
        title="`--sweep-resume` on a multirun with no name",
        did="Ran `-m ... --sweep-resume` to rerun a multirun's failed jobs, without its name.",
        files={"conf/config.yaml": "trainer:\n  epochs: 1\n"},
        hydra_app="conf:config",
        schema=HydraApp,
        argv=_argv("-m trainer.epochs=1,2 --sweep-resume"),
        error=ArgvError,
        message=(
            "--sweep-resume: resumes a sweep by its name, and without --sweep-name each -m is a "
            "new sweep (its directory named by the time it starts): there is none to resume; "
            "name the sweep to resume: --sweep-name NAME, as its run printed it (sweep NAME: N "
            "points in ...)"
        ),
        key="--sweep-resume",
        origin=None,
        fix="Give the name the multirun printed: `-m ... --sweep-name 2026-12-07_23-50-12 "
        "--sweep-resume`.",
    ),
    Case(
        name="hydra-app-overrides-on-a-resolved-config",
        title="Overrides on a rerun that has no tree to override",
        did="Gave `--from-run DIR` overrides where the run is composed from its resolved config.",
        files={
            "conf/config.yaml": "trainer:\n  epochs: 1\n",
            "again/run.json": '{"format": 1, "prog": "app", "argv": ["@", "old/configs/app.toml"]}',
        },
        hydra_app="conf:config",
        schema=HydraApp,
        argv=_argv("--from-run again trainer.epochs=3"),
        error=ArgvError,
        message=(
            "--from-run = 'again': the run was built on @ old/configs/app.toml: Hydra's "
            "overrides apply to a tree, not to a run's resolved config; rerun it without "
            "overrides (its resolved config), or rerun a run of the tree as it is"
        ),
        key="--from-run",
        origin=None,
        fix="Rerun it as it ran (`--from-run again`); to change it, run the tree with the "
        "overrides.",
    ),
)

CATALOGUE: tuple[Case, ...] = tuple(entry for entry in ENTRIES if isinstance(entry, Case))


def sections() -> list[tuple[str, list[Case]]]:
    """The entries grouped under their parts, in order."""
    grouped: list[tuple[str, list[Case]]] = []
    for entry in ENTRIES:
        if isinstance(entry, Part):
            grouped.append((entry.title, []))
        else:
            grouped[-1][1].append(entry)
    return grouped
