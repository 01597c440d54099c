"""Resolution looks only where nodes holding `${` or `???` set values (`Composed.work_below`).

A file without either costs resolution nothing; a file, flag or variable with them has its keys
looked at. These tests compose each way a value can come into the tree and check that
resolution still finds it, and a property checks that looking only there gives what looking
everywhere gives: the same values, or the same errors in the same order.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any
from unittest import mock

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st

from compose import BaseConfig, ComposeError, Merge, compose, parse, renamed, to_toml
from compose._interp import resolve as _resolve
from compose._merge import composed as _composed

if TYPE_CHECKING:
    from conftest import WriteFile


@contextmanager
def looking(*, everywhere: bool) -> Iterator[None]:
    """Resolution told where nodes set values (the shortcut), or scanning the whole tree (the
    reference path), whatever `COMPOSE_REFERENCE` says."""
    with mock.patch.object(_composed, "SHORTCUTS", not everywhere):
        yield


BASE = """
[model]
name = "base-model"
size = 7

[trainer]
steps = 10
tags = ["a", "b"]
"""


def test_a_reference_in_an_overlay_resolves_on_a_base_without_any(write: WriteFile) -> None:
    write("base.toml", BASE)
    write("overlay.toml", '[trainer]\nrun = "${model.name}-${trainer.steps}"\n')
    assert compose(["base.toml", "overlay.toml"])["trainer"]["run"] == "base-model-10"


def test_a_reference_in_the_base_survives_an_overlay_without_any(write: WriteFile) -> None:
    write("base.toml", BASE + 'run = "${model.name}"\n')
    write("overlay.toml", "[trainer]\nsteps = 3\n[model]\nsize = 8\n")
    assert compose(["base.toml", "overlay.toml"])["trainer"]["run"] == "base-model"


def test_a_top_level_reference_resolves(write: WriteFile) -> None:
    write("base.toml", BASE)
    write("top.toml", 'name = "${model.name}"\n')
    assert compose(["base.toml", "top.toml"])["name"] == "base-model"


def test_an_override_with_a_reference_resolves_when_no_file_has_one(write: WriteFile) -> None:
    write("base.toml", BASE)
    result = compose(["base.toml"], ["trainer.run=${model.name}", "model.size=9"])
    assert result["trainer"]["run"] == "base-model"


def test_a_mandatory_marker_in_an_overlay_is_still_an_error(write: WriteFile) -> None:
    write("base.toml", BASE)
    write("overlay.toml", '[model]\nrevision = "???"\n')
    with pytest.raises(ComposeError, match=r"missing mandatory value") as caught:
        compose(["base.toml", "overlay.toml"])
    assert "model.revision" in str(caught.value)


def test_a_section_file_with_a_reference_resolves_at_its_section(write: WriteFile) -> None:
    write("base.toml", BASE)
    write("trainer.toml", 'run = "${model.name}"\n[optim]\nname = "${...model.name}"\n')
    result = compose(["base.toml"], ["trainer=@trainer.toml"])
    assert result["trainer"]["run"] == "base-model"
    assert result["trainer"]["optim"]["name"] == "base-model"


def test_an_included_file_with_a_reference_resolves(write: WriteFile) -> None:
    write("base.toml", BASE)
    write("extra.toml", '[trainer]\nrun = "${model.name}"\n')
    write("top.toml", '_include_ = ["base.toml", "extra.toml"]\n[model]\nsize = 1\n')
    assert compose(["top.toml"])["trainer"]["run"] == "base-model"


# --- typed: variables, renamed keys, list strategies, class defaults --------------------------


class Optim(BaseConfig):
    lr: float = 1e-3
    label: str = "optim"


@renamed({"title": "optim.label"})
class Trainer(BaseConfig):
    steps: int = 10
    optim: Optim = Optim()


class Layer(BaseConfig):
    name: str = "layer"
    width: int = 8


class Model(BaseConfig):
    name: str = "m"
    layers: Annotated[list[Layer], Merge.extend] = []


class Root(BaseConfig):
    model: Model = Model()
    trainer: Trainer = Trainer()


def test_a_variable_with_a_reference_resolves(write: WriteFile) -> None:
    write("base.toml", '[model]\nname = "qwen"\n')
    environ = {"APP_TRAINER__OPTIM__LABEL": "${model.name}-optim"}
    config = parse(Root, ["@", "base.toml"], env_prefix="APP_", environ=environ)
    assert config.trainer.optim.label == "qwen-optim"


def test_a_renamed_key_holding_a_reference_resolves_at_its_new_place(write: WriteFile) -> None:
    """The key moves before the node's keys are noted: `title` becomes `optim.label`."""
    write("base.toml", '[model]\nname = "qwen"\n')
    write("trainer.toml", 'title = "${model.name}"\n')
    with pytest.warns(FutureWarning, match="renamed"):
        config = parse(Root, ["@", "base.toml", "--trainer", "@", "trainer.toml"])
    assert config.trainer.optim.label == "qwen"


