"""The orchestrator: environments, sampling, and the algorithm that turns rollouts into a signal.

`[orchestrator.algo]` is a discriminated union on `type`: each algorithm is a named class whose
defaults are its vetted setting. Frozen models are external endpoints named where they are used
(`[orchestrator.algo.teacher]` for opd, `[orchestrator.algo.sampling.source]` for sft).
"""

from __future__ import annotations

from typing import Annotated, Any, ClassVar, Literal

from pydantic import Field, model_validator

from compose import BaseConfig
from rl_app.config.shared import (
    CheckpointConfig,
    ClientConfig,
    EndpointConfig,
    LogConfig,
    ModelConfig,
    WandbConfig,
)

ECHO_ROLES = ("system", "user", "assistant", "tool")
DEFAULT_ECHO_ALPHA = 0.1


class SamplingConfig(BaseConfig):
    """How the policy samples train rollouts (vLLM sampling parameters)."""

    temperature: float = Field(default=1.0, ge=0)
    """Sampling temperature; 0 samples greedily."""

    top_p: float = Field(default=1.0, gt=0, le=1)
    """Sample from the smallest token set whose probability reaches top_p; 1 keeps all."""

    top_k: int = -1
    """Sample from the top_k most likely tokens; -1 keeps all."""

    max_tokens: int | None = Field(default=None, ge=1)
    """Most tokens generated per turn; None generates up to the context length."""

    min_tokens: int = Field(default=0, ge=0)
    """Fewest tokens generated per turn."""

    repetition_penalty: float = Field(default=1.0, gt=0)
    """Penalty on repeated tokens: above 1 discourages repetition, 1 disables it."""

    seed: int | None = None
    """Sampling seed; None samples without a seed."""

    extra_body: dict[str, Any] = {}
    """Extra fields sent with every request to the inference server."""


class AlgoSamplingConfig(BaseConfig):
    """Which model generates the train rollouts of an algorithm."""

    source: Literal["policy"] | EndpointConfig = "policy"
    """`"policy"` (the live policy) or a frozen endpoint table (`name` + `base_url`)."""


class AlgorithmConfig(BaseConfig):
    """What every algorithm has: its name and where its rollouts come from."""

    samples_from_policy: ClassVar[bool] = True

    type: str
    """The algorithm: grpo, max_rl, opd, opsd, sft or echo."""

    sampling: AlgoSamplingConfig = AlgoSamplingConfig()
    """Which model samples the train rollouts."""

    @model_validator(mode="after")
    def _source_fits_algorithm(self) -> AlgorithmConfig:
        policy = self.sampling.source == "policy"
        if self.samples_from_policy and not policy:
            raise ValueError(
                f"algorithm {self.type!r} trains on the live policy's own samples, so "
                "sampling.source must be 'policy'; use type = 'sft' to learn from a frozen "
                "model's samples"
            )
        if not self.samples_from_policy and policy:
            raise ValueError(
                f"algorithm {self.type!r} samples from a frozen model: set "
                "[orchestrator.algo.sampling.source] with name and base_url"
            )
        return self


class GroupRelativeConfig(AlgorithmConfig):
    """Algorithms whose advantage compares each rollout with the others of its group."""

    baseline: Literal["mean", "leave_one_out"] = "mean"
    """Group baseline subtracted from each reward: the group mean, or the others' mean."""

    std_normalize: bool = False
    """Divide advantages by the group's reward standard deviation."""


class GRPOConfig(GroupRelativeConfig):
    """GRPO: group-relative advantages, trained with the RL loss (the default algorithm)."""

    type: Literal["grpo"] = "grpo"
    """The algorithm: grpo, max_rl, opd, opsd, sft or echo."""

    length_penalty: float = Field(default=0.0, ge=0)
    """Reward subtracted per generated token, relative to the group's longest rollout."""


class MaxRLConfig(AlgorithmConfig):
    """MaxRL: advantage = (reward - group mean) / group mean (maximum-likelihood RL)."""

    type: Literal["max_rl"] = "max_rl"
    """The algorithm: grpo, max_rl, opd, opsd, sft or echo."""

    drop_zero_mean_groups: bool = True
    """Drop groups whose mean reward is 0 (their advantages are all zero)."""

    eps: float = Field(default=1e-6, gt=0)
    """Added to the group mean before dividing by it."""


class OPDConfig(AlgorithmConfig):
    """On-policy distillation: the policy samples, and learns the reverse KL to a teacher."""

    type: Literal["opd"] = "opd"
    """The algorithm: grpo, max_rl, opd, opsd, sft or echo."""

    teacher: EndpointConfig
    """The frozen teacher the policy is scored against (required: name + base_url)."""

    teacher_tau: float = Field(default=1.0, gt=0)
    """Scale of the reverse-KL signal."""


class OPSDConfig(AlgorithmConfig):
    """On-policy self-distillation: the live policy, shown a demonstration, is the teacher."""

    type: Literal["opsd"] = "opsd"
    """The algorithm: grpo, max_rl, opd, opsd, sft or echo."""

    demo_key: str = "answer"
    """Field of each example holding the expert demonstration."""

    template: str = "Here is an expert response:\n{demonstration}"
    """System message that carries the demonstration; receives `{demonstration}`."""


class SFTConfig(AlgorithmConfig):
    """Distillation by SFT: a frozen model samples, the policy learns its tokens (CE loss)."""

    samples_from_policy: ClassVar[bool] = False

    type: Literal["sft"] = "sft"
    """The algorithm: grpo, max_rl, opd, opsd, sft or echo."""

    filter_zero_reward: bool = False
    """Drop rollouts whose reward is 0 before training on them."""


