"""`to_argv(config, base)`: the flags that, after `base`, compose `config` again.

The law, property-tested: `parse(schema, base + to_argv(config, base)) == config`, for generated
schemas (every shape a schema can hold), for the rl example's schema over its example files,
and without a schema. Then what a user reads: the spelling of each kind of value, only the
flags needed (a value a validator derives is not written), secrets never written, and one
clear error for what no flag can give.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from conftest import SHARING_TMP_PATH, examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel, Field, SecretStr
from rl_app.cli import CONF
from rl_app.config import RLConfig
from strategies import documents, rich_schemas, schemas, texts

from compose import BaseConfig, ComposeError, ComposeWarning, compose, parse, to_argv, to_toml
from compose._api import parse_plain  # schema-less argv: no public function takes one
from compose.errors import ArgvError, OutputError

ROUND_TRIPS = settings(max_examples=examples(60), suppress_health_check=SHARING_TMP_PATH)
# Compositions again switch union variants, dropping keys with a warning each
pytestmark = pytest.mark.filterwarnings("ignore::compose.ComposeWarning")
REVERSE_TEXT = ["@", "examples/reverse_text/rl.toml"]
_names = itertools.count()


def written(directory: Path, value: BaseModel | dict[str, Any]) -> list[str]:
    """`value` as a TOML file; the base command line that loads it."""
    path = directory / f"base{next(_names)}.toml"
    path.write_text(to_toml(value), encoding="utf-8")
    return ["@", str(path)]


@contextmanager
def writable() -> Iterator[None]:
    """Drawn configs that hold text starting with `@` (a file node on the command line) are
    not the property's: no flag gives such a value, and `to_argv` says so (tested below)."""
    try:
        yield
    except OutputError as error:
        if "a value starting with @ is read as a file" in str(error):
            assume(False)
        raise


def rl(argv: list[str]) -> RLConfig:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # union switches drop keys, with a warning each
        return parse(RLConfig, argv, search_path=[CONF])


def rl_argv(config: RLConfig, base: list[str]) -> list[str]:
    return to_argv(config, base, search_path=[CONF])


# --- the law -----------------------------------------------------------------------------------


@st.composite
def two_instances(draw: st.DrawFn, schema_strategy: Any) -> tuple[type[BaseModel], Any, Any]:
    schema, values = draw(schema_strategy)
    return schema, draw(values), draw(values)


@ROUND_TRIPS
@given(two_instances(schemas()) | two_instances(rich_schemas()))
def test_round_trip_on_generated_schemas(tmp_path: Path, drawn: tuple[Any, Any, Any]) -> None:
    schema, before, after = drawn
    base = written(tmp_path, before)
    with writable():
        flags = to_argv(after, base)
    assert parse(schema, [*base, *flags]) == after
    if before == after:
        assert flags == []


# Values the rl example's flags take (valid ones: the property is about the argv, not errors).
RL_FLAGS: dict[str, st.SearchStrategy[str]] = {
    "--max-steps": st.integers(1, 10**6).map(str),
    "--seq-len": st.sampled_from(["512", "2048", "4096"]),
    "--trainer.optim.lr": st.floats(1e-9, 1.0).map(repr),
    "--trainer.optim.type": st.sampled_from(["adamw", "muon"]),
    "--orchestrator.algo.type": st.sampled_from(["grpo", "max_rl", "echo", "opsd"]),
    "--orchestrator.algo.roles.user.alpha": st.sampled_from(["0.5", "2.0"]),
    "--orchestrator.algo.template": texts.filter(lambda t: not t.startswith("@")).map(
        lambda t: t.replace("${", "\\${")
    ),
    "--orchestrator.sampling.temperature": st.floats(0, 2).map(repr),
    "--orchestrator.sampling.max-tokens": st.sampled_from(["None", "64", "1024"]),
    "--orchestrator.env": st.sampled_from(['[{"id": "a b"}]', '[{"id": "x", "args": {"k": 1}}]']),
    "--orchestrator.eval.interval": st.integers(1, 50).map(str),
    "--model.name": st.sampled_from(["m", "org/model with space", "3", "None"]),
    "--wandb.name": st.sampled_from(["run", "None"]),
    "--wandb.offline": st.sampled_from(["true", "false"]),
    "--inference": st.sampled_from(["None"]),
    "--inference.vllm-extra": st.sampled_from(['{"a": 1}', '{"x y": "3", "b": [1, 2]}']),
    "--ckpt.interval": st.integers(1, 100).map(str),
    "--dry-run": st.sampled_from(["true", "false"]),
    "--output-dir": st.sampled_from(["runs/a", "out dir/x"]),
}
RL_BASES = [
    REVERSE_TEXT,
    ["@", "examples/math_opd/rl.toml"],
    [*REVERSE_TEXT, "--trainer.optim", "@", "optim/muon"],
    [*REVERSE_TEXT, "--orchestrator.sampling.temperature", "0.5"],
]


