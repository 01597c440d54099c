"""`compose migrate --schema MODULE:CLASS [--section KEY] [--check] FILE...` (docs/18): each old
TOML file rewritten in place by the schema's migrations, every untouched line kept byte for byte
and the version stamped; a second run changes nothing; `--check` writes nothing, prints the
diff and exits 1 when a file would change; a bad file among several leaves every file as it was;
a file keeps its permissions; bad input is one error, never a traceback."""

from __future__ import annotations

import os
import shutil
import signal
import stat
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import TESTS, examples, run_command, run_compose
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from strategies import documents

from compose import ComposeWarning, Migration, move_key, parse, remove_key

if TYPE_CHECKING:
    from conftest import WriteFile

SCHEMA = "test_migrations:Config"  # tests/merge/test_migrations.py's schema, at version 3
OLD = """\
# written by version 1
max_steps = 3  # a top-level key

[trainer]
max_norm = 0.5  # clip here
compile = true
seed = "7"   # a string, once

# the optimizer
[trainer.optim]
lr = 1e-5   # keep me
betas = [0.8, 0.95]
"""
MIGRATED = """\
# written by version 1
max_steps = 3  # a top-level key
schema_version = 3

[trainer]
seed = 7   # a string, once

# the optimizer
[trainer.optim]
lr = 1e-5   # keep me
max_norm = 0.5  # clip here
betas1 = 0.8
betas2 = 0.95
"""


@pytest.fixture(autouse=True)
def _schemas_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(TESTS / "merge"))


AppModule = Callable[[str, str], str]


