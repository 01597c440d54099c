"""`${now:FORMAT}`: built in, and one instant per composition whatever the formats."""

from __future__ import annotations

import datetime
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from compose import ComposeError, compose


def _compose_text(
    tmp_path: Path, text: str, resolvers: dict[str, Callable[..., Any]] | None = None
) -> dict[str, Any]:
    path = tmp_path / "a.toml"
    path.write_text(text)
    return compose([str(path)], resolvers=resolvers)


def test_every_use_in_one_composition_is_the_same_instant(tmp_path: Path) -> None:
    text = "\n".join(f'k{i} = "${{now:%Y-%m-%d %H:%M:%S.%f}}"' for i in range(50))
    text += '\niso = "${now:}"\nstamp = "${now:%s}"\n'
    cfg = _compose_text(tmp_path, text)
    micro = {cfg[f"k{i}"] for i in range(50)}
    assert len(micro) == 1  # to the microsecond, though 50 calls were made
    instant = datetime.datetime.fromisoformat(str(cfg["iso"]))
    assert instant.utcoffset() is not None  # ISO with the offset
    assert int(str(cfg["stamp"])) == int(instant.timestamp())
    assert micro.pop().startswith(instant.strftime("%Y-%m-%d %H:%M:%S"))


def test_hydra_format_and_a_reference_to_it(tmp_path: Path) -> None:
    cfg = _compose_text(
        tmp_path, 'day = "${now:%Y-%m-%d_%H-%M-%S}"\nrun_dir = "runs/${day}-${now:%f}"\n'
    )
    parsed = datetime.datetime.strptime(str(cfg["day"]), "%Y-%m-%d_%H-%M-%S")
    assert abs(parsed - datetime.datetime.now()) < datetime.timedelta(minutes=5)
    assert str(cfg["run_dir"]).startswith(f"runs/{cfg['day']}-")


def test_a_resolver_passed_per_call_replaces_it(tmp_path: Path) -> None:
    cfg = _compose_text(tmp_path, 'date = "${now:}"\n', resolvers={"now": lambda: "2026-11-29"})
    assert cfg == {"date": "2026-11-29"}


def test_a_format_that_is_not_text_is_one_error_with_key_and_origin(tmp_path: Path) -> None:
    with pytest.raises(ComposeError) as caught:
        _compose_text(tmp_path, 'x = 1\nwhen = "${now:1}"\n')
    message = str(caught.value)
    assert "when" in message and "a.toml:2" in message
    assert "strftime format" in message


def test_a_comma_in_a_format_is_escaped_and_a_bare_one_is_one_clear_error(
    tmp_path: Path,
) -> None:
    """A resolver's arguments split at commas: `${now:%b %d\\, %Y}` is one format; a bare comma
    makes two, which the error says how to write (not a TypeError about an inner function)."""
    cfg = compose([], ["day=${now:%b %d\\, %Y}"], now="2026-01-02T00:00:00Z")
    assert cfg["day"] == "Jan 02, 2026"
    with pytest.raises(ComposeError) as caught:
        _compose_text(tmp_path, 'when = "${now:%b %d, %Y}"\n')
    message = str(caught.value)
    assert "when" in message and "a.toml:1" in message
    assert "now takes one strftime format: write a comma in it as \\," in message
    assert "TypeError" not in message and "locals" not in message


# --- the instant given as text: compose's words, the same on every Python ----------------------


@pytest.mark.parametrize(
    ("given", "shown"),
    [
        ("2026-12-04T21:00:00Z", "21:00+0000"),
        ("2026-12-04T21:00:00z", "21:00+0000"),  # RFC 3339 allows the lower case
        ("2026-12-04t21:00:00z", "21:00+0000"),
        ("2026-12-04T21:00:00+00:00", "21:00+0000"),
        ("2026-12-04T21:00:00+0530", "21:00+0530"),  # as `date +%z` prints an offset
        ("2026-12-04 21:00-05:00", "21:00-0500"),
    ],
)
def test_an_offset_given_is_the_one_percent_z_shows(given: str, shown: str) -> None:
    assert compose([], ["t=${now:%H:%M%z}"], now=given)["t"] == shown
    environ = {"COMPOSE_NOW": given}
    assert compose([], ["t=${now:%H:%M%z}"], environ=environ)["t"] == shown


def test_a_fraction_of_up_to_six_digits_is_read_on_every_python() -> None:
    """Python 3.10's `fromisoformat` reads three or six digits only."""
    assert compose([], ["t=${now:%S.%f}"], now="2026-12-04T21:00:07.5Z")["t"] == "07.500000"


@pytest.mark.parametrize(
    "given",
    [
        "20261204T210000Z",  # ISO 8601's basic format: Python 3.11 reads it, 3.10 does not
        "2026-W49-5",  # a week date: the same
        "2026-12-04T21:00:00.1234567Z",  # past microseconds
        "2026-12-04x21:00:00",  # any one character between date and time: every Python
        "2026-12-04Z",  # an offset without a time
        "2026-12-04T21:00:00ZZ",
    ],
)
def test_other_forms_are_no_instant_on_every_python(given: str) -> None:
    with pytest.raises(ComposeError) as caught:
        compose([], ["t=${now:}"], now=given)
    assert str(caught.value).startswith(f"now = {given!r} (from now=): is no instant")


# --- what a format may build is bounded before it is formatted --------------------------------


def test_a_format_that_may_give_past_the_size_limit_is_refused_before_it_is_formatted(
    tmp_path: Path,
) -> None:
    """strftime pads a directive to any width (`%300Y`): a format may give 256 times its length,
    and a `${now:}` is refused where that passes what a resolution may build (10,000,000)."""
    with pytest.raises(ComposeError) as caught:
        _compose_text(tmp_path, 'tag = "${now:' + "%Y" * 100_000 + '}"\n')
    (error,) = caught.value.errors
    assert (error.key, error.origin) == ("--tag", f"{tmp_path / 'a.toml'}:1")
    assert error.message == (
        "interpolation ${now:...}: a format of 200,000 characters may give 51,200,000, "
        "past the 10,000,000 a resolution may build"
    )
    longest = "%Y" * 19_531  # 39,062 characters: 9,999,872 at most
    tag = compose([], [f"tag=${{now:{longest}}}"], now="2026-01-01T00:00:00Z")["tag"]
    assert tag == "2026" * 19_531
    with pytest.raises(ComposeError, match="a format of 39,063 characters"):
        compose([], [f"tag=${{now:{longest}x}}"], now="2026-01-01T00:00:00Z")


def test_a_resolvers_text_counts_toward_the_size_limit() -> None:
    big = {"big": lambda: "x" * 6_000_000}
    assert len(str(compose([], ["a=${big:}"], resolvers=big)["a"])) == 6_000_000
    with pytest.raises(ComposeError, match="results grow past 10,000,000 characters"):
        compose([], ["a=${big:}", "b=${big:}"], resolvers=big)
