"""A longer fuzzing run for local use (not collected by pytest).

It draws from the generators of `tests/test_fuzz.py` with a fresh random seed, but instead of
stopping at the first failure it keeps going and collects every distinct crash: an exception
that is not a `ComposeError`, or an entry point that broke its promise (exit code, traceback
on stderr). A crash is known by its exception type and the innermost frame inside `compose/`;
for each, the shortest input seen is kept.

    .venv/bin/python tests/fuzz/run.py                       # every target, 2,000 examples each
    .venv/bin/python tests/fuzz/run.py -n 20000 argv toml    # some targets, longer
    .venv/bin/python tests/fuzz/run.py --seed 1 --save /tmp/found   # candidates for the corpus

Targets: `argv` (parse, cli, compose show/explain/diff), `overrides` (compose() override
strings), `toml` (mutated files), `interp` (interpolation strings), `sweep` (sweep files, for
`sweep()` and sweep mode, at most `SWEEP_LIMIT` points each). With `--save DIR`, the
shortest input of each crash is written to DIR in the corpus format (`NAME.json` for argv,
`NAME.toml` for files); review one and copy it into `tests/fuzz_corpus/` with a `bug` note.
Exit status 1 when something crashed.
"""

from __future__ import annotations

import argparse
import gc
import json
import random
import sys
import tempfile
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(TESTS))

import hypothesis  # noqa: E402
import test_fuzz as fuzz  # noqa: E402
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402
from schemas import RLConfig  # noqa: E402

import compose  # noqa: E402


@dataclass
class Crash:
    signature: str
    target: str
    example: Any
    size: int
    count: int
    text: str


def signature(error: BaseException) -> str:
    """The exception type and the innermost frame in compose/ (else the innermost frame)."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [frame for frame in frames if "/compose/" in frame.filename]
    frame = (ours or frames)[-1]
    where = f"{Path(frame.filename).name}:{frame.lineno} in {frame.name}"
    first = str(error).splitlines()[0][:80] if str(error) else ""
    detail = first if isinstance(error, AssertionError) else ""
    return f"{type(error).__name__} at {where} {detail}".strip()


def size_of(example: Any) -> int:
    return len(json.dumps(example, default=repr))


class Collector:
    def __init__(self) -> None:
        self.crashes: dict[str, Crash] = {}

    def record(self, target: str, example: Any, error: BaseException) -> None:
        key = signature(error)
        size = size_of(example)
        text = "".join(traceback.format_exception(error)[-6:])
        found = self.crashes.get(key)
        if found is None:
            self.crashes[key] = Crash(key, target, example, size, 1, text)
            print(f"new crash [{target}] {key}", flush=True)
            return
        found.count += 1
        if size < found.size:
            found.example, found.size, found.text = example, size, text


def checked(
    collector: Collector, target: str, example: Any, calls: list[Callable[[], object]]
) -> None:
    """Each entry point on its own: one crash does not hide the next one's."""
    for call in calls:
        try:
            call()
        except Exception as error:  # every escape is a finding
            collector.record(target, example, error)
        gc.collect()  # an error in a finalizer shows now, against this example
        while UNRAISABLE:  # "Exception ignored in ...": a traceback the user would see
            collector.record(target, example, UNRAISABLE.pop())


