"""`compose diff --as-argv LEFT... -- RIGHT...`: the flags that, put after LEFT, give RIGHT.

One shell-quoted line a user pastes after LEFT's command line; nothing, and exit 0, when no
flag is needed; exit 1 when some are (as `diff`). Two written run configs compare as any
command lines do, and a recorded run's overrides over its base file come out the same way.
"""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest
from conftest import ROOT, run_compose
from rl_app.cli import CONF
from rl_app.cli import rl as rl_entrypoint
from rl_app.config import RLConfig

from compose import parse

SCHEMA = ("--schema", "rl_app.config:RLConfig")
REVERSE_TEXT = str(ROOT / "examples" / "reverse_text" / "rl.toml")


def write_run(directory: Path, *flags: str) -> str:
    """`rl @ reverse_text/rl.toml FLAGS --dry-run` into `directory`: its rl.toml."""
    rl_entrypoint(["@", REVERSE_TEXT, "--output-dir", str(directory), "--dry-run", *flags])
    return str(directory / "configs" / "rl.toml")


def test_two_run_configs_give_the_flags_between_them(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "a")
    b = write_run(tmp_path / "b", "--max-steps", "50", "--trainer.optim.lr", "1e-5")
    capsys.readouterr()
    code, out, err = run_compose(capsys, "diff", "--as-argv", *SCHEMA, "@", a, "--", "@", b)
    assert (code, err) == (1, "")
    assert out == f"--trainer.optim.lr=1e-05 --max-steps=50 --output-dir={tmp_path / 'b'}\n"
    pasted = parse(RLConfig, ["@", a, *shlex.split(out)])
    assert pasted == parse(RLConfig, ["@", b])


def test_no_flag_needed_prints_nothing_and_exits_0(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    a = write_run(tmp_path / "a")
    capsys.readouterr()
    assert run_compose(capsys, "diff", "--as-argv", *SCHEMA, "@", a, "--", "@", a) == (0, "", "")


def test_a_recorded_run_over_its_base_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a run changed over the file it started from, whatever the flags it was given."""
    b = write_run(tmp_path / "b", "--trainer.optim", "@", "optim/muon", "--seq-len", "4096")
    capsys.readouterr()
    code, out, _ = run_compose(
        capsys,
        "diff",
        "--as-argv",
        *SCHEMA,
        "--search-path",
        str(CONF),
        "@",
        REVERSE_TEXT,
        "--",
        "@",
        b,
    )
    assert code == 1
    flags = shlex.split(out)
    assert "--trainer.optim.type=muon" in flags and "--seq-len=4096" in flags
    assert parse(RLConfig, ["@", REVERSE_TEXT, *flags]) == parse(RLConfig, ["@", b])


def test_without_a_schema_the_flags_are_the_files_keys(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a.toml").write_text('seed = 1\nname = "a b"\n[t]\nk = 1\n', encoding="utf-8")
    (tmp_path / "b.toml").write_text('seed = 2\nname = "3"\n[t]\nj = 1\n', encoding="utf-8")
    code, out, _ = run_compose(capsys, "diff", "--as-argv", "@", "a.toml", "--", "@", "b.toml")
    assert (code, out) == (1, "'~t' --seed=2 '--name=\"3\"' --t.j=1\n")


def test_bad_input_is_one_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    (tmp_path / "b.toml").write_text('[model]\nname = "@x"\n', encoding="utf-8")
    b = str(tmp_path / "b.toml")
    code, out, err = run_compose(
        capsys, "diff", "--as-argv", *SCHEMA, "@", REVERSE_TEXT, "--", "@", b
    )
    assert (code, out) == (2, "")
    assert err == (
        "error: --trainer.model.name = '@x': cannot be written as a flag: a value starting with @ "
        "is read as a file; set it in a file\n"
    )
    code, _, err = run_compose(capsys, "diff", "--as-argv", *SCHEMA, "@", "missing.toml", "--")
    assert code == 2 and "missing.toml" in err and "Traceback" not in err


SECRET_SCHEMA = """
from pydantic import SecretStr
from compose import BaseConfig

class App(BaseConfig):
    key: SecretStr = SecretStr("")
    name: str = "x"
"""


def test_a_secret_is_masked_with_a_warning(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "secret_app.py").write_text(SECRET_SCHEMA, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    right = ("--key", "sk-live", "--name", "y")
    code, out, err = run_compose(
        capsys, "diff", "--as-argv", "--schema", "secret_app:App", "--name", "x", "--", *right
    )
    assert (code, out) == (1, "'--key=**********' --name=y\n")
    assert err.startswith("warning: --key is a secret: the argv holds **********, not its value")
    assert "sk-live" not in out + err
