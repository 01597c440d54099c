"""Secrets: a `SecretStr` round-trips through the files compose writes, and is never shown.

Users have leaked API keys into trackers through printed configs: `compose show` (resolved or
not), `explain`, composed `--help` and errors mask a secret; `to_toml` and `write_configs`
write it, the latter in a file only its owner reads.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import COMPOSE, run_command
from pydantic import Field, SecretBytes, SecretStr

from compose import BaseConfig, ComposeError, HelpRequested, compose, parse, to_toml, write_configs

if TYPE_CHECKING:
    from conftest import WriteFile

SCHEMA = """
from pydantic import SecretStr
from compose import BaseConfig

class Api(BaseConfig):
    key: SecretStr = SecretStr("")
    name: str = "x"

class App(BaseConfig):
    api: Api = Api()
"""


class Api(BaseConfig):
    key: SecretStr = SecretStr("")
    token: SecretBytes | None = None
    name: str = "x"


class App(BaseConfig):
    api: Api = Api()


def test_to_toml_and_write_configs_round_trip_a_secret(write: WriteFile, tmp_path: Path) -> None:
    app = parse(App, ["--api.key", "sk-123", "--api.token", "tok"])
    assert 'key = "sk-123"' in to_toml(app)
    (written,) = write_configs(tmp_path / "run", {"app": app})
    assert compose([written], schema=App) == app
    assert stat.S_IMODE(written.stat().st_mode) == 0o600


def test_a_file_without_secrets_follows_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o022)
    try:
        (written,) = write_configs(tmp_path, {"app": {"name": "x"}})
    finally:
        os.umask(previous)
    assert stat.S_IMODE(written.stat().st_mode) == 0o644


def _compose(*argv: str, cwd: Path) -> str:
    """stdout and stderr of the installed `compose ARGV`: a secret must be in neither."""
    _, out, err = run_command([COMPOSE, *argv], cwd=cwd)
    return out + err


@pytest.mark.parametrize(
    "command",
    [
        ["show", "--schema", "secapp:App", "--api.key", "sk-123"],
        ["show", "--resolved", "--schema", "secapp:App", "--api.key", "sk-123"],
        ["show", "--resolved", "--format", "json", "--schema", "secapp:App", "--api.key", "sk-123"],
        ["show", "--schema", "secapp:App", "@", "creds.toml"],
        ["explain", "--schema", "secapp:App", "api.key", "@", "creds.toml"],
    ],
)
def test_the_compose_command_never_prints_a_secret(
    write: WriteFile, tmp_path: Path, command: list[str]
) -> None:
    write("secapp.py", SCHEMA)
    write("creds.toml", '[api]\nkey = "sk-123"\n')
    out = _compose(*command, cwd=tmp_path)
    assert "sk-123" not in out
    assert "**********" in out


VAULT_SCHEMA = """
from pydantic import SecretStr
from compose import BaseConfig

class Login(BaseConfig):
    user: str = "u"
    token: SecretStr = SecretStr("")

class Vault(BaseConfig):
    logins: list[Login] = []
    tokens: dict[str, SecretStr] = {}
    keys: list[SecretStr] = []
"""


@pytest.mark.parametrize(
    "command",
    [
        ["show", "--schema", "vaultapp:Vault", "@", "vault.toml"],
        ["show", "--resolved", "--schema", "vaultapp:Vault", "@", "vault.toml"],
        ["explain", "--schema", "vaultapp:Vault", "tokens.a", "@", "vault.toml"],
        ["explain", "--schema", "vaultapp:Vault", "tokens", "@", "vault.toml"],
        ["explain", "--schema", "vaultapp:Vault", "keys", "@", "vault.toml"],
        ["explain", "--schema", "vaultapp:Vault", "logins", "@", "vault.toml"],
        ["check", "--schema", "vaultapp:Vault", "bad.toml"],
        ["show", "--resolved", "--schema", "vaultapp:Vault", "@", "bad.toml"],
    ],
)
def test_a_secret_in_a_dict_or_a_list_is_never_printed(
    write: WriteFile, tmp_path: Path, command: list[str]
) -> None:
    """`dict[str, SecretStr]` values, `list[SecretStr]` elements, and a section's secret
    inside a list, shown whole or one by one, in a value or in an error."""
    write("vaultapp.py", VAULT_SCHEMA)
    write(
        "vault.toml",
        'keys = ["sk-101"]\n[tokens]\na = "sk-102"\n[[logins]]\ntoken = "sk-103"\n',
    )
    write("bad.toml", "[tokens]\na = 9104\n[[logins]]\ntoken = 9105\n")
    out = _compose(*command, cwd=tmp_path)
    assert not any(secret in out for secret in ["sk-10", "9104", "9105"]), out
    assert "**********" in out


UNION_SCHEMA = """
from typing import Literal, Union
from pydantic import Field, SecretStr
from compose import BaseConfig

