"""Fuzzing (issue 7): bad input gives a result or a `ComposeError`, never another exception.

Four generators feed the public entry points:

- argv token streams (`@`, `@FILE`, `--a.b`, `--no-x`, `--x=`, `~k`, values, JSON fragments,
  `None`, unicode, NUL bytes, lone surrogates as `sys.argv` carries undecodable bytes, very long
  tokens, paths to existing, missing and directory files) for `parse(RLConfig, argv)`, the
  `compose` command (`show`, `explain`, `diff`) and `cli(RLConfig, argv)`;
- `compose()` override strings;
- mutated TOML files (byte flips, truncation, duplicated lines, random unicode, invalid UTF-8)
  for `compose([file])` and `compose([file], schema=RLConfig)`;
- interpolation strings (`${`, nesting, resolver syntax, escapes) put in TOML values and flags.

The rule: `parse`/`compose` return or raise `ComposeError`; `main` returns an exit code and
`cli` returns or exits with 0 or 2, and neither prints a traceback. Standard output is a strict
UTF-8 stream, as it is for a user whose locale is `en_US.UTF-8`.

Every input that found a bug is kept in `tests/fuzz_corpus/`, one file each, and replayed by
`test_corpus` through every entry point:

- `NAME.json`: `{"argv": [...], "files": {"name": "text", ...}, "bug": "..."}`: the argv (JSON
  escapes carry NUL and lone surrogates), the files it names (written first), what went wrong;
- `NAME.toml`: the bytes of one file, composed with and without the schema and shown.

The generators run derandomized (same examples every run), small enough for the whole module
to take a few seconds; `tests/fuzz/run.py` runs them longer and collects every distinct crash.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import signal
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import examples
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemas import RLConfig

import compose
import compose._runs.define
from compose import ComposeError
from compose._cli.command import main
from compose._schema.keys import all_flags

CORPUS = Path(__file__).parent / "fuzz_corpus"
SCHEMA_SPEC = "schemas:RLConfig"  # `compose show --schema`: tests/ is on sys.path under pytest

# --- the fuzz directory: files that argv tokens name ----------------------------------------

GOOD_TOML = b"""\
seed = 7
tag = "run-${seed}"
max_steps = 10

[trainer.model]
name = "Qwen/Qwen3-4B"
max_model_len = 4096

[trainer.optim]
type = "muon"
lr = 0.02

[trainer.ckpt]
keep = "None"

[orchestrator]
seq_len = "${trainer.model.max_model_len}"
scores = [1, 2, 3]
weights = [0.5, "None"]

[orchestrator.algo]
type = "opd"
teacher = { name = "t", base_url = "http://x" }

[[orchestrator.env]]
id = "a"
args = { k = [1, { j = "None" }] }

[[orchestrator.env]]
id = "b"
priority = 2

