r"""The docs run: every fenced code block of `docs/*.md` and `README.md` is executed or checked.

Each markdown file runs in a fresh temporary working directory holding copies of the
repository's `examples/` and `conf/` (and `compose-check.toml`), so commands use the same
relative paths as in a checkout and nothing they write reaches the repository; the running
interpreter's directory (`.venv/bin`) comes first on PATH. Blocks run in the order of the
file; what a block is, is said by its info string (the words after the fence):

- ```python: executed in-process; the python and pycon blocks of one file share a namespace.
- ```pycon: a doctest (`>>> ` lines and the output they print), in that same namespace.
- ```console, ```bash, ```sh, ```shell: each line starting with `$ ` is a command (a trailing `\`
  continues it on the next line); the lines after it, up to the next `$ `, are its expected
  output: stdout and stderr together, as a pipe receives them (neither is a terminal), trailing
  whitespace ignored, a line holding only `...` matching any number of lines. A command shown
  without output must exit with status 0; `$ echo $?` prints the status of the command before
  it. The temporary working directory is printed as `/path/to/project`. A block of these
  languages with no `$ ` line is an error.
- ```toml: must parse (with tomli); ```json: must parse (with json); ```yaml: must parse (with
  PyYAML).
- A file: a toml or python block whose first line is a comment holding only a file name
  (`# base.toml`, `# train.py`), or any block whose info string names one (```toml base.toml):
  it is written to that file in the working directory, without the naming line, for later blocks
  and commands (a toml, json or yaml one must parse too); it is not run itself. When the name is
  a file of the repository (`# examples/rl-app/rl_app/cli.py`), the block is an excerpt of it
  instead, checked against it: its lines appear in the file, in order, a `...` or `# ...` line
  standing for lines left out.
- ```text: not code (a diagram, a message format): shown, not run.
- ```LANG no-run: code that cannot run here (it installs software, runs for minutes, or
  rewrites the repository's files); shown, not run. Keep these very few.
- ```python python3.11+ (or pycon): code of a newer Python's syntax (`except*`). It runs on that
  Python and later; on an older one, its code must be what that Python refuses to compile (a
  SyntaxError), so that the mark stays true.

A page whose examples import a tracker or an engine needs it installed (`NEEDS`, and
`@pytest.mark.needs` in conftest).

Any other fence (untagged, or another language) fails the test: tag it. Commands of the console
scripts (`compose`, and the example app's `rl`, `trainer`, `orchestrator`, `inference`) and
`python SCRIPT.py` / `python -m MODULE` run in-process when the command needs no shell feature
(pipes, `$`, globs, `VAR=x` prefixes, ...); anything else runs under bash.

The README's set-up block (the one creating a virtual environment) is never run: it is what
built the environment this test runs in.
"""

from __future__ import annotations

import contextlib
import doctest
import io
import json
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
import textwrap
import traceback
import types
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import TextIO

import pytest
import tomli
from conftest import VENV_BIN

from compose import register_resolver, registered_resolvers, unregister_resolver

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
MARKDOWN = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
SHOWN_WORKDIR = "/path/to/project"
WILDCARD = "..."

SHARED_DIRS = ("examples", "conf")
SHARED_FILES = ("compose-check.toml",)  # what `compose check conf examples` reads there
SHELL_LANGS = {"console", "bash", "sh", "shell"}
KNOWN_LANGS = {"python", "pycon", "toml", "json", "yaml", "text", *SHELL_LANGS}
NO_RUN = "no-run"
_NEWER_PYTHON = re.compile(r"python(?P<major>\d+)\.(?P<minor>\d+)\+")  # python3.11+
# Pages whose examples drive a tracker or an engine: the distributions of the dev extra they need
NEEDS = {"17-trackers.md": ("wandb", "optuna", "mlflow-skinny")}

# What a shell would do with these outside single quotes: expansion, redirection, globs.
# `~` only where bash expands it to a home directory: not in a deletion such as `~trainer.seed`.
_SHELL_SYNTAX = re.compile(r"[|&;<>()$`*?!{}\[\]\"\\]|(?:^|\s)~(?=[/\s+-]|$)")
_LABEL = re.compile(r"#\s*(?P<name>[\w./-]+\.(?:toml|py|json|yaml|yml|txt|cfg|sh))")
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})(?P<info>.*)$")