# Not in a base: flags that no later flag can undo (`~KEY` deletes what files set). They set
# dict keys the other config may lack, or a key of one variant, unknown once another is chosen.
ADDING_KEYS = {
    "--inference.vllm-extra",
    "--orchestrator.algo.roles.user.alpha",
    "--orchestrator.algo.template",
}


@st.composite
def rl_flags(draw: st.DrawFn, in_base: bool = False) -> list[str]:
    names = sorted(set(RL_FLAGS) - ADDING_KEYS) if in_base else sorted(RL_FLAGS)
    keys = draw(st.lists(st.sampled_from(names), max_size=5, unique=True))
    return [f"{key}={draw(RL_FLAGS[key])}" for key in keys]


@settings(ROUND_TRIPS, max_examples=examples(40))
@given(st.sampled_from(RL_BASES), rl_flags(in_base=True), rl_flags())
def test_round_trip_on_the_rl_example(base: list[str], left: list[str], right: list[str]) -> None:
    try:
        before, after = rl([*base, *left]), rl([*base, *right])
    except ComposeError:
        assume(False)  # a combination the app's validators refuse
        return
    flags = rl_argv(after, [*base, *left])
    assert rl([*base, *left, *flags]) == after
    assert rl_argv(after, [*base, *right]) == []
    assert (flags == []) == (before == after)


@ROUND_TRIPS
@given(documents(mandatory=False), documents(mandatory=False))
def test_round_trip_without_a_schema(
    tmp_path: Path, before: dict[str, Any], after: dict[str, Any]
) -> None:
    base, other = written(tmp_path, before), written(tmp_path, after)
    try:
        compose([base[1]])
        config = compose([other[1]])
    except ComposeError:
        assume(False)  # documents that no composition gives (a None where a table goes...)
        return
    try:
        flags = to_argv(config, base)
    except OutputError as error:  # a top-level key no flag spells ("a.b", "", "a-b")
        assert error.message.endswith("no flag spells this key")
        return
    assert _schemaless([*base, *flags]) == config


def _schemaless(argv: list[str]) -> dict[str, Any]:
    """What `compose show --resolved` composes of an argv: `compose(files)`'s dict."""
    return parse_plain(argv)


# --- what a user reads -------------------------------------------------------------------------


def test_a_float_is_its_repr_and_a_derived_value_is_not_written() -> None:
    config = rl([*REVERSE_TEXT, "--trainer.optim.lr", "1e-5", "--max-steps", "30"])
    # trainer.max_steps and orchestrator.max_steps differ too: the app copies max_steps there
    assert rl_argv(config, REVERSE_TEXT) == ["--trainer.optim.lr=1e-05", "--max-steps=30"]
    full = to_argv(config, REVERSE_TEXT, search_path=[CONF], minimal=False)
    assert "--trainer.max-steps=30" in full
    assert rl([*REVERSE_TEXT, *full]) == config


