"""Shell completion of entrypoints (`compose._cli.complete`), on the example `rl` app's schema.

The candidates for the word at the cursor, given the words before it; what bash is handed
(cut after a `=`, quoted); the scripts (`compose completion SHELL PROG`, `_COMPOSE_COMPLETE=
SHELL PROG`); bash running its script as it does on TAB; and the cost discipline: completing
imports neither rich nor the composition engine, and a normal run never imports completion.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import ROOT, VENV_BIN, run_command, run_python
from rl_app.config import RLConfig

from compose import ArgvError, cli
from compose._cli.complete import (
    FILES,
    NOSPACE,
    PLAIN,
    Reply,
    bash_reply,
    complete,
    completion_script,
    split_line,
)

CONF = str(ROOT / "conf")

ALGOS = ["grpo", "max_rl", "opd", "opsd", "sft", "echo"]


@pytest.fixture(autouse=True)
def _empty_workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An empty working directory (it is on the search path) and no $COMPOSE_PATH."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("COMPOSE_PATH", raising=False)


def rl(current: str, *words: str) -> Reply:
    return complete(RLConfig, list(words), current, (CONF,))


def candidates(current: str, *words: str) -> list[str]:
    return rl(current, *words).candidates


# --- flags --------------------------------------------------------------------------------------


def test_a_section_prefix_lists_that_sections_fields() -> None:
    found = candidates("--trainer.optim.")
    assert {"--trainer.optim.type", "--trainer.optim.lr", "--trainer.optim.weight-decay"} <= set(
        found
    )
    assert all(flag.startswith("--trainer.optim.") for flag in found)
    assert candidates("--trainer.optim.l") == ["--trainer.optim.lr"]


def test_flags_complete_one_segment_at_a_time() -> None:
    assert rl("--tr") == Reply(PLAIN, ["--trainer."])
    top = candidates("--")
    assert {"--trainer.", "--orchestrator.", "--dry-run", "--output-dir", "--help"} <= set(top)
    assert not [flag for flag in top if flag.count(".") > 1 or flag.startswith("--no-")]


def test_optional_sections_offer_on_off_and_their_fields() -> None:
    assert candidates("--inf") == ["--inference.", "--inference"]
    assert "--no-inference" in candidates("--no-")


def test_no_forms_for_bools_and_optional_sections_once_a_segment_is_begun() -> None:
    found = candidates("--n")
    assert {"--no-dry-run", "--no-clean", "--no-inference", "--no-wandb"} <= set(found)
    assert "--no-max-steps" not in found  # an int: --no- does not apply
    assert "--trainer.model.no-lora" in candidates("--trainer.model.no-")
    assert candidates("--trainer.model.no-t") == ["--trainer.model.no-trust-remote-code"]


def test_snake_case_is_answered_in_kind() -> None:
    assert candidates("--trainer.max_s") == ["--trainer.max_steps"]


def test_a_union_offers_every_variants_fields_until_one_is_chosen() -> None:
    every = candidates("--orchestrator.algo.")
    assert {"--orchestrator.algo.baseline", "--orchestrator.algo.teacher."} <= set(every)
    chosen = candidates("--orchestrator.algo.", "--orchestrator.algo.type", "opd")
    assert "--orchestrator.algo.teacher." in chosen
    assert "--orchestrator.algo.baseline" not in chosen
    also_with_equals = candidates("--orchestrator.algo.b", "--orchestrator.algo.type=sft")
    assert also_with_equals == []


def test_a_list_of_sections_offers_its_elements() -> None:
    assert candidates("--orchestrator.e") == [
        "--orchestrator.env",
        "--orchestrator.env.0.",
        "--orchestrator.eval.",
        "--orchestrator.eval",
    ]
    assert candidates("--orchestrator.env.0.i") == ["--orchestrator.env.0.id"]


def test_unknown_prefixes_offer_nothing() -> None:
    assert candidates("--trainer.nope.") == []
    assert candidates("--max-steps.") == []


def test_a_dash_offers_the_flags_and_an_empty_word_also_a_file() -> None:
    assert set(candidates("-")) == set(candidates("--"))
    empty = candidates("")
    assert empty[0] == "@"
    assert empty[1:] == candidates("--")


def test_deletions_name_sections_and_keys() -> None:
    assert candidates("~tr") == ["~trainer.", "~trainer"]
    assert candidates("~trainer.optim.l") == ["~trainer.optim.lr"]


def test_help_takes_a_section() -> None:
    assert candidates("tr", "--help") == ["trainer"]
    assert candidates("trainer.o", "-h") == ["trainer.optim"]


# --- values -------------------------------------------------------------------------------------


def test_a_union_tag_takes_the_variant_names() -> None:
    assert rl("", "--orchestrator.algo.type") == Reply(PLAIN, ALGOS)
    assert candidates("op", "--orchestrator.algo.type") == ["opd", "opsd"]
    assert candidates("--orchestrator.algo.type=o") == [
        "--orchestrator.algo.type=opd",
        "--orchestrator.algo.type=opsd",
    ]


def test_literal_and_bool_choices() -> None:
    assert candidates("", "--trainer.log.level") == ["debug", "info", "warning", "error"]
    assert candidates("", "--dry-run") == ["true", "false"]
    assert candidates("--dry-run=f") == ["--dry-run=false"]


def test_a_value_given_ends_the_flag() -> None:
    after = candidates("", "--trainer.log.level", "info")
    assert after[0] == "@"
    assert "--trainer." in after


def test_a_negation_takes_no_value() -> None:
    assert candidates("", "--no-dry-run")[0] == "@"


def test_a_section_flag_takes_a_file_or_its_alternative() -> None:
    assert rl("", "--trainer.optim") == Reply(PLAIN, ["@"])
    assert candidates("", "--orchestrator.algo.sampling.source") == ["@", "policy"]


def test_a_path_field_is_left_to_the_shells_file_completion() -> None:
    assert rl("", "--output-dir") == Reply(FILES, [])
    assert rl("out", "--trainer.log.level", "info", "--output-dir") == Reply(FILES, [])


def test_an_open_value_offers_nothing_not_even_files() -> None:
    assert rl("", "--max-steps") == Reply(PLAIN, [])
    assert rl("", "--trainer.model.name") == Reply(PLAIN, [])


def test_an_unknown_flag_is_left_to_the_shell() -> None:
    assert rl("", "--bogus") == Reply(FILES, [])


# --- files --------------------------------------------------------------------------------------


def test_after_at_the_search_paths_pieces_and_the_shells_files() -> None:
    reply = rl("", "@")
    assert reply.mode == FILES
    assert {"optim/muon", "algo/opd", "debug/rl", "model/qwen3-4b"} <= set(reply.candidates)
    assert rl("optim/", "@") == Reply(FILES, ["optim/adamw", "optim/muon"])
    assert rl("examples/", "@") == Reply(FILES, [])  # the shell completes it


def test_after_a_section_at_that_sections_pieces_first() -> None:
    assert rl("", "--trainer.optim", "@") == Reply(FILES, ["optim/adamw", "optim/muon"])
    everything = rl("", "--trainer", "@").candidates
    assert "debug/trainer" in everything
    assert "optim/muon" in everything
    # what is typed decides when the section's own directory has nothing like it
    assert rl("debug/t", "--trainer.optim", "@").candidates == ["debug/trainer"]


def test_a_search_path_piece_found_through_compose_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    extra = tmp_path / "more" / "optim"
    extra.mkdir(parents=True)
    (extra / "lion.yaml").write_text("type: adamw\n", encoding="utf-8")
    monkeypatch.setenv("COMPOSE_PATH", str(tmp_path / "more"))
    assert rl("", "--trainer.optim", "@").candidates == ["optim/adamw", "optim/lion", "optim/muon"]


def test_a_file_glued_to_at_is_listed_here(tmp_path: Path) -> None:
    (tmp_path / "my run.toml").write_text("", encoding="utf-8")
    (tmp_path / "runs").mkdir()
    (tmp_path / ".hidden.toml").write_text("", encoding="utf-8")
    assert candidates("@")[:2] == ["@my run.toml", "@runs/"]
    assert candidates("@r") == ["@runs/"]
    assert candidates("@.h") == ["@.hidden.toml"]
    assert candidates("--trainer.optim=@optim/m") == ["--trainer.optim=@optim/muon"]
    assert candidates("@optim/", "--trainer.optim") == ["@optim/adamw", "@optim/muon"]


# --- what bash is handed ------------------------------------------------------------------------


def test_lines_split_as_the_shell_splits_them() -> None:
    assert split_line("rl --a.b x") == ["rl", "--a.b", "x"]
    assert split_line("rl --a.b ") == ["rl", "--a.b", ""]
    assert split_line('rl @ "my r') == ["rl", "@", "my r"]
    assert split_line("rl @ my\\ r") == ["rl", "@", "my r"]
    assert split_line("rl @ 'my ") == ["rl", "@", "my "]
    assert split_line("rl") == ["rl"]


def bash(line: str, replaced: str) -> Reply:
    return bash_reply(RLConfig, [line, replaced], (CONF,))


def test_bash_gets_what_readline_replaces_after_an_equals_sign() -> None:
    assert bash("rl --trainer.optim.type=", "") == Reply(PLAIN, ["adamw", "muon", "sgd"])
    assert bash("rl --trainer.optim.type=m", "m") == Reply(PLAIN, ["muon"])
    assert bash("rl --trainer.optim.l", "--trainer.optim.l") == Reply(PLAIN, ["--trainer.optim.lr"])


def test_bash_keeps_going_after_a_section() -> None:
    assert bash("rl --tr", "--tr") == Reply(NOSPACE, ["--trainer."])
    assert bash("rl --dry-run=", "").mode == PLAIN


def test_bash_candidates_are_quoted(tmp_path: Path) -> None:
    (tmp_path / "my run.toml").write_text("", encoding="utf-8")
    assert bash("rl @my", "@my") == Reply(PLAIN, ["@my\\ run.toml"])


# --- the scripts --------------------------------------------------------------------------------


def test_scripts_refuse_what_they_cannot_name() -> None:
    with pytest.raises(ArgvError, match="tcsh"):
        completion_script("tcsh", "rl")
    with pytest.raises(ArgvError, match="program name"):
        completion_script("bash", "rl; rm -rf ~")


def test_the_compose_command_prints_the_entrypoints_script() -> None:
    env = _env(_COMPOSE_COMPLETE="bash")
    script = completion_script("bash", "rl")
    assert run_command(["rl"], env=env) == (0, script, "")
    assert run_command(["compose", "completion", "bash", "rl"], env=_env()) == (0, script, "")


def test_the_bash_script_parses() -> None:
    _, script, _ = run_command(["compose", "completion", "bash", "rl"], env=_env())
    assert run_command(["bash", "-n"], env=_env(), input=script) == (0, "", "")
    assert "complete -o default -F _compose_complete_rl rl" in script


@pytest.mark.parametrize("shell", ["zsh", "fish"])
def test_the_zsh_and_fish_scripts(shell: str) -> None:
    script = completion_script(shell, "rl")
    if shell == "zsh":
        assert script.startswith("#compdef rl\n")
        assert "    compdef _compose_complete_rl rl\n" in script
        assert "_COMPOSE_COMPLETE=complete_zsh" in script
    else:
        assert "complete -c rl -f -a '(_compose_complete_rl)'" in script
        assert "_COMPOSE_COMPLETE=complete_fish" in script
    if shutil.which(shell) is None:
        pytest.skip(f"{shell} is not installed: only the script's text is checked")
    assert run_command([shell, "-n"], env=_env(), input=script) == (0, "", "")


def test_an_unknown_instruction_is_an_error() -> None:
    assert run_command(["rl"], env=_env(_COMPOSE_COMPLETE="complete_tcsh")) == (
        2,
        "",
        "error: _COMPOSE_COMPLETE=complete_tcsh: expected one of bash, zsh, fish, "
        "complete_bash, complete_zsh, complete_fish\n",
    )


def test_cli_answers_before_parsing(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("_COMPOSE_COMPLETE", "complete_fish")
    with pytest.raises(SystemExit) as stop:
        cli(RLConfig, ["--orchestrator.algo.type", "o"], prog="rl")
    assert stop.value.code == 0
    assert capsys.readouterr().out == "plain\nopd\nopsd\n"


# --- bash, as on TAB ----------------------------------------------------------------------------

_TAB = """\
eval "$(_COMPOSE_COMPLETE=bash rl)"
compopt() { echo "compopt $*"; }  # the builtin works only inside a real completion
COMP_LINE=$1
COMP_POINT=${#COMP_LINE}
read -r -a COMP_WORDS <<< "$2"
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
[[ $COMP_LINE == *" " ]] && COMP_WORDS+=("") && COMP_CWORD=$((COMP_CWORD + 1))
_compose_complete_rl rl "$3" "${COMP_WORDS[COMP_CWORD - 1]}"
((${#COMPREPLY[@]} == 0)) || printf '%s\\n' "${COMPREPLY[@]}"
"""


def press_tab(line: str, words: str, replaced: str | None = None) -> list[str]:
    """What the completion function does for `line`, which bash splits into `words` (breaking
    at `=`), readline replacing the text `replaced` (by default the last word): the compopt
    calls it makes, then COMPREPLY."""
    if replaced is None:
        replaced = "" if line.endswith(" ") else line.rsplit(maxsplit=1)[-1]
    code, out, err = run_command(["bash", "-c", _TAB, "tab", line, words, replaced], env=_env())
    assert (code, err) == (0, ""), err
    return out.splitlines()


def test_bash_completes_a_flag() -> None:
    assert press_tab("rl --trainer.optim.l", "rl --trainer.optim.l") == ["--trainer.optim.lr"]


def test_bash_continues_a_section_without_a_space() -> None:
    assert press_tab("rl --tr", "rl --tr") == ["compopt -o nospace", "--trainer."]


def test_bash_completes_a_value_after_an_equals_sign() -> None:
    line = "rl --orchestrator.algo.type="
    assert press_tab(line, "rl --orchestrator.algo.type =", "") == ALGOS


def test_bash_offers_no_file_names_for_an_open_value() -> None:
    assert press_tab("rl --max-steps ", "rl --max-steps") == ["compopt +o default"]


def test_bash_adds_its_own_file_names_to_the_pieces(tmp_path: Path) -> None:
    (tmp_path / "optim-notes.toml").write_text("", encoding="utf-8")
    assert press_tab("rl @ opt", "rl @ opt") == [
        "compopt -o filenames",
        "optim/adamw",
        "optim/muon",
        "optim-notes.toml",
    ]


def test_bash_leaves_a_path_to_its_default_completion() -> None:
    assert press_tab("rl --output-dir ", "rl --output-dir") == []


# --- what completing costs ----------------------------------------------------------------------

_IMPORTS = """\
import os, sys
{setup}
from rl_app.cli import rl
try:
    rl({argv!r})
except SystemExit:
    pass
loaded = [m for m in ("rich", "compose._api", "compose._cli.complete") if m in sys.modules]
print("loaded:", *loaded)
"""


def _loaded(setup: str, argv: list[str]) -> str:
    code = _IMPORTS.format(setup=setup, argv=argv)
    status, out, err = run_python(code, env=_env())
    assert status == 0, err
    return out.splitlines()[-1]


def test_completing_imports_neither_rich_nor_the_engine() -> None:
    setup = "os.environ['_COMPOSE_COMPLETE'] = 'complete_bash'"
    assert _loaded(setup, ["rl --trainer.", "--trainer."]) == "loaded: compose._cli.complete"


def test_a_normal_run_never_imports_completion() -> None:
    assert "compose._cli.complete" not in _loaded("", ["--help"])
    assert "compose._cli.complete" not in _loaded("", ["--dry-run", "--output-dir", "out"])


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("_COMPOSE_COMPLETE", "COMPOSE_PATH")}
    env["PATH"] = f"{VENV_BIN}{os.pathsep}{env.get('PATH', '')}"
    return {**env, **extra}
