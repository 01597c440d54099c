"""A flag's path through untyped data (schema-less trees, keys no field declares): the tree
composed so far tells a list's index from a table's key, and an index into a list is checked
against it; a dashed key is the snake_case key files write."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from pydantic import ConfigDict

from compose import ArgvError, BaseConfig, compose
from compose._merge.fold import root_shape
from compose._schema.plan import plan_of
from compose._schema.shape import ANY
from compose._schema.walk import walk

if TYPE_CHECKING:
    from conftest import WriteFile

LISTS = "runs = [{name = 'a', seed = 1}, {name = 'b', seed = 2}]\nsizes = [1, 2]\n"


def test_an_index_into_a_list_sets_that_element(write: WriteFile) -> None:
    path = write("base.toml", LISTS)
    tree = compose([path], ["runs.1.seed=7", "sizes.0=5", "sizes.2=3"])
    assert tree == {
        "runs": [{"name": "a", "seed": 1}, {"name": "b", "seed": 7}],
        "sizes": [5, 2, 3],
    }


def test_a_key_where_a_list_is_names_the_list(write: WriteFile) -> None:
    path = write("base.toml", LISTS)
    with pytest.raises(ArgvError) as caught:
        compose([path], ["runs.first.seed=7"])
    assert caught.value.format() == (
        "--runs (from override runs.first.seed): is a list: expected an index, got 'first'"
    )


def test_digits_are_a_key_where_a_table_is(write: WriteFile) -> None:
    path = write("base.toml", "[by_year]\n2024 = 'old'\n")
    assert compose([path], ["by_year.2025=new"]) == {"by_year": {"2024": "old", "2025": "new"}}


def test_dashes_are_underscores_all_the_way_down(write: WriteFile) -> None:
    path = write("base.toml", "[max_steps]\nper_run = 1\n")
    assert compose([path], ["max-steps.per-run=2", "new-table.some-key=3"]) == {
        "max_steps": {"per_run": 2},
        "new_table": {"some_key": 3},
    }


class Open(BaseConfig):
    model_config = ConfigDict(extra="allow")
    known: int = 0


def test_below_a_key_no_field_declares_dashes_are_underscores_too(write: WriteFile) -> None:
    path = write("base.toml", "known = 1\n")
    config = compose([path], ["extra-table.some-key=3"], schema=Open)
    assert config.model_extra == {"extra_table": {"some_key": "3"}}


class Mixed(BaseConfig):
    limits: int | dict[str, int] = 0  # no one kind: untyped to composition


def test_below_a_field_of_no_one_kind_the_walk_reaches_plain_untyped_data() -> None:
    """The field's own shape holds the key below it; what the key lands on is untyped, as
    every step below an untyped one is (not the field's union again)."""
    root = root_shape(Mixed)
    target = walk(root, ["limits", "train"], {}, "--limits.train")
    assert (target.path, target.shape, target.parent) == (
        ("limits", "train"),
        ANY,
        plan_of(Mixed).fields["limits"].shape,
    )
    deeper = walk(root, ["limits", "a", "b"], {}, "--limits.a.b")
    assert (deeper.shape, deeper.parent) == (ANY, ANY)


def test_a_flag_sets_a_key_below_a_field_of_no_one_kind(write: WriteFile) -> None:
    path = write("base.toml", "[limits]\neval = 2\n")
    config = compose([path], ["limits.train=3"], schema=Mixed)
    assert config.limits == {"eval": 2, "train": 3}
