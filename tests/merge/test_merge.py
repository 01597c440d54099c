"""Merging nodes: order of nodes, deep merge, lists and kinds replacing, union switches, `???`
and deletion (contract §2, §7)."""

from __future__ import annotations

import copy
import warnings
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pytest
from conftest import examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field
from schemas import AdamWConfig, EnvConfig, MuonConfig, RLConfig
from strategies import rich_schemas

from compose import BaseConfig, ComposeError, ComposeWarning, UnknownKeyError, compose, parse
from compose._input.origins import FlagSource, Origins
from compose._merge.defaults import to_plain
from compose._merge.tables import Merger
from compose._schema.plan import NO_DEFAULT
from compose._schema.shape import shape_of

if TYPE_CHECKING:
    from conftest import WriteFile

# --- order of nodes ----------------------------------------------------------------------------


def test_root_files_merge_left_to_right(write: WriteFile) -> None:
    write("a.toml", "seed = 1\nmax_steps = 10\n")
    write("b.toml", "seed = 2\n")
    assert parse(RLConfig, ["@", "a.toml", "@b.toml"]).seed == 2
    assert parse(RLConfig, ["@b.toml", "@", "a.toml"]).seed == 1


def test_overlay_keeps_what_it_does_not_set(write: WriteFile) -> None:
    write("base.toml", "[trainer]\nmicro_batch_size = 4\nlr_warmup_steps = 10\n")
    write("overlay.toml", "[trainer]\nmicro_batch_size = 16\n")
    config = parse(RLConfig, ["@base.toml", "@overlay.toml"])
    assert (config.trainer.micro_batch_size, config.trainer.lr_warmup_steps) == (16, 10)


def test_deep_merge_across_levels(write: WriteFile) -> None:
    write("base.toml", "[trainer.model]\nname = 'base'\ncp = 2\n[trainer.optim]\nlr = 0.5\n")
    write("overlay.toml", "[trainer.model]\nname = 'overlay'\n")
    config = parse(RLConfig, ["@base.toml", "@overlay.toml"])
    assert config.trainer.model.name == "overlay"
    assert config.trainer.model.cp == 2
    assert config.trainer.optim.lr == 0.5


def test_cli_values_win_over_files_whatever_their_position(write: WriteFile) -> None:
    write("a.toml", "seed = 1\n")
    assert parse(RLConfig, ["--seed", "7", "@a.toml"]).seed == 7
    assert parse(RLConfig, ["@a.toml", "--seed", "7"]).seed == 7


def test_among_cli_values_the_last_wins() -> None:
    assert parse(RLConfig, ["--seed", "1", "--seed=2", "--seed", "3"]).seed == 3
    assert parse(RLConfig, ["--dry-run", "--no-dry-run"]).dry_run is False
    assert parse(RLConfig, ["--no-dry-run", "--dry-run"]).dry_run is True


def test_section_file_nodes_merge_in_argv_order_with_root_files(write: WriteFile) -> None:
    """A peer applies `--section @ file` after all root files; we keep argv order."""
    write("root.toml", "[trainer]\nmicro_batch_size = 9\n")
    write("trainer.toml", "micro_batch_size = 4\n")
    later_root = parse(RLConfig, ["--trainer", "@", "trainer.toml", "@", "root.toml"])
    later_section = parse(RLConfig, ["@", "root.toml", "--trainer", "@", "trainer.toml"])
    assert later_root.trainer.micro_batch_size == 9
    assert later_section.trainer.micro_batch_size == 4


def test_same_section_twice_merges_both_files(write: WriteFile) -> None:
    write("t1.toml", "micro_batch_size = 3\nlr_warmup_steps = 5\n")
    write("t2.toml", "micro_batch_size = 4\n")
    config = parse(RLConfig, ["--trainer", "@", "t1.toml", "--trainer", "@t2.toml"])
    assert (config.trainer.micro_batch_size, config.trainer.lr_warmup_steps) == (4, 5)


def test_nested_section_file_merges_into_what_root_files_set(write: WriteFile) -> None:
    write("rl.toml", "[trainer.model]\nname = 'a'\ncp = 2\n")
    write("model.toml", "name = 'b'\n")
    config = parse(
        RLConfig, ["@rl.toml", "--trainer.model", "@model.toml", "--trainer.model.cp", "4"]
    )
    assert (config.trainer.model.name, config.trainer.model.cp) == ("b", 4)


# --- lists and kinds ---------------------------------------------------------------------------