class Keyed(BaseConfig):
    type: Literal["keyed"] = "keyed"
    key: SecretStr = SecretStr("")

class Open(BaseConfig):
    type: Literal["open"] = "open"

class App(BaseConfig):
    client: Union[Keyed, Open] = Field(default_factory=Keyed, discriminator="type")
"""


def test_explain_masks_a_secret_inside_a_union_section(write: WriteFile, tmp_path: Path) -> None:
    """Which variant holds the secret is known from the composition's tree only."""
    write("unionapp.py", UNION_SCHEMA)
    write("creds.toml", '[client]\ntype = "keyed"\nkey = "sk-123"\n')
    out = _compose(
        "explain", "--schema", "unionapp:App", "client.key", "@", "creds.toml", cwd=tmp_path
    )
    assert "sk-123" not in out
    assert out.endswith("=> ********** (from creds.toml:3)\n")


def test_composed_help_masks_a_secret() -> None:
    with pytest.raises(HelpRequested) as caught:
        parse(App, ["--api.key", "sk-123", "--help"])
    assert "sk-123" not in caught.value.text
    assert "'**********', from --api.key" in caught.value.text


def test_an_unknown_table_is_shown_by_its_keys(write: WriteFile) -> None:
    """A credentials file included at the root: the error names its keys, not its token."""
    write("run.toml", '[credentials]\ntoken = "sk-123"\nuser = "me"\n')
    with pytest.raises(ComposeError) as caught:
        compose(["run.toml"], schema=App)
    assert str(caught.value) == (
        "--credentials = {'token': ..., 'user': ...} (from run.toml:1): unknown key"
    )


