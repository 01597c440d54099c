"""Origins found by replaying the composition when asked: the cases the replay makes delicate.

A composition records no origins while it merges; the first lookup composes the same nodes again
(reading the files again, checked against what was composed) while recording. These tests pin
the cases where that replay has to reproduce the first run exactly: deletions, section files,
union switches (one replay per switch, stopped there), flags, files that changed or vanished
since, and pipes, which cannot be read twice. The property at the end checks every
leaf of random schema-less compositions against a direct model of "the last node that set it".
"""

from __future__ import annotations

import os
import signal
import threading
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import pytest
from conftest import SHARING_TMP_PATH, examples
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import Field
from schemas import RLConfig

from compose import BaseConfig, ComposeError, ComposeWarning, compose, parse
from compose._input.argv import FileItem, Item, parse_overrides
from compose._merge.composed import Composed
from compose._merge.fold import compose_items
from compose._tree import KeyPath

if TYPE_CHECKING:
    from conftest import WriteFile


def composed_of(files: list[str], overrides: tuple[str, ...] = ()) -> Composed:
    items = [FileItem(name, "", name) for name in files] + parse_overrides(overrides)
    return compose_items(items, None)


def origin(composed: Composed, *path: str | int) -> str | None:
    return composed.origins.describe(path)


# --- deletions, sections, flags ----------------------------------------------------------------


def test_a_key_deleted_then_set_again_comes_from_the_file_that_set_it_again(
    write: WriteFile,
) -> None:
    write("a.toml", "[model]\nname = 'a'\nsize = 1\n")
    write("b.toml", "[model]\nsize = 2\n")
    write("c.toml", "x = 1\n\n[model]\nname = 'c'\n")
    items = [FileItem("a.toml", "", "a.toml"), *parse_overrides(["~model.name"])]
    items += [FileItem(name, "", name) for name in ("b.toml", "c.toml")]
    composed = compose_items(items, None)
    assert composed.tree == {"model": {"size": 2, "name": "c"}, "x": 1}
    assert origin(composed, "model", "name") == "c.toml:4"
    assert origin(composed, "model", "size") == "b.toml:2"
    assert origin(composed, "model") == "a.toml:1"


def test_keys_under_a_later_section_file_keep_their_own_files(write: WriteFile) -> None:
    write("a.toml", "[trainer]\nlr = 0.5\nsteps = 3\n")
    write("t.toml", "steps = 4\nwarmup = 1\n")
    composed = composed_of(["a.toml"], ("trainer=@t.toml",))
    assert composed.tree == {"trainer": {"lr": 0.5, "steps": 4, "warmup": 1}}
    assert origin(composed, "trainer", "lr") == "a.toml:2"
    assert origin(composed, "trainer", "steps") == "t.toml:1"
    assert origin(composed, "trainer", "warmup") == "t.toml:2"


def test_flags_win_over_files_and_name_themselves(write: WriteFile) -> None:
    write("a.toml", "[a]\nb = 1\nc = 2\n")
    composed = composed_of(["a.toml"], ("a.b=5", "a.c.d=6"))
    assert composed.tree == {"a": {"b": 5, "c": {"d": 6}}}
    assert origin(composed, "a", "b") == "override a.b"
    assert origin(composed, "a", "c", "d") == "override a.c.d"


def test_a_file_error_names_the_line_of_the_winning_file(write: WriteFile) -> None:
    write("a.toml", "seed = 1\n")
    write("b.toml", "# the seed\n# of b\nseed = 'x'\n")
    with pytest.raises(ComposeError) as caught:
        parse(RLConfig, ["@a.toml", "@b.toml"])
    assert "(from b.toml:3)" in str(caught.value)


# --- union switches: each warning replays up to its own switch ---------------------------------


def test_every_union_switch_names_the_origins_of_that_moment(write: WriteFile) -> None:
    """Three switches, each dropping a key another node set: one replay stopped at each."""
    write("a.toml", "[trainer.optim]\nbetas = [0.8, 0.9]\n")
    write("b.toml", "[trainer.optim]\ntype = 'muon'\nmomentum = 0.8\n")
    write("c.toml", "[trainer.optim]\ntype = 'adamw'\nbetas = [0.7, 0.9]\n")
    argv = ["@a.toml", "@b.toml", "--trainer.optim.type", "muon", "@c.toml"]
    with pytest.warns(ComposeWarning) as record:
        config = parse(RLConfig, argv)
    assert config.trainer.optim.type == "muon"
    drop = "is dropped: --trainer.optim.type switched to"
    assert [str(w.message) for w in record] == [
        f"--trainer.optim.betas (from a.toml:2) {drop} 'muon', which has no such key",
        f"--trainer.optim.momentum (from b.toml:3) {drop} 'adamw', which has no such key",
        f"--trainer.optim.betas (from c.toml:3) {drop} 'muon', which has no such key",
    ]


