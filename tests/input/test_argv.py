"""The command-line grammar (`compose._input.argv`): argv tokens -> ordered items, no types."""

from __future__ import annotations

import pytest

from compose import ArgvError, ComposeError
from compose._input.argv import (
    DeleteItem,
    FileItem,
    HelpItem,
    Item,
    ValueItem,
    parse_overrides,
    split_argv,
)

# (argv, expected items): every form of CLI §2 and §7 of the contract.
SPLIT_CASES: list[tuple[list[str], list[Item]]] = [
    ([], []),
    # root file nodes: two tokens or one
    (["@", "a.toml"], [FileItem("a.toml", "", "@ a.toml")]),
    (["@a.toml"], [FileItem("a.toml", "", "@a.toml")]),
    (
        ["@", "a.toml", "@b.toml"],
        [FileItem("a.toml", "", "@ a.toml"), FileItem("b.toml", "", "@b.toml")],
    ),
    # section file nodes
    (["--trainer", "@", "t.toml"], [FileItem("t.toml", "trainer", "--trainer @ t.toml")]),
    (["--trainer", "@t.toml"], [FileItem("t.toml", "trainer", "--trainer @t.toml")]),
    (
        ["--trainer.model", "@", "m.toml"],
        [FileItem("m.toml", "trainer.model", "--trainer.model @ m.toml")],
    ),
    (
        ["--trainer.env-vars", "@", "e.toml"],
        [FileItem("e.toml", "trainer.env-vars", "--trainer.env-vars @ e.toml")],
    ),
    # value overrides: the key as typed (kebab or snake), its tokens, the flag as typed
    (["--a.b-c", "v"], [ValueItem("a.b-c", ("v",), "--a.b-c")]),
    (["--a.b-c=v"], [ValueItem("a.b-c", ("v",), "--a.b-c")]),
    (["--a.b_c", "v"], [ValueItem("a.b_c", ("v",), "--a.b_c")]),
    (["--x=a=b"], [ValueItem("x", ("a=b",), "--x")]),
    (["--x="], [ValueItem("x", ("",), "--x")]),
    (["--x=--y"], [ValueItem("x", ("--y",), "--x")]),
    (["--flag"], [ValueItem("flag", (), "--flag")]),
    (["--no-flag"], [ValueItem("no-flag", (), "--no-flag")]),
    # several tokens: up to the next --flag or @
    (["--l", "a", "b", "c"], [ValueItem("l", ("a", "b", "c"), "--l")]),
    (
        ["--l", "a", "b", "--m", "c"],
        [ValueItem("l", ("a", "b"), "--l"), ValueItem("m", ("c",), "--m")],
    ),
    (
        ["--l", "a", "@", "f.toml"],
        [ValueItem("l", ("a",), "--l"), FileItem("f.toml", "", "@ f.toml")],
    ),
    (
        ["--l", "a", "@f.toml"],
        [ValueItem("l", ("a",), "--l"), FileItem("f.toml", "", "@f.toml")],
    ),
    # negative numbers and single-dash text are values, not flags
    (["--l", "-1", "-2.5", "-x"], [ValueItem("l", ("-1", "-2.5", "-x"), "--l")]),
    (["--lr", "-1e-3"], [ValueItem("lr", ("-1e-3",), "--lr")]),
    # a flag never swallows the next flag
    (
        ["--name", "--seed", "3"],
        [ValueItem("name", (), "--name"), ValueItem("seed", ("3",), "--seed")],
    ),
    # JSON stays one token
    (["--d", '{"k": 1}'], [ValueItem("d", ('{"k": 1}',), "--d")]),
    (["--l", "[1, 2]"], [ValueItem("l", ("[1, 2]",), "--l")]),
    # deletions
    (["~trainer.lr"], [DeleteItem("trainer.lr", "~trainer.lr")]),
    # help, optionally narrowed to a section
    (["--help"], [HelpItem("")]),
    (["-h"], [HelpItem("")]),
    (["--help", "trainer"], [HelpItem("trainer")]),
    (["--x", "1", "-h"], [ValueItem("x", ("1",), "--x"), HelpItem("")]),
]


@pytest.mark.parametrize(("argv", "expected"), SPLIT_CASES, ids=lambda v: repr(v)[:60])
def test_split_argv(argv: list[str], expected: list[Item]) -> None:
    assert split_argv(argv) == expected


