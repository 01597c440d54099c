"""Entrypoints: `cli(schema)` for applications. Exit codes: 0 ok or help, 2 bad input.

Bad input never shows a traceback: the error is printed once, to stderr, as a rich box on a
terminal and as plain text otherwise. Warnings raised while composing are printed the same way.

A bare `--help [SECTION]` (no files or flags to compose) is drawn without importing the
composition engine (`compose._api`: files, interpolation, binding), which would cost an
entrypoint's help more than drawing it.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import os
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TextIO, TypeVar

from pydantic import BaseModel

from compose._input.argv import HelpItem, program_name, split_argv
from compose._input.options import Options, Resolvers, options
from compose._input.search import Dirs, as_search_path
from compose._shortcuts import SHORTCUTS
from compose._syntax import COMPLETE_VARIABLE, is_from_run_flag, is_own_line, is_sweep_flag
from compose._warn import held
from compose.errors import ComposeError, HelpRequested, counted, printable

if TYPE_CHECKING:
    from compose._runs.rerun import Rerun

M = TypeVar("M", bound=BaseModel)
Now = datetime.datetime | str | None  # an instant for `${now:}`: see `cli`


def cli(
    schema: type[M],
    argv: Sequence[str] | None = None,
    *,
    prog: str | None = None,
    resolvers: Resolvers = None,
    search_path: Dirs = (),
    env_prefix: str | None = None,
    environ: Mapping[str, str] | None = None,
    default: M | None = None,
    args: Sequence[str] | None = None,
    description: str | None = None,
    plain: bool | None = None,
    wide: bool | None = None,
    now: Now = None,
    frozen: bool = False,
    hydra: str | None = None,
) -> M:
    """Parse `argv` (default: `sys.argv[1:]`) into `schema`; print help or errors and exit:
    `--help` prints the help to stdout and exits 0, bad input prints the error to stderr and
    exits with its `exit_code`, 2.

    The options are those of `compose` and `parse`, and mean the same there: `prog` names the
    program in the help's usage line (default: the file name of `sys.argv[0]`). `resolvers` add
    interpolation resolvers for this call only, before the registered ones. A file name not
    found as written is looked up in `search_path`, the working directory, then $COMPOSE_PATH.
    With `env_prefix` (`"RL_"`), the variables of `environ` (default `os.environ`) named with
    it are a node below the files and the flags or overrides (`RL_SECTION__FIELD=VALUE`).
    `default`, an instance of `schema`, is a base below every other node: the fields its
    author set.

    `args=` is pydantic-config's spelling, for callers that handle errors themselves (tests,
    tools): the tokens are parsed the same, but bad input raises `ConfigFileError` (every
    `ComposeError` is one) instead of printing and exiting, and warnings are ordinary Python
    warnings. `--help` prints and exits 0 either way, as pydantic-config's does.
    `description` replaces the schema's docstring atop help; `plain=True` never draws with
    rich (as does a stream that is no terminal). `wide` is taken for pydantic-config's
    callers: help and errors always fit the terminal's width. `now` is the instant `${now:}`
    gives a new run (see `run_instant`): `--from-run DIR` composes at DIR's recorded one
    instead; without either, $COMPOSE_NOW, else the clock when a `${now:}` is resolved.
    `frozen=True` (or a schema whose `model_config` says `frozen=True`) returns a frozen
    config: changing any part of it raises `FrozenError` (docs/06).

    `hydra="DIR:NAME"` makes the app read a Hydra tree (DIR relative to the file that calls
    `cli`), with Hydra's command line: overrides (`db=postgresql trainer.lr=1e-3 +x=1 ~y`),
    `--config-path`/`-cp`, `--config-name`/`-cn`, `--config-dir`/`-cd`, and `-m`/`--multirun`,
    whose jobs are a sweep's points (docs/06). The options that name compose's own nodes
    (`search_path`, `env_prefix`, `default`, `resolvers`) are refused with it.
    """
    del wide  # accepted, not needed: see the docstring
    if args is not None and argv is not None:
        raise TypeError("cli() takes argv or args, not both")
    name = prog or program_name()
    shown = _Shown(description, bool(plain))
    if hydra is not None:
        taken: dict[str, object] = {
            "search_path": search_path,
            "env_prefix": env_prefix,
            "default": default,
            "resolvers": resolvers,
        }
        refused = [option for option, value in taken.items() if value not in (None, ())]
        if refused:
            raise TypeError(f"cli(hydra=) composes a Hydra tree: it takes no {refused[0]}")
        shown.hydra = (hydra, sys._getframe(1).f_globals.get("__file__"))
    knobs = functools.partial(  # checked where its errors are reported
        options,
        resolvers=resolvers,
        search_path=search_path,
        env_prefix=env_prefix,
        environ=environ,
        default=default,
        now=now,
        frozen=frozen,
    )
    if args is not None:
        return _raising(schema, list(args), name, knobs(), shown)
    tokens = list(sys.argv[1:] if argv is None else argv)
    instruction = os.environ.get(COMPLETE_VARIABLE)
    if instruction is not None:  # a shell asks for its script, or for candidates
        with output_may_close():
            code = _answer_completion(schema, instruction, tokens, name, search_path)
        raise SystemExit(code)
    try:
        with warnings_as_lines():  # printed first: they explain what follows
            try:
                return _parse(schema, tokens, name, knobs(), shown.hydra)
            except ComposeError as error:
                outcome = error
    except SweepDone as done:
        _show_sweep(done)
    except KeyboardInterrupt:  # Ctrl-C while composing: nothing was written, no traceback
        write_text(sys.stderr, "interrupted\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    if isinstance(outcome, HelpRequested):
        with output_may_close():
            show_help(_described(outcome, shown.description), plain=shown.plain)
    else:
        report_error(outcome, plain=shown.plain)
    raise SystemExit(outcome.exit_code)


def _answer_completion(
    schema: type[BaseModel], instruction: str, args: list[str], prog: str, search_path: Dirs
) -> int:
    """Shell completion (`compose._cli.complete`), loaded only when a shell asks for it."""
    from compose._cli import complete as _complete  # noqa: PLC0415  # never imported by a normal run

    return _complete.respond(schema, instruction, args, prog, as_search_path(search_path))


class _Shown:
    """How `cli` shows help and errors: the app's `description`, and `plain` text only."""

    __slots__ = ("description", "hydra", "plain")

    def __init__(self, description: str | None, plain: bool) -> None:
        self.description = description
        self.plain = plain
        self.hydra: tuple[str, str | None] | None = None  # `hydra=`, and the app's file


