"""Hydra's value overrides on the composed config (`compose_hydra`), in struct mode: `key=v` sets
what exists, `+key=v` adds what does not, `++key=v` either, `~key[=v]` deletes; a table merges
into a table; values typed by the grammar; Hydra's own node accepted and dropped; a value that
is a table (`db={...}`) is a value override even where `db` is a group."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pydantic import BaseModel

from compose import ArgvError, ComposeError, InterpolationError, UnknownKeyError, compose_hydra

# Trees written short: most primaries have no _self_, which Hydra (and compose) warn of
pytestmark = pytest.mark.filterwarnings("ignore:.*has no _self_:compose.ComposeWarning")

if TYPE_CHECKING:
    from conftest import WriteFile

PRIMARY = """
defaults:
  - db: mysql
trainer:
  lr: 0.1
  layers: [1, 2]
  opt: null
  need: ???
"""


@pytest.fixture
def conf(write: WriteFile) -> str:
    write("conf/config.yaml", PRIMARY)
    write("conf/db/mysql.yaml", "driver: mysql\nport: 3306\n")
    return "conf"


@pytest.mark.parametrize(
    ("overrides", "where", "expected"),
    [
        (["trainer.lr=1e-3"], "trainer.lr", 0.001),
        (["trainer.layers=[3]"], "trainer.layers", [3]),
        (["trainer.layers.0=9"], "trainer.layers", [9, 2]),
        (["+trainer.new=x"], "trainer.new", "x"),
        (["++trainer.lr=2", "++a.b.c=1"], "a", {"b": {"c": 1}}),
        (["+trainer.opt=5"], "trainer.opt", 5),  # null holds no value: + may set it
        (["db={port: 1}"], "db", {"driver": "mysql", "port": 1}),
        (["trainer.lr=1", "trainer.lr=2"], "trainer.lr", 2),
        (["trainer.lr='a,b'"], "trainer.lr", "a,b"),
        (["trainer.lr=${db.port}"], "trainer.lr", 3306),
        (["hydra.run.dir=out", "hydra/launcher=basic"], "trainer.lr", 0.1),
    ],
)
def test_value_overrides(conf: str, overrides: list[str], where: str, expected: Any) -> None:
    node: Any = compose_hydra(conf, "config", overrides)
    for key in where.split("."):
        node = node[key]
    assert node == expected


def test_deletions_and_what_stays_unset(conf: str) -> None:
    result = compose_hydra(conf, "config", ["~trainer.lr", "~db.port=3306"])
    assert result["trainer"] == {"layers": [1, 2], "opt": None, "need": "???"}
    assert result["db"] == {"driver": "mysql"}
    assert "hydra" not in result


@pytest.mark.parametrize(
    ("override", "kind", "message", "hint"),
    [
        ("trainer.lrr=1", UnknownKeyError, "no such key", "did you mean trainer.lr?"),
        ("+trainer.lr=1", ArgvError, "the key is set already", "trainer.lr=1 sets it"),
        ("~trainer.nope", UnknownKeyError, "nothing to delete", None),
        ("~trainer.lr=5", ArgvError, "the value given is not the key's", None),
        ("trainer.layers.7=1", ArgvError, "no such list index", None),
        ("trainer.lr@x=1", ArgvError, "no config group", None),
        ("hydra.nope=1", UnknownKeyError, "no such key", None),
        ("trainer={a: 1}", UnknownKeyError, "no such key", None),
        ("trainer=[1]", ArgvError, "a list cannot merge into a table", None),
    ],
)
def test_override_errors_name_the_override(
    conf: str, override: str, kind: type[ComposeError], message: str, hint: str | None
) -> None:
    with pytest.raises(kind) as caught:
        compose_hydra(conf, "config", [override])
    assert message in caught.value.message
    assert caught.value.origin == override
    if hint is not None:
        assert caught.value.hint is not None and hint in caught.value.hint


def test_every_bad_override_at_once(conf: str) -> None:
    with pytest.raises(ComposeError) as caught:
        compose_hydra(conf, "config", ["trainer.a=1", "trainer.b=2"])
    assert [e.origin for e in caught.value.errors] == ["trainer.a=1", "trainer.b=2"]


def test_an_interpolation_that_fails_is_an_error_now(conf: str) -> None:
    with pytest.raises(InterpolationError):
        compose_hydra(conf, "config", ["++x=${nowhere}"])


def test_a_list_and_a_table_never_merge(write: WriteFile) -> None:
    write("conf/config.yaml", "defaults:\n  - _self_\n  - over: it\nx: {a: 1}\n")
    write("conf/over/it.yaml", "# @package _global_\nx: [1]\n")
    with pytest.raises(ComposeError) as caught:
        compose_hydra("conf", "config")
    assert caught.value.message == "a list cannot merge into a table"
    assert caught.value.key == "x"
    assert caught.value.origin == "conf/config.yaml:3 -> conf/over/it.yaml:2"


def test_a_group_set_to_null_or_forced_is_refused(conf: str) -> None:
    with pytest.raises(ArgvError, match="is a name or a list of names"):
        compose_hydra(conf, "config", ["db=null"])
    with pytest.raises(ArgvError, match="added with `\\+`"):
        compose_hydra(conf, "config", ["++db=mysql"])


def test_yaml_is_read_as_omegaconf_reads_it(write: WriteFile) -> None:
    write("conf/config.yaml", "a: 1e-3\nb: null\nc: 2024-01-01\nd: 1_000.5\n")
    assert compose_hydra("conf", "config") == {
        "a": 0.001,
        "b": None,
        "c": "2024-01-01",
        "d": 1000.5,
    }


class LrTrainer(BaseModel):
    lr: float


class LrApp(BaseModel):
    trainer: LrTrainer


def test_a_table_given_to_a_value_s_key_is_named_as_its_origin(conf: str) -> None:
    """`trainer.lr={a: 1}` replaces the number with a table: a schema's error names the
    override that did, not the YAML line of the number it replaced."""
    with pytest.raises(ComposeError) as raised:
        compose_hydra(conf, "config", ["trainer.lr={a: 1}", "~trainer.layers"], schema=LrApp)
    assert "trainer.lr (from trainer.lr={a: 1})" in str(raised.value)
    assert "config.yaml" not in str(raised.value)
