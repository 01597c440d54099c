"""Shared fixtures: TOML fixtures written into `tmp_path`, which is also the working directory,
so that file paths in messages are short and stable (`a.toml:3`)."""

from __future__ import annotations

import os
import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from schemas import RLConfig

from compose import cli

WriteFile = Callable[[str, "str | bytes"], str]
APP_PREFIX = "RL_"  # the example app's `env_prefix`


@pytest.fixture(autouse=True)
def _no_app_variables(monkeypatch: pytest.MonkeyPatch) -> None:
    """The example app reads `RL_*` variables: those of the shell running the tests must not
    change what a test composes, in-process or in a subprocess it starts."""
    for name in list(os.environ):
        if name.startswith(APP_PREFIX):
            monkeypatch.delenv(name)


@pytest.fixture
def write(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> WriteFile:
    """`write("a.toml", text)`: write a file under the working directory, return its name.

    Text is dedented (so fixtures can be indented in the test) and stripped of the leading
    newline; bytes are written as they are.
    """
    monkeypatch.chdir(tmp_path)

    def _write(name: str, content: str | bytes) -> str:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")
        return name

    return _write


def run_cli(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """Exit status, stdout and stderr of `cli(RLConfig, argv, prog="rl")` (0 when it returns)."""
    try:
        cli(RLConfig, argv, prog="rl")
    except SystemExit as exit_:
        code = exit_.code
    else:
        code = 0
    out, err = capsys.readouterr()
    assert isinstance(code, int)
    return code, out, err
