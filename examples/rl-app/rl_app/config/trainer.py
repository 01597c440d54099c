"""The trainer: the model as trained, optimizer and scheduler unions, loss, weight broadcast."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, model_validator

from compose import BaseConfig, renamed
from rl_app.config.shared import CheckpointConfig, LogConfig, ModelConfig, WandbConfig

Attention = Literal["sdpa", "flash_attention_2", "flash_attention_3"]
FLASH_ATTENTION: tuple[Attention, ...] = ("flash_attention_2", "flash_attention_3")
Dtype = Literal["bfloat16", "float32"]


class CompileConfig(BaseConfig):
    """`torch.compile` of the transformer blocks; off unless this section is present."""

    fullgraph: bool = False
    """Compile each block as one graph (fails on graph breaks instead of falling back)."""

    dynamic: bool = False
    """Compile for dynamic shapes instead of specialising on the first ones seen."""

    mode: Literal["default", "reduce-overhead", "max-autotune"] = "default"
    """Compilation mode passed to `torch.compile`."""


class ActivationCheckpointConfig(BaseConfig):
    """Activation checkpointing: recompute activations in the backward pass to save memory."""

    freq: int = Field(default=1, ge=1)
    """Checkpoint every FREQ-th layer; 1 checkpoints all layers."""


class LoRAConfig(BaseConfig):
    """Low-rank adapters: train small matrices beside frozen weights; off unless present."""

    rank: int = Field(default=16, ge=1)
    """Rank of the low-rank decomposition."""

    alpha: float = Field(default=32.0, ge=0)
    """Scaling of the adapter output (the update is scaled by alpha / rank)."""

    dropout: float = Field(default=0.0, ge=0, le=1)
    """Dropout applied to the adapter input."""

    target_modules: list[str] = [
        "q_proj",
        "k_proj",
        "v_proj",
        "o_proj",
        "gate_proj",
        "up_proj",
        "down_proj",
    ]
    """Names (or regular expressions) of the modules that get adapters."""

    modules_to_save: list[str] = []
    """Modules kept fully trainable beside the adapters (e.g. `lm_head`)."""


class TrainerModelConfig(ModelConfig):
    """The policy model as the trainer loads, shards and trains it."""

    seq_len: int = Field(default=2048, ge=1)
    """Longest packed training sequence, in tokens (set by the top-level `seq_len`)."""

    attn: Attention = "flash_attention_2"
    """Attention implementation; context parallelism needs a flash attention one."""

    impl: Literal["hf", "custom", "auto"] = "auto"
    """Model implementation: `custom` where the model is supported, else `hf`; `auto` picks."""

    dp_replicate: int = Field(default=1, ge=1)
    """Data-parallel replicas that each hold a full copy of the sharded weights."""

    tp: int = Field(default=1, ge=1)
    """Tensor-parallel degree."""

    cp: int = Field(default=1, ge=1)
    """Context-parallel degree: long sequences are split over this many GPUs."""

    ep: int = Field(default=1, ge=1)
    """Expert-parallel degree (MoE models only)."""

    compile: CompileConfig | None = None
    """Compile the model with `torch.compile`; None runs eagerly."""

    ac: ActivationCheckpointConfig | None = None
    """Activation checkpointing; None keeps every activation."""

    lora: LoRAConfig | None = None
    """Train LoRA adapters instead of the full model; None trains every weight."""

    fsdp_cpu_offload: bool = False
    """Offload parameters, gradients and optimizer state to CPU memory (FSDP)."""

    optim_cpu_offload: bool = False
    """Offload only the optimizer state to CPU memory; weights stay on the GPU."""

    reshard_after_forward: bool = True
    """Free the gathered weights after the forward pass (less memory, one more all-gather)."""

    optimization_dtype: Dtype = "float32"
    """Dtype of the master weights the optimizer updates."""

    reduce_dtype: Dtype = "float32"
    """Dtype gradients are reduced in across data-parallel ranks."""

    @model_validator(mode="after")
    def _cp_needs_flash_attention(self) -> TrainerModelConfig:
        if self.cp > 1 and self.attn not in FLASH_ATTENTION:
            raise ValueError(
                f"context parallelism (cp = {self.cp}) requires flash attention, but attn = "
                f"{self.attn!r}: set attn = 'flash_attention_2' (or 'flash_attention_3'), "
                "or cp = 1"
            )
        return self

    @model_validator(mode="after")
    def _one_cpu_offload(self) -> TrainerModelConfig:
        if self.fsdp_cpu_offload and self.optim_cpu_offload:
            raise ValueError(
                "fsdp_cpu_offload and optim_cpu_offload cannot both be on: fsdp_cpu_offload "
                "already offloads the optimizer state; keep one of them"
            )
        return self


class OptimizerConfig(BaseConfig):
    """What every optimizer has: the learning rate, weight decay and gradient clipping."""

    type: str
    """The optimizer: adamw, muon or sgd."""

    lr: float = Field(default=1e-6, ge=0)
    """Peak learning rate (the scheduler scales it)."""

    weight_decay: float = Field(default=0.01, ge=0)
    """Decoupled weight decay."""

    max_norm: float = Field(default=1.0, ge=0)
    """Clip the global gradient norm to this value; 0 disables clipping."""


class AdamWConfig(OptimizerConfig):
    """AdamW."""

    type: Literal["adamw"] = "adamw"
    """The optimizer: adamw, muon or sgd."""

    betas1: float = Field(default=0.9, ge=0, lt=1)
    """Decay rate of the first-moment estimate."""

    betas2: float = Field(default=0.999, ge=0, lt=1)
    """Decay rate of the second-moment estimate."""

    eps: float = Field(default=1e-8, gt=0)
    """Term added to the denominator for numerical stability."""


class MuonConfig(OptimizerConfig):
    """Muon for matrix parameters, with AdamW for the others (embeddings, norms, head)."""

    type: Literal["muon"] = "muon"
    """The optimizer: adamw, muon or sgd."""

    mu: float = Field(default=0.95, ge=0, lt=1)
    """Momentum of the Muon update."""

    betas1: float = Field(default=0.9, ge=0, lt=1)
    """First-moment decay of the AdamW used on non-matrix parameters."""

    betas2: float = Field(default=0.95, ge=0, lt=1)
    """Second-moment decay of the AdamW used on non-matrix parameters."""


class SGDConfig(OptimizerConfig):
    """Stochastic gradient descent with momentum."""

    type: Literal["sgd"] = "sgd"
    """The optimizer: adamw, muon or sgd."""

    momentum: float = Field(default=0.9, ge=0, lt=1)
    """Momentum factor."""

    nesterov: bool = True
    """Use Nesterov momentum."""


Optimizer = Annotated[AdamWConfig | MuonConfig | SGDConfig, Field(discriminator="type")]


class ConstantSchedulerConfig(BaseConfig):
    """A constant learning rate."""

    type: Literal["constant"] = "constant"
    """The schedule: constant, linear or cosine."""


class LinearSchedulerConfig(BaseConfig):
    """Linear warmup, constant, then linear decay over the last steps."""

    type: Literal["linear"] = "linear"
    """The schedule: constant, linear or cosine."""

    warmup_steps: int = Field(default=10, ge=0)
    """Steps of linear warmup from 0 to the peak learning rate."""

    decay_steps: int = Field(default=10, ge=0)
    """Final steps over which the learning rate decays linearly to `min_lr`."""

    min_lr: float = Field(default=0.0, ge=0)
    """Learning rate at the end of the decay."""


class CosineSchedulerConfig(BaseConfig):
    """Linear warmup, then cosine decay to `min_lr` at the last step."""

    type: Literal["cosine"] = "cosine"
    """The schedule: constant, linear or cosine."""

    warmup_steps: int = Field(default=10, ge=0)
    """Steps of linear warmup from 0 to the peak learning rate."""

    min_lr: float = Field(default=0.0, ge=0)
    """Learning rate reached at the last step."""


Scheduler = Annotated[
    ConstantSchedulerConfig | LinearSchedulerConfig | CosineSchedulerConfig,
    Field(discriminator="type"),
]


class LossConfig(BaseConfig):
    """The trainer's loss: importance ratios, their masking, and the KL term."""

    ratio_type: Literal["token", "sequence"] = "token"
    """Importance ratio per token, or one per sequence (the geometric mean of the tokens')."""

    token_mask_low: float = Field(default=0.125, ge=0)
    """Mask tokens whose importance ratio is below this value."""

    token_mask_high: float = Field(default=8.0, ge=0)
    """Mask tokens whose importance ratio is above this value."""

    adv_tau: float = Field(default=1.0, ge=0)
    """Scale of the advantage term."""

    kl_tau: float = Field(default=0.0, ge=0)
    """Scale of the KL penalty against the inference logprobs; 0 disables it."""

    @model_validator(mode="after")
    def _mask_bounds_ordered(self) -> LossConfig:
        if self.token_mask_low >= self.token_mask_high:
            raise ValueError(
                f"token_mask_low ({self.token_mask_low}) must be below token_mask_high "
                f"({self.token_mask_high}), or every token is masked"
            )
        return self


