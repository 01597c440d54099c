"""Schema versions and migrations (docs/18): a file older than its app's schema has the app's
ordered steps run over its raw data before it is merged, root and section files alike, with a
warning per changed key naming FILE:LINE and the `compose migrate` command; a file without
`schema_version` is version 1; a failing step, a file newer than the schema or a step that
moves a key out of its file's section is one clear error naming the file, the step and the key."""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import pytest

from compose import (
    BaseConfig,
    ComposeError,
    ComposeWarning,
    Migration,
    compose,
    convert_value,
    move_key,
    parse,
    remove_key,
    to_toml,
    versioned,
)
from compose._input.argv import split_argv
from compose._merge.fold import compose_items
from compose._merge.migrations import versions_of

if TYPE_CHECKING:
    from conftest import WriteFile


class Optim(BaseConfig):
    lr: float = 1e-3
    max_norm: float = 1.0
    betas1: float = 0.9
    betas2: float = 0.999


class Trainer(BaseConfig):
    optim: Optim = Optim()
    seed: int = 0


def split_betas(data: dict[str, Any]) -> dict[str, Any]:
    """Version 3 split `trainer.optim.betas = [b1, b2]` into `betas1` and `betas2`."""
    optim = data.get("trainer", {}).get("optim", {})
    if "betas" in optim:
        optim["betas1"], optim["betas2"] = optim.pop("betas")
    return data


@versioned(
    Migration(
        1,
        2,
        move_key("trainer.max_norm", "trainer.optim.max_norm"),
        remove_key("trainer.compile", "compilation is always on"),
    ),
    Migration(2, 3, split_betas, convert_value("trainer.seed", int)),
)
class Config(BaseConfig):
    trainer: Trainer = Trainer()


class Plain(BaseConfig):
    trainer: Trainer = Trainer()


OLD = """\
# written by version 1
[trainer]
max_norm = 0.5
compile = true
seed = "7"

[trainer.optim]
betas = [0.8, 0.95]
"""
MIGRATE = f"compose migrate --schema {__name__}:Config"


def _parse(schema: type[BaseConfig], argv: list[str]) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = parse(schema, argv)
    return config, [str(w.message) for w in caught if issubclass(w.category, ComposeWarning)]


def test_an_old_root_file_loads_migrated_with_a_warning_per_key_naming_its_line(
    write: WriteFile,
) -> None:
    write("old.toml", OLD)
    config, seen = _parse(Config, ["@", "old.toml"])
    assert config.trainer.optim.max_norm == 0.5
    assert (config.trainer.optim.betas1, config.trainer.optim.betas2) == (0.8, 0.95)
    assert config.trainer.seed == 7
    assert seen == [
        "--trainer.max-norm moved to --trainer.optim.max-norm (schema version 1 -> 2); "
        f"found in old.toml:3; `{MIGRATE} old.toml` updates the file",
        "--trainer.compile is removed: compilation is always on (schema version 1 -> 2); "
        f"found in old.toml:4; `{MIGRATE} old.toml` updates the file",
        "--trainer.optim.betas is removed by step `split_betas` (schema version 2 -> 3); "
        f"found in old.toml:8; `{MIGRATE} old.toml` updates the file",
        "--trainer.seed is converted to its new format by `int` (schema version 2 -> 3); "
        f"found in old.toml:5; `{MIGRATE} old.toml` updates the file",
    ]


def test_a_stamped_file_runs_only_the_migrations_after_its_version(write: WriteFile) -> None:
    # At version 2, max_norm under trainer would be an unknown key: the 1 -> 2 step must not run
    write(
        "v2.toml", 'schema_version = 2\n[trainer]\nseed = "3"\n[trainer.optim]\nbetas = [0.5, 0.6]'
    )
    config, seen = _parse(Config, ["@", "v2.toml"])
    assert (config.trainer.seed, config.trainer.optim.betas1) == (3, 0.5)
    assert [message.split(" (")[0] for message in seen] == [
        "--trainer.optim.betas is removed by step `split_betas`",
        "--trainer.seed is converted to its new format by `int`",
    ]
    write("v1.toml", "schema_version = 2\n[trainer]\nmax_norm = 0.5\n")
    unknown = r"--trainer\.max-norm = 0\.5 \(from v1\.toml:3\): unknown key"
    with pytest.raises(ComposeError, match=unknown):
        parse(Config, ["@", "v1.toml"])


