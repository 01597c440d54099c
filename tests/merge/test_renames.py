"""Renamed fields (contract §6): old keys keep working from files and flags, at any depth, move
to their new paths, and warn with both names and where the old one was found."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Annotated, Literal

import pytest
from pydantic import Field
from schemas import Adam

from compose import BaseConfig, ComposeError, HelpRequested, RenamedWarning, compose, parse, renamed

if TYPE_CHECKING:
    from conftest import WriteFile


class Sampling(BaseConfig):
    temperature: float = 1.0


@renamed({"max_tokens": "max_completion_tokens", "temp": "sampling.temperature"})
class Orchestrator(BaseConfig):
    max_completion_tokens: int = 512
    sampling: Sampling = Sampling()


class Env(BaseConfig):
    id: str = "x"
    orchestrator: Orchestrator = Orchestrator()


class Root(BaseConfig):
    orchestrator: Orchestrator = Orchestrator()
    envs: list[Env] = []


def _warnings_of(call: object) -> tuple[object, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call() if callable(call) else None
    return result, [f"{w.category.__name__}: {w.message}" for w in caught]


def test_old_key_in_a_file_moves_and_warns_with_file_and_line(write: WriteFile) -> None:
    write("overlay.toml", "[orchestrator]\n\nmax_tokens = 7\n")
    config, seen = _warnings_of(lambda: parse(Root, ["@", "overlay.toml"]))
    assert isinstance(config, Root)
    assert config.orchestrator.max_completion_tokens == 7
    assert seen == [
        "RenamedWarning: `max_tokens` is renamed to `max_completion_tokens`; "
        "found in overlay.toml:3"
    ]


def test_old_key_on_the_command_line_moves_and_names_the_flag() -> None:
    config, seen = _warnings_of(lambda: parse(Root, ["--orchestrator.max-tokens", "9"]))
    assert isinstance(config, Root)
    assert config.orchestrator.max_completion_tokens == 9
    assert seen == [
        "RenamedWarning: `max_tokens` is renamed to `max_completion_tokens`; "
        "found in --orchestrator.max-tokens"
    ]


def test_new_path_may_lead_into_a_sub_section(write: WriteFile) -> None:
    write("a.toml", "[orchestrator]\ntemp = 0.3\n")
    config, _ = _warnings_of(lambda: parse(Root, ["@a.toml", "--orchestrator.temp", "0.4"]))
    assert isinstance(config, Root)
    assert config.orchestrator.sampling.temperature == 0.4
    config, _ = _warnings_of(lambda: parse(Root, ["@a.toml"]))
    assert isinstance(config, Root)
    assert config.orchestrator.sampling == Sampling(temperature=0.3)


def test_renames_work_at_any_depth_inside_list_elements(write: WriteFile) -> None:
    write("a.toml", "[[envs]]\nid = 'a'\n[envs.orchestrator]\nmax_tokens = 3\n")
    config, seen = _warnings_of(
        lambda: parse(Root, ["@a.toml", "--envs.0.orchestrator.temp", "0.1"])
    )
    assert isinstance(config, Root)
    assert config.envs[0].orchestrator.max_completion_tokens == 3
    assert config.envs[0].orchestrator.sampling.temperature == 0.1
    assert len(seen) == 2


def test_old_and_new_key_in_one_file_is_an_error(write: WriteFile) -> None:
    write("a.toml", "[orchestrator]\nmax_tokens = 1\nmax_completion_tokens = 2\n")
    with pytest.raises(ComposeError) as info:
        parse(Root, ["@a.toml"])
    assert str(info.value) == (
        "--orchestrator.max-tokens (from a.toml:2): both `max_tokens` and its new name "
        "`max_completion_tokens` are set; keep only `max_completion_tokens`"
    )


def test_old_and_new_flag_together_is_an_error() -> None:
    argv = ["--orchestrator.max-tokens", "1", "--orchestrator.max-completion-tokens", "2"]
    with pytest.warns(FutureWarning), pytest.raises(ComposeError) as info:
        parse(Root, argv)
    assert "both --orchestrator.max-tokens and its new name" in str(info.value)


def test_across_nodes_the_later_one_wins(write: WriteFile) -> None:
    write("old.toml", "[orchestrator]\nmax_tokens = 1\n")
    write("new.toml", "[orchestrator]\nmax_completion_tokens = 2\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forward = compose(["old.toml", "new.toml"], schema=Root)
        backward = compose(["new.toml", "old.toml"], schema=Root)
    assert forward.orchestrator.max_completion_tokens == 2
    assert backward.orchestrator.max_completion_tokens == 1


def test_moved_value_errors_point_at_the_old_key(write: WriteFile) -> None:
    write("a.toml", "[orchestrator]\n# comment\nmax_tokens = 'many'\n")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ComposeError) as info:
            parse(Root, ["@a.toml"])
    assert info.value.origin == "a.toml:3"
    assert info.value.key == "--orchestrator.max-completion-tokens"


def test_help_lists_only_new_names() -> None:
    with pytest.raises(HelpRequested) as info:
        parse(Root, ["--help"])
    assert "--orchestrator.max-completion-tokens" in info.value.text
    assert "max-tokens" not in info.value.text
    assert "temp " not in info.value.text


def test_renaming_a_field_that_still_exists_is_refused() -> None:
    with pytest.raises(TypeError, match="still a field"):

        @renamed({"a": "b"})
        class Bad(BaseConfig):
            a: int = 0
            b: int = 0


class Muon(BaseConfig):
    type: Literal["muon"] = "muon"
    lr: float = 1e-3
    momentum: float = 0.5


@renamed({"optimizer": "optim.type"})
class Trainer(BaseConfig):
    optim: Annotated[Adam | Muon, Field(discriminator="type")] = Adam()


def test_an_old_key_of_a_tag_still_chooses_the_variant_before_other_flags() -> None:
    """Tags are applied before the flags that follow the variant they choose, whatever their
    order on the line: a tag under its old name too."""
    config, _ = _warnings_of(
        lambda: parse(Trainer, ["--optim.momentum", "0.9", "--optimizer", "muon"])
    )
    assert isinstance(config, Trainer)
    assert config.optim == Muon(momentum=0.9)


def test_the_warning_is_a_future_warning_that_tools_read_by_its_fields(write: WriteFile) -> None:
    # CONTRACT 6: a FutureWarning; `compose check` and other tools read where, never the text
    write("overlay.toml", "[orchestrator]\n\nmax_tokens = 7\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parse(Root, ["@", "overlay.toml"])
    (warning,) = [w.message for w in caught]
    assert isinstance(warning, RenamedWarning) and isinstance(warning, FutureWarning)
    assert warning.summary == "`max_tokens` is renamed to `max_completion_tokens`"
    assert (warning.origin, warning.advice) == ("overlay.toml:3", None)