def _raising(schema: type[M], args: list[str], prog: str, knobs: Options, shown: _Shown) -> M:
    """`cli(schema, args=...)`: errors are raised; help is printed, and exits 0."""
    try:
        return _parse(schema, args, prog, knobs, shown.hydra)
    except HelpRequested as asked:
        with output_may_close():
            show_help(_described(asked, shown.description), plain=shown.plain)
        raise SystemExit(asked.exit_code) from None
    except SweepDone as done:
        _show_sweep(done)


class SweepDone(Exception):  # not an error: how sweep mode ends `cli`
    """Sweep mode did its work: `text`, the table of points, is printed and `cli` exits 0; or
    it was interrupted (Ctrl-C): `text` says what was left, on stderr, and `cli` exits 130."""

    def __init__(self, text: str, *, interrupted: bool = False) -> None:
        super().__init__(text)
        self.text = text
        self.interrupted = interrupted


EXIT_INTERRUPTED = 130  # 128 + SIGINT: what the shell sees when a program ends on Ctrl-C


def _show_sweep(done: SweepDone) -> NoReturn:
    if done.interrupted:
        write_text(sys.stderr, done.text)
        raise SystemExit(EXIT_INTERRUPTED)
    with output_may_close():
        write_text(sys.stdout, done.text)
    raise SystemExit(0)


def _runs(
    schema: type[M], args: list[str], prog: str, knobs: Options
) -> tuple[list[str], Options, Rerun | None]:
    """`--from-run DIR` replaced by the run's argv, and the options to compose with (at the
    run's instant and in its recorded environment), with the rerun read; sweep mode run to
    its end (`SweepDone`), or, with `--help`, the base command line, whose help is the help
    every point has. `compose._runs` is imported only when a command line asks for it."""
    again = None
    if any(map(is_from_run_flag, args)):
        from compose._runs.rerun import rerun  # noqa: PLC0415  # only when asked

        again = rerun(args, prog, knobs)
        args, knobs = again.argv, again.knobs(knobs)
    if any(map(is_sweep_flag, args)) and _bare_help(args) is None:
        from compose._runs.command import help_argv, run_sweep  # noqa: PLC0415  # only when asked

        base = help_argv(args)
        if base is not None:
            return base, knobs, again
        sweep_mode(lambda progress: run_sweep(schema, args, prog, knobs, progress=progress))
    return args, knobs, again


