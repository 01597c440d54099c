"""`to_toml` and `write_configs` (contract §1, §3, §7; issue 4).

A dump is fully resolved TOML with defaults, in schema order, `None` as "None", sections as
`[headers]` and lists of models as `[[headers]]`; loading it back with `compose([file],
schema=type(model))` gives an equal model. The round trip is property-tested over generated
schemas (`strategies.py`); the unit tests pin the cases prime-rl got wrong.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pytest
import tomli
from conftest import SHARING_TMP_PATH
from hypothesis import given, settings
from pydantic import BaseModel, Field
from schemas import Adam, CheckpointConfig, EnvConfig, MuonConfig, RLConfig, Sgd, TrainerConfig
from strategies import instances

from compose import BaseConfig, _atomic, compose, to_toml, write_configs
from compose._output import toml as _dump

if TYPE_CHECKING:
    from conftest import WriteFile


def reload(path: Path, text: str, schema: type[BaseModel]) -> BaseModel:
    """`text` written to `path`, composed back onto `schema`; any warning is a failure."""
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return compose([path], schema=schema)


# --- the round trip, property-tested -----------------------------------------------------------


@settings(suppress_health_check=SHARING_TMP_PATH)
@given(model=instances())
def test_to_toml_round_trips_generated_schemas(tmp_path: Path, model: BaseConfig) -> None:
    text = to_toml(model)
    assert to_toml(model) == text  # stable
    tomli.loads(text)  # valid TOML on its own
    loaded = reload(tmp_path / "dump.toml", text, type(model))
    assert loaded == model
    assert to_toml(loaded) == text  # a reload dumps to the same text


def test_the_rl_schema_round_trips_with_every_section_on(tmp_path: Path) -> None:
    model = RLConfig(
        trainer=TrainerConfig(
            optim=MuonConfig(lr=0.5), ckpt=CheckpointConfig(keep=None), env_vars={"A B": "1"}
        ),
        orchestrator={  # type: ignore[arg-type]
            "env": [EnvConfig(id="x", args={"k": [1, None]}), EnvConfig()],
            "wandb": {"tags": ["a"]},
            "weights": [0.5, None],
        },
        inference={"vllm_extra": {"max_num_seqs": 4, "dtype": None}},  # type: ignore[arg-type]
        tag="run-\\${seed}",
    )
    assert reload(tmp_path / "rl.toml", to_toml(model), RLConfig) == model


# --- None -------------------------------------------------------------------------------------


class Ckpt(BaseConfig):
    interval: int = 100


class WithNones(BaseConfig):
    max_steps: int | None = 10
    tag: str | None = "x"
    ckpt: Ckpt | None = Ckpt()
    stop: list[str] | None = ["a"]
    weights: list[float | None] = [1.0]
    extra: dict[str, Any] = {"k": 1}


def test_explicit_none_is_written_as_none_and_survives_a_reload(tmp_path: Path) -> None:
    """prime-rl #2981: a dump that drops `None` reloads the non-None default instead."""
    model = WithNones(
        max_steps=None, tag=None, ckpt=None, stop=None, weights=[None, 2.0], extra={"k": None}
    )
    text = to_toml(model)
    assert text == (
        'max_steps = "None"\n'
        'tag = "None"\n'
        'ckpt = "None"\n'
        'stop = "None"\n'
        'weights = ["None", 2.0]\n'
        "\n"
        "[extra]\n"
        'k = "None"\n'
    )
    assert reload(tmp_path / "n.toml", text, WithNones) == model


# --- layout ------------------------------------------------------------------------------------


def test_sections_are_headers_never_inline_tables() -> None:
    text = to_toml(TrainerConfig())
    assert "{" not in text.replace("env_vars", "")  # no inline table anywhere
    headers = [line for line in text.splitlines() if line.startswith("[")]
    assert headers == ["[model]", "[optim]", "[env_vars]"]
    assert tomli.loads(text)["optim"] == {
        "type": "adamw",
        "lr": 0.0001,
        "weight_decay": 0.01,
        "betas": [0.9, 0.999],
    }


def test_lists_of_models_are_arrays_of_tables() -> None:
    text = to_toml({"env": [{"id": "a", "args": {"n": 1}}, {"id": "b"}]})
    assert text == ('[[env]]\nid = "a"\n\n[env.args]\nn = 1\n\n[[env]]\nid = "b"\n')
    assert tomli.loads(text) == {"env": [{"id": "a", "args": {"n": 1}}, {"id": "b"}]}


