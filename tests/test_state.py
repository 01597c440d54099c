"""No hidden process-wide state (issue 20): what compose learns about a model class lives and dies
with the class, and a new class never gets an old one's answers, even at the same address; two
threads composing at once each get their own warnings, none lost, none twice."""

from __future__ import annotations

import gc
import threading
import warnings
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Annotated, Literal

import pytest
from pydantic import model_validator

from compose import BaseConfig, HelpRequested, Merge, UnknownKeyError, cli, parse, renamed
from compose._cli import entry
from compose._schema.memo import MEMO_ATTR
from compose._schema.plan import plan_of

if TYPE_CHECKING:
    from conftest import WriteFile


def _schema() -> type[BaseConfig]:
    """A schema made at run time, using what composition remembers about classes: sections,
    a union, a strategy list, a rename, a docstring for help."""

    class Adam(BaseConfig):
        type: Literal["adam"] = "adam"
        lr: float = 1e-3

    class Sgd(BaseConfig):
        type: Literal["sgd"] = "sgd"
        momentum: float = 0.9

    @renamed({"old_seed": "seed"})
    class Run(BaseConfig):
        seed: int = 0
        """The random seed."""
        optim: Adam | Sgd = Adam()
        tags: Annotated[list[str], Merge.extend] = []

    return Run


def _use(schema: type[BaseConfig], write: WriteFile) -> None:
    """Compose, walk flags, switch a union, rename, show help: every cache a class can enter."""
    base = write("base.toml", "tags = ['a']\n[optim]\ntype = 'sgd'\n")
    with pytest.warns(FutureWarning):
        config = parse(schema, ["@", base, "--old-seed", "3", "--tags+", "b"])
    assert config.model_dump()["tags"] == ["a", "b"]
    with pytest.raises(HelpRequested) as asked:
        parse(schema, ["--help"])
    assert "The random seed." in asked.value.text


def test_a_schema_no_one_uses_any_more_is_freed(write: WriteFile) -> None:
    schema = _schema()
    _use(schema, write)
    gone = weakref.ref(schema)
    section = weakref.ref(plan_of(schema).fields["optim"].shape.variants[0][1])  # Adam
    del schema
    gc.collect()
    assert gone() is None
    assert section() is None


def test_a_class_never_gets_another_class_s_answers() -> None:
    """`id()` is reused once a class is freed, and a subclass reads its base's attributes:
    nothing learnt of one class may answer for another (its fields, its flags, its walks).
    What compose learns lives on the class itself, marked with its owner; a class holding
    another's answers, as a class at a dead class's address or a subclass would, works out
    its own. (Planted here: waiting for the allocator to reuse an address is chance.)"""

    class Config(BaseConfig):
        width: int = 1

    assert parse(Config, ["--width", "2"]).model_dump() == {"width": 2}
    new = type("Config", (BaseConfig,), {"__annotations__": {"height": int}, "height": 1})
    setattr(new, MEMO_ATTR, getattr(Config, MEMO_ATTR))  # the other class's answers
    assert list(plan_of(new).fields) == ["height"]
    assert parse(new, ["--height", "5"]).model_dump() == {"height": 5}
    with pytest.raises(UnknownKeyError):
        parse(new, ["--width", "2"])

    class Deeper(Config):  # finds Config's answers through its bases
        depth: int = 3

    assert list(plan_of(Deeper).fields) == ["width", "depth"]
    assert parse(Deeper, ["--depth", "4"]).model_dump() == {"width": 1, "depth": 4}


def test_a_subclass_does_not_answer_with_its_base_class_memo() -> None:
    """What is kept on a class is its own: a subclass finds its base's by attribute lookup."""

    class Base(BaseConfig):
        a: int = 1

    assert list(plan_of(Base).fields) == ["a"]

    class Sub(Base):
        b: int = 2

    assert list(plan_of(Sub).fields) == ["a", "b"]
    assert parse(Sub, ["--b", "3"]).model_dump() == {"a": 1, "b": 3}


# --- warnings: each thread its own ---------------------------------------------------------------

_BOTH = threading.Barrier(2, timeout=30)  # a hang guard, not a timing


class _Meeting(Mapping[str, str]):
    """An environment that makes its reader wait for the other thread's (`cli` reads it first,
    inside its warnings' hold-back): both are then composing at once."""

    def __init__(self) -> None:
        self._met = False

    def __getitem__(self, name: str) -> str:
        raise KeyError(name)

    def __len__(self) -> int:
        return 0

    def __iter__(self) -> Iterator[str]:
        if not self._met:
            self._met = True
            _BOTH.wait()
        return iter(())


@renamed({"old_a": "a", "old_b": "b"})
class Pair(BaseConfig):
    a: int = 0
    b: int = 0

    @model_validator(mode="after")
    def _after_both_warned(self) -> Pair:
        """Validation comes after the merge that warned: both threads hold their warnings now."""
        _BOTH.wait()
        return self


def _in_threads(*calls: Callable[[], object]) -> None:
    errors: list[BaseException] = []

    def run(call: Callable[[], object]) -> None:
        try:
            call()
        except BaseException as error:  # reported by the test's thread
            errors.append(error)

    threads = [
        threading.Thread(target=run, args=(call,), name=f"t{i}") for i, call in enumerate(calls)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    _BOTH.reset()
    assert errors == []


def test_two_entrypoints_composing_at_once_each_print_their_own_warnings(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    printed: list[tuple[str, str]] = []
    monkeypatch.setattr(
        entry, "write_text", lambda _, text: printed.append((threading.current_thread().name, text))
    )

    def run(key: str) -> Callable[[], object]:
        return lambda: cli(Pair, [f"--old-{key}", "1"], env_prefix="X_", environ=_Meeting())

    _in_threads(run("a"), run("b"))
    assert sorted(printed) == [
        ("t0", "warning: `old_a` is renamed to `a`; found in --old-a\n"),
        ("t1", "warning: `old_b` is renamed to `b`; found in --old-b\n"),
    ]


def test_an_entrypoint_does_not_take_the_warnings_of_a_library_call_beside_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`parse` warns as Python does (here, recorded); an entrypoint composing meanwhile in
    another thread neither shows those warnings nor silences them."""
    printed: list[str] = []
    monkeypatch.setattr(entry, "write_text", lambda _, text: printed.append(text))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        _in_threads(
            lambda: cli(Pair, ["--old-a", "1"], env_prefix="X_", environ=_Meeting()),
            lambda: parse(Pair, ["--old-b", "1"], env_prefix="X_", environ=_Meeting()),
        )
    assert printed == ["warning: `old_a` is renamed to `a`; found in --old-a\n"]
    assert [str(w.message) for w in caught] == ["`old_b` is renamed to `b`; found in --old-b"]