def test_split_argv_keeps_the_order_of_every_node() -> None:
    argv = ["--seed", "1", "@", "a.toml", "--trainer", "@t.toml", "~x", "@b.toml", "--y=2"]
    assert split_argv(argv) == [
        ValueItem("seed", ("1",), "--seed"),
        FileItem("a.toml", "", "@ a.toml"),
        FileItem("t.toml", "trainer", "--trainer @t.toml"),
        DeleteItem("x", "~x"),
        FileItem("b.toml", "", "@b.toml"),
        ValueItem("y", ("2",), "--y"),
    ]


def test_equals_at_is_a_section_file_node() -> None:
    [item] = split_argv(["--trainer=@t.toml"])
    assert item == FileItem("t.toml", "trainer", "--trainer=@t.toml")  # shown as typed


def test_split_argv_knows_no_types() -> None:
    """Every token stays text: typing is the schema's business, not the grammar's."""
    [item] = split_argv(["--x", "3", "true", "None"])
    assert item == ValueItem("x", ("3", "true", "None"), "--x")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["stray"], "'stray': unexpected argument; flags start with --, files are given as @ FILE"),
        (
            ["@a.toml", "stray"],
            "'stray': unexpected argument; flags start with --, files are given as @ FILE",
        ),
        (["-x"], "'-x': unexpected argument; flags start with --, files are given as @ FILE"),
        (["--"], "'--': unexpected argument; flags start with --, files are given as @ FILE"),
        (["~"], "'~': unexpected argument; flags start with --, files are given as @ FILE"),
        (["@"], "@: @ must be followed by a file"),
        (["@", "--seed", "1"], "@: @ must be followed by a file"),
        (["--trainer", "@"], "--trainer @: @ must be followed by a file"),
        (["--=3"], "'--=3': malformed flag"),
        (["--.a", "1"], "'--.a': malformed flag"),
        (["--a.", "1"], "'--a.': malformed flag"),
        (["---a"], "'---a': malformed flag"),
    ],
)
def test_split_argv_rejects_malformed_tokens(argv: list[str], message: str) -> None:
    with pytest.raises(ArgvError) as info:
        split_argv(argv)
    assert str(info.value) == message
    assert isinstance(info.value, ComposeError)


# --- compose(overrides=...) --------------------------------------------------------------------

OVERRIDE_CASES: list[tuple[str, Item]] = [
    ("a.b=1", ValueItem("a.b", ("1",), "override a.b")),
    ("a.b-c=x y", ValueItem("a.b-c", ("x y",), "override a.b-c")),
    ("--a.b=1", ValueItem("a.b", ("1",), "override a.b")),
    ("a=x=y", ValueItem("a", ("x=y",), "override a")),
    ("a=", ValueItem("a", ("",), "override a")),
    ("a=[1, 2]", ValueItem("a", ("[1, 2]",), "override a")),
    ("trainer=@t.toml", FileItem("t.toml", "trainer", "override trainer=@t.toml")),
    ("~trainer.lr", DeleteItem("trainer.lr", "~trainer.lr")),
]


@pytest.mark.parametrize(("text", "expected"), OVERRIDE_CASES, ids=[c[0] for c in OVERRIDE_CASES])
def test_parse_overrides(text: str, expected: Item) -> None:
    assert parse_overrides([text]) == [expected]


def test_parse_overrides_keeps_order() -> None:
    assert parse_overrides(("~a", "a=1", "b=@f.toml")) == [
        DeleteItem("a", "~a"),
        ValueItem("a", ("1",), "override a"),
        FileItem("f.toml", "b", "override b=@f.toml"),
    ]


@pytest.mark.parametrize("text", ["bad", "=1", ""])
def test_parse_overrides_rejects_text_without_key_and_value(text: str) -> None:
    with pytest.raises(ArgvError) as info:
        parse_overrides([text])
    assert str(info.value) == (
        f"{text!r} (from overrides): an override is key=value, key+=value, key=@file or ~key"
    )


def test_hydra_add_prefixes_are_plain_sets_in_overrides() -> None:
    """Hydra users write `+key=v` / `++key=v`; any key may be set here, so both just set."""
    assert parse_overrides(["+a.b=1", "++c=2"]) == [
        ValueItem("a.b", ("1",), "override a.b"),
        ValueItem("c", ("2",), "override c"),
    ]
