"""An entrypoint's help as people read it (issue 39): within the screen's width, piped or
not, and naming the flags compose reserves (sweeps, reruns, `--help SECTION`).
"""

from __future__ import annotations

import io
import os

import pytest
from conftest import VENV_BIN, run_cli, run_command

from compose import BaseConfig
from compose._output.help import help_screen
from compose._output.render import help_panels
from compose._syntax import FROM_RUN_FLAG, SWEEP_CONTROLS, SWEEP_DRY_RUN, SWEEP_FLAG


def _too_wide(text: str, width: int = 80) -> list[str]:
    return [line for line in text.splitlines() if len(line) > width]


class Optim(BaseConfig):
    lr: float = 1e-3
    """The learning rate the optimizer starts from, before any warm-up or schedule changes
    it, as a float."""
    extremely_long_field_name_for_a_narrow_terminal: int = 0


class Wide(BaseConfig):
    """An application whose descriptions are long enough to need wrapping on any terminal a
    person would use, so that its help shows how lines break."""

    optim: Optim = Optim()
    name: str = "a-rather-long-default-value-that-is-one-word-and-cannot-be-broken-anywhere"
    """The run's name."""


def _words(text: str) -> list[str]:
    return text.split()


@pytest.mark.parametrize("columns", ["80", "60", "40", ""])
def test_plain_help_wraps_to_columns_and_keeps_every_word(
    columns: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Piped help ignored $COLUMNS (lines up to 202 columns): it fills $COLUMNS, or 80 unset,
    and wrapping only moves words (a word longer than a line keeps a line of its own)."""
    monkeypatch.setenv("COLUMNS", "1000")
    code, wide, _ = run_cli(["--help"], capsys, Wide, prog="wide")
    assert code == 0
    if columns:
        monkeypatch.setenv("COLUMNS", columns)
    else:
        monkeypatch.delenv("COLUMNS")
    code, out, _ = run_cli(["--help"], capsys, Wide, prog="wide")
    assert code == 0
    for line in _too_wide(out, int(columns or 80)):  # what no break can shorten, alone
        assert len(line.split()) == 1 or (line.startswith("  --") and len(line.split()) == 2)
    assert _words(out) == _words(wide)
    assert len(out.splitlines()) > len(wide.splitlines())


def test_rl_help_piped_fits_80_columns() -> None:
    """The issue's own command: `COLUMNS=80 rl --help | wc -L` was 202; and without COLUMNS,
    piped, it is 80 as well."""
    environ = {name: value for name, value in os.environ.items() if name != "COLUMNS"}
    for extra in ({"COLUMNS": "80"}, {}):
        code, out, err = run_command([str(VENV_BIN / "rl"), "--help"], env={**environ, **extra})
        assert (code, err) == (0, "")
        assert _too_wide(out) == [], extra
        assert "--trainer.model.name" in out


def test_help_lists_the_flags_compose_reserves_and_how_to_narrow_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Sweep flags, `--from-run` and `--help SECTION` were nowhere in the help: each has a
    line, and the last line says how to see one section, which then works as it says."""
    code, out, _ = run_cli(["--help"], capsys, Wide, prog="wide")
    assert code == 0
    heads = {line.split()[0] for line in out.splitlines() if line.startswith("  --")}
    reserved = {SWEEP_FLAG, f"{SWEEP_FLAG}.KEY", *SWEEP_CONTROLS, SWEEP_DRY_RUN, FROM_RUN_FLAG}
    assert reserved <= heads
    assert "  --help [SECTION]" in out
    footer = " ".join(out.split("\n\n")[-1].split())
    assert footer == "wide --help SECTION shows one section and those under it (wide --help optim)"
    code, narrowed, _ = run_cli(["--help", "optim"], capsys, Wide, prog="wide")
    assert code == 0
    assert "optim:" in narrowed.splitlines()
    assert "--optim.lr FLOAT" in narrowed
    assert "--name STR" not in narrowed
    assert SWEEP_FLAG not in narrowed  # the reserved flags and the footer: on the whole screen
    assert "--help SECTION" not in narrowed


def test_rich_help_fills_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """On a terminal, rich panels take $COLUMNS as rich reads it (no width is forced)."""
    monkeypatch.setenv("COLUMNS", "70")
    stream = io.StringIO()
    help_panels(help_screen(Wide, "wide"), stream)
    assert _too_wide(stream.getvalue(), 70) == []
    assert "sweeps, reruns and help" in stream.getvalue()