def test_a_current_file_loads_without_a_warning_stamped_or_not(write: WriteFile) -> None:
    write("new.toml", "schema_version = 3\n[trainer.optim]\nmax_norm = 0.25\n")
    write("plain.toml", "[trainer.optim]\nmax_norm = 0.25\n")  # no version: 1, but nothing to do
    for name in ("new.toml", "plain.toml"):
        config, seen = _parse(Config, ["@", name])
        assert config.trainer.optim.max_norm == 0.25
        assert seen == []


def test_a_section_file_is_migrated_with_the_whole_configs_paths(write: WriteFile) -> None:
    write("trainer.toml", "# the trainer alone\nmax_norm = 0.25\nseed = 4\n")
    config, seen = _parse(Config, ["--trainer", "@", "trainer.toml"])
    assert config.trainer.optim.max_norm == 0.25
    assert seen == [
        "--trainer.max-norm moved to --trainer.optim.max-norm (schema version 1 -> 2); found in "
        f"trainer.toml:2; `{MIGRATE} --section trainer trainer.toml` updates the file",
    ]


def test_a_moved_values_origin_is_the_line_the_old_file_wrote_it_on(write: WriteFile) -> None:
    write("old.toml", OLD)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ComposeWarning)
        composed = compose_items(split_argv(["@", "old.toml"]), Config)
    assert composed.origins.describe(("trainer", "optim", "max_norm")) == "old.toml:3"


def test_later_flags_and_files_win_over_a_migrated_value(write: WriteFile) -> None:
    write("old.toml", OLD)
    write("new.toml", "schema_version = 3\n[trainer.optim]\nmax_norm = 0.1\n")
    config, _ = _parse(Config, ["@", "old.toml", "@", "new.toml"])
    assert config.trainer.optim.max_norm == 0.1
    config, _ = _parse(Config, ["@", "old.toml", "--trainer.optim.max-norm", "0.2"])
    assert config.trainer.optim.max_norm == 0.2


def test_a_file_newer_than_the_schema_is_an_error_naming_its_version(write: WriteFile) -> None:
    write("future.toml", "schema_version = 9\n")
    with pytest.raises(ComposeError) as caught:
        parse(Config, ["@", "future.toml"])
    assert str(caught.value) == (
        "schema_version = 9 (from future.toml:1): the file is written for a newer schema: this "
        "app reads versions up to 3; run it with the version of the app that wrote it"
    )


@pytest.mark.parametrize("version", ["0", "'2'", "true", "2.0"])
def test_a_version_that_is_no_whole_number_from_1_is_an_error(
    write: WriteFile, version: str
) -> None:
    write("bad.toml", f"schema_version = {version}\n")
    with pytest.raises(ComposeError, match=r"\(from bad.toml:1\): is not a schema version"):
        parse(Config, ["@", "bad.toml"])


def test_a_failing_step_is_one_error_naming_the_file_the_migration_and_the_key(
    write: WriteFile,
) -> None:
    write("old.toml", '[trainer]\nseed = "seven"\n')
    with pytest.raises(ComposeError) as caught:
        parse(Config, ["@", "old.toml"])
    assert str(caught.value) == (
        "--trainer.seed = 'seven' (from old.toml:2): migration 2 -> 3 failed: ValueError: invalid "
        "literal "
        "for int() with base 10: 'seven'"
    )


def test_an_apps_own_step_that_raises_is_named_in_the_error(write: WriteFile) -> None:
    def broken(data: dict[str, Any]) -> dict[str, Any]:
        raise KeyError("trainer")

    @versioned(Migration(1, 2, broken))
    class Broken(BaseConfig):
        trainer: Trainer = Trainer()

    write("old.toml", "[trainer]\nseed = 1\n")
    with pytest.raises(ComposeError) as caught:
        parse(Broken, ["@", "old.toml"])
    assert str(caught.value) == (
        "old.toml: migration 1 -> 2 failed in step "
        "`test_an_apps_own_step_that_raises_is_named_in_the_error.<locals>.broken`: "
        "KeyError: 'trainer'"
    )