def test_later_file_replaces_a_list_wholesale(write: WriteFile) -> None:
    write("a.toml", "[[orchestrator.env]]\nid = 'a'\n[[orchestrator.env]]\nid = 'b'\n")
    write("b.toml", "[[orchestrator.env]]\nid = 'c'\n")
    config = parse(RLConfig, ["@a.toml", "@b.toml"])
    assert config.orchestrator.env == [EnvConfig(id="c")]


def test_file_list_replaces_the_default_list(write: WriteFile) -> None:
    write("a.toml", "[[orchestrator.env]]\nid = 'a'\n[[orchestrator.env]]\nid = 'b'\n")
    config = parse(RLConfig, ["@a.toml"])
    assert [env.id for env in config.orchestrator.env] == ["a", "b"]


def test_cli_list_replaces_a_file_list(write: WriteFile) -> None:
    write("a.toml", "[orchestrator]\nscores = [1, 2, 3]\n")
    assert parse(RLConfig, ["@a.toml", "--orchestrator.scores", "9"]).orchestrator.scores == [9]


def test_schemaless_lists_replace_and_tables_merge(write: WriteFile) -> None:
    write("a.toml", "l = [1, 2, 3]\n[t]\nx = 1\ny = 2\n")
    write("b.toml", "l = [4]\n[t]\ny = 3\n")
    assert compose(["a.toml", "b.toml"]) == {"l": [4], "t": {"x": 1, "y": 3}}


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("x = {a = 1}", "x = [1, 2]", [1, 2]),
        ("x = [1, 2]", "x = {a = 1}", {"a": 1}),
        ("x = {a = 1}", "x = 3", 3),
        ("x = 3", "x = {a = 1}", {"a": 1}),
        ("x = 'text'", "x = [1]", [1]),
    ],
)
def test_a_value_of_another_kind_replaces(
    write: WriteFile, first: str, second: str, expected: object
) -> None:
    write("a.toml", f"[inference.vllm_extra]\n{first}\n")
    write("b.toml", f"[inference.vllm_extra]\n{second}\n")
    config = parse(RLConfig, ["@a.toml", "@b.toml"])
    assert config.inference is not None
    assert config.inference.vllm_extra == {"x": expected}
    assert compose(["a.toml", "b.toml"]) == {"inference": {"vllm_extra": {"x": expected}}}


def test_cli_json_dict_deep_merges_into_a_file_dict(write: WriteFile) -> None:
    write("a.toml", "[inference.vllm_extra]\nx = {a = 1}\nkeep = true\n")
    config = parse(RLConfig, ["@a.toml", "--inference.vllm-extra", '{"x": {"b": 2}}'])
    assert config.inference is not None
    assert config.inference.vllm_extra == {"x": {"a": 1, "b": 2}, "keep": True}


# --- discriminated unions ----------------------------------------------------------------------


def test_overlay_switching_the_variant_drops_keys_the_new_one_lacks(write: WriteFile) -> None:
    write("a.toml", "[trainer.optim]\nbetas = [0.8, 0.9]\nlr = 0.5\n")
    write("b.toml", "[trainer.optim]\ntype = 'muon'\nmomentum = 0.8\n")
    with pytest.warns(ComposeWarning) as record:
        config = parse(RLConfig, ["@a.toml", "@b.toml"])
    # lr is a key muon also has: kept; betas is not: dropped, with a warning naming its origin
    assert config.trainer.optim == MuonConfig(lr=0.5, momentum=0.8)
    assert [str(w.message) for w in record] == [
        "--trainer.optim.betas (from a.toml:2) is dropped: "
        "--trainer.optim.type switched to 'muon', which has no such key"
    ]


def test_cli_switching_the_variant_drops_file_keys_with_a_warning(write: WriteFile) -> None:
    write("a.toml", "[trainer.optim]\nbetas = [0.8, 0.9]\n")
    with pytest.warns(ComposeWarning, match=r"--trainer\.optim\.betas \(from a\.toml:2\)"):
        config = parse(RLConfig, ["@a.toml", "--trainer.optim.type", "muon"])
    assert config.trainer.optim == MuonConfig()


def test_section_file_switching_the_variant(write: WriteFile) -> None:
    write("a.toml", "[trainer.optim]\nbetas = [0.8, 0.9]\nlr = 0.5\n")
    write("muon.toml", "type = 'muon'\nmomentum = 0.8\n")
    with pytest.warns(ComposeWarning, match="betas"):
        config = parse(RLConfig, ["@a.toml", "--trainer.optim", "@", "muon.toml"])
    assert config.trainer.optim == MuonConfig(lr=0.5, momentum=0.8)


