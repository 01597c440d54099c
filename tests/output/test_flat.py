"""Flat export for trackers and back: `to_flat` gives `{dotted.key: value}` under the keys flags
take, secrets masked, lists kept (or every value as text within a length limit); `from_flat`
and `flat_argv` turn such a dict, typed or as `str()` of its values, into validated flags."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Literal

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import Field, SecretStr

from compose import (
    ArgvError,
    BaseConfig,
    ComposeError,
    ConfigValidationError,
    UnknownKeyError,
    flat_argv,
    from_flat,
    parse,
    to_flat,
)
from compose._output.flat import MLFLOW_MAX_KEY_LENGTH, MLFLOW_MAX_PARAM_LENGTH, cut, is_cut


class Adam(BaseConfig):
    type: Literal["adam"] = "adam"
    lr: float = 1e-3
    betas: list[float] = [0.9, 0.999]


class Sgd(BaseConfig):
    type: Literal["sgd"] = "sgd"
    lr: float = 0.1
    momentum: float = 0.0


class Env(BaseConfig):
    id: str = "x"
    weight: float = 1.0


class Ckpt(BaseConfig):
    interval: int = 10


class Api(BaseConfig):
    url: str = "https://example.invalid"
    key: SecretStr = SecretStr("")


class Trainer(BaseConfig):
    optim: Adam | Sgd = Field(default_factory=Adam, discriminator="type")
    steps: int = 100
    tags: list[str] = []
    ckpt: Ckpt | None = None


class Run(BaseConfig):
    trainer: Trainer = Trainer()
    env: list[Env] = [Env()]
    extra: dict[str, Any] = {}
    api: Api = Api()
    out: Path = Path("out")
    note: str | None = None
    seed: int = 0


# --- export ------------------------------------------------------------------------------------


def test_every_value_under_its_dotted_key_in_field_order() -> None:
    run = Run(api=Api(key=SecretStr("sk-live-1")), extra={"a": {"b": 1}})
    assert to_flat(run) == {
        "trainer.optim.type": "adam",
        "trainer.optim.lr": 1e-3,
        "trainer.optim.betas": [0.9, 0.999],
        "trainer.steps": 100,
        "trainer.tags": [],
        "trainer.ckpt": None,
        "env": [{"id": "x", "weight": 1.0}],
        "extra.a.b": 1,
        "api.url": "https://example.invalid",
        "api.key": "**********",
        "out": "out",
        "note": None,
        "seed": 0,
    }


def test_a_dict_no_dotted_key_can_name_stays_one_value() -> None:
    run = Run(extra={"a.b": 1, "c": 2})
    assert to_flat(run)["extra"] == {"a.b": 1, "c": 2}
    assert to_flat(Run(extra={}))["extra"] == {}
    assert to_flat(Run(extra={"k=v": 1}))["extra"] == {"k=v": 1}
    appending = Run(extra={"a+": 1})  # `--extra.a+=1` would append to a list
    flat = to_flat(appending)
    assert flat["extra"] == {"a+": 1}
    del flat["api.key"]  # a secret: its mask is no value
    assert parse(Run, flat_argv(flat, Run)) == appending


def test_the_text_none_in_a_list_of_a_model_stays_text() -> None:
    """A `list[str]` element "None" is text, not None: it was logged as null, and came back
    refused (`Input should be a valid string`). A None stays None."""
    run = Run(trainer=Trainer(tags=["None", "x"]), extra={"b": None})
    flat = to_flat(run)
    assert (flat["trainer.tags"], flat["extra.b"]) == (["None", "x"], None)
    assert to_flat(run, text=True)["trainer.tags"] == '["None", "x"]'
    del flat["api.key"]  # a secret: its mask is no value
    assert from_flat(Run, flat).trainer.tags == ["None", "x"]


def test_text_that_reads_as_a_reference_is_escaped_and_comes_back_as_text() -> None:
    """A config's literal `${x}` (escaped in its file) or `???` was exported as is, and
    `from_flat` then resolved it: 'key x not found', 'missing mandatory value'."""
    run = Run(note="${x}", trainer=Trainer(tags=["???", "a ${b}"]))
    for flat in (to_flat(run), to_flat(run, text=True)):
        assert flat["note"] == "\\${x}"
        del flat["api.key"]  # a secret: its mask is no value
        assert from_flat(Run, flat) == run


def test_a_plain_dict_flattens_too() -> None:
    assert to_flat({"a": {"b": [1, None]}, "c": "None"}) == {"a.b": [1, None], "c": None}


def test_text_values_are_what_a_flag_takes() -> None:
    run = Run(trainer=Trainer(tags=["a", "b"], ckpt=Ckpt()), extra={"d": {"k": None}})
    flat = to_flat(run, text=True)
    assert flat["trainer.optim.lr"] == "0.001"
    assert flat["trainer.optim.betas"] == "[0.9, 0.999]"
    assert flat["trainer.tags"] == '["a", "b"]'
    assert flat["trainer.ckpt.interval"] == "10"
    assert flat["env"] == '[{"id": "x", "weight": 1.0}]'
    assert flat["extra.d.k"] == "None"
    assert flat["note"] == "None"
    assert flat["api.key"] == "**********"
    assert all(isinstance(value, str) for value in flat.values())


def test_a_long_text_is_cut_to_the_limit_with_a_marker() -> None:
    run = Run(trainer=Trainer(tags=[f"tag-{i}" for i in range(2000)]))
    whole = to_flat(run, text=True, max_length=10**6)["trainer.tags"]
    assert len(whole) > MLFLOW_MAX_PARAM_LENGTH
    shown = to_flat(run, text=True)["trainer.tags"]
    assert len(shown) == MLFLOW_MAX_PARAM_LENGTH
    dropped = len(whole) - len(shown.rpartition("... [")[0])
    assert shown.endswith(f"... [{dropped} more characters]")
    assert whole.startswith(shown.rpartition("... [")[0])
    short = to_flat(run, text=True, max_length=500)["trainer.tags"]
    assert len(short) == 500
    assert is_cut(short)


@given(st.text(max_size=300), st.integers(min_value=40, max_value=200))
def test_cut_keeps_within_the_limit_and_says_what_it_dropped(text: str, limit: int) -> None:
    shown = cut(text, limit)
    assert len(shown) <= limit
    if len(text) <= limit:
        assert shown == text
    else:
        kept, _, rest = shown.rpartition("... [")
        assert text.startswith(kept)
        assert rest == f"{len(text) - len(kept)} more characters]"
        assert is_cut(shown)


def test_a_long_key_is_cut_to_the_key_limit_keeping_its_head_and_a_digest() -> None:
    """MLflow takes keys of 250 characters, of its own characters; two keys that share the kept
    head stay apart (a digest of the whole key), and the same key is cut the same way."""
    head = "k" * 300
    run = Run(extra={f"{head}_a": 1, f"{head}_b": 2, "short": 3})
    flat = to_flat(run, text=True)
    keys = [key for key in flat if key.startswith("extra.k")]
    assert len(keys) == 2 and keys[0] != keys[1]
    assert all(len(key) == MLFLOW_MAX_KEY_LENGTH for key in keys)
    assert all(re.fullmatch(r"[\w.\- ]+", key) for key in keys)  # no [], no ,: MLflow's own
    assert all(key.startswith("extra." + "k" * 200) and is_cut(key) for key in keys)
    assert [flat[key] for key in keys] == ["1", "2"]
    assert flat["extra.short"] == "3"
    assert to_flat(run, text=True) == flat
    assert len(next(iter(to_flat(run, text=True, max_key_length=100)))) <= 100
    assert f"extra.{head}_a" in to_flat(run)  # typed, for W&B: keys as they are


@given(st.text(min_size=1, max_size=300), st.integers(min_value=40, max_value=200))
def test_a_cut_key_keeps_within_the_limit(key: str, limit: int) -> None:
    shown = cut(key, limit, key=True)
    assert len(shown) <= limit
    if len(key) <= limit:
        assert shown == key
    else:
        assert is_cut(shown)
        assert key.startswith(shown.rpartition("... ")[0])


def test_limits_are_checked() -> None:
    with pytest.raises(ValueError, match="text=True"):
        to_flat(Run(), max_length=500)
    with pytest.raises(ValueError, match="at least 40"):
        to_flat(Run(), text=True, max_length=10)
    with pytest.raises(ValueError, match="text=True"):
        to_flat(Run(), max_key_length=500)
    with pytest.raises(ValueError, match="at least 40"):
        to_flat(Run(), text=True, max_key_length=39)
    with pytest.raises(TypeError, match="a model or a dict"):
        to_flat([1, 2])  # type: ignore[arg-type]


# --- back: from_flat ---------------------------------------------------------------------------


def test_export_comes_back_as_the_same_config() -> None:
    run = Run(
        trainer=Trainer(optim=Sgd(lr=0.5), tags=["a"], ckpt=Ckpt(interval=3)),
        env=[Env(id="a"), Env(id="b", weight=2.0)],
        extra={"a": {"b": [1, 2]}, "c": "text"},
        note="n",
        seed=7,
    )
    flat = to_flat(run)
    del flat["api.key"]  # masked: it does not come back (see below)
    assert from_flat(Run, flat) == run
    text = to_flat(run, text=True)
    del text["api.key"]
    assert from_flat(Run, text) == run


@pytest.mark.parametrize(
    ("flat", "expected"),
    [
        ({"trainer.optim.lr": 0.01}, {"trainer.optim.lr": 0.01}),
        ({"trainer.optim.lr": "0.01"}, {"trainer.optim.lr": 0.01}),
        ({"trainer.tags": ["a", "b"]}, {"trainer.tags": ["a", "b"]}),
        ({"trainer.tags": "['a', 'b']"}, {"trainer.tags": ["a", "b"]}),  # W&B's str()
        ({"trainer.tags": {"b", "a"}}, {"trainer.tags": ["a", "b"]}),  # not the text "{'b', 'a'}"
        ({"extra": "{'k': 1, 'n': None}"}, {"extra.k": 1, "extra.n": None}),
        ({"extra": {"k": True}}, {"extra.k": True}),
        ({"trainer.ckpt": "None"}, {"trainer.ckpt": None}),
        ({"trainer.ckpt": None}, {"trainer.ckpt": None}),
        ({"trainer.ckpt": {}}, {"trainer.ckpt.interval": 10}),  # an empty section: on
        ({"trainer.ckpt.interval": "5"}, {"trainer.ckpt.interval": 5}),
        ({"note": None}, {"note": None}),
        ({"note": "None"}, {"note": None}),
        ({"trainer.optim.type": "sgd", "trainer.optim.momentum": 0.9}, {"trainer.optim.lr": 0.1}),
        ({"trainer.optim.momentum": 0.9, "trainer.optim.type": "sgd"}, {"trainer.optim.lr": 0.1}),
        ({"env": "[{'id': 'q'}]"}, {"env": [{"id": "q", "weight": 1.0}]}),
        ({"env.0.id": "q"}, {"env": [{"id": "q", "weight": 1.0}]}),
        ({"out": "/tmp/x"}, {"out": "/tmp/x"}),
    ],
)
def test_values_typed_or_as_their_text(flat: dict[str, Any], expected: dict[str, Any]) -> None:
    got = to_flat(from_flat(Run, flat))
    assert {key: got[key] for key in expected} == expected


def test_wandb_nested_parameters_set_a_section_s_fields() -> None:
    """W&B's nested sweep parameters come as a dict per section, not a dotted key each."""
    run = from_flat(Run, {"trainer": {"optim": {"type": "sgd", "lr": 0.2}, "steps": "3"}})
    assert run.trainer.optim == Sgd(lr=0.2)
    assert run.trainer.steps == 3
    assert run.trainer.tags == []  # the rest of the section keeps its values (wandb #4345)


