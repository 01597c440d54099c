"""Exact snapshots of the text users read: the help screen and the error messages (issue 4).

Each screen is compared, character for character, with a file in `tests/snapshots/`. When a
change to a screen is intended, regenerate the files and review the diff before committing:

    UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/test_snapshots.py

With `UPDATE_SNAPSHOTS=1` the tests write the files instead of comparing (and pass); without
it, a missing snapshot file is a failure. Paths that change from run to run (the temporary
working directory) are replaced by `<cwd>` before comparing.

Screens snapshotted: the plain `--help` of `tests/schemas.RLConfig` (as `cli()` prints it when
stdout is not a terminal) in full, narrowed to a section, and after `@ FILE` (composed values
and their origins); the same help as rich panels on a 100-column console without colour; and
the main error messages as `cli()` prints them on a non-terminal stderr.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import run_cli
from schemas import RLConfig

from compose import HelpRequested, parse
from compose._output.render import help_panels

if TYPE_CHECKING:
    from conftest import WriteFile

SNAPSHOTS = Path(__file__).parent / "snapshots"
UPDATE = os.environ.get("UPDATE_SNAPSHOTS") == "1"
WIDTH = 100


def assert_snapshot(name: str, text: str) -> None:
    """`text` equals `snapshots/NAME.txt` exactly; with UPDATE_SNAPSHOTS=1, becomes it."""
    path = SNAPSHOTS / f"{name}.txt"
    if UPDATE:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        return
    if not path.exists():
        pytest.fail(
            f"no snapshot {path.relative_to(Path(__file__).parent)}: create it with "
            "UPDATE_SNAPSHOTS=1 .venv/bin/python -m pytest tests/test_snapshots.py"
        )
    with path.open(encoding="utf-8", newline="") as stream:
        expected = stream.read()
    assert text == expected, f"{path.name} differs (UPDATE_SNAPSHOTS=1 regenerates it)"


RL_TOML = """
seed = 7
max_steps = 100

[trainer.optim]
type = "muon"
lr = 0.03

[trainer.ckpt]
interval = 50

[orchestrator]
batch_size = 64

[[orchestrator.env]]
id = "math"
"""


@pytest.fixture
def rl_toml(write: WriteFile) -> list[str]:
    """argv that composes rl.toml and one CLI value."""
    write("rl.toml", RL_TOML)
    return ["@", "rl.toml", "--trainer.optim.lr", "0.5"]


# --- plain help --------------------------------------------------------------------------------

PLAIN_HELP = {
    "help_full": [],
    "help_narrowed_trainer_optim": ["trainer.optim"],
    "help_narrowed_orchestrator": ["orchestrator"],
}


@pytest.mark.parametrize("name", PLAIN_HELP)
def test_plain_help(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--help", *PLAIN_HELP[name]], capsys)
    assert (code, err) == (0, "")
    assert_snapshot(name, out)


def test_plain_help_after_files_shows_composed_values(
    rl_toml: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli([*rl_toml, "--help"], capsys)
    assert (code, err) == (0, "")
    assert_snapshot("help_composed", out)


def test_plain_help_after_files_narrowed(
    rl_toml: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli([*rl_toml, "--help", "trainer"], capsys)
    assert (code, err) == (0, "")
    assert_snapshot("help_composed_narrowed_trainer", out)


def test_plain_help_when_the_files_cannot_be_composed(
    write: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Help still helps: bare defaults, and a line saying why no values are shown."""
    code, out, err = run_cli(["@", "missing.toml", "--help", "trainer.optim"], capsys)
    assert (code, err) == (0, "")
    assert_snapshot("help_with_a_composition_problem", out.replace(str(tmp_path), "<cwd>"))


