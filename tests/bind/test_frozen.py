"""Frozen results (issue 23): `frozen=True`, or a schema declaring `frozen=True`, gives a
result that no assignment, deletion or mutation changes, at any depth; each attempt is one
`FrozenError` naming the full dotted path. A frozen result reads, dumps, compares and copies as
the same result unfrozen, and nothing the caller still holds is frozen behind their back."""

from __future__ import annotations

import copy
import dataclasses
import functools
import pickle
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from conftest import examples
from hypothesis import given, settings
from pydantic import BaseModel, ConfigDict, PrivateAttr, field_validator
from schemas import AdamWConfig, EnvConfig, RLConfig
from strategies import rich_instances

from compose import BaseConfig, ComposeError, FrozenError, cli, compose, parse, to_toml
from compose._schema.frozen import freeze

LEAN = settings(max_examples=examples(60))
ARGV = ["--trainer.optim.lr", "0.5", "--orchestrator.env.0.args", '{"n": [1, 2]}']


@pytest.fixture
def frozen() -> RLConfig:
    return parse(RLConfig, ARGV, frozen=True)


def _betas(config: RLConfig) -> list[float]:
    optim = config.trainer.optim
    assert isinstance(optim, AdamWConfig)
    return optim.betas


def _refused(change: Callable[[], object]) -> FrozenError:
    with pytest.raises(FrozenError) as caught:
        change()
    return caught.value


def test_a_nested_assignment_names_the_full_dotted_field(frozen: RLConfig) -> None:
    error = _refused(lambda: setattr(frozen.trainer.optim, "lr", 1))
    assert str(error) == (
        "trainer.optim.lr = 1: cannot assign: the config is frozen; make a changed copy with "
        "model_copy(update={...}), or compose again with the change"
    )
    assert (error.key, error.value, error.origin) == ("trainer.optim.lr", 1, None)
    assert frozen.trainer.optim.lr == 0.5


def test_deletion_and_setattr_are_refused_at_every_depth(frozen: RLConfig) -> None:
    def delete_seed() -> None:
        del frozen.trainer.model.name

    assert str(_refused(delete_seed)).startswith("trainer.model.name: cannot delete:")
    assert _refused(lambda: setattr(frozen, "trainer", None)).key == "trainer"
    assert _refused(lambda: setattr(frozen.orchestrator.env[0], "id", "x")).key == (
        "orchestrator.env.0.id"
    )
    assert frozen.trainer.model.name == "Qwen/Qwen3-0.6B"


@pytest.mark.parametrize(
    ("change", "key", "what"),
    [
        (lambda c: c.orchestrator.env.append(EnvConfig()), "orchestrator.env", "call append()"),
        (lambda c: c.orchestrator.env.__setitem__(0, None), "orchestrator.env.0", "assign"),
        (lambda c: c.orchestrator.env.__iadd__([]), "orchestrator.env", "use +="),
        (lambda c: c.trainer.optim.betas.sort(), "trainer.optim.betas", "call sort()"),
        (lambda c: c.trainer.optim.betas.pop(), "trainer.optim.betas", "call pop()"),
        (lambda c: c.trainer.env_vars.__setitem__("A", "1"), "trainer.env_vars.A", "assign"),
        (lambda c: c.trainer.env_vars.update(A="1"), "trainer.env_vars", "call update()"),
        (
            lambda c: c.orchestrator.env[0].args["n"].clear(),
            "orchestrator.env.0.args.n",
            "call clear()",
        ),
        (
            lambda c: c.orchestrator.env[0].args.__delitem__("n"),
            "orchestrator.env.0.args.n",
            "delete",
        ),
    ],
)
def test_lists_and_dicts_inside_refuse_mutation(
    frozen: RLConfig, change: Callable[[RLConfig], object], key: str, what: str
) -> None:
    before = frozen.model_dump()
    error = _refused(lambda: change(frozen))
    assert error.key == key
    assert error.message == f"cannot {what}: the config is frozen"
    assert frozen.model_dump() == before


def test_it_reads_dumps_and_compares_as_the_same_result_unfrozen(frozen: RLConfig) -> None:
    plain = parse(RLConfig, ARGV)
    assert frozen == plain
    assert frozen.model_dump() == plain.model_dump()
    assert frozen.model_dump_json() == plain.model_dump_json()
    assert to_toml(frozen) == to_toml(plain)
    assert repr(frozen) == repr(plain)
    assert isinstance(_betas(frozen), list)
    assert _betas(frozen) == [0.9, 0.999]
    assert type(frozen) is RLConfig


