"""Binding: the class that validates a section judges it, as its own `model_validate` would.

A law over drawn schemas (binding gives what validation gives), and the delicate cases: a
"None" spelt with an escape, in a flag's JSON, in a class default a flag copies into the tree;
union tags a class default chooses at any depth; unknown keys in the order the files wrote them.
"""

from __future__ import annotations

import copy
import warnings
from typing import TYPE_CHECKING, Annotated, Any

import pydantic
import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Discriminator, Field, Tag
from schemas import (
    Adam,
    EnvConfig,
    InferenceConfig,
    MuonConfig,
    RLConfig,
    SamplingConfig,
    Scalars,
    Sgd,
)
from strategies import rich_schemas

from compose import BaseConfig, ComposeError, UnknownKeyError, compose, parse, renamed
from compose._bind.validate import bind
from compose._input.origins import Origins
from compose._merge.composed import Composed
from compose._merge.defaults import to_plain
from compose._schema.shape import shape_of
from compose._schema.walk import walk

if TYPE_CHECKING:
    from conftest import WriteFile

LEAN = settings(max_examples=examples(60))

# --- the law: binding is the schema's own validation ------------------------------------------


def _mutated(value: Any, data: st.DataObject) -> Any:
    """Unknown keys added, union tags dropped and "None" text put here and there, at any depth."""
    if isinstance(value, list):
        return [_mutated(item, data) for item in value]
    if not isinstance(value, dict):
        return "None" if value is None else value
    table = {key: _mutated(item, data) for key, item in value.items()}
    if "type" in table and data.draw(st.booleans()):
        del table["type"]  # the default variant's tag, or no variant chosen
    if data.draw(st.booleans()):
        table["zz_unknown"] = 1
    return table


def _bound(schema: type[BaseConfig], tree: dict[str, Any]) -> object:
    """What binding gives: the config, or the text of the error it raises."""
    composed = Composed(copy.deepcopy(tree), Origins(), shape_of(schema), [])
    try:
        return bind(composed, schema).model_dump()
    except ComposeError as error:
        return str(error)


def _validated(schema: type[BaseConfig], tree: dict[str, Any]) -> object:
    """What the schema's own `model_validate` gives: the config, or the keys it rejects."""
    try:
        return schema.model_validate(copy.deepcopy(tree)).model_dump()
    except pydantic.ValidationError as error:
        return sorted(".".join(map(str, e["loc"])) for e in error.errors())


@settings(LEAN)
@given(pair=rich_schemas(), data=st.data())
def test_binding_accepts_and_gives_what_the_schema_validates(
    pair: tuple[type[BaseConfig], st.SearchStrategy[BaseConfig]], data: st.DataObject
) -> None:
    """One rule: a tree binds to exactly the model `schema.model_validate` gives for it (the
    text "None", unknown keys and missing tags included), and fails exactly where it fails."""
    schema, values = pair
    tree = _mutated(to_plain(data.draw(values)), data)
    bound, validated = _bound(schema, tree), _validated(schema, tree)
    assert isinstance(bound, str) == isinstance(validated, list)
    if not isinstance(bound, str):
        assert bound == validated


# --- "None" text: wherever it may come from, the full walk still sees it -------------------------


def test_none_text_deep_inside_a_list_of_models(write: WriteFile) -> None:
    write("a.toml", '[[orchestrator.env]]\nargs = {k = ["None", {j = "None"}]}\n')
    config = parse(RLConfig, ["@a.toml"])
    assert config.orchestrator.env == [EnvConfig(args={"k": [None, {"j": None}]})]


def test_none_spelt_with_a_toml_escape(write: WriteFile) -> None:
    write("a.toml", '[orchestrator.sampling]\nmax_tokens = "No\\u006ee"\n')
    config = parse(RLConfig, ["@a.toml"])
    assert config.orchestrator.sampling == SamplingConfig(max_tokens=None)
    write("b.toml", 'tag = """No\\\n  ne"""\n')  # a line-ending backslash joins the lines
    assert parse(RLConfig, ["@b.toml"]).tag is None


