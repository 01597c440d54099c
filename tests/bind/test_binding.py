"""Binding the composed tree onto the schema: defaults as the bottom layer, optional sections,
discriminated unions, list indices, "None" at any depth, validators (contract §2, §7)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from pydantic import Field, model_validator
from schemas import (
    AdamWConfig,
    CheckpointConfig,
    CompileConfig,
    CustomDefaults,
    Endpoint,
    EnvConfig,
    GRPOAlgo,
    InferenceConfig,
    MaxRLAlgo,
    ModelConfig,
    MuonConfig,
    OPDAlgo,
    RLConfig,
    SamplingConfig,
    TrainerConfig,
    WandbConfig,
)

from compose import BaseConfig, ConfigValidationError, compose, parse

if TYPE_CHECKING:
    from conftest import WriteFile

# --- defaults: the bottom layer ----------------------------------------------------------------


def test_no_nodes_gives_the_class_defaults(write: WriteFile) -> None:
    assert parse(RLConfig, []) == RLConfig()
    write("empty.toml", "")
    assert compose(["empty.toml"], schema=RLConfig) == RLConfig()


def test_partial_section_keeps_the_rest_of_the_defaults(write: WriteFile) -> None:
    write("a.toml", "[trainer.model]\nname = 'x'\n")
    config = parse(RLConfig, ["@a.toml"])
    assert config.trainer.model == ModelConfig(name="x")
    assert config.trainer.optim == AdamWConfig()
    assert config.orchestrator == RLConfig().orchestrator


def test_a_partial_section_starts_from_its_class_not_its_default_instance(
    write: WriteFile,
) -> None:
    """`sampling` defaults to `SamplingConfig(temperature=0.7)`. Untouched, that instance
    stands whole; once a node (a file, a section file or the CLI) sets any field of it, the
    section is validated from what the nodes set on the class's field defaults, as Pydantic
    validates a dict (CONTRACT §7 "Layers"): temperature is the class's 1.0."""
    assert parse(RLConfig, []).orchestrator.sampling == SamplingConfig(temperature=0.7)
    expected = SamplingConfig(max_tokens=10)
    assert expected.temperature == 1.0
    write("a.toml", "[orchestrator.sampling]\nmax_tokens = 10\n")
    write("s.toml", "max_tokens = 10\n")
    assert parse(RLConfig, ["@a.toml"]).orchestrator.sampling == expected
    assert parse(RLConfig, ["--orchestrator.sampling", "@s.toml"]).orchestrator.sampling == expected
    argv = ["--orchestrator.sampling.max-tokens", "10"]
    assert parse(RLConfig, argv).orchestrator.sampling == expected


def test_customised_default_instances_nested_give_way_to_class_defaults(write: WriteFile) -> None:
    write("model.toml", "[trainer.model]\nmax_model_len = 5\n")
    write("trainer.toml", "[trainer]\nlr_warmup_steps = 1\n")
    config = parse(CustomDefaults, [])
    assert config.trainer == TrainerConfig(
        model=ModelConfig(name="custom", cp=2), micro_batch_size=4
    )
    config = parse(CustomDefaults, ["@model.toml"])
    assert config.trainer == TrainerConfig(model=ModelConfig(max_model_len=5))
    config = parse(CustomDefaults, ["@trainer.toml"])
    assert config.trainer == TrainerConfig(lr_warmup_steps=1)


def test_customised_default_variant_is_kept_but_not_its_values() -> None:
    """Without `type` the default's variant is kept (the guide); its fields are the class's."""
    assert parse(CustomDefaults, []).optim == MuonConfig(lr=0.5)
    assert parse(CustomDefaults, ["--optim.momentum", "0.9"]).optim == MuonConfig(momentum=0.9)


