"""Help's field descriptions come from one parse of each module's source, kept in an index on
disk, and a bare `--help` draws without importing the composition engine (issue 6: cold
`--help`). Behaviour, not timing: descriptions of nested, local and inherited fields, classes
without source, awkward source, and which modules a bare `--help` imports."""

from __future__ import annotations

import gc
import marshal
import os
import shutil
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import run_command
from schemas import RLConfig

from compose import BaseConfig, HelpRequested, cli, parse
from compose._output import help as help_module
from compose._output.help import HelpScreen, plain_help
from compose._schema import docindex, docstrings


def help_text(schema: type[BaseConfig], *argv: str) -> str:
    with pytest.raises(HelpRequested) as asked:
        parse(schema, ["--help", *argv])
    return asked.value.text


class Parent(BaseConfig):
    inherited: int = 1
    """Declared on the parent class."""

    class Nested(BaseConfig):
        deep: str = "x"
        """A field of a class nested in a class."""


class WithNested(Parent):
    nested: Parent.Nested = Parent.Nested()
    own: bool = False
    """Declared here."""


def test_nested_and_inherited_fields_are_described() -> None:
    text = help_text(WithNested)
    assert "Declared on the parent class." in text
    assert "A field of a class nested in a class." in text
    assert "Declared here." in text


def test_classes_local_to_functions_are_told_apart() -> None:
    def make_first() -> type[BaseConfig]:
        class Config(BaseConfig):
            value: int = 1
            """From the first function."""

        return Config

    def make_second() -> type[BaseConfig]:
        class Config(BaseConfig):
            value: int = 2
            """From the second function."""

        return Config

    assert "From the first function." in help_text(make_first())
    assert "From the second function." in help_text(make_second())


def test_a_class_without_source_gets_help_without_descriptions() -> None:
    namespace: dict[str, object] = {"BaseConfig": BaseConfig, "__name__": "not_a_module"}
    exec('class Generated(BaseConfig):\n    size: int = 3\n    """Not readable."""\n', namespace)
    generated = namespace["Generated"]
    assert isinstance(generated, type) and issubclass(generated, BaseConfig)
    text = help_text(generated)
    assert "--size INT" in text
    assert "(default: 3)" in text
    assert "Not readable." not in text


def test_a_class_exec_in_a_module_namespace_does_not_take_another_class_docs() -> None:
    """Its qualified name is looked up in this module's source, which has no such class."""
    namespace: dict[str, object] = {"BaseConfig": BaseConfig, "__name__": __name__}
    exec('class NotInThisFile(BaseConfig):\n    inherited: int = 1\n    """Nope."""\n', namespace)
    generated = namespace["NotInThisFile"]
    assert isinstance(generated, type) and issubclass(generated, BaseConfig)
    assert "Nope." not in help_text(generated)


# --- awkward source ----------------------------------------------------------------------------

AWKWARD = '''
import dataclasses


@dataclasses.dataclass
class Decorated:
    plain: int = 1
    """Plain."""
    raw: str = r"\\d"
    r"""Raw \\d stays."""
    escaped: str = ""
    "Hex \\x41, quote \\" and unicode \\u00e9."
    concatenated: int = 0
    ("Two " "parts")
    spaced: int = 0

    # a comment between field and docstring

    """Still the docstring."""
    multi_line: dict[str, list[int]] = dataclasses.field(
        default_factory=lambda: {"a": [1, 2]},  # a comment inside brackets
    )
    """
    Indented,
      over lines.
    """
    continued: int = \\
        3
    """After a backslash."""
    data: bytes = b""
    b"""Bytes: no docstring."""
    formatted: str = ""
    f"""An f-string: no docstring {1 + 1}."""
    match: int = 0
    """A soft keyword as a field."""
    type: int = 0
    """Another one."""

    def method(self) -> None:
        class Inner:
            x: int = 0
            """Local to a method."""

    after_method: int = 0
    """After a method."""
    if True:
        hidden: int = 0
        """In an if: not a direct field."""
    listed: list[int] = [1, 2]
    lonely: int = 0


class Outer:
    class Inner:
        field: str = "[(" + "{"
        """Brackets in strings."""

    after: int = 0
    """Outer again."""


def factory():
    class Made:
        made: int = 0
        """Made in a function."""

    async def later():
        class Late:
            late: int = 0
            """In a coroutine."""

    return Made


try:
    class InTry:
        tried: int = 0
        """In a try."""
except ImportError:
    class InTry:
        tried: int = 0
        """The second definition."""


class OneLine: pass


class Tabbed:
\ttabbed: int = 0
\t"""Indented with a tab."""
'''


