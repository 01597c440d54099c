"""An app that reads a Hydra tree (issue 40): `cli(Schema, hydra="conf:config")` takes Hydra's
command line: overrides, `--config-path`/`-cp` (relative to the app's file, as `hydra=`'s
directory is), `--config-name`/`-cn`, `--config-dir`/`-cd`; `--help` shows the schema's help
with the tree's values and Hydra's forms within 80 columns; `-m` makes each job of Hydra's job
list a sweep point, with its run record, through compose's sweep machinery and executors,
bounded by the sweep's 10,000-point limit before any job is composed. Bad input is one error,
exit 2, naming FILE:LINE or the flag."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import MULTIRUN_NAME as STARTED
from conftest import MULTIRUN_NOW as NOW
from conftest import run_cli_config, run_command, wait_until
from pydantic import BaseModel, SecretStr

from compose import ComposeError, ComposeWarning, cli, compose_hydra, write_run_record
from compose._runs.fingerprint import fingerprint

if TYPE_CHECKING:
    from collections.abc import Callable

    from conftest import WriteFile

# Trees written short: a primary without _self_ is warned of, as Hydra does
pytestmark = [
    pytest.mark.filterwarnings("ignore:.*has no _self_:compose.ComposeWarning"),
    pytest.mark.usefixtures("multirun_started"),
]

SWEEP_DIR = f"runs/{STARTED}"  # each -m without --sweep-name: a new sweep named by its start


class DB(BaseModel):
    """Where the data lives."""

    driver: str
    port: int
    password: SecretStr = SecretStr("")


class Trainer(BaseModel):
    lr: float
    name: str


class App(BaseModel):
    """A Hydra app."""

    db: DB
    trainer: Trainer


def _tree(write: WriteFile, root: str = "conf") -> None:
    write(
        f"{root}/config.yaml",
        """
        defaults:
          - db: mysql
          - _self_

        trainer:
          lr: 0.01
          name: run-${db.driver}
        """,
    )
    write(f"{root}/db/mysql.yaml", "driver: mysql\nport: 3306\n")
    write(f"{root}/db/postgresql.yaml", "driver: postgresql\nport: 5432\n")


def _run(
    argv: list[str], capsys: pytest.CaptureFixture[str], tree: str
) -> tuple[int, str, str, App | None]:
    """`app ARGV` through `cli(App, hydra=tree)`: exit code, stdout, stderr, the config."""
    return run_cli_config(argv, capsys, App, "app", hydra=tree)


@pytest.fixture
def tree(write: WriteFile, tmp_path: Path) -> str:
    _tree(write)
    return f"{tmp_path}/conf:config"


def test_overrides_compose_the_tree_once(tree: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err, config = _run(["db=postgresql", "trainer.lr=1e-3"], capsys, tree)
    assert (code, out, err) == (0, "", "")
    assert config == App(
        db=DB(driver="postgresql", port=5432), trainer=Trainer(lr=1e-3, name="run-postgresql")
    )


def test_adding_and_deleting_keys(
    tree: str, write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err, config = _run(
        ["+db.password=s3cret", "~trainer.name", "++trainer.name=x"], capsys, tree
    )
    assert (code, err) == (0, "")
    assert config is not None
    assert (config.db.password.get_secret_value(), config.trainer.name) == ("s3cret", "x")


def test_config_name_and_config_dir(
    tree: str, write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        "conf/other.yaml", "defaults:\n  - db: sqlite\n  - _self_\ntrainer:\n  lr: 2\n  name: o\n"
    )
    write("more/db/sqlite.yaml", "driver: sqlite\nport: 0\n")
    code, _, err, config = _run(["-cn", "other", "--config-dir=more"], capsys, tree)
    assert (code, err) == (0, "")
    assert config is not None
    assert (config.db.driver, config.trainer.lr) == ("sqlite", 2)
    code, _, err, config = _run(["--config-name=other"], capsys, tree)  # no sqlite without -cd
    assert code == 2
    assert "conf/other.yaml:2" in err


def test_relative_config_paths_are_relative_to_the_app_file(
    write: WriteFile, tmp_path: Path
) -> None:
    """As Hydra reads `config_path`: `hydra="conf:config"` and `-cp` name directories beside
    the app's file, wherever it is run from; `-cd` is relative to the working directory."""
    _tree(write, "app/conf")
    _tree(write, "app/conf2")
    write("app/conf2/db/mysql.yaml", "driver: mysql2\nport: 1\n")
    write(
        "app/main.py",
        """
        from pydantic import BaseModel, SecretStr

        from compose import cli


        class App(BaseModel):
            db: dict[str, object]


        print(cli(App, hydra="conf:config").db["driver"])
        """,
    )
    (tmp_path / "elsewhere").mkdir()
    for argv, driver in [([], "mysql"), (["-cp", "conf2"], "mysql2")]:
        code, out, err = run_command(
            [sys.executable, str(tmp_path / "app" / "main.py"), *argv], cwd=tmp_path / "elsewhere"
        )
        assert (code, err, out) == (0, "", f"{driver}\n")