def test_switching_away_from_a_customised_default_variant_starts_from_class_defaults(
    write: WriteFile,
) -> None:
    """The default's lr=0.5 was set by no node: the new variant does not inherit it."""
    write("o.toml", "[optim]\ntype = 'adamw'\n")
    assert parse(CustomDefaults, ["@o.toml"]).optim == AdamWConfig()
    assert parse(CustomDefaults, ["--optim.type", "adamw"]).optim == AdamWConfig()


def test_optional_section_with_a_customised_default() -> None:
    config = parse(CustomDefaults, ["--sampling.max-tokens", "5"])
    assert config.sampling == SamplingConfig(max_tokens=5)
    assert parse(CustomDefaults, ["--no-sampling"]).sampling is None


# --- optional sections (`Model | None`) --------------------------------------------------------


def test_bare_flag_enables_an_optional_section_with_defaults() -> None:
    assert parse(RLConfig, ["--trainer.model.compile"]).trainer.model.compile == CompileConfig()
    assert parse(RLConfig, ["--inference"]).inference == InferenceConfig()


def test_nested_field_enables_and_sets() -> None:
    config = parse(RLConfig, ["--trainer.model.compile.fullgraph"])
    assert config.trainer.model.compile == CompileConfig(fullgraph=True)
    config = parse(RLConfig, ["--trainer.ckpt.interval", "5"])
    assert config.trainer.ckpt == CheckpointConfig(interval=5)


def test_empty_toml_header_enables(write: WriteFile) -> None:
    write("a.toml", "[trainer.ckpt]\n[inference]\n")
    config = parse(RLConfig, ["@a.toml"])
    assert config.trainer.ckpt == CheckpointConfig()
    assert config.inference == InferenceConfig()


def test_section_file_enables(write: WriteFile) -> None:
    write("ckpt.toml", "keep = 2\n")
    config = parse(RLConfig, ["--trainer.ckpt", "@", "ckpt.toml"])
    assert config.trainer.ckpt == CheckpointConfig(keep=2)


@pytest.mark.parametrize(
    "disable",
    [
        ["--no-trainer.ckpt"],
        ["--trainer.no-ckpt"],
        ["--trainer.ckpt", "None"],
        ["--trainer.ckpt=None"],
        ["@off.toml"],
    ],
)
def test_disabling_an_optional_section(write: WriteFile, disable: list[str]) -> None:
    write("on.toml", "[trainer.ckpt]\ninterval = 5\n")
    write("off.toml", "[trainer]\nckpt = 'None'\n")
    assert parse(RLConfig, ["@on.toml", *disable]).trainer.ckpt is None


def test_a_later_file_enables_again(write: WriteFile) -> None:
    write("off.toml", "[trainer]\nckpt = 'None'\n")
    write("on.toml", "[trainer.ckpt]\n")
    assert parse(RLConfig, ["@off.toml", "@on.toml"]).trainer.ckpt == CheckpointConfig()
    assert parse(RLConfig, ["@on.toml", "@off.toml"]).trainer.ckpt is None


def test_nested_flag_enables_a_section_a_file_disabled(write: WriteFile) -> None:
    write("off.toml", "inference = 'None'\n")
    config = parse(RLConfig, ["@off.toml", "--inference.tensor-parallel-size", "2"])
    assert config.inference == InferenceConfig(tensor_parallel_size=2)


def test_bare_flag_keeps_what_earlier_nodes_set(write: WriteFile) -> None:
    write("a.toml", "[trainer.ckpt]\ninterval = 5\n")
    assert parse(RLConfig, ["@a.toml", "--trainer.ckpt"]).trainer.ckpt == CheckpointConfig(
        interval=5
    )


def test_root_level_optional_section_none_in_toml(write: WriteFile) -> None:
    write("a.toml", "[inference]\nenable_lora = true\n")
    write("b.toml", "inference = 'None'\n")
    assert parse(RLConfig, ["@a.toml", "@b.toml"]).inference is None


# --- discriminated unions ----------------------------------------------------------------------