[inference]
vllm_extra = { "quoted key" = 1, nested = { deep = ["x", 2.5, true] } }
"""

FILES: dict[str, bytes] = {
    "good.toml": GOOD_TOML,
    "trainer.toml": b'micro_batch_size = 4\n[model]\nname = "m"\ncp = 2\n[optim]\ntype = "adamw"\n',
    "optim.toml": b'type = "muon"\nlr = 0.1\nmomentum = 0.9\n',
    "env.toml": b'id = "x"\nweight = 2.0\nargs = {a = "${seed}"}\n',
    "plain.toml": b'a = 1\nb = "${a}"\nl = [1, "${a}", {c = "${..0}"}]\n[t]\nk = "\\\\${a}"\n',
    "interp.toml": (
        b'tag = "${trainer.model.name}-${oc.env:HOME,none}"\n'
        b'[orchestrator]\nseq_len = "${oc.select:trainer.model.max_model_len,2048}"\n'
        b'batch_size = "${.seq_len}"\n'
    ),
    "cycle.toml": b'tag = "${max_steps}"\nmax_steps = "${tag}"\n',
    "missing-value.toml": b'tag = "???"\n',
    "unknown.toml": b'nope = 1\n[trainer]\nmodle = {name = "x"}\n[trainer.optim]\ntype = "sgd"\n',
    "bad.toml": b"seed = \n[trainer\nname = 'x\n",
    "latin1.toml": "tag = 'caf\xe9'\n".encode("latin-1"),
    "bom.toml": b'\xef\xbb\xbftag = "x"\n',
    "empty.toml": b"",
    "crlf.toml": b'seed = 3\r\n[trainer.model]\r\nname = "n"\r\n',
}
DIRECTORIES = ("conf.d",)
PATHS = (
    *FILES,
    *DIRECTORIES,
    "missing.toml",
    "nodir/x.toml",
    "good.toml/x.toml",
    "",
    ".",
    "..",
    "a\0b.toml",
    "x" * 300,
    "y" * 5000 + ".toml",
    "\udcff.toml",
    "caf\xe9.toml",
)


def make_fuzz_dir(root: Path) -> Path:
    for name, data in FILES.items():
        (root / name).write_bytes(data)
    for name in DIRECTORIES:
        (root / name).mkdir(exist_ok=True)
    return root


@pytest.fixture(scope="module")
def fuzz_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_fuzz_dir(tmp_path_factory.mktemp("fuzz"))


@contextlib.contextmanager
def inside(directory: Path) -> Iterator[None]:
    """`os.chdir` for the body only (hypothesis runs many examples in one test call)."""
    before = os.getcwd()
    os.chdir(directory)
    try:
        yield
    finally:
        os.chdir(before)


# --- tokens ----------------------------------------------------------------------------------

KEYS = tuple(flag.removeprefix("--") for flag in all_flags(RLConfig))

WEIRD_SEGMENTS = (
    "",
    "0",
    "1",
    "-1",
    "007",
    "2",
    "10",
    "²",  # str.isdigit() but not int()
    "٣",  # an Arabic-Indic digit: int() reads it
    "9" * 5000,  # past int()'s 4300 digit limit
    "99999999999999999999",
    "no-offline",
    "no_offline",
    "None",
    "${seed}",
    "type",
    "a b",
    "ü",
    "\0",
    "\udcff",
    "[0]",
    "x" * 2000,
)

VALUES = (
    "",
    " ",
    "None",
    "none",
    "null",
    "???",
    "\\???",
    "true",
    "False",
    "1",
    "0",
    "-1",
    "-0",
    "1e-3",
    "1e400",
    "-inf",
    "nan",
    "0x1F",
    "1_000",
    "9" * 5000,
    "[1, 2]",
    "[]",
    "[",
    "]",
    "{",
    "{}",
    '{"a": 1}',
    '{"a": {"b": [1, "None"]}}',
    '[{"id": "x"}, {"id": 1}]',
    '["None", null]',
    "[1, [2, [3]]]",
    '{"a": 1, "a": 2}',
    "[1,]",
    "[" + "9" * 5000 + "]",
    '{"k": ' + "9" * 5000 + "}",
    "${seed}",
    "${trainer.model.name}-x",
    "${",
    "${}",
    "${oc.env:HOME}",
    "${oc.env:NO_SUCH_VAR_FOR_FUZZ}",
    "${oc.select:nope,1}",
    "${..x}",
    "\\${x}",
    "adamw",
    "muon",
    "grpo",
    "opd",
    "bfloat16",
    "flash_attention_2",
    "a\0b",
    "\udcff",
    "caf\xe9",
    "\U0001f600",
    "\n",
    "x" * 100_000,
    "-",
    "~",
    "=",
    "@",
)


def _deep_json(depth: int, opener: str) -> str:
    if opener == "[":
        return "[" * depth + "]" * depth
    return '{"a":' * depth + "1" + "}" * depth


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=8,
)


@st.composite
def json_fragment(draw: st.DrawFn) -> str:
    """JSON text: a valid document, a cut one, or one nested too deeply."""
    choice = draw(st.integers(0, 3))
    if choice == 3:
        return _deep_json(draw(st.sampled_from((40, 600, 1500))), draw(st.sampled_from("[{")))
    text = json.dumps(draw(json_values))
    if choice == 2 and text:
        return text[: draw(st.integers(0, len(text)))]
    return text


text_value = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cs"]) | st.sampled_from("\0\udcff\udc80"),
    max_size=12,
)
value_token = st.one_of(
    st.sampled_from(VALUES),
    text_value,
    st.integers().map(str),
    st.floats().map(repr),
    st.integers(300, 420).map(lambda digits: "1" + "0" * digits),  # past a float's range
    st.sampled_from(("1e400", "-1e400", "\ufeffx", "caf\udce9")),  # overflow, BOM, bad bytes
    json_fragment(),
)


@st.composite
def key(draw: st.DrawFn) -> str:
    """A dotted key: a real flag of RLConfig, perhaps with a segment changed or added."""
    segments = draw(st.sampled_from(KEYS)).split(".")
    for _ in range(draw(st.integers(0, 2))):
        where = draw(st.integers(0, len(segments)))
        segment = draw(st.sampled_from(WEIRD_SEGMENTS) | st.text(max_size=5))
        if draw(st.booleans()) and where < len(segments):
            segments[where] = segment
        else:
            segments.insert(where, segment)
    if draw(st.integers(0, 5)) == 0:
        last = segments[-1]
        segments[-1] = f"no-{last}"
    if draw(st.integers(0, 5)) == 0:
        segments = [segment.replace("-", "_") for segment in segments]
    return ".".join(segments)


path_token = st.sampled_from(PATHS)


@st.composite
def argv_item(draw: st.DrawFn) -> list[str]:
    kind = draw(st.integers(0, 11))
    if kind == 0:
        return ["@", draw(path_token)]
    if kind == 1:
        return ["@" + draw(path_token)]
    if kind == 2:
        section = draw(key())
        path = draw(path_token)
        form = draw(st.integers(0, 2))
        return [
            [f"--{section}", "@", path],
            [f"--{section}", f"@{path}"],
            [f"--{section}=@{path}"],
        ][form]
    if kind == 3:
        return [f"~{draw(key())}"]
    if kind == 4:
        return [f"--{draw(key())}={draw(value_token)}"]
    if kind == 5:
        return [draw(st.sampled_from(("@", "--", "-", "~", "-h", "--help", "---x", "--=", "--.x")))]
    if kind == 6:
        return [draw(value_token)]  # a stray positional token
    return [f"--{draw(key())}", *draw(st.lists(value_token, max_size=3))]


@st.composite
def argv(draw: st.DrawFn) -> list[str]:
    items = draw(st.lists(argv_item(), max_size=6))
    return [token for item in items for token in item]


# --- the outcome rule ------------------------------------------------------------------------


class _Stream(io.TextIOWrapper):
    """A UTF-8 text stream over bytes that may claim to be a terminal (rich output)."""

    def __init__(self, errors: str, tty: bool) -> None:
        super().__init__(io.BytesIO(), encoding="utf-8", errors=errors, write_through=True)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty

    def text(self) -> str:
        self.flush()
        buffer = self.buffer
        assert isinstance(buffer, io.BytesIO)
        return buffer.getvalue().decode("utf-8", "replace")


@contextlib.contextmanager
def captured(tty: bool = False) -> Iterator[dict[str, str]]:
    """stdout strict UTF-8 (as under an en_US.UTF-8 locale), stderr backslashreplace (Python's
    own choice for stderr), both terminals or not; their texts are in the dict after the block."""
    out, err = _Stream("strict", tty), _Stream("backslashreplace", tty)
    texts: dict[str, str] = {}
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            yield texts
        finally:
            texts["stdout"], texts["stderr"] = out.text(), err.text()


def result_or_compose_error(call: Callable[[], Any]) -> Any:
    """`call()`'s result, or the `ComposeError` it raised; any other exception propagates."""
    try:
        return call()
    except ComposeError as error:
        str(error)  # an error must render
        return error