class VariantA(BaseConfig):
    type: Literal["a"] = "a"
    x: int = 0


class VariantB(BaseConfig):
    type: Literal["b"] = "b"
    y: int = 0


class Holder(BaseConfig):
    opt: VariantA | VariantB = Field(default_factory=VariantA, discriminator="type")
    size: int = 0


class Holders(BaseConfig):
    holders: dict[str, Holder] = {}
    counts: dict[str, int] = {}


def test_a_union_inside_a_dict_of_sections_still_switches(write: WriteFile) -> None:
    """The merge skips the schema where no union lies below; here one does, through a dict."""
    write("a.toml", "[holders.one.opt]\nx = 1\n[counts]\nn = 1\n")
    write("b.toml", "[holders.one.opt]\ntype = 'b'\ny = 2\n[counts]\nn = 2\n")
    with pytest.warns(ComposeWarning, match=r"x \(from a\.toml:2\) is dropped"):
        config = compose(["a.toml", "b.toml"], schema=Holders)
    assert config.holders["one"].opt == VariantB(y=2)
    assert config.counts == {"n": 2}


def test_origins_after_a_switch_point_at_the_new_variant(write: WriteFile) -> None:
    write("a.toml", "[trainer.optim]\nbetas = [0.8, 0.9]\nlr = 0.5\n")
    write("b.toml", "[trainer.optim]\ntype = 'muon'\n\nmomentum = 0.8\n")
    with pytest.warns(ComposeWarning):
        composed = compose_items(
            [FileItem(name, "", name) for name in ("a.toml", "b.toml")], RLConfig
        )
    assert origin(composed, "trainer", "optim", "lr") == "a.toml:3"
    assert origin(composed, "trainer", "optim", "momentum") == "b.toml:4"
    assert origin(composed, "trainer", "optim", "type") == "b.toml:2"


# --- files that changed since, and pipes ----------------------------------------------------------


def test_a_file_changed_since_it_was_read_says_so_instead_of_a_wrong_line(
    write: WriteFile,
) -> None:
    write("a.toml", "seed = 1\n")
    write("b.toml", "x = 1\n")
    composed = composed_of(["a.toml", "b.toml"])
    write("a.toml", "\n\n\nseed = 2\n")
    assert origin(composed, "seed") == "unknown: a.toml changed since it was read"
    assert origin(composed, "x") == "unknown: a.toml changed since it was read"


def test_a_file_changed_after_the_replay_gives_no_line(write: WriteFile) -> None:
    write("a.toml", "seed = 1\n")
    composed = composed_of(["a.toml"])
    composed.origins.lookup(("seed",))  # the replay, with the file as it was
    write("a.toml", "\n\n\nseed = 2\n")
    assert origin(composed, "seed") == "a.toml (changed since it was read)"


def test_a_file_gone_since_it_was_read_makes_origins_unknown(write: WriteFile) -> None:
    write("a.toml", "[t]\nseed = 1\n")
    write("b.toml", "[t]\nx = 1\n")
    composed = composed_of(["a.toml", "b.toml"])
    os.remove("a.toml")
    assert origin(composed, "t", "x") == "unknown: a.toml changed since it was read"


def test_a_changed_file_that_no_longer_parses_makes_origins_unknown(write: WriteFile) -> None:
    write("a.toml", "[t]\nseed = 1\n")
    write("b.toml", "[t]\nx = 1\n")
    composed = composed_of(["a.toml", "b.toml"])
    write("a.toml", "seed = = 1\n")
    assert origin(composed, "t", "x") == "unknown: a.toml changed since it was read"


@pytest.fixture
def alarm() -> Iterator[None]:
    """Fail instead of hanging if something reads a pipe twice."""

    def hang(signum: int, frame: Any) -> None:
        raise TimeoutError("a pipe was read twice")

    previous = signal.signal(signal.SIGALRM, hang)
    signal.alarm(20)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


@pytest.mark.usefixtures("alarm")
def test_origins_from_a_pipe_keep_its_text(tmp_path: Path, write: WriteFile) -> None:
    fifo = tmp_path / "pipe.toml"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "w", encoding="utf-8") as stream:
            stream.write("seed = 5\n\nmax_steps = 'many'\n")

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    with pytest.raises(ComposeError) as caught:
        compose(["pipe.toml"], schema=RLConfig)
    writer.join()
    assert "(from pipe.toml:3)" in str(caught.value)


# --- property: every leaf's origin is the last node that set it -----------------------------------

