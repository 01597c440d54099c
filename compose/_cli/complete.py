"""Shell completion for entrypoints: the scripts, and the candidates for the word at the cursor.

`eval "$(_COMPOSE_COMPLETE=bash rl)"` (or `compose completion bash rl`) defines a completion
function; on TAB it calls the entrypoint back as `_COMPOSE_COMPLETE=complete_bash rl ...`, and
`cli()` hands that to `respond` before it parses anything. Candidates come from the schema and
the words typed so far: no file is read, nothing is composed and rich is not imported, so a TAB
costs what a bare `--help` costs (the app's own imports, mostly).

What the scripts pass: bash the command line up to the cursor and readline's word (`$2`: the
text a candidate replaces, which starts after a `=`); zsh and fish the words before the cursor
then the word at it, unquoted. The answer is a mode line, then one candidate a line:

    plain    the candidates, and no file names
    nospace  one candidate that goes on (`--trainer.`, `conf/`): no space after it (bash)
    files    the candidates (the search path's pieces), plus the shell's file-name completion

Flags are offered one segment at a time (`--trainer.` then `--trainer.optim.`), like paths.
"""

from __future__ import annotations

import enum
import os
import re
import shlex
import sys
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any, NamedTuple, TextIO

from pydantic import BaseModel

from compose._input.search import SearchPath, config_groups
from compose._schema.plan import NO_DEFAULT, plan_of
from compose._schema.shape import Kind, Shape, shape_of
from compose._schema.walk import Target, walk
from compose._syntax import (
    COMPLETE_VARIABLE,
    NEGATIONS,
    NONE_TEXT,
    kebab_case,
    snake_case,
    split_dotted,
    without_negation,
)
from compose._tree import child
from compose.errors import ArgvError, ComposeError

SHELLS = ("bash", "zsh", "fish")
PLAIN, NOSPACE, FILES = "plain", "nospace", "files"
_HELP = ("-h", "--help")
_GOES_ON = (".", "/", "=", "=@")  # a candidate ending so goes on: no space after it
_PROG = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.+-]*")
_BASH_SAFE = re.compile(r"([^\w@%+=:,./~-])")  # anything else is backslash-escaped for bash
_MAX_LISTED = 1000  # directory entries listed for an attached `@FILE`


class Reply(NamedTuple):
    mode: str
    candidates: list[str]


def respond(
    schema: type[BaseModel], instruction: str, args: list[str], prog: str, search: SearchPath
) -> int:
    """Answer `_COMPOSE_COMPLETE=instruction`: print the script or the candidates; the exit code."""
    if instruction in SHELLS:
        sys.stdout.write(completion_script(instruction, prog))
        return 0
    shell = instruction.removeprefix("complete_")
    if shell not in SHELLS or shell == instruction:
        expected = ", ".join([*SHELLS, *(f"complete_{s}" for s in SHELLS)])
        sys.stderr.write(f"error: {COMPLETE_VARIABLE}={instruction}: expected one of {expected}\n")
        return 2
    reply = (
        bash_reply(schema, args, search) if shell == "bash" else word_reply(schema, args, search)
    )
    write_reply(sys.stdout, reply)
    return 0


def write_reply(out: TextIO, reply: Reply) -> None:
    out.write("".join(f"{line}\n" for line in [reply.mode, *reply.candidates] if "\n" not in line))


# --- the scripts ------------------------------------------------------------------------------

_BASH = """\
# bash completion for {prog}: eval "$(_COMPOSE_COMPLETE=bash {prog})"
{function}() {{
    local mode= line
    COMPREPLY=()
    while IFS= read -r line; do
        if [[ -z $mode ]]; then mode=$line; else COMPREPLY+=("$line"); fi
    done < <({variable}=complete_bash "$1" "${{COMP_LINE:0:COMP_POINT}}" "$2" 2>/dev/null)
    case $mode in
        nospace) compopt -o nospace ;;
        plain) ((${{#COMPREPLY[@]}})) || compopt +o default ;;
        files) if ((${{#COMPREPLY[@]}})); then
                compopt -o filenames
                while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen -f -- "$2")
            fi ;;
    esac
}}
complete -o default -F {function} {prog}
"""