def test_references_in_list_elements_resolve_after_a_strategy_appends(write: WriteFile) -> None:
    write("a.toml", '[model]\nname = "qwen"\n[[model.layers]]\nname = "${model.name}-0"\n')
    write("b.toml", '[[model.layers]]\nname = "${model.name}-1"\n')  # `model`, by dotted keys
    write("c.toml", "[[model.layers]]\nwidth = 4\n")
    config = parse(Root, ["@", "a.toml", "@", "b.toml", "@", "c.toml"])
    assert [layer.name for layer in config.model.layers] == ["qwen-0", "qwen-1", "layer"]


def test_a_flag_into_a_list_element_resolves(write: WriteFile) -> None:
    write("a.toml", '[model]\nname = "qwen"\n[[model.layers]]\nwidth = 2\n')
    config = parse(Root, ["@", "a.toml", "--model.layers.1.name", "${model.name}"])
    assert [layer.name for layer in config.model.layers] == ["layer", "qwen"]


class Named(BaseConfig):
    name: str = "unnamed"


class WithInterpolatedDefaults(BaseConfig):
    tag: str = "v1"
    items: list[Named] = [Named(name="${tag}-0")]


def test_an_interpolated_class_default_that_a_flag_copies_into_a_list_resolves() -> None:
    """`--items.1.name x` fills the list with its class default first: element 0's `${tag}`
    is in the tree, though no node wrote it there."""
    config = parse(WithInterpolatedDefaults, ["--items.1.name", "x"])
    assert [item.name for item in config.items] == ["v1-0", "x"]


@pytest.mark.shortcuts
def test_a_composition_without_references_resolves_nothing(write: WriteFile) -> None:
    """No node holds `${` or `???`: resolution does not run at all."""
    write("base.toml", BASE)
    with mock.patch.object(_resolve, "resolve_tree", wraps=_resolve.resolve_tree) as resolving:
        compose(["base.toml"], ["model.size=3"])
    assert resolving.call_count == 0


# --- the property -------------------------------------------------------------------------------

_KEYS = ("a", "b", "c")
_REFERENCES = ("${a}", "${b}", "${b.a}", "${c.b}", "x-${a}-y", "${.a}", "${..b}", "???", "${b.c}")
_leaves = st.integers(-3, 3) | st.sampled_from(("text", "None", True, *_REFERENCES))
_values = st.recursive(
    _leaves,
    lambda inner: st.lists(inner, max_size=2) | st.dictionaries(st.sampled_from(_KEYS), inner),
    max_leaves=6,
)
_documents = st.dictionaries(st.sampled_from(_KEYS), _values, max_size=3)
_overrides = st.lists(
    st.tuples(st.sampled_from(("a", "b.a", "c.b", "b.c.a")), st.sampled_from((*_REFERENCES, "1"))),
    max_size=2,
)
_names = itertools.count()


def _outcome(sources: list[str], overrides: list[str]) -> tuple[str, Any]:
    try:
        return "ok", compose(sources, overrides)
    except ComposeError as error:
        return "error", str(error)


@settings(max_examples=examples(150))
@given(
    docs=st.lists(_documents, min_size=1, max_size=3),
    overrides=_overrides,
    section=st.none() | _documents,
)
def test_looking_where_nodes_set_values_finds_what_looking_everywhere_finds(
    tmp_path_factory: pytest.TempPathFactory,
    docs: list[dict[str, Any]],
    overrides: list[tuple[str, str]],
    section: dict[str, Any] | None,
) -> None:
    directory = tmp_path_factory.mktemp("where")
    sources = []
    for doc in [*docs, *([section] if section is not None else [])]:
        path = Path(directory, f"doc{next(_names)}.toml")
        path.write_text(to_toml(doc), encoding="utf-8")
        sources.append(str(path))
    if section is not None:  # the last document goes in as a section file
        flags = [f"{key}={value}" for key, value in overrides] + [f"b=@{sources.pop()}"]
    else:
        flags = [f"{key}={value}" for key, value in overrides]
    with looking(everywhere=False):
        limited = _outcome(sources, flags)
    with looking(everywhere=True):
        everywhere = _outcome(sources, flags)
    assert limited == everywhere