def test_awkward_source_gives_the_docstrings_python_sees() -> None:
    found = docstrings.parse(AWKWARD)
    decorated = found["Decorated"][0]
    assert decorated.line == 5  # the decorator's line, as `__firstlineno__` counts
    assert decorated.docstrings == {
        "plain": "Plain.",
        "raw": "Raw \\d stays.",
        "escaped": 'Hex A, quote " and unicode \u00e9.',
        "concatenated": "Two parts",
        "spaced": "Still the docstring.",
        "multi_line": "Indented, over lines.",  # kept on one line, as help shows it
        "continued": "After a backslash.",
        "match": "A soft keyword as a field.",
        "type": "Another one.",
        "after_method": "After a method.",
    }
    assert found["Decorated.method.<locals>.Inner"][0].docstrings == {"x": "Local to a method."}
    assert found["Outer.Inner"][0].docstrings == {"field": "Brackets in strings."}
    assert found["factory.<locals>.later.<locals>.Late"][0].docstrings == {
        "late": "In a coroutine."
    }
    assert [c.docstrings for c in found["InTry"]] == [
        {"tried": "In a try."},
        {"tried": "The second definition."},
    ]
    assert found["Tabbed"][0].docstrings == {"tabbed": "Indented with a tab."}


def test_a_docstring_after_two_statements_on_a_line_is_the_last_field_s(tmp_path: Path) -> None:
    module = tmp_path / "semicolons.py"
    module.write_text('class A:\n    x: int = 0; y: int = 1\n    """Of y, says ast."""\n')
    assert docstrings.module_classes(str(module))["A"][0].docstrings == {"y": "Of y, says ast."}


def test_classes_written_inside_strings_are_not_classes() -> None:
    found = docstrings.module_classes(__file__)
    assert "WithNested" in found
    assert "Decorated" not in found  # in AWKWARD, a string
    assert "NotInThisFile" not in found


def test_a_class_of_pydantic_itself_is_not_read() -> None:
    """BaseModel declares no fields: its large module is never read."""
    text = help_text(RLConfig)
    assert "How many checkpoints to keep; None keeps all." in text


# --- the index on disk: a second process reads the parse's result, never a stale one ------------


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Indexes written under a cache directory of the test's own, as in a new process."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("COMPOSE_CACHE_DIR", str(cache))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)  # the index never heeds it
    monkeypatch.setattr(docstrings, "_INDEXED", {})
    return cache


def _schema_module(tmp_path: Path, doc: str) -> Path:
    module = tmp_path / "src" / "schema_mod.py"
    module.parent.mkdir(exist_ok=True)
    module.write_text(f'class A:\n    x: int = 0\n    """{doc}"""\n')
    return module


def _counted_parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The sources parsed from now on (each parse finds nothing)."""
    parses: list[str] = []

    def counted(source: str) -> docstrings.Classes:
        parses.append(source)
        return {}

    monkeypatch.setattr(docstrings, "parse", counted)
    return parses


def _new_process() -> None:
    docstrings._INDEXED.clear()
    docstrings._PARSED.clear()


def _docs(module: Path) -> dict[str, str]:
    return docstrings.module_classes(str(module))["A"][0].docstrings


@pytest.mark.shortcuts
def test_the_index_is_written_once_and_read_by_the_next_process(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _schema_module(tmp_path, "Indexed.")
    assert _docs(module) == {"x": "Indexed."}
    (index,) = cache_dir.rglob("schema_mod-*")
    _new_process()
    scans = _counted_parses(monkeypatch)
    assert _docs(module) == {"x": "Indexed."}
    assert scans == []  # read from the index, not scanned
    assert index.exists()


@pytest.mark.shortcuts  # the index and the bare-help path are shortcuts (docs/08)
def test_nothing_is_written_beside_the_sources_or_their_bytecode(tmp_path: Path) -> None:
    """An app's help, in a process that writes bytecode: `__pycache__` holds Python's `.pyc`
    files only, and the index is in the cache directory."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "schema_mod.py").write_text(
        "from compose import BaseConfig\n\nclass Config(BaseConfig):\n    size: int = 3\n"
        '    """How big."""\n'
    )
    (src / "app.py").write_text(
        "from compose import cli\nfrom schema_mod import Config\ncli(Config)\n"
    )
    cache = tmp_path / "cache"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(COMPOSE_CACHE_DIR=str(cache), NO_COLOR="1")
    for _ in range(2):  # the second run reads the index
        code, out, _ = run_command([sys.executable, str(src / "app.py"), "--help"], env=env)
        assert (code, "How big." in out) == (0, True)
    written = sorted(str(path.relative_to(src)) for path in src.rglob("*") if path.is_file())
    assert written == [
        f"__pycache__/schema_mod.{sys.implementation.cache_tag}.pyc",
        "app.py",
        "schema_mod.py",
    ]
    assert "schema_mod" in [path.name.split("-")[0] for path in cache.rglob("*.marshal")]


