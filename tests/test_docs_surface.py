"""The docs name only what exists, and name all of it: subcommands, options, reserved flags,
extras.

tests/test_docs.py runs the docs' `$ ` commands, so a command shown with its output cannot
drift; this file holds every other mention to the program's surface as it is:

- each `compose SUBCOMMAND ...` line of a shell block or of inline code names a subcommand
  that exists, with options that subcommand takes, read by the command's own option splitter
  (`compose._cli.command.split_options`) against `COMMAND_OPTIONS`;
- the synopsis of docs/05 shows every subcommand with every option it takes, and the lists of
  chapters (docs/README.md, docs/01, README.md) name every subcommand;
- a reserved flag of an entrypoint (`--sweep...`, `--from-run`) written anywhere is one that
  exists (compose._syntax), unless the page shows the error it gives; docs/15 names each;
- each extra named (`compose-config[X]`, `.[X]`) is one of pyproject.toml, and each of those
  is named somewhere.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import get_close_matches
from pathlib import Path

import pytest
import tomli
from test_docs import DOCS, MARKDOWN, ROOT, SHELL_LANGS, blocks_of, commands_of, shown

from compose._cli.command import COMMAND_OPTIONS, split_options
from compose._cli.usage import BY_NAME
from compose._syntax import FROM_RUN_FLAG, SWEEP_CONTROLS, SWEEP_FLAG, flag_name, is_sweep_flag
from compose.errors import ArgvError

ALL_MARKDOWN = [*MARKDOWN, ROOT / "ARCHITECTURE.md"]
COMMAND_CHAPTER = DOCS / "05-compose-command.md"
SWEEP_CHAPTER = DOCS / "15-sweeps-and-run-records.md"
HELP = ("-h", "--help", "help")
# The subcommands whose ARGV is an entrypoint's command line: a `--flag` there is the config's.
COMPOSING = frozenset({"show", "explain", "diff"})
# What ends one simple command of a shell line and starts the next (shlex's punctuation).
SHELL_OPERATORS = frozenset({"|", "||", "&", "&&", ";", "(", ")", "|&"})


@dataclass
class Mention:
    """A command line as a page writes it: in a shell block, or as inline code."""

    where: str
    text: str
    shows_error: bool = False  # the page prints what it gives, and that is an error


# --- reading the pages -----------------------------------------------------------------------


def shell_lines(path: Path) -> Iterator[Mention]:
    """The commands of a page's shell blocks: `$ ` lines with the output shown after them,
    or, in a script (no `$ ` line), each line that is not a comment."""
    for block in blocks_of(path):
        if block.lang not in SHELL_LANGS:
            continue
        if any(line.startswith("$ ") for line in block.text.splitlines()):
            for command in commands_of(block):
                error = any(line.startswith("error:") for line in command.expected)
                yield Mention(f"{shown(path)}:{command.line}", command.text, error)
            continue
        text = block.text.replace("\\\n", " ")
        for number, line in enumerate(text.splitlines(), block.line + 1):
            if line.strip() and not line.lstrip().startswith("#"):
                yield Mention(f"{shown(path)}:{number}", line)


def prose(path: Path) -> str:
    """A page's text with its fenced blocks blanked (their lines kept, for line numbers)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    for block in blocks_of(path):
        opening = block.line - 1
        closing = opening + block.text.count("\n") + 1  # the body's lines, then the fence
        lines[opening : closing + 1] = [""] * len(lines[opening : closing + 1])
    return "\n".join(lines)


_INLINE = re.compile(r"(?<!`)(`+)(?!`)((?:(?!\n\s*\n).)+?)(?<!`)\1(?!`)", re.DOTALL)


def inline_code(path: Path) -> Iterator[Mention]:
    """The inline code spans of a page, outside its fenced blocks, each on one line."""
    text = prose(path)
    for match in _INLINE.finditer(text):
        line = text.count("\n", 0, match.start()) + 1
        yield Mention(f"{shown(path)}:{line}", " ".join(match[2].split()))


