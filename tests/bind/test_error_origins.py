"""An error cites an origin only for a value a node set there: never a line that did not set it.

An app's before-validator may copy a value into a section (prime-rl shares a top-level
`max_steps` into each component), writing into the data it is handed in place. The copy is no
value of the file that set the section: the error at the copy cites no origin (and, being the
flag's error again, is dropped), and neither does a value a validator wrote over one a node set.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest
from pydantic import model_validator

from compose import BaseConfig, ComposeError, parse

if TYPE_CHECKING:
    from conftest import WriteFile

INT_ERROR = "Input should be a valid integer, unable to parse string as an integer"


class Optim(BaseConfig):
    lr: float = 1e-3


class Trainer(BaseConfig):
    max_steps: int = 10
    optim: Optim = Optim()


class Shared(BaseConfig):
    """prime-rl's shape: a shared value copied into a component, in place."""

    max_steps: int = 10
    trainer: Trainer = Trainer()

    @model_validator(mode="before")
    @classmethod
    def _share(cls, data: Any) -> Any:
        if isinstance(data, dict) and "max_steps" in data:
            data.setdefault("trainer", {})["max_steps"] = data["max_steps"]
        return data


def _errors(argv: list[str]) -> list[str]:
    with pytest.raises(ComposeError) as caught:
        parse(Shared, argv)
    return [str(error) for error in caught.value.errors]


@pytest.mark.parametrize(
    "text",
    [
        "# the run\n[trainer.optim]\nlr = 0.1\n",  # the copy is no value of [trainer.optim]'s line
        "[trainer]\nmax_steps = 5\n\n[trainer.optim]\nlr = 0.1\n",  # nor of the 5 it replaced
    ],
)
def test_a_value_a_validator_copied_from_a_flag_cites_no_line_of_the_file(
    write: WriteFile, text: str
) -> None:
    write("grpo.toml", text)
    errors = _errors(["@", "grpo.toml", "--max-steps", "ten"])
    assert errors == [f"--max-steps = 'ten': {INT_ERROR}"]


def test_a_value_the_file_set_still_cites_its_line(write: WriteFile) -> None:
    write("grpo.toml", "[trainer]\nmax_steps = 'five'\n")
    assert _errors(["@", "grpo.toml"]) == [
        f"--trainer.max-steps = 'five' (from grpo.toml:2): {INT_ERROR}"
    ]


class Injecting(BaseConfig):
    """A validator that adds a key its section's class does not have."""

    trainer: Trainer = Trainer()

    @model_validator(mode="before")
    @classmethod
    def _inject(cls, data: Any) -> Any:
        if isinstance(data, dict) and isinstance(data.get("trainer"), dict):
            data["trainer"]["warmup"] = 3
        return data


def test_a_key_a_validator_added_cites_no_line_of_the_section_around_it(
    write: WriteFile,
) -> None:
    write("grpo.toml", "[trainer]\nmax_steps = 5\n")
    with pytest.raises(ComposeError) as caught:
        parse(Injecting, ["@", "grpo.toml"])
    assert str(caught.value) == "--trainer.warmup = 3: unknown key"
