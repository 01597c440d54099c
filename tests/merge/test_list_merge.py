"""Per-field list merge strategies (`Merge.extend`, `extend_unique`, `keyed`) and the command-line
append form `--l+ VALUE...` (issue 8)."""

from __future__ import annotations

import copy
import json
import warnings
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pytest
from schemas import Adam, RLConfig, Sgd

import compose as package
from compose import (
    ArgvError,
    BaseConfig,
    ComposeWarning,
    ConfigValidationError,
    HelpRequested,
    Merge,
    cli,
    compose,
    parse,
)
from compose._cli.command import main as compose_main

if TYPE_CHECKING:
    from conftest import WriteFile


class Env(BaseConfig):
    """One environment."""

    id: str
    weight: float = 1.0
    optim: Adam | Sgd = Adam()
    tags: Annotated[list[str], Merge.extend] = ["env"]


class Endpoint(BaseConfig):
    kind: Literal["endpoint"] = "endpoint"
    name: str
    url: str = "http://localhost"


class Local(BaseConfig):
    kind: Literal["local"] = "local"
    name: str
    gpus: int = 1


class Wandb(BaseConfig):
    tags: Annotated[list[str], Merge.extend] = ["base"]
    """Tags of the run."""
    labels: Annotated[list[str], Merge.extend_unique] = ["a"]
    steps: Annotated[list[int], Merge.extend] = []
    extra: Annotated[list[str], Merge.extend] | None = None


class Config(BaseConfig):
    """A schema with a list of every strategy."""

    wandb: Wandb = Wandb()
    custom: Wandb = Wandb(tags=["custom"])
    env: Annotated[list[Env], Merge.keyed("id")] = [Env(id="math")]
    models: Annotated[list[Endpoint | Local], Merge.keyed("name")] = []
    groups: dict[str, Annotated[list[str], Merge.extend]] = {}
    plain: list[int] = [1]
    runs: list[Env] = []


# --- what a strategy is -----------------------------------------------------------------------


def test_merge_is_exported_and_pydantic_ignores_it() -> None:
    assert "Merge" in package.__all__
    assert (repr(Merge.extend), repr(Merge.keyed("id"))) == ("Merge.extend", "Merge.keyed('id')")
    assert Merge.keyed("id") == Merge.keyed("id")
    assert Config(wandb=Wandb(tags=["x"])).wandb.tags == ["x"]
    schema = Config.model_json_schema()
    assert schema["$defs"]["Wandb"]["properties"]["tags"]["type"] == "array"
    assert copy.deepcopy(Merge.keyed("id")) == Merge.keyed("id")  # Pydantic copies metadata
    with pytest.raises(AttributeError):
        Merge.extend.mode = "replace"


def test_a_subclass_keeps_its_parents_strategies(write: WriteFile) -> None:
    class Sub(Wandb):
        more: int = 0

    write("a.toml", "tags = ['a']\n")
    write("b.toml", "tags = ['b']\n")
    assert compose([], schema=Sub).tags == ["base"]
    assert compose(["a.toml", "b.toml"], schema=Sub).tags == ["a", "b"]


@pytest.mark.parametrize(
    ("annotation", "message"),
    [
        (Annotated[int, Merge.extend], "Merge.extend is for list fields"),
        (Annotated[list[int], Merge.keyed("id")], "merges lists of tables"),
        (Annotated[list[Env], Merge.keyed("name")], "have no field 'name'"),
    ],
)
def test_a_strategy_where_it_cannot_apply_is_a_schema_error(annotation: Any, message: str) -> None:
    class Bad(BaseConfig):
        field: annotation = None

    with pytest.raises(TypeError, match=message):
        compose([], schema=Bad)


def test_keyed_needs_a_field_name() -> None:
    with pytest.raises(ValueError, match="needs a field name"):
        Merge.keyed("")


def test_replace_is_the_default_and_can_be_spelled(write: WriteFile) -> None:
    class Replace(BaseConfig):
        spelled: Annotated[list[str], Merge.replace] = ["base"]
        bare: list[str] = ["base"]

    write("a.toml", "spelled = ['a']\nbare = ['a']\n")
    write("b.toml", "spelled = ['b']\nbare = ['b']\n")
    assert compose(["a.toml", "b.toml"], schema=Replace) == Replace(spelled=["b"], bare=["b"])


