"""The error catalogue (`error_catalogue.py`): every entry raises its class with its exact message,
key and origin; entrypoints print it the same way; and `docs/09-error-catalogue.md` is the
catalogue rendered (run with `UPDATE_CATALOGUE=1` to regenerate the page after changing the data).
"""

from __future__ import annotations

import os
import re
import shlex
import sys
import warnings
from pathlib import Path

import pytest
from error_catalogue import CATALOGUE, CWD, Case, sections
from schemas import RLConfig

from compose import (
    ComposeError,
    ConfigValidationError,
    ErrorGroup,
    cli,
    compose,
    compose_hydra,
    from_flat,
    parse,
)
from compose._cli.command import _run as run_command
from compose._cli.command import main
from compose._cli.roles import (
    check_sections,
    config_files,
    load_schema,
    read_roles,
    unmatched_patterns,
)
from compose._input.options import NO_OPTIONS
from compose._runs.command import asks_sweep, run_sweep
from compose._runs.rerun import asks_from_run

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "09-error-catalogue.md"
SHOWN_CWD = "/path/to/project"
UPDATE = "UPDATE_CATALOGUE"
PROG = "app"
OMEGACONF_REGISTRY = "omegaconf.basecontainer"


def setup(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The case's files and directories under `tmp_path`, which becomes the working directory."""
    monkeypatch.chdir(tmp_path)
    for name in case.dirs:
        (tmp_path / name).mkdir(parents=True, exist_ok=True)
    for name, content in case.files.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    for name in case.read_only:
        (tmp_path / name).chmod(0o444)
    for variable in case.unset_env:
        monkeypatch.delenv(variable, raising=False)
    for variable, value in case.env.items():
        monkeypatch.setenv(variable, value)
    # As for a program that never imported omegaconf: its resolvers are then not listed.
    monkeypatch.delitem(sys.modules, OMEGACONF_REGISTRY, raising=False)


def run(case: Case) -> ComposeError:
    """The error the case raises (warnings, e.g. for renamed keys, are not the point here)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            if case.check is not None:
                return _check_error(list(case.check))
            if case.hydra is not None:
                directory, _, name = case.hydra.partition(":")
                compose_hydra(directory, name, list(case.overrides), schema=case.hydra_schema)
            elif case.command is not None:
                run_command(list(case.command))
            elif case.flat is not None:
                from_flat(case.schema, case.flat, list(case.argv or ()))
            elif case.hydra_app is not None:
                cli(case.schema, args=list(case.argv or ()), prog=PROG, hydra=app_tree(case))
            elif case.argv is not None and asks_sweep(case.argv):
                run_sweep(case.schema, list(case.argv), PROG, NO_OPTIONS)
            elif case.argv is not None and asks_from_run(case.argv):
                cli(case.schema, args=list(case.argv), prog=PROG)
            elif case.argv is not None:
                parse(case.schema, list(case.argv))
            else:
                compose(list(case.sources), list(case.overrides), schema=case.schema)
        except ComposeError as error:
            return error
    raise AssertionError(f"{case.name}: no error raised")


def app_tree(case: Case) -> str | None:
    """A Hydra app's `hydra="DIR:NAME"`, DIR from the working directory (a relative one is
    the calling file's, which is this one)."""
    return None if case.hydra_app is None else os.path.join(os.getcwd(), case.hydra_app)


def _check_error(paths: list[str]) -> ComposeError:
    """What `compose check PATHS` says of its mapping: the error reading it raises (bad input,
    exit 2), else the one problem it finds in it (exit 1)."""
    roles = read_roles(None, None)
    check_sections(roles, {name: load_schema(spec) for name, spec in roles.entrypoints.items()})
    (problem,) = unmatched_patterns(roles, paths, config_files(paths, roles))
    return problem


def expected_message(case: Case) -> str:
    return case.message.replace(CWD, os.getcwd())


# --- every entry -------------------------------------------------------------------------------


@pytest.mark.parametrize("case", CATALOGUE, ids=lambda case: case.name)
def test_entry(case: Case, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    setup(case, tmp_path, monkeypatch)
    error = run(case)
    assert str(error) == expected_message(case)
    assert type(error) is case.error, f"raised {type(error).__name__}: {error}"
    origin = case.origin.replace(CWD, os.getcwd()) if case.origin else case.origin
    assert (error.key, error.origin) == (case.key, origin)
    if isinstance(error, ErrorGroup):
        assert len(error.errors) > 1
        for each in error.errors:
            assert each.key, f"no key: {each}"
            assert not isinstance(each, ErrorGroup)
    else:
        assert error.errors == (error,)
        assert error.key or error.origin or error.has_value, "the error names nothing"


@pytest.mark.parametrize(
    "case",
    [case for case in CATALOGUE if case.argv is not None and case.flat is None],
    ids=lambda case: case.name,
)
def test_an_entrypoint_prints_the_same_message(
    case: Case,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`cli` prints `error: MESSAGE` (stderr is not a terminal here) and exits 2, no traceback."""
    setup(case, tmp_path, monkeypatch)
    assert case.argv is not None
    with warnings.catch_warnings(), pytest.raises(SystemExit) as exit_info:
        warnings.simplefilter("ignore")
        cli(case.schema, list(case.argv), prog=PROG, hydra=app_tree(case))
    assert exit_info.value.code == 2
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert "Traceback" not in err
    assert [line for line in lines if not line.startswith("warning: ")] == (
        f"error: {expected_message(case)}".splitlines()
    )


@pytest.mark.parametrize(
    "case",
    [case for case in CATALOGUE if case.check is not None or case.command is not None],
    ids=lambda case: case.name,
)
def test_a_compose_command_prints_the_same_message(
    case: Case,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Bad input to `compose COMMAND` is `error: MESSAGE` (exit 2); a problem `compose check`
    finds is listed at its origin, `FILE:LINE: ...`, as any problem of a file is (exit 1)."""
    setup(case, tmp_path, monkeypatch)
    # the mapping's `schemas:RLConfig`, migrate's `--schema error_catalogue:Versioned`
    monkeypatch.syspath_prepend(str(Path(__file__).parent))
    check = ["check", "--quiet", *(case.check or ())]
    code = main(list(case.command) if case.command is not None else check)
    out, err = capsys.readouterr()
    assert code == case.exit
    if case.exit == 2:
        assert (out, err) == ("", f"error: {expected_message(case)}\n")
    else:
        error = run(case)
        assert f"{case.origin}: {error.evolve(origin=None).format()}" in out.splitlines()


def test_the_catalogue_is_large_and_well_formed() -> None:
    names = [case.name for case in CATALOGUE]
    assert len(names) >= 35
    assert len(set(names)) == len(names), "names must be unique"
    for case in CATALOGUE:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", case.name), case.name
        for text in (case.title, case.did, case.fix):
            assert text and "\n" not in text, f"{case.name}: one line each"
        modes = [
            case.argv is not None,
            bool(case.sources),
            case.check is not None,
            case.command is not None,
            case.hydra is not None,
        ]
        assert sum(modes) == 1, f"{case.name}: argv, sources, check or command"


# --- engine bugs the catalogue does not show as entries ----------------------------------------


def test_command_line_conversion_errors_are_gathered_with_the_others() -> None:
    """Contract §7: all validation errors are reported at once, a bad boolean flag included.

    Today `--dry-run maybe` alone is reported: `_coerce._bool` raises while the CLI node is
    built, before binding collects the others (the same holds for `none_for`).
    """
    with pytest.raises(ComposeError) as info:
        parse(RLConfig, ["--seed", "x", "--dry-run", "maybe"])
    error = info.value
    assert isinstance(error, ErrorGroup), f"only one error reported: {error}"
    assert {each.key for each in error.errors} == {"--seed", "--dry-run"}
    assert all(isinstance(each, ConfigValidationError) for each in error.errors)


def test_command_line_none_errors_are_gathered_with_the_others() -> None:
    with pytest.raises(ComposeError) as info:
        parse(RLConfig, ["--seed", "x", "--trainer.micro-batch-size", "None"])
    error = info.value
    assert isinstance(error, ErrorGroup), f"only one error reported: {error}"
    assert {each.key for each in error.errors} == {"--seed", "--trainer.micro-batch-size"}


def test_unknown_resolver_lists_only_resolvers_that_can_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Once omegaconf is imported, the hint lists its resolvers, but those that need its nodes
    (oc.create, oc.decode, oc.deprecated, oc.dict.keys, oc.dict.values) are always refused."""
    import omegaconf  # noqa: F401  # registers omegaconf's resolvers

    monkeypatch.chdir(tmp_path)
    (tmp_path / "run.toml").write_text("tag = '${today:%Y}'\n", encoding="utf-8")
    with pytest.raises(ComposeError) as info:
        parse(RLConfig, ["@", "run.toml"])
    hint = info.value.hint or ""
    assert hint.startswith("known resolvers: ")
    known = set(hint.removeprefix("known resolvers: ").split(", "))
    assert {"oc.env", "oc.select"} <= known  # ours, and plain ones omegaconf may add (oc.coerce)
    refused = {"oc.create", "oc.decode", "oc.deprecated", "oc.dict.keys", "oc.dict.values"}
    assert not known & refused


# --- the page in docs/ -------------------------------------------------------------------------

HEADER = f"""\
# 9. Errors you may see, and how to fix them

<!-- Generated from tests/error_catalogue.py by tests/test_error_catalogue.py; do not edit by hand.
     After changing the catalogue, regenerate this page with
     {UPDATE}=1 .venv/bin/python -m pytest tests/test_error_catalogue.py -->

Every mistake below is one class of bad input, with the exact message `compose` gives for it
(each is a test). An entrypoint (`{PROG}` here, a program that calls `cli(RLConfig)` with the
prime-rl-shaped `RLConfig` of `tests/schemas.py`) prints the message after `error: ` and exits
with status 2; `parse` and `compose` raise it as the `ComposeError` subclass named; the
`compose check` entries show what that command prints of its mapping, the Hydra entries
what `compose_hydra` raises for a Hydra config tree, and the Hydra app entries what an app of
`cli(Schema, hydra="DIR:NAME")` prints for its command line. How to read a
message (`KEY = VALUE (from ORIGIN): WHAT IS WRONG; HINT`) is explained in
[4. Errors and origins](04-errors.md). Paths in messages are the working directory, shown here
as `{SHOWN_CWD}`.
"""


def render_catalogue() -> str:
    """The markdown page: contents, then a part per section and a subsection per entry."""
    parts = [HEADER, "## Contents\n"]
    numbered: list[tuple[str, list[tuple[int, Case]]]] = []
    count = 0
    for title, cases in sections():
        numbered.append((title, [(count + i, case) for i, case in enumerate(cases, 1)]))
        count += len(cases)
    for title, entries in numbered:
        parts.append(f"- {title}")
        parts.extend(f"  {i}. [{case.title}](#{case.name})" for i, case in entries)
    parts.append("")
    for title, entries in numbered:
        parts.append(f"## {title}\n")
        parts.extend(_render_case(index, case) for index, case in entries)
    return "\n".join(parts)


def _render_case(index: int, case: Case) -> str:
    lines = [f'<a id="{case.name}"></a>', "", f"### {index}. {case.title}", ""]
    lines += [f"**What you did:** {case.did}", ""]
    if case.schema is not RLConfig:
        where = f"tests/{case.schema.__module__}.py"
        lines += [f"The schema here is `{case.schema.__name__}` (in `{where}`).", ""]
    for name in case.dirs:
        lines += [f"`{name}` is a directory.", ""]
    read_only = [f"`{name}`" for name in case.read_only]
    for name, content in case.files.items():
        if isinstance(content, bytes):
            text = content.decode("utf-8", "backslashreplace")
            lines += [f"`{name}` (the bytes, escaped where they are not UTF-8):", ""]
        else:
            text = content
            shown = f"`{name}` (read-only)" if f"`{name}`" in read_only else f"`{name}`"
            lines += [f"{shown}:", ""]
        lines += ["```text", text.rstrip("\n"), "```", ""]
    for variable in case.unset_env:
        lines += [f"The environment variable `{variable}` is not set.", ""]
    for variable, value in case.env.items():
        lines += [f"The environment variable `{variable}` is `{value}`.", ""]
    message = case.message.replace(CWD, SHOWN_CWD)
    if case.check is not None:
        shown = f"{case.origin}: {message.replace(f' (from {case.origin})', '', 1)}"
        printed = f"error: {message}" if case.exit == 2 else shown
        command = shlex.join(["compose", "check", *case.check])
        lines += ["```text", f"$ {command}", printed, "```", ""]
        lines += [f"`compose check` exits with status {case.exit}.", ""]
    elif case.command is not None:
        command = shlex.join(["compose", *case.command])
        lines += ["```text", f"$ {command}", f"error: {message}", "```", ""]
        lines += [f"`compose` exits with status {case.exit}.", ""]
    elif case.hydra is not None:
        directory, _, name = case.hydra.partition(":")
        typed = f", schema={case.hydra_schema.__name__}" if case.hydra_schema else ""
        call = f"compose_hydra({directory!r}, {name!r}, {list(case.overrides)!r}{typed})"
        lines += ["```text", f">>> {call}", f"{case.error.__name__}: {message}", "```", ""]
    elif case.flat is not None:
        call = f"from_flat({case.schema.__name__}, {dict(case.flat)!r}, {list(case.argv or ())!r})"
        lines += ["```text", f">>> {call}", f"{case.error.__name__}: {message}", "```", ""]
    elif case.argv is not None:
        if case.hydra_app is not None:
            call = f'cli({case.schema.__name__}, hydra="{case.hydra_app}")'
            lines += [f"`{PROG}` is a Hydra app here: `{call}`.", ""]
        command = shlex.join([PROG, *case.argv])
        lines += ["```text", f"$ {command}", f"error: {message}", "```", ""]
        if asks_sweep(case.argv) or asks_from_run(case.argv) or case.hydra_app is not None:
            lines += ["Nothing is written or submitted.", ""]
        else:
            lines += [f"`parse` raises `{case.error.__name__}`.", ""]
    else:
        args = [repr(list(case.sources))]
        if case.overrides:
            args.append(repr(list(case.overrides)))
        args.append(f"schema={case.schema.__name__}")
        lines += ["```text", f">>> compose({', '.join(args)})", f"{case.error.__name__}: {message}"]
        lines += ["```", ""]
    lines += [f"**How to fix it:** {case.fix}", ""]
    return "\n".join(lines)


def test_the_doc_is_the_rendered_catalogue() -> None:
    text = render_catalogue()
    if os.environ.get(UPDATE):
        DOC.write_text(text, encoding="utf-8")
    committed = DOC.read_text(encoding="utf-8") if DOC.exists() else ""
    assert committed == text, (
        f"{DOC.relative_to(ROOT)} is out of date: run {UPDATE}=1 .venv/bin/python -m pytest "
        "tests/test_error_catalogue.py"
    )
