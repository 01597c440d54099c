"""A Hydra tree's command lines composed by hydra-core and by `compose_hydra`, case by case.

    python benchmarks/hydra_compare.py TREE CONFIG_NAME LINES [--time ROUNDS]

A development runner, for checking compose against a real project's tree (kept outside the
repository: never copy one in). LINES is a file of command lines, one a line, as a user
types them after the app's name: `db=mysql trainer.lr=1e-3 +x=1`, shell quoting allowed;
blank lines and lines starting with `#` are skipped, a line `--` is the primary with no
overrides, `-m ` (or `--multirun `) in front makes a sweep. Each line is composed by
hydra-core 1.3.8 (`initialize_config_dir` + `compose`, `version_base="1.3"`, resolved, its
`hydra` node dropped, as `hydra_trees.py` does) and by `compose_hydra` (`multirun=True` for a
sweep, against Hydra's BasicSweeper expansion, each job composed), and printed as one of:

- `agree`: the same config (for a sweep: the same jobs, in order, the same configs);
- `differ`: the first key whose value differs, and both values;
- `both error`: both refused it (both messages, to read whether compose's is the clearer);
- `hydra error` / `compose error`: only one refused it (the message).

`--time ROUNDS` then times both on each single-run line that agreed, the `hydra_trees.py`
way (one process, the two in turn, medians over rounds). It runs in the side venv
`.venv-hydra` of `hydra_trees.py` (made there when missing). Exit status 1 if any line
differs or only one side refused it.
"""

from __future__ import annotations

import argparse
import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from hydra_trees import hydra_compose, inside, measure_one, side_python

MULTIRUN_FLAGS = ("-m", "--multirun")


def read_lines(path: Path) -> list[dict[str, Any]]:
    """The cases of a LINES file: the overrides of each line, and whether it is a sweep."""
    cases = []
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not text.strip() or text.lstrip().startswith("#"):
            continue
        words = [word for word in shlex.split(text) if word != "--"]
        multirun = bool(words) and words[0] in MULTIRUN_FLAGS
        cases.append(
            {"line": number, "overrides": words[1:] if multirun else words, "multirun": multirun}
        )
    return cases


