"""The sweep grammar: products, zips, blocks, seeds, ranges and axes under one value of
another expand to the points a user wrote, in order; malformed definitions are one clear
error naming the key and where it was written."""

from __future__ import annotations

from typing import Any

import pytest

from compose import ComposeError
from compose._runs.define import axis_values, cli_text, expand, override


def _points(block: dict[str, Any]) -> list[dict[str, Any]]:
    return expand(block, lambda path: "sweep.toml").points


def test_axes_are_a_product_in_the_order_written_the_last_varying_fastest() -> None:
    assert _points({"axes": {"a": [1, 2], "b": ["x", "y"]}}) == [
        {"a": 1, "b": "x"},
        {"a": 1, "b": "y"},
        {"a": 2, "b": "x"},
        {"a": 2, "b": "y"},
    ]


def test_zipped_axes_pair_their_values() -> None:
    block = {"zip": [{"a": [1, 2, 3], "b": [10, 20, 30]}]}
    assert _points(block) == [{"a": 1, "b": 10}, {"a": 2, "b": 20}, {"a": 3, "b": 30}]


def test_a_zip_of_unequal_lengths_names_each_axis_and_its_length() -> None:
    with pytest.raises(ComposeError, match=r"same number of values: a \(2\), b \(3\)"):
        _points({"zip": [{"a": [1, 2], "b": [1, 2, 3]}]})


def test_blocks_are_concatenated_and_a_product_with_the_axes_beside_them() -> None:
    block = {
        "axes": {"model": ["s", "m"]},
        "blocks": [{"axes": {"lr": [1, 2]}}, {"axes": {"rank": [8]}}],
    }
    assert _points(block) == [
        {"model": "s", "lr": 1},
        {"model": "s", "lr": 2},
        {"model": "s", "rank": 8},
        {"model": "m", "lr": 1},
        {"model": "m", "lr": 2},
        {"model": "m", "rank": 8},
    ]


def test_seeds_repeat_every_point_under_a_seed_key_of_choice() -> None:
    assert _points({"axes": {"a": [1]}, "seeds": 2}) == [{"a": 1, "seed": 0}, {"a": 1, "seed": 1}]
    assert _points({"seeds": {"key": "trainer.seed", "n": 2}}) == [
        {"trainer.seed": 0},
        {"trainer.seed": 1},
    ]


def test_an_axis_may_exist_only_under_one_value_of_another() -> None:
    block = {"axes": {"optim": {"muon": {"lr": [0.01, 0.02]}, "adamw": {"lr": [1e-4]}, "sgd": {}}}}
    assert _points(block) == [
        {"optim": "muon", "lr": 0.01},
        {"optim": "muon", "lr": 0.02},
        {"optim": "adamw", "lr": 1e-4},
        {"optim": "sgd"},
    ]


@pytest.mark.parametrize(
    ("spec", "values"),
    [
        ({"range": [0, 3]}, [0, 1, 2]),
        ({"range": [10, 0, -5]}, [10, 5]),
        ({"linspace": [0, 1, 3]}, [0.0, 0.5, 1.0]),
        ({"logspace": [1e-5, 1e-3, 3]}, [1e-5, 1e-4, 1e-3]),
        ({"logspace": [1e-5, 1e-3, 1]}, [1e-5]),
    ],
)
def test_generated_axes(spec: dict[str, Any], values: list[Any]) -> None:
    assert axis_values("k", spec, "here") == values


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"range": [0]}, "range takes"),
        ({"range": [0, 1.5]}, "range takes"),
        ({"range": [0, 3, 0]}, "a step other than 0"),
        ({"logspace": [0, 1, 3]}, "above 0"),
        ({"linspace": [0, 1, 0]}, "count an integer >= 1"),
        ([], "an axis without values"),
        ({"range": [3, 0]}, "an axis without values"),
        (3, "is a list of values"),
    ],
)
def test_a_bad_axis_is_an_error_naming_the_key_and_where(spec: Any, message: str) -> None:
    with pytest.raises(ComposeError, match=message) as caught:
        axis_values("trainer.optim.lr", spec, "sweep.toml:3")
    assert caught.value.key == "trainer.optim.lr"
    assert caught.value.origin == "sweep.toml:3"


def test_an_empty_sweep_is_an_error() -> None:
    with pytest.raises(ComposeError, match="no points"):
        _points({})


def test_a_key_swept_twice_in_one_point_is_an_error() -> None:
    with pytest.raises(ComposeError, match="swept twice"):
        _points({"axes": {"a": [1]}, "zip": [{"a": [2], "b": [3]}]})


def test_a_misspelled_part_of_a_block_gets_a_did_you_mean() -> None:
    with pytest.raises(ComposeError, match="did you mean axes"):
        _points({"axis": {"a": [1]}})


@pytest.mark.parametrize(
    ("value", "tokens"),
    [
        (1e-4, ["--lr=0.0001"]),
        (3, ["--lr=3"]),
        (True, ["--lr=true"]),
        ("muon", ["--lr=muon"]),
        ("-1", ["--lr=-1"]),
        ([1, 2], ["--lr=[1, 2]"]),
        ("@optim/muon", ["--lr", "@", "optim/muon"]),
    ],
)
def test_a_value_becomes_the_flag_that_gives_it_back(value: Any, tokens: list[str]) -> None:
    assert override("lr", value) == tokens


def test_text_from_the_command_line_is_kept_as_typed() -> None:
    assert cli_text("1e-4") == "1e-4"