def test_type_in_a_file_picks_the_variant(write: WriteFile) -> None:
    write("a.toml", "[orchestrator.algo]\ntype = 'max_rl'\ntemperature = 0.5\n")
    assert parse(RLConfig, ["@a.toml"]).orchestrator.algo == MaxRLAlgo(temperature=0.5)


def test_type_on_the_cli_picks_the_variant() -> None:
    assert parse(RLConfig, ["--trainer.optim.type", "muon"]).trainer.optim == MuonConfig()
    argv = ["--orchestrator.algo.type", "max_rl", "--orchestrator.algo.temperature", "0.3"]
    assert parse(RLConfig, argv).orchestrator.algo == MaxRLAlgo(temperature=0.3)


def test_without_type_the_default_variant_is_kept(write: WriteFile) -> None:
    write("a.toml", "[orchestrator.algo]\nclip = 0.3\n")
    assert parse(RLConfig, ["@a.toml"]).orchestrator.algo == GRPOAlgo(clip=0.3)
    assert parse(RLConfig, ["--trainer.optim.lr", "0.1"]).trainer.optim == AdamWConfig(lr=0.1)


def test_section_file_carrying_type(write: WriteFile) -> None:
    write("algo.toml", "type = 'max_rl'\ntemperature = 0.5\n")
    write("optim.toml", "type = 'muon'\nmomentum = 0.9\n")
    argv = ["--orchestrator.algo", "@", "algo.toml", "--trainer.optim=@optim.toml"]
    config = parse(RLConfig, argv)
    assert config.orchestrator.algo == MaxRLAlgo(temperature=0.5)
    assert config.trainer.optim == MuonConfig(momentum=0.9)


def test_variant_with_a_nested_optional_section(write: WriteFile) -> None:
    teacher = Endpoint(name="q", base_url="http://x")
    write(
        "a.toml",
        """
        [orchestrator.algo]
        type = "opd"
        [orchestrator.algo.teacher]
        name = "q"
        base_url = "http://x"
        """,
    )
    assert parse(RLConfig, ["@a.toml"]).orchestrator.algo == OPDAlgo(teacher=teacher)
    argv = [
        "--orchestrator.algo.type",
        "opd",
        "--orchestrator.algo.teacher.name",
        "q",
        "--orchestrator.algo.teacher.base-url",
        "http://x",
    ]
    assert parse(RLConfig, argv).orchestrator.algo == OPDAlgo(teacher=teacher)


def test_cli_segments_in_kebab_or_snake_case(write: WriteFile) -> None:
    argv = ["--trainer.micro_batch_size", "3", "--trainer.model.max-model-len=5"]
    config = parse(RLConfig, [*argv, "--orchestrator.seq_len", "4"])
    assert (config.trainer.micro_batch_size, config.trainer.model.max_model_len) == (3, 5)
    assert config.orchestrator.seq_len == 4


def test_kebab_section_path_of_a_file_node(write: WriteFile) -> None:
    """A peer did not convert a nested `@` path from kebab-case."""
    write("env.toml", "HF_HOME = '/data'\nSEED = '3'\n")
    config = parse(RLConfig, ["--trainer.env-vars", "@", "env.toml"])
    assert config.trainer.env_vars == {"HF_HOME": "/data", "SEED": "3"}


def test_file_values_are_validated_with_lax_rules(write: WriteFile) -> None:
    write("a.toml", "seed = '3'\n[trainer]\nenable_token_export = 'true'\n")
    config = parse(RLConfig, ["@a.toml"])
    assert (config.seed, config.trainer.enable_token_export) == (3, True)


# --- list indices ------------------------------------------------------------------------------


def test_index_sets_one_field_of_an_element(write: WriteFile) -> None:
    write("a.toml", "[[orchestrator.env]]\nid = 'a'\n[[orchestrator.env]]\nid = 'b'\n")
    config = parse(RLConfig, ["@a.toml", "--orchestrator.env.1.weight", "2"])
    assert config.orchestrator.env == [EnvConfig(id="a"), EnvConfig(id="b", weight=2.0)]


