"""The inference server: a vLLM server hosting the policy (the only model the app hosts)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, model_validator

from compose import BaseConfig
from rl_app.config.shared import ModelConfig

KVCacheDtype = Literal["auto", "fp8", "fp8_e4m3", "fp8_e5m2"]


class ServerConfig(BaseConfig):
    """Where the server listens."""

    host: str | None = None
    """Host to bind to; None binds to all interfaces."""

    port: int = Field(default=8000, ge=1, le=65535)
    """Port to bind to (the orchestrator's client.base_url must point at it)."""


class ParallelConfig(BaseConfig):
    """How the policy is spread over the inference GPUs."""

    tp: int = Field(default=1, ge=1)
    """Tensor-parallel size (vLLM `--tensor-parallel-size`)."""

    dp: int = Field(default=1, ge=1)
    """Data-parallel size (vLLM `--data-parallel-size`)."""


class InferenceModelConfig(ModelConfig):
    """The policy model as vLLM serves it."""

    dtype: Literal["auto", "float16", "bfloat16", "float32"] = "auto"
    """Dtype of weights and activations; auto follows the checkpoint (FP32 becomes FP16)."""

    max_model_len: int | None = Field(default=None, ge=1)
    """Context length; None uses the model's own (vLLM `--max-model-len`)."""

    enforce_eager: bool = False
    """Run eagerly, without CUDA graphs (slower, starts faster)."""

    quantization: str | None = None
    """Quantization method (fp8, awq, gptq, ...); None serves the weights as they are."""

    kv_cache_dtype: KVCacheDtype = "auto"
    """Dtype of the KV cache; auto uses the model dtype."""

    reasoning_parser: str | None = None
    """Parser that extracts reasoning content from outputs; None disables reasoning mode."""

    tool_call_parser: str | None = None
    """Parser for tool calls in outputs; None disables tool calling."""


class InferenceConfig(BaseConfig):
    """The inference server; the `rl` entrypoint starts it only when `[inference]` is present."""

    server: ServerConfig = ServerConfig()
    """Where the server listens."""

    model: InferenceModelConfig = InferenceModelConfig()
    """The served model (the top-level `[model]` sets its name)."""

    parallel: ParallelConfig = ParallelConfig()
    """Parallelism of the server."""

    gpu_memory_utilization: float = Field(default=0.9, gt=0, le=1)
    """Fraction of each GPU's memory vLLM may use."""

    enable_lora: bool = False
    """Serve LoRA adapters (turned on when the trainer trains LoRA)."""

    max_loras: int = Field(default=8, ge=1)
    """Most adapters served at once."""

    max_lora_rank: int | None = Field(default=None, ge=1)
    """Largest adapter rank served; None unless LoRA is on (then the trainer's rank)."""

    enable_prefix_caching: bool | None = None
    """Cache shared prompt prefixes; None keeps vLLM's default."""

    calculate_kv_scales: bool = False
    """Compute FP8 KV-cache scales on the fly (needs an fp8 kv_cache_dtype)."""

    seed: int = 0
    """Seed of the server's sampling."""

    vllm_extra: dict[str, Any] = {}
    """Extra keyword arguments passed to vLLM as they are (CLI: a JSON object)."""

    @model_validator(mode="after")
    def _kv_scales_need_fp8_cache(self) -> InferenceConfig:
        if self.calculate_kv_scales and not self.model.kv_cache_dtype.startswith("fp8"):
            raise ValueError(
                "calculate_kv_scales needs an FP8 KV cache: set model.kv_cache_dtype to fp8, "
                f"fp8_e4m3 or fp8_e5m2 (it is {self.model.kv_cache_dtype!r})"
            )
        return self

    @model_validator(mode="after")
    def _lora_needs_a_rank(self) -> InferenceConfig:
        if self.enable_lora and self.max_lora_rank is None:
            raise ValueError("enable_lora needs max_lora_rank, the largest adapter rank served")
        return self