def test_help_after_a_file_with_an_unknown_key_says_so(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """An unknown key in a file is reported on the help screen as one on the command line is
    (`--trainer.micro-batch 3 --help` says "values not shown: ... unknown key")."""
    write("bad.toml", "[trainer]\nmicro_batch = 3\n")
    code, out, err = run_cli(["@", "bad.toml", "--help", "trainer.optim"], capsys)
    assert (code, err) == (0, "")
    assert (
        "(values not shown: --trainer.micro-batch = 3 (from bad.toml:2): unknown key; "
        "did you mean --trainer.micro-batch-size?)"
    ) in " ".join(out.split())  # the line as written, wrapped to the screen's width


# --- rich help ---------------------------------------------------------------------------------


@pytest.fixture
def no_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    """An environment in which rich draws no colour and no style codes."""
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("TERM", "dumb")
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE", "COLUMNS", "LINES"):
        monkeypatch.delenv(name, raising=False)


def rich_help(argv: list[str]) -> str:
    with pytest.raises(HelpRequested) as asked:
        parse(RLConfig, argv, prog="rl")
    stream = io.StringIO()
    help_panels(asked.value.screen, stream, width=WIDTH)  # type: ignore[arg-type]
    text = stream.getvalue()
    assert "\x1b" not in text  # no colour or style codes
    assert max(len(line) for line in text.splitlines()) <= WIDTH
    return text


def test_rich_help(no_colour: None) -> None:
    assert_snapshot("rich_help_full", rich_help(["--help"]))


def test_rich_help_narrowed(no_colour: None) -> None:
    assert_snapshot("rich_help_narrowed_trainer_optim", rich_help(["--help", "trainer.optim"]))


def test_rich_help_after_files_shows_composed_values(no_colour: None, rl_toml: list[str]) -> None:
    assert_snapshot("rich_help_composed", rich_help([*rl_toml, "--help"]))


# --- errors ------------------------------------------------------------------------------------

ERROR_FILES = {
    "broken.toml": "seed = 3\n[trainer\n",
    "unknown.toml": "seed = 1\n\n[trainer.model]\nnme = 'x'\n",
    "wrong_type.toml": "[orchestrator]\nbatch_size = 'big'\n",
    "missing_ref.toml": "tag = 'run-${trainer.model.nam}'\n",
    "cycle.toml": (
        "[orchestrator]\n"
        "batch_size = '${orchestrator.seq_len}'\n"
        "seq_len = '${orchestrator.batch_size}'\n"
    ),
    "mandatory.toml": "tag = '???'\n",
    "several.toml": "seed = 'x'\n\n[orchestrator]\nbatch_size = 'y'\n",
}

ERRORS = {
    "missing_file": ["@", "missing.toml"],
    "toml_syntax": ["@", "broken.toml"],
    "unknown_key_in_file": ["@", "unknown.toml"],
    "unknown_key_on_cli": ["--trainer.optm.lr", "1"],
    "wrong_type_in_file": ["@", "wrong_type.toml"],
    "wrong_type_on_cli": ["--seed", "x"],
    "none_not_accepted": ["--seed", "None"],
    "field_validator": ["--trainer.micro-batch-size", "0"],
    "section_validator": ["--trainer.model.cp", "2", "--trainer.model.attn", "sdpa"],
    "root_validator": ["--orchestrator.seq-len", "4096", "--trainer.model.max-model-len", "1024"],
    "several_errors": ["@", "several.toml"],
    "unknown_union_tag": ["--trainer.optim.type", "sgd"],
    "missing_interpolation_key": ["@", "missing_ref.toml"],
    "interpolation_cycle": ["@", "cycle.toml"],
    "mandatory_value_unset": ["@", "mandatory.toml"],
    "bad_json": ["--inference.vllm-extra", "{"],
    "flag_without_value": ["--trainer.model.name"],
    "stray_token": ["stray"],
    "list_index_out_of_range": ["--orchestrator.env.3.id", "x"],
}


@pytest.mark.parametrize("name", ERRORS)
def test_error_message(
    name: str, write: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for file_name, text in ERROR_FILES.items():
        write(file_name, text)
    code, out, err = run_cli(ERRORS[name], capsys)
    assert (code, out) == (2, "")
    assert "Traceback" not in err
    assert_snapshot(f"error_{name}", err.replace(str(tmp_path), "<cwd>"))
