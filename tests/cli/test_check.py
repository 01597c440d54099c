"""`compose check PATH...`: every config file of a tree judged as what it is (issue 23).

A root config is judged whole, an overlay (at the root or at a section) as a piece: unknown
keys, refused values, old names and interpolation syntax, not what a later file supplies. Roles
come from compose-check.toml, from `_include_`, or from a config group's directory. Each test
writes a small tree and runs `compose._cli.command.main` in it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from compose._cli.command import main

REPO = Path(__file__).resolve().parents[2]

SCHEMA = """
from typing import Annotated, Literal

from pydantic import Field, SecretStr

from compose import BaseConfig, renamed


class AdamW(BaseConfig):
    type: Literal["adamw"] = "adamw"
    lr: float = 1e-4


class Muon(BaseConfig):
    type: Literal["muon"] = "muon"
    lr: float = 0.02
    momentum: float = 0.95


class Model(BaseConfig):
    name: str
    seq_len: int = 2048


@renamed({"lr": "optim.lr"})
class Trainer(BaseConfig):
    optim: Annotated[AdamW | Muon, Field(discriminator="type")] = AdamW()
    model: Model | None = None
    steps: int = Field(10, ge=1)


class Wandb(BaseConfig):
    api_key: SecretStr = SecretStr("")
    project: str = "p"


class Env(BaseConfig):
    id: str
    weight: float = 1.0


class App(BaseConfig):
    seq_len: int = 512
    trainer: Trainer = Trainer()
    model: Model | None = None
    wandb: Wandb = Wandb()
    envs: list[Env] = []


class Alone(BaseConfig):
    port: int = 8000
"""


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory with the schema module `checkapp` in it, made the working directory."""
    (tmp_path / "checkapp.py").write_text(SCHEMA)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    return tmp_path


def write(root: Path, name: str, text: str) -> None:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip())


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str], str]:
    code = main(["check", *args])
    out, err = capsys.readouterr()
    return code, out.splitlines(), err


def test_a_tree_that_fits_exits_0_and_says_how_each_file_was_judged(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "run.toml", "seq_len = 1024\n[trainer.optim]\ntype = 'muon'\n")
    write(tree, "conf/optim/muon.toml", "type = 'muon'\nmomentum = 0.9\n")
    code, lines, err = check(capsys, "--schema", "checkapp:App", "--search-path", "conf", ".")
    assert (code, err) == (0, "")
    assert lines == [
        "conf/optim/muon.toml: fits as trainer.optim of checkapp:App",
        "run.toml: fits as a root config of checkapp:App",
        "checked 2 files: 2 fit, 0 with problems",
    ]