def test_flat_values_win_over_the_base_command_line(tmp_path: Path) -> None:
    base = tmp_path / "base.toml"
    base.write_text("seed = 1\n[trainer]\nsteps = 5\n")
    run = from_flat(Run, {"seed": 2}, ["@", str(base), "--seed", "3"])
    assert (run.seed, run.trainer.steps) == (2, 5)


def test_kebab_and_snake_keys_both_work() -> None:
    class Kebab(BaseConfig):
        max_steps: int = 0

    assert from_flat(Kebab, {"max-steps": 4}).max_steps == 4
    assert from_flat(Kebab, {"max_steps": 4}).max_steps == 4


# --- back: bad input ---------------------------------------------------------------------------


def test_a_key_no_field_names_is_one_error_with_a_did_you_mean() -> None:
    with pytest.raises(UnknownKeyError) as caught:
        from_flat(Run, {"trainer.optim.lrr": 0.1})
    assert str(caught.value) == (
        "--trainer.optim.lrr = '0.1' (from flat key trainer.optim.lrr): unknown key; "
        "did you mean --trainer.optim.lr?"
    )
    assert caught.value.origin == "flat key trainer.optim.lrr"


def test_a_value_its_field_rejects_names_key_value_and_origin() -> None:
    with pytest.raises(ConfigValidationError) as caught:
        from_flat(Run, {"trainer.steps": "many"})
    error = caught.value
    assert (error.key, error.value, error.origin) == (
        "--trainer.steps",
        "many",
        "flat key trainer.steps",
    )
    assert str(error).startswith("--trainer.steps = 'many' (from flat key trainer.steps): ")