_ZSH = """\
#compdef {prog}
# zsh completion for {prog}: eval "$(_COMPOSE_COMPLETE=zsh {prog})" (after compinit)
{function}() {{
    local -a reply
    reply=("${{(@f)$({variable}=complete_zsh ${{(Q)words[1]}} "${{(@Q)words[2,CURRENT-1]}}" \\
        "${{(Q)PREFIX}}" 2>/dev/null)}}")
    local mode=${{reply[1]}}
    reply=("${{(@)reply[2,-1]}}")
    compadd -S '' -- ${{(M)reply:#(*[./=]|*=@)}}
    compadd -- ${{reply:#(*[./=]|*=@)}}
    [[ $mode == (plain|nospace) ]] || _files
}}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    {function} "$@"  # autoloaded from a file _{prog} on $fpath: complete now
else
    compdef {function} {prog}
fi
"""

_FISH = """\
# fish completion for {prog}: _COMPOSE_COMPLETE=fish {prog} | source
function {function}
    set -l current (commandline -ct | string unescape)
    set -l reply (env {variable}=complete_fish (commandline -opc) "$current" 2>/dev/null)
    if test "$reply[1]" = files
        __fish_complete_path "$current"
    end
    set -q reply[2]; and printf '%s\\n' $reply[2..-1]
end
complete -c {prog} -f -a '({function})'
"""

_SCRIPTS = {"bash": _BASH, "zsh": _ZSH, "fish": _FISH}


def completion_script(shell: str, prog: str) -> str:
    """The script that makes `shell` complete `prog`'s command line by calling `prog` back."""
    template = _SCRIPTS.get(shell)
    if template is None:
        raise ArgvError("is not a shell compose completes", value=shell, hint="bash, zsh or fish")
    if not _PROG.fullmatch(prog):
        raise ArgvError(
            "is not a program name a completion script can name",
            value=prog,
            hint="letters, digits and _ . + -",
        )
    function = "_compose_complete_" + re.sub(r"\W", "_", prog)
    return template.format(prog=prog, function=function, variable=COMPLETE_VARIABLE)


# --- what each shell passes -------------------------------------------------------------------


def word_reply(schema: type[BaseModel], args: list[str], search: SearchPath) -> Reply:
    """zsh and fish: the words before the cursor, then the word at it (all unquoted)."""
    words, current = (args[:-1], args[-1]) if args else ([], "")
    return complete(schema, words, current, search)


def bash_reply(schema: type[BaseModel], args: list[str], search: SearchPath) -> Reply:
    """bash: `LINE WORD`, the command line up to the cursor and the text readline replaces,
    which is the end of the word at the cursor (after a `=`): candidates are cut to match."""
    line, replaced = [*args, "", ""][:2]
    words = split_line(line)[1:]  # the first word is the program
    words, current = (words[:-1], words[-1]) if words else ([], "")
    reply = complete(schema, words, current, search)
    head = _replaced_from(current, replaced)
    cut = [_bash_quoted(c[len(head) :]) for c in reply.candidates if c.startswith(head)]
    return Reply(_mode(reply.mode, cut), cut)


def split_line(line: str) -> list[str]:
    """The words of a command line, unquoted; the last is the word at its end ("" after a
    space). A quote left open at the cursor is closed."""
    for closing in ("", '"', "'"):
        try:
            words = shlex.split(line + "x" + closing)  # the x marks the word at the cursor
        except ValueError:
            continue
        return [*words[:-1], words[-1].removesuffix("x")]
    return [*line.split(), ""]


def _replaced_from(current: str, replaced: str) -> str:
    """The part of the current word before the text readline replaces (`--k=` of `--k=v`)."""
    if not replaced:
        return current
    return current[: -len(replaced)] if current.endswith(replaced) else ""


def _bash_quoted(candidate: str) -> str:
    return _BASH_SAFE.sub(r"\\\1", candidate)


def _mode(mode: str, candidates: list[str]) -> str:
    if mode == PLAIN and len(candidates) == 1 and candidates[0].endswith(_GOES_ON):
        return NOSPACE
    return mode


