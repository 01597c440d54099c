"""The sweep grammar: products, zips, blocks, seeds, ranges and axes under one value of
another expand to the points a user wrote, in order; malformed definitions are one clear
error naming the key and where it was written. A definition's count is known before any
point is made, and one past the limit is refused at once; spaced values have exact ends and
no float noise."""

from __future__ import annotations

import math
import re
from typing import Any

import pytest

from compose import ComposeError
from compose._runs.define import MAX_POINTS, axis_values, cli_text, define, expand, override


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


# --- the count, known before any point is made -----------------------------------------------


@pytest.mark.parametrize(
    ("block", "count"),
    [
        ({"axes": {"a": [1, 2, 3], "b": {"range": [0, 10, 3]}}}, 12),
        ({"zip": [{"a": [1, 2], "b": {"linspace": [0, 1, 2]}}], "seeds": 5}, 10),
        ({"blocks": [{"axes": {"a": [1, 2]}}, {"seeds": 3}], "axes": {"b": [1, 2]}}, 10),
        ({"axes": {"o": {"x": {"lr": [1, 2, 3]}, "y": {}}}, "seeds": 2}, 8),
        ({"axes": {"a": {"range": [10, 0, -3]}}}, 4),
    ],
)
def test_the_count_of_a_definition_is_the_count_of_its_points(
    block: dict[str, Any], count: int
) -> None:
    assert define(block, lambda path: "s.toml").part.size == count == len(_points(block))


@pytest.mark.parametrize(
    ("spec", "shown"),
    [
        ({"range": [0, 1_000_000_000]}, "1,000,000,000"),
        ({"range": [0, 10**20]}, "100,000,000,000,000,000,000"),  # len(range) overflows
        ({"linspace": [0, 1, 1_000_000_000]}, "1,000,000,000"),
        ({"logspace": [1, 10, 10**12]}, "1,000,000,000,000"),
    ],
)
def test_a_generator_past_the_limit_is_refused_before_one_value_is_made(
    spec: dict[str, Any], shown: str
) -> None:
    with pytest.raises(ComposeError) as caught:
        expand({"axes": {"a": spec}}, lambda path: f"s.toml:{len(path)}")
    assert str(caught.value) == (
        f"s.toml:2: the sweep makes {shown} points, past the limit of {MAX_POINTS:,}: "
        f"a ({shown}); sweep fewer values, or split it into sweeps of at most "
        f"{MAX_POINTS:,} points (each its own --sweep-name)"
    )


def test_the_limit_names_every_axis_and_its_count_at_the_largest_axis() -> None:
    lines: dict[tuple[str | int, ...], str] = {
        ("axes", "a"): "s.toml:2",
        ("axes", "b"): "s.toml:3",
        ("seeds",): "s.toml:4",
    }
    block = {"axes": {"a": list(range(30)), "b": {"range": [0, 1000]}}, "seeds": 1000}
    with pytest.raises(ComposeError) as caught:
        expand(block, lambda path: lines.get(tuple(path), "s.toml"))
    assert caught.value.origin == "s.toml:3"
    assert caught.value.message.endswith(
        "30,000,000 points, past the limit of 10,000: a (30) x b (1,000) x seed (1,000)"
    )


def test_a_sweep_of_exactly_the_limit_is_made() -> None:
    assert len(_points({"axes": {"a": {"range": [0, MAX_POINTS]}}})) == MAX_POINTS


def test_a_part_without_points_makes_nothing_of_a_huge_part_beside_it() -> None:
    """An empty sub-block zeroes its product: the range beside it is never listed."""
    block = {
        "blocks": [
            {"axes": {"a": {"range": [0, 10**18]}}, "blocks": [{}]},
            {"axes": {"b": [1]}},
        ]
    }
    assert _points(block) == [{"b": 1}]


# --- linspace and logspace: checked bounds, exact ends, short values --------------------------


def test_linspace_values_between_the_ends_are_rounded_to_15_digits() -> None:
    assert axis_values("k", {"linspace": [1e-6, 1e-4, 10]}, "here") == [
        1e-06,
        1.2e-05,
        2.3e-05,
        3.4e-05,
        4.5e-05,
        5.6e-05,
        6.7e-05,
        7.8e-05,
        8.9e-05,
        0.0001,
    ]
    assert axis_values("k", {"linspace": [0, 1, 11]}, "here") == [i / 10 for i in range(11)]