class FileSystemBroadcastConfig(BaseConfig):
    """Weights reach inference through files in the output directory."""

    type: Literal["filesystem"] = "filesystem"
    """How updated weights reach the inference server: filesystem or nccl."""

    save_format: Literal["safetensors", "torch"] = "safetensors"
    """File format of the broadcast weights."""


class NCCLBroadcastConfig(BaseConfig):
    """Weights reach inference over an NCCL process group (needs GPUs on both sides)."""

    type: Literal["nccl"] = "nccl"
    """How updated weights reach the inference server: filesystem or nccl."""

    host: str = "localhost"
    """Host of the NCCL rendezvous."""

    port: int = Field(default=29501, ge=1, le=65535)
    """Port of the NCCL rendezvous."""

    timeout: int = Field(default=1200, ge=1)
    """Seconds to wait for the inference ranks to join."""


WeightBroadcast = Annotated[
    FileSystemBroadcastConfig | NCCLBroadcastConfig, Field(discriminator="type")
]


class TrainerCheckpointConfig(CheckpointConfig):
    """Checkpoints of the model, optimizer and scheduler state."""

    save_format: Literal["safetensors", "torch"] = "safetensors"
    """File format of the saved weights."""

    save_async: bool = False
    """Write checkpoints in a background thread while training continues."""