def test_rl_dump_has_env_as_an_array_of_tables_and_sections_in_schema_order() -> None:
    text = to_toml(RLConfig())
    headers = [line for line in text.splitlines() if line.startswith("[")]
    assert headers == [
        "[trainer]",
        "[trainer.model]",
        "[trainer.optim]",
        "[trainer.env_vars]",
        "[orchestrator]",
        "[orchestrator.algo]",
        "[[orchestrator.env]]",
        "[orchestrator.env.args]",
        "[orchestrator.sampling]",
    ]


class Marker(BaseConfig):
    """A section without fields: only its presence means something."""


class WithMarker(BaseConfig):
    ckpt: Marker | None = None
    after: int = 1


def test_an_empty_optional_section_keeps_its_header_and_stays_on(tmp_path: Path) -> None:
    model = WithMarker(ckpt=Marker())
    text = to_toml(model)
    assert text == "after = 1\n\n[ckpt]\n"
    assert reload(tmp_path / "m.toml", text, WithMarker) == model
    assert to_toml(WithMarker()) == 'ckpt = "None"\nafter = 1\n'


def test_an_empty_dict_section_keeps_its_header(tmp_path: Path) -> None:
    text = to_toml(WithNones(extra={}))
    assert text.endswith("\n[extra]\n")
    assert reload(tmp_path / "e.toml", text, WithNones) == WithNones(extra={})


class Ordered(BaseConfig):
    zeta: int = 1
    alpha: str = "a"
    mid: bool = True
    beta: float = 0.5


class OrderedRoot(BaseConfig):
    zz: Ordered = Ordered()
    b: int = 2
    a: int = 1
    aa: Ordered = Ordered()


def test_keys_follow_the_schema_order_not_the_alphabet() -> None:
    """Scalars first and sub-tables after (TOML needs that), each in field order."""
    text = to_toml(OrderedRoot(a=5))
    keys = [line.split(" ")[0] for line in text.splitlines() if line]
    assert keys == [
        "b",
        "a",
        "[zz]",
        "zeta",
        "alpha",
        "mid",
        "beta",
        "[aa]",
        "zeta",
        "alpha",
        "mid",
        "beta",
    ]


def test_a_dict_keeps_its_insertion_order_and_quotes_keys_that_need_it() -> None:
    text = to_toml({"labels": {"z": 1, "a.b": 2, "": 3, "é": 4, "x y": 5}})
    assert text == '[labels]\nz = 1\n"a.b" = 2\n"" = 3\n"é" = 4\n"x y" = 5\n'


def test_comments_are_off_by_default() -> None:
    assert "#" not in to_toml(RLConfig())


def test_floats_infinities_and_exponents_are_valid_toml(tmp_path: Path) -> None:
    class Floats(BaseConfig):
        values: list[float] = []
        top: float = 0.0
        bottom: float = 0.0

    model = Floats(values=[1e-5, 1e300, -0.0, 5e-324], top=float("inf"), bottom=float("-inf"))
    text = to_toml(model)
    assert "top = inf\nbottom = -inf\n" in text
    assert reload(tmp_path / "f.toml", text, Floats) == model


# --- interpolation-looking text ---------------------------------------------------------------


class Texts(BaseConfig):
    name: str = "x"
    marker: str = "x"
    choice: Literal["${no}", "plain"] = "plain"


def test_a_literal_interpolation_is_escaped_and_reloads_literal(tmp_path: Path) -> None:
    model = Texts(name="run-${x}", marker="???", choice="${no}")
    text = to_toml(model)
    assert text == 'name = "run-\\\\${x}"\nmarker = "\\\\???"\nchoice = "\\\\${no}"\n'
    assert tomli.loads(text)["name"] == "run-\\${x}"
    assert reload(tmp_path / "t.toml", text, Texts) == model


def test_backslashes_before_an_interpolation_survive(tmp_path: Path) -> None:
    model = Texts(name="a\\${x}", marker="\\\\${y.z}")
    assert reload(tmp_path / "t.toml", to_toml(model), Texts) == model


def test_without_literal_interpolations_are_written_as_they_are() -> None:
    assert to_toml({"name": "run-${seed}"}, literal=False) == 'name = "run-${seed}"\n'


def test_quotes_newlines_and_control_characters_are_escaped(tmp_path: Path) -> None:
    model = Texts(name='say "hi"\n\tand\\bye\x00\x7f', marker="日本 🦀 '''")
    text = to_toml(model)
    assert text.count("\n") == 3  # one line per key: nothing multi-line
    assert reload(tmp_path / "t.toml", text, Texts) == model


# --- notes -------------------------------------------------------------------------------------


