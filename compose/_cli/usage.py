"""The `compose` command's subcommands as one table: what each takes and does, and its help.

Everything people read about the command's options and everything its parser accepts comes
from `SUBCOMMANDS`: the global help (`compose --help`), each subcommand's help
(`compose show --help`), and the options each one takes (`compose._cli.command`'s
`COMMAND_OPTIONS`), so that help and parsing cannot disagree.

The one rule for options, for every subcommand: a subcommand's own options come first, before
its ARGV, PATHs or other operands; the first token that is not one of them ends them, and so
does `--`; `explain`'s options may also follow its KEY, which comes before ARGV
(`compose explain trainer.lr --hydra conf:config db=x`). An option of the subcommand given
after its operands is an error saying so (never a
config key, never silently the option); a config key named like an option is set after `--`
(`compose show -- @ a.toml --format x`), after which no token is an option.
"""

from __future__ import annotations

from dataclasses import dataclass

from compose._output.help import Entry, entry_lines, fill, paragraph
from compose._syntax import HELP_FLAGS


@dataclass(frozen=True)
class Option:
    """One option of a subcommand: a flag (no `metavar`) or one taking a value."""

    name: str
    metavar: str  # what its value is ("" for a flag)
    help: str  # one line: what it does
    repeated: bool = False  # given again, adds to the values before (else: the last one wins)
    required: bool = False

    @property
    def usage(self) -> str:
        shown = f"{self.name} {self.metavar}" if self.metavar else self.name
        return shown if self.required else f"[{shown}]"


@dataclass(frozen=True)
class Subcommand:
    """One subcommand: its name, options, operands (`ARGV...`), what it does, and an example."""

    name: str
    operands: str  # what follows the options, as the synopsis writes it
    summary: str  # what it does, in a sentence or three
    example: str  # a command line, without `compose `
    options: tuple[Option, ...] = ()
    argv: bool = False  # its operands are an entrypoint's command line (ARGV, LEFT, RIGHT)
    keyed: bool = False  # its first operand is a KEY, which its options may follow too

    @property
    def synopsis(self) -> list[str]:
        """`compose NAME [OPTIONS...] OPERANDS`, as the words a line breaks between."""
        return [f"compose {self.name}", *(option.usage for option in self.options), self.operands]

    @property
    def option_names(self) -> frozenset[str]:
        return frozenset(option.name for option in self.options)

    def option(self, name: str) -> Option | None:
        return next((option for option in self.options if option.name == name), None)


def _schema(does: str) -> Option:
    return Option("--schema", "MODULE:CLASS", does)


_SEARCH_PATH = Option(
    "--search-path", "DIR", "look file names up in DIR too (repeatable)", repeated=True
)
_ENV_PREFIX = Option("--env-prefix", "PREFIX", "set values from variables PREFIX + KEY__PATH")
_COMPOSING = (_SEARCH_PATH, _ENV_PREFIX)  # every subcommand that composes ARGV takes them
_HYDRA = Option("--hydra", "DIR:NAME", "compose Hydra tree DIR from NAME.yaml; ARGV: overrides")

