"""`RLConfig`, the top level of an RL run, and the schemas of the component entrypoints.

Shared values (`model`, `max_steps`, `seq_len`, `ckpt`, `wandb`, and LoRA for inference) are
copied into the components before these are validated, so each component is validated with the
values it will run with, and its section, dumped alone, is its whole config. Then the
components are checked against each other: an incompatible combination is an error while the
config is resolved, not when a process starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

from pydantic import BaseModel, Field, ValidationError, model_validator

from compose import BaseConfig, Migration, move_key, remove_key, renamed, versioned
from rl_app.config.inference import InferenceConfig
from rl_app.config.orchestrator import OrchestratorConfig
from rl_app.config.shared import CheckpointConfig, LaunchOptions, ModelConfig, SharedWandbConfig
from rl_app.config.trainer import LoRAConfig, TrainerConfig

M = TypeVar("M", bound=BaseModel)


# Schema version 2: gradient clipping moved into the optimizer's section, and the trainer stopped
# reading `recompute_logprobs`. Files written for version 1 still load, with a warning each,
# and `compose migrate --schema rl_app.config:RLConfig FILE` rewrites them (docs/18).
SCHEMA_V2 = Migration(
    1,
    2,
    move_key("trainer.max_norm", "trainer.optim.max_norm"),
    remove_key("trainer.recompute_logprobs", "the trainer always recomputes them"),
)


@versioned(SCHEMA_V2)
@renamed({"clean_output_dir": "clean"})
class RLConfig(BaseConfig):
    """Run RL: an inference server, an orchestrator and a trainer, configured as one."""

    trainer: TrainerConfig = TrainerConfig()
    """The trainer."""

    orchestrator: OrchestratorConfig = OrchestratorConfig()
    """The orchestrator."""

    inference: InferenceConfig | None = None
    """The inference server; None starts none (point orchestrator.client at a running one)."""

    model: ModelConfig | None = None
    """The policy model; overrides every component's `model` (None keeps theirs)."""

    ckpt: CheckpointConfig | None = None
    """Checkpointing; turns on and sets trainer.ckpt and orchestrator.ckpt (None keeps theirs)."""

    wandb: SharedWandbConfig | None = None
    """W&B logging; turns on and sets trainer.wandb and orchestrator.wandb (None keeps theirs)."""

    max_steps: int | None = Field(default=None, ge=1)
    """Steps to train for; overrides trainer.max_steps and orchestrator.max_steps."""

    seq_len: int | None = Field(default=None, ge=1)
    """Sequence length; overrides trainer.model.seq_len and orchestrator.seq_len."""

    output_dir: Path = Path("outputs")
    """Run directory of every component; the resolved configs go to OUTPUT_DIR/configs."""

    dry_run: bool = False
    """Only validate and write the resolved configs to OUTPUT_DIR/configs, then exit."""

    clean: bool = False
    """Delete the output directory before starting (formerly `clean_output_dir`)."""

    def components(self) -> dict[str, BaseModel]:
        """The component sections by entrypoint name, in launch order (inference when on)."""
        parts: dict[str, BaseModel] = {}
        if self.inference is not None:
            parts["inference"] = self.inference
        parts["orchestrator"] = self.orchestrator
        parts["trainer"] = self.trainer
        return parts

    @model_validator(mode="before")
    @classmethod
    def _share(cls, data: Any) -> Any:
        """Copy the shared values into the components before they are validated, so that
        their own validators see the values they will run with."""
        if not isinstance(data, dict):
            return data
        data = dict(data)
        _share_model(data)
        _share_steps_and_length(data)
        _share_ckpt(data)
        _share_wandb(data)
        _share_lora(data)
        return data

    # Checks across components, once the shared values are in.

    @model_validator(mode="after")
    def _components_agree(self) -> RLConfig:
        names = {section.name for section in self._model_sections()}
        if len(names) > 1:
            raise ValueError(
                f"the components name different models ({', '.join(sorted(names))}): set it "
                "once, with the top-level [model] name"
            )
        if self.trainer.max_steps != self.orchestrator.max_steps:
            raise ValueError(
                f"trainer.max_steps ({self.trainer.max_steps}) and orchestrator.max_steps "
                f"({self.orchestrator.max_steps}) differ: set the top-level max_steps instead"
            )
        return self

    @model_validator(mode="after")
    def _trainer_fits_rollouts(self) -> RLConfig:
        if self.trainer.model.seq_len < self.orchestrator.seq_len:
            raise ValueError(
                f"trainer.model.seq_len ({self.trainer.model.seq_len}) is shorter than "
                f"orchestrator.seq_len ({self.orchestrator.seq_len}): the trainer could not fit "
                "the rollouts; set the top-level seq_len to give both the same value"
            )
        return self

    @model_validator(mode="after")
    def _inference_serves_rollouts(self) -> RLConfig:
        if self.inference is None:
            return self
        port = self.inference.server.port
        ports = [_port_of(url) for url in self.orchestrator.client.base_url]
        if port not in ports:
            raise ValueError(
                f"inference.server.port is {port} but orchestrator.client.base_url "
                f"({', '.join(self.orchestrator.client.base_url)}) does not use it: the "
                "orchestrator would not reach the server"
            )
        context = self.inference.model.max_model_len
        if context is not None and context < self.orchestrator.seq_len:
            raise ValueError(
                f"inference.model.max_model_len ({context}) is shorter than orchestrator.seq_len "
                f"({self.orchestrator.seq_len}): raise it or lower seq_len"
            )
        return self

    def _model_sections(self) -> list[ModelConfig]:
        sections: list[ModelConfig] = [self.trainer.model, self.orchestrator.model]
        if self.inference is not None:
            sections.append(self.inference.model)
        return sections