# --- strategies across nodes ------------------------------------------------------------------


def test_the_first_file_replaces_the_default_and_later_files_extend(write: WriteFile) -> None:
    write("a.toml", "[wandb]\ntags = ['a']\n")
    write("b.toml", "[wandb]\ntags = ['b', 'a']\n")
    assert compose([], schema=Config).wandb.tags == ["base"]
    assert compose(["a.toml"], schema=Config).wandb.tags == ["a"]
    assert compose(["a.toml", "b.toml"], schema=Config).wandb.tags == ["a", "b", "a"]


def test_a_customised_default_instance_is_replaced_then_extended(write: WriteFile) -> None:
    """`+` on a section no node set extends the class default (`Wandb.tags`): the flag sets
    the section, which then starts from its class (CONTRACT §7 "Layers")."""
    write("a.toml", "[custom]\ntags = ['a']\n")
    write("b.toml", "[custom]\ntags = ['b']\n")
    assert compose([], schema=Config).custom.tags == ["custom"]
    assert compose(["a.toml"], schema=Config).custom.tags == ["a"]
    assert compose(["a.toml", "b.toml"], schema=Config).custom.tags == ["a", "b"]
    assert parse(Config, ["--custom.tags+", "x"]).custom.tags == ["base", "x"]


def test_extend_unique_skips_elements_already_there(write: WriteFile) -> None:
    write("a.toml", "[wandb]\nlabels = ['b', 'a', 'b']\n")
    write("b.toml", "[wandb]\nlabels = ['c', 'b']\n")
    assert compose(["a.toml"], schema=Config).wandb.labels == ["b", "a"]
    assert compose(["a.toml", "b.toml"], schema=Config).wandb.labels == ["b", "a", "c"]
    assert parse(Config, ["--wandb.labels+", "b", "a"]).wandb.labels == ["a", "b"]


def test_a_section_file_is_a_node_like_any_file(write: WriteFile) -> None:
    write("a.toml", "[wandb]\ntags = ['a']\n")
    write("w.toml", "tags = ['w']\n")
    assert parse(Config, ["@", "a.toml", "--wandb", "@", "w.toml"]).wandb.tags == ["a", "w"]
    assert parse(Config, ["--wandb", "@", "w.toml"]).wandb.tags == ["w"]
    assert parse(Config, ["--wandb", "@", "w.toml", "@", "a.toml"]).wandb.tags == ["w", "a"]


def test_lists_in_a_dict_extend(write: WriteFile) -> None:
    write("a.toml", "[groups]\nx = ['a']\n")
    write("b.toml", "[groups]\nx = ['b']\ny = ['c']\n")
    assert compose(["a.toml", "b.toml"], schema=Config).groups == {"x": ["a", "b"], "y": ["c"]}


def test_deletion_forgets_what_files_added_and_the_default_applies_again(
    write: WriteFile,
) -> None:
    write("a.toml", "[wandb]\ntags = ['a']\n")
    write("b.toml", "[wandb]\ntags = ['b']\n")
    assert parse(Config, ["@", "a.toml", "~wandb.tags"]).wandb.tags == ["base"]
    config = parse(Config, ["@", "a.toml", "~wandb.tags", "@", "b.toml"])
    assert config.wandb.tags == ["b"]  # b.toml is the first node to set it again
    config = parse(Config, ["@", "a.toml", "~wandb.tags", "--wandb.tags+", "x"])
    assert config.wandb.tags == ["base", "x"]


def test_a_command_line_value_states_the_final_list(write: WriteFile) -> None:
    write("a.toml", "[wandb]\ntags = ['a']\n")
    assert parse(Config, ["@", "a.toml", "--wandb.tags", "x", "y"]).wandb.tags == ["x", "y"]
    assert compose(["a.toml"], ['wandb.tags=["x"]'], schema=Config).wandb.tags == ["x"]


