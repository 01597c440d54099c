"""`to_argv`'s last pass, which drops the flags the result does not need: the same flags as
asking flag by flag, for a number of compositions that grows with log N, not N.

Asked flag by flag (a composition of all the flags for each flag), 2,000 differing keys took
29 s. The screening (`compose._output.argv`) is held to that one-by-one pass as an oracle, on
generated schemas, on the rl example over its files and on schemas built to need it (values a
validator derives, a switched union section, values that give each other), and its cost is
pinned by counting the compositions it runs (no clock): about 2 log2(N) for N flags.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from conftest import SHARING_TMP_PATH, examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import Field, SecretStr, create_model, model_validator
from rl_app.cli import CONF
from strategies import rich_schemas, schemas
from test_to_argv import REVERSE_TEXT, RL_BASES, rl, rl_flags, writable, written

import compose._output.argv as argv_module
from compose import BaseConfig, ComposeError, parse, to_argv

pytestmark = pytest.mark.filterwarnings("ignore::compose.ComposeWarning")
SAME = settings(max_examples=examples(40), suppress_health_check=SHARING_TMP_PATH)


@contextmanager
def screening(start: int) -> Iterator[None]:
    """The pass screens from `start` flags (2: always; a huge number: never, flag by flag)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(argv_module, "_SCREEN_FROM", start)
        yield


def both_ways(config: Any, base: list[str], **options: Any) -> tuple[list[str], list[str]]:
    """`to_argv` with the screening, and asked flag by flag."""
    with screening(2):
        screened = to_argv(config, base, **options)
    with screening(10**9):
        one_by_one = to_argv(config, base, **options)
    return screened, one_by_one


class Counted:
    """The compositions `to_argv` runs (its rounds and its pass), and the flags they hold."""

    def __init__(self, patch: pytest.MonkeyPatch) -> None:
        self.compositions = 0
        self.flags = 0
        attempt = argv_module._Trials.attempt

        def counted(trials: Any, overrides: list[Any]) -> Any:
            self.compositions += 1
            self.flags += len(overrides)
            return attempt(trials, overrides)

        patch.setattr(argv_module._Trials, "attempt", counted)


# --- the same flags as flag by flag -------------------------------------------------------------


@SAME
@given(st.data())
def test_the_same_flags_on_generated_schemas(tmp_path: Path, data: st.DataObject) -> None:
    schema, values = data.draw(schemas() | rich_schemas())
    before, after = data.draw(values), data.draw(values)
    base = written(tmp_path, before)
    with writable():
        screened, one_by_one = both_ways(after, base)
    assert screened == one_by_one
    assert parse(schema, [*base, *screened]) == after


@SAME
@given(st.sampled_from(RL_BASES), rl_flags(in_base=True), rl_flags())
def test_the_same_flags_on_the_rl_example(
    base: list[str], left: list[str], right: list[str]
) -> None:
    try:
        after = rl([*base, *right])
        rl([*base, *left])
    except ComposeError:
        assume(False)  # a combination the app's validators refuse
        return
    screened, one_by_one = both_ways(after, [*base, *left], search_path=[CONF])
    assert screened == one_by_one


def test_values_the_app_derives_are_left_out_as_flag_by_flag() -> None:
    """The rl app copies max_steps and seq_len into its components; a switched optimizer
    writes every field of the new variant: the pass keeps the same few flags."""
    config = rl(
        [
            *REVERSE_TEXT,
            "--max-steps=77",
            "--seq-len=4096",
            "--trainer.optim.type=muon",
            "--trainer.optim.lr=0.5",
            "--ckpt.interval=3",
        ]
    )
    screened, one_by_one = both_ways(config, REVERSE_TEXT, search_path=[CONF])
    assert screened == one_by_one
    assert "--max-steps=77" in screened
    assert not any(flag.startswith("--trainer.max-steps") for flag in screened)


class Shares(BaseConfig):
    """Each field `c0`...: when no node sets it, `seed` (a before-validator copies it)."""

    seed: int = 0

    @model_validator(mode="before")
    @classmethod
    def _share(cls, data: Any) -> Any:
        if isinstance(data, dict):
            data = dict(data)
            for name in cls.model_fields:
                if name.startswith("c") and data.get(name) is None:
                    data[name] = data.get("seed", 0)
        return data


def shared(size: int) -> type[BaseConfig]:
    fields: dict[str, Any] = {f"c{index}": (int | None, None) for index in range(size)}
    schema: type[BaseConfig] = create_model("Shared", __base__=Shares, **fields)
    return schema


def test_derived_values_and_values_that_give_each_other() -> None:
    schema = shared(40)
    # odd keys equal seed (derived: they go), even keys their own value (they stay)
    config = parse(schema, ["--seed=7", *(f"--c{i}={7 if i % 2 else i}" for i in range(40))])
    screened, one_by_one = both_ways(config, [])
    assert screened == one_by_one
    assert sorted(screened) == sorted(
        ["--seed=7", *(f"--c{i}={i}" for i in range(40) if i % 2 == 0)]
    )

    class Pair(BaseConfig):  # each, unset, is the other: the first asked goes, not both
        x: int | None = None
        y: int | None = None
        rest: dict[str, int] = {}

        @model_validator(mode="before")
        @classmethod
        def _pair(cls, data: Any) -> Any:
            if isinstance(data, dict) and data.get("x") is None:
                data = {**data, "x": data.get("y", 0)}
            if isinstance(data, dict) and data.get("y") is None:
                data = {**data, "y": data.get("x", 0)}
            return data

    pair = Pair(x=5, y=5, rest={f"k{i}": i for i in range(30)})
    screened, one_by_one = both_ways(pair, [])
    assert screened == one_by_one
    assert len([flag for flag in screened if flag.startswith(("--x=", "--y="))]) == 1


