"""A field's validation alias reaches validation as the node that set the value spelt it.

A field renamed the way prime-rl's guide asks keeps its old name as an `AliasChoices` spelling,
and a before-validator of its class warns when it sees that name. Composition keys a field by
its name (so nodes that spell it differently merge, the later winning); validation is handed
the value under the spelling of the node that set it last, from a file or a flag, at any depth
(the root, a section, a list or a dict of sections, a union's variant), so the app's own warning
fires, once, and compose adds none of its own (an alias need not be an old name): it says, after
the app's words, where the alias was written (FILE:LINE or the flag), which the app cannot know.
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Annotated, Any, Literal

import pytest
from pydantic import AliasChoices, Field, model_validator

from compose import BaseConfig, ComposeError, parse

if TYPE_CHECKING:
    from conftest import WriteFile

OLD_NAME_WARNING = "FutureWarning: max_new_tokens is deprecated: write max_tokens"


def _warned(where: str) -> str:
    """The app's warning, as compose passes it on: where the old name was written, after it."""
    return f"{OLD_NAME_WARNING} (max_new_tokens: {where})"


class Sampling(BaseConfig):
    max_tokens: int = Field(
        default=512, validation_alias=AliasChoices("max_tokens", "max_new_tokens")
    )

    @model_validator(mode="before")
    @classmethod
    def _warn_of_the_old_name(cls, data: Any) -> Any:
        if isinstance(data, dict) and "max_new_tokens" in data:
            warnings.warn(OLD_NAME_WARNING.split(": ", 1)[1], FutureWarning, stacklevel=2)
        return data


class Chosen(Sampling):
    type: Literal["chosen"] = "chosen"


class Other(BaseConfig):
    type: Literal["other"] = "other"
    max_tokens: int = 1  # the same field name, no alias


class Run(Sampling):
    section: Sampling = Sampling()
    envs: list[Sampling] = []
    named: dict[str, Sampling] = {}
    algo: Annotated[Chosen | Other, Field(discriminator="type")] = Chosen()