@dataclass
class Block:
    """One fenced code block: its info string split into words, its text and where it starts."""

    path: Path
    line: int
    words: list[str]
    text: str

    @property
    def lang(self) -> str:
        return self.words[0] if self.words else ""

    @property
    def file(self) -> str | None:
        """The file a block is written to: named in the info string (```toml base.toml) or,
        for toml and python, by a first line `# base.toml` that holds only the name."""
        names = [
            w
            for w in self.words[1:]
            if w != NO_RUN and not _NEWER_PYTHON.fullmatch(w) and ("." in w or "/" in w)
        ]
        if names:
            return names[0]
        label = _LABEL.fullmatch(self.text.split("\n", 1)[0].strip())
        return label["name"] if label and self.lang in ("toml", "python") else None

    @property
    def python(self) -> tuple[int, int] | None:
        """The Python its code needs, where newer than every supported one (`python3.11+`)."""
        marks = [_NEWER_PYTHON.fullmatch(w) for w in self.words[1:]]
        found = next((mark for mark in marks if mark), None)
        return None if found is None else (int(found["major"]), int(found["minor"]))

    @property
    def where(self) -> str:
        return f"{shown(self.path)}:{self.line}"


def shown(path: Path) -> str:
    """A path as messages show it: relative to the repository when it is inside."""
    return os.path.relpath(path, ROOT) if path.is_relative_to(ROOT) else str(path)


def blocks_of(path: Path) -> list[Block]:
    """The fenced code blocks of a markdown file, in order."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found: list[Block] = []
    pos = 0
    while pos < len(lines):
        opening = _FENCE.match(lines[pos])
        if not opening:
            pos += 1
            continue
        fence, indent = opening["fence"], len(opening["indent"])
        body: list[str] = []
        end = pos + 1
        while end < len(lines):
            closing = lines[end].strip()
            if closing.startswith(fence[0] * len(fence)) and not closing.strip(fence[0]):
                break
            body.append(lines[end][indent:] if lines[end][:indent].isspace() else lines[end])
            end += 1
        text = "\n".join(body) + "\n" if body else ""
        found.append(Block(path, pos + 1, opening["info"].split(), text))
        pos = end + 1
    return found


def is_setup_block(block: Block) -> bool:
    """The README's set-up commands: they create the virtual environment this test runs in."""
    return block.path.name == "README.md" and block.path.parent == ROOT and "-m venv" in block.text


# --- commands --------------------------------------------------------------------------------


@dataclass
class Command:
    line: int
    text: str
    expected: list[str]


def commands_of(block: Block) -> list[Command]:
    """`$ ` lines (with `\\` continuations) and the output lines shown after each."""
    commands: list[Command] = []
    lines = block.text.splitlines()
    pos = 0
    while pos < len(lines):
        line = lines[pos]
        if not line.startswith("$ "):
            if not commands:
                if line.strip():
                    pytest.fail(f"{block.where}: output before the first `$ ` command: {line!r}")
                pos += 1
                continue
            commands[-1].expected.append(line)
            pos += 1
            continue
        start = pos
        text = line[2:]
        while text.endswith("\\") and pos + 1 < len(lines):
            pos += 1
            text = text[:-1] + " " + lines[pos].strip()
        commands.append(Command(block.line + 1 + start, text.strip(), []))
        pos += 1
    return commands


def console_scripts() -> dict[str, str]:
    """The console scripts of the library and of the example app: name -> `module:function`."""
    scripts: dict[str, str] = {}
    for project in (ROOT, ROOT / "examples" / "rl-app"):
        with (project / "pyproject.toml").open("rb") as stream:
            scripts.update(tomli.load(stream)["project"]["scripts"])
    return scripts


SCRIPTS = console_scripts()


def in_process_argv(command: str) -> list[str] | None:
    """The argv of a command that can run in-process, or None when it needs a shell."""
    unquoted = re.sub(r"'[^']*'", "''", command)
    if _SHELL_SYNTAX.search(unquoted.split(" #")[0]):
        return None
    argv = shlex.split(command, comments=True)
    if not argv or "=" in argv[0]:
        return None
    if argv[0] in SCRIPTS:
        return argv
    script = len(argv) > 1 and (argv[1].endswith(".py") or (argv[1] == "-m" and len(argv) > 2))
    if argv[0] in ("python", "python3") and script:
        return argv
    return None


@contextlib.contextmanager
def real_process_warnings() -> Iterator[None]:
    """Warnings shown on stderr as a fresh Python process shows them (pytest records them)."""
    with warnings.catch_warnings():
        warnings.resetwarnings()
        warnings.simplefilter("default")
        for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning):
            warnings.simplefilter("ignore", category)

        def show(
            message: Warning | str,
            category: type[Warning],
            filename: str,
            lineno: int,
            file: TextIO | None = None,
            line: str | None = None,
        ) -> None:
            sys.stderr.write(warnings.formatwarning(message, category, filename, lineno, line))

        warnings.showwarning = show
        yield


