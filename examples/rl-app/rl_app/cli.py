"""The four entrypoints: `rl`, `trainer`, `orchestrator`, `inference`.

`rl` resolves an `RLConfig`, writes OUTPUT_DIR/configs/{rl,inference,orchestrator,trainer}.toml
and prints the launch plan: the command line each component would be started with. A component
entrypoint reads such a file back; with `--dry-run` it writes its own resolved file, identical
to the one it read. Nothing is ever trained or served: this is an example of configuration.

    python -m rl_app rl @ examples/reverse_text/rl.toml --dry-run --output-dir /tmp/rt
    python -m rl_app trainer @ /tmp/rt/configs/trainer.toml --dry-run --output-dir /tmp/t
"""

from __future__ import annotations

import datetime
import functools
import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from compose import ComposeError, cli, run_instant, write_configs
from rl_app.config.inference import InferenceConfig
from rl_app.config.orchestrator import OrchestratorConfig
from rl_app.config.rl import InferenceEntry, OrchestratorEntry, RLConfig, TrainerEntry
from rl_app.config.shared import LaunchOptions
from rl_app.config.trainer import TrainerConfig

Argv = Sequence[str] | None
# The repository's conf/ pieces, found by name: `--trainer.optim @ optim/muon` (a config group).
CONF = Path(__file__).resolve().parents[3] / "conf"
# Environment variables set fields below files and flags: RL_TRAINER__OPTIM__LR=1e-5 is
# --trainer.optim.lr 1e-5 for `rl`, and --optim.lr 1e-5 for `trainer` (whose prefix is
# RL_TRAINER__), so one variable means one thing whichever entrypoint reads it, and a component
# never reads (nor warns about) the variables of another.
ENV_PREFIX = "RL_"
COMPONENTS: dict[str, tuple[type[LaunchOptions], type[BaseModel]]] = {
    "trainer": (TrainerEntry, TrainerConfig),
    "orchestrator": (OrchestratorEntry, OrchestratorConfig),
    "inference": (InferenceEntry, InferenceConfig),
}


def _output_may_close(entrypoint: Callable[[Argv], None]) -> Callable[[Argv], None]:
    """An entrypoint whose output is read by a program that stops reading (`rl ... | head -1`)
    ends quietly, as other command-line tools do: exit 141 (128 + SIGPIPE), no traceback.
    Every entrypoint is wrapped, so whatever it prints (the files written, the launch plan)
    is covered; `cli` does the same for what compose prints (help, a sweep's table)."""

    @functools.wraps(entrypoint)
    def run(argv: Argv = None) -> None:
        try:
            entrypoint(argv)
            if sys.stdout is not None:  # None: closed before the start (`>&-`); print is quiet
                sys.stdout.flush()  # what is still buffered fails here, not at the exit
        except BrokenPipeError:
            # Python flushes stdout again at exit: point it at /dev/null so that is quiet too
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            raise SystemExit(141) from None

    return run


@_output_may_close
def rl(argv: Argv = None) -> None:
    """`rl`: resolve the whole run, write every config file, print the launch plan."""
    tokens = list(sys.argv[1:] if argv is None else argv)
    now = _instant()  # one instant for `${now:}` and the record: a rerun composes at it again
    config = cli(RLConfig, tokens, prog="rl", search_path=[CONF], env_prefix=ENV_PREFIX, now=now)
    _record(config, tokens, now)  # first: a record it may not replace leaves the directory as is
    written = _write(config.output_dir, {"rl": config, **config.components()})
    _print_written(written)  # every file in place before a line is printed
    if config.dry_run:
        print("dry run: nothing started; drop --dry-run to see the launch plan")
        return
    print(launch_plan(config))


@_output_may_close
def trainer(argv: Argv = None) -> None:
    """`trainer`: train the policy, configured by a trainer.toml."""
    _component("trainer", argv)


@_output_may_close
def orchestrator(argv: Argv = None) -> None:
    """`orchestrator`: sample rollouts and send batches, configured by an orchestrator.toml."""
    _component("orchestrator", argv)


@_output_may_close
def inference(argv: Argv = None) -> None:
    """`inference`: serve the policy, configured by an inference.toml."""
    _component("inference", argv)


ENTRYPOINTS: dict[str, Callable[[Argv], None]] = {
    "rl": rl,
    "trainer": trainer,
    "orchestrator": orchestrator,
    "inference": inference,
}