SUBCOMMANDS: tuple[Subcommand, ...] = (
    Subcommand(
        "show",
        "ARGV...",
        "print the composition of ARGV: what its files and flags merged, interpolations as "
        "written and no class defaults, unless --resolved",
        "show --resolved --schema train_config:Train @ base.toml --seed 7",
        (
            Option("--resolved", "", "resolve interpolations; with --schema, validate too"),
            _schema("the config class: its field names and defaults"),
            Option("--format", "toml|json", "the output's format (default: toml)"),
            Option("--origins", "", "say where each value came from (file:line, flag)"),
            *_COMPOSING,
            _HYDRA,
            Option("--defaults", "", "with --hydra: each config merged, and what chose it"),
        ),
        argv=True,
    ),
    Subcommand(
        "explain",
        "KEY ARGV...",
        "every node of ARGV that set KEY (a dotted path such as trainer.lr), in order, and the "
        "value that wins",
        "explain trainer.optim.lr @ base.toml @ debug.toml",
        (_schema("the config class: its fields and their defaults"), *_COMPOSING, _HYDRA),
        argv=True,
        keyed=True,
    ),
    Subcommand(
        "diff",
        "LEFT... -- RIGHT...",
        "the values that differ between two compositions, with their origins (the first -- "
        "after LEFT separates the sides); exits 1 if any differ",
        "diff @ base.toml -- @ base.toml @ debug.toml",
        (
            Option("--resolved", "", "compare resolved values; with --schema, validated ones"),
            Option("--as-argv", "", "print the flags that, put after LEFT, give RIGHT"),
            _schema("the config class both sides are validated with"),
            *_COMPOSING,
        ),
        argv=True,
    ),
    Subcommand(
        "check",
        "PATH...",
        "every config file under PATH judged as what it is (a root config, or an overlay at a "
        "section: compose-check.toml says, or the config group's directory), every problem "
        "with FILE:LINE; exits 1 if a file has one (for CI)",
        "check --schema train_config:Train conf",
        (
            _schema("the config class of root configs (see --roles)"),
            Option("--roles", "FILE", "which file is what (default: compose-check.toml)"),
            _SEARCH_PATH,
            Option("--quiet", "", "print only the files with problems"),
        ),
    ),
    Subcommand(
        "schema",
        "MODULE:CLASS",
        "the JSON Schema of a config class (for editor completion of TOML files)",
        "schema train_config:Train",
    ),
    Subcommand(
        "completion",
        "bash|zsh|fish PROG",
        "the shell script that completes entrypoint PROG's flags (eval it in your shell's rc)",
        "completion bash train",
    ),
    Subcommand(
        "job",
        "DIR",
        "run the command of a sweep's point (DIR/job.json), its output appended to "
        "DIR/log.txt, its state in DIR/status.json; exits with the command's exit code (what "
        "executors run)",
        "job runs/lr/0001",
    ),
    Subcommand(
        "status",
        "DIR",
        "how the points of the sweep in DIR (or the one point DIR) stand: a table of each "
        "point's axis values, state, exit code and log, then a line per state",
        "status runs/lr",
    ),
    Subcommand(
        "migrate",
        "FILE...",
        "rewrite old TOML files in place for the schema's version (its migrations), keeping "
        "comments and layout",
        "migrate --schema train_config:Train --check conf/train.toml",
        (
            Option("--schema", "MODULE:CLASS", "the class whose migrations run", required=True),
            Option("--section", "KEY", "the section the files are loaded at (--KEY @ FILE)"),
            Option("--check", "", "print each diff, write nothing; exit 1 on a change"),
        ),
    ),
)

BY_NAME = {command.name: command for command in SUBCOMMANDS}
_HELP_OPTION = Option(HELP_FLAGS[1], "", f"this help (or {HELP_FLAGS[0]})")
_ARGV = "ARGV is an entrypoint's command line (@ a.toml --trainer @ t.toml --trainer.lr 1e-3)."
_RULE = "A command's options come first: the first other token, or --, ends them."
_KEYED = "Its options may also follow KEY, before ARGV."
_LATE = {  # what an option given after the operands is, and how to say what looks like one
    True: "An option given after ARGV is an error; a config key named like an option goes "
    "after --, where no token is an option (compose show -- @ a.toml --format x).",
    False: "An option given after them is an error; a file named like an option goes after --.",
}
_EXIT_CODES = (
    "Exit codes: 0 done (diff: no difference), 1 diff found differences or check a problem, "
    "2 bad input (the error on stderr, never a traceback), 130 interrupted; job exits with its "
    "command's, status with 0, migrate --check with 1 when a file would change."
)


def usage_text(width: int) -> str:
    """`compose --help`: every subcommand's synopsis and what it does, lines within `width`."""
    lines = ["usage: compose COMMAND [OPTIONS] OPERANDS...", "", "commands:"]
    for command in SUBCOMMANDS:
        words = command.synopsis
        words[0] = words[0].removeprefix("compose ")
        lines += fill(words, width, "  ", " " * (3 + len(command.name)))
        lines += fill(command.summary.split(" "), width, " " * 6, " " * 6)
    rule = f"{_ARGV} {_RULE} {_LATE[True]}"
    lines += ["", *paragraph(rule, width, indent="")]
    more = "compose COMMAND --help (or compose help COMMAND): its options, and an example."
    lines += ["", *paragraph(more, width, ""), "", *paragraph(_EXIT_CODES, width, "")]
    return "\n".join(lines) + "\n"


def command_help(command: Subcommand, width: int) -> str:
    """`compose NAME --help`: its synopsis, what it does, each option in a line, an example."""
    words = command.synopsis
    first = f"usage: {words[0]} "
    lines = fill(words[1:], width, first, " " * len(first))
    lines += ["", *paragraph(command.summary[0].upper() + command.summary[1:] + ".", width, "")]
    entries = [Entry(o.name, o.metavar, "", "", o.help) for o in (*command.options, _HELP_OPTION)]
    lines += ["", "options:", *entry_lines(entries, width, composed=False), ""]
    if command.options:
        keyed = _KEYED if command.keyed else ""
        rule = f"{_ARGV if command.argv else ''} {_RULE} {keyed} {_LATE[command.argv]}"
        lines += [*paragraph(" ".join(rule.split()), width, indent=""), ""]
    lines += ["example:", *fill(f"compose {command.example}".split(" "), width, "  ", "    ")]
    return "\n".join(lines) + "\n"
