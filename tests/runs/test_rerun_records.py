"""A rerun never rewrites the record it reads from, and reproduces the recorded run.

`APP --from-run DIR` with changes that make another config while its output directory is still
DIR is refused before the app gets the config (nothing written); naming DIR (`--output-dir DIR`)
replaces its record. `write_run_record` never replaces the record of another config unless the
command line names the directory, or the app says so (`replace=`). A record's argv is one run's:
sweep flags, `--from-run` and help in it are refused. The environment layer's variables that
set values are recorded (a secret's masked) and a rerun composes them again."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from compose import sweep, write_sweep

APP = """
import sys
from pathlib import Path

from pydantic import SecretStr

from compose import BaseConfig, ComposeError, cli, write_configs, write_run_record


class Api(BaseConfig):
    url: str = "http://localhost"
    key: SecretStr | None = None


class App(BaseConfig):
    steps: int = 1
    lr: float = 0.1
    output_dir: Path = Path("out")
    api: Api = Api()
    clean: bool = False


def main(argv=None):
    tokens = list(sys.argv[1:] if argv is None else argv)
    config = cli(App, tokens, prog="app", env_prefix="APP_")
    try:
        write_run_record(
            config.output_dir, config, tokens, prog="app", env_prefix="APP_", replace=config.clean
        )
        write_configs(config.output_dir, {"app": config})
    except ComposeError as error:
        sys.stderr.write(f"error: {error.format()}\\n")
        raise SystemExit(2) from None
    return config


if __name__ == "__main__":
    main()
"""


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The app above, as `app.py` in the working directory, imported; and its `base.toml`."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "app.py").write_text(APP, encoding="utf-8")
    (tmp_path / "base.toml").write_text("steps = 2\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("records_app", tmp_path / "app.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "records_app", module)
    spec.loader.exec_module(module)
    return module


def run(app: ModuleType, argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    """The app's exit status (0 when it returns) and what it printed on stderr."""
    try:
        app.main(argv)
    except SystemExit as done:
        code = done.code
    else:
        code = 0
    assert isinstance(code, int)
    return code, capsys.readouterr().err


def first_run(app: ModuleType, capsys: pytest.CaptureFixture[str], **changed: Any) -> Path:
    """`first/`, the app's run of base.toml, its run.json then changed as `changed` says (a
    field given None is left out, as an older or a crafted record may)."""
    assert run(app, ["@", "base.toml", "--output-dir", "first"], capsys) == (0, "")
    path = Path("first") / "run.json"
    data = json.loads(path.read_text())
    data.update(changed)
    path.write_text(json.dumps({key: value for key, value in data.items() if value is not None}))
    return path.parent


def files(directory: Path) -> dict[Path, bytes]:
    return {path: path.read_bytes() for path in sorted(directory.rglob("*")) if path.is_file()}