def test_an_optional_list_set_to_none_then_extended_starts_empty(write: WriteFile) -> None:
    write("a.toml", "[wandb]\nextra = 'None'\n")
    write("b.toml", "[wandb]\nextra = ['b']\n")
    assert compose(["a.toml"], schema=Config).wandb.extra is None
    assert compose(["a.toml", "b.toml"], schema=Config).wandb.extra == ["b"]


def test_a_table_replacing_a_value_starts_again_from_the_defaults(write: WriteFile) -> None:
    """A value of another kind is replaced; a table then gets its defaults under it again, and
    its strategy lists are set by the first node below it, then extended."""
    write("a.toml", "custom = '${wandb}'\n")
    write("b.toml", "[custom]\ntags = ['b']\n")
    write("c.toml", "[custom]\ntags = ['c']\n")
    assert compose(["a.toml", "b.toml"], schema=Config).custom == Wandb(tags=["b"])
    assert compose(["a.toml", "b.toml", "c.toml"], schema=Config).custom.tags == ["b", "c"]


def test_lists_inside_keyed_elements_follow_the_same_rule(write: WriteFile) -> None:
    write("a.toml", "[[env]]\nid = 'math'\ntags = ['a']\n")
    write("b.toml", "[[env]]\nid = 'code'\ntags = ['b']\n\n[[env]]\nid = 'math'\ntags = ['c']\n")
    env = compose(["a.toml", "b.toml"], schema=Config).env
    assert [(e.id, e.tags) for e in env] == [("math", ["a", "c"]), ("code", ["b"])]


# --- keyed lists ------------------------------------------------------------------------------


def test_keyed_merges_matching_elements_and_appends_new_ones(write: WriteFile) -> None:
    write(
        "a.toml",
        "[[env]]\nid = 'code'\nweight = 3.0\ntags = ['a']\n\n[[env]]\nid = 'math'\nweight = 2.0\n",
    )
    write("b.toml", "[[env]]\nid = 'code'\ntags = ['x']\n\n[[env]]\nid = 'chat'\n")
    assert [e.id for e in compose(["a.toml"], schema=Config).env] == ["code", "math"]
    env = compose(["a.toml", "b.toml"], schema=Config).env
    assert [(e.id, e.weight, e.tags) for e in env] == [
        ("code", 3.0, ["a", "x"]),  # a.toml's, merged with b.toml's (its tags extend)
        ("math", 2.0, ["env"]),  # a.toml's: it replaced the class default's list
        ("chat", 1.0, ["env"]),
    ]


def test_keyed_elements_with_the_same_key_in_one_node_merge(write: WriteFile) -> None:
    write("a.toml", "[[env]]\nid = 'x'\nweight = 3.0\n\n[[env]]\nid = 'x'\ntags = ['t']\n")
    env = compose(["a.toml"], schema=Config).env
    assert [(e.id, e.weight, e.tags) for e in env] == [("x", 3.0, ["t"])]


def test_keyed_merge_switches_a_union_inside_an_element(write: WriteFile) -> None:
    write("a.toml", "[[env]]\nid = 'math'\n[env.optim]\nlr = 0.5\nbetas = [0.1, 0.2]\n")
    write("b.toml", "[[env]]\nid = 'math'\n[env.optim]\ntype = 'sgd'\nmomentum = 0.9\n")
    with pytest.warns(ComposeWarning, match=r"--env\.0\.optim\.betas \(from a\.toml:5\)"):
        config = compose(["a.toml", "b.toml"], schema=Config)
    assert config.env[0].optim == Sgd(lr=0.5, momentum=0.9)