def run_in_process(argv: list[str]) -> tuple[int, str]:
    """Run a console script or a python script in this process: (exit status, output)."""
    output = io.StringIO()
    saved_argv, saved_path = sys.argv, list(sys.path)
    status = 0
    with (
        contextlib.redirect_stdout(output),
        contextlib.redirect_stderr(output),
        real_process_warnings(),
    ):
        try:
            if argv[0] in SCRIPTS:
                module, _, function = SCRIPTS[argv[0]].partition(":")
                sys.argv = argv
                getattr(import_module(module), function)()
            elif argv[1] == "-m":
                sys.argv = [argv[2], *argv[3:]]
                sys.path.insert(0, os.getcwd())
                runpy.run_module(argv[2], run_name="__main__", alter_sys=True)
            else:
                sys.argv = argv[1:]
                sys.path.insert(0, str(Path(argv[1]).resolve().parent))
                runpy.run_path(argv[1], run_name="__main__")
        except SystemExit as stop:
            status = _exit_status(stop.code)
        except Exception:
            traceback.print_exc(file=output)
            status = 1
        finally:
            sys.argv, sys.path[:] = saved_argv, saved_path
    return status, output.getvalue()


def _exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def run_in_shell(command: str, workdir: Path) -> tuple[int, str]:
    env = dict(os.environ)
    env.update(
        PATH=f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}",
        PYTHONUNBUFFERED="1",  # the order a terminal shows, not a pipe's buffering
        NO_COLOR="1",
        COLUMNS="100",
    )
    done = subprocess.run(
        ["bash", "-c", command],
        cwd=workdir,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )
    return done.returncode, done.stdout


def output_matches(expected: list[str], actual: str) -> bool:
    """Line by line, trailing whitespace and trailing blank lines ignored; `...` any lines."""
    want = _trimmed(expected)
    got = _trimmed(actual.splitlines())
    pattern = "".join(
        r"(?:[^\n]*\n)*?" if line.strip() == WILDCARD else re.escape(line) + "\n" for line in want
    )
    return re.fullmatch(pattern, "".join(line + "\n" for line in got)) is not None


def _trimmed(lines: list[str]) -> list[str]:
    lines = [line.rstrip() for line in lines]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return lines


# --- one markdown file -----------------------------------------------------------------------