def _parse(argv: list[str]) -> tuple[Run, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = parse(Run, argv)
    return config, [f"{w.category.__name__}: {w.message}" for w in caught]


# (where the field is, as a file writes it, as a flag names it, the path of the value read back)
PLACES = [
    ("root", "max_new_tokens = 7\n", "--max-new-tokens", ()),
    ("section", "[section]\nmax_new_tokens = 7\n", "--section.max-new-tokens", ("section",)),
    ("list", "[[envs]]\nmax_new_tokens = 7\n", "--envs.0.max-new-tokens", ("envs", 0)),
    ("dict", "[named.a]\nmax_new_tokens = 7\n", "--named.a.max_new_tokens", ("named", "a")),
    ("variant", "[algo]\nmax_new_tokens = 7\n", "--algo.max-new-tokens", ("algo",)),
]


def _max_tokens(run: Run, path: tuple[str | int, ...]) -> int:
    node: Any = run
    for segment in path:
        node = (
            node[segment]
            if isinstance(segment, int) or isinstance(node, dict)
            else getattr(node, segment)
        )
    assert isinstance(node, Sampling)
    return node.max_tokens


@pytest.mark.parametrize(("where", "text", "flag", "path"), PLACES, ids=[p[0] for p in PLACES])
def test_the_apps_warning_for_an_old_spelling_fires_from_a_file_at_any_depth(
    write: WriteFile, where: str, text: str, flag: str, path: tuple[str | int, ...]
) -> None:
    write("old.toml", text)
    config, seen = _parse(["@", "old.toml"])
    assert _max_tokens(config, path) == 7
    assert seen == [_warned(f"old.toml:{text.count(chr(10))}")]  # the app's, once


@pytest.mark.parametrize(("where", "text", "flag", "path"), PLACES, ids=[p[0] for p in PLACES])
def test_the_apps_warning_for_an_old_spelling_fires_from_a_flag_at_any_depth(
    where: str, text: str, flag: str, path: tuple[str | int, ...]
) -> None:
    config, seen = _parse([flag, "7"])
    assert _max_tokens(config, path) == 7
    assert seen == [_warned(flag)]


def test_a_flag_in_snake_case_names_the_alias_as_the_field_takes_it() -> None:
    config, seen = _parse(["--section.max_new_tokens", "3"])
    assert (config.section.max_tokens, seen) == (3, [_warned("--section.max_new_tokens")])


def test_the_node_that_set_the_value_last_says_how_it_is_spelt(write: WriteFile) -> None:
    write("old.toml", "[section]\nmax_new_tokens = 7\n")
    write("new.toml", "[section]\nmax_tokens = 8\n")
    config, seen = _parse(["@", "old.toml", "--section.max-tokens", "9"])
    assert (config.section.max_tokens, seen) == (9, [])
    config, seen = _parse(["@", "old.toml", "@", "new.toml"])
    assert (config.section.max_tokens, seen) == (8, [])
    config, seen = _parse(["@", "new.toml", "@", "old.toml"])
    assert (config.section.max_tokens, seen) == (7, [_warned("old.toml:2")])
    config, seen = _parse(["@", "new.toml", "--section.max-new-tokens", "6"])
    assert (config.section.max_tokens, seen) == (6, [_warned("--section.max-new-tokens")])


def test_a_list_a_later_node_replaces_takes_its_spellings_with_it(write: WriteFile) -> None:
    write("old.toml", "[[envs]]\nmax_new_tokens = 7\n")
    write("new.toml", "[[envs]]\nmax_tokens = 8\n")
    config, seen = _parse(["@", "old.toml", "@", "new.toml"])
    assert ([env.max_tokens for env in config.envs], seen) == ([8], [])


def test_a_variant_chosen_later_that_has_no_such_alias_gets_the_fields_name(
    write: WriteFile,
) -> None:
    write("old.toml", "[algo]\ntype = 'chosen'\nmax_new_tokens = 7\n")
    config, seen = _parse(["@", "old.toml", "--algo.type", "other"])
    assert (config.algo, seen) == (Other(max_tokens=7), [])


def test_an_error_of_a_value_set_by_its_alias_names_the_line_that_set_it(
    write: WriteFile,
) -> None:
    write("old.toml", "[[envs]]\nmax_new_tokens = 'many'\n")
    with pytest.raises(ComposeError) as caught:
        _parse(["@", "old.toml"])
    assert str(caught.value) == (
        "--envs.0.max-tokens = 'many' (from old.toml:2): "
        "Input should be a valid integer, unable to parse string as an integer"
    )


class Deployment(BaseConfig):
    """prime-rl's shape: an alias for an old name, and a validator of the section above that
    reads the field by its name (pydantic-config hands it every value by its field's name)."""

    gpus: int = Field(default=1, validation_alias=AliasChoices("gpus", "num_gpus"))


class Launcher(BaseConfig):
    deployment: Deployment = Deployment()
    seen: list[str] = []

    @model_validator(mode="before")
    @classmethod
    def _note_keys(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("deployment"), dict):
            data = {**data, "seen": sorted(data["deployment"])}
        return data


def test_a_validator_sees_the_spelling_the_user_wrote_as_pydantic_would_hand_it(
    write: WriteFile,
) -> None:
    write("old.toml", "[deployment]\nnum_gpus = 2\n")
    write("new.toml", "[deployment]\ngpus = 2\n")
    expected = Launcher.model_validate({"deployment": {"num_gpus": 2}})
    assert parse(Launcher, ["@", "old.toml"]) == expected
    assert parse(Launcher, ["@", "new.toml"]).seen == ["gpus"]


class Unrelated(BaseConfig):
    """A validator that warns about something else: its words are passed on as they are."""

    max_tokens: int = Field(default=1, validation_alias=AliasChoices("max_tokens", "mt"))

    @model_validator(mode="after")
    def _warn_of_a_small_budget(self) -> Unrelated:
        warnings.warn(
            "a budget of max_tokens < 2 truncates every answer", UserWarning, stacklevel=2
        )
        return self


def test_a_warning_that_names_no_alias_used_is_passed_on_unchanged() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        parse(Unrelated, ["--mt", "1"])
    assert [str(w.message) for w in caught] == ["a budget of max_tokens < 2 truncates every answer"]