def test_a_nested_value_names_the_flat_key_it_came_in() -> None:
    with pytest.raises(ConfigValidationError) as caught:
        from_flat(Run, {"trainer": {"optim": {"lr": "fast"}}})
    assert caught.value.key == "--trainer.optim.lr"
    assert caught.value.origin == "flat key trainer"


def test_several_bad_values_are_reported_at_once() -> None:
    with pytest.raises(ComposeError) as caught:
        from_flat(Run, {"seed": "x", "trainer.steps": "y"})
    assert {e.key for e in caught.value.errors} == {"--seed", "--trainer.steps"}


def test_a_masked_secret_given_back_is_refused() -> None:
    flat = to_flat(Run(api=Api(key=SecretStr("sk-live-1"))))
    with pytest.raises(ConfigValidationError) as caught:
        from_flat(Run, flat)
    assert str(caught.value) == (
        "--api.key = '**********' (from flat key api.key): is a secret shown masked, not its "
        "value: leave it out, or set it from the environment (${oc.env:NAME})"
    )
    with pytest.raises(ConfigValidationError, match="masked"):
        from_flat(Run, {"api": {"key": "**********"}})
    assert from_flat(Run, {"api.key": "sk-new"}).api.key.get_secret_value() == "sk-new"


class Login(BaseConfig):
    user: str = "u"
    token: SecretStr = SecretStr("")


