"""The drop-in for pydantic-config (CONTRACT §8): `from compose import BaseConfig, cli,
ConfigFileError` is all an app written for pydantic-config imports, and it behaves as there.

Schemas of our own, shaped like the patterns a real app uses: a before-validator that writes
the text "None" into a sub-section's dict, a union section given without its tag.
"""

from __future__ import annotations

import sys
import textwrap
import warnings
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pytest
from conftest import run_command
from pydantic import AliasChoices, Field, model_validator

import compose
from compose import BaseConfig, ComposeError, ConfigFileError, cli

if TYPE_CHECKING:
    from pathlib import Path

    from conftest import WriteFile


class Monitor(BaseConfig):
    project: str = "rl"


class Monitors(BaseConfig):
    wandb: Monitor | None = Monitor()
    file: Monitor | None = Monitor(project="file")


class AdamW(BaseConfig):
    type: Literal["adamw"] = "adamw"
    lr: float = 1e-3
    max_norm: float | None = 1.0


class Sgd(BaseConfig):
    type: Literal["sgd"] = "sgd"
    lr: float = 0.1


class Trainer(BaseConfig):
    monitors: Monitors = Monitors()
    optim: Annotated[AdamW | Sgd, Field(discriminator="type")] = AdamW()
    steps: int = 10

    @model_validator(mode="after")
    def _warn_about_clipping(self) -> Trainer:
        if isinstance(self.optim, AdamW) and self.optim.max_norm is not None and self.steps < 2:
            warnings.warn("clipping a one-step run", UserWarning, stacklevel=2)
        return self