def _port_of(url: str) -> int | None:
    parts = urlsplit(url)
    try:
        return parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    except ValueError:  # a port that is not a number
        return None


# Sharing works on the raw input: sections are dicts (as composed), model instances (built in
# Python) or absent (their default). A shared section that does not validate is not copied;
# validation then reports it where it was written.

Raw = dict[str, Any]
ROLES = ("trainer", "orchestrator")


def _share_model(data: Raw) -> None:
    model = _valid(ModelConfig, data.get("model"))
    if model is None:
        return
    values = model.model_dump()
    for path in (("trainer", "model"), ("orchestrator", "model"), ("inference", "model")):
        section = _section(data, path)
        if section is not None:
            section.update(values)


def _share_steps_and_length(data: Raw) -> None:
    if data.get("max_steps") is not None:
        for role in ROLES:
            _set(data, (role,), "max_steps", data["max_steps"])
    if data.get("seq_len") is not None:
        _set(data, ("trainer", "model"), "seq_len", data["seq_len"])
        _set(data, ("orchestrator",), "seq_len", data["seq_len"])


def _share_ckpt(data: Raw) -> None:
    ckpt = _valid(CheckpointConfig, data.get("ckpt"))
    if ckpt is None:
        return
    values = ckpt.model_dump(exclude_none=True)
    for role in ROLES:
        section = _section(data, (role, "ckpt"))
        if section is not None:
            section.update(values)


def _share_wandb(data: Raw) -> None:
    wandb = _valid(SharedWandbConfig, data.get("wandb"))
    if wandb is None:
        return
    for role in ROLES:
        section = _section(data, (role, "wandb"))
        if section is not None:
            section.update(project=wandb.project, offline=wandb.offline)
            if wandb.name is not None:
                section["name"] = f"{wandb.name}-{role}"


def _share_lora(data: Raw) -> None:
    trainer_model = _section(data, ("trainer", "model"))
    lora = _valid(LoRAConfig, trainer_model.get("lora")) if trainer_model is not None else None
    inference = _section(data, ("inference",))
    if lora is None or inference is None:
        return
    rank = inference.get("max_lora_rank")
    inference["enable_lora"] = True
    inference["max_lora_rank"] = max(rank, lora.rank) if isinstance(rank, int) else lora.rank


def _valid(schema: type[M], value: Any) -> M | None:
    """`value` validated as `schema`, or None when it is None or does not validate."""
    if value is None:
        return None
    try:
        return schema.model_validate(value)
    except ValidationError:
        return None


def _set(data: Raw, path: tuple[str, ...], key: str, value: Any) -> None:
    section = _section(data, path)
    if section is not None:
        section[key] = value


def _section(data: Raw, path: tuple[str, ...]) -> Raw | None:
    """The table at `path`, copied into `data` so that it can be changed, and created (turned
    on) where it is absent or None; but an inference section that is off stays off (None)."""
    table = data
    for key in path:
        value = table.get(key)
        if isinstance(value, BaseModel):
            value = value.model_dump()
        elif isinstance(value, dict):
            value = dict(value)
        elif value is None and not (table is data and key == "inference"):
            value = {}
        else:
            return None  # off, or not a table: validation reports what is wrong there
        table[key] = value
        table = value
    return table


class TrainerEntry(TrainerConfig, LaunchOptions):
    """Train the policy on the orchestrator's batches (reads a trainer.toml written by `rl`)."""


class OrchestratorEntry(OrchestratorConfig, LaunchOptions):
    """Sample rollouts and send training batches (reads an orchestrator.toml written by `rl`)."""


class InferenceEntry(InferenceConfig, LaunchOptions):
    """Serve the policy with vLLM (reads an inference.toml written by `rl`)."""