# --- the words typed so far -------------------------------------------------------------------


class Position(enum.Enum):
    ITEM = "item"  # a new item: @, a flag, a deletion
    FILE = "file"  # the file after a standalone `@`
    HELP = "help"  # the section after --help
    VALUE = "value"  # a value of the flag before


class State(NamedTuple):
    position: Position
    key: str  # the flag whose value comes (VALUE), the section a file loads into (FILE)
    given: int  # values the flag has so far
    settings: list[tuple[str, str]]  # (key, first value) of each flag: for union variants


def scan(words: list[str]) -> State:
    """Where the word at the cursor stands, from the words before it (the CLI grammar)."""
    position, key, given = Position.ITEM, "", 0
    settings: list[tuple[str, str]] = []
    for word in words:
        if position is Position.FILE:
            position, key = Position.ITEM, ""
        elif word == "@":
            section = key if position is Position.VALUE and given == 0 else ""
            position, key = Position.FILE, section
        elif word.startswith("@") or (word.startswith("~") and position is not Position.VALUE):
            position, key = Position.ITEM, ""
        elif word in _HELP:
            position, key = Position.HELP, ""
        elif word.startswith("--") and len(word) > 2:
            name, eq, value = word[2:].partition("=")
            name = name.removesuffix("+")
            if eq:
                settings.append((name, value))
                position, key = Position.ITEM, ""
            else:
                position, key, given = Position.VALUE, name, 0
        elif position is Position.VALUE:
            given += 1
            if given == 1:
                settings.append((key, word))
        else:
            position, key = Position.ITEM, ""
    return State(position, key, given, settings)


def chosen_variants(root: Shape, settings: list[tuple[str, str]]) -> dict[str, Any]:
    """A tree holding the union tags set on the command line (`--orchestrator.algo.type opd`),
    so that a union section offers its chosen variant's fields."""
    tree: dict[str, Any] = {}
    for key, value in settings:
        target = _walked(root, key, tree)
        if target is None or not target.is_tag or not all(isinstance(s, str) for s in target.path):
            continue
        node = tree
        for segment in target.path[:-1]:
            node = node.setdefault(str(segment), {})
            if not isinstance(node, dict):
                break
        else:
            node[str(target.path[-1])] = value
    return tree


def _walked(root: Shape, key: str, tree: Any) -> Target | None:
    if not key or key.startswith(".") or key.endswith("."):
        return None
    try:
        return walk(root, split_dotted(key), tree, f"--{key}")
    except ComposeError:
        return None


# --- the candidates ---------------------------------------------------------------------------


class Context(NamedTuple):
    root: Shape
    tree: dict[str, Any]  # the union tags chosen on the command line
    search: SearchPath


def complete(
    schema: type[BaseModel], words: list[str], current: str, search: SearchPath = ()
) -> Reply:
    """The candidates for `current`, the word at the cursor, after `words`: whole words."""
    state = scan(words)
    root = shape_of(schema)
    context = Context(root, chosen_variants(root, state.settings), search)
    if state.position is Position.FILE:
        return Reply(FILES, pieces(search, state.key, current))
    if current.startswith("@"):
        section = state.key if state.position is Position.VALUE and state.given == 0 else ""
        return attached_files(context, "@", current[1:], section)
    if state.position is Position.HELP and not current.startswith("-"):
        return Reply(PLAIN, flag_candidates(context, current, lead="", sections_only=True))
    if state.position is Position.VALUE and not current.startswith("-"):
        reply = value_reply(context, state.key, state.given, current)
        if reply is not None:
            return reply
    return item_reply(context, current)