def test_logspace_rounding() -> None:
    """Pinned: the values between the ends, 10 ** (a spaced exponent), to 15 significant
    digits (not 12, which shortened them; not 17, which kept the noise of the power)."""
    values = axis_values("k", {"logspace": [1e-6, 1e-4, 5]}, "here")
    assert values == [1e-06, 3.16227766016838e-06, 1e-05, 3.16227766016838e-05, 0.0001]
    assert [repr(v) for v in values] == [
        "1e-06",
        "3.16227766016838e-06",
        "1e-05",
        "3.16227766016838e-05",
        "0.0001",
    ]
    thirds = axis_values("k", {"logspace": [1, 1000, 4]}, "here")
    assert thirds == [1.0, 10.0, 100.0, 1000.0]


@pytest.mark.parametrize(
    ("spec", "values"),
    [
        ({"linspace": [-1e308, 1e308, 3]}, [-1e308, 0.0, 1e308]),  # high - low overflows
        ({"logspace": [1, 1.7976931348623157e308, 2]}, [1.0, 1.7976931348623157e308]),
        ({"linspace": [0.1, 0.7, 2]}, [0.1, 0.7]),  # the ends as written
    ],
)
def test_spaced_values_are_finite_and_their_ends_the_bounds(
    spec: dict[str, Any], values: list[float]
) -> None:
    made = axis_values("k", spec, "here")
    assert made == values
    assert all(math.isfinite(value) for value in made)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"linspace": [0, math.inf, 3]}, "linspace takes finite numbers for low and high"),
        ({"linspace": [math.nan, 1, 3]}, "linspace takes finite numbers for low and high"),
        ({"logspace": [1e-5, math.inf, 3]}, "logspace takes finite numbers for low and high"),
        ({"linspace": [0, 10**400, 2]}, "linspace takes finite numbers for low and high"),
        ({"linspace": [1, 1, 3]}, "linspace takes a low and a high that differ"),
        ({"logspace": [-1, 1, 3]}, "logspace takes low and high above 0"),
        ({"linspace": [1, 1.0000000000000002, 3]}, "a value twice once rounded to 15"),
        ({"linspace": [0, 1, True]}, "count an integer >= 1"),
    ],
)
def test_a_bad_bound_or_step_is_an_error_not_a_nan_point(
    spec: dict[str, Any], message: str
) -> None:
    with pytest.raises(ComposeError, match=re.escape(message)) as caught:
        axis_values("trainer.optim.lr", spec, "sweep.toml:3")
    assert (caught.value.key, caught.value.origin) == ("trainer.optim.lr", "sweep.toml:3")


# --- the shape of a block ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("block", "message", "where"),
    [
        ({"zip": 5}, "zip is a list of tables ([[zip]]), each of paired axes", ("zip",)),
        ({"zip": {"a": [1]}}, "zip is a list of tables", ("zip",)),
        ({"zip": [5]}, "a zip is a table of two or more axes", ("zip", 0)),
        ({"blocks": 5}, "blocks is a list of tables", ("blocks",)),
        ({"blocks": [5]}, "a sweep block is a table", ("blocks", 0)),
        ({"axes": 5}, "axes is a table of KEY = values", ("axes",)),
        ({"seeds": "3"}, "seeds takes a count of 1 or more", ("seeds",)),
        (
            {"axes": {"o": {"muon": [1]}}},
            "under the value 'muon', a table of the axes that exist only there ({} for none)",
            ("axes", "o", "muon"),
        ),
    ],
)
def test_a_part_of_the_wrong_shape_is_an_error_where_it_was_written(
    block: dict[str, Any], message: str, where: tuple[str | int, ...]
) -> None:
    with pytest.raises(ComposeError, match=re.escape(message)) as caught:
        expand(block, lambda path: "s.toml:" + ".".join(map(str, path)))
    assert caught.value.origin == "s.toml:" + ".".join(map(str, where))
