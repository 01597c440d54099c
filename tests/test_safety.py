"""Safety (issue 7): a config is data. Nothing in it is executed or imported, the environment
is read only through `${oc.env:...}`, `write_configs` writes atomically and only inside
`OUTPUT_DIR/configs`, and an error never writes a file name's control characters (an ANSI
escape sequence) to the terminal."""

from __future__ import annotations

import ast
import builtins
import errno
import importlib
import io
import os
import stat
import sys
import tokenize
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from conftest import run_cli, run_command, run_compose
from rl_app.config import RLConfig as AppConfig
from schemas import RLConfig, TrainerConfig

import compose
from compose import (
    ArgvError,
    ComposeError,
    InterpolationError,
    OutputError,
    cli,
    to_toml,
    write_configs,
)
from compose._cli.command import main

if TYPE_CHECKING:
    from conftest import WriteFile

PACKAGE = Path(compose.__file__).parent
SOURCES = sorted(PACKAGE.rglob("*.py"))


def _module(path: Path) -> str:
    """A source file as the lists below name it: its path inside the package."""
    return path.relative_to(PACKAGE).as_posix()


# --- no code from a config -------------------------------------------------------------------

CODE_TEXTS = (
    "__import__('os').system('touch pwned')",
    "eval('1+1')",
    "exec('import os')",
    "!!python/object/apply:os.system ['touch pwned']",
    "!!python/name:os.system",
    "{{ ''.__class__.__mro__[1].__subclasses__() }}",
    "$(touch pwned)",
    "`touch pwned`",
    "lambda: 1",
    "os.system",
    "pwned_by_config:Evil",
)


def toml_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


@pytest.mark.parametrize("text", CODE_TEXTS)
def test_code_in_a_value_stays_text(write: WriteFile, tmp_path: Path, text: str) -> None:
    value = toml_string(text)
    name = write(
        "code.toml",
        f"tag = {value}\n[trainer.model]\nname = {value}\n"
        f"[inference.vllm_extra]\ncode = {value}\nlist = [{value}]\n",
    )
    config = compose.compose([name], schema=RLConfig)
    assert config.tag == text
    assert config.trainer.model.name == text
    assert config.inference is not None
    assert config.inference.vllm_extra == {"code": text, "list": [text]}
    assert compose.compose([name])["tag"] == text
    assert compose.parse(RLConfig, ["--tag", text]).tag == text
    if text.startswith("{"):  # schema-less, a value starting with { is JSON on the CLI
        with pytest.raises(ArgvError, match="invalid JSON"):
            compose.compose([], [f"x={text}"])
    else:
        assert compose.compose([], [f"x={text}"])["x"] == text
    assert not (tmp_path / "pwned").exists()


@pytest.mark.parametrize(
    "text",
    [
        "${os.system:touch pwned}",
        "${builtins.eval:1+1}",
        "${__import__:os}",
        "${subprocess.run:touch pwned}",
        "${pwned_by_config.evil:1}",
    ],
)
def test_a_resolver_name_is_never_a_python_path(
    write: WriteFile, tmp_path: Path, text: str
) -> None:
    """Only registered resolvers run: a name that reads like a Python callable is unknown."""
    name = write("resolver.toml", f"tag = {toml_string(text)}\n")
    with pytest.raises(InterpolationError, match="unknown resolver"):
        compose.compose([name], schema=RLConfig)
    assert not (tmp_path / "pwned").exists()