class First(BaseConfig):
    type: Literal["a"] = "a"
    x: int = 0


class Second(BaseConfig):
    type: Literal["b"] = "b"
    need: int


def union(size: int) -> type[BaseConfig]:
    """A section of two variants; `b` has `size` more fields with defaults, and a required one."""
    fields: dict[str, Any] = {f"f{index}": (int, 0) for index in range(size)}
    second: Any = create_model("Wider", __base__=Second, **fields)
    definitions: dict[str, Any] = {
        "opt": (Annotated[First | second, Field(discriminator="type")], First()),
        "key": (SecretStr, SecretStr("")),
        "labels": (dict[str, str], {}),
    }
    schema: type[BaseConfig] = create_model("Switched", __base__=BaseConfig, **definitions)
    return schema


def test_a_switched_union_section_a_secret_and_deleted_keys(tmp_path: Path) -> None:
    schema = union(40)
    base = written(tmp_path, parse(schema, ["--labels", '{"gone": "1", "kept": "2"}']))
    config = parse(
        schema,
        ["--opt.type=b", "--opt.need=1", "--opt.f3=5", "--key=sk-x", '--labels={"kept": "2"}'],
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the secret is masked, with a warning
        screened, one_by_one = both_ways(config, base)
    assert screened == one_by_one
    assert sorted(screened) == [
        "--key=**********",
        "--labels.kept=2",
        "--opt.f3=5",
        "--opt.need=1",
        "--opt.type=b",
        "~labels",
    ]


# --- what it costs: compositions, counted ------------------------------------------------------


def wide(size: int) -> type[BaseConfig]:
    fields: dict[str, Any] = {f"f{index}": (int, 0) for index in range(size)}
    schema: type[BaseConfig] = create_model("Wide", __base__=BaseConfig, **fields)
    return schema


@pytest.mark.parametrize("size", [64, 256, 1024])
def test_flags_all_needed_cost_about_two_log2_n_compositions(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every flag needed: one composition for the round, two per bit of a flag's rank. The
    pass asked flag by flag ran N + 1, each of N flags."""
    config = wide(size)(**{f"f{index}": index + 1 for index in range(size)})
    counted = Counted(monkeypatch)
    flags = to_argv(config, [])
    assert len(flags) == size
    bound = 2 * math.ceil(math.log2(size)) + 1
    assert counted.compositions <= bound
    assert counted.flags <= bound * size  # each composition holds at most N flags: N log N


@pytest.mark.parametrize("size", [64, 256, 1024])
def test_derived_flags_cost_a_few_log2_n_compositions(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Half the flags derived from another: shown free together, they go together."""
    config = parse(
        shared(size), ["--seed=7", *(f"--c{i}={7 if i % 2 else i}" for i in range(size))]
    )
    counted = Counted(monkeypatch)
    assert len(to_argv(config, [])) == size // 2 + 1
    bound = 5 * math.ceil(math.log2(size)) + 5
    assert counted.compositions <= bound
    assert counted.flags <= bound * (size + 1)


@pytest.mark.parametrize("size", [64, 256, 1024])
def test_a_switched_section_costs_a_few_log2_n_compositions(
    size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A union section switched to a variant of N fields, all at their defaults but one and a
    required one (a part that leaves it out is refused, and halved)."""
    config = parse(union(size), ["--opt.type=b", "--opt.need=1", "--opt.f3=5"])
    counted = Counted(monkeypatch)
    assert to_argv(config, []) == ["--opt.type=b", "--opt.need=1", "--opt.f3=5"]
    bound = 8 * math.ceil(math.log2(size)) + 10
    assert counted.compositions <= bound
    assert counted.flags <= bound * (size + 2)


def test_the_count_grows_with_log_n_not_n(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sixteen times the flags, a few more compositions."""
    counts = []
    for size in (64, 1024):
        counted = Counted(monkeypatch)
        to_argv(wide(size)(**{f"f{index}": 1 for index in range(size)}), [])
        counts.append(counted.compositions)
    assert counts[1] - counts[0] <= 2 * 4  # two per bit: 1024 = 64 * 2**4


def test_few_flags_are_asked_one_by_one(monkeypatch: pytest.MonkeyPatch) -> None:
    """Under `_SCREEN_FROM` flags the screening would cost more than it spares."""
    size = argv_module._SCREEN_FROM - 1
    counted = Counted(monkeypatch)
    to_argv(wide(size)(**{f"f{index}": 1 for index in range(size)}), [])
    assert counted.compositions == size + 1


class _A(BaseConfig):
    type: Literal["a"] = "a"
    tags: dict[str, int] = {"k": 1}


class _B(BaseConfig):
    type: Literal["b"] = "b"
    tags: dict[str, int] = {"k": 2}


class _Switched(BaseConfig):
    u: Annotated[_A | _B, Field(discriminator="type")] = _A()


def test_a_switch_keeps_a_table_of_the_same_kind_as_flag_by_flag(tmp_path: Path) -> None:
    """Both variants hold a dict under one name: the switch keeps the file's, which flags
    merge into, so no deletion is written (one made a flag needed only beside it, and the
    screening and the pass flag by flag kept different flags)."""
    base = written(tmp_path, _Switched(u=_A(tags={})))
    screened, one_by_one = both_ways(_Switched(u=_B(tags={})), base)
    assert screened == one_by_one == ["--u.type=b"]