def test_a_step_that_returns_a_table_holding_itself_is_an_error(write: WriteFile) -> None:
    """It was a RecursionError traceback from the merge that followed."""

    def looped(data: dict[str, Any]) -> dict[str, Any]:
        data["x"] = data
        return data

    @versioned(Migration(1, 2, looped))
    class Open(BaseConfig):
        x: Any = 0

    write("old.toml", "x = 1\n")
    with pytest.raises(ComposeError) as caught:
        parse(Open, ["@", "old.toml"])
    assert str(caught.value) == (
        "old.toml: migration 1 -> 2: step `test_a_step_that_returns_a_table_holding_itself_is_"
        "an_error.<locals>.looped` returned tables nested more than 100 deep (does one hold "
        "itself?)"
    )


def test_a_later_step_names_the_line_where_the_file_wrote_a_moved_key(write: WriteFile) -> None:
    """A key one step moved and the next converts is on the file's line of the old key: the
    line of its table's header was named (the file holds no key of the new name)."""

    class T(BaseConfig):
        keep: int = 0
        seed: int = 0

    @versioned(
        Migration(1, 2, move_key("t.old_seed", "t.seed")),
        Migration(2, 3, convert_value("t.seed", int)),
    )
    class Chained(BaseConfig):
        t: T = T()

    write("good.toml", "[t]\nkeep = 1\n\nold_seed = '7'\n")
    config, seen = _parse(Chained, ["@", "good.toml"])
    assert config.t.seed == 7
    assert [line.rsplit("; found in ", 1)[1].split(";")[0] for line in seen] == [
        "good.toml:4",
        "good.toml:4",
    ]
    write("bad.toml", "[t]\nkeep = 1\n\nold_seed = 'seven'\n")
    with pytest.raises(ComposeError) as caught:
        parse(Chained, ["@", "bad.toml"])
    assert caught.value.origin == "bad.toml:4"


def test_a_step_that_returns_no_table_is_an_error(write: WriteFile) -> None:
    @versioned(Migration(1, 2, lambda data: None))  # type: ignore[arg-type,return-value]
    class Forgetful(BaseConfig):
        trainer: Trainer = Trainer()

    write("old.toml", "[trainer]\nseed = 1\n")
    with pytest.raises(ComposeError, match=r"returned NoneType, not the file's table"):
        parse(Forgetful, ["@", "old.toml"])


def test_an_old_key_and_its_new_name_in_one_file_is_an_error_as_for_renamed(
    write: WriteFile,
) -> None:
    write("both.toml", "[trainer]\nmax_norm = 0.5\n[trainer.optim]\nmax_norm = 0.1\n")
    with pytest.raises(ComposeError) as caught:
        parse(Config, ["@", "both.toml"])
    assert str(caught.value) == (
        "--trainer.max-norm = 0.5 (from both.toml:2): migration 1 -> 2 failed: both it and its new "
        "name "
        "--trainer.optim.max-norm are set; keep only --trainer.optim.max-norm"
    )


def test_a_step_that_moves_a_key_out_of_a_section_files_section_is_an_error(
    write: WriteFile,
) -> None:
    class Top(BaseConfig):
        trainer: Trainer = Trainer()
        seed: int = 0

    versioned(Migration(1, 2, move_key("trainer.seed", "seed")))(Top)
    write("trainer.toml", "seed = 4\n")
    with pytest.raises(ComposeError) as caught:
        parse(Top, ["--trainer", "@", "trainer.toml"])
    assert str(caught.value).startswith(
        "--seed (from trainer.toml): migration 1 -> 2 moves it out of --trainer, the section this "
        "file is loaded into"
    )


class Snake(BaseConfig):
    learning_rate: float = 1e-3
    warmup_steps: int = 0