def sweep_mode(run: Callable[[SweepProgress], str]) -> NoReturn:
    """Run a sweep to its end, its progress on stderr: `SweepDone` with its table, or, on
    Ctrl-C, with what it left."""
    progress = SweepProgress(sys.stderr)
    try:
        text = run(progress)
    except KeyboardInterrupt:  # said once the progress line is cleared (finally)
        raise SweepDone(progress.interrupted(), interrupted=True) from None
    finally:
        progress.end()
    raise SweepDone(text)


LARGE_SWEEP = 1_000  # points: off a terminal, a sweep this large reports its progress...
PROGRESS_EVERY = 1_000  # ... a line per this many points composed, then written


class SweepProgress:
    """Sweep mode's progress on stderr, as `compose._runs` tells it of each point composed and
    written: on a terminal, one line that updates and is cleared when the sweep ends (before
    its table or error); elsewhere (a log, a test's captured output) only for a sweep of
    `LARGE_SWEEP` points or more, a line per `PROGRESS_EVERY` points and one at each end."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.terminal = _terminal(stream)
        self.what, self.done, self.total = "", 0, 0
        self.shown = 0  # the length of the line a terminal shows, to clear

    def __call__(self, what: str, done: int, total: int) -> None:
        self.what, self.done, self.total = what, done, total
        text = f"{what} {done:,}/{counted(total, 'point')}"
        if self.terminal:
            if done == total or done % max(1, total // 100) == 0:
                self._line(text)
        elif total >= LARGE_SWEEP and (done % PROGRESS_EVERY == 0 or done == total):
            write_text(self.stream, text + "\n")
            self.stream.flush()

    def _line(self, text: str) -> None:
        line = text.ljust(self.shown)  # over all of the longer line before it
        write_text(self.stream, "\r" + line)
        self.stream.flush()
        self.shown = len(line)

    def end(self) -> None:
        """Clear the terminal's line, if one is shown."""
        if self.shown:
            write_text(self.stream, "\r" + " " * self.shown + "\r")
            self.stream.flush()
            self.shown = 0

    def interrupted(self) -> str:
        """What an interrupted sweep left, for the user to go on from."""
        if self.what != "writing":
            return "interrupted: nothing was written or submitted\n"
        if self.done < self.total:
            return (
                f"interrupted: the records of {self.done:,} of {counted(self.total, 'point')} are "
                "written, each whole, and nothing is submitted; the same command writes the "
                "rest (with --sweep-resume it also skips the points that finished)\n"
            )
        return (
            "interrupted: every record is written; some points may have been submitted, "
            "their job ids not recorded in the manifest\n"
        )


def _described(asked: HelpRequested, description: str | None) -> HelpRequested:
    """The help with the app's `description` atop it instead of the schema's docstring."""
    from compose._output.help import HelpScreen, plain_help  # noqa: PLC0415  # drew the screen

    screen = asked.screen
    if description is None or not isinstance(screen, HelpScreen):
        return asked
    screen.summary = description
    return HelpRequested(plain_help(screen), screen)


def _parse(
    schema: type[M],
    args: list[str],
    prog: str,
    knobs: Options,
    hydra: tuple[str, str | None] | None = None,
) -> M:
    """`compose.parse`, with a bare help request answered as it would answer it; with
    `hydra` (`cli(hydra=)`, and the app's file), Hydra's command line, unless it starts with
    `@` (compose's own: a sweep point's job, its recorded config)."""
    if hydra is not None and not is_own_line(args):
        from compose._cli.hydra_app import parse_hydra  # noqa: PLC0415  # Hydra apps only
        from compose._runs.hydra_line import app_tree  # noqa: PLC0415  # Hydra apps only

        spec, app_file = hydra
        tree = app_tree(spec, app_file)
        return parse_hydra(schema, args, prog, knobs, tree, app_file, sweep_mode)
    again = None
    if any(is_sweep_flag(token) or is_from_run_flag(token) for token in args):
        args, knobs, again = _runs(schema, args, prog, knobs)
    section = _bare_help(args)
    alone = knobs.default is None and not _environment_sets(knobs.env_prefix, knobs.environ)
    if SHORTCUTS and section is not None and alone:  # no node but the help: the defaults
        from compose._output.help import help_screen, plain_help  # noqa: PLC0415  # help alone

        screen = help_screen(
            schema, prog, section, search_path=knobs.search_path, env_prefix=knobs.env_prefix
        )
        raise HelpRequested(plain_help(screen), screen)
    from compose._api import parse_with  # noqa: PLC0415  # lazy for cold start: see the docstring

    config = parse_with(schema, args, knobs, prog=prog)
    if again is not None:
        from compose._runs.rerun import refuse_rewrite  # noqa: PLC0415  # loaded by `_runs`

        refuse_rewrite(again, config, knobs, prog)
    return config