def test_the_error_is_a_compose_error_and_what_frozen_dataclasses_raise(frozen: RLConfig) -> None:
    error = _refused(lambda: setattr(frozen, "seed", 3))
    assert isinstance(error, ComposeError)
    assert isinstance(error, dataclasses.FrozenInstanceError)
    assert isinstance(error, AttributeError)


def test_model_copy_with_update_gives_a_frozen_copy(frozen: RLConfig) -> None:
    optim = frozen.trainer.optim.model_copy(update={"lr": 0.25, "betas": [0.5, 0.6]})
    trainer = frozen.trainer.model_copy(update={"optim": optim})
    changed = frozen.model_copy(update={"trainer": trainer})
    assert changed.trainer.optim.lr == 0.25 and frozen.trainer.optim.lr == 0.5
    assert _refused(lambda: _betas(changed).append(1)).key == "trainer.optim.betas"
    assert _refused(lambda: setattr(changed.trainer.optim, "lr", 1)).key == "trainer.optim.lr"


@pytest.mark.parametrize(
    "duplicate",
    [copy.copy, copy.deepcopy, lambda value: pickle.loads(pickle.dumps(value))],
    ids=["copy", "deepcopy", "pickle"],
)
def test_copies_and_pickles_stay_frozen(
    frozen: RLConfig, duplicate: Callable[[RLConfig], RLConfig]
) -> None:
    again = duplicate(frozen)
    assert again == frozen
    assert _refused(lambda: _betas(again).append(1)).key == "trainer.optim.betas"
    assert _refused(lambda: setattr(again.trainer.optim, "lr", 1)).key == "trainer.optim.lr"


def test_plain_data_made_from_it_is_mutable(frozen: RLConfig) -> None:
    data = frozen.model_dump()
    data["trainer"]["optim"]["betas"].append(1.0)
    betas = list(_betas(frozen))
    betas.append(1.0)
    thawed = RLConfig.model_validate(frozen.model_dump())
    thawed.trainer.optim.lr = 1.0
    assert thawed.trainer.optim.lr == 1.0


def test_without_frozen_results_stay_mutable() -> None:
    config = parse(RLConfig, ARGV)
    config.trainer.optim.lr = 1.0
    _betas(config).append(1.0)
    del config.trainer.model.name
    assert config.trainer.optim.lr == 1.0


_SHARED = EnvConfig(args={"n": [1]})


class _Shares(BaseConfig):
    env: EnvConfig = EnvConfig()

    @field_validator("env", mode="after")
    @classmethod
    def _the_shared_one(cls, value: EnvConfig) -> EnvConfig:
        return _SHARED  # an app's validator may hand back an object others hold


def test_objects_others_hold_are_not_frozen() -> None:
    config = parse(_Shares, ["--env.weight", "2"], frozen=True)
    assert config.env == _SHARED and config.env is not _SHARED
    _SHARED.id = "changed"
    _SHARED.args["n"].append(2)
    assert (config.env.id, config.env.args) == ("reverse-text", {"n": [1]})
    parse(RLConfig, [], frozen=True)
    default = RLConfig.model_fields["trainer"].default  # nor is a class's default instance
    default.micro_batch_size += 1
    default.micro_batch_size -= 1


class _Declared(BaseConfig):
    model_config = ConfigDict(frozen=True)

    env: EnvConfig = EnvConfig()
    tags: list[str] = ["a"]


def test_a_schema_declaring_frozen_is_frozen_deep(tmp_path: Any) -> None:
    config = compose([], ["env.id=x"], schema=_Declared)
    assert _refused(lambda: setattr(config.env, "id", "y")).key == "env.id"
    assert _refused(lambda: config.tags.append("b")).key == "tags"
    assert parse(_Declared, []).env.id == "reverse-text"
    assert _refused(lambda: setattr(parse(_Declared, []).env, "id", "y")).key == "env.id"


def test_cli_returns_a_frozen_result_when_asked() -> None:
    config = cli(RLConfig, args=["--seed", "3"], frozen=True)
    assert _refused(lambda: setattr(config, "seed", 4)).key == "seed"
    assert cli(RLConfig, args=["--seed", "3"]).seed == 3


def test_a_schemaless_result_is_a_frozen_dict() -> None:
    tree = compose([], ["a.b=1", "l=[1, 2]"], frozen=True)
    assert tree == {"a": {"b": 1}, "l": [1, 2]}
    assert isinstance(tree, dict)
    assert _refused(lambda: tree["a"].__setitem__("b", 2)).key == "a.b"
    assert _refused(lambda: tree["l"].append(3)).key == "l"
    assert _refused(tree.clear).key == "(root)"