def test_none_booleans_and_optional_sections() -> None:
    config = rl([*REVERSE_TEXT, "--dry-run", "--no-inference", "--ckpt", "--wandb.name", "None"])
    assert rl_argv(config, REVERSE_TEXT) == [
        "--inference=None",
        "--wandb.name=None",
        "--ckpt",  # bare flags last: a token after one would be its value
        "--dry-run",
    ]
    back = rl([*REVERSE_TEXT, "--dry-run"])
    assert rl_argv(back, [*REVERSE_TEXT, "--dry-run", "--clean"]) == ["--no-clean"]


def test_a_union_switch_writes_the_tag_and_what_differs_from_the_new_variant() -> None:
    config = rl([*REVERSE_TEXT, "--orchestrator.algo.type", "echo"])
    assert rl_argv(config, REVERSE_TEXT) == ["--orchestrator.algo.type=echo"]
    roles = rl([*REVERSE_TEXT, "--orchestrator.algo.type=echo", "--orchestrator.algo.roles.user"])
    assert rl_argv(roles, REVERSE_TEXT) == [
        "--orchestrator.algo.type=echo",
        "--orchestrator.algo.roles.user.alpha=0.1",
    ]
    assert rl_argv(rl(REVERSE_TEXT), [*REVERSE_TEXT, "--orchestrator.algo.type=echo"]) == [
        "--orchestrator.algo.type=grpo"
    ]


def test_a_list_is_one_flag_with_the_whole_list() -> None:
    config = rl([*REVERSE_TEXT, "--orchestrator.client.base-url", "http://a:8000/v1", "http://b"])
    assert rl_argv(config, REVERSE_TEXT) == [
        '--orchestrator.client.base-url=["http://a:8000/v1", "http://b"]'
    ]
    envs = rl([*REVERSE_TEXT, "--orchestrator.env", '[{"id": "a"}, {"id": "b", "weight": 2}]'])
    # elements without the fields at their defaults
    assert rl_argv(envs, REVERSE_TEXT) == [
        '--orchestrator.env=[{"id": "a"}, {"id": "b", "weight": 2.0}]'
    ]


class Tricky(BaseConfig):
    name: str = "x"
    maybe: str | None = None
    extra: dict[str, Any] = {}
    labels: dict[str, str] = {}
    tags: list[str] = []
    key: SecretStr = SecretStr("")


@pytest.mark.parametrize(
    ("value", "flag"),
    [
        ("3", "--name=3"),
        ("true", "--name=true"),
        ("a b 'c' \"d\"", "--name=a b 'c' \"d\""),
        ("-x", "--name=-x"),
        ("~/data", "--name=~/data"),
        ("${x}", "--name=\\${x}"),
        ("???", "--name=\\???"),
        ("", "--name="),
        ("None", "--name=None"),  # a plain str keeps the text
    ],
)
def test_text_round_trips_as_the_field_types_it(value: str, flag: str) -> None:
    config = Tricky(name=value)
    assert to_argv(config, []) == [flag]
    assert parse(Tricky, [flag]) == config


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        ({"k": "3"}, '--extra.k="3"'),  # untyped: the text, not the number
        ({"k": 3}, "--extra.k=3"),
        ({"k": [1, "a"]}, '--extra.k=[1, "a"]'),
        ({"k": "{"}, '--extra.k="{"'),
        ({"k": None}, "--extra.k=None"),
        ({"a.b": 1}, '--extra={"a.b": 1}'),  # a key no flag segment spells: the dict whole
    ],
)
def test_untyped_values_are_written_as_the_flag_path_reads_them(
    extra: dict[str, Any], flag: str
) -> None:
    config = Tricky(extra=extra)
    assert to_argv(config, []) == [flag]
    assert parse(Tricky, [flag]) == config