def record(directory: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((directory / "run.json").read_text(encoding="utf-8"))
    return loaded


# --- a rerun never rewrites its own record ------------------------------------------------------


def test_a_rerun_of_a_point_with_changes_is_refused_and_writes_nothing(
    app: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    made = sweep(
        app.App, ["@", "base.toml"], axes={"lr": ["0.2", "0.3"]}, output="output_dir", prog="app"
    )
    write_sweep(made)
    point = made.points[0].directory
    before = files(point)
    code, err = run(app, ["--from-run", str(point), "--steps", "7", "--clean"], capsys)
    assert code == 2
    assert f"a rerun with changes is a new run, but its --output-dir is still {point}" in err
    assert f"naming {point} with --output-dir replaces its record" in err
    assert files(point) == before
    assert run(app, ["--from-run", str(point), "--lr", "0.2"], capsys) == (0, "")  # no change
    assert record(point) == json.loads(before[point / "run.json"])  # the sweep's, kept


def test_a_rerun_that_names_its_directory_replaces_its_record(
    app: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(app, ["@", "base.toml", "--output-dir", "first"], capsys) == (0, "")
    code, _ = run(app, ["--from-run", "first", "--steps", "7", "--output-dir", "first"], capsys)
    assert code == 0
    assert record(Path("first"))["argv"] == [
        "@",
        "base.toml",
        "--output-dir",
        "first",
        "--steps",
        "7",
        "--output-dir",
        "first",
    ]


def test_a_rerun_without_changes_or_into_another_directory_goes_on(
    app: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run(app, ["@", "base.toml", "--output-dir", "first"], capsys) == (0, "")
    before = files(Path("first"))
    assert run(app, ["--from-run", "first"], capsys) == (0, "")  # the same config, the same place
    assert files(Path("first")) == before
    assert run(app, ["--from-run", "first", "--steps", "2"], capsys) == (0, "")  # no change
    assert run(app, ["--from-run", "first", "--steps", "7", "--output-dir", "second"], capsys) == (
        0,
        "",
    )
    assert files(Path("first")) == before
    assert record(Path("second"))["argv"][-2:] == ["--output-dir", "second"]


def test_an_older_record_without_its_output_key_is_guarded_by_its_value(
    app: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    first_run(app, capsys, output=None)
    code, err = run(app, ["--from-run", "first", "--lr", "0.5"], capsys)
    assert code == 2 and "its --output-dir is still first" in err


# --- write_run_record replaces another config's record only when told ---------------------------


def test_a_run_of_another_config_into_a_directory_with_a_record_is_refused(
    app: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    Path("out.toml").write_text('output_dir = "shared"\n')
    assert run(app, ["@", "base.toml", "@", "out.toml"], capsys) == (0, "")
    before = files(Path("shared"))
    code, err = run(app, ["@", "base.toml", "@", "out.toml", "--steps", "5"], capsys)
    assert code == 2
    assert err == (
        "error: shared/run.json: holds the record of a run of another config: this run is a new"
        " run; give this run a directory of its own, or name this one (--output-dir shared) to"
        " replace its record\n"
    )
    assert files(Path("shared")) == before  # the app records first: its configs are unchanged
    assert run(
        app, ["@", "base.toml", "@", "out.toml", "--steps", "5", "--output-dir", "shared"], capsys
    ) == (0, "")
    assert record(Path("shared"))["argv"][-1] == "shared"
    assert run(app, ["@", "base.toml", "@", "out.toml", "--steps", "6", "--clean"], capsys) == (
        0,
        "",
    )


# --- a record's argv is one run's -------------------------------------------------------------


@pytest.mark.parametrize(
    "tokens",
    [
        ["--sweep.steps", "1", "2", "--sweep-executor", "local"],
        ["--sweep", "@", "grid.toml"],
        ["--sweep-name=x"],
        ["--sweep-resume"],
        ["--from-run", "elsewhere"],
        ["--from-run=elsewhere"],
        ["--help"],
        ["-h"],
    ],
)
def test_a_record_whose_argv_is_no_single_run_is_refused(
    app: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str], tokens: list[str]
) -> None:
    first_run(app, capsys, argv=["@", "base.toml", *tokens])
    before = sorted(tmp_path.rglob("*"))
    code, err = run(app, ["--from-run", "first", "--output-dir", "second"], capsys)
    assert code == 2
    assert err.startswith(f"error: argv = {tokens[0]!r} (from first/run.json): ")
    assert "a record's argv is one run's command line" in err and err.count("\n") == 1
    assert sorted(tmp_path.rglob("*")) == before  # no sweep, no second run


def test_a_record_whose_argv_holds_no_text_is_refused(
    app: ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    first_run(app, capsys, argv=["--steps", 3])
    code, err = run(app, ["--from-run", "first", "--output-dir", "second"], capsys)
    assert (code, err.count("\n")) == (2, 1)
    assert "argv" in err and "first/run.json" in err


# --- the environment layer, recorded and composed again -----------------------------------------


def test_the_environment_a_run_took_values_from_is_recorded_and_composed_again(
    app: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("APP_LR", "0.5")
    monkeypatch.setenv("APP_NO_SUCH_FIELD", "1")  # sets nothing: not recorded
    assert run(app, ["@", "base.toml", "--output-dir", "first"], capsys)[0] == 0
    assert record(Path("first"))["environment"] == {"APP_LR": "0.5"}
    monkeypatch.delenv("APP_LR")
    monkeypatch.delenv("APP_NO_SUCH_FIELD")
    monkeypatch.setenv("APP_STEPS", "9")  # set now, not then: ignored, with a word
    code, err = run(app, ["--from-run", "first", "--output-dir", "second"], capsys)
    assert code == 0
    assert err == (
        "warning: --from-run first composes the run's recorded environment: $APP_STEPS set here"
        " is ignored (a flag changes a value)\n"
    )
    assert "lr = 0.5" in (Path("second") / "configs" / "app.toml").read_text()
    second = record(Path("second"))
    assert second["environment"] == {"APP_LR": "0.5"}
    assert second["origins"]["lr"] == "$APP_LR"


def test_a_secret_from_the_environment_is_masked_and_taken_from_the_environment_again(
    app: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("APP_API__KEY", "hunter2-secret")
    assert run(app, ["@", "base.toml", "--output-dir", "first"], capsys)[0] == 0
    text = (Path("first") / "run.json").read_text()
    assert "hunter2-secret" not in text
    assert record(Path("first"))["environment"] == {"APP_API__KEY": "**********"}
    monkeypatch.setenv("APP_API__KEY", "rotated")
    assert run(app, ["--from-run", "first", "--output-dir", "second"], capsys) == (0, "")
    assert "rotated" in (Path("second") / "configs" / "app.toml").read_text()
    monkeypatch.delenv("APP_API__KEY")
    code, err = run(app, ["--from-run", "first", "--output-dir", "third"], capsys)
    assert code == 2
    assert "set $APP_API__KEY to rerun the run" in err and "first/run.json" in err
    assert not Path("third").exists()
