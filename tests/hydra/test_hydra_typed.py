"""Typed Hydra configs (`compose_hydra`): store nodes that are Pydantic models type the table
they land at (closed keys, OmegaConf's conversions, subclasses), a file matched by a store node
of the same path is typed by it, `schema=` binds the result; and every value says where it came
from (FILE:LINE, or the override) in the errors of resolution and validation."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional

import pytest
from pydantic import BaseModel

from compose import (
    ComposeError,
    ConfigValidationError,
    InterpolationError,
    SourceError,
    UnknownKeyError,
    compose_hydra,
)

# Trees written short: most primaries have no _self_, which Hydra (and compose) warn of
pytestmark = pytest.mark.filterwarnings("ignore:.*has no _self_:compose.ComposeWarning")

if TYPE_CHECKING:
    from conftest import WriteFile


class DB(BaseModel):
    driver: str = "mysql"
    port: int = 3306
    debug: bool = False
    user: Optional[str] = None  # noqa: UP045 - written as Hydra users write it


class PostgresDB(DB):
    schema_name: str = "public"


class Other(BaseModel):
    x: int = 0


@pytest.fixture
def conf(write: WriteFile) -> str:
    write("conf/config.yaml", "defaults:\n  - db: base\n  - _self_\n")
    return "conf"


STORE: dict[str, Any] = {"db/base": DB, "db/pg": PostgresDB, "db/other": Other}


@pytest.mark.parametrize(
    ("overrides", "expected"),
    [
        ([], {"driver": "mysql", "port": 3306, "debug": False, "user": None}),
        (["db.port='3308'"], {"port": 3308}),
        (["db.debug=yes"], {"debug": True}),
        (["db.driver=42"], {"driver": "42"}),
        (["db=pg"], {"schema_name": "public"}),
        (["++db.extra=1"], {"extra": 1}),
    ],
)
def test_store_models_type_their_table(
    conf: str, overrides: list[str], expected: dict[str, Any]
) -> None:
    result = compose_hydra(conf, "config", overrides, store=STORE)
    assert expected.items() <= result["db"].items()


@pytest.mark.parametrize(
    ("overrides", "kind", "message"),
    [
        (["db.prot=1"], UnknownKeyError, "no such key"),
        (["db.port=3.5"], ComposeError, "cannot be converted to int"),
        (["db.debug=maybe"], ComposeError, "cannot be converted to bool"),
        (["db.driver=null"], ComposeError, "null where the type is not Optional"),
    ],
)
def test_typed_values_refuse_what_omegaconf_refuses(
    conf: str, overrides: list[str], kind: type[ComposeError], message: str
) -> None:
    with pytest.raises(kind) as caught:
        compose_hydra(conf, "config", overrides, store=STORE)
    assert message in caught.value.message
    assert caught.value.origin == overrides[0]


def test_a_file_cannot_add_a_key_to_a_typed_table(write: WriteFile) -> None:
    write("conf/config.yaml", "defaults:\n  - db: base\n  - _self_\ndb:\n  prot: 1\n")
    with pytest.raises(UnknownKeyError) as caught:
        compose_hydra("conf", "config", store=STORE)
    assert caught.value.message == "DB has no key prot"
    assert caught.value.hint == "did you mean port?"


def test_a_typed_table_only_takes_a_subclass(write: WriteFile) -> None:
    write("conf/config.yaml", "defaults:\n  - db: base\n  - db/other@db\n")
    with pytest.raises(SourceError, match="Other is not a subclass of DB"):
        compose_hydra("conf", "config", store=STORE)


def test_a_file_is_typed_by_the_store_node_at_its_path(write: WriteFile) -> None:
    write("conf/config.yaml", "defaults:\n  - db: base\n")
    write("conf/db/base.yaml", "port: '5432'\n")
    assert compose_hydra("conf", "config", store=STORE)["db"]["port"] == 5432
    write("conf/db/base.yaml", "porrt: 1\n")
    with pytest.raises(UnknownKeyError):
        compose_hydra("conf", "config", store=STORE)


class App(BaseModel):
    db: DB
    lr: float = 0.1


def test_schema_binds_the_result(conf: str) -> None:
    app = compose_hydra(conf, "config", ["+lr=0.5"], schema=App, store=STORE)
    assert isinstance(app, App)
    assert (app.db.port, app.lr) == (3306, 0.5)


def test_validation_errors_name_the_override_that_set_the_value(write: WriteFile) -> None:
    write("conf/config.yaml", "db:\n  port: 1\nlr: 0.1\n")
    with pytest.raises(ConfigValidationError) as caught:
        compose_hydra("conf", "config", ["lr=abc"], schema=App)
    assert caught.value.origin == "lr=abc"


def test_interpolation_errors_name_the_file_and_line(write: WriteFile) -> None:
    write("conf/config.yaml", "defaults:\n  - db: a\nx: 1\ny: ${nowhere}\n")
    write("conf/db/a.yaml", "port: ${x}\nbad: ${db.nope}\n")
    with pytest.raises(ComposeError) as caught:
        compose_hydra("conf", "config")
    assert all(isinstance(e, InterpolationError) for e in caught.value.errors)
    assert [(e.key, e.origin) for e in caught.value.errors] == [
        ("db.bad", "conf/db/a.yaml:2"),
        ("y", "conf/config.yaml:4"),
    ]
    with pytest.raises(InterpolationError) as caught:
        compose_hydra("conf", "config", ["y=${nope}", "db.bad=1"])
    assert caught.value.origin == "y=${nope}"


class Trainer(BaseModel):
    lr: float = 0.1
    tags: dict[str, int] = {}


class Run(BaseModel):
    a: int
    out: str = "out"
    trainer: Trainer = Trainer()


def test_a_key_the_schema_declares_is_set_without_a_plus(write: WriteFile) -> None:
    """A field of `schema=` exists in every config of it, as a structured config's fields do
    in Hydra (and the Hydra app's --help lists it with its default): `out=x` sets it though
    no file of the tree does. A key no model field declares keeps struct mode's rule: a
    dict's new key, or a key of nothing, needs `+`."""
    write("conf/config.yaml", "a: 1\n")
    run = compose_hydra("conf", "config", ["out=x", "trainer.lr=2"], schema=Run)
    assert (run.out, run.trainer.lr) == ("x", 2.0)
    for override in ("trainer.tags.x=2", "b=2"):
        with pytest.raises(UnknownKeyError, match=r"no such key"):
            compose_hydra("conf", "config", [override], schema=Run)
    assert compose_hydra("conf", "config", ["+trainer.tags.x=2"], schema=Run).trainer.tags == {
        "x": 2
    }
    with pytest.raises(UnknownKeyError, match=r"no such key"):  # no schema: Hydra's rule
        compose_hydra("conf", "config", ["out=x"])
    write("conf/config.yaml", "a: 1\ntrainer:\n  lr: 0.3\n")
    with pytest.raises(UnknownKeyError, match=r"no such key"):  # each key a table brings
        compose_hydra("conf", "config", ["trainer={tags: {x: 1}}"], schema=Run)
