"""`_include_` inside files (Hydra's defaults list) and the config search path (config groups).

A file names the files it builds on; they merge depth-first, before it (or where `"_self_"`
stands), each (file, mount) once; cycles are errors naming the chain. File names not found as
written are looked up in the app's directories, the working directory, then $COMPOSE_PATH.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from conftest import ROOT, run_compose
from rl_app import cli as app
from schemas import MuonConfig, RLConfig

from compose import (
    ComposeError,
    HelpRequested,
    SourceError,
    UnknownKeyError,
    cli,
    compose,
    parse,
)
from compose._input import search as _search

if TYPE_CHECKING:
    from conftest import WriteFile


@pytest.fixture(autouse=True)
def _no_compose_path(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COMPOSE_PATH", raising=False)


def error_of(argv: list[str], **kwargs: object) -> ComposeError:
    with pytest.raises(ComposeError) as info:
        parse(RLConfig, argv, **kwargs)  # type: ignore[arg-type]
    return info.value


@pytest.fixture
def pieces(write: WriteFile) -> None:
    """A conf/ folder of pieces, as an app ships them."""
    write("conf/optim/muon.toml", 'type = "muon"\nlr = 0.03\nmomentum = 0.9\n')
    write("conf/optim/adamw.toml", 'type = "adamw"\nlr = 0.001\nbetas = [0.8, 0.9]\n')
    write("conf/algo/max_rl.toml", 'type = "max_rl"\ntemperature = 0.5\n')
    write("conf/model/small.toml", 'name = "Qwen/Qwen3-0.6B"\nmax_model_len = 4096\n')


# --- order and _self_ ----------------------------------------------------------------------------


def test_bases_merge_first_in_order_then_the_file_itself(write: WriteFile) -> None:
    write("a.toml", "x = 1\ny = 1\nz = 1\n")
    write("b.toml", "y = 2\nz = 2\n")
    write("top.toml", '_include_ = ["a.toml", "b.toml"]\nz = 3\n')
    assert compose(["top.toml"]) == {"x": 1, "y": 2, "z": 3}


def test_self_places_the_files_own_keys_among_its_includes(write: WriteFile) -> None:
    write("base.toml", "x = 1\ny = 1\n")
    write("after.toml", "y = 3\n")
    write("top.toml", '_include_ = ["base.toml", "_self_", "after.toml"]\nx = 2\ny = 2\n')
    assert compose(["top.toml"]) == {"x": 2, "y": 3}


def test_self_first_lets_every_include_override_the_file(write: WriteFile) -> None:
    write("base.toml", "x = 1\n")
    write("top.toml", '_include_ = ["_self_", "base.toml"]\nx = 2\n')
    assert compose(["top.toml"]) == {"x": 1}


def test_later_nodes_still_win_over_what_an_include_set(write: WriteFile) -> None:
    write("base.toml", "seed = 1\nmax_steps = 10\n")
    write("top.toml", '_include_ = ["base.toml"]\n')
    write("overlay.toml", "max_steps = 20\n")
    config = parse(RLConfig, ["@", "top.toml", "@", "overlay.toml", "--seed", "3"])
    assert (config.seed, config.max_steps) == (3, 20)


def test_includes_nest_depth_first(write: WriteFile) -> None:
    write("leaf.toml", 'order = ["leaf"]\nleaf = 1\n')
    write("mid.toml", '_include_ = ["leaf.toml"]\norder = ["mid"]\nmid = 1\n')
    write("other.toml", 'order = ["other"]\n')
    write("top.toml", '_include_ = ["mid.toml", "other.toml"]\n')
    assert compose(["top.toml"]) == {"order": ["other"], "leaf": 1, "mid": 1}


# --- mounts --------------------------------------------------------------------------------------


def test_a_table_entry_mounts_a_file_at_a_section(pieces: None, write: WriteFile) -> None:
    write("run.toml", '_include_ = [{ "trainer.optim" = "conf/optim/muon.toml" }]\nseed = 3\n')
    config = parse(RLConfig, ["@", "run.toml"])
    assert config.trainer.optim == MuonConfig(lr=0.03, momentum=0.9)
    assert config.seed == 3


def test_a_bare_dotted_key_and_kebab_segments_mount_too(pieces: None, write: WriteFile) -> None:
    """TOML reads `{ trainer.optim = ... }` as nested tables: it means the same mount."""
    write("run.toml", '_include_ = [{ trainer.optim = "optim/muon" }]\n')
    write("kebab.toml", '_include_ = [{ "orchestrator.algo" = "algo/max_rl" }]\n')
    config = parse(RLConfig, ["@", "run.toml", "@", "kebab.toml"], search_path=["conf"])
    assert config.trainer.optim.type == "muon"
    assert config.orchestrator.algo.type == "max_rl"


def test_the_same_file_at_two_mounts_merges_at_both(write: WriteFile) -> None:
    write("piece.toml", "x = 1\n")
    write("run.toml", '_include_ = [{ a = "piece" }, { "b.c" = "piece" }, "piece"]\n')
    assert compose(["run.toml"]) == {"a": {"x": 1}, "b": {"c": {"x": 1}}, "x": 1}


def test_includes_inside_a_section_file_mount_relative_to_it(
    pieces: None, write: WriteFile
) -> None:
    write("shared.toml", "micro_batch_size = 2\n")
    write(
        "trainer.toml",
        '_include_ = ["shared.toml", { optim = "optim/muon" }]\n\n[optim]\nlr = 0.5\n',
    )
    config = parse(RLConfig, ["--trainer", "@", "trainer.toml"], search_path=["conf"])
    assert config.trainer.micro_batch_size == 2
    assert config.trainer.optim == MuonConfig(lr=0.5, momentum=0.9)


def test_an_included_section_file_that_sets_the_union_type_switches_the_variant(
    pieces: None, write: WriteFile
) -> None:
    """The piece sets `type = "muon"`; the including file's keys then apply to that variant."""
    write("trainer.toml", '_include_ = [{ optim = "optim/muon" }]\n\n[optim]\nmomentum = 0.5\n')
    config = parse(RLConfig, ["--trainer", "@", "trainer.toml"], search_path=["conf"])
    assert config.trainer.optim == MuonConfig(lr=0.03, momentum=0.5)
    argv = ["--trainer", "@", "trainer.toml", "--trainer.optim.type", "adamw"]
    with pytest.warns(UserWarning, match=r"momentum \(from trainer\.toml:4\) is dropped"):
        again = parse(RLConfig, argv, search_path=["conf"])
    assert again.trainer.optim.type == "adamw"


