"""The programmatic API on the example configs: `compose()` merges files and overrides.

    python examples/quickstart.py

Files merge left to right, then the overrides apply (`key=value`, `section=@file`, `~key`),
and the result is validated into the schema: the same composition as
`rl @ examples/reverse_text/rl.toml @ examples/reverse_text/debug.toml --max-steps 3 ...`.
"""

from __future__ import annotations

import sys
from pathlib import Path

import compose

EXAMPLES = Path(__file__).resolve().parent
ROOT = EXAMPLES.parent
sys.path.insert(0, str(EXAMPLES))  # rl_app lives beside this script until it is installed

from rl_app.config import RLConfig  # noqa: E402
from rl_app.config.orchestrator import OPDConfig  # noqa: E402


def main() -> None:
    base = EXAMPLES / "reverse_text" / "rl.toml"
    overlay = EXAMPLES / "reverse_text" / "debug.toml"

    # Without a schema: the merged plain dict, as the files and overrides give it.
    raw = compose.compose([base, overlay], overrides=["max_steps=3"])
    print(f"files set:  max_steps={raw['max_steps']}, model={raw['model']['name']}")

    # With the schema: a validated RLConfig, defaults filled in, shared values propagated.
    config = compose.compose(
        [base, overlay],
        overrides=[
            "max_steps=3",
            f"orchestrator.algo=@{ROOT / 'conf' / 'algo' / 'opd.toml'}",
            "trainer.optim.lr=1e-5",
        ],
        schema=RLConfig,
    )
    trainer, orchestrator, algo = config.trainer, config.orchestrator, config.orchestrator.algo
    teacher = algo.teacher.name if isinstance(algo, OPDConfig) else "none"
    print(f"trainer:    {trainer.model.name}, {trainer.max_steps} steps, lr {trainer.optim.lr}")
    print(f"algorithm:  {algo.type} (teacher: {teacher})")
    size, group = orchestrator.batch_size, orchestrator.rollouts_per_example
    print(f"batch:      {size} rollouts = {size // group} examples x {group} rollouts")
    print("components:", ", ".join(config.components()))

    # The resolved trainer config, as `rl` writes it to OUTPUT_DIR/configs/trainer.toml.
    text = compose.to_toml(trainer)
    print(f"\ntrainer.toml ({len(text.splitlines())} lines), its [optim] table:")
    optim = text[text.index("[optim]") :].split("\n\n")[0]
    print(optim)

    # Bad input is a ComposeError that names the key, the value and where it came from.
    try:
        compose.compose([base], overrides=["orchestrator.batch_size=100"], schema=RLConfig)
    except compose.ComposeError as error:
        print(f"\nerror: {error}")


if __name__ == "__main__":
    main()
