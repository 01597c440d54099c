"""A Hydra config file's reading (`compose._input.yaml.parse_hydra`): the shortcut that builds
a plain document straight from libyaml's nodes gives what PyYAML's constructor and the copy
after it give, value for value and error for error, and the lines of a defaults list come
from the same parse."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from compose import ComposeError
from compose._input import yaml as reader

DOCUMENTS = {
    "scalars": (
        "a: 1\nb: -0x1F\nc: 1_000\nd: 1e-3\ne: .5\nf: .inf\ng: 1:30\nh: yes\ni: null\nj: ~\n"
        "k: '12'\nl: 2020-01-01\nm: !!str 5\nn: !!int '7'\no: !!float 3\np: Off\nq:\n"
    ),
    "nested": "x:\n  y:\n    - 1\n    - [2, {z: 3}]\n    - {}\n  w: []\n",
    "aliases": "base: &b {lr: 1, xs: [1]}\none: *b\ntwo: {<<: *b, lr: 2}\n",
    "scalar alias": "a: &v 5\nb: *v\n",
    "list document": "- 1\n- a: 2\n",
    "a lone text": "just text\n",
    "empty": "",
    "defaults": "defaults:\n  - db: mysql\n  - _self_\nx: 1\n",
    "defaults by merge": "common: &c\n  defaults: [a]\n<<: *c\n",
    "defaults by alias": "base: &d\n  - a\n  - b\ndefaults: *d\n",
    "defaults nested": "defaults:\n  - db: mysql\n  - {x: [1, 2]}\nx:\n  defaults: [b]\n",
}
REFUSED = {
    "a key written twice": "a: 1\nb: 2\na: 3\n",
    "a key that is no text": "1: a\n",
    "a table as a key": "? {a: 1}\n: 2\n",
    "a set": "s: !!set {a, b}\n",
    "a python tag": "o: !!python/name:os.system\n",
    "an alias inside its anchor": "a: &x [*x]\n",
    "nested too deep": "a: " + "[" * 120 + "]" * 120 + "\n",
    "an integer too long": "a: " + "9" * 5000 + "\n",
    "a boolean that is none": "a: !!bool maybe\n",
    "a date that is none": "a: !!timestamp x\n",
    "a number that is none": "a: !!float 0x1\n",
    "a number of no digits": "a: !!float _\n",
    "an integer of no digits": "a: !!int ''\n",
}


def read(text: str, shortcuts: bool, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any]:
    monkeypatch.setattr(reader, "SHORTCUTS", shortcuts)
    lines: dict[Any, int] = {}
    try:
        return reader.parse_hydra("c.yaml", text, lines), lines
    except ComposeError as error:
        return ("error", error.message, error.origin, error.hint), lines


@pytest.mark.parametrize(
    "text", [*DOCUMENTS.values(), *REFUSED.values()], ids=[*DOCUMENTS, *REFUSED]
)
def test_the_plain_build_reads_as_the_constructor(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert read(text, True, monkeypatch) == read(text, False, monkeypatch)


@pytest.mark.parametrize("name", REFUSED)
def test_what_the_plain_build_leaves_is_refused(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert read(REFUSED[name], True, monkeypatch)[0][0] == "error"


def test_no_value_is_in_two_places(monkeypatch: pytest.MonkeyPatch) -> None:
    """An alias gives a copy: changing one place leaves the other."""
    for shortcuts in (True, False):
        data, _ = read(DOCUMENTS["aliases"], shortcuts, monkeypatch)
        data["one"]["xs"].append(2)
        assert data["base"] == {"lr": 1, "xs": [1]}
        plain, _ = read(DOCUMENTS["nested"], shortcuts, monkeypatch)
        assert plain["x"]["y"][1] is not plain["x"]["y"][1][1]


def _defaults_lines(text: str) -> dict[Any, int]:
    """What `key_lines` gives the top defaults list and each of its entries."""
    found = reader.key_lines(text).items()
    return {path: line for path, line in found if path[0] == "defaults" and len(path) <= 2}


@pytest.mark.parametrize("name", DOCUMENTS)
def test_a_defaults_list_has_its_lines_from_the_same_parse(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Its lines, as `key_lines` gives them, come from the parse that reads it; nothing else
    is recorded (no other line is asked of a config's reading)."""
    text = DOCUMENTS[name]
    for shortcuts in (True, False):
        assert read(text, shortcuts, monkeypatch)[1] == _defaults_lines(text)