def test_none_text_in_override_json(write: WriteFile) -> None:
    write("a.toml", "seed = 1\n")
    config = compose(["a.toml"], ['inference.vllm_extra={"a": "None"}'], schema=RLConfig)
    assert config.inference == InferenceConfig(vllm_extra={"a": None})
    config = parse(RLConfig, ["--inference.vllm-extra", '{"a": "No\\u006ee"}'])
    assert config.inference == InferenceConfig(vllm_extra={"a": None})


def test_schemaless_none_text_in_override_values(write: WriteFile) -> None:
    """As in a file: the "None" inside a JSON or TOML override value is None too."""
    write("a.toml", "a = 1\n")
    overrides = ['x={"k": "None"}', 'y=[1, "None"]', "z=None"]
    assert compose(["a.toml"], overrides) == {"a": 1, "x": {"k": None}, "y": [1, None], "z": None}


def test_none_text_in_flag_json_is_refused_where_none_is_not_allowed() -> None:
    with pytest.raises(ComposeError) as caught:
        parse(Scalars, ["--counts", '{"a": "None"}'])
    assert str(caught.value) == "--counts.a = 'None' (from --counts): does not accept None"


class WithNoneTextDefault(BaseConfig):
    names: list[EnvConfig] = [EnvConfig(args={"k": "None"})]


def test_none_text_in_a_class_default_a_flag_copies_into_the_tree() -> None:
    """An index flag copies the default list into the tree; binding reads it as it reads a
    file (a "None" string there is None where the type admits None, as before)."""
    config = parse(WithNoneTextDefault, ["--names.0.weight", "2"])
    assert config.names == [EnvConfig(args={"k": None}, weight=2.0)]


# --- sections the lean walk must still visit -----------------------------------------------------


class Plain(BaseConfig):
    a: int = 0
    b: list[int] = []


class Holder(BaseConfig):
    plain: Plain = Plain()
    plains: dict[str, Plain] = {}
    items: list[Plain] = []


def test_an_unknown_key_in_a_section_with_no_special_fields(write: WriteFile) -> None:
    write("a.toml", "[plain]\na = 1\n\nbb = 2\n")
    with pytest.raises(ComposeError) as caught:
        parse(Holder, ["@a.toml"])
    expected = "--plain.bb = 2 (from a.toml:4): unknown key; did you mean --plain.b?"
    assert str(caught.value) == expected


def test_unknown_keys_in_dicts_and_lists_of_plain_models(write: WriteFile) -> None:
    write("a.toml", "[plains.x]\na = 1\n[plains.y]\nbb = 2\n[[items]]\na = 1\n[[items]]\nc = 3\n")
    with pytest.raises(ComposeError) as caught:
        parse(Holder, ["@a.toml"])
    assert str(caught.value) == (
        "2 errors:\n"
        "  - --plains.y.bb = 2 (from a.toml:4): unknown key\n"
        "  - --items.1.c = 3 (from a.toml:8): unknown key; did you mean --items.1.b?"
    )


def test_unknown_keys_come_in_the_order_the_files_wrote_them(write: WriteFile) -> None:
    write("a.toml", "[orchestrator]\nbatch_sizee = 1\n[trainer]\nmicro_batch = 2\n")
    with pytest.raises(ComposeError) as caught:
        parse(RLConfig, ["@a.toml"])
    first, second = caught.value.errors
    assert first.key == "--orchestrator.batch-sizee"
    assert second.key == "--trainer.micro-batch"


class Trainer(BaseConfig):
    steps: int = 1
    optim: Annotated[Adam | Sgd, Field(discriminator="type")] = Adam()


class ViaDefault(BaseConfig):
    trainer: Trainer = Trainer(optim=Sgd(momentum=0.5))