def main(argv: Argv = None) -> None:
    """`python -m rl_app ENTRYPOINT ARGS...`, for use before the console scripts are installed."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args or args[0] not in ENTRYPOINTS:
        sys.stderr.write(f"usage: python -m rl_app {{{','.join(ENTRYPOINTS)}}} ARGS...\n")
        raise SystemExit(2)
    ENTRYPOINTS[args[0]](args[1:])


def _component(name: str, argv: Argv) -> None:
    entry_schema, section_schema = COMPONENTS[name]
    env_prefix = f"{ENV_PREFIX}{name.upper()}__"  # RL_TRAINER__OPTIM__LR: the same as for rl
    entry = cli(entry_schema, argv, prog=name, search_path=[CONF], env_prefix=env_prefix)
    if entry.dry_run:
        _print_written(_write(entry.output_dir, {name: section_data(entry, section_schema)}))
        return
    print(f"{name} would run in {entry.output_dir.as_posix()}: {describe(entry)}")
    print("(this example starts nothing; add --dry-run to write the resolved config)")


def _write(output_dir: Path, files: dict[str, Any]) -> list[Path]:
    """The resolved configs; a directory that cannot take them is bad input like any other:
    one line, exit 2."""
    try:
        return write_configs(output_dir, files)
    except ComposeError as error:
        sys.stderr.write(f"error: {error.format()}\n")
        raise SystemExit(error.exit_code) from None


def _instant() -> datetime.datetime:
    """This run's instant ($COMPOSE_NOW, else now); bad input like any other: one line, exit 2."""
    try:
        return run_instant()
    except ComposeError as error:
        sys.stderr.write(f"error: {error.format()}\n")
        raise SystemExit(error.exit_code) from None


def _record(config: RLConfig, tokens: list[str], now: datetime.datetime) -> None:
    """OUTPUT_DIR/run.json beside the configs: how this config was made, so that
    `rl --from-run OUTPUT_DIR [changes]` composes it again. The record of another config there
    is replaced only when the command line names OUTPUT_DIR (`--output-dir`), or with `--clean`."""
    from compose import write_run_record  # noqa: PLC0415  # it loads the engine: not for `rl --help`

    try:
        write_run_record(
            config.output_dir,
            config,
            tokens,
            prog="rl",
            search_path=[CONF],
            env_prefix=ENV_PREFIX,
            now=now,
            replace=config.clean,
        )
    except ComposeError as error:
        sys.stderr.write(f"error: {error.format()}\n")
        raise SystemExit(error.exit_code) from None


def section_data(entry: BaseModel, section: type[BaseModel]) -> dict[str, Any]:
    """The fields of `section` taken from an entry schema: the component's own config file."""
    return {name: getattr(entry, name) for name in section.model_fields}


def launch_plan(config: RLConfig) -> str:
    """Each component, the command line it would be started with, and what it would do."""
    import shlex  # noqa: PLC0415  # here, not at the top: `rl --help` need not load it

    out = config.output_dir.as_posix()
    lines = ["launch plan (this example starts nothing):"]
    if config.clean:
        lines.append(f"  clean         would delete {out} first (skipped: nothing is deleted)")
    if config.inference is None:
        urls = ", ".join(config.orchestrator.client.base_url)
        lines.append(f"  inference     not started: the orchestrator expects a server at {urls}")
    for name, section in config.components().items():
        path = (config.output_dir / "configs" / f"{name}.toml").as_posix()
        command = shlex.join([name, "@", path, "--output-dir", out])
        lines.append(f"  {name:<13} {command}")
        lines.append(f"  {'':<13} {describe(section)}")
    return "\n".join(lines)


def describe(section: BaseModel) -> str:
    """One line on what a component would do."""
    if isinstance(section, TrainerConfig):
        return _describe_trainer(section)
    if isinstance(section, OrchestratorConfig):
        return _describe_orchestrator(section)
    if isinstance(section, InferenceConfig):
        return _describe_inference(section)
    return type(section).__name__


def _describe_trainer(config: TrainerConfig) -> str:
    steps = "until stopped" if config.max_steps is None else f"for {config.max_steps} steps"
    lora = f", LoRA rank {config.model.lora.rank}" if config.model.lora is not None else ""
    return (
        f"trains {config.model.name} {steps}: {config.optim.type} lr={config.optim.lr}, "
        f"{config.scheduler.type} schedule, seq_len {config.model.seq_len}{lora}"
    )


def _describe_orchestrator(config: OrchestratorConfig) -> str:
    envs = ", ".join(env.name or env.id for env in config.env)
    return (
        f"{config.algo.type} on {envs}: {config.batch_size} rollouts per step "
        f"({config.rollouts_per_example} per example), seq_len {config.seq_len}"
    )


def _describe_inference(config: InferenceConfig) -> str:
    host = config.server.host or "0.0.0.0"
    lora = f", LoRA up to rank {config.max_lora_rank}" if config.enable_lora else ""
    return (
        f"serves {config.model.name} on {host}:{config.server.port} "
        f"(tp={config.parallel.tp}, dp={config.parallel.dp}){lora}"
    )


def _print_written(paths: list[Path]) -> None:
    for path in paths:
        print(f"wrote {path.as_posix()}")


if __name__ == "__main__":
    main()