def test_the_lines_of_a_defaults_list(monkeypatch: pytest.MonkeyPatch) -> None:
    data, lines = read(DOCUMENTS["defaults"], True, monkeypatch)
    assert data["defaults"] == [{"db": "mysql"}, "_self_"]
    assert lines == {("defaults",): 1, ("defaults", 0): 2, ("defaults", 1): 3}
    merged = read(DOCUMENTS["defaults by merge"], True, monkeypatch)[1]
    assert merged == {("defaults",): 3}  # what a `<<` brings is at its line
    aliased = read(DOCUMENTS["defaults by alias"], True, monkeypatch)[1]
    assert aliased == {("defaults",): 4}  # an alias's entries are where they are written
    assert read(DOCUMENTS["nested"], True, monkeypatch)[1] == {}  # no defaults: no lines wanted


@pytest.mark.shortcuts
@pytest.mark.skipif(reader._FastHydraLoader is None, reason="PyYAML without libyaml")
def test_a_plain_document_is_built_without_the_constructor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(*_: Any) -> Any:
        raise AssertionError("the constructor ran")

    monkeypatch.setattr(reader._FastHydraLoader, "construct_document", refuse)
    assert read(DOCUMENTS["nested"], True, monkeypatch)[0]["x"]["w"] == []


WORDS = (
    "",
    "~",
    "null",
    "Null",
    "NULL",
    "nULL",
    "yes",
    "Yes",
    "YES",
    "yEs",
    "y",
    "n",
    "on",
    "Off",
    "oN",
    "true",
    "FALSE",
    ".inf",
    "-.Inf",
    "+.INF",
    ".nan",
    ".NaN",
    "1_000",
    "0o17",
    "017",
    "08",
    "0x1F",
    "-0b101",
    "1:30",
    "190:20:30.15",
    "1e3",
    "1e-3",
    "1.5e+3",
    "1_0.5",
    "._5",
    ".5",
    "5.",
    "-",
    "+",
    ".",
    "<<",
    "=",
    "2020-01-01",
    "2001-12-14t21:59:43.10-05:00",
    "!x",
    "&a",
    "*a",
    "text",
    "1 2",
    "0.1.2",
    "1__0",
    "-0",
    "+12",
    "0b",
    "0x",
    "1e",
    "e3",
)


def _scalar_texts() -> list[str]:
    """Every text up to three characters long over the characters that YAML's resolvers
    look at, and the odd cases by name."""
    alphabet = "019_.:+-eExXbBoOinfaNyY~ "
    texts = [*WORDS, *alphabet]
    texts += [a + b for a in alphabet for b in alphabet]
    texts += [a + b + c for a in alphabet for b in alphabet for c in "05_.:eE-n"]
    return texts


@pytest.mark.skipif(reader._FastHydraLoader is None, reason="PyYAML without libyaml")
def test_a_scalar_is_typed_as_pyyaml_types_it() -> None:
    """The libyaml loader's one-regex resolver gives the tag PyYAML's resolver loop gives, for
    plain scalars and quoted ones, with the Hydra loader's resolvers (YAML 1.1's, OmegaConf's
    floats, no timestamps)."""
    loader: Any = reader._FastHydraLoader("")  # type: ignore[misc]
    reference: Any = yaml.resolver.BaseResolver.resolve
    node = yaml.nodes.ScalarNode
    for text in _scalar_texts():
        for implicit in ((True, False), (False, True)):
            expected = reference(loader, node, text, implicit)
            assert loader.resolve(node, text, implicit) == expected, (text, implicit)
    for kind in (yaml.nodes.MappingNode, yaml.nodes.SequenceNode):
        assert loader.resolve(kind, None, True) == reference(loader, kind, None, True)
    loader.dispose()


@pytest.mark.parametrize("quoted", [False, True])
def test_a_scalar_is_read_as_the_constructor_reads_it(
    quoted: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The plain build's own reading of numbers and booleans gives the constructor's value, of
    the same type, for every text the resolvers tell apart (a refused one: the same error)."""
    for text in _scalar_texts():
        document = f"v: {chr(39) + text + chr(39) if quoted else text}\n"
        fast, reference = (repr(read(document, on, monkeypatch)) for on in (True, False))
        assert fast == reference, text