class Vault(BaseConfig):
    logins: list[Login] = [Login(token=SecretStr("sk-1"))]
    tokens: dict[str, SecretStr] = {"a": SecretStr("sk-2")}


@pytest.mark.parametrize(
    "flat",
    [
        {"tokens.a": "**********"},
        {"tokens": {"a": "**********"}},
        {"tokens": "{'a': '**********'}"},
        {"logins": [{"user": "v", "token": "**********"}]},
        {"logins": '[{"user": "v", "token": "**********"}]'},
    ],
)
def test_a_masked_secret_in_a_dict_or_a_list_is_refused(flat: dict[str, Any]) -> None:
    """`to_flat` masks a secret inside a list or a dict too: that mask is no more a value."""
    assert "**********" in str(to_flat(Vault()))
    with pytest.raises(ConfigValidationError, match="is a secret shown masked"):
        from_flat(Vault, flat)


def test_a_secret_s_bad_value_is_not_shown() -> None:
    class Short(BaseConfig):
        key: SecretStr = Field(default=SecretStr(""), min_length=10)

    with pytest.raises(ConfigValidationError) as caught:
        from_flat(Short, {"key": "sk-1"})
    assert "sk-1" not in str(caught.value)


def test_a_value_cut_to_a_tracker_s_limit_is_refused() -> None:
    run = Run(trainer=Trainer(tags=["t" * 100] * 10))
    flat = to_flat(run, text=True, max_length=200)
    with pytest.raises(ConfigValidationError, match="cut to fit a tracker's length limit"):
        from_flat(Run, {"trainer.tags": flat["trainer.tags"]})


