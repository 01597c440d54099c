"""A minimal entrypoint: a typed schema, `cli()`, and the composed config printed back.

    python examples/minimal/train.py @ examples/minimal/base.toml @ examples/minimal/overlay.toml \
        --trainer.optim.lr 3e-4 --ckpt.interval 50
"""

from __future__ import annotations

import json
from typing import Annotated, Literal

from pydantic import Field, model_validator

from compose import BaseConfig, cli


class AdamW(BaseConfig):
    type: Literal["adamw"] = "adamw"
    lr: float = 1e-4
    """Learning rate."""
    betas: tuple[float, float] = (0.9, 0.999)
    weight_decay: float = 0.01


class Muon(BaseConfig):
    type: Literal["muon"] = "muon"
    lr: float = 0.02
    """Learning rate."""
    momentum: float = 0.95


class Model(BaseConfig):
    name: str = "Qwen/Qwen3-0.6B"
    """Hugging Face model id."""
    max_model_len: int | None = 4096
    """Context length; None uses the model's own."""
    attn: Literal["sdpa", "flash_attention_2"] = "sdpa"


class Trainer(BaseConfig):
    optim: Annotated[AdamW | Muon, Field(discriminator="type")] = AdamW()
    """Optimizer: adamw or muon."""
    micro_batch_size: int = 8
    context_parallel: int = 1
    """Context-parallel degree (> 1 requires flash attention)."""


class Env(BaseConfig):
    id: str
    """Environment id."""
    weight: float = 1.0


class Ckpt(BaseConfig):
    interval: int = 100
    """Steps between checkpoints."""
    keep: int | None = None


class Train(BaseConfig):
    """Train a model (a minimal example of a compose entrypoint)."""

    max_steps: int = 100
    seed: int = 0
    model: Model = Model()
    trainer: Trainer = Trainer()
    env: list[Env] = [Env(id="reverse-text")]
    ckpt: Ckpt | None = None
    """Checkpointing; off unless enabled."""
    vllm_extra: dict[str, object] = {}
    """Extra keyword arguments passed to vLLM as they are."""

    @model_validator(mode="after")
    def _cp_needs_flash_attention(self) -> Train:
        if self.trainer.context_parallel > 1 and self.model.attn != "flash_attention_2":
            raise ValueError("context parallelism requires model.attn = 'flash_attention_2'")
        return self


def main() -> None:
    config = cli(Train)
    print(json.dumps(config.model_dump(mode="json"), indent=2))


if __name__ == "__main__":
    main()