def test_a_secret_from_the_environment_is_written_as_its_reference(
    write: WriteFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The run directory never holds the key: each component reads its own environment."""
    monkeypatch.setenv("API_KEY", "sk-123")
    write("run.toml", '[api]\nkey = "${oc.env:API_KEY}"\ntoken = "${oc.env:TOKEN,tok}"\n')
    app = compose(["run.toml"], schema=App)
    assert app.api.key.get_secret_value() == "sk-123"
    assert app == App(api=Api(key=SecretStr("sk-123"), token=SecretBytes(b"tok")))
    previous = os.umask(0o022)
    try:
        (written,) = write_configs(tmp_path / "run", {"app": app})
    finally:
        os.umask(previous)
    text = written.read_text()
    assert 'key = "${oc.env:API_KEY}"' in text
    assert 'token = "${oc.env:TOKEN,tok}"' in text
    assert "sk-123" not in text
    assert stat.S_IMODE(written.stat().st_mode) == 0o644  # it holds no secret
    monkeypatch.setenv("API_KEY", "sk-456")  # the component's own environment
    assert compose([written], schema=App).api.key.get_secret_value() == "sk-456"


def test_a_secret_built_from_more_than_a_variable_is_written_as_its_value(
    write: WriteFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("API_KEY", "123")
    write("run.toml", '[api]\nkey = "sk-${oc.env:API_KEY}"\nname = "${oc.env:API_KEY}"\n')
    (written,) = write_configs(tmp_path / "run", {"app": compose(["run.toml"], schema=App)})
    text = written.read_text()
    assert 'key = "sk-123"' in text
    assert 'name = "123"' in text  # not a secret field: its value, as any other
    assert stat.S_IMODE(written.stat().st_mode) == 0o600


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["--api.key", "sk-1"],
            "--api.key = '**********': Value should have at least 10 items after validation, not 4",
        ),
        (
            ["@", "short.toml"],
            "--api.key = '**********' (from short.toml:2): Value should have at least 10 items "
            "after validation, not 4",
        ),
        (["--api.kye", "sk-1"], "--api.kye = '**********': unknown key; did you mean --api.key?"),
        (["--key", "sk-1"], "--key = '**********': unknown key; did you mean --api.key?"),
    ],
)
def test_an_error_never_shows_a_secret(write: WriteFile, argv: list[str], expected: str) -> None:
    """A rejected secret, or one under a misspelled key, is masked in the error."""

    class Strict(BaseConfig):
        key: SecretStr = Field(default=SecretStr(""), min_length=10)
        name: str = "x"

    class StrictApp(BaseConfig):
        api: Strict = Strict()

    write("short.toml", '[api]\nkey = "sk-1"\n')
    with pytest.raises(ComposeError) as caught:
        parse(StrictApp, argv)
    assert "sk-1" not in str(caught.value)
    assert str(caught.value) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "Pa55${word",
            "--api.key = '**********' (from bad.toml:2): invalid interpolation syntax: "
            "unexpected end of text at column 11",
        ),
        (
            "Pa55${nothere}word",
            "--api.key = '**********' (from bad.toml:2): interpolation ${nothere}: key nothere "
            "not found",
        ),
        ("???", "--api.key = '**********' (from bad.toml:2): missing mandatory value"),
    ],
    ids=["bad syntax", "no such key", "mandatory"],
)
def test_an_interpolation_error_never_shows_a_secret_s_text(
    write: WriteFile, text: str, expected: str
) -> None:
    """A secret whose text holds a `${` that cannot be resolved: the error names the key and
    the reason, never the text (which `compose check` printed into CI logs)."""
    write("bad.toml", f'[api]\nkey = "{text}"\n')
    with pytest.raises(ComposeError) as caught:
        parse(App, ["@", "bad.toml"])
    assert "Pa55" not in str(caught.value)
    assert str(caught.value) == expected


def test_diff_says_two_secrets_differ_without_showing_them(
    write: WriteFile, tmp_path: Path
) -> None:
    write("secapp.py", SCHEMA)
    write("a.toml", '[api]\nkey = "sk-111"\n')
    write("b.toml", '[api]\nkey = "sk-222"\n')
    out = _compose(
        "diff", "--schema", "secapp:App", "@", "a.toml", "--", "@", "b.toml", cwd=tmp_path
    )
    assert out == "--api.key: '**********' (a.toml:2) -> '**********' (b.toml:2)\n"


@pytest.mark.parametrize(
    ("argv", "file"),
    [
        (["--api", '{"key": "sk-live"}'], None),  # JSON for a section: refused, never shown
        (["@", "bad.toml"], 'api = [{key = "sk-live"}]\n'),  # a list where a section goes
        (["@", "bad.toml"], 'api = "sk-live"\n'),  # text where a section goes
    ],
)
def test_a_value_of_the_wrong_kind_where_a_secret_goes_is_shown_masked(
    write: WriteFile, argv: list[str], file: str | None
) -> None:
    if file is not None:
        write("bad.toml", file)
    with pytest.raises(ComposeError) as caught:
        parse(App, argv)
    assert "sk-live" not in str(caught.value)
    assert "**********" in str(caught.value) and "--api" in str(caught.value)


@pytest.mark.parametrize(
    ("value", "copied"),
    [
        ("Bearer ${api.key}", "api.key"),  # into text
        ("${oc.select:api.key}", "api.key"),  # by a resolver's lookup
        ("${.key}", "api.key"),  # relative
    ],
)
def test_a_secret_copied_into_a_plain_field_is_refused_never_printed(
    write: WriteFile, tmp_path: Path, value: str, copied: str
) -> None:
    """`show --resolved` masks a field by its type: a secret interpolated into a `str` would be
    printed (and recorded, and `print(config)`-ed) in clear, so the copy is an error."""
    write("secapp.py", SCHEMA)
    write("creds.toml", f'[api]\nkey = "sk-123"\nname = "{value}"\n')
    argv = ["show", "--resolved", "--schema", "secapp:App", "@", "creds.toml"]
    code, out, err = run_command([COMPOSE, *argv], cwd=tmp_path)
    assert (code, out) == (2, "")
    assert f"copies the secret {copied} into api.name, which is not a secret field" in err
    assert "sk-123" not in err


class Keys(BaseConfig):
    api: Api = Api()
    backup: Api = Api()
    tokens: dict[str, SecretStr] = {}
    plain: dict[str, str] = {}


def test_a_secret_may_be_copied_where_a_secret_goes_and_nowhere_else() -> None:
    config = parse(
        Keys,
        ["--api.key", "sk-1", "--backup", "${api}", "--tokens.a", "${api.key}"],
    )
    assert config.backup.key.get_secret_value() == "sk-1"  # a section copied whole
    assert config.tokens["a"].get_secret_value() == "sk-1"
    with pytest.raises(ComposeError, match=r"copies the secret api\.key into plain") as caught:
        parse(Keys, ["--api.key", "sk-1", "--plain", "${api}"])
    assert "sk-1" not in caught.value.format()
