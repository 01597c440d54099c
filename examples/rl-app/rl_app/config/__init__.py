"""The schema of the RL app, split like prime-rl's: shared sections, one module per component,
and the top-level `RLConfig` that ties them together."""

from rl_app.config.inference import InferenceConfig
from rl_app.config.orchestrator import OrchestratorConfig
from rl_app.config.rl import InferenceEntry, OrchestratorEntry, RLConfig, TrainerEntry
from rl_app.config.trainer import TrainerConfig

__all__ = [
    "InferenceConfig",
    "InferenceEntry",
    "OrchestratorConfig",
    "OrchestratorEntry",
    "RLConfig",
    "TrainerConfig",
    "TrainerEntry",
]
