"""`compose show --hydra DIR:NAME` and `compose explain --hydra` (issue 40): a Hydra tree
composed from the command line, ARGV being Hydra's overrides; each value's origin is the
FILE:LINE of its YAML file or the override as typed; `show --defaults` lists the configs the
defaults tree merges, each with the defaults entry (FILE:LINE) that chose it and the override
that changed the choice. Bad input is one error line, exit 2."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import run_compose

if TYPE_CHECKING:
    from conftest import WriteFile

SCHEMA = """
from pydantic import BaseModel


class DB(BaseModel):
    driver: str
    port: int


class Trainer(BaseModel):
    lr: float
    name: str


class App(BaseModel):
    db: DB
    trainer: Trainer
"""


@pytest.fixture
def tree(write: WriteFile) -> str:
    write(
        "conf/config.yaml",
        """
        defaults:
          - db: mysql
          - _self_

        trainer:
          lr: 0.01
          name: run-${db.driver}
        """,
    )
    write("conf/db/mysql.yaml", "driver: mysql\nport: 3306\n")
    write("conf/db/postgresql.yaml", "driver: postgresql\nport: 5432\n")
    write(
        "conf/experiment/fast.yaml",
        """
        # @package _global_
        defaults:
          - override /db: postgresql

        trainer:
          lr: 0.5
        """,
    )
    write("hydra_app_schema.py", SCHEMA)
    return "conf:config"


def test_show_composes_the_tree_with_overrides(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(capsys, "show", "--hydra", tree, "db=postgresql", "trainer.lr=1")
    assert (code, err) == (0, "")
    assert 'driver = "postgresql"' in out
    assert "lr = 1" in out
    assert 'name = "run-${db.driver}"' in out  # as written, unless --resolved


def test_show_origins_name_the_yaml_line_and_the_override(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(
        capsys, "show", "--origins", "--hydra", tree, "db=postgresql", "trainer.lr=1"
    )
    assert (code, err) == (0, "")
    assert 'driver = "postgresql"  # conf/db/postgresql.yaml:1' in out
    assert "port = 5432  # conf/db/postgresql.yaml:2" in out
    assert "lr = 1  # trainer.lr=1" in out
    assert 'name = "run-${db.driver}"  # conf/config.yaml:7' in out


def test_show_resolved_json_validates_with_the_schema(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(
        capsys,
        "show",
        "--resolved",
        "--format",
        "json",
        "--origins",
        "--schema",
        "hydra_app_schema:App",
        "--hydra",
        tree,
        "+experiment=fast",
    )
    assert (code, err) == (0, "")
    data = json.loads(out)
    assert data["trainer"] == {"lr": 0.5, "name": "run-postgresql"}
    assert data["origins"]["trainer.lr"] == "conf/experiment/fast.yaml:6"
    assert data["origins"]["db.port"] == "conf/db/postgresql.yaml:2"


def test_show_resolved_schema_error_names_the_yaml_line(
    tree: str, write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("conf/db/broken.yaml", "driver: x\nport: many\n")
    code, out, err = run_compose(
        capsys,
        "show",
        "--resolved",
        "--schema",
        "hydra_app_schema:App",
        "--hydra",
        tree,
        "db=broken",
    )
    assert (code, out) == (2, "")
    assert "conf/db/broken.yaml:2" in err
    assert "port" in err


def test_explain_names_each_config_that_set_the_key(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(
        capsys, "explain", "--hydra", tree, "trainer.lr", "+experiment=fast", "trainer.lr=2"
    )
    assert (code, err) == (0, "")
    lines = [line.split() for line in out.splitlines()]
    assert lines[0] == ["trainer.lr"]  # as Hydra's command line names it
    assert lines[1] == ["conf/config.yaml:6", "0.01"]
    assert lines[2] == ["conf/experiment/fast.yaml:6", "0.5"]
    assert lines[3] == ["trainer.lr=2", "2"]
    assert lines[4][:3] == ["=>", "2", "(from"]


def test_explain_takes_its_options_after_the_key_as_the_issue_writes_it(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`compose explain KEY --hydra DIR:NAME OVERRIDES`: the KEY comes before ARGV, so an
    option right after it is still an option, and gives what the options-first form gives."""
    after = run_compose(capsys, "explain", "trainer.lr", "--hydra", tree, "trainer.lr=2")
    first = run_compose(capsys, "explain", "--hydra", tree, "trainer.lr", "trainer.lr=2")
    assert after == first
    assert after[0] == 0


