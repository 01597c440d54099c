"""`cli(schema, argv)`: what an entrypoint calls. Help exits 0, bad input exits 2 with the error
on stderr and no traceback, warnings are printed as `warning: ...` (contract §1, §2, §4)."""

from __future__ import annotations

import os
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import pytest
from conftest import environ_with_tests, run_cli, run_command
from pydantic import model_validator
from schemas import MuonConfig, RLConfig

import compose._api
from compose import BaseConfig, ComposeError, cli

if TYPE_CHECKING:
    from conftest import WriteFile


def test_good_input_returns_the_config_silently(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("rl.toml", "seed = 3\n")
    config = cli(RLConfig, ["@", "rl.toml", "--max-steps", "50"])
    assert (config.seed, config.max_steps) == (3, 50)
    assert capsys.readouterr() == ("", "")


def test_bad_input_exits_2_with_the_error_on_stderr(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--seed", "x"], capsys)
    assert code == 2
    assert out == ""
    assert err == (
        "error: --seed = 'x': "
        "Input should be a valid integer, unable to parse string as an integer\n"
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["@", "missing.toml"], "missing.toml: file not found; looked in CWD"),
        (
            ["stray"],
            "'stray': unexpected argument; flags start with --, files are given as @ FILE",
        ),
        (
            ["--trainer.optm.lr"],
            "--trainer.optm.lr: unknown key; did you mean --trainer.optim.lr?",
        ),
        (
            ["--inference.vllm-extra", "{"],
            "--inference.vllm-extra = '{': invalid JSON: "
            "Expecting property name enclosed in double quotes at column 2",
        ),
        (["--trainer.model.name"], "--trainer.model.name: expects a value"),
    ],
)
def test_each_kind_of_bad_input_is_one_line_without_traceback(
    write: WriteFile, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    code, out, err = run_cli(argv, capsys)
    assert (code, out) == (2, "")
    assert err == "error: " + expected.replace("CWD", os.getcwd()) + "\n"


def test_several_errors_are_printed_together(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "[trainer]\nmicro_batch_size = 'x'\n")
    code, _, err = run_cli(["@a.toml", "--seed", "y"], capsys)
    assert code == 2
    assert err == (
        "error: 2 errors:\n"
        "  - --trainer.micro-batch-size = 'x' (from a.toml:2): "
        "Input should be a valid integer, unable to parse string as an integer\n"
        "  - --seed = 'y': Input should be a valid integer, unable to parse string as an integer\n"
    )


def test_cli_exits_with_the_errors_exit_code(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`cli` exits with the error's `exit_code` (2 for bad input, 0 for help), not a constant."""

    class Refused(ComposeError):
        exit_code = 3

    def refuse(*args: object, **kwargs: object) -> NoReturn:
        raise Refused("refused", key="--seed")

    monkeypatch.setattr(compose._api, "parse_with", refuse)
    code, out, err = run_cli(["--seed", "1"], capsys)
    assert (code, out, err) == (3, "", "error: --seed: refused\n")


@pytest.mark.parametrize("flag", ["--help", "-h"])
def test_help_exits_0_and_prints_the_flags(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, flag: str
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # each entry on one line: its content is checked
    code, out, err = run_cli([flag], capsys)
    assert (code, err) == (0, "")
    # each line with its spacing collapsed: alignment is layout, not content
    lines = {" ".join(line.split()) for line in out.splitlines()}
    assert out.startswith(
        "usage: rl [@ FILE ...] [--SECTION @ FILE ...] [--KEY VALUE ...] [--LIST+ VALUE ...]\n"
    )
    assert {
        "Reinforcement learning: a trainer, an orchestrator and an optional inference server.",
        "--max-steps INT|None Stop after this many steps; None runs forever. (default: None)",
        "--seed INT (default: 42)",
        "--trainer.optim.lr FLOAT (default: 0.0001)",
        "(other variants: muon (choose with --trainer.optim.type))",
        "trainer.ckpt (optional, off):",
        "--trainer.ckpt.interval INT (default: 100)",
        "--inference.vllm-extra JSON Extra arguments passed to vLLM verbatim. (default: {})",
        "--orchestrator.sampling.temperature FLOAT (default: 0.7)",
    } <= lines


def test_help_lists_every_field_of_the_chosen_variants(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run_cli(["--help"], capsys)
    flags = {line.split()[0] for line in out.splitlines() if line.startswith("  --")}
    for section, model in [
        ("--trainer.model.", RLConfig().trainer.model),
        ("--orchestrator.sampling.", RLConfig().orchestrator.sampling),
        ("--trainer.optim.", RLConfig().trainer.optim),
    ]:
        for name in type(model).model_fields:
            assert section + name.replace("_", "-") in flags


def test_help_shows_an_enum_default_as_the_value_to_type(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """`--trainer.dtype` takes `bfloat16`; help should not show the Python repr of the enum."""
    _, out, _ = run_cli(["--help"], capsys)
    [line] = [line for line in out.splitlines() if "--trainer.dtype " in line]
    assert line.endswith("(default: bfloat16)")


def test_help_narrowed_to_a_section(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(["--help", "trainer.optim"], capsys)
    assert code == 0
    assert "--trainer.optim.lr FLOAT" in out
    assert "--seed" not in out
    assert "--trainer.model" not in out


@pytest.mark.parametrize(
    ("section", "hint"),
    [
        ("trainer.optm", "; did you mean --help trainer.optim?"),
        ("optim", "; did you mean --help trainer.optim?"),
        ("trainer.optim.lr", "; a field, shown by --help trainer.optim"),
        ("seed", "; a field, shown by --help"),
        ("nothing.like.it", ""),
    ],
)
def test_help_for_a_section_that_does_not_exist_says_what_was_meant(
    section: str, hint: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not an empty screen and exit 0, which looks like a section without fields."""
    code, out, err = run_cli(["--help", section], capsys)
    assert (code, out) == (2, "")
    assert err == f"error: --{section} (from --help): no such section{hint}\n"


def test_help_for_no_such_section_is_an_error_after_files_too(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "seed = 3\n")
    code, out, err = run_cli(["@", "a.toml", "--help", "trainer.optm"], capsys)
    assert (code, out) == (2, "")
    assert "--trainer.optm (from --help): no such section" in err


def test_help_wins_over_bad_flags(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(["--nope", "x", "--help"], capsys)
    assert (code, err) == (0, "")
    assert out.startswith("usage: rl ")


def test_warnings_are_printed_as_warning_lines(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "[trainer.optim]\nbetas = [0.8, 0.9]\n")
    config = cli(RLConfig, ["@a.toml", "--trainer.optim.type", "muon"])
    assert config.trainer.optim == MuonConfig()
    out, err = capsys.readouterr()
    assert out == ""
    assert err == (
        "warning: --trainer.optim.betas (from a.toml:2) is dropped: "
        "--trainer.optim.type switched to 'muon', which has no such key\n"
    )


_WARNS_ITS_OWN = """
import warnings
from pydantic import field_validator
from compose import BaseConfig, cli

class App(BaseConfig):
    lr: float = 0.1

    @field_validator("lr")
    @classmethod
    def _old(cls, value: float) -> float:
        warnings.warn("lr is deprecated", DeprecationWarning, stacklevel=2)
        return value

print(cli(App, ["--lr", "0.5"]).lr)
"""


def test_a_warning_that_is_not_ours_passes_through_once() -> None:
    """An app's own warning is handed back to Python's warning system, as it would be without
    compose: once, and not recorded again (it once was, forever, filling memory)."""
    code, out, err = run_command([sys.executable, "-W", "always", "-c", _WARNS_ITS_OWN])
    assert (code, out) == (0, "0.5\n")
    assert err.count("DeprecationWarning: lr is deprecated") == 1
    assert "warning: " not in err  # not dressed as one of compose's own


def test_warnings_are_printed_before_an_error(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "[trainer.optim]\nbetas = [0.8, 0.9]\n")
    code, _, err = run_cli(["@a.toml", "--trainer.optim.type", "muon", "--seed", "x"], capsys)
    assert code == 2
    assert err.splitlines() == [
        "warning: --trainer.optim.betas (from a.toml:2) is dropped: "
        "--trainer.optim.type switched to 'muon', which has no such key",
        "error: --seed = 'x': "
        "Input should be a valid integer, unable to parse string as an integer",
    ]


def test_argv_defaults_to_sys_argv(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(sys, "argv", ["train.py", "--seed", "5"])
    assert cli(RLConfig).seed == 5
    monkeypatch.setattr(sys, "argv", ["train.py", "-h"])
    with pytest.raises(SystemExit) as info:
        cli(RLConfig)
    assert info.value.code == 0
    assert capsys.readouterr().out.startswith("usage: train.py ")


ENTRYPOINT = textwrap.dedent(
    """
    from compose import cli
    from schemas import RLConfig

    config = cli(RLConfig)
    print("seed", config.seed)
    """
)


def test_a_real_entrypoint_process(tmp_path: Path) -> None:
    """An entrypoint run as a process: exit 2 and one error line on bad input, never a
    traceback; exit 0 on good input."""
    script = tmp_path / "rl.py"
    script.write_text(ENTRYPOINT)
    command = [sys.executable, str(script)]
    env = environ_with_tests()
    bad = run_command([*command, "--seed", "x", "--trainer.model.name"], env=env, cwd=tmp_path)
    assert bad == (2, "", "error: --trainer.model.name: expects a value\n")
    good = run_command([*command, "--seed", "7"], env=env, cwd=tmp_path)
    assert good == (0, "seed 7\n", "")


class Interrupted(BaseConfig):
    """A schema whose validator meets Ctrl-C (the user presses it while composing)."""

    steps: int = 1

    @model_validator(mode="after")
    def _pressed(self) -> Interrupted:
        raise KeyboardInterrupt


def test_ctrl_c_while_composing_exits_130_without_a_traceback(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as ended:
        cli(Interrupted, ["--steps", "2"], prog="app")
    out, err = capsys.readouterr()
    assert (ended.value.code, out, err) == (130, "", "interrupted\n")