def test_index_equal_to_the_length_appends_an_element_from_its_defaults(
    write: WriteFile,
) -> None:
    write("a.toml", "[[orchestrator.env]]\nid = 'a'\nweight = 3.0\n")
    config = parse(RLConfig, ["@a.toml", "--orchestrator.env.1.weight", "2"])
    assert config.orchestrator.env == [EnvConfig(id="a", weight=3.0), EnvConfig(weight=2.0)]


def test_indices_count_against_the_class_default_list() -> None:
    """SKILL: `--env.0.id reverse-text --env.1.id math-env` (a peer did not support this)."""
    argv = ["--orchestrator.env.0.id", "reverse-text", "--orchestrator.env.1.id", "math-env"]
    config = parse(RLConfig, argv)
    assert config.orchestrator.env == [EnvConfig(id="reverse-text"), EnvConfig(id="math-env")]


def test_indices_keep_customised_default_elements() -> None:
    config = parse(CustomDefaults, ["--env.1.id", "x", "--env.2.weight", "5"])
    assert config.env == [EnvConfig(id="a"), EnvConfig(id="x", weight=2.0), EnvConfig(weight=5.0)]


def test_index_into_a_scalar_list(write: WriteFile) -> None:
    write("a.toml", "[orchestrator]\nscores = [1, 2]\n")
    argv = ["@a.toml", "--orchestrator.scores.1", "5", "--orchestrator.scores.2", "-7"]
    assert parse(RLConfig, argv).orchestrator.scores == [1, 5, -7]
    assert parse(RLConfig, ["--orchestrator.scores.0", "5"]).orchestrator.scores == [5]


def test_index_into_a_list_of_a_disabled_optional_section() -> None:
    config = parse(RLConfig, ["--orchestrator.wandb.tags.0", "x"])
    assert config.orchestrator.wandb == WandbConfig(tags=["x"])


def test_section_file_into_a_list_element(write: WriteFile) -> None:
    """`--orchestrator.env.0 @ env.toml`: a list element of models is a section; its index
    counts like a value flag's (set element 0, or append at the length)."""
    write("env.toml", "id = 'e'\nweight = 2.0\n")
    config = parse(RLConfig, ["--orchestrator.env.0", "@", "env.toml"])
    assert config.orchestrator.env == [EnvConfig(id="e", weight=2.0)]
    config = parse(RLConfig, ["--orchestrator.env.1", "@", "env.toml"])
    assert config.orchestrator.env == [EnvConfig(), EnvConfig(id="e", weight=2.0)]


def test_index_in_compose_overrides(write: WriteFile) -> None:
    write("a.toml", "[[orchestrator.env]]\nid = 'a'\n")
    config = compose(["a.toml"], ["orchestrator.env.1.id=b"], schema=RLConfig)
    assert [env.id for env in config.orchestrator.env] == ["a", "b"]
    write("plain.toml", "l = [1, 2]\n")
    assert compose(["plain.toml"], ["l.0=9", "l.2=3"]) == {"l": [9, 2, 3]}


# --- "None" at any depth -----------------------------------------------------------------------


def test_none_text_in_toml_at_any_depth(write: WriteFile) -> None:
    write(
        "a.toml",
        """
        tag = "None"
        [trainer.model]
        max_model_len = "None"
        [orchestrator]
        weights = ["None", 2.0]
        [orchestrator.sampling]
        max_tokens = "None"
        seed = "None"
        [[orchestrator.env]]
        args = {k = "None", n = 1}
        [inference.vllm_extra]
        a = {b = "None", c = ["None", 1]}
        """,
    )
    config = parse(RLConfig, ["@a.toml"])
    assert config.tag is None
    assert config.trainer.model.max_model_len is None
    assert config.orchestrator.weights == [None, 2.0]
    assert config.orchestrator.sampling == SamplingConfig(max_tokens=None, seed=None)
    assert config.orchestrator.env == [EnvConfig(args={"k": None, "n": 1})]
    assert config.inference == InferenceConfig(vllm_extra={"a": {"b": None, "c": [None, 1]}})