@renamed({"lr": "optim.lr"})
class TrainerConfig(BaseConfig):
    """The trainer: updates the policy on the rollouts the orchestrator sends."""

    model: TrainerModelConfig = TrainerModelConfig()
    """The model as trained (the top-level `[model]` sets its name)."""

    optim: Optimizer = AdamWConfig()
    """Optimizer: adamw, muon or sgd (choose with `type`)."""

    scheduler: Scheduler = ConstantSchedulerConfig()
    """Learning-rate schedule: constant, linear or cosine (choose with `type`)."""

    loss: LossConfig = LossConfig()
    """The loss."""

    weight_broadcast: WeightBroadcast = FileSystemBroadcastConfig()
    """How updated weights reach inference: filesystem or nccl (choose with `type`)."""

    ckpt: TrainerCheckpointConfig | None = None
    """Checkpointing; None saves nothing (the top-level `[ckpt]` enables it)."""

    wandb: WandbConfig | None = None
    """W&B logging; None logs nothing to W&B (the top-level `[wandb]` enables it)."""

    log: LogConfig = LogConfig()
    """Logging."""

    max_steps: int | None = Field(default=None, ge=1)
    """Steps to train for; None trains until stopped (the top-level `max_steps` sets it)."""

    micro_batch_size: int = Field(default=1, ge=1)
    """Sequences per forward/backward pass on each GPU."""

    max_async_level: int = Field(default=1, ge=0)
    """How many steps the trainer may run ahead of the policy that made its rollouts."""

    seed: int = 0
    """Seed of every random number generator of the trainer."""

    enable_token_export: bool = False
    """Export per-token records (ids, masks, advantages, logprobs) as JSONL for debugging."""

    env_vars: dict[str, str] = {}
    """Environment variables set for the trainer process."""

    @model_validator(mode="after")
    def _nccl_broadcast_without_lora(self) -> TrainerConfig:
        if self.weight_broadcast.type == "nccl" and self.model.lora is not None:
            raise ValueError(
                "NCCL weight broadcast does not support LoRA adapters: use "
                "weight_broadcast.type = 'filesystem', or remove [trainer.model.lora]"
            )
        return self

    @model_validator(mode="after")
    def _schedule_fits_in_run(self) -> TrainerConfig:
        if self.max_steps is None or not isinstance(self.scheduler, LinearSchedulerConfig):
            return self
        ramp = self.scheduler.warmup_steps + self.scheduler.decay_steps
        if ramp > self.max_steps:
            raise ValueError(
                f"the linear schedule needs {ramp} steps (warmup_steps "
                f"{self.scheduler.warmup_steps} + decay_steps {self.scheduler.decay_steps}) but "
                f"max_steps is {self.max_steps}: shorten the schedule or train longer"
            )
        return self