def test_an_overlay_in_a_config_group_is_judged_at_its_section_with_file_and_line(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "conf/optim/bad.toml", "type = 'adamw'\nlr = 'fast'\nmomentun = 0.9\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "--search-path", "conf", "conf")
    assert code == 1
    assert lines[0].startswith("conf/optim/bad.toml:2: --trainer.optim.lr = 'fast': ")
    assert lines[1] == (
        "conf/optim/bad.toml:3: --trainer.optim.momentun = 0.9: unknown key; "
        "did you mean --trainer.optim.momentum?"
    )
    assert lines[2] == "conf/optim/bad.toml: 2 problems as trainer.optim of checkapp:App"


def test_an_overlay_is_not_judged_for_what_a_later_file_supplies(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `trainer.model.name` is required, and `${base_lr}` names a key no file here has
    write(tree, "conf/model/small.toml", "seq_len = 128\n")
    write(
        tree,
        "overlay.toml",
        """
        [trainer.model]
        seq_len = '${seq_len}'
        [trainer.optim]
        lr = '${base_lr}'
    """,
    )
    write(
        tree,
        "compose-check.toml",
        """
        [entrypoints]
        app = "checkapp:App"
        [[files]]
        match = ["overlay.toml"]
        overlay = true
    """,
    )
    code, lines, _ = check(capsys, "--search-path", "conf", ".")
    assert code == 0, lines
    assert "overlay.toml: fits as an overlay of app" in lines
    # a group's file fits the first section of that name it fits: trainer.model, then model
    assert "conf/model/small.toml: fits as trainer.model of app" in lines


def test_a_root_config_is_judged_whole_and_every_problem_is_reported_at_once(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "root.toml", "seq_len = '${nope}'\n[trainer]\nsteps = 0\n[model]\nseq_len = 1\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "root.toml")
    assert code == 1
    assert lines[0] == (
        "root.toml:1: --seq-len = '${nope}': interpolation ${nope}: key nope not found"
    )
    assert lines[1].startswith("root.toml:3: --trainer.steps = 0: Input should be greater than")
    assert lines[2] == "root.toml: --model.name: missing required value"
    assert lines[3] == "root.toml: 3 problems as a root config of checkapp:App"


def test_interpolation_syntax_and_old_names_are_problems_of_an_overlay(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "conf/trainer/old.toml", "lr = 1e-3\nsteps = '${seq_len'\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "--search-path", "conf", "conf")
    assert code == 1
    assert lines[0].startswith("conf/trainer/old.toml:1: `lr` is renamed to `optim.lr` (")
    assert lines[1] == (
        "conf/trainer/old.toml:2: --trainer.steps = '${seq_len': invalid interpolation "
        "syntax: unexpected end of text at column 10"
    )


def test_an_overlay_whose_union_tag_an_interpolation_gives_fits(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The variant is chosen once `${...}` is resolved, over the file it is laid on: the tag
    as written (`${optim_name}`) was judged a tag no variant has. A tag no variant has is
    still a problem."""
    write(tree, "conf/trainer/named.toml", "[optim]\ntype = '${optim_name}'\nlr = 0.5\n")
    write(tree, "conf/trainer/typo.toml", "[optim]\ntype = 'muonn'\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "--search-path", "conf", "conf")
    assert code == 1
    assert lines[0] == "conf/trainer/named.toml: fits as trainer of checkapp:App"
    assert lines[1].startswith("conf/trainer/typo.toml:2: --trainer.optim.type = 'muonn': ")


def test_a_secret_a_file_gets_wrong_is_never_printed(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "conf/wandb/key.toml", "api_key = ['hunter2-secret']\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "--search-path", "conf", "conf")
    assert code == 1
    assert "hunter2" not in "\n".join(lines)
    assert lines[0].startswith("conf/wandb/key.toml:1: --wandb.api-key = '**********': ")


def test_included_files_are_judged_as_pieces_where_they_are_mounted(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "run.toml", "_include_ = ['parts/base.toml', { trainer = 'parts/t.toml' }]\n")
    write(tree, "parts/base.toml", "seq_len = 256\n")
    write(tree, "parts/t.toml", "steps = 3\n[optim]\nlr = 1e-5\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", ".")
    assert code == 0, lines
    assert lines[:2] == [
        "parts/base.toml: fits as an overlay of checkapp:App",
        "parts/t.toml: fits as trainer of checkapp:App",
    ]


def test_the_mapping_names_entrypoints_skips_and_excludes(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(
        tree,
        "compose-check.toml",
        """
        default = "app"
        exclude = ["fixtures/*"]
        [entrypoints]
        app = "checkapp:App"
        alone = "checkapp:Alone"
        [[files]]
        match = ["server/*.toml"]
        entrypoint = "alone"
        [[files]]
        match = ["sweeps/*.toml"]
        skip = true
    """,
    )
    write(tree, "server/local.toml", "port = 9000\n")
    write(tree, "sweeps/lr.toml", "[axes]\n'trainer.optim.lr' = [1, 2]\n")
    write(tree, "fixtures/broken.toml", "this is not toml\n")
    write(tree, "pyproject.toml", "[project]\nname = 'x'\n")
    code, lines, _ = check(capsys, ".")
    assert code == 0, lines
    assert lines == [
        "server/local.toml: fits as a root config of alone",
        "sweeps/lr.toml: skipped (its rule says so)",
        "checked 2 files: 2 fit, 0 with problems",
    ]


def test_a_file_no_role_fits_is_a_problem_naming_what_to_declare(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "a.toml", "x = 1\n")
    code, lines, _ = check(capsys, ".")
    assert code == 1
    assert lines[0] == (
        "a.toml: fits no declared role; give --schema MODULE:CLASS, or declare its role in "
        "compose-check.toml"
    )


def test_a_group_file_of_a_list_of_sections_is_judged_as_an_element(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`conf/envs/a.toml` is what `--envs.0 @ envs/a` loads: one element. It was judged at the
    list itself, where no file loads ('is a value, not a section')."""
    write(tree, "conf/envs/a.toml", "id = 'reverse-text'\nweight = 2.0\n")
    write(tree, "conf/envs/b.toml", "id = 'x'\nwieght = 1.0\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "--search-path", "conf", "conf")
    assert code == 1
    assert lines == [
        "conf/envs/a.toml: fits as envs.0 of checkapp:App",
        "conf/envs/b.toml:2: --envs.0.wieght = 1.0: unknown key; did you mean --envs.0.weight?",
        "conf/envs/b.toml: 1 problem as envs.0 of checkapp:App",
        "checked 2 files: 1 fit, 1 with problems",
    ]


def test_a_group_file_that_fits_none_of_its_sections_names_them_all(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "conf/model/bad.toml", "nme = 'x'\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "--search-path", "conf", "conf")
    assert code == 1
    assert lines[0].startswith("conf/model/bad.toml:1: --trainer.model.nme = 'x': unknown key")
    assert lines[1] == (
        "conf/model/bad.toml: 1 problem as trainer.model of checkapp:App; "
        "nor does it fit as model of checkapp:App"
    )


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (
            ["--quite", "."],
            "error: --quite: is not an option of compose check; did you mean --quiet?\n",
        ),
        (
            [".", "--quiet"],
            "error: --quiet: is given after PATH: options come first; compose check "
            "--quiet ... PATH...\n",
        ),
    ],
    ids=["mistyped", "after the paths"],
)
def test_a_mistyped_or_late_option_is_bad_input_not_a_path(
    tree: Path, capsys: pytest.CaptureFixture[str], argv: list[str], expected: str
) -> None:
    """It was read as a path: 'file not found', exit 1, as if a checked file had a problem."""
    code, lines, err = check(capsys, *argv)
    assert (code, lines, err) == (2, [], expected)


@pytest.mark.parametrize(
    ("mapping", "expected"),
    [
        ("entrypont = 'x'\n", "entrypont"),
        (
            "default = 'nope'\n[entrypoints]\napp = 'checkapp:App'\n",
            "--default = 'nope' (from compose-check.toml:1): names no entrypoint",
        ),
        (
            "[entrypoints]\napp = 'checkapp:App'\n[[files]]\nmatch = ['a']\nentrypoint = 'ap'\n",
            "--files.0.entrypoint = 'ap' (from compose-check.toml:5): names no entrypoint",
        ),
        (
            "[entrypoints]\n\napp = 'checkapp:Missing'\n",
            "--entrypoints.app = 'checkapp:Missing' (from compose-check.toml:3): "
            "checkapp has no config class Missing",
        ),
        (  # a sweep's file is composed over its own argv: a section would be ignored
            "[entrypoints]\napp = 'checkapp:App'\n[[files]]\nmatch = ['a.toml']\n"
            "section = 'trainer'\nsweep_over = ['@', 'b.toml']\n",
            "--files.0.section = 'trainer' (from compose-check.toml:5): a rule with sweep_over "
            "judges a sweep's file, which is not mounted at a section: its axes name keys of "
            "the whole config; drop section, or sweep_over if the file is no sweep's",
        ),
        (
            "[entrypoints]\napp = 'checkapp:App'\n[[files]]\nmatch = ['a.toml']\n"
            "sweep_over = []\noverlay = true\n",
            "--files.0.overlay = True (from compose-check.toml:6): a rule with sweep_over "
            "judges a sweep's file, which is not laid over another file: its points are "
            "composed over sweep_over alone; drop overlay, or sweep_over if the file is no "
            "sweep's",
        ),
    ],
)
def test_a_bad_mapping_is_bad_input_to_check_itself(
    tree: Path, capsys: pytest.CaptureFixture[str], mapping: str, expected: str
) -> None:
    write(tree, "compose-check.toml", mapping)
    write(tree, "a.toml", "seq_len = 1\n")
    code, lines, err = check(capsys, ".")
    assert (code, lines) == (2, [])
    assert err.startswith("error: ") and expected in err and err.count("\n") == 1


def test_a_rule_whose_pattern_matches_no_file_is_a_problem_of_the_mapping(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A typo in a glob would leave its files to the default role, silently: each pattern that
    matches no file under the paths checked is a problem, at its line in the mapping. Patterns
    that cannot reach those paths (a rule for another directory) are not asked."""
    write(tree, "conf/debug/trainer.toml", "steps = 2\n")
    write(tree, "conf/debug/other.toml", "seq_len = 3\n")
    write(tree, "examples/a/debug.toml", "seq_len = 4\n")
    write(
        tree,
        "compose-check.toml",
        """
        default = "app"
        [entrypoints]
        app = "checkapp:App"
        trainer = "checkapp:Trainer"

        [[files]]
        match = ["conf/debug/traner.toml"]
        entrypoint = "trainer"

        [[files]]
        match = ["conf/debug/other.toml", "conf/*/nothing-*.toml"]

        [[files]]
        match = ["examples/*/debug.toml"]
        overlay = true
    """,
    )
    code, lines, err = check(capsys, "--quiet", "conf")
    assert (code, err) == (1, "")
    assert lines == [
        "conf/debug/trainer.toml:1: --steps = 2: unknown key; did you mean --trainer.steps?",
        "conf/debug/trainer.toml: 1 problem as a root config of app",
        "compose-check.toml:7: --files.0.match.0 = 'conf/debug/traner.toml': matches no file "
        "under the paths checked; did you mean conf/debug/trainer.toml?",
        "compose-check.toml:11: --files.1.match.1 = 'conf/*/nothing-*.toml': matches no file "
        "under the paths checked; patterns are relative to the mapping's directory, in "
        "fnmatch's syntax",
        "compose-check.toml: 2 problems of the mapping",
        "checked 2 files: 1 fit, 1 with problems; 2 problems in compose-check.toml",
    ]
    write(
        tree,
        "compose-check.toml",
        "[entrypoints]\napp = 'checkapp:App'\n[[files]]\n"
        "match = ['conf/debug/trainer.toml']\nentrypoint = 'app'\n",
    )
    code, lines, _ = check(capsys, "--quiet", "examples", "conf/debug/other.toml")
    assert (code, lines[-1]) == (0, "checked 2 files: 2 fit, 0 with problems")


def test_a_rule_every_file_of_which_an_earlier_rule_decides_is_a_problem(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The first rule whose patterns match decides: a pattern whose files all go to an
    earlier rule (a broad glob above a narrow one) is a rule that never applies, as silent as
    a typo; so is an `exclude` pattern that leaves out no file (a directory's name without
    `/*`, which matches no file in it). Each is a problem at its line; a pattern that decides
    some of its files itself is not."""
    write(tree, "conf/debug/trainer.toml", "steps = 2\n")
    write(tree, "conf/debug/other.toml", "seq_len = 3\n")
    write(tree, "conf/legacy/old.toml", "seq_len = 4\n")
    write(
        tree,
        "compose-check.toml",
        """
        default = "app"
        exclude = ["conf/legacy/*", "conf/fixtures"]
        [entrypoints]
        app = "checkapp:App"
        trainer = "checkapp:Trainer"

        [[files]]
        match = ["conf/debug/*.toml"]

        [[files]]
        match = ["conf/debug/trainer.toml"]
        entrypoint = "trainer"

        [[files]]
        match = ["conf/*/other.toml", "conf/*/trainer.toml"]
    """,
    )
    code, lines, err = check(capsys, "--quiet", "conf")
    assert (code, err) == (1, "")
    assert lines == [
        "conf/debug/trainer.toml:1: --steps = 2: unknown key; did you mean --trainer.steps?",
        "conf/debug/trainer.toml: 1 problem as a root config of app",
        "compose-check.toml:2: --exclude.1 = 'conf/fixtures': matches no file under the paths "
        "checked; patterns are relative to the mapping's directory, in fnmatch's syntax",
        "compose-check.toml:11: --files.1.match.0 = 'conf/debug/trainer.toml': every file it "
        "matches is decided by an earlier rule, --files.0 (compose-check.toml:8); the first "
        "rule whose patterns match decides: put this one first",
        "compose-check.toml:15: --files.2.match.0 = 'conf/*/other.toml': every file it matches "
        "is decided by an earlier rule, --files.0 (compose-check.toml:8); the first rule whose "
        "patterns match decides: put this one first",
        "compose-check.toml:15: --files.2.match.1 = 'conf/*/trainer.toml': every file it "
        "matches is decided by an earlier rule, --files.0 (compose-check.toml:8); the first "
        "rule whose patterns match decides: put this one first",
        "compose-check.toml: 4 problems of the mapping",
        "checked 2 files: 1 fit, 1 with problems; 4 problems in compose-check.toml",
    ]


@pytest.mark.parametrize(
    ("section", "reason"),
    [
        ("trainer.optm", "unknown key; did you mean --trainer.optim?"),
        ("seq_len", "is a value, not a section: a file can only be loaded into a section"),
    ],
)
def test_a_rule_s_section_the_schema_lacks_is_bad_input_at_its_line(
    tree: Path, capsys: pytest.CaptureFixture[str], section: str, reason: str
) -> None:
    """It was a problem of every file the rule matched, with no line of the mapping (exit 1)."""
    write(tree, "conf/optim/muon.toml", "type = 'muon'\n")
    write(
        tree,
        "compose-check.toml",
        f"""
        [entrypoints]
        app = "checkapp:App"
        [[files]]
        match = ["conf/optim/*.toml"]
        section = "{section}"
    """,
    )
    code, lines, err = check(capsys, "conf")
    assert (code, lines) == (2, [])
    assert err == (
        f"error: --files.0.section = '{section}' (from compose-check.toml:5): names no section "
        f"of app: {reason}\n"
    )


def test_a_bad_schema_flag_is_named_as_the_flag_beside_a_mapping(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "compose-check.toml", "[entrypoints]\napp = 'checkapp:App'\n")
    code, _, err = check(capsys, "--schema", "checkapp:Nope", ".")
    assert code == 2
    assert err == "error: --schema = 'checkapp:Nope': checkapp has no config class Nope\n"


def test_syntax_errors_and_missing_files_are_problems_not_tracebacks(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "broken.toml", "seq_len = = 3\n")
    code, lines, err = check(capsys, "--schema", "checkapp:App", "broken.toml", "gone.toml")
    assert (code, err) == (1, "")
    assert lines[0].startswith("broken.toml:1:")
    assert any(line.startswith("gone.toml") and "not found" in line for line in lines)
    assert lines[-1] == "checked 2 files: 0 fit, 2 with problems"


def test_a_symlink_loop_in_the_tree_is_a_problem_of_that_file_not_a_traceback(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`a.toml -> b.toml -> a.toml` (and a directory linking to itself): the loop is that
    file's problem, the rest of the tree is still judged."""
    write(tree, "conf/ok.toml", "seq_len = 1\n")
    (tree / "conf" / "a.toml").symlink_to("b.toml")
    (tree / "conf" / "b.toml").symlink_to("a.toml")
    (tree / "conf" / "self").symlink_to(".")
    mapping = "exclude = ['nothing/*']\n[entrypoints]\napp = 'checkapp:App'\n"
    write(tree, "compose-check.toml", mapping)
    code, lines, err = check(capsys, "conf")
    assert (code, err) == (1, "")
    assert "conf/ok.toml: fits as a root config of app" in lines
    assert any(line.startswith("conf/a.toml: ") and "symbolic links" in line for line in lines)
    assert lines[-1] == "checked 3 files: 1 fit, 2 with problems"


def test_a_search_path_holding_a_nul_byte_is_no_traceback(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A directory no file can be in: it finds nothing, and the tree is judged as without it."""
    write(tree, "conf/optim/fast.toml", "lr = 1e-3\n")
    mapping = 'search_path = ["conf\\u0000x"]\n[entrypoints]\napp = "checkapp:App"\n'
    write(tree, "compose-check.toml", mapping)
    code, lines, err = check(capsys, "conf")
    assert (code, err) == (1, "")
    assert lines[-1] == "checked 1 file: 0 fit, 1 with problems"


def test_a_fifo_or_a_device_in_the_tree_is_a_problem_never_read(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Reading a FIFO without a writer blocks for ever, /dev/zero never ends: a checked tree's
    files are regular files, and any other is named, not opened."""
    write(tree, "conf/ok.toml", "seq_len = 1\n")
    os.mkfifo(tree / "conf" / "pipe.toml")
    (tree / "conf" / "zero.toml").symlink_to("/dev/zero")
    code, lines, err = check(capsys, "--schema", "checkapp:App", "conf")
    assert (code, err) == (1, "")
    special = "is not a regular file (a FIFO, a socket or a device): not read"
    assert f"conf/pipe.toml: {special}" in lines
    assert f"conf/zero.toml: {special}" in lines
    assert lines[-1] == "checked 3 files: 1 fit, 2 with problems"


def test_a_file_named_twice_or_under_two_paths_given_is_judged_once(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "conf/a.toml", "seq_len = 'x'\n")
    write(tree, "conf/b.toml", "seq_len = 1\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "conf", "./conf", "conf/a.toml")
    assert code == 1
    assert lines[-1] == "checked 2 files: 1 fit, 1 with problems"
    assert sum(line.startswith("conf/a.toml:1:") for line in lines) == 1


def test_the_repositorys_own_conf_and_examples_fit() -> None:
    """What CI runs (`.ci/run`): every config file of the example app's tree, as the repo's
    compose-check.toml declares it, fits; a file added there must fit too, or be declared."""
    done = subprocess.run(
        [sys.executable, "-m", "compose", "check", "conf", "examples"],
        cwd=REPO,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    configs = [
        path
        for folder in ("conf", "examples")
        for path in sorted((REPO / folder).rglob("*.toml"))
        if path.name != "pyproject.toml"
    ]
    assert lines[-1] == f"checked {len(configs)} files: {len(configs)} fit, 0 with problems"
    assert "conf/optim/muon.toml: fits as trainer.optim of rl" in lines
    assert "conf/debug/trainer.toml: fits as a root config of trainer" in lines
    assert "examples/reverse_text/debug.toml: fits as an overlay of rl" in lines
    assert (
        "examples/sweeps/optim.toml: fits as a sweep of rl over @ examples/reverse_text/rl.toml"
    ) in lines


def _sweeps_over(tree: Path, base: list[str]) -> None:
    """A mapping: the files under sweeps/ are sweeps of `app` over the command line `base`."""
    rule = f'[[files]]\nmatch = ["sweeps/*"]\nsweep_over = {json.dumps(base)}\n'
    write(tree, "compose-check.toml", f'[entrypoints]\napp = "checkapp:App"\n{rule}')


def test_a_sweeps_file_has_every_point_composed_over_its_base(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "base.toml", "seq_len = 64\n")
    write(tree, "sweeps/ok.toml", "[axes]\n'trainer.steps' = [1, 2]\n")
    write(tree, "sweeps/typo.toml", "[axes]\n'trainer.stepz' = [1, 2]\n")
    write(tree, "sweeps/bad.toml", "[axes]\n'trainer.steps' = [1, 0]\n")
    _sweeps_over(tree, ["@", "base.toml"])
    code, lines, _ = check(capsys, "sweeps")
    assert code == 1
    assert lines[0].startswith("sweeps/bad.toml: point 1 (trainer.steps=0): --trainer.steps = 0: ")
    assert lines[1] == "sweeps/bad.toml: 1 problem as a sweep of app over @ base.toml"
    assert lines[2] == "sweeps/ok.toml: fits as a sweep of app over @ base.toml"
    assert lines[3] == (
        "sweeps/typo.toml:2: trainer.stepz: unknown key: the schema has no such field to sweep; "
        "did you mean trainer.steps?"
    )


def test_a_sweeps_file_past_the_size_limit_or_with_a_bad_control_is_named_at_its_line(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Counted, not expanded: three 1,000-value axes are one problem at the largest's line."""
    write(
        tree,
        "sweeps/huge.toml",
        "[axes]\n'trainer.steps' = {range = [1, 1001]}\nseq_len = {range = [1, 1001]}\n"
        "[seeds]\nkey = 'wandb.project'\nn = 1000\n",
    )
    write(tree, "sweeps/dir.toml", "[sweep]\ndir = 5\n[axes]\n'trainer.steps' = [1, 2]\n")
    _sweeps_over(tree, [])
    code, lines, _ = check(capsys, "sweeps")
    assert code == 1
    assert lines == [
        "sweeps/dir.toml:2: sweep.dir = 5: takes text (a TOML string)",
        "sweeps/dir.toml: 1 problem as a sweep of app",
        "sweeps/huge.toml:2: the sweep makes 1,000,000,000 points, past the limit of 10,000: "
        "trainer.steps (1,000) x seq_len (1,000) x wandb.project (1,000); sweep fewer values, "
        "or split it into sweeps of at most 10,000 points (each its own --sweep-name)",
        "sweeps/huge.toml: 1 problem as a sweep of app",
        "checked 2 files: 0 fit, 2 with problems",
    ]


def test_a_file_of_an_older_schema_version_is_stale_until_migrated(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The rl example is at version 2; a version-1 file still loads (migrated, with warnings),
    and check says which keys are stale and the command that updates it."""
    monkeypatch.chdir(REPO)
    code, lines, _ = check(
        capsys, "--schema", "rl_app.config.rl:RLConfig", "tests/fixtures/rl-v1.toml"
    )
    assert code == 1
    assert lines[0].startswith(
        "tests/fixtures/rl-v1.toml:10: --trainer.max-norm moved to --trainer.optim.max-norm "
        "(schema version 1 -> 2) (`compose migrate --schema rl_app.config.rl:RLConfig "
    )
    assert lines[-2] == (
        "tests/fixtures/rl-v1.toml: 2 problems as a root config of rl_app.config.rl:RLConfig"
    )


VALIDATORS = """
import warnings

from pydantic import SecretStr, field_validator

from compose import BaseConfig


class Run(BaseConfig):
    lr: float = 1e-3
    steps: int = 1
    taskset: str = "math"

    @field_validator("lr")
    @classmethod
    def _large(cls, value: float) -> float:
        if value > 0.1:
            warnings.warn(f"lr {value} is large", UserWarning, stacklevel=2)
        return value

    @field_validator("taskset")
    @classmethod
    def _installed(cls, value: str) -> str:
        if value != "math":  # as a taskset that is not installed fails to import
            raise ModuleNotFoundError(f"No module named {value!r}")
        return value


class Keyed(Run):
    token: SecretStr = SecretStr("")

    @field_validator("token")
    @classmethod
    def _known(cls, value: SecretStr) -> SecretStr:
        if value.get_secret_value() != "ok":
            raise KeyError(value.get_secret_value())
        return value
"""


@pytest.fixture
def validated(tree: Path) -> Path:
    (tree / "validated.py").write_text(VALIDATORS)
    return tree


def test_a_validator_that_raises_no_validation_error_is_that_files_problem(
    validated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pydantic stops at the first exception that is no validation error: the file cannot be
    judged, which is said of it (root or overlay alike, never "fits"), and the others still are."""
    write(validated, "a.toml", "taskset = 'nope'\n")
    write(validated, "b.toml", "steps = 2\n")
    write(validated, "c.toml", "taskset = 'nope'\nstepz = 3\n")
    mapping = (
        '[entrypoints]\nrun = "validated:Run"\n[[files]]\nmatch = ["c.toml"]\noverlay = true\n'
    )
    write(validated, "compose-check.toml", mapping)
    code, lines, err = check(capsys, "a.toml", "b.toml", "c.toml")
    assert (code, err) == (1, "")
    unjudged = (
        ": cannot be judged: a validator of the schema raised ModuleNotFoundError: No module "
        "named 'nope', which stops validation before the rest of the file is judged; fix what "
        "it refuses, or skip the file in compose-check.toml"
    )
    assert lines == [
        "a.toml" + unjudged,
        "a.toml: 1 problem as a root config of run",
        "b.toml: fits as a root config of run",
        "c.toml" + unjudged,
        "c.toml: 1 problem as an overlay of run",
        "checked 3 files: 1 fit, 2 with problems",
    ]


def test_what_a_validator_raised_is_not_quoted_where_a_secret_could_be_in_it(
    validated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(validated, "a.toml", "token = 'hunter2-secret'\n")
    code, lines, _ = check(capsys, "--schema", "validated:Keyed", "a.toml")
    assert code == 1
    assert "hunter2" not in "\n".join(lines)
    assert lines[0].startswith(
        "a.toml: cannot be judged: a validator of the schema raised KeyError,"
    )


def test_each_files_warnings_are_shown_as_its_own(
    validated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Python's default filter shows one warning per place in the code: the second file's,
    from the same validator line, would be lost, and neither would say which file it is."""
    write(validated, "a.toml", "lr = 0.5\n")
    write(validated, "b.toml", "lr = 0.7\nsteps = 'x'\nstepz = 1\n")
    code, lines, err = check(capsys, "--schema", "validated:Run", ".")
    assert (code, err) == (1, "")
    assert lines[0] == "a.toml: warning: lr 0.5 is large"
    assert lines[2] == "b.toml: warning: lr 0.7 is large"
    code, lines, _ = check(capsys, "--quiet", "--schema", "validated:Run", ".")
    assert lines[0] == "b.toml: warning: lr 0.7 is large"  # quiet: a file that fits says nothing
    assert not any(line.startswith("a.toml") for line in lines)


def test_a_files_problems_are_in_the_order_of_its_lines(
    validated: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Unknown keys and refused values alike, as an editor or a CI log reads the file."""
    write(validated, "a.toml", "steps = 'x'\nstepz = 1\nlr = 'fast'\nlrr = 2\n")
    code, lines, _ = check(capsys, "--schema", "validated:Run", "a.toml")
    assert code == 1
    assert [line.split(":")[1] for line in lines[:4]] == ["1", "2", "3", "4"]
    assert lines[-1] == "checked 1 file: 0 fit, 1 with problems"


@pytest.fixture
def nested(tree: Path) -> Iterator[Callable[[str, int], Path]]:
    """`nested(name, levels)`: `levels` directories, each in the one before, under `name` (made
    one at a time, and removed so at the end: `os.makedirs` and `shutil.rmtree`, as pytest
    cleans up with, recurse once a level)."""
    made: list[Path] = []

    def make(name: str, levels: int) -> Path:
        path = tree / name
        path.mkdir()
        for _ in range(levels):
            path = path / "d"
            path.mkdir()
            made.append(path)
        return path

    yield make
    for path in reversed(made):
        for child in path.iterdir():
            child.unlink()
        path.rmdir()


def test_a_tree_deeper_than_the_bound_is_one_error_not_a_traceback(
    nested: Callable[[str, int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """`os.walk` recursed once a level on Python 3.10 and 3.11: a RecursionError traceback."""
    (nested("deep", 1100) / "run.toml").write_text("seq_len = 1\n")
    code, lines, err = check(capsys, "--schema", "checkapp:App", "deep")
    assert (code, lines) == (2, [])
    assert err == (
        "error: deep: directories nested more than 100 levels deep: not walked; "
        "is it a config tree? name the config directories in it instead\n"
    )


def test_a_file_at_the_deepest_level_walked_is_checked(
    nested: Callable[[str, int], Path], capsys: pytest.CaptureFixture[str]
) -> None:
    (nested("deep", 100) / "run.toml").write_text("seq_len = 1\n")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "deep")
    assert (code, lines[-1]) == (0, "checked 1 file: 1 fit, 0 with problems")
    (nested("deeper", 101) / "run.toml").write_text("seq_len = 1\n")
    assert check(capsys, "--schema", "checkapp:App", "deeper")[0] == 2


def test_links_to_directories_are_not_followed(
    tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tree, "conf/run.toml", "seq_len = 1\n")
    (tree / "conf" / "loop").symlink_to(tree / "conf")
    code, lines, _ = check(capsys, "--schema", "checkapp:App", "conf")
    assert (code, lines[-1]) == (0, "checked 1 file: 1 fit, 0 with problems")
