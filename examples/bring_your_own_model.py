"""Bring your own model: a GRU language model, its config and its `ModelSpec`, defined in this
one file, checked against the contract the package's own models pass, and trained through the
N* search of `hf-induction nstar`, which finds it by this file's path.

    python examples/bring_your_own_model.py     # N* = 65, the whole pool; about two minutes
    EXAMPLE_SIZE=small python examples/bring_your_own_model.py   # seconds: the tests' size

The same spec comes in from the command line as ``--model path/to/this_file.py:SPEC``, as
``--model my_pkg.models:SPEC`` from an importable module, or by its name alone once an
installed package declares it in the entry-point group ``hf_induction.models``:

    [project.entry-points."hf_induction.models"]
    tiny_gru = "my_pkg.models:SPEC"
"""

from __future__ import annotations

import os
import sys

import torch
from torch import nn
from transformers import GenerationMixin, PreTrainedConfig, PreTrainedModel
from transformers.modeling_outputs import BaseModelOutput, CausalLMOutput

from hf_induction.models import CpuBudget, ModelSpec


class TinyGRUConfig(PreTrainedConfig):
    """A GRU language model: ``num_hidden_layers`` GRU layers of width ``hidden_size``. The
    trainer reads these three field names from every model."""

    model_type = "example_tiny_gru"

    def __init__(self, vocab_size: int = 16, hidden_size: int = 32, num_hidden_layers: int = 1,
                 **kwargs) -> None:
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        super().__init__(**kwargs)


class TinyGRUModel(PreTrainedModel):
    """The base model: embeddings, then the GRU layers."""

    config_class = TinyGRUConfig

    def __init__(self, config: TinyGRUConfig) -> None:
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.gru = nn.GRU(config.hidden_size, config.hidden_size, config.num_hidden_layers,
                          batch_first=True)
        self.post_init()

    def forward(self, input_ids: torch.Tensor, **kwargs) -> BaseModelOutput:
        hidden, _ = self.gru(self.embed(input_ids))                 # [B, T, H]
        return BaseModelOutput(last_hidden_state=hidden)


class TinyGRUForCausalLM(PreTrainedModel, GenerationMixin):
    """The causal LM: the base model and a linear head to the vocabulary."""

    config_class = TinyGRUConfig
    base_model_prefix = "model"

    def __init__(self, config: TinyGRUConfig) -> None:
        super().__init__(config)
        self.model = TinyGRUModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size)
        self.post_init()

    def get_output_embeddings(self) -> nn.Module:
        return self.lm_head

    def set_output_embeddings(self, new: nn.Module) -> None:
        self.lm_head = new

    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        return False

    def prepare_inputs_for_generation(self, input_ids: torch.Tensor, **kwargs) -> dict:
        # No state is kept between steps, so each step reads the whole sequence again.
        return {"input_ids": input_ids}

    def forward(self, input_ids: torch.Tensor, labels: torch.Tensor | None = None,
                attention_mask: torch.Tensor | None = None, **kwargs) -> CausalLMOutput:
        # attention_mask is not needed: the model is causal and batches are right-padded.
        hidden = self.model(input_ids).last_hidden_state
        # Logits in float32 under autocast, as the loss and ε need.
        logits = self.lm_head(hidden).float()                       # [B, T, V]
        # Labels follow the causal-LM convention: the loss shifts them.
        loss = None if labels is None else self.loss_function(
            logits=logits, labels=labels, vocab_size=self.config.vocab_size)
        return CausalLMOutput(loss=loss, logits=logits)


def flops_per_token(config: TinyGRUConfig, length: int) -> float:
    # Three gates, each an input and a recurrent product, per layer; then the head.
    width = config.hidden_size
    return 2 * (3 * 2 * width * width * config.num_hidden_layers + width * config.vocab_size)


# Everything the package knows of the model: the name results record, its config and the
# class the Auto classes build, its presets, its FLOPs and how it trains under --budget cpu.
SPEC = ModelSpec(
    name="tiny_gru",
    config=TinyGRUConfig,
    presets={"paper": {"hidden_size": 256, "num_hidden_layers": 2},
             "tiny": {"hidden_size": 64, "num_hidden_layers": 1}},
    flops_per_token=flops_per_token,
    cpu_budget=CpuBudget(lrs=(3e-2, 1e-2), max_steps=5000, eval_every=100),
    auto_classes={"AutoModel": TinyGRUModel, "AutoModelForCausalLM": TinyGRUForCausalLM},
)

if __name__ == "__main__":
    from hf_induction.commands import main
    from hf_induction.training.contract import check_model

    # 1. What the trainer, the search and the checks ask of a model (one line per check).
    report = check_model(SPEC)
    print(report)
    report.raise_if_failed()
    # 2. N* of one cell (Z_3, length 4) through the command line, the spec named by this path:
    #    the GRU needs all 65 training words, where the Dense-SSM (nstar_one_cell.py) needs 8.
    small = os.environ.get("EXAMPLE_SIZE", "full") == "small"
    budget = ["--max-steps", "20", "--eval-every", "10", "--n-max", "4"] if small else []
    sys.exit(main(["nstar", "--dataset", "modadd", "--config", "acot_L4_m3",
                   "--model", f"{os.path.abspath(__file__)}:SPEC", "--n-start", "2",
                   "--seeds", "10,20", "--out", "build/bring_your_own", "--no-progress",
                   *budget]))