def run_command(args: list[str], tty: bool = False) -> int:
    """`compose ARGS`: an exit code (0, 1 for diff, 2 for bad input), never a traceback."""
    with captured(tty) as texts:
        code = main(args)
    assert code in (0, 1, 2), code
    assert "Traceback" not in texts["stderr"]
    if code == 2 and not tty:
        assert texts["stderr"].startswith("error: "), texts["stderr"]
    return code


def run_cli(args: list[str], tty: bool = False) -> None:
    """`cli(RLConfig, args)`: a config, or an exit with 0 (help) or 2 (bad input)."""
    with captured(tty) as texts:
        try:
            compose.cli(RLConfig, args, prog="rl")
        except SystemExit as exit_:
            assert exit_.code in (0, 2), exit_.code
    assert "Traceback" not in texts["stderr"]


def argv_calls(tokens: list[str], command: int = 0) -> list[Callable[[], object]]:
    """One argv for `parse`, `cli` and a `compose` subcommand (chosen by `command`)."""
    options = (
        ["show"],
        ["show", "--resolved"],
        ["show", "--resolved", "--schema", SCHEMA_SPEC],
        ["show", "--format", "json", "--origins"],
        ["show", "--resolved", "--schema", SCHEMA_SPEC, "--format", "json", "--origins"],
        ["explain", "--schema", SCHEMA_SPEC, "seed"],
        ["diff", "--resolved", "--schema", SCHEMA_SPEC, "--seed", "1", "--"],
    )[command % 7]
    args = [*options, "--", *tokens] if options[0] == "show" else [*options, *tokens]
    tty = command >= 7  # the second seven print as to a terminal (rich boxes and panels)
    return [
        lambda: result_or_compose_error(lambda: compose.parse(RLConfig, tokens)),
        lambda: run_cli(tokens, tty),
        lambda: run_command(args, tty),
    ]