def test_a_union_switch_names_the_included_file_of_the_dropped_keys(
    pieces: None, write: WriteFile
) -> None:
    write("run.toml", '_include_ = [{ "trainer.optim" = "optim/adamw" }]\n')
    with pytest.warns(UserWarning, match=r"betas.*conf/optim/adamw\.toml:3"):
        parse(RLConfig, ["@", "run.toml", "--trainer.optim.type", "muon"], search_path=["conf"])


def test_a_mount_that_names_no_section_is_an_error_at_its_line(write: WriteFile) -> None:
    write("base.toml", "lr = 1\n")
    write("run.toml", '# a comment\n_include_ = [{ "trainer.optimm" = "base.toml" }]\n')
    error = error_of(["@", "run.toml"])
    assert isinstance(error, UnknownKeyError)
    assert (error.key, error.origin) == ("--trainer.optimm", "run.toml:2")
    assert "did you mean --trainer.optim?" in str(error)


def test_a_mount_on_a_value_is_an_error(write: WriteFile) -> None:
    write("base.toml", "lr = 1\n")
    write("run.toml", '_include_ = [{ "seed" = "base.toml" }]\n')
    error = error_of(["@", "run.toml"])
    assert "is a value, not a section" in str(error)
    assert error.origin == "run.toml:1"