def test_a_key_cut_to_a_tracker_s_limit_is_refused() -> None:
    run = Run(extra={"k" * 300: 1})
    (key,) = (key for key in to_flat(run, text=True) if key.startswith("extra."))
    with pytest.raises(ConfigValidationError) as caught:
        from_flat(Run, {key: "1"})
    assert caught.value.key == f"--{key}"
    assert caught.value.origin == f"flat key {key}"
    assert "cut to fit a tracker's length limit: give the whole key" in str(caught.value)


@pytest.mark.parametrize("key", ["", "a=b", "--seed", "@x", "~seed", " seed", "extra.a+", 3])
def test_a_key_that_is_no_dotted_key_is_refused(key: Any) -> None:
    with pytest.raises(ArgvError, match="a flat key is a dotted key") as caught:
        from_flat(Run, {key: 1})
    assert caught.value.origin == "flat"


def test_a_value_no_config_holds_is_one_error() -> None:
    with pytest.raises(ArgvError) as caught:
        from_flat(Run, {"extra": {"k": object()}})
    assert caught.value.key == "--extra"
    assert caught.value.origin == "flat key extra"
    assert "object is no config value" in str(caught.value)


def _nested(levels: int, kind: type = dict) -> Any:
    """`levels` containers, each holding the next (a dict's under the key "k")."""
    value: Any = kind()
    for _ in range(levels - 1):
        value = {"k": value} if kind is dict else kind([value])
    return value


@pytest.mark.parametrize("kind", [dict, list, tuple])
def test_a_value_nested_past_any_config_is_one_error_before_it_is_read(kind: type) -> None:
    """3,000 levels was a RecursionError from the JSON encoder, at from_flat's and flat_argv's
    every entry, and from to_flat's walk."""
    for value in (_nested(3000, kind), _nested(102, kind)):
        with pytest.raises(ArgvError) as caught:
            from_flat(Run, {"extra": value})
        assert (caught.value.key, caught.value.origin) == ("--extra", "flat key extra")
        assert caught.value.message == "nested deeper than 100 levels"
        with pytest.raises(ValueError, match="nested deeper than 100 levels"):
            flat_argv({"extra": value}, Run)
    with pytest.raises(ValueError, match="a dict nested deeper than 100 levels is no config"):
        to_flat({"extra": _nested(3000)})


def test_the_deepest_values_are_taken() -> None:
    deepest = _nested(101)  # as deep as a flag's JSON may nest
    assert from_flat(Run, {"extra": deepest}).extra == deepest
    deepest = _nested(100)  # in a config as deep as a file may nest
    assert from_flat(Run, to_flat({"extra": deepest})).extra == deepest


def test_an_error_showing_a_value_too_deep_to_show_says_so() -> None:
    """What an error shows of a value is never itself an error (repr recurses)."""
    with pytest.raises(ArgvError) as caught:
        from_flat(Run, {"extra": _nested(3000)})
    assert str(caught.value) == (
        "--extra = <nested too deep to show> (from flat key extra): nested deeper than 100 levels"
    )


def test_a_section_given_text_is_the_section_error() -> None:
    with pytest.raises(ArgvError, match="is a section"):
        from_flat(Run, {"trainer": "{'steps': 1"})


def test_a_bool_in_an_untyped_dict_stays_a_bool() -> None:
    """Optuna and W&B hand over typed booleans: an untyped key (`dict[str, Any]`, vLLM's extra
    arguments) read `True` as the text 'True'; TOML's `true` is a bool to every field."""
    run = Run(extra={"eager": True, "compile": False}, trainer=Trainer(ckpt=Ckpt()))
    assert from_flat(Run, {"extra.eager": True, "extra.compile": False}).extra == run.extra
    for flat in (to_flat(run), to_flat(run, text=True)):
        del flat["api.key"]  # a secret: its mask is no value
        assert from_flat(Run, flat) == run
    assert flat_argv({"extra.eager": True}) == ["--extra.eager=true"]
    assert parse(Run, flat_argv({"extra.eager": True})).extra == {"eager": True}