def test_resolver_arguments_are_data(write: WriteFile, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_SUCH_VARIABLE_X", raising=False)
    text = "${oc.env:NO_SUCH_VARIABLE_X,'__import__(\"os\").getcwd()'}"
    assert compose.parse(RLConfig, ["--tag", text]).tag == '__import__("os").getcwd()'


class _Imports:
    """Every module name imported while installed (import statements and import_module)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.names: list[str] = []
        real_import, real_import_module = builtins.__import__, importlib.import_module

        def recording_import(name: str, *args: Any, **kwargs: Any) -> Any:
            self.names.append(name)
            return real_import(name, *args, **kwargs)

        def recording_import_module(name: str, package: str | None = None) -> Any:
            self.names.append(name)
            return real_import_module(name, package)

        monkeypatch.setattr(builtins, "__import__", recording_import)
        monkeypatch.setattr(importlib, "import_module", recording_import_module)

    def named(self, fragment: str) -> list[str]:
        return [name for name in self.names if fragment in name]


MODULE_NAMING_CONFIG = """\
_target_ = "pwned_by_config.Evil"
schema = "pwned_by_config:Evil"
module = "pwned_by_config"
type = "pwned_by_config.Evil"
tag = "${pwned_by_config.attr}"
[pwned_by_config]
attr = "x"
class = "pwned_by_config:Evil"
[orchestrator.algo]
type = "pwned_by_config"
"""


@pytest.fixture
def bait(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An importable module `pwned_by_config` that leaves a marker file when imported."""
    marker = tmp_path / "imported.marker"
    source = f"open({str(marker)!r}, 'w').close()\nclass Evil: pass\n"
    (tmp_path / "pwned_by_config.py").write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "pwned_by_config", raising=False)
    return marker


def test_compose_never_imports_a_module_a_config_names(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch, bait: Path
) -> None:
    name = write("modules.toml", MODULE_NAMING_CONFIG)
    imports = _Imports(monkeypatch)
    outcomes: list[object] = []
    for call in (
        lambda: compose.compose([name]),
        lambda: compose.compose([name], schema=RLConfig),
        lambda: compose.parse(RLConfig, ["@", name, "--tag", "pwned_by_config:Evil"]),
        lambda: compose.compose([], ["x=pwned_by_config", "y=${oc.select:pwned_by_config,1}"]),
        lambda: main(["show", "--resolved", "@", name]),
        lambda: main(["show", "--", "--schema", "pwned_by_config:Evil"]),
    ):
        try:
            outcomes.append(call())
        except ComposeError as error:
            outcomes.append(error)
    assert outcomes[0]["schema"] == "pwned_by_config:Evil"  # type: ignore[index]
    assert imports.named("pwned") == []
    assert not bait.exists()


def test_the_bait_module_is_importable(bait: Path) -> None:
    """The check above is meaningful: importing the bait module does leave its marker."""
    importlib.import_module("pwned_by_config")
    assert bait.exists()
    del sys.modules["pwned_by_config"]