class Run(BaseConfig):
    """A shared block propagated into the trainer by a before-validator, as prime-rl does."""

    monitors: dict[str, Any] = {}
    trainer: Trainer = Trainer()
    name: str = "run"

    @model_validator(mode="before")
    @classmethod
    def _propagate(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for key, value in data.get("monitors", {}).items():
                data.setdefault("trainer", {}).setdefault("monitors", {})[key] = value
        return data


def test_the_names_an_app_imports_are_there() -> None:
    assert compose.ConfigFileError is ComposeError
    assert issubclass(compose.UnknownKeyError, ConfigFileError)
    assert {"BaseConfig", "cli", "ConfigFileError"} <= set(compose.__all__)


def test_cli_with_args_parses_as_parse_does(write: WriteFile) -> None:
    write("run.toml", "name = 'a'\n[trainer]\nsteps = 5\n")
    config = cli(Run, args=["@", "run.toml", "--trainer.optim.lr", "0.5"])
    assert config == Run(name="a", trainer=Trainer(steps=5, optim=AdamW(lr=0.5)))


def test_cli_with_args_raises_config_file_error_for_bad_input(write: WriteFile) -> None:
    write("run.toml", "[trainer]\nstepz = 5\n")
    with pytest.raises(ConfigFileError) as caught:
        cli(Run, args=["@", "run.toml"])
    assert str(caught.value) == (
        "--trainer.stepz = 5 (from run.toml:2): unknown key; did you mean --trainer.steps?"
    )
    with pytest.raises(ConfigFileError, match=r"missing\.toml"):
        cli(Run, args=["@", "missing.toml"])


def test_cli_with_args_prints_help_and_exits_zero(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        cli(Run, args=["--help"])
    assert caught.value.code == 0
    assert "--trainer.optim.lr" in capsys.readouterr().out


def test_cli_with_args_lets_warnings_be_python_warnings() -> None:
    with pytest.warns(UserWarning, match="clipping a one-step run"):
        cli(Run, args=["--trainer.steps", "1"])


def test_cli_takes_argv_or_args_not_both() -> None:
    with pytest.raises(TypeError, match="argv or args"):
        cli(Run, ["--name", "a"], args=["--name", "b"])


def test_cli_on_sys_argv_prints_the_error_and_exits_2(tmp_path: Path) -> None:
    script = tmp_path / "app.py"
    script.write_text(
        textwrap.dedent(
            """
            from compose import BaseConfig, cli

            class App(BaseConfig):
                steps: int = 1

            print(cli(App).steps)
            """
        )
    )
    assert run_command([sys.executable, str(script), "--steps", "3"]) == (0, "3\n", "")
    assert run_command([sys.executable, str(script), "--stepz", "3"]) == (
        2,
        "",
        "error: --stepz = '3': unknown key; did you mean --steps?\n",
    )


def test_default_is_a_base_below_the_files(write: WriteFile) -> None:
    """Only what the default's author set is a node (its other fields stay class defaults),
    with its union variant: files and flags go on top."""
    base = Run(name="base", trainer=Trainer(optim=Sgd(lr=0.2)))
    assert cli(Run, args=[], default=base) == base
    write("run.toml", "[trainer]\nsteps = 3\n")
    config = cli(Run, args=["@", "run.toml", "--name", "flag"], default=base)
    assert config == Run(name="flag", trainer=Trainer(steps=3, optim=Sgd(lr=0.2)))
    assert compose.parse(Run, ["--trainer.optim.lr", "0.3"], default=base).trainer.optim == Sgd(
        lr=0.3
    )


def test_default_none_values_mean_none() -> None:
    base = Run(trainer=Trainer(monitors=Monitors(wandb=None)))
    assert cli(Run, args=[], default=base).trainer.monitors.wandb is None


# --- BaseConfig.model_validate: data means what it means in a composition ----------------------


def test_model_validate_reads_none_text_where_the_type_admits_none() -> None:
    config = Trainer.model_validate({"optim": {"max_norm": "None"}, "monitors": {"file": "None"}})
    assert config.optim == AdamW(max_norm=None)
    assert config.monitors.file is None


def test_model_validate_keeps_the_default_variant_of_a_union_without_its_tag() -> None:
    assert Trainer.model_validate({"optim": {"lr": 0.5}}).optim == AdamW(lr=0.5)
    assert Trainer(optim={"type": "sgd"}).optim == Sgd()  # type: ignore[arg-type]


def test_none_text_an_apps_validator_writes_into_a_sub_section() -> None:
    """`Run._propagate` writes `"None"` into the trainer's dict while Run validates: the
    trainer's own validation reads it as None, from a composition and from model_validate."""
    config = Run.model_validate({"monitors": {"wandb": "None"}})
    assert config.trainer.monitors.wandb is None
    assert cli(Run, args=["--monitors", '{"wandb": "None"}']).trainer.monitors.wandb is None


def test_model_validate_leaves_the_callers_data_unchanged() -> None:
    data = {"optim": {"max_norm": "None"}}
    Trainer.model_validate(data)
    assert data == {"optim": {"max_norm": "None"}}


def test_none_text_where_none_is_not_admitted_is_refused() -> None:
    with pytest.raises(ValueError, match="valid integer"):
        Trainer.model_validate({"steps": "None"})
    with pytest.raises(ComposeError) as caught:
        cli(Trainer, args=["--steps", "None"])
    assert str(caught.value) == "--steps = 'None': does not accept None"


# --- keys the schema's classes do not declare: the validating class judges them -------------


class Engine(BaseConfig):
    """Arguments passed through to a server: any other key is allowed, as vLLM's are."""

    model_config = {"extra": "allow"}
    model: str = "small"


class Env(BaseConfig):
    id: str = "base"


class MathEnv(Env):
    id: str = "math"
    max_turns: int = 1
    judge: Monitor | None = None


class Served(BaseConfig):
    engine: Engine = Engine()
    env: Annotated[Env, "narrowed by id"] = Env()

    @model_validator(mode="before")
    @classmethod
    def _narrow(cls, data: Any) -> Any:
        return _narrowed(data, MathEnv)


def _narrowed(data: Any, subclass: type[Env]) -> Any:
    """The env's class is chosen by its id, as an app with task plug-ins does."""
    env = data.get("env") if isinstance(data, dict) else None
    if isinstance(env, dict) and env.get("id") == subclass.model_fields["id"].default:
        data = {**data, "env": subclass.model_validate(env)}
    return data


def test_extra_allowed_keys_pass_from_flags_as_from_files(write: WriteFile) -> None:
    config = cli(Served, args=["--engine.max-num-seqs", "256", "--engine.eager"])
    assert config.engine.model_extra == {"max_num_seqs": "256", "eager": True}
    config = cli(Served, args=["--engine.compilation-config", '{"mode": "NONE"}'])
    assert config.engine.model_extra == {"compilation_config": {"mode": "NONE"}}
    write("e.toml", "[engine]\nmax_num_seqs = 256\n")
    assert cli(Served, args=["@", "e.toml"]).engine.model_extra == {"max_num_seqs": 256}


def test_none_text_in_an_extra_key_is_none() -> None:
    assert cli(Served, args=["--engine.foo", "None"]).engine.model_extra == {"foo": None}


def test_a_subclass_a_validator_chooses_judges_its_keys(write: WriteFile) -> None:
    """From a file and from flags alike, whatever else the file holds (a backslash, "None")."""
    expected = MathEnv(max_turns=3, judge=None)
    write("env.toml", '# a \\ backslash\n[env]\nid = "math"\nmax_turns = 3\njudge = "None"\n')
    assert cli(Served, args=["@", "env.toml"]).env == expected
    flags = ["--env.id", "math", "--env.max-turns", "3", "--env.judge", "None"]
    assert cli(Served, args=flags).env == expected
    write("base.toml", '[env]\nid = "math"\n')
    assert cli(Served, args=["@", "base.toml", "--env.max-turns", "3"]).env == MathEnv(max_turns=3)


def test_a_key_the_chosen_class_lacks_is_unknown_from_flags_as_from_files(
    write: WriteFile,
) -> None:
    with pytest.raises(ComposeError) as caught:
        cli(Served, args=["--env.max-turns", "3"])
    assert str(caught.value) == ("--env.max-turns = '3': unknown key")
    write("env.toml", "[env]\nmax_turns = 3\n")
    with pytest.raises(ComposeError) as caught:
        cli(Served, args=["@", "env.toml"])
    assert str(caught.value) == ("--env.max-turns = 3 (from env.toml:2): unknown key")


def test_an_unknown_section_flag_names_the_whole_flag() -> None:
    with pytest.raises(ComposeError) as caught:
        cli(Served, args=["--engin.model", "x"])
    assert str(caught.value) == ("--engin.model = 'x': unknown key; did you mean --engine.model?")


class Player(BaseConfig):
    max_turns: int | None = None


class Game(Env):
    id: str = "game"
    player0: Player = Player()


class Played(BaseConfig):
    env: Env = Env()

    @model_validator(mode="before")
    @classmethod
    def _narrow(cls, data: Any) -> Any:
        return _narrowed(data, Game)


def test_keys_below_an_undeclared_key_are_snake_case_too() -> None:
    """`--env.player0.max-turns`: neither `player0` nor `max_turns` is declared where the
    schema says `Env`; both are fields of the subclass chosen, written as in a file."""
    config = cli(Played, args=["--env.id", "game", "--env.player0.max-turns", "3"])
    assert config.env == Game(player0=Player(max_turns=3))


class Shared(BaseConfig):
    """A shared `[wandb]` block copied into the trainer by a before-validator that looks for
    the text "None", as prime-rl's shared-config propagation does."""

    wandb: Monitor | None = Monitor()
    trainer: Trainer = Trainer()

    @model_validator(mode="before")
    @classmethod
    def _propagate(cls, data: Any) -> Any:
        if isinstance(data, dict) and data.get("wandb") == "None":
            trainer = dict(data.get("trainer", {}))
            trainer["monitors"] = {**trainer.get("monitors", {}), "wandb": "None"}
            data = {**data, "trainer": trainer}
        return data


@pytest.mark.parametrize("argv", [["--no-wandb"], ["--wandb", "None"], ["@", "off.toml"]])
def test_an_apps_validator_sees_none_as_a_file_spells_it(write: WriteFile, argv: list[str]) -> None:
    write("off.toml", 'wandb = "None"\n')
    config = cli(Shared, args=argv)
    assert (config.wandb, config.trainer.monitors.wandb) == (None, None)


# --- validation aliases ------------------------------------------------------------------------


class Deployment(BaseConfig):
    gpus: int = Field(default=1, validation_alias=AliasChoices("gpus", "num_gpus"))
    """GPUs per node."""
    nodes: int = Field(default=1, ge=1, validation_alias="num_nodes")


class Deployed(BaseConfig):
    deployment: Deployment = Deployment()


def test_an_alias_works_from_files_and_flags(write: WriteFile) -> None:
    write("d.toml", "[deployment]\nnum_gpus = 2\nnum_nodes = 3\n")
    expected = Deployment.model_validate({"gpus": 2, "num_nodes": 3})
    assert cli(Deployed, args=["@", "d.toml"]).deployment == expected
    flags = ["--deployment.num-gpus", "2", "--deployment.num-nodes", "3"]
    assert cli(Deployed, args=flags).deployment == expected
    flags = ["--deployment.gpus", "2", "--deployment.nodes", "3"]  # the field's own name too
    assert cli(Deployed, args=flags).deployment == expected


def test_spellings_of_one_field_in_different_nodes_merge_into_one_value(
    write: WriteFile,
) -> None:
    write("d.toml", "[deployment]\nnum_gpus = 3\n")
    write("e.toml", "[deployment]\ngpus = 4\n")
    assert cli(Deployed, args=["@", "d.toml", "--deployment.gpus", "2"]).deployment.gpus == 2
    assert cli(Deployed, args=["@", "d.toml", "@", "e.toml"]).deployment.gpus == 4
    assert cli(Deployed, args=["@", "e.toml", "@", "d.toml"]).deployment.gpus == 3


def test_two_spellings_of_one_field_in_one_file_are_an_error(write: WriteFile) -> None:
    write("d.toml", "[deployment]\ngpus = 1\nnum_gpus = 3\n")
    with pytest.raises(ComposeError) as caught:
        cli(Deployed, args=["@", "d.toml"])
    assert str(caught.value) == (
        "--deployment.num-gpus (from d.toml:3): `num_gpus` and `gpus` name the same field; keep one"
    )


def test_an_aliased_fields_errors_name_the_line_that_set_it(write: WriteFile) -> None:
    write("d.toml", "[deployment]\nnum_nodes = 0\n")
    with pytest.raises(ComposeError) as caught:
        cli(Deployed, args=["@", "d.toml"])
    assert str(caught.value) == (
        "--deployment.nodes = 0 (from d.toml:2): Input should be greater than or equal to 1"
    )


# --- plain (untagged) unions of models as sections ---------------------------------------------


class Local(BaseConfig):
    """Runs on this machine."""

    workers: int = 1


class Remote(BaseConfig):
    """Runs on a cluster."""

    host: str = "head"
    port: int = 6379


class Launch(BaseConfig):
    runner: Local | Remote = Local()
    """Where the run goes."""
    backup: Local | Remote | None = None
    engine: Engine = Engine()


def test_an_untagged_union_section_takes_the_variant_pydantic_chooses(write: WriteFile) -> None:
    assert cli(Launch, args=[]).runner == Local()
    assert cli(Launch, args=["--runner.port", "1"]).runner == Remote(port=1)
    assert cli(Launch, args=["--runner.workers", "4"]).runner == Local(workers=4)
    write("r.toml", "[runner]\nhost = 'gpu'\n[backup]\nworkers = 2\n")
    config = cli(Launch, args=["@", "r.toml"])
    assert (config.runner, config.backup) == (Remote(host="gpu"), Local(workers=2))


def test_a_key_no_variant_has_is_one_unknown_key() -> None:
    with pytest.raises(ComposeError) as caught:
        cli(Launch, args=["--runner.prot", "1"])
    assert str(caught.value) == "--runner.prot = '1': unknown key; did you mean --runner.port?"


def _help_of(schema: type[BaseConfig]) -> str:
    with pytest.raises(compose.HelpRequested) as caught:
        compose.parse(schema, ["--help"])
    return caught.value.text


def test_help_shows_each_variant_of_an_untagged_union_and_says_who_chooses() -> None:
    text = _help_of(Launch)
    runner_line = next(line for line in text.splitlines() if line.startswith("  --runner "))
    assert runner_line.split() == ["--runner", "Local|Remote", "Where", "the", "run", "goes."]
    assert "runner (as Local):\n  --runner.workers INT" in text
    assert "runner (as Remote):\n  --runner.host STR" in text
    assert "(one of Local, Remote: Pydantic chooses the one the keys set fit (smart mode))" in text


def test_help_describes_a_section_by_its_class_docstring_without_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the description on the flag's line, unwrapped
    text = _help_of(Launch)
    assert "  --engine Engine" in text
    assert (
        "Arguments passed through to a server: any other key is allowed, as vLLM's are."
        in (text.split("--engine Engine", 1)[1].splitlines()[0])
    )


def test_help_names_a_fields_aliases() -> None:
    text = _help_of(Deployed)
    assert "--deployment.gpus INT   GPUs per node. (also --deployment.num-gpus)" in text


def test_pydantic_config_options_of_cli_are_taken(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli(Run, args=["--help"], prog="run", description="Runs things.", plain=True, wide=False)
    out = capsys.readouterr().out
    assert out.startswith("usage: run ")
    assert "\nRuns things.\n" in out


class Fleet(BaseConfig):
    runners: list[Local] = []
    by_name: dict[str, Remote] = {}


def test_help_describes_a_list_or_dict_of_sections_by_the_items_class() -> None:
    lines = _help_of(Fleet).splitlines()
    assert any(
        line.split()[:2] == ["--runners", "[Local"] and "Runs on this machine." in line
        for line in lines
    )
    assert any(line.startswith("  --by-name ") and "Runs on a cluster." in line for line in lines)