def test_none_text_stays_text_where_the_type_is_str(write: WriteFile) -> None:
    write(
        "a.toml",
        """
        [trainer.model]
        name = "None"
        [trainer.env_vars]
        K = "None"
        [orchestrator.sampling]
        stop = ["None"]
        """,
    )
    config = parse(RLConfig, ["@a.toml"])
    assert config.trainer.model.name == "None"
    assert config.trainer.env_vars == {"K": "None"}
    assert config.orchestrator.sampling.stop == ["None"]


def test_none_text_on_the_cli_inside_dicts_and_lists() -> None:
    config = parse(RLConfig, ["--inference.vllm-extra", '{"a": "None", "b": {"c": "None"}}'])
    assert config.inference == InferenceConfig(vllm_extra={"a": None, "b": {"c": None}})
    config = parse(RLConfig, ["--inference.vllm-extra.a", "None"])
    assert config.inference == InferenceConfig(vllm_extra={"a": None})
    config = parse(RLConfig, ["--orchestrator.env.0.args.k", "None"])
    assert config.orchestrator.env == [EnvConfig(args={"k": None})]


def test_schemaless_none_text_at_any_depth(write: WriteFile) -> None:
    write("a.toml", 'a = "None"\nl = ["None", 1]\n[t]\nd = {k = "None"}\n')
    assert compose(["a.toml"]) == {"a": None, "l": [None, 1], "t": {"d": {"k": None}}}


# --- validators --------------------------------------------------------------------------------


def test_model_validator_accepts_a_valid_combination(write: WriteFile) -> None:
    write("a.toml", "[trainer.model]\ncp = 2\nattn = 'flash_attention_2'\n")
    assert parse(RLConfig, ["@a.toml"]).trainer.model.cp == 2


def test_model_validator_rejects_an_incompatible_combination(write: WriteFile) -> None:
    write("a.toml", "[trainer.model]\ncp = 2\n")
    with pytest.raises(ConfigValidationError, match="requires attn"):
        parse(RLConfig, ["@a.toml", "--trainer.model.attn", "sdpa"])


def test_root_validator_sees_cli_values_typed(write: WriteFile) -> None:
    write("a.toml", "[orchestrator]\nseq_len = 4096\n")
    config = parse(RLConfig, ["@a.toml", "--trainer.model.max-model-len", "4096"])
    assert config.trainer.model.max_model_len == 4096
    with pytest.raises(ConfigValidationError, match=r"seq_len \(4096\) exceeds"):
        parse(RLConfig, ["@a.toml", "--trainer.model.max-model-len", "4095"])


def test_result_is_a_validated_instance(write: WriteFile) -> None:
    write("a.toml", "output_dir = 'runs/x'\n[trainer]\ndtype = 'float32'\n")
    config = parse(RLConfig, ["@a.toml"])
    assert isinstance(config, RLConfig)
    assert config.output_dir == Path("runs/x")
    assert config.trainer.dtype.value == "float32"


# --- partial sections start from the class (CONTRACT §7 "Layers") -----------------------------


class _Server(BaseConfig):
    """An after-validator derives `parser` from `model`, as vLLM's tool-call parser is."""

    model: str = "small"
    parser: str | None = "auto"

    @model_validator(mode="after")
    def _derive_parser(self) -> _Server:
        if self.parser == "auto":
            self.parser = {"small": "hermes", "large": "glm45"}.get(self.model)
        return self


class _Roles(BaseConfig):
    user: float | None = None
    tool: float | None = 0.1


class _Deployed(BaseConfig):
    server: _Server = Field(default_factory=_Server)
    roles: _Roles = _Roles(user=0.1)
    run: str = "run-${roles.tool}"