def item_reply(context: Context, current: str) -> Reply:
    """A new item: `@`, a flag (`--k`, `--k=v`, `--k=@file`), a deletion (`~k`)."""
    if current.startswith("--") and "=" in current:
        key, _, value = current.partition("=")
        lead = key + "="
        if value.startswith("@"):
            return attached_files(context, lead + "@", value[1:], key[2:].removesuffix("+"))
        reply = value_reply(context, key[2:].removesuffix("+"), 0, value)
        candidates = [lead + c for c in reply.candidates] if reply is not None else []
        return Reply(reply.mode if reply is not None else PLAIN, candidates)
    if current.startswith("~"):
        return Reply(PLAIN, flag_candidates(context, current, lead="~", leaves_too=True))
    if current.startswith("-"):
        flags = flag_candidates(context, "--" + current.lstrip("-"), lead="--")
        return Reply(PLAIN, [f for f in flags if f.startswith(current)])
    if not current:
        return Reply(PLAIN, ["@", *flag_candidates(context, "--", lead="--")])
    return Reply(PLAIN, [])


def flag_candidates(
    context: Context,
    typed: str,
    lead: str,
    sections_only: bool = False,
    leaves_too: bool = False,
) -> list[str]:
    """The next segment of a key path: `--trainer.op` gives `--trainer.optim.`.

    `--no-x` forms are offered once a segment is begun (typing `--n` lists them), so that a
    bare `--` or `--trainer.` lists each field once.
    """
    body = typed[len(lead) :]
    head, dot, segment = body.rpartition(".")
    if dot:
        target = _walked(context.root, head, context.tree)
        if target is None:
            return []
        shape, default, node = target.shape, target.default, _node_at(context.tree, target.path)
    else:
        shape, default, node = context.root, NO_DEFAULT, context.tree
    words = _segment_words(shape, default, node, negations=bool(segment))
    if sections_only:  # `--help trainer.optim`: a section's own fields, not a list element's
        words = [w[:-1] for w in words if w.endswith(".") and "." not in w[:-1]]
    elif leaves_too:
        words = [*words, *(w.removesuffix(".") for w in words if w.endswith("."))]
    if "_" in segment:  # the user writes snake_case: answer in kind
        words = [snake_case(w) for w in words]
    prefix = lead + head + dot
    found = [prefix + w for w in dict.fromkeys(words) if w.startswith(segment)]
    if lead == "--" and not dot and "--help".startswith(typed):
        found.append("--help")
    return found


def _node_at(tree: Any, path: tuple[str | int, ...]) -> Any:
    for segment in path:
        tree = child(tree, segment)
    return tree


def _segment_words(shape: Shape, default: Any, node: Any, negations: bool) -> list[str]:
    """What may follow `KEY.` in a flag: fields (`lr`, `optim.`, `no-x`), list indices (`0.`)."""
    if shape.is_section:
        return [
            word
            for model in _models(shape, node, default)
            for name, plan in plan_of(model).fields.items()
            for word in _field_words(kebab_case(name), plan.shape, negations)
        ]
    if shape.kind is Kind.LIST and shape.item is not None and shape.item.is_section:
        return [f"{index}." for index in range(max(1, _length(default)))]
    if shape.kind is Kind.DICT and shape.item is not None and shape.item.is_section:
        return [f"{key}." for key in default] if isinstance(default, dict) else []
    return []


def _models(shape: Shape, node: Any, default: Any) -> list[type[BaseModel]]:
    """A section's models: a union's variant chosen on the command line, else all of them
    (files may choose any), the default's first."""
    if shape.model is not None:
        return [shape.model]
    tag = shape.tag
    chosen = shape.variant(node[tag]) if tag and isinstance(node, dict) and tag in node else None
    if chosen is not None:
        return [chosen]
    models = [model for _, model in shape.variants]
    if isinstance(default, BaseModel) and type(default) in models:
        models.remove(type(default))
        models.insert(0, type(default))
    return models


def _field_words(name: str, shape: Shape, negations: bool) -> Iterator[str]:
    if shape.is_section:
        yield name + "."
        if shape.nullable or shape.alternative is not None:
            yield name  # `--inference` turns it on; `--source policy` takes the alternative
    elif shape.kind is Kind.LIST and shape.item is not None and shape.item.is_section:
        yield name  # the whole list, as JSON
        yield name + ".0."  # an element's fields
    else:
        yield name
    if negations and (shape.kind is Kind.BOOL or (shape.is_section and shape.nullable)):
        yield NEGATIONS[0] + name