def _environment_sets(prefix: str | None, environ: Mapping[str, str] | None) -> bool:
    """Whether variables named with the app's prefix are set: help then shows what they set."""
    if not prefix:
        return False
    return any(name.startswith(prefix) for name in (os.environ if environ is None else environ))


def _bare_help(args: list[str]) -> str | None:
    """The section asked for (`""` for all) if `args` only ask for help, else None."""
    try:
        items = split_argv(args)
    except ComposeError:  # `parse` reports it
        return None
    if not items or not all(isinstance(item, HelpItem) for item in items):
        return None
    last = items[-1]
    return last.section if isinstance(last, HelpItem) else None


@contextlib.contextmanager
def warnings_as_lines() -> Iterator[None]:
    """Compose's warnings (a union switch, a renamed key) as `warning: ...` lines on stderr,
    printed before the result or error they led to, once each (`compose explain` composes the
    same nodes again). Held back in this thread only (`compose._warn`): other threads' warnings,
    and warnings not of compose's, pass through untouched."""
    try:
        with held() as caught:
            yield
    finally:
        _show_warnings(caught)


def show_help(help_requested: HelpRequested, *, plain: bool = False) -> None:
    from compose._output.help import HelpScreen  # noqa: PLC0415  # what drew the screen loaded it

    screen = help_requested.screen
    if isinstance(screen, HelpScreen) and not plain and _terminal(sys.stdout):
        rendered = _rich(lambda render: render.help_panels(screen, sys.stdout))
        if rendered:
            return
    write_text(sys.stdout, help_requested.text)


def report_error(error: ComposeError, *, plain: bool = False) -> None:
    if (
        not plain
        and _terminal(sys.stderr)
        and _rich(lambda render: render.error_box(error, sys.stderr))
    ):
        return
    write_text(sys.stderr, f"error: {error.format()}\n")


EXIT_OUTPUT_CLOSED = 141  # 128 + SIGPIPE: what the shell sees when other tools end so


@contextlib.contextmanager
def output_may_close() -> Iterator[None]:
    """Output read by a program that stops reading (`rl --help | head -1`) ends the process
    quietly, as other command-line tools end, never with a `BrokenPipeError` traceback: exit
    141, nothing on stderr. Every printing path of an entrypoint and of `compose` runs in it.
    A stdout closed before the program started (`>&-`) takes what is printed, unseen."""
    if sys.stdout is None:  # Python's own `print` is quiet so: every writer here is too
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115  # until exit
    try:
        yield
        sys.stdout.flush()  # what is still buffered fails here, not in the interpreter's exit
    except BrokenPipeError:
        # Python flushes stdout again at exit: point it at /dev/null so that is quiet too
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        raise SystemExit(EXIT_OUTPUT_CLOSED) from None


def write_text(stream: TextIO, text: str) -> None:
    """Write `text`, escaping what the stream's encoding cannot hold (undecodable argv bytes
    come back as surrogates): output must never be the thing that fails."""
    try:
        stream.write(text)
    except UnicodeEncodeError:
        encoding = getattr(stream, "encoding", None) or "utf-8"
        stream.write(text.encode(encoding, "backslashreplace").decode(encoding))


def _terminal(stream: TextIO) -> bool:
    return stream.isatty()


def _rich(draw: Callable[[Any], None]) -> bool:
    """Draw with rich (imported only now: it costs ~30 ms); False if the text cannot be shown."""
    from compose._output import render as _render  # noqa: PLC0415

    try:
        draw(_render)
    except UnicodeEncodeError:
        return False
    return True


def _show_warnings(caught: list[Warning]) -> None:
    shown: set[str] = set()
    for message in caught:
        line = f"warning: {printable(str(message))}\n"  # a file name may hold an escape
        if line not in shown:
            shown.add(line)
            write_text(sys.stderr, line)
