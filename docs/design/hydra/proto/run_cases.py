"""Run the prototype over every non-legacy case of cases.json and compare with Hydra 1.3.8.

    cd /work/helpers/hydra && /work/main/.venv/bin/python -m proto.run_cases [-v] [--only SUBSTR]...

Two comparisons per case:
  defaults  the final defaults list ([config path, package, is self] in merge order), or that
            the defaults stage fails where Hydra failed. A Hydra error the defaults stage does
            not raise is counted "later" (it may come from merging or a value override).
  config    the whole composition (`compose_config`), as check.py compares `compose_hydra`:
            the resolved config, the jobs of a multirun, or a ComposeError where Hydra failed.

check.py (the project's differential check, not copied here) is imported for its store builder
and its value comparison, so that both runners judge alike.
"""

from __future__ import annotations

import argparse
import collections
import contextlib
import importlib.util
import json
import os
import shutil
import sys
import tempfile
import traceback
import warnings
from pathlib import Path
from typing import Any

from compose.errors import ComposeError

HYDRA_CHECK = Path(__file__).resolve().parents[5] / "shared" / "realworld" / "hydra"  # ../shared beside the checkout
TREES = HYDRA_CHECK / "trees"


def _load_check() -> Any:
    spec = importlib.util.spec_from_file_location("hydra_check", HYDRA_CHECK / "check.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["hydra_check"] = module
    spec.loader.exec_module(module)
    return module


CHECK = _load_check()


@contextlib.contextmanager
def _package_shim() -> Any:
    """`pkg://hydra.test_utils.configs` names a package of Hydra's that is not installed here:
    a temporary importable package `hydra.test_utils.configs` whose directory is the tree it
    comes from stands in for it (only for the cases that name it)."""
    root = Path(tempfile.mkdtemp(prefix="h40-pkg-"))
    (root / "hydra" / "test_utils").mkdir(parents=True)
    (root / "hydra" / "__init__.py").write_text("")
    (root / "hydra" / "test_utils" / "__init__.py").write_text("")
    (root / "hydra" / "test_utils" / "configs").symlink_to(TREES / "test_utils_configs")
    sys.path.insert(0, str(root))
    try:
        yield
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == "hydra" or m.startswith("hydra.")]:
            del sys.modules[name]
        shutil.rmtree(root, ignore_errors=True)


def _short(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0] if text else ''}"[:300]


def run_defaults(case: dict[str, Any], stores: dict[str, Any], empty: Path) -> tuple[str, str]:
    from .hydra_compose import prepare  # noqa: PLC0415

    store = CHECK.build_store(stores[case["store"]]) if case.get("store") else None
    config_dir = str(TREES / case["tree"]) if case.get("tree") else str(empty)
    expected = case.get("defaults")
    try:
        got = prepare(
            config_dir,
            case["config_name"],
            list(case["overrides"]),
            store=store,
            multirun=bool(case.get("multirun")),
            skip_missing=bool(case.get("multirun")),
            cwd=str(TREES),
        ).defaults
    except ComposeError as error:
        if case.get("error"):
            return "agree", ""
        if case.get("multirun"):
            return "n/a", ""
        return "errors where Hydra composes", _short(error)
    except Exception as error:  # noqa: BLE001 - the prototype's bug is the datum
        return "crash", _short(error) + "\n" + "".join(traceback.format_exc().splitlines(True)[-4:])
    if case.get("multirun") or (expected is None and not case.get("error")):
        return "n/a", ""
    if case.get("error"):
        return "later", ""
    mine = [[leaf.config_path, leaf.package, leaf.is_self] for leaf in got.leaves]
    if mine != expected:
        return "differ", f"expected {expected}\n        got      {mine}"
    choices = {k: v for k, v in got.choices.items() if not k.startswith("hydra/")}
    if choices != case["choices"]:
        return "differ (choices)", f"expected {case['choices']}\n        got      {choices}"
    return "agree", ""


def run_config(case: dict[str, Any], stores: dict[str, Any], empty: Path) -> tuple[str, str]:
    from .compose_config import compose_hydra  # noqa: PLC0415

    result = CHECK.run_case(case, compose_hydra, ComposeError, stores, empty, 60.0)
    detail = result.get("detail", "")
    if result.get("traceback"):
        detail += "\n" + result["traceback"]
    if result["outcome"] in (CHECK.AGREE,):
        return "agree", ""
    raised = result.get("raised")
    if raised:
        detail = f"{detail} [{raised['type']}: {raised['message'].strip().splitlines()[0][:200] if raised['message'].strip() else ''}]"
    return result["outcome"], detail


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--only", action="append", default=[])
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--defaults-only", action="store_true")
    ap.add_argument("--json", help="write every outcome here")
    ap.add_argument(
        "--legacy", action="store_true", help="also the version_base 1.1/1.2 cases (out of scope)"
    )
    ap.add_argument("--no-shim", action="store_true", help="without the stand-in for pkg://hydra.test_utils.configs")
    args = ap.parse_args(argv)
    data = json.loads((HYDRA_CHECK / "cases.json").read_text())
    wanted = ("1.3", "1.1", "1.2") if args.legacy else ("1.3",)
    cases = [c for c in data["cases"] if c["version_base"] in wanted]
    if args.only:
        cases = [c for c in cases if any(s in c["id"] for s in args.only)]
    empty = Path(tempfile.mkdtemp(prefix="h40-empty-"))
    here = os.getcwd()
    outcomes: dict[str, dict[str, tuple[str, str]]] = {"defaults": {}, "config": {}}
    try:
        with contextlib.nullcontext() if args.no_shim else _package_shim():
            for case in cases:
                os.chdir(TREES)
                with warnings.catch_warnings(), CHECK.environment(case.get("env") or {}):
                    warnings.simplefilter("ignore")
                    outcomes["defaults"][case["id"]] = run_defaults(case, data["stores"], empty)
                    if not args.defaults_only:
                        outcomes["config"][case["id"]] = run_config(case, data["stores"], empty)
    finally:
        os.chdir(here)
        shutil.rmtree(empty, ignore_errors=True)
    by_id = {c["id"]: c for c in cases}
    for stage, results in outcomes.items():
        if not results:
            continue
        print(f"== {stage}")
        for cid, (outcome, detail) in results.items():
            if outcome not in ("agree", "n/a", "later"):
                print(
                    f"  {outcome}: {cid}  {by_id[cid]['overrides']}"
                    + (f"\n        {detail}" if args.verbose and detail else "")
                )
        per: dict[str, collections.Counter[str]] = collections.defaultdict(collections.Counter)
        for cid, (outcome, _) in results.items():
            per[by_id[cid]["category"]][outcome] += 1
            per["ALL"][outcome] += 1
            if cid.startswith("dl."):
                per["ALL dl.*"][outcome] += 1
            if by_id[cid]["version_base"] != "1.3":
                per["legacy (1.1/1.2)"][outcome] += 1
        for category in sorted(per):
            counts = per[category]
            print(f"  {category:<24} " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    if args.json:
        Path(here, args.json).write_text(json.dumps(outcomes, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