class _ListVariant(BaseConfig):
    type: Literal["a"] = "a"
    x: list[int] | None = None


class _Inner(BaseConfig):
    name: str = "q"


class _SectionVariant(BaseConfig):
    type: Literal["b"] = "b"
    x: _Inner = _Inner()


class _Switching(BaseConfig):
    u: Annotated[_ListVariant | _SectionVariant, Field(discriminator="type")] = _ListVariant()


@pytest.mark.parametrize(
    "flags",
    [["--u.type=b", "--u.x.name=z"], ["--u.x.name=z", "--u.type=b"]],
    ids=["tag first", "tag last"],
)
def test_a_key_set_where_the_old_variant_held_a_list(write: WriteFile, flags: list[str]) -> None:
    """A field both variants name, a list in the one switched from and a section in the other:
    a flag's key below it replaces the list, as a file's table does (it was a TypeError)."""
    write("a.toml", "[u]\ntype = 'a'\nx = [1, 2]\n")
    write("b.toml", "[u]\ntype = 'b'\n[u.x]\nname = 'z'\n")
    expected = _Switching(u=_SectionVariant(x=_Inner(name="z")))
    assert parse(_Switching, ["@a.toml", *flags]) == expected
    assert parse(_Switching, ["@a.toml", "@b.toml"]) == expected
    with pytest.raises(ComposeError, match="is a list: expected an index, got 'name'"):
        parse(_Switching, ["@a.toml", "--u.x.name=z"])  # no switch: the list's own field


def test_node_without_type_keeps_the_variant_chosen_so_far(write: WriteFile) -> None:
    write("a.toml", "[trainer.optim]\ntype = 'muon'\n")
    write("b.toml", "[trainer.optim]\nmomentum = 0.5\n")
    config = parse(RLConfig, ["@a.toml", "@b.toml", "--trainer.optim.lr", "0.1"])
    assert config.trainer.optim == MuonConfig(lr=0.1, momentum=0.5)


