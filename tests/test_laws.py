"""Laws of composition, property-tested (issue 7): what holds for every input, not one example.

- identity: an empty file node changes nothing, wherever it stands in argv;
- associativity of file nodes: composing `a`, `b`, `c` equals composing `c` onto the dump
  (`to_toml`) of `a` and `b` composed;
- override order: a later CLI value wins; every CLI value beats every file, whatever their
  positions; files (root and section files alike) and deletions apply in argv order;
- `to_toml` then load gives an equal model, for generated schemas and values;
- `compose show --resolved --schema` prints a file that composes back to itself.

Strategies live in `strategies.py`. Example counts are kept small so the module takes seconds.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
import types
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import SHARING_TMP_PATH, examples
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from schemas import RLConfig
from strategies import MANDATORY, documents, rich_instances

from compose import BaseConfig, ComposeError, compose, parse, to_toml
from compose._cli.command import main as compose_command

LAWS = settings(max_examples=examples(40), suppress_health_check=SHARING_TMP_PATH)
_names = itertools.count()


def write_document(directory: Path, document: dict[str, Any]) -> str:
    """`document` as a TOML file (a `MANDATORY` value becomes a `???` marker); its path."""
    text = to_toml(document).replace(json.dumps(MANDATORY), '"???"')
    path = directory / f"doc{next(_names)}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


def outcome(sources: list[str]) -> tuple[str, Any]:
    """What schema-less `compose` gives: ("ok", dict) or ("error", its message)."""
    try:
        return "ok", compose(sources)
    except ComposeError as error:  # several errors come in file order: a dump reorders keys
        return "error", sorted(str(error).splitlines())


def same(left: Any, right: Any) -> bool:
    """Equality that also tells 0.0 from -0.0 (a dump must not lose a sign) and True from 1;
    the order of a table's keys is not part of it (a dump writes values before sub-tables)."""
    if isinstance(left, float) and isinstance(right, float):
        return left == right and math.copysign(1, left) == math.copysign(1, right)
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(same, left, right))
    return type(left) is type(right) and left == right


# --- identity ----------------------------------------------------------------------------------


@LAWS
@given(docs=st.lists(documents(), max_size=3), where=st.integers(0, 3), blank=st.booleans())
def test_an_empty_file_changes_nothing_schemaless(
    tmp_path: Path, docs: list[dict[str, Any]], where: int, blank: bool
) -> None:
    sources = [write_document(tmp_path, doc) for doc in docs]
    empty = tmp_path / f"empty{next(_names)}.toml"
    empty.write_text("# nothing here\n\n" if blank else "", encoding="utf-8")
    with_empty = [*sources[:where], str(empty), *sources[where:]]
    kind, result = outcome(sources)
    kind_with, result_with = outcome(with_empty)
    assert kind == kind_with
    assert same(result, result_with)


# --- associativity -----------------------------------------------------------------------------


@LAWS
@given(a=documents(), b=documents(), c=documents())
def test_file_nodes_associate(
    tmp_path: Path, a: dict[str, Any], b: dict[str, Any], c: dict[str, Any]
) -> None:
    """compose([a, b, c]) == compose([ab, c]), ab the dump of compose([a, b]).

    Only left association is a law: a scalar in `b` replaces a table of `a`, after which `c`'s
    table merges onto nothing; `b` and `c` composed first would merge `c`'s table into `a`'s.
    A `???` that `a` and `b` leave unset makes compose([a, b]) an error: nothing to dump then.
    """
    first, second, third = (write_document(tmp_path, doc) for doc in (a, b, c))
    kind, ab = outcome([first, second])
    assume(kind == "ok")
    ab_path = write_document(tmp_path, ab)
    kind_abc, abc = outcome([first, second, third])
    kind_ab_c, ab_c = outcome([ab_path, third])
    assert kind_abc == kind_ab_c
    assert same(abc, ab_c)  # or the same error, which can only come from c


@LAWS
@given(docs=st.lists(documents(mandatory=False), min_size=1, max_size=3))
def test_a_dump_of_a_composition_composes_to_it(tmp_path: Path, docs: list[dict[str, Any]]) -> None:
    """The identity behind associativity: to_toml(compose(x)) composes back to compose(x)."""
    sources = [write_document(tmp_path, doc) for doc in docs]
    result = compose(sources)
    assert same(compose([write_document(tmp_path, result)]), result)


# --- override order ----------------------------------------------------------------------------

# Keys of RLConfig whose values the order laws move around, with strategies of valid values.
_words = st.text(st.sampled_from("abz é日-_.0"), min_size=1, max_size=6).filter(
    lambda text: not text.startswith(("-", "@")) and text != "None"
)
ORDER_KEYS: dict[str, st.SearchStrategy[Any]] = {
    "seed": st.integers(-5, 5),
    "max_steps": st.none() | st.integers(0, 10**12),
    "tag": _words,
    "trainer.micro_batch_size": st.integers(1, 64),
    "trainer.lr_warmup_steps": st.integers(0, 9),
    "trainer.model.name": _words,
    "orchestrator.batch_size": st.integers(1, 4096),
    "orchestrator.sampling.temperature": st.floats(0, 2) | st.just(math.inf),
}
SECTIONS = ("trainer", "orchestrator")