class EchoRoleConfig(BaseConfig):
    """CE supervision of the env-provided tokens of one message role."""

    alpha: float = Field(default=DEFAULT_ECHO_ALPHA, gt=0)
    """Per-token CE weight of this role's tokens."""


class EchoConfig(GroupRelativeConfig):
    """ECHO: GRPO on the policy's tokens, plus weighted CE on env-provided tokens by role.

    Setting any role replaces the whole vetted role table: list every role you want trained.
    """

    type: Literal["echo"] = "echo"
    """The algorithm: grpo, max_rl, opd, opsd, sft or echo."""

    roles: dict[str, EchoRoleConfig] = {}
    """Roles trained with CE, with their alpha; empty: the vetted table (tool at 0.1)."""

    @model_validator(mode="after")
    def _vetted_roles(self) -> EchoConfig:
        unknown = sorted(set(self.roles) - set(ECHO_ROLES))
        if unknown:
            raise ValueError(
                f"unknown echo role(s) {', '.join(unknown)}: roles are {', '.join(ECHO_ROLES)}"
            )
        if not self.roles:
            self.roles = {"tool": EchoRoleConfig()}
        return self


Algorithm = Annotated[
    GRPOConfig | MaxRLConfig | OPDConfig | OPSDConfig | SFTConfig | EchoConfig,
    Field(discriminator="type"),
]


class EnvConfig(BaseConfig):
    """One training environment."""

    id: str = "reverse-text"
    """Environment id (an installed verifiers environment)."""

    name: str | None = None
    """Name in logs and metrics; None uses the id."""

    args: dict[str, Any] = {}
    """Keyword arguments passed to the environment's loader."""

    weight: float = Field(default=1.0, gt=0)
    """Share of each batch drawn from this environment, relative to the others."""

    address: str | None = None
    """Address of a running environment server; None starts one in a subprocess."""

    algo: Algorithm | None = None
    """This environment's own algorithm; None uses `orchestrator.algo`."""


class EvalConfig(BaseConfig):
    """Online evaluation during training; off unless this section is present."""

    interval: int = Field(default=100, ge=1)
    """Steps between evaluations."""

    num_examples: int = -1
    """Examples evaluated per environment; -1 evaluates all."""

    rollouts_per_example: int = Field(default=1, ge=1)
    """Rollouts per evaluated example."""

    eval_base_model: bool = True
    """Also evaluate the model before the first step."""

    env: list[EnvConfig] = [EnvConfig()]
    """Environments to evaluate on."""


class OrchestratorCheckpointConfig(CheckpointConfig):
    """Checkpoints of the orchestrator's progress (data position, step)."""

    wait_for_weights_timeout: int | None = Field(default=None, ge=1)
    """When resuming, seconds to wait for the trainer's weights; None fails at once."""


class OrchestratorConfig(BaseConfig):
    """The orchestrator: samples rollouts from the environments and sends batches to train."""

    model: ModelConfig = ModelConfig()
    """The policy model served by inference (the top-level `[model]` sets it)."""

    client: ClientConfig = ClientConfig()
    """How to reach the inference server."""

    algo: Algorithm = GRPOConfig()
    """The algorithm: grpo, max_rl, opd, opsd, sft or echo (choose with `type`)."""

    sampling: SamplingConfig = SamplingConfig()
    """Sampling parameters of the train rollouts."""

    env: list[EnvConfig] = [EnvConfig()]
    """Training environments (`[[orchestrator.env]]`; a later file replaces the whole list)."""

    eval: EvalConfig | None = None
    """Online evaluation; None never evaluates."""

    ckpt: OrchestratorCheckpointConfig | None = None
    """Checkpointing; None saves nothing (the top-level `[ckpt]` enables it)."""

    wandb: WandbConfig | None = None
    """W&B logging; None logs nothing to W&B (the top-level `[wandb]` enables it)."""

    log: LogConfig = LogConfig()
    """Logging."""

    batch_size: int = Field(default=128, ge=1)
    """Rollouts per training step."""

    rollouts_per_example: int = Field(default=8, ge=1)
    """Rollouts sampled per example (the group size)."""

    seq_len: int = Field(default=2048, ge=1)
    """Longest rollout, prompt included, in tokens (set by the top-level `seq_len`)."""

    max_steps: int | None = Field(default=None, ge=1)
    """Steps to run for; None runs until stopped (the top-level `max_steps` sets it)."""

    max_async_level: int = Field(default=1, ge=0)
    """How many steps rollouts may lag behind the trainer's current policy."""

    seed: int = 42
    """Seed of the orchestrator's data order."""

    @model_validator(mode="after")
    def _batch_holds_whole_groups(self) -> OrchestratorConfig:
        if self.batch_size % self.rollouts_per_example:
            raise ValueError(
                f"batch_size ({self.batch_size}) must be a multiple of rollouts_per_example "
                f"({self.rollouts_per_example}) so that every group fits in one batch"
            )
        return self

    @model_validator(mode="after")
    def _rollouts_fit_in_sequence(self) -> OrchestratorConfig:
        max_tokens = self.sampling.max_tokens
        if max_tokens is not None and max_tokens > self.seq_len:
            raise ValueError(
                f"sampling.max_tokens ({max_tokens}) exceeds seq_len ({self.seq_len}): "
                "no rollout could be trained on whole"
            )
        return self

    @model_validator(mode="after")
    def _env_names_unique(self) -> OrchestratorConfig:
        names = [env.name or env.id for env in self.env]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(
                f"environment name(s) {', '.join(repeated)} appear more than once in "
                "[[orchestrator.env]]: give each a distinct `name`"
            )
        return self