def test_an_edited_source_is_scanned_again(tmp_path: Path, cache_dir: Path) -> None:
    """In the same process too (a schema module reloaded after an edit)."""
    module = _schema_module(tmp_path, "Before.")
    _docs(module)
    module.write_text(module.read_text().replace("Before.", "After!!"))  # the same size
    stat = module.stat()
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000_000))
    assert _docs(module) == {"x": "After!!"}


def test_a_source_at_another_path_does_not_read_this_ones_index(
    tmp_path: Path, cache_dir: Path
) -> None:
    """Same name, same size, same time: the index is of a path, not of a file name."""
    module = _schema_module(tmp_path, "First.")
    _docs(module)
    other = tmp_path / "other" / "src" / "schema_mod.py"
    other.parent.mkdir(parents=True)
    other.write_text(module.read_text().replace("First.", "Other."))
    stat = module.stat()
    os.utime(other, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert _docs(other) == {"x": "Other."}


def _stored_key(module: Path) -> docindex.Key:
    key = docindex.key_of(str(module), docstrings.__file__)
    assert key is not None
    return key


@pytest.mark.shortcuts
@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not marshal",
        b"\xe3\x00",
        marshal.dumps(5),
        marshal.dumps(("k", {})),
        "truncated",
        "foreign key",
        "not plain data",
    ],
)
def test_a_damaged_index_is_ignored_and_written_again(
    tmp_path: Path, cache_dir: Path, content: bytes | str
) -> None:
    module = _schema_module(tmp_path, "Survives.")
    _docs(module)
    (index,) = cache_dir.rglob("schema_mod-*")
    key = _stored_key(module)
    if content == "truncated":
        content = index.read_bytes()[:-3]
    elif content == "foreign key":  # another source's index, or another version's
        content = marshal.dumps(((*key[:2], 0, 0, 0, 0), {"A": [(1, {"x": "Foreign."})]}))
    elif content == "not plain data":  # an index of the right key holding code, say
        content = marshal.dumps((key, {"A": [(1, {"x": (lambda: 0).__code__})]}))
    assert isinstance(content, bytes)
    index.write_bytes(content)
    _new_process()
    assert _docs(module) == {"x": "Survives."}
    _new_process()
    assert docindex.read(key) == {"A": [(1, {"x": "Survives."})]}  # written again


@pytest.mark.shortcuts  # the index and the bare-help path are shortcuts (docs/08)
def test_deleting_the_cache_directory_is_safe(tmp_path: Path, cache_dir: Path) -> None:
    module = _schema_module(tmp_path, "Kept.")
    _docs(module)
    shutil.rmtree(cache_dir)
    _new_process()
    assert _docs(module) == {"x": "Kept."}
    assert list(cache_dir.rglob("schema_mod-*"))  # made again