KEYS = st.sampled_from(["a", "b", "c"])
LEAF = st.one_of(st.integers(0, 9), st.just("???"), st.lists(st.integers(0, 3), max_size=2))
TREES = st.recursive(
    LEAF, lambda inner: st.dictionaries(KEYS, inner, min_size=1, max_size=3), max_leaves=8
)
DOCS = st.dictionaries(KEYS, TREES, min_size=1, max_size=3)
PATHS = st.lists(KEYS, min_size=1, max_size=3).map(tuple)
NODES = st.lists(
    st.one_of(
        DOCS.map(lambda doc: ("file", doc)),
        PATHS.map(lambda path: ("delete", path)),
    ),
    min_size=1,
    max_size=6,
)
FLAGS = st.lists(st.tuples(PATHS, st.integers(10, 19)), max_size=3)


def leaves(tree: dict[str, Any], path: KeyPath = ()) -> Iterator[tuple[KeyPath, Any]]:
    for key, value in tree.items():
        if isinstance(value, dict):
            yield from leaves(value, (*path, key))
        else:
            yield (*path, key), value


def toml_value(value: Any) -> str:
    return f'"{value}"' if isinstance(value, str) else repr(value)


def render(doc: dict[str, Any]) -> tuple[str, dict[KeyPath, int]]:
    """The document as one dotted `key = value` a line, and the line of each leaf."""
    lines = {path: number for number, (path, _) in enumerate(leaves(doc), start=1)}
    text = "".join(f"{'.'.join(map(str, p))} = {toml_value(v)}\n" for p, v in leaves(doc))
    return text, lines


class Model:
    """The composition, leaf by leaf: each leaf with the description of who set it."""

    def __init__(self) -> None:
        self.tree: dict[str, Any] = {}

    def merge(self, dst: dict[str, Any], src: dict[str, Any], tag: Any, path: KeyPath) -> None:
        for key, value in src.items():
            old = dst.get(key)
            if isinstance(value, dict) and isinstance(old, dict):
                self.merge(old, value, tag, (*path, key))
            elif value == "???" and key in dst:
                continue
            else:
                dst[key] = self.wrap(value, tag, (*path, key))

    def wrap(self, value: Any, tag: Any, path: KeyPath) -> Any:
        if isinstance(value, dict):
            return {key: self.wrap(item, tag, (*path, key)) for key, item in value.items()}
        return ("leaf", value, tag(path))

    def through_list(self, path: KeyPath) -> bool:
        """Whether `path` steps into a list (a key of a list is an error, not a node)."""
        node: Any = self.tree
        for key in path[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
            if isinstance(node, tuple) and isinstance(node[1], list):
                return True
        return False

    def delete(self, path: KeyPath) -> None:
        node: Any = self.tree
        for key in path[:-1]:
            node = node.get(key) if isinstance(node, dict) else None
        if isinstance(node, dict):
            node.pop(path[-1], None)

    def flag(self, path: tuple[str, ...], value: int, shown: str) -> None:
        node: Any = self.tree
        for key in path[:-1]:
            if not isinstance(node.get(key), dict):
                node[key] = {}
            node = node[key]
        node[path[-1]] = ("leaf", value, shown)


def unwrap(tree: dict[str, Any]) -> dict[str, Any]:
    return {k: unwrap(v) if isinstance(v, dict) else v[1] for k, v in tree.items()}


@settings(max_examples=examples(150), suppress_health_check=SHARING_TMP_PATH)
@given(nodes=NODES, flags=FLAGS)
def test_every_leaf_comes_from_the_last_node_that_set_it(
    tmp_path: Path, nodes: list[tuple[str, Any]], flags: list[tuple[tuple[str, ...], int]]
) -> None:
    model, items, overrides = Model(), list[Item](), list[str]()
    for index, (kind, node) in enumerate(nodes):
        if kind == "file":
            name = str(tmp_path / f"f{index}.toml")
            text, lines = render(node)
            Path(name).write_text(text, encoding="utf-8")
            items.append(FileItem(name, "", name))
            model.merge(model.tree, node, lambda p, n=name, ls=lines: f"{n}:{ls[p]}", ())
        elif not model.through_list(node):
            items += parse_overrides(["~" + ".".join(node)])
            model.delete(node)
    for path, value in flags:
        if model.through_list(path):
            continue
        dotted = ".".join(path)
        overrides.append(f"{dotted}={value}")
        model.flag(path, value, f"override {dotted}")
    items += parse_overrides(overrides)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # schema-less: nothing to warn about
        composed = compose_items(items, None)
    assert composed.tree == unwrap(model.tree)
    for where, leaf in leaves(model.tree):
        assert composed.origins.describe(where) == leaf[2], where