def run_target(
    target: str, strategy: Any, call: Callable[[Any], None], examples: int, seed: int
) -> None:
    @settings(
        max_examples=examples,
        derandomize=False,  # not the suite's profile (test_fuzz loads conftest): the seed's
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def body(example: Any) -> None:
        call(example)

    hypothesis.seed(seed)(body)()


def composing(
    files: list[str], overrides: list[str], schema: type[RLConfig] | None
) -> Callable[[], object]:
    """`compose.compose(files, overrides, schema=schema)`: a result, or a ComposeError caught."""
    return lambda: fuzz.result_or_compose_error(
        lambda: compose.compose(files, overrides, schema=schema)
    )


def targets(collector: Collector, directory: Path) -> dict[str, tuple[Any, Callable[[Any], None]]]:
    def argv(example: tuple[list[str], int]) -> None:
        tokens, command = example
        with fuzz.inside(directory):
            checked(collector, "argv", tokens, fuzz.argv_calls(tokens, command))

    def overrides(example: list[str]) -> None:
        with fuzz.inside(directory):
            runs: list[tuple[list[str], type[RLConfig] | None]] = [
                (["good.toml"], None),
                (["plain.toml"], None),
                ([], RLConfig),
            ]
            for files, schema in runs:
                checked(
                    collector,
                    "overrides",
                    {"files": files, "overrides": example, "schema": bool(schema)},
                    [composing(files, example, schema)],
                )

    def toml(example: bytes) -> None:
        with fuzz.inside(directory):
            Path("mutated.toml").write_bytes(example)
            checked(collector, "toml", example, fuzz.file_calls("mutated.toml"))

    def interp(example: str) -> None:
        text = f"tag = {fuzz.toml_string(example)}\n[inference.vllm_extra]\nx = 1\nk = 'x'\n"
        with fuzz.inside(directory):
            Path("interp-run.toml").write_text(text, encoding="utf-8")
            checked(
                collector,
                "interp",
                example,
                [composing(["interp-run.toml"], [], RLConfig)],
            )
            checked(
                collector,
                "argv",
                ["--tag", example],
                fuzz.argv_calls(["--tag", example], 2),
            )

    def sweep(example: bytes) -> None:
        with fuzz.inside(directory), fuzz.small_sweeps():
            Path("sweep.toml").write_bytes(example)
            checked(collector, "sweep", example, fuzz.sweep_calls("sweep.toml"))

    override = st.builds("{}={}".format, fuzz.key(), fuzz.value_token)
    return {
        "argv": (st.tuples(fuzz.argv(), st.integers(0, 13)), argv),
        "overrides": (st.lists(override | fuzz.argv_item().map(" ".join), max_size=5), overrides),
        "toml": (fuzz.mutated_toml(), toml),
        "interp": (fuzz.interpolation(), interp),
        "sweep": (fuzz.sweep_file(), sweep),
    }


def save(crashes: list[Crash], directory: Path) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    for number, crash in enumerate(crashes):
        stem = f"crash-{number:02d}-{crash.target}"
        if crash.target == "toml":
            (directory / f"{stem}.toml").write_bytes(crash.example)
            continue
        if crash.target == "sweep":
            text = crash.example.decode("utf-8", "surrogateescape")
            argv = ["@", "good.toml", "--sweep", "@", "sweep.toml", "--dry-run"]
            case = {"argv": argv, "files": {"sweep.toml": text}, "bug": crash.signature}
            (directory / f"{stem}.json").write_text(json.dumps(case) + "\n", encoding="utf-8")
            continue
        tokens = crash.example if isinstance(crash.example, list) else ["--tag", crash.example]
        if crash.target == "overrides":
            tokens = [f"--{text}" for text in crash.example["overrides"]]
        case = {"argv": tokens, "bug": crash.signature}
        (directory / f"{stem}.json").write_text(json.dumps(case) + "\n", encoding="utf-8")


UNRAISABLE: list[BaseException] = []


def _keep_unraisable(unraisable: Any) -> None:
    if unraisable.exc_value is not None:
        UNRAISABLE.append(unraisable.exc_value)


def main() -> int:
    sys.unraisablehook = _keep_unraisable
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "targets", nargs="*", default=["argv", "overrides", "toml", "interp", "sweep"]
    )
    parser.add_argument("-n", "--examples", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--save", type=Path, default=None)
    options = parser.parse_args()
    seed = options.seed if options.seed is not None else random.randrange(2**32)
    print(f"seed {seed}", flush=True)
    collector = Collector()
    with tempfile.TemporaryDirectory() as temporary:
        directory = fuzz.make_fuzz_dir(Path(temporary))
        table = targets(collector, directory)
        for name in options.targets:
            strategy, call = table[name]
            print(f"-- {name}: {options.examples} examples", flush=True)
            run_target(name, strategy, call, options.examples, seed)
    crashes = sorted(collector.crashes.values(), key=lambda crash: crash.signature)
    for crash in crashes:
        print(f"\n== {crash.signature}  [{crash.target}, seen {crash.count}x]")
        print(f"   shortest input: {json.dumps(crash.example, default=repr)[:400]}")
        print("   " + crash.text.replace("\n", "\n   ").rstrip())
    if options.save is not None:
        save(crashes, options.save)
    print(f"\n{len(crashes)} distinct crash(es)")
    return 1 if crashes else 0


if __name__ == "__main__":
    sys.exit(main())