def file_calls(name: str) -> list[Callable[[], object]]:
    """One file for `compose()` with and without the schema, and for `compose show`."""
    return [
        lambda: result_or_compose_error(lambda: compose.compose([name])),
        lambda: result_or_compose_error(lambda: compose.compose([name], schema=RLConfig)),
        lambda: run_command(["show", "--resolved", "@", name]),
        lambda: run_command(["show", "--origins", "--", "--orchestrator", "@", name], tty=True),
    ]


class Hang(BaseException):  # not an Exception: nothing in the engine catches it
    """An entry point still running after `HANG_GUARD` seconds."""


HANG_GUARD = 10.0  # seconds for one call; examples take milliseconds


@contextlib.contextmanager
def hang_guard(seconds: float = HANG_GUARD) -> Iterator[None]:
    """Turn a call that runs for `seconds` into a `Hang` raised inside it (main thread only)."""

    def expire(signum: int, frame: object) -> None:
        raise Hang(f"still running after {seconds:.0f} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def feed(calls: list[Callable[[], object]]) -> None:
    for call in calls:
        with hang_guard():
            call()


# A fuzzer finds, it does not shrink (tests/fuzz/run.py collects the shortest input), and
# generates what the health checks would call too large or too filtered on purpose.
FUZZ = settings(phases=(Phase.explicit, Phase.generate), suppress_health_check=list(HealthCheck))


# --- argv ------------------------------------------------------------------------------------


@settings(FUZZ, max_examples=examples(200))
@given(tokens=argv(), command=st.integers(0, 13))
def test_argv_streams(fuzz_dir: Path, tokens: list[str], command: int) -> None:
    """A fuzzer (its asserts are in the runners): any argv given to `parse`, `cli` and a
    `compose` subcommand gives a result or a ComposeError, exits 0, 1 or 2 without a
    traceback, and returns within the hang guard."""
    with inside(fuzz_dir):
        feed(argv_calls(tokens, command))


@FUZZ
@given(
    overrides=st.lists(st.builds("{}={}".format, key(), value_token) | argv_item().map(" ".join))
)
def test_override_strings(fuzz_dir: Path, overrides: list[str]) -> None:
    """A fuzzer: any `compose()` override strings, over a file, a plain file or the schema,
    give a result or a ComposeError (`result_or_compose_error`), within the hang guard."""
    with inside(fuzz_dir):
        feed(
            [
                lambda: result_or_compose_error(lambda: compose.compose(["good.toml"], overrides)),
                lambda: result_or_compose_error(lambda: compose.compose(["plain.toml"], overrides)),
                lambda: result_or_compose_error(
                    lambda: compose.compose([], overrides, schema=RLConfig)
                ),
            ]
        )


# --- mutated TOML ----------------------------------------------------------------------------

SNIPPETS = (
    b"\x00",
    b"\xff",
    b"\xc3",
    b"\xed\xa0\x80",  # an encoded surrogate: not UTF-8
    b"\r",
    b"\n",
    b"\t",
    b"\x7f",
    b'"',
    b"'",
    b"'''",
    b'"""',
    b"[",
    b"]",
    b"[[",
    b"{",
    b"}",
    b"=",
    b",",
    b".",
    b"#",
    b"\\",
    b"\\u0000",
    b"\\UFFFFFFFF",
    b"${",
    b"${seed}",
    b"???",
    b"None",
    b"inf",
    b"nan",
    b"1979-05-27T07:32:00Z",
    b"9" * 5000,
    b"\n[trainer]\n",
    b"\n[[orchestrator.env]]\n",
    b"\n[orchestrator.env]\n",
    b"\nseed = 1\n",
    b"\ntype = {a = 1}\n",
    b"\ntype = [1]\n",
    b"\na.b.c = 1\n",
    b"\n" + b"[" + b".".join([b"a"] * 50) + b"]\n",
    "\u00e9\U0001f600\u202e".encode(),
)


# TOML values to put in place of a value that is there.
VALUE_SNIPPETS = (
    b"9" * 5000,
    b"-" + b"9" * 5000,
    b"0x" + b"f" * 4000,
    b"1e999",
    b"-inf",
    b"nan",
    b"1979-05-27T07:32:00Z",
    b"07:32:00",
    b"1979-05-27",
    b"[]",
    b"{}",
    b"[[]]",
    b"[{}]",
    b'"None"',
    b'"???"',
    b'"\\???"',
    b'"${seed}"',
    b'"${trainer}"',
    b'"${orchestrator.env}"',
    b'"${orchestrator.env.\xc2\xb2}"',
    b'"${.}"',
    b'"${oc.select:x,' + b"9" * 5000 + b'}"',
    b'"\\u0000"',
    b'"\\ud800"',
    b"'\xed\xa0\x80'",
    b'"""\na\n"""',
    b"[" * 390 + b"]" * 390,
    b"{a = " * 390 + b"1" + b"}" * 390,
    b"[" * 401 + b"]" * 401,
    b'{type = "muon"}',
    b'{type = ["x"]}',
    b'[{id = "x"}, 1]',
    b"true",
)


@st.composite
def mutated_toml(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(sorted(FILES.values()))))
    for _ in range(draw(st.integers(1, 4))):
        pos = draw(st.integers(0, len(data)))
        kind = draw(st.integers(0, 6))
        if kind == 0 and data:  # flip a byte
            pos = min(pos, len(data) - 1)
            data[pos] = draw(st.integers(0, 255))
        elif kind == 1:  # insert a snippet
            data[pos:pos] = draw(st.sampled_from(SNIPPETS))
        elif kind == 2:  # truncate
            del data[pos:]
        elif kind == 3:  # delete a span
            del data[pos : pos + draw(st.integers(1, 20))]
        elif kind == 4:  # duplicate a line (a duplicated key or table)
            lines = bytes(data).splitlines(keepends=True)
            if lines:
                line = lines[draw(st.integers(0, len(lines) - 1))]
                lines.insert(draw(st.integers(0, len(lines))), line)
                data = bytearray(b"".join(lines))
        elif kind == 5:  # random unicode
            data[pos:pos] = draw(st.text(max_size=6)).encode("utf-8", "surrogatepass")
        else:  # replace the value of the first `=` at or after pos
            equals = data.find(b"= ", pos)
            if equals >= 0:
                end = data.find(b"\n", equals)
                end = len(data) if end < 0 else end
                data[equals + 2 : end] = draw(st.sampled_from(VALUE_SNIPPETS))
    return bytes(data)