def test_setting_the_same_variant_again_warns_about_nothing(write: WriteFile) -> None:
    write("a.toml", "[trainer.optim]\nbetas = [0.8, 0.9]\n")
    write("b.toml", "[trainer.optim]\ntype = 'adamw'\nlr = 0.3\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        config = parse(RLConfig, ["@a.toml", "@b.toml", "--trainer.optim.type", "adamw"])
    assert config.trainer.optim == AdamWConfig(betas=[0.8, 0.9], lr=0.3)


def test_cli_discriminator_applies_first_whatever_its_position() -> None:
    """Contract §7: among CLI values a discriminator applies first, whatever its position."""
    argv = ["--trainer.optim.momentum", "0.7", "--trainer.optim.type", "muon"]
    assert parse(RLConfig, argv).trainer.optim == MuonConfig(momentum=0.7)
    argv = ["--orchestrator.algo.temperature", "0.3", "--orchestrator.algo.type", "max_rl"]
    algo = parse(RLConfig, argv).orchestrator.algo
    assert (algo.type, algo.temperature) == ("max_rl", 0.3)  # type: ignore[union-attr]


def test_cli_discriminator_makes_keys_of_the_old_variant_unknown() -> None:
    with pytest.raises(UnknownKeyError) as info:
        parse(RLConfig, ["--trainer.optim.betas", "1", "2", "--trainer.optim.type", "muon"])
    assert str(info.value) == (
        "--trainer.optim.betas = '1 2': unknown key; only adamw has it: "
        "choose it with --trainer.optim.type adamw"
    )


# --- "???" -------------------------------------------------------------------------------------


def test_mandatory_marker_never_overrides_an_earlier_file_value(write: WriteFile) -> None:
    write("a.toml", "seed = 5\n[trainer.model]\nname = 'a'\n")
    write("q.toml", "seed = '???'\n[trainer.model]\nname = '???'\n")
    config = parse(RLConfig, ["@a.toml", "@q.toml"])
    assert (config.seed, config.trainer.model.name) == (5, "a")


def test_mandatory_marker_never_overrides_schemaless(write: WriteFile) -> None:
    write("a.toml", "a = 1\n[t]\nb = '???'\nc = 2\n")
    write("b.toml", "a = '???'\n[t]\nb = 3\nc = '???'\n")
    assert compose(["a.toml", "b.toml"]) == {"a": 1, "t": {"b": 3, "c": 2}}


def test_mandatory_marker_on_the_cli_never_overrides_a_file_value(write: WriteFile) -> None:
    """Contract §3/§7: a later `???` does not override a value an earlier node set."""
    write("a.toml", "[trainer.model]\nname = 'a'\n")
    config = parse(RLConfig, ["@a.toml", "--trainer.model.name", "???"])
    assert config.trainer.model.name == "a"


def test_mandatory_value_left_unset_is_an_error(write: WriteFile) -> None:
    """Contract §7: `???` overrides a class default; unset at the end it is an error naming
    the key and the file that declared it."""
    write("q.toml", "[trainer.model]\nname = '???'\n")
    with pytest.raises(ComposeError) as info:
        parse(RLConfig, ["@q.toml"])
    assert info.value.key == "--trainer.model.name"
    assert info.value.origin == "q.toml:2"


# --- deletion ----------------------------------------------------------------------------------


def test_delete_removes_what_files_set(write: WriteFile) -> None:
    write("a.toml", "seed = 5\n[trainer.model]\nname = 'a'\ncp = 2\n")
    config = parse(RLConfig, ["@a.toml", "~seed", "~trainer.model.name"])
    assert config.seed == 42
    assert (config.trainer.model.name, config.trainer.model.cp) == ("Qwen/Qwen3-0.6B", 2)


def test_delete_a_whole_section(write: WriteFile) -> None:
    write("a.toml", "[trainer.model]\nname = 'a'\ncp = 2\n")
    assert parse(RLConfig, ["@a.toml", "~trainer.model"]).trainer.model == RLConfig().trainer.model


def test_delete_is_a_node_in_order(write: WriteFile) -> None:
    write("a.toml", "seed = 5\n")
    write("b.toml", "seed = 6\n")
    assert parse(RLConfig, ["@a.toml", "~seed", "@b.toml"]).seed == 6
    assert parse(RLConfig, ["@a.toml", "@b.toml", "~seed"]).seed == 42


def test_delete_does_not_touch_cli_values(write: WriteFile) -> None:
    """CLI values form one node applied after files and deletions."""
    write("a.toml", "seed = 5\n")
    assert parse(RLConfig, ["--seed", "3", "@a.toml", "~seed"]).seed == 3


def test_delete_with_nothing_set_is_a_no_op() -> None:
    assert parse(RLConfig, ["~seed", "~trainer.ckpt.interval"]) == RLConfig()


def test_delete_a_list_element(write: WriteFile) -> None:
    write("a.toml", "[[orchestrator.env]]\nid = 'a'\n[[orchestrator.env]]\nid = 'b'\n")
    config = parse(RLConfig, ["@a.toml", "~orchestrator.env.0"])
    assert config.orchestrator.env == [EnvConfig(id="b")]


def test_delete_schemaless(write: WriteFile) -> None:
    write("a.toml", "a = 1\n[t]\nb = 2\nc = 3\n")
    assert compose(["a.toml"], ["~t.b", "~a", "~nothing.here"]) == {"t": {"c": 3}}


# --- merging without records is merging with them -----------------------------------------------


def _thinned(value: Any, data: st.DataObject) -> Any:
    """A node sets some keys only: keys dropped at any depth (union tags too, now and then)."""
    if isinstance(value, list):
        return [_thinned(item, data) for item in value]
    if not isinstance(value, dict):
        return value
    return {k: _thinned(v, data) for k, v in value.items() if data.draw(st.integers(0, 3)) > 0}


@settings(max_examples=examples(80))
@given(pair=rich_schemas(), data=st.data())
def test_a_composition_merges_as_its_recording_replay_does(
    pair: tuple[type[BaseConfig], st.SearchStrategy[BaseConfig]], data: st.DataObject
) -> None:
    """The composition merges without records, switching a union only where a table sets a
    tag; the replay that finds origins walks every table with its shape. Same trees."""
    schema, values = pair
    nodes = [
        _thinned(to_plain(data.draw(values)), data) for _ in range(data.draw(st.integers(2, 4)))
    ]
    root = shape_of(schema)
    trees = []
    for origins in (None, Origins()):
        merger = Merger(root, str, origins, origins_at=lambda _: Origins())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for node in copy.deepcopy(nodes):
                merger.merge_at((), node, FlagSource("--x"), root, NO_DEFAULT)
        trees.append(merger.tree)
    assert trees[0] == trees[1]