# --- the environment -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["$HOME", "${HOME", "%PATH%", "$env:PATH", "~", "~/runs", "$(echo hi)", "${{HOME}}"]
)
def test_shell_and_env_syntax_stays_literal(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    monkeypatch.setenv("PATH", "/bin")
    name = write("env.toml", f"[inference.vllm_extra]\nx = {toml_string(text)}\n")
    try:
        config = compose.compose([name], schema=RLConfig)
    except InterpolationError:  # `${HOME` and `${{HOME}}` are bad interpolation syntax
        assert "${" in text
        return
    assert config.inference is not None
    assert config.inference.vllm_extra["x"] == text
    assert compose.parse(RLConfig, ["--output-dir", text]).output_dir == Path(text)


def test_an_interpolation_of_an_env_name_is_a_config_key(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`${HOME}` names the config key HOME, never the environment variable."""
    monkeypatch.setenv("HOME", "/home/someone")
    name = write("env.toml", 'tag = "${HOME}"\n')
    with pytest.raises(InterpolationError, match="key HOME not found"):
        compose.compose([name], schema=RLConfig)


def test_oc_env_reads_the_environment(write: WriteFile, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RL_RUN_TAG", "from-env")
    name = write("env.toml", 'tag = "${oc.env:RL_RUN_TAG}"\n')
    assert compose.compose([name], schema=RLConfig).tag == "from-env"


APP_STYLE_ENV = {
    "RL_TRAINER__OPTIM__LR": "0.5",
    "RL_TRAINER__MICRO_BATCH_SIZE": "2",
    "RL_SEED": "5",
    "RL_TAG": "from-env",
    "SEED": "6",
    "TAG": "from-env",
    "TRAINER__MICRO_BATCH_SIZE": "3",
    "COMPOSE_SEED": "7",
    "RLCONFIG_SEED": "8",
    "trainer.micro_batch_size": "4",
}


def test_environment_variables_are_not_a_layer(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """There is no env layer: variables shaped like settings overrides change nothing."""
    for variable, value in APP_STYLE_ENV.items():
        monkeypatch.setenv(variable, value)
    name = write("empty.toml", "")
    assert compose.parse(RLConfig, []) == RLConfig()
    assert compose.compose([name], schema=RLConfig) == RLConfig()
    assert compose.compose([name]) == {}


class _RecordingEnviron(dict):  # type: ignore[type-arg]
    """`os.environ` stand-in that records the names looked up."""

    def __init__(self, values: dict[str, str]) -> None:
        super().__init__(values)
        self.read: list[str] = []

    def __getitem__(self, key: str) -> str:
        self.read.append(key)
        return str(super().__getitem__(key))

    def get(self, key: str, default: Any = None) -> Any:
        self.read.append(key)
        return super().get(key, default)

    def __contains__(self, key: object) -> bool:
        self.read.append(str(key))
        return super().__contains__(key)


def test_the_environment_is_read_only_through_oc_env(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    recording = _RecordingEnviron({**os.environ, "RL_RUN_TAG": "from-env", **APP_STYLE_ENV})
    monkeypatch.setattr(os, "environ", recording)
    plain = write("plain.toml", 'tag = "$HOME"\nseed = 3\n[trainer.model]\nname = "${tag}"\n')
    compose.compose([plain], schema=RLConfig)
    compose.parse(RLConfig, ["@", plain, "--max-steps", "3"])
    assert recording.read == []
    reading = write("reading.toml", 'tag = "${oc.env:RL_RUN_TAG}"\n')
    assert compose.compose([reading], schema=RLConfig).tag == "from-env"
    assert recording.read == ["RL_RUN_TAG"]


# --- write_configs ---------------------------------------------------------------------------


def tree(root: Path) -> dict[str, bytes]:
    """Every file under `root` (relative name -> content)."""
    return {
        str(path.relative_to(root)): path.read_bytes() for path in root.rglob("*") if path.is_file()
    }


@pytest.mark.parametrize(
    "name",
    [
        "a/b",
        "../rl",
        "../../rl",
        "..",
        ".",
        "",
        "/etc/rl",
        "/tmp/rl",
        "a\0b",
        "\0",
        "configs/../../rl",
        "sub\\rl",
        ".hidden",
    ],
)
def test_write_configs_refuses_names_that_leave_the_directory(tmp_path: Path, name: str) -> None:
    output = tmp_path / "run"
    output.mkdir()
    with pytest.raises((ValueError, ComposeError)):
        write_configs(output, {"ok": RLConfig(), name: RLConfig()})
    assert tree(tmp_path) == {}


def test_write_configs_writes_only_under_configs(tmp_path: Path) -> None:
    written = write_configs(tmp_path / "run", {"rl": RLConfig(), "trainer": TrainerConfig()})
    configs = (tmp_path / "run" / "configs").resolve()
    assert all(path.resolve().parent == configs for path in written)
    assert sorted(tree(tmp_path)) == ["run/configs/rl.toml", "run/configs/trainer.toml"]


class _FailingStream(io.BufferedWriter):
    """A file stream whose `write` puts half the bytes on disk, then fails as a full disk."""

    def write(self, data: Any) -> int:
        super().write(bytes(data)[: len(data) // 2])
        self.flush()
        raise OSError(errno.ENOSPC, "No space left on device")


@pytest.fixture
def earlier_run(tmp_path: Path) -> dict[str, bytes]:
    """An earlier dry run's configs, which a failed write must leave as they are."""
    write_configs(tmp_path, {"rl": RLConfig(seed=1), "trainer": TrainerConfig()})
    return tree(tmp_path)


def test_a_write_failing_mid_file_leaves_no_partial_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, earlier_run: dict[str, bytes]
) -> None:
    real_fdopen = os.fdopen
    opened: list[int] = []

    def fdopen(fd: int, *args: Any, **kwargs: Any) -> Any:
        opened.append(fd)
        stream = real_fdopen(fd, *args, **kwargs)
        if len(opened) < 2:
            return stream
        raw = stream.detach()
        return _FailingStream(raw)

    monkeypatch.setattr(os, "fdopen", fdopen)
    with pytest.raises(OutputError, match=r"cannot write trainer\.toml: No space left on device"):
        write_configs(tmp_path, {"rl": RLConfig(seed=2), "trainer": TrainerConfig(), "x": {}})
    assert len(opened) == 2  # the first file was staged, the second failed half-way
    assert tree(tmp_path) == earlier_run  # old files intact, no partial file, no temporary


def test_a_value_that_cannot_be_encoded_leaves_no_file(
    tmp_path: Path, earlier_run: dict[str, bytes]
) -> None:
    """A lone surrogate (an undecodable byte from argv) cannot be written as UTF-8."""
    with pytest.raises((UnicodeError, ValueError, ComposeError)):
        write_configs(tmp_path, {"rl": RLConfig(tag="caf\udce9")})
    assert tree(tmp_path) == earlier_run


def test_a_rename_failing_leaves_no_temporary_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, earlier_run: dict[str, bytes]
) -> None:
    """Each target is replaced whole: after a failed rename every file is old or new, whole,
    and no temporary file is left behind."""
    real_replace = os.replace
    renamed: list[str] = []

    def replace(source: Any, target: Any, **at: Any) -> None:
        renamed.append(str(target))
        if len(renamed) == 2:
            raise OSError(errno.EIO, "Input/output error")
        real_replace(source, target, **at)

    monkeypatch.setattr(os, "replace", replace)
    new = {"rl": RLConfig(seed=2), "trainer": TrainerConfig(micro_batch_size=2)}
    with pytest.raises(OutputError, match=r"cannot write trainer\.toml: Input/output error"):
        write_configs(tmp_path, new)
    after = tree(tmp_path)
    assert sorted(after) == sorted(earlier_run)
    for name, value in new.items():
        key = f"configs/{name}.toml"
        assert after[key] in (earlier_run[key], to_toml(value).encode())