def test_a_union_below_a_customised_default_takes_its_class_default_tag(write: WriteFile) -> None:
    """No node sets `type`, and a node sets the parent section: the parent is validated from
    its class's field defaults, so the variant is that of `Trainer.optim`'s default (Adam), not
    that of the parent's default instance (Sgd), as Pydantic would validate the dict."""
    assert parse(ViaDefault, []).trainer.optim == Sgd(momentum=0.5)
    write("a.toml", "[trainer.optim]\nlr = 0.3\n")
    config = parse(ViaDefault, ["@a.toml"])
    assert config.trainer.optim == Adam(lr=0.3)


class Leaf(BaseConfig):
    x: int = 0


class Mid(BaseConfig):
    leaf: Leaf = Leaf()


class Reaches(BaseConfig):
    """Class defaults that are not customised (the union tags below come from classes), and
    one that is, above a section whose class default is not."""

    trainer: Trainer = Trainer()
    trainers: list[Trainer] = []
    by_name: dict[str, Trainer] = {}
    maybe: Trainer | None = None
    via_default: ViaDefault = ViaDefault()
    tuned: Mid = Mid(leaf=Leaf(x=5))


@pytest.mark.parametrize(
    "tree",
    [
        {"trainer": {"optim": {"lr": 0.3}}},
        {"trainers": [{"optim": {"lr": 0.3}}, {"optim": {"type": "sgd"}}, {"steps": 2}]},
        {"by_name": {"a": {"optim": {"type": "sgd", "momentum": 0.5}}, "b": {"optim": {}}}},
        {"maybe": {"optim": {"lr": 1.0}}},
        {"via_default": {"trainer": {"optim": {"lr": 0.3}}}},
        {"trainer": {"optim": {"lr": 0.3, "momentum": 1.0}}, "zz": 1},
        {"trainers": [{"optim": {"zz": 1}}], "via_default": {"trainer": {"optim": {"zz": 2}}}},
        {"maybe": {"optim": {"type": "rmsprop"}}, "by_name": {"a": {"zz": 1}}},
        {"tuned": {"leaf": {}}},
        {"tuned": {"leaf": {"zz": 1}}, "trainer": {"zz": 2}},
    ],
)
def test_binding_fills_the_tags_a_class_default_chooses_at_any_depth(tree: dict[str, Any]) -> None:
    """Sections reached through uncustomised defaults, lists, dicts and optional sections:
    binding gives what the schema's own validation gives, or fails where it fails."""
    bound, validated = _bound(Reaches, tree), _validated(Reaches, tree)
    assert bound == validated if not isinstance(bound, str) else isinstance(validated, list)


def test_a_tag_below_a_customised_default_below_an_uncustomised_section() -> None:
    config = _bound(Reaches, {"via_default": {"trainer": {"optim": {"lr": 0.3}}}})
    assert (
        config == Reaches(via_default=ViaDefault(trainer=Trainer(optim=Adam(lr=0.3)))).model_dump()
    )
    config = _bound(Reaches, {"trainers": [{"optim": {"lr": 0.3}}]})
    assert config == Reaches(trainers=[Trainer(optim=Adam(lr=0.3))]).model_dump()
    expected = Reaches(tuned=Mid(leaf=Leaf(x=0))).model_dump()
    assert _bound(Reaches, {"tuned": {"leaf": {}}}) == expected


def _pick(value: Any) -> str:
    if isinstance(value, dict):
        return str(value.get("type") or ("sgd" if "momentum" in value else "adam"))
    return str(value.type)


class Picked(BaseConfig):
    optim: Annotated[
        Annotated[Adam, Tag("adam")] | Annotated[Sgd, Tag("sgd")], Discriminator(_pick)
    ]


class TwoUnions(BaseConfig):
    first: Annotated[Adam | Sgd, Field(discriminator="type")]
    trainer: Trainer = Trainer()