def test_help_shows_the_tree_s_values_and_hydra_s_forms_in_80_columns(
    tree: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, err, _ = _run(["db=postgresql", "--help"], capsys, tree)
    assert (code, err) == (0, "")
    assert out.startswith("usage: app [-m] [--config-path DIR] [--config-name NAME] [OVERRIDE")
    assert [line for line in out.splitlines() if len(line) > 80] == []
    flat = " ".join(out.split())
    assert "db.port INT (= 5432, from conf/db/postgresql.yaml:2)" in flat
    assert "Hydra's command line:" in flat
    for form in ("KEY=VALUE", "GROUP=OPTION", "~KEY", "--multirun", "-cp", "-cn", "-cd"):
        assert form in flat
    assert "--sweep-dir DIR with -m" in flat
    assert "@ FILE" not in out  # compose's own grammar is not this app's


class Run(BaseModel):
    batch_size: int
    lr_decay: float = 0.5


class Wide(BaseModel):
    run_config: Run


def test_help_names_keys_as_hydra_s_overrides_do(
    write: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Help's keys are the fields' names, as an override takes them (`run_config.batch_size=8`),
    not compose's kebab flags, which Hydra's command line refuses as unknown keys."""
    write("conf/config.yaml", "run_config:\n  batch_size: 4\n")
    with pytest.raises(SystemExit):
        cli(Wide, ["--help"], prog="app", hydra=f"{tmp_path}/conf:config")
    out = capsys.readouterr().out
    assert "run_config.batch_size INT" in out
    assert "run_config.lr_decay FLOAT" in out
    assert "\nrun_config:\n" in out
    assert "-size" not in out
    assert "-decay" not in out
    assert cli(Wide, ["run_config.batch_size=8"], hydra=f"{tmp_path}/conf:config").run_config == (
        Run(batch_size=8)
    )


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["db=nope"], "error: 'nope' (from db=nope, for conf/config.yaml:2): no config db/nope"),
        (
            ["trainer.lr=fast"],
            "error: trainer.lr (from trainer.lr=fast): Input should be a valid number",
        ),
        (["trainer.lrr=1"], "trainer.lrr (from trainer.lrr=1): no such key"),
        (["db=mysql,postgresql"], "a comma list is a sweep: it needs multirun"),
        (["--cfg", "job"], "--cfg: is not a flag this app takes"),
        (["--sweep-dir", "x"], "--sweep-dir: steers a multirun's sweep: it needs -m"),
        (["-m", "--sweep.lr", "1"], "--sweep.lr: is compose's own sweep"),
        (["-cd", "nowhere"], "--config-dir = 'nowhere': is no directory"),
        (["-cp", "nowhere"], "--config-path = 'nowhere': is no directory (relative to the app"),
        (["-cn"], "-cn: expects a value"),
        (["=mysql"], "error: =mysql: an override needs a key before '='"),
        (["@src=mysql"], "error: @src=mysql: an override needs a key before '@'"),
    ],
)
def test_bad_input_is_one_error_exit_2(
    tree: str, argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err, _ = _run(argv, capsys, tree)
    assert (code, out) == (2, "")
    assert said in err
    assert err.count("\n") == 1


def test_a_bad_value_is_named_as_typed_or_by_its_yaml_line(
    tree: str, write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """In Hydra's mode a key is named as Hydra's overrides name it: the override as typed,
    or the key and the file line that set it; compose's own mode keeps its flag form."""
    write("conf/db/broken.yaml", "driver: x\nport: many\n")
    code, _, err, _ = _run(["db=broken", "trainer.lr=fast"], capsys, tree)
    assert code == 2
    assert "  - db.port = 'many' (from conf/db/broken.yaml:2): Input should be a valid" in err
    assert "  - trainer.lr (from trainer.lr=fast): Input should be a valid number" in err
    with pytest.raises(ComposeError, match=r"^--trainer\.lr = 'fast': Input should be a valid"):
        cli(App, args=["--db.driver=x", "--db.port=1", "--trainer.name=n", "--trainer.lr=fast"])


def test_the_options_of_compose_s_own_nodes_are_refused(tree: str) -> None:
    with pytest.raises(TypeError, match="takes no env_prefix"):
        cli(App, [], hydra=tree, env_prefix="APP_")


def _manifest(directory: Path) -> list[dict[str, object]]:
    lines = (directory / "manifest.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


def test_multirun_with_nothing_swept_is_one_point(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err, _ = _run(["-m", "db=mysql", "--dry-run", "--sweep-name", "one"], capsys, tree)
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == (
        "sweep one: 1 point in runs/one (dry run: records written, nothing submitted)"
    )


def test_multirun_jobs_are_sweep_points_with_run_records(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["-m", "db=mysql,postgresql", "trainer.lr=0.1,0.2", "+db.password=hush"]
    code, out, err, _ = _run([*argv, "--dry-run", "--sweep-name", "grid"], capsys, tree)
    assert (code, err) == (0, "")
    lines = out.splitlines()
    assert (
        lines[0]
        == "sweep grid: 4 points in runs/grid (dry run: records written, nothing submitted)"
    )
    rows = [line.split() for line in lines[2:]]
    assert [row[2:4] for row in rows] == [  # Hydra's job order: the last axis varies fastest
        ["mysql", "0.1"],
        ["mysql", "0.2"],
        ["postgresql", "0.1"],
        ["postgresql", "0.2"],
    ]
    manifest = _manifest(tmp_path / "runs" / "grid")
    assert [line["overrides"] for line in manifest][1] == [
        "db=mysql",
        "trainer.lr=0.2",
        "+db.password=**********",  # a secret field's value never reaches a record
    ]
    point = Path(str(manifest[3]["directory"]))
    record = json.loads((point / "run.json").read_text(encoding="utf-8"))
    assert record["axes"] == {"db": "postgresql", "trainer.lr": 0.2}
    assert "conf/db/postgresql.yaml" in " ".join(record["sources"])
    config = (point / "configs" / "app.toml").read_text(encoding="utf-8")
    assert 'driver = "postgresql"' in config
    assert "lr = 0.2" in config
    definition = json.loads((tmp_path / "runs" / "grid" / "sweep.json").read_text())
    assert definition["hydra"]["config_name"] == "config"
    assert "hush" not in json.dumps(definition)


def test_multirun_with_the_local_executor_runs_each_job(write: WriteFile, tmp_path: Path) -> None:
    """Each point's job runs the app with its recorded config (`app @ POINT/configs/...`),
    which a Hydra app reads as compose's own command line."""
    _tree(write)
    write(
        "main.py",
        """
        from pydantic import BaseModel, SecretStr

        from compose import cli


        class DB(BaseModel):
            driver: str
            port: int


        class App(BaseModel):
            db: DB


        print("ran with", cli(App, hydra="conf:config").db.driver)
        """,
    )
    code, out, err = run_command(
        [sys.executable, "main.py", "-m", "db=mysql,postgresql", "--sweep-executor", "local"],
        cwd=tmp_path,
    )
    assert (code, err) == (0, ""), err
    assert out.startswith(f"sweep {STARTED}: 2 points in {SWEEP_DIR} (executor local)\n")
    directories = [Path(str(line["directory"])) for line in _manifest(tmp_path / SWEEP_DIR)]

    def ended() -> bool:
        return all(
            (d / "status.json").exists() and "finished" in (d / "status.json").read_text()
            for d in directories
        )

    wait_until(ended, "every job finished")
    logs = [(d / "log.txt").read_text().splitlines()[-1] for d in directories]
    assert logs == ["ran with mysql", "ran with postgresql"]


def test_a_multirun_past_the_sweep_limit_is_refused_before_any_job_composes(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err, _ = _run(["-m", "trainer.lr=range(0,10001)", "--dry-run"], capsys, tree)
    assert (code, out) == (2, "")
    assert "10,001 points, past the limit of 10,000" in err
    assert not (tmp_path / "runs").exists()


def test_a_failing_job_is_named_and_nothing_is_written(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err, _ = _run(["-m", "trainer.lr=1,fast"], capsys, tree)
    assert (code, out) == (2, "")
    assert err.startswith("error: point 1 (trainer.lr=fast): ")
    assert not (tmp_path / "runs").exists()


def _first_line(argv: list[str], capsys: pytest.CaptureFixture[str], tree: str) -> str:
    code, out, err, _ = _run([*argv, "--dry-run"], capsys, tree)
    assert (code, err) == (0, ""), err
    return out.splitlines()[0]


def test_each_multirun_without_a_name_is_a_new_sweep_named_by_its_start(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As Hydra's each `-m` gets a new dated directory: another sweep, or the same one again,
    started in the same second gets `_1`, `_2`..., never the directory of another sweep."""
    said = "{}: 2 points in runs/{} (dry run: records written, nothing submitted)"
    first = ["-m", "db=mysql,postgresql"]
    assert _first_line(first, capsys, tree) == "sweep " + said.format(STARTED, STARTED)
    other = ["-m", "trainer.lr=0.1,0.2"]
    assert _first_line(other, capsys, tree) == "sweep " + said.format(*[f"{STARTED}_1"] * 2)
    assert _first_line(first, capsys, tree) == "sweep " + said.format(*[f"{STARTED}_2"] * 2)
    assert sorted(path.name for path in (tmp_path / "runs").iterdir()) == [
        STARTED,
        f"{STARTED}_1",
        f"{STARTED}_2",
    ]
    axes = [line["axes"] for line in _manifest(tmp_path / SWEEP_DIR)]
    assert axes == [{"db": "mysql"}, {"db": "postgresql"}]  # the first sweep's, untouched
    definition = json.loads((tmp_path / SWEEP_DIR / "sweep.json").read_text())
    assert definition["now"].startswith(NOW)  # the instant that named it is its ${now:}


@pytest.mark.parametrize("set_in", ["the command line", "the primary config"])
def test_a_multirun_says_hydras_sweep_dir_is_not_read_and_where_it_writes(
    set_in: str, write: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hydra's `hydra.sweep.dir` names where Hydra's multirun writes: compose's writes where
    its own controls say, and the user is told, never left to look for the jobs there."""
    _tree(write)
    elsewhere = tmp_path / "elsewhere"
    argv = ["-m", "db=mysql,postgresql", "--dry-run", "--sweep-name", "grid"]
    if set_in == "the command line":
        argv.append(f"hydra.sweep.dir={elsewhere}")
        said = f"hydra.sweep.dir={elsewhere}"
    else:
        text = (tmp_path / "conf" / "config.yaml").read_text(encoding="utf-8")
        write("conf/config.yaml", f"{text}\nhydra:\n  sweep:\n    dir: {elsewhere}\n")
        said = f"hydra.sweep in {Path('conf', 'config.yaml')}"
    code, out, err, _ = _run(argv, capsys, f"{tmp_path}/conf:config")
    assert code == 0
    assert out.startswith("sweep grid: 2 points in runs/grid")
    assert f"{said}: Hydra's own sweep directory is not read; this sweep writes to " in err
    assert f"{tmp_path / 'runs' / 'grid'}, each job in a directory of its own below it" in err
    assert "--sweep-dir DIR and --sweep-name NAME" in err
    assert not elsewhere.exists()


def test_a_named_multirun_resumes_and_a_resume_without_a_name_is_refused(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    named = ["-m", "db=mysql,postgresql", "--sweep-name", "grid"]
    assert _first_line(named, capsys, tree).startswith("sweep grid: 2 points in runs/grid")
    resumed = _first_line([*named, "--sweep-resume"], capsys, tree)
    assert resumed.startswith("sweep grid: 2 points in runs/grid")
    code, out, err, _ = _run(["-m", "db=mysql,postgresql", "--sweep-resume"], capsys, tree)
    assert (code, out) == (2, "")
    assert err.startswith("error: --sweep-resume: resumes a sweep by its name, and without")
    assert "name the sweep to resume: --sweep-name NAME" in err
    assert [path.name for path in (tmp_path / "runs").iterdir()] == ["grid"]


@pytest.mark.parametrize("given", [[], ["--sweep-dir", "afile"], ["--sweep-dir", "afile/sub"]])
def test_a_multirun_s_dir_that_is_a_file_is_named_by_its_flag(
    given: list[str], tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not "was made by another sweep since this one took its name", which its parent's
    mkdir raised, nor the compose-only key sweep.dir for the default."""
    (tmp_path / "runs").write_text("")
    (tmp_path / "afile").write_text("")
    code, out, err, _ = _run(["-m", "db=mysql,postgresql", *given, "--dry-run"], capsys, tree)
    value, file = (given[1], "afile") if given else ("runs", "runs")
    assert (code, out) == (2, "")
    assert err == (
        f"error: --sweep-dir = {value!r}: is no directory: {tmp_path / file} is a file; "
        "give the sweep a directory: --sweep-dir DIR\n"
    )


def test_an_unknown_executor_is_named_by_the_app_s_flag(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Not by compose's own sweep.executor, which a Hydra app has no way to set."""
    argv = ["-m", "db=mysql,postgresql", "--sweep-executor", "lokal"]
    code, out, err, _ = _run(argv, capsys, tree)
    assert (code, out) == (2, "")
    assert err == "error: --sweep-executor = 'lokal': no such executor; did you mean local?\n"


def test_a_directory_made_since_a_multirun_took_its_name_is_never_shared(
    tree: str, tmp_path: Path
) -> None:
    """Other sweeps started in the same second took the name first, while this one composed
    its points: it is named again, after them (its points made again, each in its own
    directory), and never joins theirs. Past `CLAIM_TRIES` such turns, it is refused."""
    from compose._input.options import NO_OPTIONS
    from compose._runs.command import CLAIM_TRIES, run_hydra_sweep
    from compose._runs.hydra_line import app_tree, line_call, read_line

    line = read_line(["-m", "db=mysql,postgresql", "hydra.sweep.dir=elsewhere"])
    call = line_call(line, app_tree(tree, None), None)
    runs = tmp_path / "runs"
    taken: list[Path] = []

    def others_take(limit: int) -> Callable[[str, int, int], None]:
        def another_takes_it(what: str, done: int, total: int) -> None:
            if what == "composing" and done == total and len(taken) < limit:
                name = STARTED + (f"_{len(taken)}" if taken else "")
                taken.append(runs / name)
                taken[-1].mkdir(parents=True)

        return another_takes_it

    with pytest.warns(ComposeWarning) as caught:  # its warnings said once, not each turn
        said = run_hydra_sweep(App, call, ["--dry-run"], "app", NO_OPTIONS, progress=others_take(2))
    assert [str(w.message).split(":")[0] for w in caught] == ["hydra.sweep.dir=elsewhere"]
    assert said.splitlines()[0].startswith(f"sweep {STARTED}_2: 2 points in runs/{STARTED}_2")
    assert [list(path.iterdir()) for path in taken] == [[], []]  # nothing written there
    manifest = _manifest(runs / f"{STARTED}_2")
    assert [line["directory"] for line in manifest] == [
        str(runs / f"{STARTED}_2" / str(line["name"])) for line in manifest
    ]
    taken.clear()
    shutil.rmtree(runs)
    with (
        pytest.warns(ComposeWarning),
        pytest.raises(ComposeError, match="was made by another sweep since this one took"),
    ):
        progress = others_take(CLAIM_TRIES)
        run_hydra_sweep(App, call, ["--dry-run"], "app", NO_OPTIONS, progress=progress)
    assert all(list(path.iterdir()) == [] for path in taken)


def test_sweep_output_sets_each_job_s_directory(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err, _ = _run(
        ["-m", "db=mysql,postgresql", "--sweep-output", "trainer.name", "--dry-run"], capsys, tree
    )
    assert (code, err) == (0, "")
    for line in _manifest(tmp_path / SWEEP_DIR):
        config = Path(str(line["directory"]), "configs", "app.toml").read_text()
        assert f'name = "{line["directory"]}"' in config


def test_a_table_given_to_a_group_key_is_a_value_and_its_secret_is_masked(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`db=mysql` names an option and is kept; `db={password:x}` sets values: masked."""
    argv = ["-m", "db=mysql,postgresql", "++db={password:hush}", "--dry-run"]
    code, out, err, _ = _run(argv, capsys, tree)
    assert (code, err) == (0, "")
    records = (tmp_path / SWEEP_DIR).rglob("*.json*")
    text = " ".join(path.read_text() for path in records) + out
    assert "hush" not in text
    assert "++db=**********" in text
    assert "db=postgresql" in text


def test_multirun_reads_the_tree_once_and_each_point_is_its_single_run(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], config_reads: list[str]
) -> None:
    """`-m` composes its jobs as `compose_hydra(..., multirun=True)` does: every config of the
    tree read once for all the jobs, each job's config what its single run gives."""
    argv = ["-m", "db=mysql,postgresql", "trainer.lr=0.1,0.2,0.3", "--dry-run"]
    code, _, err, _ = _run(argv, capsys, tree)
    assert (code, err) == (0, "")
    assert sorted(config_reads) == ["config", "db/mysql", "db/postgresql"]  # each once, for 6 jobs
    for line in _manifest(tmp_path / SWEEP_DIR):
        record = json.loads(Path(str(line["directory"]), "run.json").read_text())
        _, _, _, single = _run(record["argv"], capsys, tree)
        assert single is not None
        assert fingerprint(single) == record["fingerprint"]


def test_a_point_s_record_names_the_origin_of_every_value(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As compose's own run records do: the YAML line that set each value, or the override
    (a secret's value masked), the sweep's output key marked as the sweep's."""
    argv = ["-m", "db=mysql,postgresql", "trainer.lr=0.5", "+db.password=hush"]
    code, _, err, _ = _run([*argv, "--sweep-output", "trainer.name", "--dry-run"], capsys, tree)
    assert (code, err) == (0, "")
    second = _manifest(tmp_path / SWEEP_DIR)[1]
    record = json.loads(Path(str(second["directory"]), "run.json").read_text())
    assert record["origins"] == {  # files named as errors name them: here, from the cwd
        "db.driver": "conf/db/postgresql.yaml:1",
        "db.port": "conf/db/postgresql.yaml:2",
        "db.password": "+db.password=**********",
        "trainer.lr": "trainer.lr=0.5",
        "trainer.name": "sweep output trainer.name",
    }


def _point(tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], *more: str) -> Path:
    """The second point of `app -m db=mysql,postgresql trainer.lr=0.5 MORE... --dry-run`."""
    argv = ["-m", "db=mysql,postgresql", "trainer.lr=0.5", *more, "--dry-run"]
    code, _, err, _ = _run(argv, capsys, tree)
    assert (code, err) == (0, "")
    return Path(str(_manifest(tmp_path / SWEEP_DIR)[1]["directory"]))


def test_from_run_composes_a_job_again_from_its_record(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The record names the tree (its directory, name and --config-dir) and the job's
    overrides: the rerun is the same config, and overrides after it change it."""
    point = _point(tree, tmp_path, capsys)
    record = json.loads((point / "run.json").read_text())
    assert record["hydra"] == {
        "config_dir": str(tmp_path / "conf"),
        "config_name": "config",
        "config_dirs": [],
    }
    code, _, err, config = _run(["--from-run", str(point)], capsys, tree)
    assert (code, err) == (0, "")
    assert config is not None
    assert fingerprint(config) == record["fingerprint"]  # the config the run had
    assert (config.db.driver, config.trainer.lr) == ("postgresql", 0.5)
    code, _, err, config = _run([f"--from-run={point}", "trainer.lr=0.7"], capsys, tree)
    assert (code, err) == (0, "")
    assert config is not None
    assert (config.db.driver, config.trainer.lr) == ("postgresql", 0.7)


def test_from_run_of_a_changed_tree_names_the_file_and_builds_on_the_recorded_config(
    tree: str, write: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    point = _point(tree, tmp_path, capsys)
    write("conf/db/postgresql.yaml", "driver: postgresql\nport: 6543\n")
    code, _, err, config = _run(["--from-run", str(point)], capsys, tree)
    assert code == 0
    assert err.startswith(f"warning: --from-run {point}: conf/db/postgresql.yaml changed since")
    assert "building on the run's resolved config" in err
    assert config is not None
    assert (config.db.port, config.trainer.lr) == (5432, 0.5)  # what ran, not the file now
    code, out, err, _ = _run(["--from-run", str(point), "trainer.lr=1"], capsys, tree)
    assert (code, out) == (2, "")
    assert "conf/db/postgresql.yaml changed since the run: Hydra's overrides apply to" in err


def test_from_run_with_a_masked_secret_builds_on_the_recorded_config(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    point = _point(tree, tmp_path, capsys, "+db.password=hush")
    code, _, err, config = _run(["--from-run", str(point)], capsys, tree)
    assert code == 0
    assert "its argv holds the secret of +db.password=**********" in err
    assert config is not None
    assert (config.db.driver, config.trainer.lr) == ("postgresql", 0.5)


def test_a_single_run_s_record_keeps_hydra_s_overrides_and_reruns(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`write_run_record(hydra=)` for a single run of a Hydra app: the record keeps the
    overrides as Hydra's (not compose's flags), names the tree and each value's YAML line or
    override, so `--from-run` composes the run again, overrides after it on top."""
    argv = ["db=postgresql", "trainer.lr=0.5"]
    config = _run(argv, capsys, tree)[3]
    assert config is not None
    path = write_run_record("single", config, argv, prog="app", hydra=tree)
    record = json.loads(path.read_text())
    assert record["argv"] == argv
    assert record["hydra"] == {
        "config_dir": str(tmp_path / "conf"),
        "config_name": "config",
        "config_dirs": [],
    }
    assert record["origins"]["db.port"].endswith("conf/db/postgresql.yaml:2")
    assert record["origins"]["trainer.lr"] == "trainer.lr=0.5"
    code, _, err, again = _run(["--from-run", "single"], capsys, tree)
    assert (code, err) == (0, "")
    assert again is not None
    assert fingerprint(again) == record["fingerprint"]
    code, _, err, again = _run(["--from-run", "single", "trainer.lr=0.7"], capsys, tree)
    assert (code, err) == (0, "")
    assert again is not None
    assert (again.db.driver, again.trainer.lr) == ("postgresql", 0.7)


def test_a_single_run_s_record_masks_a_secret_override(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["db=postgresql", "+db.password=hush"]
    config = _run(argv, capsys, tree)[3]
    assert config is not None
    text = write_run_record("single", config, argv, prog="app", hydra=tree).read_text()
    assert "hush" not in text
    record = json.loads(text)
    assert record["argv"] == ["db=postgresql", "+db.password=**********"]
    assert record["origins"]["db.password"] == "+db.password=**********"


def test_a_single_run_s_record_of_a_multirun_line_is_refused(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    config = _run([], capsys, tree)[3]
    assert config is not None
    with pytest.raises(ComposeError, match="--multirun: is no single run"):
        write_run_record("single", config, ["-m", "db=mysql"], prog="app", hydra=tree)
    assert not Path("single").exists()


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["-m"], "--from-run = 'DIR': composes the run its record names"),
        (["-cn", "other"], "it takes overrides only"),
        (["--from-run", "DIR"], "--from-run = 'DIR': is given twice"),
    ],
)
def test_from_run_takes_overrides_only(
    tree: str, tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], said: str
) -> None:
    code, out, err, _ = _run(["--from-run", "DIR", *argv], capsys, tree)
    assert (code, out) == (2, "")
    assert said in err


def test_from_run_of_compose_s_own_record_is_refused(
    tree: str, write: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write("own/run.json", json.dumps({"format": 1, "prog": "app", "argv": ["--trainer.lr=1"]}))
    code, out, err, _ = _run(["--from-run", "own"], capsys, tree)
    assert (code, out) == (2, "")
    assert "is the record of a run of compose's own command line" in err


def test_from_run_of_a_record_holding_a_tree_and_compose_s_own_line_is_refused(
    tree: str, write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """Hand-made: a rerun built on `@ FILE` records no tree. Its argv was read as Hydra's
    overrides ("@: an override needs a key"), an error naming neither the record nor why."""
    hydra = {"config_dir": "conf", "config_name": "config", "config_dirs": []}
    record = {"format": 1, "prog": "app", "argv": ["@", "a.toml"], "hydra": hydra}
    write("both/run.json", json.dumps(record))
    code, out, err, _ = _run(["--from-run", "both"], capsys, tree)
    assert (code, out) == (2, "")
    assert err == (
        "error: argv = '@ a.toml' (from both/run.json): is compose's own command line (@ FILE), "
        "yet the record names a Hydra tree: no run's record holds both\n"
    )


class Job(BaseModel):
    lr: float
    output_dir: str


@pytest.mark.parametrize(
    "named", ["output_dir=runs/a", "output_dir='runs/a'", "++output_dir=runs/a"]
)
def test_a_record_is_replaced_where_the_overrides_name_its_directory(
    write: WriteFile, tmp_path: Path, named: str
) -> None:
    """Another config's record in a directory is replaced only where the run's overrides name
    that directory as its output (`output_dir=DIR`), read as the app reads them: quoted too."""
    write("conf/config.yaml", "lr: 0.1\noutput_dir: runs/a\n")
    spec = f"{tmp_path}/conf:config"
    first = compose_hydra(f"{tmp_path}/conf", "config", schema=Job)
    write_run_record("runs/a", first, [], prog="app", hydra=spec)
    changed = compose_hydra(f"{tmp_path}/conf", "config", ["lr=0.2"], schema=Job)
    with pytest.raises(ComposeError, match=r"output_dir=runs/a"):  # the one way to say it
        write_run_record("runs/a", changed, ["lr=0.2"], prog="app", hydra=spec)
    write_run_record("runs/a", changed, ["lr=0.2", named], prog="app", hydra=spec)
    assert json.loads(Path("runs/a/run.json").read_text())["argv"] == ["lr=0.2", named]


def test_a_rerun_built_on_the_resolved_config_writes_a_record_the_app_reruns(
    tree: str, write: WriteFile, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A tree changed since the run: `--from-run POINT` builds on the point's resolved config
    (`@ POINT/configs/app.toml`, compose's own command line, which a Hydra app takes too), and
    the record of that rerun says so; the app's `--from-run` on that record composes the same
    config again, from the same resolved config."""
    point = _point(tree, tmp_path, capsys)
    write("conf/db/postgresql.yaml", "driver: postgresql\nport: 6543\n")
    argv = ["--from-run", str(point)]
    code, _, err, config = _run(argv, capsys, tree)
    assert code == 0
    assert "conf/db/postgresql.yaml changed since the run; building on" in err
    assert config is not None
    path = write_run_record("again", config, argv, prog="app", hydra=tree)
    record = json.loads(path.read_text())
    assert record["argv"] == ["@", str(point / "configs" / "app.toml")]
    code, _, err, again = _run(["--from-run", "again"], capsys, tree)
    assert (code, err) == (0, "")
    assert again is not None
    assert fingerprint(again) == record["fingerprint"] == fingerprint(config)
    assert (again.db.port, again.trainer.lr) == (5432, 0.5)  # what ran, not the file now
    code, out, err, _ = _run(["--from-run", "again", "trainer.lr=1"], capsys, tree)
    assert (code, out) == (2, "")
    assert f"the run was built on @ {point}/configs/app.toml: Hydra's overrides apply to a" in err


PROG = "no-such-app"  # on no PATH: the local executor cannot start its points


def _output_tree(write: WriteFile, tmp_path: Path) -> str:
    write("jobs/config.yaml", "lr: 0.1\noutput_dir: runs/out\n")
    return f"{tmp_path}/jobs:config"


@pytest.mark.parametrize(
    ("before", "argv", "said"),
    [
        ([], ["lr=0.1,0.2"], "give each point its own with --sweep-output output_dir\n"),
        ([], ["lr=0.1,0.2", "--sweep-name", "../x"], "name it with --sweep-name NAME\n"),
        (
            ["lr=0.1,0.2", "--sweep-name", "s", "--sweep-output", "output_dir"],
            ["lr=0.3,0.4", "--sweep-name", "s", "--sweep-output", "output_dir"],
            "leave out --sweep-name (each -m then gets a new directory), give another, or "
            "remove the directory\n",
        ),
        (
            ["lr=0.1,0.2", "--sweep-name", "s", "--sweep-output", "output_dir"],
            ["lr=0.3,0.4", "--sweep-name", "s", "--sweep-output", "output_dir", "--sweep-resume"],
            "resume it with the same overrides and flags, or give a new --sweep-name\n",
        ),
        (
            [],
            ["lr=0.1,0.2", "--sweep-output", "output_dir", "--sweep-executor", "local"],
            "'no-such-app': cannot start the points: no such program on PATH; the points start "
            "the app by this name (its prog): put it on PATH, or start the app as the script of "
            "that name (python NAME.py -m ...)\n",
        ),
    ],
)
def test_a_multirun_s_errors_say_what_the_app_s_command_line_takes(
    write: WriteFile,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    before: list[str],
    argv: list[str],
    said: str,
) -> None:
    """A Hydra app has no sweep file: its hints name its flags, never `[sweep]`'s keys."""
    tree = _output_tree(write, tmp_path)
    if before:
        code, _, err, _ = run_cli_config(
            ["-m", *before, "--dry-run"], capsys, Job, "app", hydra=tree
        )
        assert (code, err) == (0, "")
    code, out, err, _ = run_cli_config(["-m", *argv], capsys, Job, PROG, hydra=tree)
    assert (code, out) == (2, "")
    assert err.endswith(said)
    assert "[sweep]" not in err
    assert "sweep.command" not in err