class Page:
    """The state of one markdown file's run: its working directory and python namespace."""

    def __init__(self, path: Path, workdir: Path) -> None:
        self.path = path
        self.workdir = workdir
        name = re.sub(r"\W", "_", path.stem)
        self.module = types.ModuleType(f"docs_{name}")
        self.module.__dict__["__file__"] = str(path)
        self.handlers: dict[str, Callable[[Block], None]] = {
            "python": self.run_python,
            "pycon": self.run_pycon,
            "toml": self.check_toml,
            "json": self.check_json,
            "yaml": self.check_yaml,
            **dict.fromkeys(SHELL_LANGS, self.run_commands),
        }

    def run(self, block: Block) -> None:
        if block.lang not in KNOWN_LANGS:
            pytest.fail(
                f"{block.where}: untagged or unknown code block ({block.lang or 'no language'}):"
                f" tag it {', '.join(sorted(KNOWN_LANGS))} (see tests/test_docs.py)"
            )
        if block.lang == "text" or NO_RUN in block.words[1:] or is_setup_block(block):
            return
        if block.python is not None and sys.version_info < block.python:
            self.check_refused(block, block.python)
            return
        if block.file is not None:
            self.write_file(block)
            return
        self.handlers[block.lang](block)

    def check_refused(self, block: Block, python: tuple[int, int]) -> None:
        """A block marked for a newer Python is code this one cannot compile."""
        if block.lang == "pycon":
            parser = doctest.DocTestParser()
            sources = [example.source for example in parser.get_examples(block.text)]
        else:
            sources = [block.text]
        for source in sources:
            try:
                compile(source, str(block.path), "exec")
            except SyntaxError:
                return
        pytest.fail(
            f"{block.where}: marked python{python[0]}.{python[1]}+, and Python "
            f"{sys.version_info.major}.{sys.version_info.minor} compiles it: drop the mark"
        )

    def write_file(self, block: Block) -> None:
        name = block.file or ""
        if (ROOT / name).is_file():
            check_excerpt(block, ROOT / name)
            return
        if block.lang in ("toml", "json", "yaml"):
            self.handlers[block.lang](block)
        text = block.text
        if _LABEL.fullmatch(text.split("\n", 1)[0].strip()):
            text = text.split("\n", 1)[1]  # the label is a caption, not a line of the file
        target = self.workdir / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        forget_modules_under(self.workdir)  # a rewritten module is imported afresh

    def check_toml(self, block: Block) -> None:
        try:
            tomli.loads(block.text)
        except tomli.TOMLDecodeError as error:
            pytest.fail(f"{block.where}: the toml block does not parse: {error}")

    def check_json(self, block: Block) -> None:
        try:
            json.loads(block.text)
        except json.JSONDecodeError as error:
            pytest.fail(f"{block.where}: the json block does not parse: {error}")

    def check_yaml(self, block: Block) -> None:
        yaml = pytest.importorskip("yaml")  # PyYAML comes with omegaconf, a dev dependency
        try:
            yaml.safe_load(block.text)
        except yaml.YAMLError as error:
            pytest.fail(f"{block.where}: the yaml block does not parse: {error}")

    def run_python(self, block: Block) -> None:
        code = compile("\n" * block.line + block.text, str(block.path), "exec")
        try:
            exec(code, self.module.__dict__)
        except Exception:
            pytest.fail(f"{block.where}: the python block raised\n{traceback.format_exc()}")

    def run_pycon(self, block: Block) -> None:
        test = doctest.DocTestParser().get_doctest(
            block.text, self.module.__dict__, block.where, str(block.path), block.line
        )
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
        report = io.StringIO()
        runner.run(test, out=report.write, clear_globs=False)
        self.module.__dict__.update(test.globs)  # DocTest ran on a copy of the namespace
        if runner.failures:
            pytest.fail(f"{block.where}: the pycon block differs\n{report.getvalue()}")

    def run_commands(self, block: Block) -> None:
        commands = commands_of(block)
        if not commands:
            pytest.fail(f"{block.where}: a {block.lang} block without a `$ ` command")
        status = 0
        for command in commands:
            argv = in_process_argv(command.text)
            if command.text == "echo $?":  # the status of the command before
                status, output = 0, f"{status}\n"
            elif argv is None:
                status, output = run_in_shell(command.text, self.workdir)
            else:
                status, output = run_in_process(argv)
            output = output.replace(str(self.workdir), SHOWN_WORKDIR)
            where = f"{shown(block.path)}:{command.line}"
            if not _trimmed(command.expected):
                assert status == 0, f"{where}: `{command.text}` exited {status}:\n{output}"
            elif not output_matches(command.expected, output):
                wanted = "\n".join(command.expected)
                pytest.fail(
                    f"{where}: `{command.text}` (exit {status}) printed\n{output}\n"
                    f"--- but the doc shows\n{wanted}"
                )


def forget_modules_under(directory: Path) -> None:
    for name, module in list(sys.modules.items()):
        file = getattr(module, "__file__", None)
        if file and Path(file).resolve().is_relative_to(directory.resolve()):
            del sys.modules[name]