# --- the source itself -----------------------------------------------------------------------

FORBIDDEN_MODULES = {
    "pickle",
    "cPickle",
    "dill",
    "cloudpickle",
    "marshal",
    "shelve",
    "subprocess",
    "runpy",
    "ctypes",
}
FORBIDDEN_IMPORTS = {*FORBIDDEN_MODULES, "code", "codeop"}
FORBIDDEN_BUILTINS = {"eval", "exec", "compile", "__import__", "breakpoint"}
FORBIDDEN_OS_CALLS = ("system", "popen", "exec", "spawn", "posix_spawn", "fork")
IMPORT_MODULE_ALLOWED = {
    "_cli/roles.py",  # `--schema MODULE:CLASS` and compose-check.toml's entrypoints: the user's
    "__init__.py",  # public names loaded on first use, from a fixed table of compose modules
    "_runs/executors/__init__.py",  # an executor's adapter, from a fixed table of compose modules
    # A Hydra tree's `pkg://a.b` search path entry: the top-level package's directory from its
    # finders (`find_spec` of a top-level name runs none of its code), never an import
    "_input/hydra/repository.py",
}
# Running a sweep's points is what these are for, and only when asked: `compose job DIR` runs
# the command its job.json names; the local pool starts `compose job`; sbatch is sbatch.
# Run records ask git for the work tree's commit (a fixed argv, no shell, nothing of the
# input). Composing, validating and writing configs never reach them.
SUBPROCESS_ALLOWED = {
    "_runs/status.py",
    "_runs/executors/local.py",
    "_runs/executors/sbatch.py",
    "_runs/provenance.py",
}
# The docstring index is kept in the user's own cache directory and read with marshal: plain
# data only, checked to be that and nothing else (never code), and nothing loaded is ever run.
MARSHAL_ALLOWED = {"_schema/docindex.py"}


def code_names(path: Path) -> Iterator[tuple[int, str]]:
    """Every name token of a module's code (strings, comments and docstrings skipped)."""
    with path.open("rb") as stream:
        for token in tokenize.tokenize(stream.readline):
            if token.type == tokenize.NAME:
                yield token.start[0], token.string