def test_keys_removed_from_what_the_base_set_are_deleted(tmp_path: Path) -> None:
    base = written(tmp_path, Tricky(labels={"a": "1", "b": "2"}, tags=["x"]))
    config = Tricky(labels={"a": "1"}, tags=[])
    flags = to_argv(config, base)
    assert flags == ["~labels", "--labels.a=1", "--tags=[]"]
    assert parse(Tricky, [*base, *flags]) == config
    assert to_argv({"b": 1}, written(tmp_path, {"a": 1, "b": 1})) == ["~a"]
    # after a base whose last flag takes every token up to the next flag, no `~key` first
    open_ended = [*base, "--tags", "x", "y"]
    config = Tricky(labels={}, tags=["x", "y"])
    assert to_argv(config, open_ended) == ["--labels={}", "~labels"]
    assert parse(Tricky, [*open_ended, "--labels={}", "~labels"]) == config


def test_a_secret_is_never_written(tmp_path: Path) -> None:
    config = Tricky(key=SecretStr("sk-live"), name="y")
    with pytest.warns(ComposeWarning, match=r"--key is a secret: the argv holds \*{10}"):
        flags = to_argv(config, [])
    assert flags == ["--name=y", "--key=**********"]
    assert "sk-live" not in " ".join(flags)


class Login(BaseConfig):
    user: str = "u"
    token: SecretStr = SecretStr("")


class Vault(BaseConfig):
    logins: list[Login] = []
    tokens: dict[str, SecretStr] = {}