@settings(FUZZ, max_examples=examples(200))
@given(data=mutated_toml())
def test_mutated_toml(fuzz_dir: Path, data: bytes) -> None:
    """A fuzzer: a valid file's bytes mutated, composed with and without the schema and shown,
    give a result or a ComposeError and a clean exit, within the hang guard."""
    with inside(fuzz_dir):
        Path("mutated.toml").write_bytes(data)
        feed(file_calls("mutated.toml"))


# --- interpolation ---------------------------------------------------------------------------

INTERP_PIECES = (
    "${",
    "}",
    "${seed}",
    "${tag}",
    "${trainer.model.name}",
    "${orchestrator.env.0.id}",
    "${orchestrator.env[0].id}",
    "${orchestrator.env.-1.id}",
    "${orchestrator.env.²}",
    "${orchestrator.env." + "9" * 5000 + "}",
    "${.x}",
    "${..seed}",
    "${...}",
    "${a.${k}}",
    "${${k}}",
    "${oc.env:HOME}",
    "${oc.env:NO_SUCH_VAR_FOR_FUZZ,dflt}",
    "${oc.env:NO_SUCH_VAR_FOR_FUZZ," + "9" * 5000 + "}",
    "${oc.select:seed}",
    "${oc.select:nope,${seed}}",
    "${oc.select:}",
    "${oc.env:}",
    "${nope:1,2}",
    "${oc.env:'a,b'}",
    "${oc.env:\\,}",
    "${x:[1,{a:2}]}",
    "${oc.select:'${seed}'}",
    "\\${seed}",
    "\\\\${seed}",
    "\\",
    ".",
    "..",
    ":",
    ",",
    "'",
    '"',
    "[",
    "]",
    "[0]",
    "a",
    "k",
    "seed",
    "oc.env",
    "???",
    " ",
    "\0",
    "\u00e9",
)