def first_difference(ours: Any, theirs: Any, path: str = "") -> tuple[str, Any, Any] | None:
    """The first key (in Hydra's order) where two configs differ: (key, ours, Hydra's)."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in [*theirs, *(k for k in ours if k not in theirs)]:
            where = f"{path}.{key}" if path else str(key)
            if key not in ours or key not in theirs:
                return where, ours.get(key, "<missing>"), theirs.get(key, "<missing>")
            found = first_difference(ours[key], theirs[key], where)
            if found:
                return found
        return None
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (a, b) in enumerate(zip(ours, theirs, strict=True)):
            found = first_difference(a, b, f"{path}[{index}]")
            if found:
                return found
        return None
    # 1 == 1.0 == True in Python: a type that differs is a difference too
    if ours != theirs or type(ours) is not type(theirs):
        return path or "<root>", ours, theirs
    return None


# ---------------------------------------------------------------- in the side venv


def hydra_multirun(directory: str, name: str, overrides: list[str]) -> Any:
    """The jobs as Hydra's BasicSweeper expands them, each composed: [(job, config), ...]."""
    from hydra import initialize_config_dir  # noqa: PLC0415  # the side venv only
    from hydra._internal.core_plugins.basic_sweeper import (  # noqa: PLC0415  # side venv
        BasicSweeper,
    )
    from hydra.core.global_hydra import GlobalHydra  # noqa: PLC0415  # the side venv only
    from hydra.core.override_parser.overrides_parser import (  # noqa: PLC0415  # side venv
        OverridesParser,
    )

    with inside(directory), initialize_config_dir(config_dir=directory, version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        parsed = OverridesParser.create(config_loader=loader).parse_overrides(overrides)
        # the sweeper's own `hydra.*` overrides are no job's; compose_hydra leaves them out too
        parsed = [o for o in parsed if not o.key_or_group.startswith("hydra")]
        jobs = [list(job) for batch in BasicSweeper.split_arguments(parsed, None) for job in batch]
    return [(job, hydra_compose(directory, name, job)) for job in jobs]


def ours_call(directory: str, name: str, overrides: list[str], multirun: bool) -> Any:
    import compose  # noqa: PLC0415  # the side venv's own install

    with inside(directory):
        found = compose.compose_hydra(directory, name, overrides, multirun=multirun)
    return [(list(job), config) for job, config in found] if multirun else found


def outcome(call: Any) -> tuple[Any, str | None]:
    """(result, None) or (None, the error's text, its type named)."""
    try:
        return call(), None
    except Exception as error:  # any refusal is an outcome to print
        return None, f"{type(error).__name__}: {error}"


def compare(directory: str, name: str, case: dict[str, Any]) -> dict[str, Any]:
    overrides, multirun = case["overrides"], case["multirun"]
    theirs, hydra_error = outcome(
        lambda: (hydra_multirun if multirun else hydra_compose)(directory, name, overrides)
    )
    ours, compose_error = outcome(lambda: ours_call(directory, name, overrides, multirun))
    found: dict[str, Any] = {**case, "hydra_error": hydra_error, "compose_error": compose_error}
    if hydra_error and compose_error:
        found["verdict"] = "both error"
    elif hydra_error or compose_error:
        found["verdict"] = "hydra error" if hydra_error else "compose error"
    else:
        difference = first_difference(ours, theirs)
        found["verdict"] = "differ" if difference else "agree"
        found["difference"] = difference
        if multirun:
            found["jobs"] = len(theirs)
    return found


def child(args: argparse.Namespace) -> int:
    import warnings  # noqa: PLC0415  # the side venv's process only

    warnings.simplefilter("ignore")  # both systems warn of a primary without _self_
    directory = str(Path(args.tree).resolve())
    results = [compare(directory, args.config_name, case) for case in read_lines(args.lines)]
    timed = []
    if args.time:
        for found in results:
            if found["verdict"] == "agree" and not found["multirun"]:
                workload = {
                    "name": f"line {found['line']}",
                    "dir": directory,
                    "config_name": args.config_name,
                    "overrides": found["overrides"],
                    "rounds": args.time,
                }
                timed.append(measure_one(workload))
    print(json.dumps({"results": results, "timed": timed}, default=repr))
    return 0


# ---------------------------------------------------------------- the report


def show(value: Any, width: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def report(result: dict[str, Any]) -> list[str]:
    lines = []
    for found in result["results"]:
        head = f"line {found['line']}{' (-m)' if found['multirun'] else ''}: {found['verdict']}"
        if found["verdict"] == "agree" and found["multirun"]:
            head += f" ({found['jobs']} jobs)"
        lines.append(head)
        if found["verdict"] == "differ":
            key, ours, theirs = found["difference"]
            lines.append(f"    {key}: compose {show(ours)}, hydra {show(theirs)}")
        for side in ("hydra", "compose"):
            if found[f"{side}_error"]:
                lines.append(f"    {side}: {found[f'{side}_error']}")
    counts: dict[str, int] = {}
    for found in result["results"]:
        counts[found["verdict"]] = counts.get(found["verdict"], 0) + 1
    lines.append(
        f"{len(result['results'])} lines: "
        + ", ".join(f"{count} {verdict}" for verdict, count in sorted(counts.items()))
    )
    for timed in result["timed"]:
        lines.append(
            f"{timed['name']}: compose {timed['compose_s'] * 1e3:.2f} ms, hydra "
            f"{timed['hydra_s'] * 1e3:.1f} ms, hydra / compose {timed['ratio']:.1f}x"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("tree", type=Path, help="the config directory")
    parser.add_argument("config_name", help="the primary config's name")
    parser.add_argument("lines", type=Path, help="a file of command lines, one a line")
    parser.add_argument("--time", type=int, default=0, metavar="ROUNDS", help="time agreeing lines")
    parser.add_argument("--json", type=Path, help="also write the results here")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # side venv
    args = parser.parse_args(argv)
    if args.child:
        return child(args)
    command = [str(side_python()), str(Path(__file__).resolve()), "--child"]
    command += [str(args.tree.resolve()), args.config_name, str(args.lines.resolve())]
    command += ["--time", str(args.time)]
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    if done.returncode != 0 or not done.stdout.strip():
        print((done.stderr or done.stdout)[-3000:], file=sys.stderr)
        return 2
    result = json.loads(done.stdout.splitlines()[-1])
    if args.json:
        args.json.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print("\n".join(report(result)))
    bad = {"differ", "hydra error", "compose error"}
    return 1 if any(found["verdict"] in bad for found in result["results"]) else 0


if __name__ == "__main__":
    sys.exit(main())