def test_errors_and_warnings_name_keys_as_flags_as_every_error_does(write: WriteFile) -> None:
    """CONTRACT section 4: the key path in command-line form (`--run-config.learning-rate`),
    whatever a step's dotted path spells, in an error's `.key` and text and in a warning."""

    @versioned(
        Migration(
            1,
            2,
            move_key("run_config.lr_warmup", "run_config.warmup_steps"),
            convert_value("run_config.learning_rate", float),
            remove_key("run_config.old_flag", "no longer read"),
        )
    )
    class Deep(BaseConfig):
        trainer: Trainer = Trainer()
        run_config: Snake = Snake()

    write("old.toml", "[run_config]\nlr_warmup = 10\nold_flag = true\n")
    _, seen = _parse(Deep, ["@", "old.toml"])
    assert [message.split(" (")[0] for message in seen] == [
        "--run-config.lr-warmup moved to --run-config.warmup-steps",
        "--run-config.old-flag is removed: no longer read",
    ]
    write("bad.toml", '[run_config]\nlearning_rate = "fast"\n')
    with pytest.raises(ComposeError) as failed:
        parse(Deep, ["@", "bad.toml"])
    assert failed.value.key == "--run-config.learning-rate"
    assert str(failed.value).startswith("--run-config.learning-rate = 'fast' (from bad.toml:2)")
    write("both.toml", "[run_config]\nlr_warmup = 1\nwarmup_steps = 2\n")
    with pytest.raises(ComposeError) as both:
        parse(Deep, ["@", "both.toml"])
    assert both.value.key == "--run-config.lr-warmup"
    assert both.value.message == (
        "migration 1 -> 2 failed: both it and its new name --run-config.warmup-steps are set; "
        "keep only --run-config.warmup-steps"
    )

    @versioned(Migration(1, 2, move_key("trainer.seed", "run_config.seed")))
    class Moving(BaseConfig):
        trainer: Trainer = Trainer()
        run_config: Snake = Snake()

    write("blocked.toml", "run_config = 3\n[trainer]\nseed = 1\n")  # no table to move it into
    with pytest.raises(ComposeError) as blocked:
        parse(Moving, ["@", "blocked.toml"])
    assert blocked.value.key == "--trainer.seed"
    assert "cannot move to --run-config.seed: a value holds its place" in str(blocked.value)
    write("section.toml", "seed = 1\n")
    with pytest.raises(ComposeError) as out:
        parse(Moving, ["--trainer", "@", "section.toml"])
    assert (out.value.key, out.value.message.split(",")[0]) == (
        "--run-config",
        "migration 1 -> 2 moves it out of --trainer",
    )


def test_to_toml_stamps_a_versioned_model_and_the_stamped_text_reloads_without_warnings(
    write: WriteFile,
) -> None:
    text = to_toml(Config())
    assert text.startswith("schema_version = 3\n\n[trainer]\n")
    assert not to_toml(Plain()).startswith("schema_version")
    write("dumped.toml", text)
    config, seen = _parse(Config, ["@", "dumped.toml"])
    assert config == Config()
    assert seen == []


def test_without_a_schema_version_the_key_is_plain_data_and_nothing_is_migrated(
    write: WriteFile,
) -> None:
    write("old.toml", "schema_version = 1\n[trainer]\nmax_norm = 0.5\n")
    assert compose(["old.toml"]) == {"schema_version": 1, "trainer": {"max_norm": 0.5}}
    with pytest.raises(ComposeError) as caught:
        parse(Plain, ["@", "old.toml"])
    assert any(str(error).startswith("--schema-version") for error in caught.value.errors)


def test_the_version_is_the_last_migrations_target_and_the_chain_is_checked() -> None:
    assert versions_of(Config) is not None
    assert versions_of(Config).version == 3  # type: ignore[union-attr]
    assert versions_of(versioned()(type("V1", (BaseConfig,), {}))).version == 1  # type: ignore[union-attr]
    assert versions_of(Plain) is None
    with pytest.raises(TypeError, match="expected a Migration from version 2"):
        versioned(Migration(1, 2), Migration(3, 4))
    with pytest.raises(TypeError, match="expected a Migration from version 1"):
        versioned(Migration(2, 3))
    with pytest.raises(TypeError, match="1 <= old < new"):
        Migration(2, 2)
    with pytest.raises(TypeError, match="is not callable"):
        Migration(1, 2, "trainer.lr")  # type: ignore[arg-type]


def test_a_failing_conversion_of_a_secret_does_not_show_the_errors_text(write: WriteFile) -> None:
    from pydantic import SecretStr

    def decode(value: Any) -> Any:
        raise ValueError(f"cannot decode {value}")

    @versioned(Migration(1, 2, convert_value("token", decode)))
    class WithSecret(BaseConfig):
        token: SecretStr = SecretStr("")

    write("old.toml", 'token = "hunter2"\n')
    with pytest.raises(ComposeError) as caught:
        parse(WithSecret, ["@", "old.toml"])
    assert "hunter2" not in str(caught.value)
    assert str(caught.value) == (
        "--token (from old.toml:1): migration 1 -> 2 failed: ValueError (a secret: its text is "
        "not shown)"
    )


