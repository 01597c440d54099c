"""Tests for `compose._input.positions.key_lines`: where each key of a TOML document is written."""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from typing import Any

import pytest
import tomli

from compose._input.positions import key_lines

Path = tuple[str | int, ...]

# (id, document, expected map). Every document is valid TOML (checked below), so the table also
# pins down that the expected paths are the ones tomli produces.
CASES: list[tuple[str, str, dict[Path, int]]] = [
    (
        "bare keys and comments",
        "# comment = 1\na = 1  # b = 2\n\nc = true\n   # [d]\n1234 = 'n'\n",
        {("a",): 2, ("c",): 4, ("1234",): 6},
    ),
    (
        "quoted keys",
        '"a.b" = 1\n\'lit\' = 2\n"" = 3\n\'a"b\' = 4\n"[x] # y" = 5\n',
        {("a.b",): 1, ("lit",): 2, ("",): 3, ('a"b',): 4, ("[x] # y",): 5},
    ),
    (
        "escaped keys",
        '"q\\"x" = 1\n"\\u00e9\\U0001F600" = 2\n"\\x41\\e\\t\\\\" = 3\n',
        {('q"x',): 1, ("\u00e9\U0001f600",): 2, ("A\x1b\t\\",): 3},
    ),
    (
        "dotted keys, relative to the table, parents recorded once",
        "a.b.c = 1\na.b.d = 2\na.\"x.y\".z = 3\n3.14 = 'pi'\n[t]\nu.v = 4\nu.w = 5\n",
        {
            ("a",): 1,
            ("a", "b"): 1,
            ("a", "b", "c"): 1,
            ("a", "b", "d"): 2,
            ("a", "x.y"): 3,
            ("a", "x.y", "z"): 3,
            ("3",): 4,
            ("3", "14"): 4,
            ("t",): 5,
            ("t", "u"): 6,
            ("t", "u", "v"): 6,
            ("t", "u", "w"): 7,
        },
    ),
    (
        "table headers: the table at its header, implicit parents where first created",
        "[trainer.optim]\nlr = 0.1\n[a.b.c]\n[a.b.d]\n[a.e]\n[trainer]\nepochs = 3\n",
        {
            ("trainer",): 6,
            ("trainer", "optim"): 1,
            ("trainer", "optim", "lr"): 2,
            ("a",): 3,
            ("a", "b"): 3,
            ("a", "b", "c"): 3,
            ("a", "b", "d"): 4,
            ("a", "e"): 5,
            ("trainer", "epochs"): 7,
        },
    ),
    (
        "header opening a table created by a dotted key",
        "[a]\nb.c = 1\n[a.b.d]\ne = 2\n",
        {
            ("a",): 1,
            ("a", "b"): 2,
            ("a", "b", "c"): 2,
            ("a", "b", "d"): 3,
            ("a", "b", "d", "e"): 4,
        },
    ),
    (
        "arrays of tables, nested counters restart under each parent element",
        "[[env]]\nid = 'a'\n[[env.sub]]\nk = 1\n[[env.sub]]\nk = 2\n[env.cfg]\nz = 1\n"
        "[[env]]\nid = 'b'\n[[env.sub]]\nk = 3\n",
        {
            ("env",): 1,
            ("env", 0): 1,
            ("env", 0, "id"): 2,
            ("env", 0, "sub"): 3,
            ("env", 0, "sub", 0): 3,
            ("env", 0, "sub", 0, "k"): 4,
            ("env", 0, "sub", 1): 5,
            ("env", 0, "sub", 1, "k"): 6,
            ("env", 0, "cfg"): 7,
            ("env", 0, "cfg", "z"): 8,
            ("env", 1): 9,
            ("env", 1, "id"): 10,
            ("env", 1, "sub"): 11,
            ("env", 1, "sub", 0): 11,
            ("env", 1, "sub", 0, "k"): 12,
        },
    ),
    (
        "array of tables under a table, by a dotted header",
        "[a]\nx = 0\n[[a.b.c]]\nx = 1\n[[a.b.c]]\n",
        {
            ("a",): 1,
            ("a", "x"): 2,
            ("a", "b"): 3,
            ("a", "b", "c"): 3,
            ("a", "b", "c", 0): 3,
            ("a", "b", "c", 0, "x"): 4,
            ("a", "b", "c", 1): 5,
        },
    ),
    (
        "inline tables on one line",
        "x = {a = 1, b = {c = 2}, d.e = 3}\ny = {}\n",
        {
            ("x",): 1,
            ("x", "a"): 1,
            ("x", "b"): 1,
            ("x", "b", "c"): 1,
            ("x", "d"): 1,
            ("x", "d", "e"): 1,
            ("y",): 2,
        },
    ),
    (
        "inline tables over several lines (TOML 1.1)",
        'x = {\n  a = 1, # b = {\n  b = { c = 2,\n        d = "}" },\n}\ny = 1\n',
        {
            ("x",): 1,
            ("x", "a"): 2,
            ("x", "b"): 3,
            ("x", "b", "c"): 3,
            ("x", "b", "d"): 4,
            ("y",): 6,
        },
    ),
    (
        "arrays give only the key",
        'tags = [1, 2]\nmulti = [\n  "a ] b", # ] = [\n  \'c [ d\',\n  """e\nf = [""",\n'
        "  [1, [2]],\n]\nafter = 1\n",
        {("tags",): 1, ("multi",): 2, ("after",): 9},
    ),
    (
        "inline tables inside arrays are indexed",
        "env = [{id = 'a'}, {id = 'b'}]\nmore = [\n  {id = 'c', extra = {k = 1}},\n  1,\n"
        "  {id = 'd'},\n]\nnested = [[{n = 1}], [{n = 2}]]\n",
        {
            ("env",): 1,
            ("env", 0): 1,
            ("env", 0, "id"): 1,
            ("env", 1): 1,
            ("env", 1, "id"): 1,
            ("more",): 2,
            ("more", 0): 3,
            ("more", 0, "id"): 3,
            ("more", 0, "extra"): 3,
            ("more", 0, "extra", "k"): 3,
            ("more", 2): 5,
            ("more", 2, "id"): 5,
            ("nested",): 7,
            ("nested", 0, 0): 7,
            ("nested", 0, 0, "n"): 7,
            ("nested", 1, 0): 7,
            ("nested", 1, 0, "n"): 7,
        },
    ),
    (
        "string contents are not syntax",
        'a = "x \\" [b] # c = d"  # e = f\n'
        "b = 'C:\\path [x] # \"y\"'\n"
        'c = """\n[table]\nd = "e" # \\"""\n"" still\n"""\n'
        "e = '''\n[[t]]\nf = 'g' '' \n'''\n"
        'g = """h""""\n'
        "i = '''j'''''\n"
        'k = "\\\\"\n'
        "l = 1\n"
        "m = {p = \"\"\"q\"\"\"\"\", r = ['''s''''', {t = 1}]}\n",
        {
            ("a",): 1,
            ("b",): 2,
            ("c",): 3,
            ("e",): 8,
            ("g",): 12,
            ("i",): 13,
            ("k",): 14,
            ("l",): 15,
            ("m",): 16,
            ("m", "p"): 16,
            ("m", "r"): 16,
            ("m", "r", 1): 16,
            ("m", "r", 1, "t"): 16,
        },
    ),
    (
        "whitespace around dots, equals and brackets",
        "a . b = 1\n[ c . \"d e\" . 'f' ]\ng\t.\th\t=\t2\n[[ i . j ]]\n",
        {
            ("a",): 1,
            ("a", "b"): 1,
            ("c",): 2,
            ("c", "d e"): 2,
            ("c", "d e", "f"): 2,
            ("c", "d e", "f", "g"): 3,
            ("c", "d e", "f", "g", "h"): 3,
            ("i",): 4,
            ("i", "j"): 4,
            ("i", "j", 0): 4,
        },
    ),
    (
        "CRLF line endings",
        "a = 1\r\n[t]\r\nb = '''x\r\ny'''\r\nc = 2\r\n",
        {("a",): 1, ("t",): 2, ("t", "b"): 3, ("t", "c"): 5},
    ),
    ("empty document", "", {}),
    ("comments and blank lines only", "# only\n\n  # x = 1\n\t\n", {}),
    (
        "dates, times and special floats",
        "d = 1979-05-27 07:32:00 # c = 1\ne = 07:32:00\nf = -inf\n"
        "g = {h = 1979-05-27T00:32:00-07:00, i = nan}\n",
        {("d",): 1, ("e",): 2, ("f",): 3, ("g",): 4, ("g", "h"): 4, ("g", "i"): 4},
    ),
    (
        "no trailing newline, comments after headers",
        "[a] # [b]\nc = 1 # d = 2\ne = [1]",
        {("a",): 1, ("a", "c"): 2, ("a", "e"): 3},
    ),
]