# --- each (file, mount) once; cycles -------------------------------------------------------------


def test_a_diamond_merges_its_shared_base_once(write: WriteFile) -> None:
    """left sets x over base; right includes base again: base must not undo left's x."""
    write("base.toml", "x = 1\ny = 1\n")
    write("left.toml", '_include_ = ["base.toml"]\nx = 2\n')
    write("right.toml", '_include_ = ["base.toml"]\ny = 3\n')
    write("top.toml", '_include_ = ["left.toml", "right.toml"]\n')
    assert compose(["top.toml"]) == {"x": 2, "y": 3}
    assert compose(["left.toml", "right.toml"]) == {"x": 2, "y": 3}  # across nodes too


def test_a_file_given_as_a_node_still_merges_each_time(write: WriteFile) -> None:
    """Only includes are merged once: nodes on the command line always merge, in order."""
    write("base.toml", "x = 1\n")
    write("mid.toml", "x = 2\n")
    assert compose(["base.toml", "mid.toml", "base.toml"]) == {"x": 1}


def test_a_cycle_names_the_chain_and_the_include_line(write: WriteFile) -> None:
    write("a.toml", '_include_ = ["b.toml"]\n')
    write("b.toml", '# b includes a back\n_include_ = ["a"]\n')
    with pytest.raises(SourceError) as info:
        compose(["a.toml"])
    assert str(info.value) == "b.toml:2: includes form a cycle: a.toml -> b.toml -> a.toml"


def test_a_file_including_itself_is_a_cycle(write: WriteFile) -> None:
    write("sub/self.toml", '_include_ = ["self.toml"]\n')
    with pytest.raises(SourceError, match=r"cycle: sub/self\.toml -> sub/self\.toml$"):
        compose(["sub/self.toml"])


def test_a_cycle_through_another_mount_is_still_a_cycle(write: WriteFile) -> None:
    write("deep.toml", '_include_ = [{ "inner" = "deep.toml" }]\n')
    with pytest.raises(SourceError, match=r"deep\.toml:1: includes form a cycle"):
        compose(["deep.toml"])


# --- finding files -------------------------------------------------------------------------------


def test_include_paths_are_relative_to_the_including_file(write: WriteFile) -> None:
    write("base.toml", "where = 'cwd'\n")
    write("sub/base.toml", "where = 'sub'\n")
    write("sub/deeper/up.toml", "up = true\n")
    write("sub/top.toml", '_include_ = ["base.toml", "deeper/up"]\n')
    assert compose(["sub/top.toml"]) == {"where": "sub", "up": True}


def test_an_include_falls_back_to_the_search_path(pieces: None, write: WriteFile) -> None:
    write("runs/top.toml", '_include_ = [{ "trainer.optim" = "optim/muon" }]\n')
    config = parse(RLConfig, ["@", "runs/top.toml"], search_path=["conf"])
    assert config.trainer.optim.type == "muon"


def test_names_without_a_suffix_find_toml_json_and_yaml(write: WriteFile) -> None:
    write("conf/a.toml", "a = 1\n")
    write("conf/b.json", json.dumps({"b": 2}))
    assert compose(["a", "b"], search_path=["conf"]) == {"a": 1, "b": 2}


def test_search_path_takes_one_directory_or_several(write: WriteFile, tmp_path: Path) -> None:
    write("conf/a.toml", "a = 1\n")
    write("more/b.toml", "b = 2\n")
    assert compose(["a"], search_path="conf") == {"a": 1}
    assert compose(["a", "b"], search_path=[tmp_path / "conf", Path("more")]) == {"a": 1, "b": 2}


def test_a_name_that_exists_as_written_wins_over_the_search_path(write: WriteFile) -> None:
    write("conf/optim/muon.toml", "where = 'conf'\n")
    write("optim/muon.toml", "where = 'cwd'\n")
    assert compose(["optim/muon.toml"], search_path=["conf"]) == {"where": "cwd"}
    assert compose(["optim/muon"], search_path=["conf"]) == {"where": "conf"}


