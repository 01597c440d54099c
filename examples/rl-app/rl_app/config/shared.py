"""Sections more than one component uses: the model, logging, W&B, checkpoints and endpoints."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from compose import BaseConfig

LogLevel = Literal["debug", "info", "warning", "error"]


class ModelConfig(BaseConfig):
    """The policy model. Set it once at the top level (`[model]`) to give it to every component."""

    name: str = "Qwen/Qwen3-0.6B"
    """Hugging Face model id or local path of the policy model."""

    revision: str | None = None
    """Model revision (branch, tag or commit); None uses the repository's default branch."""

    trust_remote_code: bool = False
    """Whether to run modelling code shipped with the model repository."""


class LogConfig(BaseConfig):
    """Logging of one component."""

    level: LogLevel = "info"
    """Lowest level of the messages that are logged."""

    file: bool = True
    """Whether to also write the log to a file under the output directory."""

    json_logging: bool = False
    """Emit newline-delimited JSON records (for log aggregation) instead of text."""


class WandbConfig(BaseConfig):
    """Weights & Biases logging of one component; off unless this section is present."""

    project: str = "compose-rl"
    """W&B project the run is logged to."""

    name: str | None = None
    """W&B run name; None lets W&B pick one."""

    entity: str | None = None
    """W&B team or user; None uses the default entity of the API key."""

    offline: bool = False
    """Log locally only (sync later with `wandb sync`)."""

    tags: list[str] = []
    """Tags attached to the run."""


class SharedWandbConfig(BaseConfig):
    """W&B settings given to the trainer and the orchestrator (their run names get a suffix)."""

    project: str = "compose-rl"
    """W&B project of both components."""

    name: str | None = None
    """Run name prefix: the trainer logs as NAME-trainer, the orchestrator as NAME-orchestrator."""

    offline: bool = False
    """Log both components offline."""


class CheckpointConfig(BaseConfig):
    """Checkpointing; the top-level `[ckpt]` gives the same settings to trainer and orchestrator."""

    interval: int | None = Field(default=None, ge=1)
    """Steps between checkpoints; None checkpoints only at the end of training."""

    resume_step: int | None = Field(default=None, ge=-1)
    """Step to resume from; -1 resumes from the latest checkpoint, None starts from scratch."""

    keep_last: int | None = Field(default=None, ge=1)
    """Keep at most this many recent checkpoints on disk; None keeps them all."""


class ClientConfig(BaseConfig):
    """How the orchestrator reaches the inference server that hosts the policy."""

    base_url: list[str] = ["http://localhost:8000/v1"]
    """OpenAI-compatible base URLs of the policy servers (several: requests are spread)."""

    api_key_var: str = "OPENAI_API_KEY"
    """Environment variable holding the API key sent to the servers."""

    timeout: int = Field(default=1200, ge=1)
    """Seconds before a request to the inference server times out."""


class EndpointConfig(BaseConfig):
    """A frozen model behind an external OpenAI-compatible endpoint (never hosted by the app)."""

    name: str
    """Served model name, sent as the `model` field of every request."""

    base_url: str
    """OpenAI-compatible base URL of the server hosting the model."""

    api_key_var: str = "OPENAI_API_KEY"
    """Environment variable holding the API key for this endpoint."""

    timeout: int = Field(default=600, ge=1)
    """Seconds before a request to this endpoint times out."""


class LaunchOptions(BaseConfig):
    """Options of one invocation of a component entrypoint (not part of its config file)."""

    output_dir: Path = Path("outputs")
    """Run directory: checkpoints, logs, and the resolved configs under OUTPUT_DIR/configs."""

    dry_run: bool = False
    """Only validate and write the resolved config to OUTPUT_DIR/configs, then exit."""