def test_a_note_annotates_every_leaf_and_the_text_stays_valid_toml() -> None:
    data = {"seed": 1, "trainer": {"lr": 0.1, "ckpt": {}}, "env": [{"id": "a"}]}
    text = to_toml(data, note=lambda path: ".".join(map(str, path)))
    assert text == (
        "seed = 1  # seed\n"
        "\n"
        "[trainer]\n"
        "lr = 0.1  # trainer.lr\n"
        "\n"
        "[trainer.ckpt]  # trainer.ckpt\n"
        "\n"
        "[[env]]\n"
        'id = "a"  # env.0.id\n'
    )
    assert tomli.loads(text) == data


def test_to_toml_refuses_what_is_not_a_model_or_a_dict() -> None:
    with pytest.raises(TypeError, match="needs a model or a dict"):
        to_toml([1, 2])  # type: ignore[arg-type]


# --- a union whose default is another variant -------------------------------------------------


class WithUnion(BaseConfig):
    optim: Annotated[Adam | Sgd, Field(discriminator="type")] = Adam()


def test_a_union_value_of_the_non_default_variant_round_trips(tmp_path: Path) -> None:
    model = WithUnion(optim=Sgd(lr=0.5))
    text = to_toml(model)
    assert text == '[optim]\ntype = "sgd"\nlr = 0.5\nmomentum = 0.0\n'
    assert reload(tmp_path / "u.toml", text, WithUnion) == model


# --- write_configs ------------------------------------------------------------------------------


def test_write_configs_writes_one_file_per_name_under_configs(tmp_path: Path) -> None:
    trainer = TrainerConfig(micro_batch_size=2)
    written = write_configs(tmp_path / "out", {"rl": RLConfig(), "trainer": trainer})
    configs = tmp_path / "out" / "configs"
    assert written == [configs / "rl.toml", configs / "trainer.toml"]
    assert sorted(p.name for p in configs.iterdir()) == ["rl.toml", "trainer.toml"]
    assert (configs / "rl.toml").read_text(encoding="utf-8") == to_toml(RLConfig())
    assert compose([configs / "trainer.toml"], schema=TrainerConfig) == trainer


def test_write_configs_replaces_an_earlier_dry_run(tmp_path: Path) -> None:
    write_configs(tmp_path, {"rl": RLConfig(seed=1)})
    write_configs(tmp_path, {"rl": RLConfig(seed=2)})
    assert compose([tmp_path / "configs" / "rl.toml"], schema=RLConfig).seed == 2
    assert [p.name for p in (tmp_path / "configs").iterdir()] == ["rl.toml"]


def test_write_configs_leaves_nothing_when_one_value_cannot_be_rendered(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _dump.to_toml
    calls: list[object] = []

    def fail_on_the_second(value: Any, **kwargs: Any) -> str:
        calls.append(value)
        if len(calls) == 2:
            raise ValueError("cannot render")
        return real(value, **kwargs)

    monkeypatch.setattr(_dump, "to_toml", fail_on_the_second)
    with pytest.raises(ValueError, match="cannot render"):
        write_configs(tmp_path, {"rl": RLConfig(), "trainer": TrainerConfig(), "x": {"a": 1}})
    assert len(calls) == 2
    assert not (tmp_path / "configs").exists() or list((tmp_path / "configs").iterdir()) == []


def test_write_configs_leaves_nothing_when_a_file_cannot_be_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _atomic._stage
    staged: list[str] = []

    def fail_on_the_second(directory: Any, name: str, *args: Any) -> Any:
        staged.append(name)
        if len(staged) == 2:
            raise OSError("disk full")
        return real(directory, name, *args)

    monkeypatch.setattr(_atomic, "_stage", fail_on_the_second)
    with pytest.raises(OSError, match="disk full"):
        write_configs(tmp_path, {"rl": RLConfig(), "trainer": TrainerConfig()})
    assert list((tmp_path / "configs").iterdir()) == []  # no target, no temporary file


@pytest.mark.parametrize("name", ["a/b", "../rl", "..", ".", "", "sub\\rl", ".hidden"])
def test_write_configs_refuses_names_that_are_paths(tmp_path: Path, name: str) -> None:
    with pytest.raises(ValueError, match="not a config file name"):
        write_configs(tmp_path / "out", {name: RLConfig()})
    assert not (tmp_path / "out").exists()


def test_write_configs_output_reloads_through_the_cli_file_grammar(write: WriteFile) -> None:
    write_configs(".", {"rl": RLConfig(max_steps=None, tag="t")})
    loaded = compose(["configs/rl.toml"], schema=RLConfig)
    assert loaded == RLConfig(max_steps=None, tag="t")