@pytest.mark.shortcuts  # the index and the bare-help path are shortcuts (docs/08)
def test_no_cache_is_read_or_written_with_compose_no_cache(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    module = _schema_module(tmp_path, "Unwritten.")
    monkeypatch.setenv("COMPOSE_NO_CACHE", "1")
    assert _docs(module) == {"x": "Unwritten."}
    assert not cache_dir.exists()
    monkeypatch.delenv("COMPOSE_NO_CACHE")
    _docs(module)  # an index now
    _new_process()
    monkeypatch.setenv("COMPOSE_NO_CACHE", "1")
    scans = _counted_parses(monkeypatch)
    docstrings.module_classes(str(module))
    assert len(scans) == 1  # not read either


def test_an_unwritable_cache_directory_still_gives_help(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COMPOSE_CACHE_DIR", str(tmp_path / "a-file"))
    (tmp_path / "a-file").write_text("not a directory")
    module = _schema_module(tmp_path, "Unwritable.")
    assert _docs(module) == {"x": "Unwritable."}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file", "src"]  # no temporary left


@pytest.mark.shortcuts
def test_a_new_scanner_does_not_read_an_old_index(
    tmp_path: Path, cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The index is keyed by the reader's own file too: upgrading compose parses again."""
    module = _schema_module(tmp_path, "Old reader.")
    docstrings.module_classes(str(module))
    _new_process()
    newer = tmp_path / "newer_reader.py"
    newer.write_text("# a different compose/_docstrings.py\n")
    monkeypatch.setattr(docstrings, "__file__", str(newer))
    parses = _counted_parses(monkeypatch)
    docstrings.module_classes(str(module))
    assert len(parses) == 1


@pytest.mark.parametrize(
    ("environ", "platform", "expected"),
    [
        ({"COMPOSE_CACHE_DIR": "/c"}, "linux", "/c"),
        ({"COMPOSE_CACHE_DIR": "/c", "COMPOSE_NO_CACHE": "1"}, "linux", None),
        ({"COMPOSE_NO_CACHE": "0"}, "linux", "~/.cache/compose"),
        ({}, "linux", "~/.cache/compose"),
        ({"XDG_CACHE_HOME": "/xdg"}, "linux", "/xdg/compose"),
        ({"XDG_CACHE_HOME": "relative"}, "linux", "~/.cache/compose"),  # the spec: ignored
        ({}, "darwin", "~/Library/Caches/compose"),
        ({"LOCALAPPDATA": "/local"}, "win32", "/local/compose/Cache"),
        ({}, "win32", "~/AppData/Local/compose/Cache"),
    ],
)
def test_the_cache_directory_of_each_platform(
    environ: dict[str, str], platform: str, expected: str | None
) -> None:
    home = os.path.expanduser("~")
    found = docindex.cache_dir(environ, platform)
    assert found == (expected.replace("~", home, 1).replace("/", os.sep) if expected else None)


# --- a bare --help does not import the engine --------------------------------------------------


def test_cli_help_equals_parse_help(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (["--help"], ["-h"], ["--help", "trainer.optim"], ["-h", "--help", "orchestrator"]):
        with pytest.raises(SystemExit) as exited:
            cli(RLConfig, argv, prog="rl")
        assert exited.value.code == 0
        with pytest.raises(HelpRequested) as asked:
            parse(RLConfig, argv, prog="rl")
        assert capsys.readouterr().out == asked.value.text, argv


@pytest.mark.shortcuts  # the index and the bare-help path are shortcuts (docs/08)
@pytest.mark.parametrize("enabled", [True, False])
@pytest.mark.parametrize(("argv", "code"), [(["--help"], 0), (["--help", "no.such"], 2)])
def test_help_leaves_the_garbage_collector_as_it_found_it(
    enabled: bool,
    argv: list[str],
    code: int,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Help never switches the collector (a process-wide setting) on or off, whether the
    section asked for exists or not: the app's own setting holds while help is drawn, and
    after."""
    during: list[bool] = []

    def drawn(screen: HelpScreen) -> str:
        during.append(gc.isenabled())
        return plain_help(screen)

    monkeypatch.setattr(help_module, "plain_help", drawn)  # looked up when help is drawn
    was_enabled = gc.isenabled()
    gc.enable() if enabled else gc.disable()
    try:
        with pytest.raises(SystemExit) as exited:
            cli(RLConfig, argv, prog="rl")
        assert gc.isenabled() is enabled
    finally:
        gc.enable() if was_enabled else gc.disable()
    assert exited.value.code == code
    assert ("--trainer.optim" in capsys.readouterr().out) is (code == 0)
    assert during == ([enabled] if code == 0 else [])


@pytest.mark.shortcuts
def test_a_bare_help_and_import_compose_leave_the_engine_unloaded(tmp_path: Path) -> None:
    program = textwrap.dedent(
        """
        import sys
        import compose
        assert "compose._api" not in sys.modules, "import compose"
        from compose import BaseConfig, cli, write_configs  # as the rl app imports them

        class Config(BaseConfig):
            size: int = 3
            '''The size.'''
            tags: list[str] = ["a", "b-c"]
            weights: dict[str, float] = {"x": 0.5}

        try:
            cli(Config, ["--help"])
        except SystemExit:
            pass
        engine = {
            "compose._api",
            "compose._merge.fold",
            "compose._merge.flags",
            "compose._merge.composed",
            "compose._bind.validate",
            "compose._merge.tables",
        }
        # nor what only a composition, a written file, text to escape or a mistake needs:
        # origins, TOML in and out, did-you-mean
        light = {"compose._input.origins", "tomli", "compose._output.toml", "difflib"}
        loaded = (engine | light) & set(sys.modules)
        assert not loaded, loaded
        """
    )
    (tmp_path / "entry.py").write_text(program)
    code, out, err = run_command([sys.executable, str(tmp_path / "entry.py")])
    assert (code, err) == (0, ""), err
    assert "--size INT" in out
    assert "The size." in out
    assert '["a", "b-c"]' in out and '{"x": 0.5}' in out