@st.composite
def interpolation(draw: st.DrawFn) -> str:
    pieces = draw(st.lists(st.sampled_from(INTERP_PIECES) | st.text(max_size=3), max_size=8))
    return "".join(pieces)


def toml_string(text: str) -> str:
    """A TOML basic string holding `text` (JSON's escapes are TOML's, plus DEL)."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


@settings(FUZZ, max_examples=examples(150))
@given(first=interpolation(), second=interpolation(), third=interpolation())
def test_interpolations(fuzz_dir: Path, first: str, second: str, third: str) -> None:
    """A fuzzer: interpolation strings built from tricky pieces, in files, flags and
    overrides, resolve or are a ComposeError, and `show --resolved` exits cleanly, within the
    hang guard."""
    typed = (
        f"tag = {toml_string(first)}\n"
        f"[trainer.model]\nname = {toml_string(second)}\n"
        f'[inference.vllm_extra]\nx = {toml_string(third)}\nk = "seed"\n'
        f"l = [{toml_string(first)}, {{y = {toml_string(second)}}}]\n"
    )
    plain = (
        f'a = {toml_string(first)}\nk = "a"\nseed = 1\n'
        f"[t]\nx = {toml_string(second)}\nl = [1, {toml_string(third)}]\n"
    )
    with inside(fuzz_dir):
        Path("typed.toml").write_text(typed, encoding="utf-8")
        Path("plain-interp.toml").write_text(plain, encoding="utf-8")
        overrides = [f"t.z={second}", f"a.b={third}"]
        feed(
            [
                lambda: result_or_compose_error(
                    lambda: compose.compose(["typed.toml"], schema=RLConfig)
                ),
                lambda: result_or_compose_error(lambda: compose.compose(["plain-interp.toml"])),
                lambda: result_or_compose_error(
                    lambda: compose.parse(RLConfig, ["--tag", first, "--seed", third])
                ),
                lambda: result_or_compose_error(
                    lambda: compose.compose(["plain-interp.toml"], overrides)
                ),
                lambda: run_command(["show", "--resolved", "@", "plain-interp.toml", "--x", first]),
            ]
        )


# --- sweep files -----------------------------------------------------------------------------

# Keys a sweep file's axes name: real ones of each kind (a leaf, a list element's, a section, a
# union's tag, a dict's own keys), then whatever `key()` draws.
SWEEP_KEYS = (
    "seed",
    "max_steps",
    "tag",
    "output_dir",
    "trainer.optim.lr",
    "trainer.optim.type",
    "trainer.optim",
    "orchestrator.env.0.id",
    "inference.vllm_extra.k",
)
SWEEP_SCALARS = st.sampled_from(
    [
        *(0, 1, -1, 2**63, 10**30, 0.5, 1e-5, 1e308, -1e308, math.inf, -math.inf, math.nan),
        *(True, "", "x", "None", "???", "${seed}", "@optim.toml", "@missing.toml", "@"),
        *("a\x1b[2Jb", "muon", "adamw", "\0", "\ud800x", "x" * 300),
    ]
)
SWEEP_CONTROLS = {  # what a [sweep] table may say, good and bad; never a directory outside
    "name": ("s", "", ".", "..", "a/b", "a b", 5, "x" * 300, "\0", "-x", "ok.1", True),
    "dir": ("runs", "", "sub/dir", "a b", "it's", "\0x", 5, [1], "good.toml", "."),
    "output": ("output_dir", "output_dir", "", 5, "nope", "trainer", "output_dir.x", "seed"),
    "command": (["python", "-c", "pass"], [], "rl", 5, {"a": 1}, [""], [1], ["rl", "\0"]),
    "executor": ("none", "", 5, {"name": "none"}, {"name": 3}, {"nme": "x"}, "nope", [1]),
}


def toml_value(value: Any) -> str:
    """`value` as inline TOML (what `tomli` reads back as it)."""
    if isinstance(value, str):
        return _toml_text(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    return "{" + ", ".join(f"{_toml_text(k)} = {toml_value(v)}" for k, v in value.items()) + "}"


def _toml_text(text: str) -> str:
    """A TOML string of `text`, a lone surrogate (which no file can hold) replaced."""
    return toml_string(text.encode("utf-8", "surrogatepass").decode("utf-8", "replace"))


@st.composite
def generator(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(("range", "linspace", "logspace")))
    count = draw(st.sampled_from((0, 1, 2, 3, 7, 10**9, -1, True, 2.5)))
    bounds = draw(st.lists(SWEEP_SCALARS | st.integers(-5, 40), min_size=0, max_size=4))
    if draw(st.booleans()):
        bounds = [*bounds[:2], count]
    return {kind: bounds}


@st.composite
def axis_spec(draw: st.DrawFn, depth: int) -> Any:
    choice = draw(st.integers(-2, 5 if depth < 2 else 3))
    if choice <= 0:  # the most: a list of values, mostly of the kind most keys take
        values = st.integers(1, 50) | SWEEP_SCALARS
        return draw(st.lists(values, min_size=draw(st.sampled_from((1, 1, 1, 0))), max_size=4))
    if choice == 1:
        return draw(generator())
    if choice == 2:
        return draw(SWEEP_SCALARS)  # no list: an error
    if choice == 3:
        return [{"type": "muon"}, [1, 2]]
    below = st.dictionaries(axis_key(), axis_spec(depth + 1), max_size=2) | SWEEP_SCALARS
    return draw(st.dictionaries(st.sampled_from(("muon", "adamw", "x")), below, max_size=2))


def axis_key() -> st.SearchStrategy[str]:
    return st.sampled_from(SWEEP_KEYS) | key()


@st.composite
def sweep_block(draw: st.DrawFn, depth: int = 0) -> dict[str, Any]:
    """A block: mostly axes and zips, some blocks and seeds, rarely a part no block has."""
    block: dict[str, Any] = {}
    parts = st.sampled_from(("axes", "axes", "axes", "zip", "zip", "blocks", "seeds", "axis"))
    for part in draw(st.lists(parts, min_size=1, max_size=3, unique=True)):
        if part == "axes":
            block[part] = draw(
                st.dictionaries(axis_key(), axis_spec(depth), min_size=1, max_size=3)
            )
        elif part == "zip":
            group = st.dictionaries(axis_key(), axis_spec(2), max_size=3)
            block[part] = draw(st.lists(group, min_size=1, max_size=2) | SWEEP_SCALARS | group)
        elif part == "blocks" and depth < 2:
            block[part] = draw(st.lists(sweep_block(depth + 1), max_size=3) | SWEEP_SCALARS)
        elif part in ("seeds", "blocks"):
            count = st.sampled_from((0, 1, 3, -1, 10**12, True, "3"))
            block["seeds"] = draw(count | st.fixed_dictionaries({"key": axis_key(), "n": count}))
        else:
            block[part] = {"seed": [1]}
    return block


@st.composite
def sweep_file(draw: st.DrawFn) -> bytes:
    """A sweep file's text: a `[sweep]` table of controls and a block of parts, each drawn
    from good and bad values of its kind, then perhaps mutated as any TOML file is."""
    controls = {
        name: draw(st.sampled_from(values))
        for name, values in SWEEP_CONTROLS.items()
        if draw(st.sampled_from((False, False, True))) or name == "output"
    }
    if draw(st.sampled_from([False] * 19 + [True])):
        controls["colour"] = "red"  # no control: a did-you-mean
    lines = ["[sweep]", *(f"{name} = {toml_value(v)}" for name, v in controls.items())]
    lines += [f"{part} = {toml_value(v)}" for part, v in draw(sweep_block()).items()]
    text = "\n".join(lines[1:] if not controls else lines) + "\n"
    if controls and len(lines) > len(controls) + 1:  # top-level keys after a table: below it
        text = "\n".join(lines[len(controls) + 1 :] + lines[: len(controls) + 1]) + "\n"
    data = bytearray(text.encode())
    for _ in range(draw(st.sampled_from((0, 0, 0, 1)))):
        pos = draw(st.integers(0, len(data)))
        data[pos:pos] = draw(st.sampled_from(SNIPPETS))
    return bytes(data)


SWEEP_LIMIT = 64  # points: the grammar's limits, not 10,000 compositions per example


def sweep_calls(name: str) -> list[Callable[[], object]]:
    """A sweep file for `sweep()` over a base file, and for sweep mode of `cli`."""
    return [
        lambda: result_or_compose_error(
            lambda: compose.sweep(RLConfig, ["@", "good.toml"], sweep_files=[name], prog="rl")
        ),
        lambda: run_cli(["@", "good.toml", "--sweep", "@", name, "--dry-run"]),
    ]


@contextlib.contextmanager
def small_sweeps() -> Iterator[None]:
    """A sweep's limit at `SWEEP_LIMIT` points, for the body only."""
    before = compose._runs.define.MAX_POINTS
    compose._runs.define.MAX_POINTS = SWEEP_LIMIT
    try:
        yield
    finally:
        compose._runs.define.MAX_POINTS = before