def forbidden_calls(path: Path) -> Iterator[str]:
    """Imports of forbidden modules, `eval(...)`-style calls of builtins and
    `os.system(...)`-style calls, by the syntax tree (so `re.compile` is not `compile`)."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import | ast.ImportFrom):
            modules = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            modules.append(getattr(node, "module", None) or "")
            for module in modules:
                if module.split(".")[0] in FORBIDDEN_IMPORTS:
                    yield f"{path.name}:{node.lineno}: import {module}"
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name) and func.id in FORBIDDEN_BUILTINS:
            yield f"{path.name}:{node.lineno}: {func.id}("
        if (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id == "os"
            and func.attr.startswith(FORBIDDEN_OS_CALLS)
        ):
            yield f"{path.name}:{node.lineno}: os.{func.attr}("


@pytest.mark.parametrize("path", SOURCES, ids=_module)
def test_the_source_has_no_code_execution(path: Path) -> None:
    allowed = {"marshal"} if _module(path) in MARSHAL_ALLOWED else set()
    allowed |= {"subprocess"} if _module(path) in SUBPROCESS_ALLOWED else set()
    names = list(code_names(path))
    modules = [
        f"{path.name}:{line}: {name}" for line, name in names if name in FORBIDDEN_MODULES - allowed
    ]
    assert modules == []
    assert [c for c in forbidden_calls(path) if c.split(" ")[-1] not in allowed] == []
    if _module(path) not in IMPORT_MODULE_ALLOWED | SUBPROCESS_ALLOWED:
        importing = [name for _, name in names if name in ("import_module", "importlib")]
        assert importing == []


@pytest.mark.parametrize("path", SOURCES, ids=_module)
def test_yaml_only_through_a_safe_loader(path: Path) -> None:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        if node.func.attr in ("load", "load_all", "unsafe_load", "full_load"):
            owner = ast.unparse(node.func.value)
            if "yaml" in owner:
                loader = ast.unparse(node)
                assert node.func.attr in ("load", "load_all"), loader
                assert "SafeLoader" in loader or "CSafeLoader" in loader, loader


def test_the_source_scan_sees_the_package() -> None:
    names = {_module(path) for path in SOURCES}
    assert {"_input/files.py", "_interp/resolve.py", "_cli/command.py", "_output/toml.py"} <= names
    assert any(name == "import_module" for _, name in code_names(PACKAGE / "_cli/roles.py"))


@pytest.mark.parametrize("under", ["a-file", "/dev/null", "/proc"])
def test_an_output_directory_that_cannot_be_made_is_one_error(tmp_path: Path, under: str) -> None:
    """The directory named, and why; exit 2; nothing written anywhere (the app writes its
    run record first: the first file it cannot write is run.json)."""
    (tmp_path / "a-file").write_text("x")
    parent = tmp_path / under if under == "a-file" else Path(under)
    output = parent / "run"
    argv = [sys.executable, "-m", "rl_app", "rl", "--dry-run", "--output-dir", str(output)]
    reason = "No such file or directory" if under == "/proc" else "Not a directory"
    assert run_command(argv, cwd=tmp_path) == (
        2,
        "",
        f"error: {output}: cannot write run.json here: {reason}\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]


def test_written_configs_follow_the_umask(tmp_path: Path) -> None:
    previous = os.umask(0o027)
    try:
        (written,) = write_configs(tmp_path, {"rl": RLConfig()})
        assert stat.S_IMODE(written.stat().st_mode) == 0o640
        written.chmod(0o644)
        os.umask(0o022)
        (again,) = write_configs(tmp_path, {"rl": RLConfig(seed=3)})
        assert stat.S_IMODE(again.stat().st_mode) == 0o644
    finally:
        os.umask(previous)


# --- what a terminal is shown ------------------------------------------------------------------

# A file name an attacker (or an accident) can give: it clears the screen, moves the cursor home
# and writes in red; then a newline and a C1 CSI, which start lines and sequences of their own.
EVIL = "run\x1b[2J\x1b[H\x1b[31m-\nerror: fine\x9b0m.toml"
SHOWN = "run\\x1b[2J\\x1b[H\\x1b[31m-\\nerror: fine\\x9b0m.toml"


class _Terminal(io.StringIO):
    """stderr as a terminal: errors are drawn with rich."""

    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("terminal", [False, True], ids=["piped", "terminal"])
def test_a_file_name_with_an_escape_sequence_is_shown_escaped(
    write: WriteFile,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    terminal: bool,
) -> None:
    """Through an entrypoint and `compose show`: the error names the file, its control
    characters escaped as `repr` shows them (and no other), whether drawn by rich or not."""
    write(EVIL, "max_steps = 'many'\n")
    write("café.toml", "max_steps = 'many'\n")  # letters are shown as they are
    stderr = _Terminal()
    if terminal:
        monkeypatch.setattr(sys, "stderr", stderr)
        monkeypatch.setenv("COLUMNS", "300")  # a box wide enough to hold each line whole
    runs = [
        run_cli(["@", EVIL], capsys),
        run_compose(capsys, "show", "--resolved", "--schema", "schemas:RLConfig", "@", EVIL),
        run_cli(["@", "café.toml"], capsys),
    ]
    shown = [stderr.getvalue()] if terminal else [err for _, _, err in runs]
    assert [code for code, _, _ in runs] == [2, 2, 2]
    text = "".join(shown)
    assert "\x1b[2J" not in text and "\x1b[H" not in text and "\x9b" not in text
    assert "\x1b" not in text or terminal  # rich draws its box in colours of its own
    assert text.count(f"{SHOWN}:1") == 2
    assert "café.toml:1" in text
    if not terminal:
        assert [err.count("\n") for err in shown] == [1, 1, 1]  # one line each: none faked


def test_a_warning_names_the_file_escaped(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """An entrypoint's `warning:` lines (the rl app's renamed key, found in the file) too."""
    write(EVIL, "clean_output_dir = true\n")
    cli(AppConfig, ["@", EVIL], prog="rl")
    err = capsys.readouterr().err
    assert err == f"warning: `clean_output_dir` is renamed to `clean`; found in {SHOWN}:1\n"


def test_show_origins_and_check_name_the_file_escaped(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """`compose show --origins` notes each value's file in a TOML comment, and `compose check`
    lists problems at their file: neither writes the name's control characters (a newline in a
    comment would also end it, and the TOML printed would not be the config)."""
    write(EVIL, "max_steps = 3\nbad_key = 1\n")
    assert main(["show", "--origins", "@", EVIL]) == 0
    out = capsys.readouterr().out
    assert out == f"max_steps = 3  # {SHOWN}:1\nbad_key = 1  # {SHOWN}:2\n"
    assert main(["check", "--quiet", "--schema", "schemas:RLConfig", EVIL]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"{SHOWN}:2: --bad-key = 1: unknown key",
        f"{SHOWN}: 1 problem as a root config of schemas:RLConfig",
        "checked 1 file: 0 fit, 1 with problems",
    ]


def test_explain_diff_and_help_name_the_file_escaped(
    write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    """`compose explain` and `compose diff` name each value's file, and an entrypoint's help
    after files says where each value came from: none writes the name's control characters,
    nor a key's (a TOML key may hold any character, written as an escape)."""
    write(EVIL, 'max_steps = 3\n[extra]\n"k\\u001b[2J" = 1\n')
    write("plain.toml", "max_steps = 4\n")
    assert main(["explain", "max_steps", "@", EVIL, "@", "plain.toml"]) == 0
    out = capsys.readouterr().out
    assert f"  {SHOWN}:1" in out and "\x1b" not in out and "\x9b" not in out
    assert out.count("\n") == 4  # the key, two nodes, the winner: no line faked
    assert main(["diff", "@", EVIL, "--", "@", "plain.toml"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines() == [
        f"--max_steps: 3 ({SHOWN}:1) -> 4 (plain.toml:1)",
        f"--extra.k\\x1b[2J: 1 ({SHOWN}:3) -> (unset)",
    ]
    write(f"help-{EVIL}", "max_steps = 3\n")  # a file AppConfig takes whole
    with pytest.raises(SystemExit):
        cli(AppConfig, ["@", f"help-{EVIL}", "--help"], prog="rl")
    out = capsys.readouterr().out
    joined = " ".join(out.split())  # help wraps lines to the screen: the name may be broken
    assert f"from help-{SHOWN}:1" in joined and "\x1b[2J" not in out and "\x9b" not in out