def test_a_secret_inside_a_list_or_a_dict_written_whole_is_never_written(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A list is written whole, and so is a dict that lost keys: a secret inside is masked
    (with the warning), one read from the environment written as its reference."""
    monkeypatch.setenv("ARGV_TEST_TOKEN", "sk-env")
    config = parse(
        Vault,
        [
            "--logins",
            '[{"user": "a", "token": "sk-list"}, {"token": "${oc.env:ARGV_TEST_TOKEN}"}]',
            "--tokens.b",
            "sk-dict",
        ],
    )
    with pytest.warns(ComposeWarning, match=r"the argv holds \*{10}"):
        flags = to_argv(config, [])
    assert not any("sk-" in flag for flag in flags), flags
    assert flags == [
        '--logins=[{"user": "a", "token": "**********"}, {"token": "${oc.env:ARGV_TEST_TOKEN}"}]',
        "--tokens.b=**********",
    ]
    dotted = parse(Vault, ["--tokens", '{"a.b": "sk-dot"}'])  # no flag spells the key: whole
    with pytest.warns(ComposeWarning, match=r"--tokens is a secret"):
        assert to_argv(dotted, []) == ['--tokens={"a.b": "**********"}']


class NotANumber(BaseConfig):
    clip: float = float("nan")  # a sentinel some apps use
    weights: list[float] = []
    name: str = "x"


def test_a_nan_is_the_same_nan_not_a_difference_for_ever() -> None:
    """NaN never equals itself: compared as configs are, it is no difference (it made every
    to_argv of such a config fail, and `diff --as-argv` with it, whatever else changed)."""
    assert to_argv(NotANumber(name="y"), []) == ["--name=y"]
    config = parse(NotANumber, ["--weights", "[1.0, NaN]", "--clip", "0.5"])
    flags = to_argv(config, [])
    assert flags == ["--clip=0.5", "--weights=[1.0, NaN]"]
    again = parse(NotANumber, flags)
    assert again.clip == 0.5 and again.weights[0] == 1.0 and again.weights[1] != again.weights[1]
    assert to_argv(NotANumber(), []) == []


def test_a_secret_read_from_the_environment_is_written_as_its_reference(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ARGV_TEST_KEY", "sk-env")
    config = parse(Tricky, ["--key=${oc.env:ARGV_TEST_KEY}"])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the reference is no secret
        assert to_argv(config, []) == ["--key=${oc.env:ARGV_TEST_KEY}"]


def test_a_value_no_flag_can_give_is_one_error_naming_its_key() -> None:
    with pytest.raises(OutputError) as caught:
        to_argv(Tricky(name="@file"), [])
    assert caught.value.key == "--name"
    assert "a value starting with @ is read as a file" in str(caught.value)
    with pytest.raises(ComposeError) as stays:  # a key a flag of the base set stays
        to_argv(Tricky(), ["--labels.a", "1"])
    assert [error.key for error in stays.value.errors] == ["--labels", "--labels"]
    assert "~KEY deletes what files set, not what the base's flags set" in str(stays.value)


def test_untyped_text_starting_with_at_is_written_quoted_and_comes_back_as_text() -> None:
    # In an untyped value (`dict[str, Any]`) the flag's text is read as TOML, so the text
    # `@w.bin` is written as the TOML string "@w.bin": bare, it would be read as a file
    config = parse(Tricky, ["--extra", '{"path": "@w.bin", "n": "@"}'])
    flags = to_argv(config, [])
    assert flags == ['--extra.path="@w.bin"', '--extra.n="@"']
    assert parse(Tricky, flags) == config


def test_a_config_of_another_schema_or_a_failing_base_is_one_error() -> None:
    with pytest.raises(ArgvError, match="config is a Tricky, but the base composes a RLConfig"):
        to_argv(Tricky(), REVERSE_TEXT, schema=RLConfig)
    with pytest.raises(ArgvError, match="config is a plain dict"):
        to_argv({"a": 1}, [], schema=Tricky)
    with pytest.raises(ComposeError, match="unknown key"):  # the base's own error
        to_argv(Tricky(), ["--nme", "x"])
    with pytest.raises(ComposeError, match=r"missing\.toml"):
        to_argv(Tricky(), ["@", "missing.toml"])


class Marked(BaseConfig):
    ref: str = "${missing}"  # a default the composition resolves: it refers to no key
    must: str = "???"  # a default the composition leaves as it is: it is no node's value
    n: int = 0


class Holder(BaseConfig):
    items: list[Marked] = []


def test_a_list_element_keeps_a_field_whose_default_would_be_resolved() -> None:
    """An element is written without the fields at their class defaults, but a default holding
    `${` is resolved when the element is composed again (here it fails): a value equal to it
    is written, escaped, as the literal text it is."""
    want = Holder(items=[Marked(n=1), Marked(ref="a", must="b")])
    flags = to_argv(want, [])
    assert parse(Holder, flags) == want
    assert flags == ['--items=[{"ref": "\\\\${missing}", "n": 1}, {"ref": "a", "must": "b"}]']


class _Inner(BaseConfig):
    inf: int = 0
    a: int = 0


class _SectionVariant(BaseConfig):
    type: Literal["section"] = "section"
    x: _Inner = _Inner()


class _DictVariant(BaseConfig):
    type: Literal["dict"] = "dict"
    x: dict[str, _Inner] = {}


class _Switch(BaseConfig):
    u: Annotated[_SectionVariant | _DictVariant, Field(discriminator="type")] = _SectionVariant()


@pytest.mark.parametrize(
    ("after", "flags"),
    [
        (_DictVariant(), ["~u.x", "--u.type=dict"]),
        (_DictVariant(x={"k": _Inner(a=2)}), ["~u.x", "--u.type=dict", "--u.x.k.a=2"]),
    ],
    ids=["emptied", "another table"],
)
def test_a_switch_deletes_a_table_the_old_variant_held_under_a_shared_name(
    tmp_path: Path, after: _DictVariant, flags: list[str]
) -> None:
    """The base's variant held a section at `x`, the wanted one a dict of sections there: a
    switch keeps `x`'s table, and flags would merge into it, so it is deleted first (the
    config could not be written as flags at all)."""
    base = written(tmp_path, _Switch(u=_SectionVariant(x=_Inner(inf=1))))
    want = _Switch(u=after)
    assert to_argv(want, base) == flags
    assert parse(_Switch, [*base, *flags]) == want