@pytest.mark.parametrize(("doc", "expected"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_key_lines(doc: str, expected: dict[Path, int]) -> None:
    tomli.loads(doc)  # the documents are valid TOML
    assert key_lines(doc) == expected


REALISTIC_DOCS = [
    """\
# Training run
name = "baseline"
seed = 17

[model]
kind = "transformer"
layers = 12
dims = { hidden = 768, heads = 12 }

[model.dropout]
attention = 0.1
residual = 0.1

[optim]
algo = "adamw"
betas = [0.9, 0.999]
schedule = { warmup = 500, decay = { kind = "cosine", floor = 1e-6 } }
""",
    """\
[[datasets]]
path = "s3://bucket/[train]"
weight = 0.7
filters = [
  { field = "lang", equals = "en" },
  { field = "len", below = 4096 },
]

[[datasets]]
path = 'C:\\data\\eval'
weight = 0.3

[datasets.shard]
count = 8
""",
    """\
[server]
host = "0.0.0.0"
port = 8080
banner = \"\"\"
Welcome! [beta]
key = value # not a key
\"\"\"

[server.tls]
cert = "/etc/cert.pem"
ciphers = [
  "TLS_AES_128",  # fast
  "TLS_AES_256",
]

[logging]
level = "info"
handlers.console.format = "{time} [{level}] {msg}"
handlers.file.path = "/var/log/app.log"
""",
    """\
[[stage]]
name = "build"
  [[stage.step]]
  run = "make"
  [[stage.step]]
  run = "make test"
[[stage]]
name = "deploy"
  [[stage.step]]
  run = "./deploy.sh"
  [stage.env]
  region = "eu"
""",
    """\
matrix = [
  [ { os = "linux", py = "3.10" }, { os = "linux", py = "3.12" } ],
  [ { os = "macos", py = "3.12" } ],
]
paths = { include = ["src/**", "tests/**"], exclude = ['**/__pycache__'] }
""",
]

PROPERTY_DOCS = [doc for name, doc, _ in CASES if name != "escaped keys"] + REALISTIC_DOCS


def tomli_paths(value: Any, path: Path = ()) -> Iterator[Path]:
    """Every path tomli's result has: dict keys, and dicts inside lists by their index."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield (*path, key)
            yield from tomli_paths(item, (*path, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            if isinstance(item, dict):
                yield (*path, index)
            yield from tomli_paths(item, (*path, index))


def written_on(line: str, part: str | int) -> bool:
    """Whether `line` is where this path's last part is written."""
    if isinstance(part, int):
        return "[[" in line or "{" in line
    name = re.escape(part)
    return re.search(rf"(?<![\w-])(?:{name}|\"{name}\"|'{name}')\s*[.=\]]", line) is not None


def check_against_tomli(doc: str, found: dict[Path, int]) -> None:
    """`found` (the map of `doc`) has every path tomli reads in `doc`, each on its line."""
    lines = doc.replace("\r\n", "\n").split("\n")
    expected = set(tomli_paths(tomli.loads(doc)))
    assert set(found) == expected
    for path in expected:
        assert written_on(lines[found[path] - 1], path[-1]), (path, found[path])


@pytest.mark.parametrize("doc", PROPERTY_DOCS)
def test_every_tomli_path_is_found_on_its_line(doc: str) -> None:
    check_against_tomli(doc, key_lines(doc))


def test_large_document() -> None:
    tables, keys, runs = 500, 100, 200
    body = "".join(f"key_{k} = {k}\n" for k in range(keys))
    parts = [f"[table_{t}]\n{body}" for t in range(tables)]
    parts += [f"[[runs]]\nid = {r}\ntags = ['a', 'b']\n" for r in range(runs)]
    doc = "".join(parts)
    found = key_lines(doc)

    assert len(found) == tables * (keys + 1) + 1 + runs * 3
    for t, k in [(0, 0), (0, 99), (250, 42), (499, 99)]:
        header = 1 + t * (keys + 1)
        assert found[(f"table_{t}",)] == header
        assert found[(f"table_{t}", f"key_{k}")] == header + 1 + k
    runs_start = 1 + tables * (keys + 1)
    assert found[("runs",)] == runs_start
    for r in (0, 1, 137, 199):
        assert found[("runs", r)] == runs_start + 3 * r
        assert found[("runs", r, "tags")] == runs_start + 3 * r + 2


@pytest.mark.parametrize(
    "doc",
    [
        "a = " + "[" * 400 + "]" * 400 + "\nb = 1\n",
        "a = " + "{x = " * 400 + "1" + "}" * 400 + "\nb = 1\n",
        "a = " + "[{x = " * 200 + "1" + "}]" * 200 + "\nb = 1\n",
    ],
    ids=["arrays", "inline tables", "both"],
)
def test_deep_nesting_that_tomli_accepts(doc: str) -> None:
    # tomli accepts 400 levels; pure-Python tomli (Python 3.10's wheel) needs three frames a
    # level for it, more than the default recursion limit leaves
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 5000))
    try:
        tomli.loads(doc)
    finally:
        sys.setrecursionlimit(limit)
    found = key_lines(doc)
    assert found[("a",)] == 1
    assert found[("b",)] == 2


def test_never_raises_on_text_it_cannot_understand() -> None:
    """Every prefix of the property documents, and some garbage: mostly not TOML, and still a
    map of key paths to lines of the text. A prefix that ends a line and is TOML (tomli reads
    it) maps exactly tomli's paths, each on its line."""
    doc = "".join(PROPERTY_DOCS)
    garbage = ['"', "'", "\\", "[", "[[", "= 1", "a = {b = ", 'x = ["""', "a.", '"\\']
    texts = [(doc[:end], "\n" in doc[end - 1 : end + 1]) for end in range(len(doc))]
    for text, ends_a_line in texts + [(text, False) for text in garbage]:
        found = key_lines(text)
        count = text.count("\n") + 1
        assert all(path and 1 <= line <= count for path, line in found.items()), text
        if ends_a_line:
            try:
                tomli.loads(text)
            except tomli.TOMLDecodeError:
                continue
            check_against_tomli(text, found)