def test_a_file_given_to_a_section_is_loaded_there_as_the_command_line_does(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`"@FILE"` for a section loads the file there, as `--KEY=@FILE` does (a sweep over
    config groups, W&B's agent or an Optuna trial in process); for a value it is the command
    line's error, not the text: what `from_flat` gives is what `flat_argv`'s flags give."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sgd.toml").write_text("type = 'sgd'\nmomentum = 0.9\n")
    flat = {"trainer.optim": "@sgd.toml", "trainer.steps": 3}
    run = from_flat(Run, flat)
    assert run.trainer.optim == Sgd(momentum=0.9)
    assert parse(Run, flat_argv(flat, Run)) == run
    with pytest.raises(ArgvError, match="is a value, not a section") as caught:
        from_flat(Run, {"note": "@sgd.toml"})
    assert caught.value.origin == "flat key note"
    with pytest.raises(ArgvError, match="is a value, not a section"):
        parse(Run, flat_argv({"note": "@sgd.toml"}, Run))


# --- back: flat_argv ---------------------------------------------------------------------------


def test_flat_argv_gives_flag_tokens_the_command_line_reads() -> None:
    flat = {
        "trainer.optim.lr": 0.01,
        "trainer.tags": ["a", "b"],
        "note": None,
        "trainer.ckpt": {},
        "trainer": {"steps": 3},
    }
    tokens = flat_argv(flat, Run)
    assert tokens == [
        "--trainer.optim.lr=0.01",
        '--trainer.tags=["a", "b"]',
        "--note=None",
        "--trainer.ckpt",
        "--trainer.steps=3",
    ]
    run = parse(Run, tokens)
    assert (run.trainer.optim.lr, run.trainer.tags, run.trainer.ckpt, run.trainer.steps) == (
        0.01,
        ["a", "b"],
        Ckpt(),
        3,
    )
    assert flat_argv({"extra": {"k": 1}}) == ['--extra={"k": 1}']  # without a schema: JSON


_TEXT = st.text(st.characters(codec="utf-8", exclude_characters="\x00"), max_size=20).filter(
    lambda text: "${" not in text and text != "None" and not is_cut(text) and text[:1] != "@"
)  # interpolation, "None" and a leading @ mean what they mean on the command line (docs/17)


@given(
    steps=st.integers(-(2**63), 2**63 - 1),
    lr=st.floats(allow_nan=False),
    tags=st.lists(_TEXT, max_size=4),
    note=st.none() | _TEXT,
    # an untyped value given as text is read as a flag's is (`"0"` is 0): numbers only here
    extra=st.dictionaries(_TEXT, st.integers() | st.floats(allow_nan=False), max_size=3),
    typed=st.booleans(),
)
def test_any_export_comes_back_typed_or_as_text(
    steps: int, lr: float, tags: list[str], note: str | None, extra: dict[str, Any], typed: bool
) -> None:
    run = Run(trainer=Trainer(optim=Adam(lr=lr), steps=steps, tags=tags), note=note, extra=extra)
    flat = to_flat(run) if typed else to_flat(run, text=True, max_length=10**6)
    del flat["api.key"]
    assert from_flat(Run, flat) == run


def test_from_flat_takes_parse_s_options(tmp_path: Path) -> None:
    class Named(BaseConfig):
        name: str = "run-${now:%Y}"
        seed: int = 0

    environ = {"APP_SEED": "5"}
    named = from_flat(Named, {}, env_prefix="APP_", environ=environ, now="2020-06-01T00:00:00")
    assert (named.name, named.seed) == ("run-2020", 5)
    assert from_flat(Named, {"seed": 6}, env_prefix="APP_", environ=environ).seed == 6