def test_a_failing_conversion_of_a_secret_in_a_dict_shows_neither_its_value_nor_text(
    write: WriteFile,
) -> None:
    from pydantic import SecretStr

    def decode(value: Any) -> Any:
        raise ValueError(f"cannot decode {value}")

    @versioned(Migration(1, 2, convert_value("tokens.a", decode)))
    class WithSecrets(BaseConfig):
        tokens: dict[str, SecretStr] = {}

    write("old.toml", '[tokens]\na = "hunter2"\n')
    with pytest.raises(ComposeError) as caught:
        parse(WithSecrets, ["@", "old.toml"])
    assert str(caught.value) == (
        "--tokens.a (from old.toml:2): migration 1 -> 2 failed: ValueError (a secret: its text "
        "is not shown)"
    )


def test_a_move_onto_a_secret_set_already_shows_neither_value(write: WriteFile) -> None:
    """`pass` moves to the secret `password`, and the file sets both: the error names the old
    key, which no field declares any more, so the secret it holds was shown."""
    from pydantic import SecretStr

    class Db(BaseConfig):
        password: SecretStr = SecretStr("")

    @versioned(Migration(1, 2, move_key("db.pass", "db.password")))
    class WithSecret(BaseConfig):
        db: Db = Db()

    write("old.toml", '[db]\npass = "hunter2"\npassword = "hunter3"\n')
    with pytest.raises(ComposeError) as caught:
        parse(WithSecret, ["@", "old.toml"])
    assert "hunter" not in str(caught.value)
    assert str(caught.value).startswith("--db.pass (from old.toml:2): migration 1 -> 2 failed")


def test_an_app_step_s_error_text_never_shows_a_secret(write: WriteFile) -> None:
    from pydantic import SecretStr

    def check_password(data: dict[str, Any]) -> dict[str, Any]:
        raise ValueError(f"password {data['password']!r} is too short")

    @versioned(Migration(1, 2, check_password))
    class WithSecret(BaseConfig):
        password: SecretStr = SecretStr("")

    write("old.toml", 'password = "hünter2"\n')
    with pytest.raises(ComposeError) as caught:
        parse(WithSecret, ["@", "old.toml"])
    assert str(caught.value) == (
        "old.toml: migration 1 -> 2 failed in step `test_an_app_step_s_error_text_never_shows_a_"
        "secret.<locals>.check_password`: ValueError: password '**********' is too short"
    )


def test_each_included_file_is_migrated_by_its_own_version(write: WriteFile) -> None:
    write("base.toml", "[trainer]\nmax_norm = 0.3\n")
    write("run.toml", '_include_ = ["base.toml"]\nschema_version = 3\n[trainer]\nseed = 2\n')
    config, seen = _parse(Config, ["@", "run.toml"])
    assert (config.trainer.optim.max_norm, config.trainer.seed) == (0.3, 2)
    assert seen == [
        "--trainer.max-norm moved to --trainer.optim.max-norm (schema version 1 -> 2); "
        f"found in base.toml:2; `{MIGRATE} base.toml` updates the file",
    ]


@versioned(Migration(1, 2, convert_value("trainer.optim.lr", float)))
class FloatLr(BaseConfig):
    trainer: Trainer = Trainer()


def test_a_step_that_changes_only_a_values_type_is_a_change_with_its_warning(
    write: WriteFile,
) -> None:
    # 1 == 1.0 in Python: a change of type alone is a change all the same (the file is stale
    # until `compose migrate` writes `lr = 1.0`)
    write("old.toml", "[trainer.optim]\nlr = 1\n")
    config, seen = _parse(FloatLr, ["@", "old.toml"])
    assert config.trainer.optim.lr == 1.0
    assert seen == [
        "--trainer.optim.lr is converted to its new format by `float` (schema version 1 -> 2); "
        f"found in old.toml:2; `compose migrate --schema {__name__}:FloatLr old.toml` updates "
        "the file"
    ]
