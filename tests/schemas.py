"""Test schemas shaped like prime-rl's RL config, built on `compose.BaseConfig`.

`RLConfig` is the one most tests bind onto: a trainer and an orchestrator (always there), an
optional inference server, a discriminated optimizer union (`adamw` / `muon` on `type`), an
algorithm union under `[orchestrator.algo]`, optional `compile` / `ckpt` / `wandb` sections, a
`[[orchestrator.env]]` list of models, a `vllm_extra`-style dict, `X | None` fields and
validators for incompatible combinations.
"""

from __future__ import annotations

import enum
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, field_validator, model_validator

from compose import BaseConfig


class DType(str, enum.Enum):
    bfloat16 = "bfloat16"
    float32 = "float32"


class Priority(enum.IntEnum):
    low = 1
    high = 2


# --- trainer ---------------------------------------------------------------------------------


class CompileConfig(BaseConfig):
    fullgraph: bool = False
    """Compile the whole graph."""
    mode: Literal["default", "reduce-overhead", "max-autotune"] = "default"


class ModelConfig(BaseConfig):
    name: str = "Qwen/Qwen3-0.6B"
    """The model to train."""
    max_model_len: int | None = None
    """Longest sequence the model handles; None for the model's own limit."""
    attn: Literal["sdpa", "flash_attention_2"] = "flash_attention_2"
    cp: int = 1
    """Context parallelism degree."""
    enforce_eager: bool = False
    compile: CompileConfig | None = None
    """torch.compile settings; disabled when None."""

    @model_validator(mode="after")
    def _cp_needs_flash_attention(self) -> ModelConfig:
        if self.cp > 1 and self.attn != "flash_attention_2":
            raise ValueError("context parallelism (cp > 1) requires attn = 'flash_attention_2'")
        return self


class AdamWConfig(BaseConfig):
    type: Literal["adamw"] = "adamw"
    lr: float = 1e-4
    weight_decay: float = 0.01
    betas: list[float] = [0.9, 0.999]


class MuonConfig(BaseConfig):
    type: Literal["muon"] = "muon"
    lr: float = 0.02
    weight_decay: float = 0.01
    momentum: float = 0.95


OptimizerConfig = Annotated[AdamWConfig | MuonConfig, Field(discriminator="type")]


class CheckpointConfig(BaseConfig):
    interval: int = 100
    keep: int | None = None
    """How many checkpoints to keep; None keeps all."""
    path: Path = Path("checkpoints")


class TrainerConfig(BaseConfig):
    model: ModelConfig = ModelConfig()
    optim: OptimizerConfig = AdamWConfig()
    ckpt: CheckpointConfig | None = None
    micro_batch_size: int = 8
    lr_warmup_steps: int = 0
    dtype: DType = DType.bfloat16
    env_vars: dict[str, str] = {}
    """Environment variables for the trainer processes."""
    enable_token_export: bool = False

    @field_validator("micro_batch_size")
    @classmethod
    def _positive(cls, value: int) -> int:
        if value <= 0:
            raise ValueError("micro_batch_size must be positive")
        return value


# --- orchestrator ----------------------------------------------------------------------------


class Endpoint(BaseConfig):
    name: str
    base_url: str


class GRPOAlgo(BaseConfig):
    type: Literal["grpo"] = "grpo"
    clip: float = 0.2
    kl_coef: float = 0.0


class MaxRLAlgo(BaseConfig):
    type: Literal["max_rl"] = "max_rl"
    clip: float = 0.2
    temperature: float = 1.0


class OPDAlgo(BaseConfig):
    type: Literal["opd"] = "opd"
    teacher: Endpoint | None = None


Algorithm = Annotated[GRPOAlgo | MaxRLAlgo | OPDAlgo, Field(discriminator="type")]


class SamplingConfig(BaseConfig):
    temperature: float = 1.0
    max_tokens: int | None = None
    seed: int | str | None = None
    """An int seed, or a named seed."""
    stop: list[str] | None = None