def test_a_union_switch_in_a_default_element_keeps_none_of_the_old_variants_defaults(
    write: WriteFile,
) -> None:
    """The default element is the bottom layer, not a node: as in any section, switching the
    variant neither warns about its defaults nor carries them over (Adam's lr is not Sgd's)."""
    write("a.toml", "[[env]]\nid = 'math'\n[env.optim]\ntype = 'sgd'\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        config = compose(["a.toml"], schema=Config)
    assert config.env[0].optim == Sgd()


def test_a_customised_default_element_keeps_its_values_under_a_keyed_merge(
    write: WriteFile,
) -> None:
    class Custom(BaseConfig):
        env: Annotated[list[Env], Merge.keyed("id")] = [
            Env(id="x", optim=Sgd(momentum=0.5), tags=["t"])
        ]

    default = Env(id="x", optim=Sgd(momentum=0.5), tags=["t"])
    assert compose([], schema=Custom).env == [default]
    argv = ["--env+", '{"id": "x", "weight": 2, "tags": ["u"]}']  # `+` merges into the default
    assert parse(Custom, argv).env == [
        Env(id="x", weight=2.0, optim=Sgd(momentum=0.5), tags=["t", "u"])
    ]
    write("a.toml", "[[env]]\nid = 'x'\nweight = 2.0\n")  # a file replaces the default's list
    assert compose(["a.toml"], schema=Custom).env == [Env(id="x", weight=2.0)]


def test_keyed_list_of_union_elements(write: WriteFile) -> None:
    write("a.toml", "[[models]]\nkind = 'endpoint'\nname = 'teacher'\nurl = 'http://a'\n")
    write(
        "b.toml",
        """
        [[models]]
        name = 'teacher'
        url = 'http://b'

        [[models]]
        kind = 'local'
        name = 'judge'
        """,
    )
    models = compose(["a.toml", "b.toml"], schema=Config).models
    assert models == [Endpoint(name="teacher", url="http://b"), Local(name="judge")]
    write("c.toml", "[[models]]\nkind = 'local'\nname = 'teacher'\ngpus = 2\n")
    with pytest.warns(ComposeWarning, match=r"--models\.0\.url \(from b\.toml:3\) is dropped"):
        models = compose(["a.toml", "b.toml", "c.toml"], schema=Config).models
    assert models[0] == Local(name="teacher", gpus=2)


def test_a_keyed_element_without_its_key_is_an_error_naming_it_and_its_line(
    write: WriteFile,
) -> None:
    write("a.toml", "[[env]]\nid = 'math'\n\n[[env]]\nweight = 2.0\n")
    with pytest.raises(ConfigValidationError) as info:
        compose(["a.toml"], schema=Config)
    assert str(info.value) == (
        "--env.1 = {'weight': 2.0} (from a.toml:4): has no 'id': the elements of this list "
        "merge by id; give the element its id"
    )


def test_a_keyed_element_without_its_key_from_the_command_line(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as info:
        cli(Config, ["--env+", '{"weight": 2}'], prog="app")
    assert info.value.code == 2
    assert capsys.readouterr().err == (
        "error: --env.0 = {'weight': 2} (from --env+): has no 'id': the elements of this list "
        "merge by id; give the element its id\n"
    )


# --- the append form --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "argv",
    [
        ["--plain+", "2", "3"],
        ["--plain+=2", "--plain+=3"],
        ["--plain+", "[2, 3]"],
        ["--plain+", "2", "--plain+", "3"],
    ],
)
def test_append_to_a_typed_list(argv: list[str]) -> None:
    assert parse(Config, argv).plain == [1, 2, 3]


def test_append_after_files_and_values_in_order(write: WriteFile) -> None:
    write("a.toml", "plain = [5]\n")
    assert parse(Config, ["@", "a.toml", "--plain+", "6"]).plain == [5, 6]
    assert parse(Config, ["--plain+", "6", "@", "a.toml"]).plain == [5, 6]  # values come last
    assert parse(Config, ["@", "a.toml", "--plain", "7", "--plain+", "8"]).plain == [7, 8]
    assert parse(Config, ["@", "a.toml", "--plain+", "8", "--plain", "7"]).plain == [7]


def test_append_follows_the_field_strategy() -> None:
    config = parse(Config, ["--wandb.labels+", "a", "b", "b", "--wandb.tags+", "base"])
    assert (config.wandb.labels, config.wandb.tags) == (["a", "b"], ["base", "base"])


def test_append_models_as_json_objects_and_by_key(write: WriteFile) -> None:
    write("a.toml", "[[env]]\nid = 'code'\n")
    argv = ["@", "a.toml", "--env+", '{"id": "math", "weight": 5}', "chat", '{"id": "code"}']
    env = parse(Config, argv).env
    assert [(e.id, e.weight) for e in env] == [("code", 1.0), ("math", 5.0), ("chat", 1.0)]
    env = parse(Config, ["--env+", '{"id": "math", "weight": 5}', "chat"]).env  # onto the default
    assert [(e.id, e.weight) for e in env] == [("math", 5.0), ("chat", 1.0)]
    runs = parse(Config, ["--runs+", '[{"id": "a"}, {"id": "a"}]', "--runs+", '{"id": "b"}'])
    assert [run.id for run in runs.runs] == ["a", "a", "b"]


def test_a_plain_token_for_a_list_of_models_without_a_key_is_an_error() -> None:
    with pytest.raises(ArgvError, match="is a section"):
        parse(Config, ["--runs+", "a"])


def test_append_to_a_list_inside_an_element_by_index() -> None:
    config = parse(Config, ["--env.0.tags+", "x", "--env.1.tags+", "y", "--env.1.id", "b"])
    assert [(e.id, e.tags) for e in config.env] == [("math", ["env", "x"]), ("b", ["env", "y"])]


def test_append_turns_an_optional_list_on() -> None:
    assert parse(Config, ["--wandb.extra+", "a"]).wandb.extra == ["a"]
    assert parse(Config, ["--wandb.extra", "None", "--wandb.extra+", "a"]).wandb.extra == ["a"]


def test_append_in_override_strings(write: WriteFile) -> None:
    write("a.toml", "plain = [5]\n[wandb]\ntags = ['a']\n")
    config = compose(["a.toml"], ["plain+=6", 'wandb.tags+=["x", "y"]', "env+=code"], schema=Config)
    assert (config.plain, config.wandb.tags) == ([5, 6], ["a", "x", "y"])
    assert [e.id for e in config.env] == ["math", "code"]  # no node set env: onto the default


def test_append_without_a_schema(write: WriteFile) -> None:
    write("a.toml", "tags = ['a']\n[run]\nsteps = [1]\n")
    result = compose(["a.toml"], ["tags+=b", "run.steps+=[2, 3]", "new+=1", 'run.more+={"k": 1}'])
    assert result == {
        "tags": ["a", "b"],
        "run": {"steps": [1, 2, 3], "more": [{"k": 1}]},
        "new": [1],
    }


def test_append_without_a_schema_on_the_command_line(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "tags = ['a']\n")
    assert compose_main(["show", "--format", "json", "@", "a.toml", "--tags+", "b", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == {"tags": ["a", "b", 2]}


def test_append_to_what_is_not_a_list_is_an_error(write: WriteFile) -> None:
    with pytest.raises(ArgvError) as info:
        parse(Config, ["--wandb+", "x"])
    assert "is Wandb, not a list: only a list takes --wandb+" in str(info.value)
    write("a.toml", "seed = 3\n")
    with pytest.raises(ArgvError) as info:
        compose(["a.toml"], ["seed+=4"])
    assert (
        str(info.value)
        == "--seed (from override seed+): holds 3, not a list: only a list takes override seed+"
    )


@pytest.mark.parametrize(
    "argv",
    [["--plain+", "@", "a.toml"], ["--plain+=@a.toml"], ["--plain+"], ["--no-plain+", "3"]],
)
def test_malformed_appends_are_errors(argv: list[str]) -> None:
    with pytest.raises(ArgvError):
        parse(Config, argv)


def test_overrides_cannot_append_a_file() -> None:
    with pytest.raises(ArgvError, match="key\\+=value"):
        compose([], ["plain+=@a.toml"], schema=Config)


def test_append_to_a_list_of_the_example_schema() -> None:
    """Lists without a strategy still replace across files; `+` appends to any of them."""
    config = parse(RLConfig, ["--orchestrator.env+", '{"id": "code"}'])
    assert [env.id for env in config.orchestrator.env] == ["reverse-text", "code"]


# --- the environment layer -------------------------------------------------------------------


def test_a_list_from_the_environment_merges_by_its_strategy(write: WriteFile) -> None:
    """The environment is a node like a file: the first to set the list, it replaces the
    default; a file then extends it."""
    write("a.toml", "[wandb]\ntags = ['file']\n")
    environ = {"APP_WANDB__TAGS": '["env"]', "APP_PLAIN": "[9]"}
    config = compose(["a.toml"], schema=Config, env_prefix="APP_", environ=environ)
    assert (config.wandb.tags, config.plain) == (["env", "file"], [9])
    config = compose([], schema=Config, env_prefix="APP_", environ=environ)
    assert config.wandb.tags == ["env"]


# --- help and origins -------------------------------------------------------------------------


def test_help_shows_the_strategy_and_the_append_form(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # each entry on one line: its content is checked
    with pytest.raises(HelpRequested) as info:
        parse(Config, ["--help"])
    lines = [" ".join(line.split()) for line in info.value.text.splitlines()]
    assert lines[0].endswith("[--KEY VALUE ...] [--LIST+ VALUE ...]")
    assert '--wandb.tags [STR ...] Tags of the run. (files extend) (default: ["base"])' in lines
    assert '--wandb.labels [STR ...] (files extend, skipping duplicates) (default: ["a"])' in lines
    assert any(
        line.startswith("--env [Env ...] One environment. (files merge by id)") for line in lines
    )
    assert "--plain [INT ...] (default: [1])" in lines


def test_show_origins_name_who_set_each_element(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "[wandb]\ntags = ['a']\n\n[[env]]\nid = 'code'\nweight = 3.0\ntags = ['a']\n")
    write(
        "b.toml",
        "[wandb]\ntags = ['b']\n\n[[env]]\nid = 'chat'\n\n[[env]]\nid = 'code'\ntags = ['x']\n",
    )
    argv = ["@", "a.toml", "@", "b.toml", "--wandb.tags+", "z", "--wandb.labels+", "b"]
    assert compose_main(["show", "--schema", "test_list_merge:Config", "--origins", *argv]) == 0
    shown = capsys.readouterr().out
    # a.toml replaced the default: it no longer names an element
    assert 'tags = ["a", "b", "z"]  # a.toml:2, b.toml:2, --wandb.tags+' in shown
    assert 'labels = ["a", "b"]  # default, --wandb.labels+' in shown  # no node set it
    env = shown[shown.index("[[env]]") :]
    code = ['id = "code"  # b.toml:8', "weight = 3.0  # a.toml:6"]
    code.append('tags = ["a", "x"]  # a.toml:7, b.toml:9')
    assert "\n".join(code) in env
    assert 'id = "chat"  # b.toml:5' in env
    assert 'id = "math"' not in env


def test_explain_lists_each_node_that_extended(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", "[wandb]\ntags = ['a']\n")
    write("b.toml", "[[env]]\nid = 'chat'\n\n[[env]]\nid = 'math'\ntags = ['x']\n")
    write("c.toml", "[[env]]\nid = 'math'\ntags = ['y']\n")
    argv = ["@", "a.toml", "@", "b.toml", "@", "c.toml", "--wandb.tags+", "z"]
    schema = ["--schema", "test_list_merge:Config"]
    assert compose_main(["explain", *schema, "wandb.tags", *argv]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "--wandb.tags",
        "  a.toml:2                     ['a']",
        "  --wandb.tags+                ['a', 'z']",
        "  => ['a', 'z'] (from --wandb.tags+)",
    ]
    assert compose_main(["explain", *schema, "env.1.tags", *argv]) == 0  # chat, math
    assert capsys.readouterr().out.splitlines() == [
        "--env.1.tags",
        "  b.toml:6                     ['x']",
        "  c.toml:3                     ['x', 'y']",
        "  => ['x', 'y'] (from c.toml:3)",
    ]


def test_an_error_in_a_merged_element_names_its_own_line(write: WriteFile) -> None:
    write("a.toml", "[[env]]\nid = 'code'\n")
    write("b.toml", "[[env]]\nid = 'chat'\n\n[[env]]\nid = 'code'\nweight = 'heavy'\n")
    with pytest.raises(ConfigValidationError) as info:
        compose(["a.toml", "b.toml"], schema=Config)
    assert info.value.key == "--env.0.weight"  # code (a.toml replaced the default), chat
    assert info.value.origin == "b.toml:6"


class Node(BaseConfig):
    child: Node | None = None
    tags: Annotated[list[str], Merge.extend] = ["n"]


class Tree(BaseConfig):
    root: Node = Node()


def test_strategies_below_a_recursive_section(write: WriteFile) -> None:
    write("a.toml", "[root.child.child]\ntags = ['a']\n")
    write("b.toml", "[root.child.child]\ntags = ['b']\n")
    config = compose(["a.toml", "b.toml"], schema=Tree)
    assert config.root.child is not None and config.root.child.child is not None
    assert config.root.child.child.tags == ["a", "b"]
    assert config.root.child.tags == ["n"]


class Job(BaseConfig):
    id: str
    weight: float = 1.0
    optim: Adam | Sgd = Adam()
    tags: Annotated[list[str], Merge.extend] = ["job"]


class Dumped(BaseConfig):
    steps: Annotated[list[int], Merge.extend] = [0]
    labels: Annotated[list[str], Merge.extend_unique] = ["a", "b"]
    env: Annotated[list[Job], Merge.keyed("id")] = [Job(id="math", optim=Sgd(), tags=["t"])]
    tree: Tree = Tree()


@pytest.mark.parametrize(
    ("files", "argv"),
    [
        ({}, []),
        ({}, ["--steps+", "1", "2", "--labels+", "c", "a", "--env+", "code", '{"id": "math"}']),
        ({}, ["--env+", '{"id": "math", "weight": 2, "tags": ["u"]}', "--env.0.optim.lr", "0.5"]),
        (
            {
                "a.toml": "steps = [5]\nlabels = ['b']\n[[env]]\nid = 'code'\ntags = ['c']\n",
                "b.toml": "steps = [6]\nlabels = ['a', 'b']\n[[env]]\nid = 'code'\n"
                "tags = ['d']\n[[env]]\nid = 'math'\n[tree.root.child]\ntags = ['x']\n",
            },
            [],
        ),
        ({"a.toml": "steps = []\nlabels = []\nenv = []\n"}, ["--steps+", "0", "0"]),
    ],
    ids=["defaults", "appended", "default-element-merged", "files", "emptied"],
)
def test_a_dump_of_any_strategy_list_reloads_equal(
    write: WriteFile, files: dict[str, str], argv: list[str]
) -> None:
    """The first node replaces the class default, so a dump is a file like any other that
    loads back as it was written: no default put back or repeated, for every strategy."""
    to_toml = package.to_toml
    for name, text in files.items():
        write(name, text)
    model = parse(Dumped, [arg for name in files for arg in ("@", name)] + argv)
    write("dump.toml", to_toml(model))
    assert compose(["dump.toml"], schema=Dumped) == model
    # the reloaded dump is the first node: a later file extends it as it would any file
    write("more.toml", "steps = [7]\nlabels = ['z', 'a']\n[[env]]\nid = 'new'\n")
    more = compose(["dump.toml", "more.toml"], schema=Dumped)
    assert more.steps == [*model.steps, 7]
    added = ["z"] if "a" in model.labels else ["z", "a"]
    assert more.labels == [*model.labels, *added]
    assert more.env == [*model.env, Job(id="new")]


def test_a_dump_of_the_defaults_reloads_equal(write: WriteFile) -> None:
    to_toml = package.to_toml
    for schema in (Config, Dumped, Tree):
        write("dump.toml", to_toml(compose([], schema=schema)))
        assert compose(["dump.toml"], schema=schema) == compose([], schema=schema)
    model = parse(Config, ["--wandb.tags+", "x", "--custom.labels+", "b", "--env+", "code"])
    write("dump.toml", to_toml(model))
    reloaded = compose(["dump.toml"], schema=Config)
    assert reloaded == model
    assert (reloaded.wandb.tags, reloaded.custom.tags) == (["base", "x"], ["base"])