@dataclass(frozen=True)
class RootFile:
    values: dict[str, Any]


@dataclass(frozen=True)
class SectionFile:
    section: str
    values: dict[str, Any]  # keys relative to the section


@dataclass(frozen=True)
class Flag:
    key: str
    value: Any
    equals: bool  # --key=value rather than --key value


@dataclass(frozen=True)
class Delete:
    key: str


Node = RootFile | SectionFile | Flag | Delete


@st.composite
def assignments(draw: st.DrawFn, section: str = "") -> dict[str, Any]:
    prefix = f"{section}." if section else ""
    keys = [key for key in ORDER_KEYS if key.startswith(prefix)]
    chosen = draw(st.lists(st.sampled_from(keys), max_size=3, unique=True))
    return {key.removeprefix(prefix): draw(ORDER_KEYS[key]) for key in chosen}


@st.composite
def nodes(draw: st.DrawFn) -> Node:
    kind = draw(st.sampled_from(["root", "section", "flag", "flag", "delete"]))
    if kind == "root":
        return RootFile(draw(assignments()))
    if kind == "section":
        section = draw(st.sampled_from(SECTIONS))
        return SectionFile(section, draw(assignments(section)))
    key = draw(st.sampled_from(list(ORDER_KEYS)))
    if kind == "delete":
        return Delete(key)
    return Flag(key, draw(ORDER_KEYS[key]), draw(st.booleans()))


def nested(values: dict[str, Any]) -> dict[str, Any]:
    tree: dict[str, Any] = {}
    for dotted, value in values.items():
        *parents, leaf = dotted.split(".")
        table = tree
        for parent in parents:
            table = table.setdefault(parent, {})
        table[leaf] = value
    return tree


def _text(value: Any) -> str:
    return "None" if value is None else str(value)


def argv_tokens(directory: Path, node_list: list[Node]) -> list[list[str]]:
    """Each node's tokens. A flag before a deletion uses `--key=value`: `--key value ~key`
    would give `~key` to the flag as a second value (values run up to the next `--` or `@`)."""
    pieces = []
    for index, node in enumerate(node_list):
        after = node_list[index + 1] if index + 1 < len(node_list) else None
        if isinstance(node, Flag) and isinstance(after, Delete):
            pieces.append(argv_of(directory, Flag(node.key, node.value, equals=True)))
        else:
            pieces.append(argv_of(directory, node))
    return pieces


def argv_of(directory: Path, node: Node) -> list[str]:
    if isinstance(node, RootFile | SectionFile):
        path = directory / f"node{next(_names)}.toml"
        path.write_text(to_toml(nested(node.values)), encoding="utf-8")
        if isinstance(node, RootFile):
            return ["@", str(path)]
        return [f"--{node.section}", "@", str(path)]
    flag = "--" + node.key.replace("_", "-")
    if isinstance(node, Delete):
        return [f"~{node.key}"]
    return [f"{flag}={_text(node.value)}"] if node.equals else [flag, _text(node.value)]


def expected_values(node_list: list[Node]) -> dict[str, Any]:
    """What the contract says: files and deletions in order, then every flag in order, on top."""
    files: dict[str, Any] = {}
    flags: dict[str, Any] = {}
    touched: set[str] = set()  # sections a node set something in (a deletion leaves the table)
    for node in node_list:
        if isinstance(node, RootFile):
            files.update(node.values)
        elif isinstance(node, SectionFile):
            files.update({f"{node.section}.{key}": v for key, v in node.values.items()})
        elif isinstance(node, Delete):
            files.pop(node.key, None)
            continue
        else:
            flags[node.key] = node.value
        touched.update(_sections_of(files.keys() | flags.keys()))
    return {
        key: flags.get(key, files.get(key, layered_default(key, touched))) for key in ORDER_KEYS
    }


def _sections_of(keys: Any) -> set[str]:
    return {key.rsplit(".", depth)[0] for key in keys for depth in range(1, key.count(".") + 1)}


def layered_default(key: str, touched: set[str]) -> Any:
    """The default validation gives `key` (CONTRACT §7 "Layers"): below a section some node set,
    the class's field defaults; elsewhere the default instances."""
    model: Any = RLConfig()
    parts = key.split(".")
    for depth, segment in enumerate(parts[:-1], start=1):
        model = getattr(model, segment)
        if ".".join(parts[:depth]) in touched:
            model = type(model)()
    return getattr(model, parts[-1])


def get(model: Any, dotted: str) -> Any:
    for segment in dotted.split("."):
        model = getattr(model, segment)
    return model