def test_explain_refuses_an_option_after_its_argv(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run_compose(capsys, "explain", "trainer.lr", "x=1", "--hydra", tree)
    assert code == 2
    assert err.startswith("error: --hydra: is given after ARGV: options come first")


def test_explain_names_where_a_group_s_table_came_from(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # `db` is the table db/postgresql.yaml makes at its package: no line of its own wrote it
    code, out, err = run_compose(capsys, "explain", "--hydra", tree, "db", "db=postgresql")
    assert (code, err) == (0, "")
    *_, winner = out.splitlines()
    assert winner.startswith("  => {'driver': 'postgresql'")
    assert winner.endswith("(from conf/config.yaml:2)")


def test_explain_shows_the_resolved_winner(tree: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_compose(capsys, "explain", "--hydra", tree, "trainer.name")
    assert (code, err) == (0, "")
    assert "resolved: 'run-mysql'" in out


def test_defaults_lists_each_config_with_its_entry_and_override(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(capsys, "show", "--hydra", tree, "--defaults", "+experiment=fast")
    assert (code, err) == (0, "")
    rows = [line.split(None, 2) for line in out.splitlines()]
    assert rows[0] == ["config", "package", "defaults entry"]
    assert rows[1] == [
        "db/postgresql",
        "db",
        "conf/config.yaml:2, overridden by conf/experiment/fast.yaml:3",
    ]
    assert rows[2] == ["config", "_global_", "conf/config.yaml"]
    assert rows[3] == ["experiment/fast", "_global_", "conf/config.yaml -> +experiment=fast"]


def test_defaults_as_json_names_the_command_line_override(
    tree: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(
        capsys, "show", "--hydra", tree, "--defaults", "--format", "json", "db=postgresql"
    )
    assert (code, err) == (0, "")
    assert json.loads(out)[0] == {
        "config": "db/postgresql",
        "package": "db",
        "entry": "conf/config.yaml:2",
        "overridden_by": "db=postgresql",
    }


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["show", "--hydra", "conf"], "--hydra = 'conf': is a config directory"),
        (["show", "--hydra", ":config"], "(no directory)"),
        (["show", "--hydra", "conf:"], "(no name)"),
        (["show", "--defaults"], "--defaults: lists a Hydra tree's defaults: it needs --hydra"),
        (["show", "--hydra", "conf:config", "--defaults", "--origins"], "--origins: shows"),
        (["show", "--hydra", "conf:config", "--search-path", "x"], "hydra.searchpath=[file://"),
        (["show", "--hydra", "conf:config", "db=nope"], "conf/config.yaml:2"),
        (["show", "--hydra", "conf:config", "trainer.lrr=1"], "trainer.lrr=1"),
        (["show", "--hydra", "conf:missing"], "missing"),
        (
            ["explain", "--schema", "hydra_app_schema:App", "--hydra", "conf:config", "db.nope"],
            "db.nope",
        ),
    ],
)
def test_bad_input_is_one_error_exit_2(
    tree: str, argv: list[str], said: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_compose(capsys, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("error: ")
    assert said in err
    assert "Traceback" not in err


def test_a_directory_holding_a_colon_splits_at_the_last(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a:b/main.yaml", "x: 1\n")
    code, out, err = run_compose(capsys, "show", "--hydra", "a:b:main")
    assert (code, err) == (0, "")
    assert out == "x = 1\n"


@pytest.mark.parametrize("argv", [[], ["db=sqlite"]])
def test_a_group_option_that_is_not_a_regular_file_is_named_and_refused(
    tree: str, argv: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "conf/db/sqlite.yaml")  # no writer: reading it would wait forever
    (tmp_path / "conf/config.yaml").write_text("defaults:\n  - db: sqlite\n", encoding="utf-8")
    code, out, err = run_compose(capsys, "show", "--hydra", tree, *argv)
    assert (code, out) == (2, "")
    assert err.startswith("error: conf/db/sqlite.yaml: is not a regular file")
    assert "has no options" not in err


SECRET_SCHEMA = """
from pydantic import BaseModel, SecretStr


class DB(BaseModel):
    driver: str
    port: int
    password: SecretStr = SecretStr("")


class App(BaseModel):
    db: DB
"""


@pytest.mark.parametrize(
    "argv",
    [
        ["show", "--origins"],
        ["show", "--resolved", "--origins", "--format", "json"],
        ["explain", "db.password"],
        ["explain", "db"],
    ],
)
def test_an_override_that_sets_a_secret_is_shown_masked(
    write: WriteFile, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    """The origin of a value an override set is the override as typed; for a secret's key (or
    a table holding one), its value is masked there too: show and explain print no secret."""
    write("conf/config.yaml", "db:\n  driver: mysql\n  port: 1\n")
    write("conf/full.yaml", "db:\n  driver: mysql\n  port: 1\n  password: ''\n")
    write("secret_schema.py", SECRET_SCHEMA)
    argv = [*argv, "--schema", "secret_schema:App", "--hydra"]
    for tree, override in [
        ("conf:config", "+db.password=hush-hush"),
        ("conf:full", "db={driver: x, port: 2, password: hush-hush}"),
    ]:
        code, out, err = run_compose(capsys, *argv, tree, override)
        assert (code, err) == (0, "")
        assert "hush" not in out
        assert "**********" in out
    code, out, err = run_compose(capsys, *argv, "conf:config", "db={password: hush-hush}")
    assert (code, out) == (2, "")  # no such key: the hint that adds it is masked too
    assert "hush" not in err
    assert "+db=********** adds it" in err


def test_an_error_from_a_secret_s_override_names_it_masked(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("conf/config.yaml", "db:\n  driver: mysql\n  port: 1\n")
    write("secret_schema.py", SECRET_SCHEMA)
    code, out, err = run_compose(
        capsys,
        "show",
        "--resolved",
        "--schema",
        "secret_schema:App",
        "--hydra",
        "conf:config",
        "+db.password=[hush,x]",
    )
    assert (code, out) == (2, "")
    assert "hush" not in err
    assert "(from +db.password=**********)" in err