def test_a_section_with_no_variant_leaves_the_other_tags_filled() -> None:
    """One error only: the section after it still gets its default variant's tag."""
    tree = {"first": {"lr": 1.0}, "trainer": {"optim": {"lr": 0.2}}}
    assert _bound(TwoUnions, tree) == (
        "--first: no variant chosen: set --first.type to one of adam, sgd"
    )


def test_a_callable_discriminator_picks_the_variant_as_pydantic_does() -> None:
    """The class that validates judges: without a tag, the discriminator's own function
    chooses (momentum: sgd), as `Picked.model_validate` would."""
    assert _bound(Picked, {"optim": {"momentum": 0.5}}) == {
        "optim": {"type": "sgd", "lr": 0.1, "momentum": 0.5}
    }


# --- flags: a walk is reused only where the tree cannot change it --------------------------------


def test_union_paths_follow_the_variant_of_each_call() -> None:
    argv = ["--trainer.optim.type", "muon", "--trainer.optim.lr", "1"]
    assert parse(RLConfig, argv).trainer.optim == MuonConfig(lr=1.0)
    assert parse(RLConfig, ["--trainer.optim.lr", "2"]).trainer.optim.type == "adamw"
    with pytest.raises(ComposeError) as caught:
        parse(RLConfig, ["--trainer.optim.momentum", "0.5"])
    assert "only muon has it" in str(caught.value)


def test_paths_through_untyped_data_follow_the_data_of_each_call(write: WriteFile) -> None:
    """Under `dict[str, Any]`, `.0` indexes a list the tree holds, else it is a key."""
    write("a.toml", "[inference.vllm_extra]\nl = [1, 2]\n")
    config = parse(RLConfig, ["@a.toml", "--inference.vllm-extra.l.0", "9"])
    assert config.inference == InferenceConfig(vllm_extra={"l": [9, 2]})
    config = parse(RLConfig, ["--inference.vllm-extra.l.0", "9"])
    assert config.inference == InferenceConfig(vllm_extra={"l": {"0": 9}})


def test_a_kept_walk_through_a_union_serves_only_the_variant_it_chose() -> None:
    """`momentum` is Sgd's alone: each tree's variant decides, whatever was walked before."""
    root = shape_of(Trainer)
    sgd, adam = {"optim": {"type": "sgd"}}, {"optim": {"type": "adam"}}
    for tree, known in [
        (sgd, True),
        (adam, False),
        (sgd, True),
        ({}, False),
        ({"optim": {}}, False),
    ]:
        if known:
            assert walk(root, ["optim", "momentum"], tree, "--optim.momentum").path == (
                "optim",
                "momentum",
            )
            continue
        with pytest.raises(UnknownKeyError):
            walk(root, ["optim", "momentum"], tree, "--optim.momentum")
    assert walk(root, ["optim", "lr"], sgd, "").defaults[0] == Adam()  # Trainer's default
    assert walk(root, ["steps"], sgd, "").defaults == (1,)


class Inner(BaseConfig):
    new: int = 0


@renamed({"old": "inner.new"})
class Renaming(BaseConfig):
    inner: Inner = Inner()


def test_a_renamed_flag_warns_on_every_call() -> None:
    for value in (1, 2):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert parse(Renaming, ["--old", str(value)]).inner.new == value
        assert [str(w.message) for w in caught] == [
            "`old` is renamed to `inner.new`; found in --old"
        ]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("7", 7),
        ("-0", 0),
        ("+3", 3),
        ("1_000", 1000),
        ("0x10", 16),
        ("007", "007"),
        ("0.25", 0.25),
        ("-1.5", -1.5),
        ("1e3", 1000.0),
        ("1.", "1."),
        ("1" * 5000, "1" * 5000),
    ],
)
def test_untyped_flags_read_numbers_as_toml_reads_them(text: str, expected: object) -> None:
    config = compose([], [f"orchestrator.env.0.args.v={text}"], schema=RLConfig)
    assert config.orchestrator.env[0].args["v"] == expected