class _Derived(BaseConfig):
    steps: int = 10
    _seen: int = PrivateAttr(default=0)

    @functools.cached_property
    def half(self) -> int:
        return self.steps // 2


def test_private_attributes_and_cached_properties_still_work() -> None:
    config = parse(_Derived, ["--steps", "8"], frozen=True)
    config._seen = 1  # an app's own state, not the config: as on Pydantic's frozen models
    assert (config._seen, config.half) == (1, 4)
    assert _refused(lambda: setattr(config, "steps", 1)).key == "steps"


class _PlainSection(BaseModel):  # a Pydantic model that is not a BaseConfig
    names: list[str] = ["a"]
    count: int = 1


class _WithPlain(BaseConfig):
    plain: _PlainSection = _PlainSection()


def test_a_plain_pydantic_section_has_its_containers_frozen_only() -> None:
    config = parse(_WithPlain, [], frozen=True)
    assert _refused(lambda: config.plain.names.append("b")).key == "plain.names"
    config.plain.count = 2  # documented: only a BaseConfig refuses assignment
    assert config.plain.count == 2


class _Sets(BaseConfig):
    names: set[str] = {"a"}
    pair: tuple[list[int], int] = ([1], 2)


def test_sets_and_lists_inside_tuples_are_frozen() -> None:
    config = parse(_Sets, [], frozen=True)
    assert repr(config) == repr(parse(_Sets, []))
    assert _refused(lambda: config.names.add("b")).key == "names"
    assert _refused(lambda: config.pair[0].append(3)).key == "pair.0"
    assert config.model_dump() == {"names": {"a"}, "pair": ([1], 2)}


class _Open(BaseConfig):
    model_config = ConfigDict(extra="allow")

    known: int = 1


class _WithOpen(BaseConfig):
    open: _Open = _Open()


def test_pass_through_keys_of_an_open_section_are_frozen_too() -> None:
    config = compose([], ["open.extra=[1]"], schema=_WithOpen, frozen=True)
    assert config == compose([], ["open.extra=[1]"], schema=_WithOpen)
    assert config.model_dump() == {"open": {"known": 1, "extra": [1]}}
    extra = config.open.model_extra or {}
    assert _refused(lambda: extra["extra"].append(2)).key == "open.extra"
    assert _refused(lambda: setattr(config.open, "extra", 2)).key == "open.extra"
    assert _refused(lambda: setattr(config.open, "new", 2)).key == "open.new"


# --- the law: over drawn schemas, frozen is the same config, and nothing in it can change ------


def _nodes(
    value: Any, path: tuple[str | int, ...] = ()
) -> Iterator[tuple[Any, tuple[str | int, ...]]]:
    """Every model, list and dict of a result, with its path."""
    if isinstance(value, BaseModel):
        yield value, path
        for name in type(value).model_fields:
            yield from _nodes(getattr(value, name), (*path, name))
    elif isinstance(value, (list, tuple)):
        if isinstance(value, list):
            yield value, path
        for index, item in enumerate(value):
            yield from _nodes(item, (*path, index))
    elif isinstance(value, dict):
        yield value, path
        for key, item in value.items():
            yield from _nodes(item, (*path, key))


def _field(model: BaseModel) -> str:
    return next(iter(type(model).model_fields), "unset")  # any name is refused: a field's too


def _change(node: Any) -> Callable[[], object]:
    if isinstance(node, BaseModel):
        name = _field(node)
        return lambda: setattr(node, name, getattr(node, name, None))
    if isinstance(node, list):
        return lambda: node.append(None)
    return lambda: node.__setitem__("k", 1)


def _changed_key(node: Any, path: tuple[str | int, ...]) -> str:
    if isinstance(node, BaseModel):
        return ".".join(map(str, (*path, _field(node))))
    return ".".join(map(str, (*path, "k") if isinstance(node, dict) else path)) or "(root)"


@LEAN
@given(instance=rich_instances())
def test_a_frozen_result_is_the_same_config_and_refuses_every_change(
    instance: BaseConfig,
) -> None:
    frozen = freeze(instance)
    assert frozen == instance
    assert frozen.model_dump() == instance.model_dump()
    assert to_toml(frozen) == to_toml(instance)
    before = instance.model_dump()
    for node, path in _nodes(frozen):
        assert _refused(_change(node)).key == _changed_key(node, path)
    assert frozen.model_dump() == before
    for node, _ in _nodes(instance):  # the instance it was made from stays mutable
        if not isinstance(node, BaseModel) or type(node).model_fields:
            _change(node)()