class EnvConfig(BaseConfig):
    id: str = "reverse-text"
    args: dict[str, Any] = {}
    weight: float = 1.0
    priority: Priority = Priority.low


class WandbConfig(BaseConfig):
    project: str = "prime-rl"
    name: str | None = None
    offline: bool = False
    tags: list[str] = []


class OrchestratorConfig(BaseConfig):
    batch_size: int = 128
    seq_len: int = 2048
    algo: Algorithm = GRPOAlgo()
    env: list[EnvConfig] = [EnvConfig()]
    sampling: SamplingConfig = SamplingConfig(temperature=0.7)
    """A customised default instance: temperature 0.7, the rest class defaults."""
    wandb: WandbConfig | None = None
    scores: list[int] = []
    weights: list[float | None] = []


# --- inference and root ----------------------------------------------------------------------


class InferenceConfig(BaseConfig):
    gpu_memory_utilization: float = 0.9
    tensor_parallel_size: int = 1
    vllm_extra: dict[str, Any] = {}
    """Extra arguments passed to vLLM verbatim."""
    enable_lora: bool = False


class RLConfig(BaseConfig):
    """Reinforcement learning: a trainer, an orchestrator and an optional inference server."""

    trainer: TrainerConfig = TrainerConfig()
    orchestrator: OrchestratorConfig = OrchestratorConfig()
    inference: InferenceConfig | None = None
    max_steps: int | None = None
    """Stop after this many steps; None runs forever."""
    seed: int = 42
    output_dir: Path = Path("outputs")
    tag: str | None = None
    dry_run: bool = False

    @model_validator(mode="after")
    def _seq_len_fits(self) -> RLConfig:
        limit = self.trainer.model.max_model_len
        if limit is not None and self.orchestrator.seq_len > limit:
            raise ValueError(
                f"orchestrator.seq_len ({self.orchestrator.seq_len}) exceeds "
                f"trainer.model.max_model_len ({limit})"
            )
        return self


# --- small schemas for focused tests ---------------------------------------------------------


class Adam(BaseConfig):
    """With `Sgd`, a small optimizer union (`Adam | Sgd` on `type`): fields of both (`lr`),
    of one only (`betas`, `momentum`), and different defaults for the shared one."""

    type: Literal["adam"] = "adam"
    lr: float = 1e-3
    betas: list[float] = [0.9, 0.99]


class Sgd(BaseConfig):
    type: Literal["sgd"] = "sgd"
    lr: float = 0.1
    momentum: float = 0.0


class Required(BaseConfig):
    """A schema with a field that has no default."""

    name: str
    steps: int = 1


class Scalars(BaseConfig):
    """One field per scalar kind the CLI types."""

    flag: bool = False
    count: int = 0
    ratio: float = 0.5
    text: str = "x"
    maybe_text: str | None = "x"
    maybe_int: int | None = 0
    number_or_name: int | str = 0
    mode: Literal["fast", "slow"] = "fast"
    level: Literal[1, 2, 3] = 1
    dtype: DType = DType.bfloat16
    priority: Priority = Priority.low
    path: Path = Path(".")
    ints: list[int] = []
    strs: list[str] = []
    maybe_ints: list[int] | None = None
    labels: dict[str, str] = {}
    extra: dict[str, Any] = {}
    counts: dict[str, int] = {}


class CustomDefaults(BaseConfig):
    """Sections whose class defaults are customised instances."""

    trainer: TrainerConfig = TrainerConfig(
        model=ModelConfig(name="custom", cp=2), micro_batch_size=4
    )
    optim: OptimizerConfig = MuonConfig(lr=0.5)
    env: list[EnvConfig] = [EnvConfig(id="a"), EnvConfig(id="b", weight=2.0)]
    sampling: SamplingConfig | None = SamplingConfig(temperature=0.3)


class NoDefaultVariant(BaseConfig):
    """A union section without a default: a node must choose the variant."""

    optim: OptimizerConfig