def test_a_directory_of_that_name_gives_way_to_a_file_on_the_search_path(
    write: WriteFile,
) -> None:
    """`@ optim` with a directory `optim` here and `conf/optim.toml`: the file is read."""
    write("optim/muon.toml", "where = 'cwd'\n")
    write("conf/optim.toml", "where = 'conf'\n")
    assert compose(["optim"], search_path=["conf"]) == {"where": "conf"}


def test_the_search_order_is_app_dirs_then_cwd_then_compose_path(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    write("app/first.toml", "from = 'app'\n")
    write("app2/second.toml", "from = 'app2'\n")
    write("third.toml", "from = 'cwd'\n")
    write("env/third.toml", "from = 'env'\n")
    write("env/fourth.toml", "from = 'env'\n")
    write("env2/fourth.toml", "from = 'env2'\n")
    monkeypatch.setenv("COMPOSE_PATH", os.pathsep.join(["env", "", "env2"]))
    dirs = ["app", "app2"]
    assert compose(["first"], search_path=dirs) == {"from": "app"}
    assert compose(["second"], search_path=dirs) == {"from": "app2"}
    assert compose(["third"], search_path=dirs) == {"from": "cwd"}
    assert compose(["fourth"], search_path=dirs) == {"from": "env"}


def test_the_working_directory_comes_before_compose_path(
    write: WriteFile, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    write("elsewhere/optim/muon.toml", "where = 'env'\n")
    write("optim/muon.toml", "where = 'cwd'\n")
    monkeypatch.setenv("COMPOSE_PATH", str(tmp_path / "elsewhere"))
    assert compose(["optim/muon"]) == {"where": "cwd"}
    os.remove("optim/muon.toml")
    assert compose(["optim/muon"]) == {"where": "env"}


def test_every_file_name_uses_the_search_path(pieces: None) -> None:
    """`@ NAME`, `--section @ NAME`, `compose([NAME])` and override `key=@NAME` alike."""
    argv = ["--trainer.model", "@", "model/small", "--trainer.optim", "@", "optim/muon"]
    argv.append("--orchestrator.algo=@algo/max_rl")
    config = parse(RLConfig, argv, search_path=["conf"])
    assert config.trainer.model.max_model_len == 4096
    assert (config.trainer.optim.type, config.orchestrator.algo.type) == ("muon", "max_rl")
    composed = compose(
        ["model/small"], ["trainer.optim=@optim/adamw"], schema=None, search_path=["conf"]
    )
    assert composed["trainer"]["optim"]["type"] == "adamw"


def test_a_name_found_nowhere_says_where_it_looked_and_what_is_close(
    pieces: None, tmp_path: Path
) -> None:
    error = error_of(["--trainer.optim", "@", "optim/muonn"], search_path=["conf"])
    assert isinstance(error, SourceError)
    assert str(error) == (
        f"optim/muonn: file not found; looked in {tmp_path / 'conf'}, {tmp_path}; "
        "did you mean optim/muon?"
    )


def test_did_you_mean_keeps_the_suffix_the_user_typed(pieces: None) -> None:
    with pytest.raises(SourceError, match=r"did you mean optim/adamw\.toml\?$"):
        compose(["optim/adamv.toml"], search_path=["conf"])


def test_no_suggestion_for_a_merely_similar_longer_name(write: WriteFile) -> None:
    write("missing_ref.toml", "x = 1\n")
    with pytest.raises(SourceError) as info:
        compose(["missing.toml"])
    assert info.value.hint == f"looked in {os.getcwd()}"


def test_an_include_found_nowhere_names_the_entry_and_its_line(
    pieces: None, tmp_path: Path
) -> None:
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "top.toml").write_text('\n_include_ = ["optim/muonn"]\n')
    error = error_of(["@", "runs/top.toml"], search_path=["conf"])
    assert (error.value, error.origin) == ("optim/muonn", "runs/top.toml:2")
    assert error.hint == (
        f"looked in {tmp_path / 'runs'}, {tmp_path / 'conf'}, {tmp_path}; did you mean optim/muon?"
    )


# --- origins -------------------------------------------------------------------------------------


def test_show_origins_names_the_included_files(
    pieces: None, write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("base.toml", "seed = 1\nmax_steps = 5\n")
    write("run.toml", '_include_ = ["base.toml", { "trainer.optim" = "optim/muon" }]\nseed = 2\n')
    code, out, err = run_compose(
        capsys, "show", "--origins", "--search-path", "conf", "@", "run.toml"
    )
    assert (code, err) == (0, "")
    assert out == (
        "seed = 2  # run.toml:2\n"
        "max_steps = 5  # base.toml:2\n"
        "\n"
        "[trainer.optim]\n"
        'type = "muon"  # conf/optim/muon.toml:1\n'
        "lr = 0.03  # conf/optim/muon.toml:2\n"
        "momentum = 0.9  # conf/optim/muon.toml:3\n"
    )


def test_an_error_in_an_included_value_names_the_included_file(
    pieces: None, write: WriteFile
) -> None:
    write("bad.toml", "momentum = 'fast'\n")
    write(
        "run.toml",
        '_include_ = [{ "trainer.optim" = "optim/muon" }, { "trainer.optim" = "bad" }]\n',
    )
    error = error_of(["@", "run.toml"], search_path=["conf"])
    assert (error.key, error.origin) == ("--trainer.optim.momentum", "bad.toml:1")


def test_an_unknown_key_in_an_included_file_names_that_file(write: WriteFile) -> None:
    write("base.toml", "# the base\nsede = 1\n")
    write("run.toml", '_include_ = ["base.toml"]\n')
    error = error_of(["@", "run.toml"])
    assert (error.key, error.origin) == ("--sede", "base.toml:2")


def test_explain_names_the_included_file_that_set_the_key(
    pieces: None, write: WriteFile, capsys: pytest.CaptureFixture[str]
) -> None:
    write("run.toml", '_include_ = [{ "trainer.optim" = "optim/muon" }]\n')
    argv = ["explain", "--search-path", "conf", "trainer.optim.lr", "@", "run.toml"]
    code, out, _ = run_compose(capsys, *argv, "--trainer.optim.lr", "0.5")
    assert code == 0
    assert out.splitlines()[1].split() == ["conf/optim/muon.toml:2", "0.03"]
    assert out.splitlines()[2].split() == ["--trainer.optim.lr", "0.5"]


def test_diff_takes_the_search_path(pieces: None, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["diff", "--search-path=conf", "@", "optim/muon", "--", "@", "optim/adamw"]
    code, out, _ = run_compose(capsys, *argv)
    assert code == 1
    assert "type: 'muon' (conf/optim/muon.toml:1) -> 'adamw' (conf/optim/adamw.toml:1)" in out


def test_search_path_is_not_an_option_of_schema(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run_compose(capsys, "schema", "--search-path", "conf", "schemas:RLConfig")
    assert code == 2
    assert "--search-path: is not an option of compose schema" in err


# --- bad _include_ values ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('_include_ = "base.toml"\n', "_include_ must be a list of entries"),
        ("_include_ = [3]\n", "is not an _include_ entry"),
        ('_include_ = [{ a = "x.toml", b = "y.toml" }]\n', "is not an _include_ entry"),
        ('_include_ = [""]\n', "is not an _include_ entry"),
        ('_include_ = ["_self_", "_self_"]\n', "_self_ appears more than once"),
    ],
)
def test_a_malformed_include_list_is_an_error(write: WriteFile, text: str, message: str) -> None:
    write("run.toml", "# a comment\n" + text)
    with pytest.raises(SourceError, match=message) as info:
        compose(["run.toml"])
    assert info.value.origin == "run.toml:2"


def test_include_is_reserved_only_at_the_top(write: WriteFile) -> None:
    write("run.toml", '[trainer]\n_include_ = ["x.toml"]\n')
    with pytest.raises(UnknownKeyError, match=r"--trainer\._include_ = .*unknown key"):
        parse(RLConfig, ["@", "run.toml"])


# --- the search path of an entrypoint ------------------------------------------------------------


def test_cli_finds_pieces_and_help_lists_them(
    pieces: None, capsys: pytest.CaptureFixture[str]
) -> None:
    config = cli(RLConfig, ["--trainer.optim", "@", "optim/muon"], search_path=["conf"])
    assert config.trainer.optim.type == "muon"
    with pytest.raises(SystemExit):
        cli(RLConfig, ["--help"], prog="rl", search_path=["conf"])
    out = capsys.readouterr().out
    assert "  pieces: optim/adamw, optim/muon (--trainer.optim @ optim/NAME)\n" in out
    assert "  pieces: algo/max_rl (--orchestrator.algo @ algo/NAME)\n" in out
    assert "  pieces: model/small (--trainer.model @ model/NAME)\n" in out


def test_help_lists_pieces_only_for_sections_named_like_a_folder(
    pieces: None, write: WriteFile
) -> None:
    write("conf/debug/rl.toml", "seed = 1\n")
    with pytest.raises(HelpRequested) as info:
        parse(RLConfig, ["--help"], search_path=["conf"])
    text = info.value.text
    assert text.count("pieces:") == 3  # trainer.optim, trainer.model, orchestrator.algo
    assert "debug/" not in text
    with pytest.raises(HelpRequested) as narrowed:
        parse(RLConfig, ["@", "optim/muon", "--help", "trainer.optim"], search_path=["conf"])
    assert "(values not shown" in narrowed.value.text  # a root piece: its keys are not root keys
    assert "pieces: optim/adamw, optim/muon" in narrowed.value.text


def test_help_finds_pieces_in_a_directory_too_large_to_list(
    pieces: None, write: WriteFile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Help lists each search directory once; where the listing stops short, it asks for each
    section's folder by name instead, so a crowded directory hides no pieces."""
    for index in range(5):
        write(f"conf/aaa{index}.toml", "seed = 1\n")
    monkeypatch.setattr(_search, "_MAX_LISTED", 2)  # two of conf/'s 8 entries: a group unseen
    with pytest.raises(HelpRequested) as info:
        parse(RLConfig, ["--help"], search_path=["conf"])
    assert "pieces: optim/adamw, optim/muon (--trainer.optim @ optim/NAME)" in info.value.text
    assert info.value.text.count("pieces:") == 3


def test_help_after_files_found_on_the_search_path_shows_their_values(pieces: None) -> None:
    with pytest.raises(HelpRequested) as info:
        parse(
            RLConfig,
            ["--trainer.optim", "@", "optim/muon", "--help", "trainer.optim"],
            search_path=["conf"],
        )
    assert "(= 0.03, from conf/optim/muon.toml:2)" in info.value.text


def test_rl_app_finds_its_conf_pieces_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    app.rl(["@", "debug/rl_lora", "--trainer.optim", "@", "optim/muon", "--dry-run"])
    written = (tmp_path / "outputs" / "debug" / "configs" / "trainer.toml").read_text()
    assert 'type = "muon"' in written and "rank = 4" in written
    with pytest.raises(SystemExit):
        app.rl(["--help", "trainer.optim"])
    assert (
        "pieces: optim/adamw, optim/muon (--trainer.optim @ optim/NAME)" in capsys.readouterr().out
    )


def test_rl_lora_includes_the_debug_run_it_builds_on() -> None:
    lora = ROOT / "conf" / "debug" / "rl_lora.toml"
    alone = compose([lora])
    assert alone["orchestrator"]["batch_size"] == 8  # from rl.toml, through the include
    assert alone["trainer"]["model"]["lora"] == {"rank": 4, "alpha": 8}