def test_a_value_derived_in_the_default_instance_is_derived_again(write: WriteFile) -> None:
    """The default instance derived `parser = "hermes"` for the default model: a node that sets
    the model gets the parser derived for it, from the file, a section file and the CLI."""
    assert parse(_Deployed, []).server.parser == "hermes"
    write("a.toml", "[server]\nmodel = 'large'\n")
    write("s.toml", "model = 'large'\n")
    for argv in (["@a.toml"], ["--server", "@s.toml"], ["--server.model", "large"]):
        assert parse(_Deployed, argv).server == _Server(model="large", parser="glm45")
    assert compose(["a.toml"], schema=_Deployed).server.parser == "glm45"


def test_setting_one_field_of_a_section_replaces_its_default_instance(write: WriteFile) -> None:
    """`roles` defaults to an instance with `user` set; setting `user` again keeps `tool` at
    its class default, and setting `tool` drops the instance's `user`."""
    assert parse(_Deployed, ["--roles.user", "0.5"]).roles == _Roles(user=0.5)
    write("a.toml", "[roles]\ntool = 0.3\n")
    assert parse(_Deployed, ["@a.toml"]).roles == _Roles(tool=0.3)
    assert parse(_Deployed, []).roles == _Roles(user=0.1)


def test_references_read_defaults_as_validation_does(write: WriteFile) -> None:
    """`${roles.tool}` reads the default instance's value while no node sets `roles`, and the
    class's once one does: the same value the bound model holds."""
    write("tool.toml", "[roles]\nuser = 0.2\n")
    write("refs.toml", "run = 'x-${roles.user}'\n")
    assert parse(_Deployed, []).run == "run-0.1"
    assert parse(_Deployed, ["@refs.toml"]).run == "x-0.1"
    assert parse(_Deployed, ["@refs.toml", "@tool.toml"]).run == "x-0.2"
    assert parse(_Deployed, ["@refs.toml", "--roles.tool", "0.4"]).run == "x-None"


def test_unknown_keys_sort_in_file_order_reading_each_tables_order_once() -> None:
    """Unknown keys are reported in the order the file wrote them; the sort reads each table's
    key order once, not once per key (a file of 100,000 unknown keys took minutes)."""
    from compose._bind.validate import _positions  # the sort key itself

    class Counting(dict[str, int]):
        iterations = 0

        def __iter__(self) -> Iterator[str]:
            Counting.iterations += 1
            return super().__iter__()

    table = Counting({f"k{i}": i for i in range(1000)})
    paths = [("a", f"k{i}") for i in range(1000)]
    shuffled = paths[1::2] + paths[::2]
    assert sorted(shuffled, key=_positions({"z": 0, "a": table})) == paths
    assert Counting.iterations == 1


def test_unknown_flags_below_a_path_are_found_by_one_scan_per_depth() -> None:
    """Each unknown key looks up the flags set at or below it; they are indexed, one scan of
    them all per depth asked, not one scan per key (20,000 unknown flags took 40 s)."""
    from types import SimpleNamespace

    from compose._bind.validate import _FlagsBelow  # the index itself
    from compose._input.argv import ValueItem

    class Counting(dict[tuple[str, ...], ValueItem]):
        scans = 0

        def items(self) -> Any:
            Counting.scans += 1
            return super().items()

    flags = Counting(
        {(f"k{i}", "x"): ValueItem(f"k{i}.x", ("1",), f"--k{i}.x") for i in range(500)}
    )
    below = _FlagsBelow(SimpleNamespace(unchecked=flags))  # type: ignore[arg-type]
    for i in range(500):
        assert [path for path, _ in below((f"k{i}",))] == [(f"k{i}", "x")]
        assert [path for path, _ in below((f"k{i}", "x"))] == [(f"k{i}", "x")]
    assert below(("nope",)) == []
    assert Counting.scans == 2