@pytest.fixture
def app_module(write: WriteFile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> AppModule:
    """`app_module(NAME, SOURCE)` writes the schema module NAME.py where it is imported from,
    and gives `--schema`'s value for its `App`."""
    monkeypatch.syspath_prepend(str(tmp_path))

    def written(name: str, source: str) -> str:
        write(f"{name}.py", source)
        return f"{name}:App"

    return written


def _migrate(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    return run_compose(capsys, "migrate", "--schema", SCHEMA, *argv)


def test_a_file_is_rewritten_in_place_keeping_every_untouched_line(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("old.toml", OLD)
    code, out, err = _migrate(capsys, "old.toml")
    assert (code, err) == (0, "")
    assert Path("old.toml").read_text() == MIGRATED
    assert out == (
        "old.toml: migrated from schema version 1 to 3\n"
        "  old.toml:5: --trainer.max-norm moved to --trainer.optim.max-norm (1 -> 2)\n"
        "  old.toml:6: --trainer.compile is removed: compilation is always on (1 -> 2)\n"
        "  old.toml:12: --trainer.optim.betas is removed by step `split_betas` (2 -> 3)\n"
        "  old.toml:7: --trainer.seed is converted to its new format by `int` (2 -> 3)\n"
    )
    assert sorted(os.listdir(".")) == ["old.toml"]  # no temporary left beside it


def test_a_second_run_changes_nothing(write: WriteFile, capsys: pytest.CaptureFixture[str]) -> None:
    write("old.toml", OLD)
    _migrate(capsys, "old.toml")
    code, out, _ = _migrate(capsys, "old.toml")
    assert (code, out) == (0, "old.toml: up to date (schema version 3)\n")
    assert Path("old.toml").read_text() == MIGRATED


def test_a_moved_value_keeps_the_comment_on_its_line(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """What a comment says of a value goes where the value goes (a boolean too, which tomlkit
    hands out unwrapped, without its comment); the lines around it stay as they were."""
    write("moved.py", MOVED_SCHEMA)
    write("old.toml", "[trainer]\nflag = true #  on purpose\nkeep = 1  # mine\n\n[run]\nkeep = 2\n")
    code, _, err = run_compose(capsys, "migrate", "--schema", "moved:Top", "old.toml")
    assert (code, err) == (0, "")
    assert Path("old.toml").read_text() == (
        "schema_version = 2\n\n[trainer]\nkeep = 1  # mine\n\n[run]\nkeep = 2\n"
        "flag = true #  on purpose\n"
    )


MOVED_SCHEMA = """
from compose import BaseConfig, Migration, move_key, versioned

class Trainer(BaseConfig):
    keep: int = 0

class Run(BaseConfig):
    flag: bool = False
    keep: int = 0

@versioned(Migration(1, 2, move_key("trainer.flag", "run.flag")))
class Top(BaseConfig):
    trainer: Trainer = Trainer()
    run: Run = Run()
"""


def test_check_prints_the_diff_writes_nothing_and_exits_1_while_a_file_would_change(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("old.toml", OLD)
    code, out, _ = _migrate(capsys, "--check", "old.toml")
    assert code == 1
    assert Path("old.toml").read_text() == OLD
    assert out.startswith("--- old.toml\n+++ old.toml (migrated)\n")
    assert "-max_norm = 0.5  # clip here\n" in out
    assert "+max_norm = 0.5  # clip here\n" in out
    assert "+schema_version = 3\n" in out
    _migrate(capsys, "old.toml")
    assert _migrate(capsys, "--check", "old.toml")[0] == 0


def test_a_section_file_is_migrated_with_section(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("trainer.toml", "# trainer only\nmax_norm = 0.25  # clip\nseed = 4\n")
    code, _, _ = _migrate(capsys, "--section", "trainer", "trainer.toml")
    assert code == 0
    assert Path("trainer.toml").read_text() == (
        "# trainer only\nseed = 4\nschema_version = 3\n\n[optim]\nmax_norm = 0.25  # clip\n"
    )


def test_a_migrated_file_loads_as_the_old_one_did_without_warnings(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    import warnings

    from test_migrations import Config

    from compose import parse

    old = OLD.replace("max_steps = 3  # a top-level key\n", "")
    write("old.toml", old)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        before = parse(Config, ["@", "old.toml"])
    _migrate(capsys, "old.toml")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse(Config, ["@", "old.toml"]) == before


def test_one_bad_file_leaves_every_file_as_it_was(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("a.toml", OLD)
    write("b.toml", '[trainer]\nseed = "seven"\n')
    code, out, err = _migrate(capsys, "a.toml", "b.toml")
    assert code == 2
    assert out == ""
    assert err == (
        "error: --trainer.seed = 'seven' (from b.toml:2): migration 2 -> 3 failed: ValueError: "
        "invalid literal for int() with base 10: 'seven'\n"
    )
    assert Path("a.toml").read_text() == OLD


def test_a_file_keeps_its_permissions_and_a_symlink_stays_a_link(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("real.toml", OLD)
    os.chmod("real.toml", 0o640)
    os.symlink("real.toml", "link.toml")
    assert _migrate(capsys, "link.toml")[0] == 0
    assert os.path.islink("link.toml")
    assert Path("real.toml").read_text() == MIGRATED
    assert os.stat("real.toml").st_mode & 0o777 == 0o640


@pytest.mark.parametrize(
    ("section", "message"),
    [
        ("trainr", "error: --trainr (from --section): unknown key; did you mean --trainer?\n"),
        (
            "trainer.seed",
            "error: --section = 'trainer.seed': is a value, not a section: a file can only be "
            "loaded into a section\n",
        ),
    ],
)
def test_a_section_the_schema_lacks_is_one_error_and_the_file_stays(
    write: WriteFile, capsys: pytest.CaptureFixture[str], section: str, message: str
) -> None:
    """Not stamped with the version at a section no step knows: the file would then claim a
    version whose steps never ran on it (its `max_norm` would never move)."""
    write("trainer.toml", "max_norm = 0.25\n")
    code, out, err = _migrate(capsys, "--section", section, "trainer.toml")
    assert (code, out, err) == (2, "", message)
    assert Path("trainer.toml").read_text() == "max_norm = 0.25\n"


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        (
            "a.json",
            "{}",
            "error: a.json: is JSON: only TOML files are migrated in place; its data is "
            "migrated whenever it is loaded\n",
        ),
        ("bad.toml", "x = \n", "error: bad.toml:1:5: invalid TOML: Invalid value\n"),
        (
            "future.toml",
            "schema_version = 4\n",
            "error: schema_version = 4 (from future.toml:1): the file is written for a newer "
            "schema: this app reads versions up to 3; run it with the version of the app that "
            "wrote it\n",
        ),
    ],
)
def test_a_file_that_cannot_be_migrated_is_one_error(
    write: WriteFile, capsys: pytest.CaptureFixture[str], name: str, text: str, message: str
) -> None:
    write(name, text)
    code, _, err = _migrate(capsys, name)
    assert (code, err) == (2, message)
    assert Path(name).read_text() == text


def test_a_missing_file_is_one_error(write: WriteFile, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _migrate(capsys, "gone.toml")
    assert code == 2
    assert err.startswith("error: gone.toml: file not found")


def test_bad_command_lines_are_one_error(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_compose(capsys, "migrate", "a.toml")[2] == (
        "error: migrate: expects --schema MODULE:CLASS: the schema whose migrations to run\n"
    )
    assert _migrate(capsys)[2] == "error: migrate: expects FILE...: the TOML files to migrate\n"
    code, _, err = run_compose(capsys, "migrate", "--schema", "test_migrations:Plain", "a.toml")
    assert code == 2
    assert err == (
        "error: --schema = 'test_migrations:Plain': declares no schema version: nothing to "
        "migrate to; declare its migrations with `versioned(...)` on the class\n"
    )


def test_without_tomlkit_the_error_says_what_to_install(
    write: WriteFile, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    write("old.toml", OLD)
    monkeypatch.setitem(sys.modules, "tomlkit", None)  # import tomlkit raises ImportError
    code, _, err = _migrate(capsys, "old.toml")
    assert (code, err) == (
        2,
        "error: `compose migrate` rewrites TOML with tomlkit, which is not installed; "
        "pip install 'compose-config[migrate]'\n",
    )
    assert Path("old.toml").read_text() == OLD


def test_the_rl_examples_version_1_file_loads_with_warnings_and_migrates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import warnings

    from rl_app.config import RLConfig

    from compose import ComposeWarning, parse

    monkeypatch.chdir(tmp_path)
    shutil.copy(TESTS / "fixtures" / "rl-v1.toml", "rl.toml")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = parse(RLConfig, ["@", "rl.toml"])
    assert old.trainer.optim.max_norm == 0.5
    hint = "`compose migrate --schema rl_app.config.rl:RLConfig rl.toml` updates the file"
    assert [str(w.message) for w in caught if issubclass(w.category, ComposeWarning)] == [
        "--trainer.max-norm moved to --trainer.optim.max-norm (schema version 1 -> 2); found in "
        f"rl.toml:10; {hint}",
        "--trainer.recompute-logprobs is removed: the trainer always recomputes them (schema "
        f"version 1 -> 2); found in rl.toml:11; {hint}",
    ]
    code, _, _ = run_compose(capsys, "migrate", "--schema", "rl_app.config:RLConfig", "rl.toml")
    assert code == 0
    text = Path("rl.toml").read_text()
    assert "schema_version = 2\n" in text
    assert text.startswith("# A run config written for the rl example's schema version 1")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert parse(RLConfig, ["@", "rl.toml"]) == old


def _table_paths(tree: dict[str, object], path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every key path of `tree` that goes through tables only."""
    found: list[tuple[str, ...]] = []
    for key, value in tree.items():
        found.append((*path, key))
        if isinstance(value, dict):
            found += _table_paths(value, (*path, key))
    return found


@given(document=documents(mandatory=False), data=st.data())
@settings(max_examples=examples(150))
def test_any_file_with_a_key_moved_or_removed_is_rewritten_to_the_migrated_data(
    document: dict[str, object], data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    from compose import to_toml
    from compose._cli.migrate import _rewrite
    from compose._input.files import parse_toml
    from compose._merge.migrations import Step, Versions

    # a dotted path names keys without dots (and no empty key) unambiguously
    paths = [path for path in _table_paths(document) if all(s and "." not in s for s in path)]
    assume(paths)
    old = ".".join(data.draw(st.sampled_from(paths)))
    steps: list[Step] = [move_key(old, "moved.here"), remove_key(old, "gone")]
    step = data.draw(st.sampled_from(steps))
    shown = str(tmp_path_factory.mktemp("doc") / "f.toml")
    Path(shown).write_text(to_toml(document))
    versions = Versions((Migration(1, 2, step),))
    _, migrated, new_text = _rewrite(shown, (), versions, str, lambda data, path: False)
    assert parse_toml(shown, new_text) == {"schema_version": 2, **migrated.table}
    Path(shown).write_text(new_text)
    assert _rewrite(shown, (), versions, str, lambda data, path: False)[2] == new_text


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (  # dotted keys
            "trainer.max_norm = 0.5  # dotted\ntrainer.seed = 1\n",
            "schema_version = 3\ntrainer.seed = 1\n\n[trainer.optim]\nmax_norm = 0.5  # dotted\n",
        ),
        (  # an inline table stays one
            "trainer = { max_norm = 0.5, seed = 2 }\n",
            "trainer = {  seed = 2, optim = {max_norm = 0.5}}\nschema_version = 3\n",
        ),
        (  # a sub-table written before its parent
            "[trainer.optim]\nlr = 1.0\n[trainer]\nmax_norm = 0.5\n",
            "schema_version = 3\n\n[trainer.optim]\nlr = 1.0\nmax_norm = 0.5\n",
        ),
        (  # a table made for a moved key keeps the next header apart
            "[trainer]\nmax_norm = 0.5\n\n[other]\nx = 1\n",
            "schema_version = 3\n\n[trainer]\n\n[trainer.optim]\nmax_norm = 0.5\n\n"
            "[other]\nx = 1\n",
        ),
    ],
)
def test_hand_written_layouts_are_edited_in_place(
    write: WriteFile, capsys: pytest.CaptureFixture[str], text: str, expected: str
) -> None:
    write("f.toml", text)
    assert _migrate(capsys, "f.toml")[0] == 0
    assert Path("f.toml").read_text() == expected


def test_an_edit_tomlkit_fails_at_is_one_error_and_the_file_stays(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """Dotted keys, one moved and one converted: tomlkit raises IndexError on the second edit
    (tomlkit 0.13 to 0.15). Said as an edit it cannot express, not as a traceback."""
    text = 'trainer.max_norm = 0.5\ntrainer.seed = "3"\n'
    write("f.toml", text)
    code, out, err = _migrate(capsys, "f.toml")
    assert (code, out) == (2, "")
    assert err == (
        "error: f.toml: cannot be rewritten in place: the edited TOML does not hold the migrated "
        "data; edit the file by hand, following the warnings its loading gives\n"
    )
    assert Path("f.toml").read_text() == text


SECRET_APP = """
from pydantic import SecretStr
from compose import BaseConfig, Migration, move_key, versioned

class Trainer(BaseConfig):
    api_key: SecretStr = SecretStr("")
    tokens: dict[str, SecretStr] = {}
    lr: float = 0.1

MOVES = (move_key("trainer.old_lr", "trainer.lr"), move_key("trainer.key", "trainer.api_key"))

@versioned(Migration(1, 2, *MOVES))
class App(BaseConfig):
    trainer: Trainer = Trainer()
"""


def test_check_never_prints_a_secret_in_its_diff(
    write: WriteFile,
    capsys: pytest.CaptureFixture[str],
    app_module: AppModule,
) -> None:
    """`--check` in CI prints the diff of a file: a secret's line, moved or beside a changed
    one, shows the mask, on both sides."""
    schema = app_module("secretapp", SECRET_APP)
    text = '[trainer]\nold_lr = 0.5\nkey = "sk-moved-1"\n\n[trainer.tokens]\na = "sk-kept-2"\n'
    write("s.toml", text)
    code, out, err = run_compose(capsys, "migrate", "--schema", schema, "--check", "s.toml")
    assert (code, err) == (1, "")
    assert "sk-" not in out
    assert '-key = "**********"\n' in out
    assert '+api_key = "**********"\n' in out
    assert ' a = "**********"\n' in out
    assert Path("s.toml").read_text() == text


REMOVING_APP = """
from compose import BaseConfig, Migration, remove_key, versioned

def drop_legacy(data):
    data.get("trainer", {}).pop("legacy_token", None)
    return data

class Trainer(BaseConfig):
    lr: float = 0.1

REMOVED = (remove_key("trainer.password", "log in with a key"), remove_key("trainer.retries", "."))

@versioned(Migration(1, 2, *REMOVED, drop_legacy))
class App(BaseConfig):
    trainer: Trainer = Trainer()
"""


def test_check_never_prints_the_value_of_a_removed_key(
    write: WriteFile,
    capsys: pytest.CaptureFixture[str],
    app_module: AppModule,
) -> None:
    """A key a migration drops is no field of the schema any more, so the schema cannot say
    whether it was a secret (a removed password usually was): its line in `--check`'s diff
    shows the mask if it holds text, whether `remove_key` or a step of the app's own dropped
    it; a kept key's value, and a number dropped, are shown as they are."""
    schema = app_module("removing", REMOVING_APP)
    text = '[trainer]\nlr = 0.5\npassword = "hunter2"\nlegacy_token = "sk-old-3"\nretries = 3\n'
    write("r.toml", text)
    code, out, err = run_compose(capsys, "migrate", "--schema", schema, "--check", "r.toml")
    assert (code, err) == (1, "")
    assert "hunter2" not in out and "sk-old" not in out
    assert '-password = "**********"\n' in out
    assert '-legacy_token = "**********"\n' in out
    assert "-retries = 3\n" in out  # a number: no secret, shown as what goes
    assert " lr = 0.5\n" in out
    assert Path("r.toml").read_text() == text


def test_a_file_that_cannot_be_written_leaves_every_file_as_it_was(
    write: WriteFile, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every file is written to a temporary before any replaces its file: one that cannot be
    written (here its rename fails, as an immutable file's does) changes no file."""
    write("a.toml", OLD)
    write("b.toml", OLD)
    replace = os.replace

    def refusing(source: str, target: str, **at: Any) -> None:
        if str(target).endswith("b.toml"):
            raise PermissionError(1, "Operation not permitted")
        replace(source, target, **at)

    monkeypatch.setattr(os, "replace", refusing)
    code, out, err = _migrate(capsys, "a.toml", "b.toml")
    assert (code, out) == (2, "")
    assert err.startswith("error: ") and "cannot write b.toml: Operation not permitted" in err
    assert Path("a.toml").read_text() == OLD
    assert sorted(os.listdir()) == ["a.toml", "b.toml"]  # no temporary left behind


@pytest.mark.parametrize(
    ("text", "migrated"),
    [
        (  # CRLF throughout: the lines tomlkit adds too
            "[trainer]\r\nmax_norm = 0.5\r\n",
            "schema_version = 3\r\n\r\n[trainer]\r\n\r\n[trainer.optim]\r\nmax_norm = 0.5\r\n",
        ),
        (  # no final newline: none added
            "[trainer]\nmax_norm = 0.5",
            "schema_version = 3\n\n[trainer]\n\n[trainer.optim]\nmax_norm = 0.5",
        ),
        ("", "schema_version = 3\n"),  # an empty file gets a line
    ],
    ids=["crlf", "no final newline", "empty"],
)
def test_the_file_keeps_its_line_endings(
    write: WriteFile, capsys: pytest.CaptureFixture[str], text: str, migrated: str
) -> None:
    Path("e.toml").write_bytes(text.encode())
    assert _migrate(capsys, "e.toml")[0] == 0
    assert Path("e.toml").read_bytes() == migrated.encode()
    code, out, _ = _migrate(capsys, "--check", "e.toml")  # current now, in its own endings
    assert (code, out) == (0, "e.toml: up to date (schema version 3)\n")


def test_a_current_file_without_a_final_newline_is_up_to_date(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """It was reported stale for ever (a diff of two equal lines, exit 1 in CI)."""
    Path("c.toml").write_bytes(b"schema_version = 3\n[trainer]\nseed = 2")
    assert _migrate(capsys, "--check", "c.toml") == (
        0,
        "c.toml: up to date (schema version 3)\n",
        "",
    )


def test_a_nan_is_no_change_and_a_file_holding_one_migrates(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """`nan != nan`: an app's step seemed to change it (a warning for a key nobody touched),
    and the rewritten file never seemed to hold the migrated data (refused)."""
    from test_migrations import Config

    write("n.toml", "[trainer]\nmax_norm = 0.5\n[trainer.optim]\nlr = nan\n")
    with pytest.warns(ComposeWarning) as record:
        parse(Config, ["@", "n.toml"])
    assert not [w for w in record if "optim.lr" in str(w.message)]
    assert _migrate(capsys, "n.toml")[0] == 0
    assert "lr = nan\n" in Path("n.toml").read_text()


KNOWN_ONLY_APP = """
from compose import BaseConfig, Migration, versioned

def known_only(data):
    return {key: value for key, value in data.items() if key == "trainer"}

class Trainer(BaseConfig):
    seed: int = 0
    lr: float = 0.1

@versioned(Migration(1, 2, known_only))
class App(BaseConfig):
    trainer: Trainer = Trainer()
"""


def test_an_include_stays_and_is_not_given_to_the_steps(
    write: WriteFile,
    capsys: pytest.CaptureFixture[str],
    app_module: AppModule,
) -> None:
    """Loading takes `_include_` out before the steps run; so does the rewrite: an app's step
    that keeps only the keys it knows dropped the include, and the file lost its base."""
    schema = app_module("knownonly", KNOWN_ONLY_APP)
    write("base.toml", "[trainer]\nseed = 7\n")
    write("top.toml", '_include_ = ["base.toml"]\n[trainer]\nlr = 0.5\n')
    from knownonly import App  # type: ignore[import-not-found]

    before = parse(App, ["@", "top.toml"])
    assert (before.trainer.seed, before.trainer.lr) == (7, 0.5)
    code, _, err = run_compose(capsys, "migrate", "--schema", schema, "top.toml")
    assert (code, err) == (0, "")
    assert Path("top.toml").read_text().startswith('_include_ = ["base.toml"]\n')
    assert parse(App, ["@", "top.toml"]) == before


MULTILINE_APP = """
from pydantic import SecretStr
from compose import BaseConfig, Migration, move_key, versioned

class Db(BaseConfig):
    token: SecretStr = SecretStr("")
    keys: list[SecretStr] = []
    port: int = 0

@versioned(Migration(1, 2, move_key("db.old_port", "db.port")))
class App(BaseConfig):
    db: Db = Db()
"""


def test_check_masks_every_line_of_a_secret_written_over_several(
    write: WriteFile,
    capsys: pytest.CaptureFixture[str],
    app_module: AppModule,
) -> None:
    """A multi-line string or an array of secrets goes on past its key's line: its other lines
    were printed as they are."""
    schema = app_module("multiline", MULTILINE_APP)
    text = (
        '[db]\ntoken = """first-line\nsecond-secret"""\nkeys = [\n  "k-one",\n  "k-two",\n]\n'
        "old_port = 3\n"
    )
    write("m.toml", text)
    code, out, err = run_compose(capsys, "migrate", "--schema", schema, "--check", "m.toml")
    assert (code, err) == (1, "")
    assert "secret" not in out and "k-" not in out and "first-line" not in out
    assert ' token = "**********"\n' in out and ' keys = "**********"\n' in out
    assert "-old_port = 3\n" in out and "+port = 3\n" in out


TABLE_MOVING_APP = """
from compose import BaseConfig, Migration, move_key, versioned

class Optim(BaseConfig):
    lr: float = 0.1
    wd: float = 0.0

class Trainer(BaseConfig):
    seed: int = 0
    optim: Optim = Optim()

@versioned(Migration(1, 2, move_key("trainer.oldoptim", "trainer.optim")))
class App(BaseConfig):
    trainer: Trainer = Trainer()
"""


def test_a_table_moved_whole_keeps_its_comments_and_layout(
    write: WriteFile,
    capsys: pytest.CaptureFixture[str],
    app_module: AppModule,
) -> None:
    """The table is the file's own, under its new name: it was written anew, every comment in
    it gone."""
    schema = app_module("tablemoving", TABLE_MOVING_APP)
    text = (
        "[trainer]\nseed = 1\n\n[trainer.oldoptim]  # optimizer settings\n"
        "# learning rate is tuned\nlr = 0.1  # tuned on v1\nwd   = 0.01\n"
    )
    write("t.toml", text)
    code, _, err = run_compose(capsys, "migrate", "--schema", schema, "t.toml")
    assert (code, err) == (0, "")
    assert Path("t.toml").read_text() == "schema_version = 2\n\n" + text.replace(
        "trainer.oldoptim", "trainer.optim"
    )


def test_a_read_only_file_is_refused_and_every_file_is_left_as_it_was(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """Renaming over a read-only file would succeed (the directory is writable): compose
    refuses it instead, before any file is written, and never makes it writable."""
    write("a.toml", OLD)
    write("b.toml", OLD)
    os.chmod("b.toml", 0o444)
    code, out, err = _migrate(capsys, "a.toml", "b.toml")
    assert (code, out) == (2, "")
    assert err == (
        "error: b.toml: is read-only: it is not replaced, and nothing else was written; "
        "make it writable (chmod u+w) if it is to be rewritten\n"
    )
    assert Path("a.toml").read_text() == OLD and Path("b.toml").read_text() == OLD
    assert os.stat("b.toml").st_mode & 0o777 == 0o444
    assert sorted(os.listdir()) == ["a.toml", "b.toml"]


def test_ctrl_c_during_the_commit_waits_for_every_file(
    write: WriteFile, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The interrupt arrives once every file is migrated: never some old, some new."""
    write("a.toml", OLD)
    write("b.toml", OLD)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # as in a terminal
    replace = os.replace

    def interrupted(source: str, target: str, **at: Any) -> None:
        os.kill(os.getpid(), signal.SIGINT)  # as if the user pressed Ctrl-C right now
        replace(source, target, **at)

    monkeypatch.setattr(os, "replace", interrupted)
    try:
        code, _, err = _migrate(capsys, "a.toml", "b.toml")
    finally:
        signal.signal(signal.SIGINT, previous)
    assert (code, err) == (130, "interrupted\n")
    assert Path("a.toml").read_text() == MIGRATED and Path("b.toml").read_text() == MIGRATED
    assert sorted(os.listdir()) == ["a.toml", "b.toml"]


MOVING_INTO_A_TABLE = """
from compose import BaseConfig, Migration, move_key, versioned

class Optim(BaseConfig):
    lr: float = 0.1

class Trainer(BaseConfig):
    x: int = 0
    seed: int = 0
    optim: Optim = Optim()

class Other(BaseConfig):
    y: int = 0

@versioned(Migration(1, 2, move_key("seed", "trainer.seed")))
class App(BaseConfig):
    trainer: Trainer = Trainer()
    other: Other = Other()
"""


@pytest.mark.parametrize(
    ("text", "migrated"),
    [
        (  # a blank line, then the comment that opens the sub-table
            "seed = 7\n\n[trainer]\nx = 1\n\n# the optimizer\n[trainer.optim]\nlr = 1.0\n",
            "schema_version = 2\n\n[trainer]\nx = 1\nseed = 7\n\n"
            "# the optimizer\n[trainer.optim]\nlr = 1.0\n",
        ),
        (  # the comment right after the last key, right above the header
            "seed = 7\n[trainer]\nx = 1\n# the optimizer\n[trainer.optim]\nlr = 1.0\n",
            "schema_version = 2\n[trainer]\nx = 1\nseed = 7\n"
            "# the optimizer\n[trainer.optim]\nlr = 1.0\n",
        ),
        (  # the table's own comment stays with it; the next table's with its header
            "seed = 7\n[trainer]\nx = 1\n# x = 2, once\n\n# another section\n[other]\ny = 1\n",
            "schema_version = 2\n[trainer]\nx = 1\n# x = 2, once\nseed = 7\n\n"
            "# another section\n[other]\ny = 1\n",
        ),
        (  # the file's opening comment, then the first table's
            "# written by hand\n\n# the trainer\n[trainer]\nx = 1\n",
            "# written by hand\nschema_version = 2\n\n# the trainer\n[trainer]\nx = 1\n",
        ),
    ],
    ids=["blank-then-comment", "comment-then-header", "two-comments", "top-level"],
)
def test_a_key_added_to_a_table_leaves_the_next_headers_comment_with_it(
    write: WriteFile,
    capsys: pytest.CaptureFixture[str],
    app_module: AppModule,
    text: str,
    migrated: str,
) -> None:
    """A comment right above a header is the header's: an added key (moved into the table
    before it, or the version stamped) goes after the table's last key, not between them."""
    schema = app_module("moving", MOVING_INTO_A_TABLE)
    write("m.toml", text)
    code, _, err = run_compose(capsys, "migrate", "--schema", schema, "m.toml")
    assert (code, err) == (0, "")
    assert Path("m.toml").read_text() == migrated


MOVING_A_KEY = """
from compose import BaseConfig, Migration, move_key, versioned

class Trainer(BaseConfig):
    seed: int = 0

@versioned(Migration(1, 2, move_key("seed", "trainer.seed")))
class App(BaseConfig):
    trainer: Trainer = Trainer()
"""


def test_a_file_named_twice_is_migrated_once(
    write: WriteFile, capsys: pytest.CaptureFixture[str], app_module: AppModule
) -> None:
    """`a.toml ./a.toml`, its absolute path or a link to it name one file: it is migrated
    once, under its first name (the writer was handed the same target twice: a traceback)."""
    schema = app_module("moving_a_key", MOVING_A_KEY)
    write("a.toml", "seed = 3\n")
    os.symlink("a.toml", "link.toml")
    names = ("a.toml", "./a.toml", os.path.abspath("a.toml"), "link.toml")
    code, out, err = run_compose(capsys, "migrate", "--schema", schema, *names)
    assert (code, err) == (0, "")
    assert out == (
        "a.toml: migrated from schema version 1 to 2\n"
        "  a.toml:1: --seed moved to --trainer.seed (1 -> 2)\n"
    )
    assert Path("a.toml").read_text() == "schema_version = 2\n\n[trainer]\nseed = 3\n"
    assert os.path.islink("link.toml")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs")
def test_a_fifo_is_refused_without_waiting_and_stays_a_fifo(
    write: WriteFile, app_module: AppModule, tmp_path: Path
) -> None:
    """A rewrite replaces the file it read: a FIFO (or a device: `compose migrate /dev/null`
    run as root replaced the device with a file) is no file to rewrite. It is refused before
    it is read, so a FIFO nobody writes to never makes the command wait."""
    schema = app_module("moving_a_key", MOVING_A_KEY)
    write("a.toml", "seed = 3\n")
    os.mkfifo(tmp_path / "pipe.toml")  # no writer: a reader that waits for one hangs
    argv = [sys.executable, "-m", "compose", "migrate", "--schema", schema, "a.toml", "pipe.toml"]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    code, out, err = run_command(argv, cwd=tmp_path, env=environment, timeout=60)
    assert (code, out) == (2, "")
    assert err == (
        "error: pipe.toml: is not a regular file (a FIFO, a device): only a file is read "
        "again or rewritten\n"
    )
    assert stat.S_ISFIFO(os.stat(tmp_path / "pipe.toml").st_mode)
    assert Path("a.toml").read_text() == "seed = 3\n"  # all or none


@pytest.mark.parametrize("fmt", ["toml", "json"])
def test_show_resolved_with_a_versioned_schema_carries_its_version_and_reloads_unmigrated(
    write: WriteFile, capsys: pytest.CaptureFixture[str], app_module: AppModule, fmt: str
) -> None:
    """Saved, `show --resolved --schema`'s text is read as the current version: the move of
    version 1 -> 2 must not run over it again (a run.flag of true would be lost)."""
    schema = app_module("moved_app", MOVED_SCHEMA.replace("class Top", "class App"))
    write("new.toml", "schema_version = 2\n[run]\nflag = true\n")
    argv = ("show", "--resolved", "--schema", schema, "--format", fmt, "@", "new.toml")
    code, out, err = run_compose(capsys, *argv)
    assert (code, err) == (0, "")
    saved = write(f"saved.{fmt}", out)
    code, again, err = run_compose(capsys, *argv[:-1], saved)
    assert (code, err) == (0, "")
    assert again == out
    first = out.splitlines()[1 if fmt == "json" else 0]
    assert first.strip() == ('"schema_version": 2,' if fmt == "json" else "schema_version = 2")