def _length(value: Any) -> int:
    return len(value) if isinstance(value, (list, tuple)) else 0


# --- values -----------------------------------------------------------------------------------


def value_reply(context: Context, key: str, given: int, typed: str) -> Reply | None:
    """The values a flag takes; None when it takes no more (the word starts a new item)."""
    target = _walked(context.root, key, context.tree)
    if target is None:
        return None if _is_negation(context, key) else Reply(FILES, [])
    shape = target.shape
    if given and shape.kind is not Kind.LIST:
        return None
    if target.is_tag and target.parent is not None:
        choices: list[str] | None = [tag for tag, _ in target.parent.variants]
    elif shape.is_section:  # `--trainer.optim @ FILE`, or a value the section also takes
        alternative = value_choices(shape.alternative) if shape.alternative is not None else []
        choices = ["@", *(alternative or [])]
    else:
        choices = value_choices(shape)
    if choices is None:
        return Reply(FILES, [])
    return Reply(PLAIN, [c for c in choices if c.startswith(typed)])


def _is_negation(context: Context, key: str) -> bool:
    head, dot, last = key.rpartition(".")
    negated = without_negation(last)
    if negated is None:
        return False
    return _walked(context.root, head + dot + negated, context.tree) is not None


def value_choices(shape: Shape) -> list[str] | None:
    """The values to offer for a shape: its choices (maybe none); None for a path (files)."""
    if shape.kind is Kind.LIST:
        return value_choices(shape.item) if shape.item is not None else []
    if shape.alternative is not None:
        return value_choices(shape.alternative)
    if shape.kind is Kind.BOOL:
        choices = ["true", "false"]
    elif shape.kind is Kind.SCALAR and shape.literal:
        choices = [_text(value) for value in shape.members]
    elif shape.kind is Kind.SCALAR and _enum_members(shape):
        choices = _enum_members(shape)
    elif shape.kind is Kind.SCALAR and _is_path(shape):
        return None
    else:
        return []
    return [*choices, NONE_TEXT] if shape.nullable else choices


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value.value if isinstance(value, enum.Enum) else value)


def _enum_members(shape: Shape) -> list[str]:
    """The values of an enum type, when the shape is exactly one enum."""
    if len(shape.members) != 1:
        return []
    member = shape.members[0]
    if isinstance(member, type) and issubclass(member, enum.Enum):
        return [_text(item) for item in member]
    return []


def _is_path(shape: Shape) -> bool:
    return any(isinstance(m, type) and issubclass(m, PurePath) for m in shape.members)


# --- files ------------------------------------------------------------------------------------


def pieces(search: SearchPath, section: str, typed: str) -> list[str]:
    """The search path's pieces starting with `typed`, named as `@` takes them (`optim/muon`):
    for a section named as a directory of pieces (`--trainer.optim @`), that directory's."""
    groups = config_groups(search)
    group = snake_case(section.rpartition(".")[2])
    everything = [piece for listed in groups.values() for piece in listed]
    for offered in (groups.get(group, []), everything):
        found = [piece for piece in offered if piece.startswith(typed)]
        if found:
            return found
    return []


def attached_files(context: Context, lead: str, typed: str, section: str) -> Reply:
    """`@FILE` in one word (`@conf/`, `--trainer=@conf/`): the shell cannot complete a file
    name glued to `@`, so the files are listed here, with the search path's pieces."""
    names = [*_files_like(typed), *pieces(context.search, section, typed)]
    return Reply(PLAIN, [lead + name for name in dict.fromkeys(names)])


def _files_like(typed: str) -> list[str]:
    """Files and directories whose path starts with `typed`; directories end with `/`."""
    folder, slash, start = typed.rpartition("/")
    where = os.path.expanduser(folder + slash) if slash else os.curdir
    found: list[str] = []
    try:
        with os.scandir(where) as entries:
            for entry in entries:
                if len(found) >= _MAX_LISTED:
                    break
                if entry.name.startswith(start) and (start or not entry.name.startswith(".")):
                    found.append(folder + slash + entry.name + ("/" if _is_dir(entry) else ""))
    except (OSError, ValueError):
        return []
    return sorted(found)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