def parsed(argv: list[str]) -> RLConfig:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return parse(RLConfig, argv)


@LAWS
@given(node_list=st.lists(nodes(), max_size=6))
def test_override_order(tmp_path: Path, node_list: list[Node]) -> None:
    """Flags beat files wherever they stand, the later flag winning; files, section files and
    deletions apply in argv order; what nothing set keeps its default."""
    argv = [token for piece in argv_tokens(tmp_path, node_list) for token in piece]
    config = parsed(argv)
    expected = expected_values(node_list)
    assert {key: get(config, key) for key in ORDER_KEYS} == expected, argv


@LAWS
@given(node_list=st.lists(nodes(), max_size=5), data=st.data())
def test_an_empty_file_node_anywhere_in_argv_changes_nothing(
    tmp_path: Path, node_list: list[Node], data: st.DataObject
) -> None:
    """Root or section file (of a section that is always there), in any of its spellings."""
    pieces = argv_tokens(tmp_path, node_list)
    empty = tmp_path / "empty.toml"
    empty.write_text("", encoding="utf-8")
    where = data.draw(st.integers(0, len(pieces)))
    node = data.draw(
        st.sampled_from(
            [
                ["@", str(empty)],
                [f"@{empty}"],
                ["--trainer", "@", str(empty)],
                [f"--orchestrator=@{empty}"],
            ]
        )
    )
    with_empty = [*pieces[:where], node, *pieces[where:]]
    flat = [token for piece in pieces for token in piece]
    flat_with = [token for piece in with_empty for token in piece]
    assert parsed(flat_with) == parsed(flat)


# --- to_toml round trips -----------------------------------------------------------------------


def reload(path: Path, text: str, schema: type[BaseConfig]) -> BaseConfig:
    path.write_text(text, encoding="utf-8")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return compose([str(path)], schema=schema)


@LAWS
@given(model=rich_instances())
def test_to_toml_round_trips_rich_schemas(tmp_path: Path, model: BaseConfig) -> None:
    """Unicode field names and keys, dicts of text, floats, lists and models, lists of union
    variants, optional unions, enums and paths: a dump reloads to an equal model."""
    text = to_toml(model)
    loaded = reload(tmp_path / "dump.toml", text, type(model))
    assert loaded == model
    assert to_toml(loaded) == text


# --- `compose show --resolved --schema` --------------------------------------------------------


@pytest.fixture
def schema_module(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    """A module the command can import generated schemas from (`law_schemas:Schema`)."""
    module = types.ModuleType("law_schemas")
    monkeypatch.setitem(sys.modules, "law_schemas", module)
    yield module


def show(argv: list[str], capsys: pytest.CaptureFixture[str]) -> str:
    capsys.readouterr()
    status = compose_command(["show", "--resolved", "--schema", "law_schemas:Schema", *argv])
    out, err = capsys.readouterr()
    assert (status, err) == (0, "")
    return out


@settings(LAWS, max_examples=examples(20))
@given(model=rich_instances())
def test_show_resolved_output_composes_to_itself(
    tmp_path: Path,
    schema_module: types.ModuleType,
    capsys: pytest.CaptureFixture[str],
    model: BaseConfig,
) -> None:
    schema_module.Schema = type(model)  # type: ignore[attr-defined]
    source = tmp_path / "source.toml"
    source.write_text(to_toml(model), encoding="utf-8")
    shown = show(["@", str(source)], capsys)
    again = tmp_path / "shown.toml"
    again.write_text(shown, encoding="utf-8")
    assert show(["@", str(again)], capsys) == shown
    assert reload(tmp_path / "reloaded.toml", shown, type(model)) == model


def test_show_resolved_of_the_rl_schema_composes_to_itself(
    write: Any, schema_module: types.ModuleType, capsys: pytest.CaptureFixture[str]
) -> None:
    """With interpolations, a variant switch, list elements by index and a section file."""
    schema_module.Schema = RLConfig  # type: ignore[attr-defined]
    write("model.toml", "name = 'Qwen/Qwen3-8B'\nmax_model_len = 4096\n")
    write(
        "rl.toml",
        """
        tag = "run-${seed}-${trainer.model.name}"
        [trainer.optim]
        type = "muon"
        [[orchestrator.env]]
        id = "math"
        args = {split = "train", tags = ["a", "None"]}
        """,
    )
    argv = ["@", "rl.toml", "--trainer.model", "@", "model.toml", "--orchestrator.env.1.id", "x"]
    shown = show([*argv, "--orchestrator.seq-len", "4096", "--inference"], capsys)
    write("shown.toml", shown)
    assert show(["@", "shown.toml"], capsys) == shown
    assert compose(["shown.toml"], schema=RLConfig) == parse(
        RLConfig, [*argv, "--orchestrator.seq-len", "4096", "--inference"]
    )