def prepare_workdir(workdir: Path) -> None:
    """Copies of the repository's `examples/` and `conf/` (and the mapping of their roles), so
    that their paths work as in a checkout and nothing a command writes reaches the repository."""
    for name in SHARED_DIRS:
        shutil.copytree(ROOT / name, workdir / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in SHARED_FILES:
        shutil.copy2(ROOT / name, workdir / name)


def check_excerpt(block: Block, source: Path) -> None:
    """A block labelled with a repository file shows that file: its lines, in order, with
    `...` (or `# ...`) lines standing for lines left out."""
    lines = [line.rstrip() for line in block.text.splitlines()]
    have = [line.rstrip() for line in source.read_text(encoding="utf-8").splitlines()]
    if lines and _LABEL.fullmatch(lines[0].strip()) and lines[0] not in have:
        lines = lines[1:]
    chunks: list[list[str]] = [[]]
    for line in lines:
        if line.strip() in (WILDCARD, f"# {WILDCARD}"):
            chunks.append([])
        else:
            chunks[-1].append(line)
    start = 0
    for chunk in filter(None, chunks):
        found = next(
            (
                i
                for i in range(start, len(have) - len(chunk) + 1)
                if have[i : i + len(chunk)] == chunk
            ),
            None,
        )
        if found is None:
            pytest.fail(
                f"{block.where}: not an excerpt of {source.relative_to(ROOT)}; from here on "
                f"it differs:\n" + "\n".join(chunk)
            )
        start = found + len(chunk)


@pytest.mark.parametrize(
    "path",
    [pytest.param(path, marks=pytest.mark.needs(*NEEDS.get(path.name, ()))) for path in MARKDOWN],
    ids=shown,
)
def test_code_blocks_run(path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every code block of the page runs, in order, and shows what the page says it shows
    (`Page.run` compares each output and excerpt)."""
    workdir = tmp_path / "project"
    workdir.mkdir()
    prepare_workdir(workdir)
    monkeypatch.chdir(workdir)
    monkeypatch.setattr(sys, "argv", [path.stem])
    monkeypatch.syspath_prepend(str(workdir))
    monkeypatch.setenv("COLUMNS", "100")
    monkeypatch.setenv("NO_COLOR", "1")
    page = Page(path, workdir)
    sys.modules[page.module.__name__] = page.module
    resolvers = registered_resolvers()  # a page may register_resolver(): keep it to the page
    try:
        for block in blocks_of(path):
            page.run(block)
    finally:
        sys.modules.pop(page.module.__name__, None)
        forget_modules_under(workdir)
        for name in registered_resolvers():
            unregister_resolver(name)
        for name, fn in resolvers.items():
            register_resolver(name, fn)


# --- links and the index ---------------------------------------------------------------------

_LINK = re.compile(r"\]\((?P<target>[^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("path", MARKDOWN, ids=shown)
def test_relative_links_resolve(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    for match in _LINK.finditer(_without_code(text)):
        target = match["target"]
        if re.match(r"[a-z]+:", target):
            continue
        assert (path.parent / target).exists(), f"{path.name}: link to missing {target}"


def test_the_index_lists_every_chapter() -> None:
    index = (DOCS / "README.md").read_text(encoding="utf-8")
    linked = {match["target"] for match in _LINK.finditer(index)}
    chapters = {p.name for p in DOCS.glob("*.md")} - {"README.md"}
    assert chapters <= linked, f"docs/README.md does not link {sorted(chapters - linked)}"


def _without_code(text: str) -> str:
    return re.sub(r"```.*?```", "", text, flags=re.DOTALL)


# --- the harness itself ----------------------------------------------------------------------


def test_output_matching_rules() -> None:
    assert output_matches(["a", "b  "], "a\nb\n\n")
    assert output_matches(["a", "...", "z"], "a\nb\nc\nz\n")
    assert output_matches(["a", "...", "z"], "a\nz\n")
    assert not output_matches(["a", "z"], "a\nb\nz\n")
    assert not output_matches(["a.c"], "abc\n")


def test_commands_needing_a_shell_run_under_bash() -> None:
    assert in_process_argv("rl @ a.toml --x '{\"k\": 1}'") == [
        "rl",
        "@",
        "a.toml",
        "--x",
        '{"k": 1}',
    ]
    assert in_process_argv("python train.py @ a.toml  # a comment") == [
        "python",
        "train.py",
        "@",
        "a.toml",
    ]
    assert in_process_argv("rl @ a.toml ~trainer.seed") == ["rl", "@", "a.toml", "~trainer.seed"]
    for command in ("rl @ a.toml | head", "X=1 rl", "echo $?", "rl --x ~/d", "ls *.toml", "cat"):
        assert in_process_argv(command) is None, command


def test_blocks_are_split_by_their_fences(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        textwrap.dedent(
            """\
            ````markdown
            ```python
            x = 1
            ```
            ````

            ```toml base.toml
            a = 1
            ```
            """
        ),
        encoding="utf-8",
    )
    blocks = blocks_of(page)
    assert [(b.lang, b.file, b.line) for b in blocks] == [
        ("markdown", None, 1),
        ("toml", "base.toml", 7),
    ]
    assert blocks[0].text == "```python\nx = 1\n```\n"


def test_a_block_for_a_newer_python_is_code_this_one_refuses(tmp_path: Path) -> None:
    """On a Python older than a block's mark, the block is not run but must not compile: a
    mark on code that would run is a mark to drop (and hides the code from that Python)."""
    page_md = tmp_path / "page.md"
    page_md.write_text(
        "```pycon python99.0+\n>>> x = 1\n>>> match x:\n...     case = 2\n```\n"
        "```python python99.0+\nx = 1\n```\n",
        encoding="utf-8",
    )
    refused, compiles = blocks_of(page_md)
    assert (refused.python, refused.file) == ((99, 0), None)
    page = Page(page_md, tmp_path)
    page.run(refused)  # syntax of no Python so far: not run, and the mark holds
    with pytest.raises(pytest.fail.Exception, match="compiles it: drop the mark"):
        page.run(compiles)