@settings(FUZZ, max_examples=examples(150))
@given(data=sweep_file())
def test_sweep_files(fuzz_dir: Path, data: bytes) -> None:
    """A fuzzer: a sweep file of good and bad parts and controls (and mutated bytes), swept
    over a base file by `sweep()` and by sweep mode, gives points or a ComposeError and exits
    0 or 2 without a traceback, writing only under its directory, within the hang guard."""
    beside = sorted(os.listdir(fuzz_dir.parent))
    with inside(fuzz_dir), small_sweeps():
        Path("sweep.toml").write_bytes(data)
        feed(sweep_calls("sweep.toml"))
    assert sorted(os.listdir(fuzz_dir.parent)) == beside, "wrote beside the fuzz directory"


# --- the corpus ------------------------------------------------------------------------------


def corpus_entries() -> list[Path]:
    return sorted(path for path in CORPUS.iterdir() if path.suffix in (".json", ".toml"))


def replay(entry: Path, directory: Path) -> None:
    """One corpus entry through every entry point, in `directory` (the fuzz directory)."""
    with inside(directory):
        if entry.suffix == ".toml":
            Path(entry.name).write_bytes(entry.read_bytes())
            feed(file_calls(entry.name))
            return
        case = json.loads(entry.read_text(encoding="utf-8"))
        for name, text in case.get("files", {}).items():
            Path(name).write_text(text, encoding="utf-8")
        for command in (0, 8, 2, 10, 4, 12, 6):  # each subcommand, every other on a terminal
            feed(argv_calls(case["argv"], command))


@pytest.mark.parametrize("entry", corpus_entries(), ids=lambda path: path.name)
def test_corpus(entry: Path, tmp_path: Path) -> None:
    """A regression guard: each input that once crashed or hung goes through every entry
    point again and keeps the fuzzers' promises (asserted in the runners)."""
    replay(entry, make_fuzz_dir(tmp_path))


def test_corpus_entries_are_well_formed() -> None:
    entries = corpus_entries()
    assert entries, "the corpus keeps every input that found a bug"
    for entry in entries:
        if entry.suffix == ".json":
            case = json.loads(entry.read_text(encoding="utf-8"))
            assert isinstance(case["argv"], list), entry.name
            assert all(isinstance(token, str) for token in case["argv"]), entry.name
            assert case["bug"], entry.name