def words(mention: Mention) -> list[str]:
    """A command line as the shell splits it, operators (`|`, `&&`, `(`) as words of their own."""
    lexer = shlex.shlex(mention.text, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    try:
        return list(lexer)
    except ValueError as error:
        pytest.fail(f"{mention.where}: {mention.text!r} does not split as the shell does: {error}")


def simple_commands(tokens: list[str]) -> Iterator[list[str]]:
    """The simple commands of a shell line, `VAR=x` prefixes left out, `$(...)` included."""
    command: list[str] = []
    for token in [*tokens, ";"]:
        if "$(" in token:  # a command substitution inside a quoted word: its own line
            inner = token.split("$(", 1)[1].rsplit(")", 1)[0]
            yield from simple_commands(shlex.split(inner))
        if token in SHELL_OPERATORS:
            if command:
                yield command
            command = []
        elif command or not re.fullmatch(r"\w+=\S*", token):
            command.append(token)


def compose_args(command: list[str]) -> list[str] | None:
    """What follows the program when a simple command runs `compose` (`compose`,
    `.venv/bin/compose`, `python -m compose`, `exec ...`); None for any other program."""
    if command and command[0] in ("exec", "eval"):
        command = command[1:]
    if not command:
        return None
    program = command[0].rsplit("/", 1)[-1]
    if program == "compose":
        return command[1:]
    if re.fullmatch(r"python[\d.]*", program) and command[1:3] == ["-m", "compose"]:
        return command[3:]
    return None


def command_mentions() -> Iterator[Mention]:
    """Every command line the docs write: shell blocks, and inline code that starts with a
    program (`compose show --origins`, `python -m compose job DIR`)."""
    for path in ALL_MARKDOWN:
        yield from shell_lines(path)
        for span in inline_code(path):
            first = span.text.removeprefix("$ ").split(" ", 1)[0]
            if first.rsplit("/", 1)[-1] == "compose" or span.text.startswith("python -m compose "):
                yield span


def compose_calls() -> Iterator[tuple[Mention, list[str]]]:
    for mention in command_mentions():
        for command in simple_commands(words(mention)):
            args = compose_args(command)
            if args is not None:
                yield mention, args


# --- the compose command ---------------------------------------------------------------------


def test_composing_subcommands_are_those_of_the_environment_layer() -> None:
    # COMPOSING above, checked against the table: the subcommands that compose ARGV take
    # --env-prefix, as an entrypoint with env_prefix does
    assert {name for name, options in COMMAND_OPTIONS.items() if "--env-prefix" in options} == (
        COMPOSING
    )


def problem_of(args: list[str]) -> str | None:
    """What is wrong with `compose ARGS` as a doc writes it, or None."""
    if not args or args[0] in HELP:
        return None
    name = args[0]
    if name not in COMMAND_OPTIONS:
        return f"no subcommand {name!r} (there are {', '.join(COMMAND_OPTIONS)})"
    allowed = COMMAND_OPTIONS[name]
    try:
        options = split_options(args[1:], BY_NAME[name])  # an option after ARGV: an error
    except ArgvError as error:
        return f"compose {name}: {error}"
    if "--" in args[1:] and name in COMPOSING:
        return None  # what follows an explicit `--` is ARGV, whatever it looks like
    rest = [token.partition("=")[0] for token in options.rest if token.startswith("--")]
    if name not in COMPOSING and rest and rest[0] in allowed:
        return f"compose {name}: {rest[0]} is given after its operands: options come first"
    if name not in COMPOSING and rest:
        return f"compose {name} takes no option {rest[0]} (it takes {sorted(allowed) or 'none'})"
    if rest and rest[0] == options.rest[0].partition("=")[0]:
        # ARGV's first flag: a config's key, unless it is an option spelled almost right
        every = sorted(set().union(*COMMAND_OPTIONS.values()))
        close = get_close_matches(rest[0], every, n=1, cutoff=0.8)
        if close and close[0] != rest[0]:
            return f"compose {name}: {rest[0]} starts ARGV; did you mean the option {close[0]}?"
    return None


def test_compose_command_lines_name_what_exists() -> None:
    problems = [
        f"{mention.where}: {mention.text!r}: {problem}"
        for mention, args in compose_calls()
        if (problem := problem_of(args)) is not None and not mention.shows_error
    ]
    assert not problems, "\n".join(problems)


def test_the_check_finds_what_it_looks_for() -> None:
    calls = {" ".join(args) for _, args in compose_calls()}
    # a shell block, inline code, `python -m compose` and a `$(...)` are all read
    assert "show --origins" in calls
    assert "job DIR" in calls
    assert any(call.startswith("completion ") for call in calls)
    assert problem_of(["shwo", "@", "a.toml"]) is not None
    assert problem_of(["check", "--resolved", "conf"]) is not None  # another command's option
    assert problem_of(["check", "conf", "--quiet"]) is not None  # after the paths
    assert problem_of(["status", "--watch", "runs/x"]) is not None  # an option of no command
    assert problem_of(["show", "--origin", "@", "a.toml"]) is not None  # ARGV, spelled as one
    assert problem_of(["show", "--schema"]) is not None  # expects a value
    assert problem_of(["show", "@", "a.toml", "--origins"]) is not None  # options come first
    assert problem_of(["show", "--", "--resolved"]) is None
    assert problem_of(["diff", "--as-argv", "@", "a.toml", "--", "@", "b.toml"]) is None


def synopsis() -> dict[str, set[str]]:
    """docs/05's synopsis block: subcommand -> the options its line shows (an indented line
    goes on with the one above)."""
    shown_options: dict[str, set[str]] = {}
    for block in blocks_of(COMMAND_CHAPTER):
        text = re.sub(r"\n[ \t]+", " ", block.text)
        lines = [line for line in text.splitlines() if line.startswith("compose ")]
        if block.lang != "text" or not lines:
            continue
        for line in lines:
            tokens = line.replace("[", " ").replace("]", " ").split()
            options = {t.partition("=")[0] for t in tokens if t.startswith("--") and t != "--"}
            shown_options[tokens[1]] = options
        return shown_options
    pytest.fail(f"{shown(COMMAND_CHAPTER)} has no synopsis: a text block of `compose ...` lines")


def test_the_command_chapter_shows_every_subcommand_and_option() -> None:
    expected = {name: set(options) for name, options in COMMAND_OPTIONS.items()}
    assert synopsis() == expected


def list_item(path: Path, link: str) -> str:
    """The list item of an index that links `link`, up to the next item."""
    text = path.read_text(encoding="utf-8")
    start = text.index(f"({link})")
    end = re.compile(r"\n\s*(?:- |\d+\. |\n)").search(text, start)
    return text[start : end.start() if end else len(text)]


@pytest.mark.parametrize(
    ("path", "link"),
    [
        (DOCS / "README.md", "05-compose-command.md"),
        (DOCS / "01-quickstart.md", "05-compose-command.md"),
        (ROOT / "README.md", "docs/README.md"),
    ],
    ids=lambda value: shown(value) if isinstance(value, Path) else value,
)
def test_the_indexes_name_every_subcommand(path: Path, link: str) -> None:
    item = list_item(path, link)
    missing = [name for name in COMMAND_OPTIONS if not re.search(rf"`{name}\b", item)]
    assert not missing, f"{shown(path)}: the item on the compose command misses {missing}"


# --- an entrypoint's reserved flags ----------------------------------------------------------

_RESERVED = re.compile(rf"(?<![\w-])(?:{SWEEP_FLAG}|{FROM_RUN_FLAG})[\w.=-]*")


def is_reserved_flag(token: str) -> bool:
    return is_sweep_flag(token) or flag_name(token) == FROM_RUN_FLAG


def errors_shown(path: Path) -> str:
    """The `error:` lines a page's code blocks print: a wrong flag they name is shown wrong."""
    return "\n".join(
        line
        for block in blocks_of(path)
        for line in block.text.splitlines()
        if line.startswith("error:")
    )


def test_reserved_flags_in_the_docs_exist() -> None:
    problems = []
    for path in ALL_MARKDOWN:
        shown_wrong = errors_shown(path)
        spans = [span for span in inline_code(path) if not span.text.startswith("compose ")]
        for mention in [*shell_lines(path), *spans]:
            for match in _RESERVED.finditer(mention.text):
                flag = match[0].rstrip(".")
                if is_reserved_flag(flag) or mention.shows_error:
                    continue
                if not re.search(rf"(?<![\w-]){re.escape(flag_name(flag))}(?![\w-])", shown_wrong):
                    problems.append(f"{mention.where}: {flag} is no flag of an entrypoint")
    assert not problems, "\n".join(sorted(set(problems)))


def test_the_sweep_chapter_names_every_reserved_flag() -> None:
    text = SWEEP_CHAPTER.read_text(encoding="utf-8")
    flags = [SWEEP_FLAG, f"{SWEEP_FLAG}.", *SWEEP_CONTROLS, FROM_RUN_FLAG]
    missing = [flag for flag in flags if not re.search(rf"`{re.escape(flag)}", text)]
    assert not missing, f"{shown(SWEEP_CHAPTER)} does not name {missing}"


def test_the_reserved_flag_check_tells_them_apart() -> None:
    assert is_reserved_flag("--sweep.trainer.optim.lr")
    assert is_reserved_flag("--sweep-resume")
    assert is_reserved_flag("--from-run=runs/x")
    assert not is_reserved_flag("--sweep-colour")
    assert not is_reserved_flag("--from-runs")
    assert [m[0] for m in _RESERVED.finditer("rl --sweep-dir x --no-sweep-y --from-run d")] == [
        "--sweep-dir",
        "--from-run",
    ]


# --- extras ----------------------------------------------------------------------------------

# `compose-config[a,b]` (pip's form) and `.[a,b]` (a checkout's), not a link's `](.[x])`
_EXTRA = re.compile(
    r"compose-config\[(?P<pip>[\w,-]+)\]|(?<![\w)\]])\.\[(?P<local>[\w,-]+)\](?!\()"
)


def extras_in(text: str) -> Iterator[tuple[int, str]]:
    """(offset, extra) for each extra `text` names, `compose-config[a,b]` as two."""
    for match in _EXTRA.finditer(text):
        for extra in (match["pip"] or match["local"]).split(","):
            yield match.start(), extra


def extras_named() -> Iterator[tuple[str, str]]:
    """(where, extra) for each extra the pages name."""
    for path in ALL_MARKDOWN:
        text = path.read_text(encoding="utf-8")
        for offset, extra in extras_in(text):
            yield f"{shown(path)}:{text.count(chr(10), 0, offset) + 1}", extra


def declared_extras() -> set[str]:
    with (ROOT / "pyproject.toml").open("rb") as stream:
        return set(tomli.load(stream)["project"]["optional-dependencies"])


def test_the_extras_named_exist_and_every_extra_is_named() -> None:
    declared = declared_extras()
    named = list(extras_named())
    unknown = [f"{where}: [{extra}]" for where, extra in named if extra not in declared]
    assert not unknown, f"no such extra in pyproject.toml (it has {sorted(declared)}): {unknown}"
    unnamed = declared - {extra for _, extra in named}
    assert not unnamed, f"extras that README.md and docs/ never name: {sorted(unnamed)}"


def test_the_extra_check_reads_both_spellings() -> None:
    text = "pip install 'compose-config[ray,yaml]' or -e '.[dev]'; not [x](a.[b]) nor [c].[d]("
    assert [extra for _, extra in extras_in(text)] == ["ray", "yaml", "dev"]
