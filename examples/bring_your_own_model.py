"""Bring your own model: a GRU defined in this file, described by a `ModelSpec`, and trained
through the N* search of one cell.

    python examples/bring_your_own_model.py                # a minute or two on one CPU core
    EXAMPLE_SIZE=small python examples/bring_your_own_model.py   # seconds: the tests' size

What the package asks of a model (the trainer, the search and the checks never branch on
its type): a transformers `PreTrainedConfig` with ``vocab_size``, ``hidden_size`` and
``num_hidden_layers``, and a causal LM whose output has ``.logits`` [B, T, V] for the position
after each input token (labels follow the causal-LM convention: the model shifts).

The command line finds such a model without any edit of the package, through the spec below:
an installed package declares it in the entry-point group ``hf_induction.models``
(``[project.entry-points."hf_induction.models"]`` ``tiny_gru = "my_pkg.models:SPEC"``), or
``--model path/to/file.py:SPEC`` / ``--model my_pkg.models:SPEC`` names it. Where the
installed version does not take those forms yet, this file shows the same path through the
Python API: the spec's preset builds the config, and the search trains the model.
"""

from __future__ import annotations

import os

import torch
from torch import nn
from transformers import PreTrainedConfig, PreTrainedModel
from transformers.modeling_outputs import CausalLMOutput

from hf_induction.data import cell_arrays
from hf_induction.models.spec import CpuBudget, ModelSpec
from hf_induction.search import ProbeOutcome, SearchSettings, run_search
from hf_induction.tasks import parse, train_pool_size
from hf_induction.training import TrainData, TrainSettings, train_grid

SMALL = os.environ.get("EXAMPLE_SIZE", "full") == "small"


class TinyGRUConfig(PreTrainedConfig):
    """A GRU language model: ``num_hidden_layers`` GRU layers of width ``hidden_size``."""

    model_type = "example_tiny_gru"

    def __init__(self, vocab_size: int = 16, hidden_size: int = 32, num_hidden_layers: int = 1,
                 **kwargs) -> None:
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.num_hidden_layers = num_hidden_layers
        super().__init__(**kwargs)


class TinyGRUForCausalLM(PreTrainedModel):
    config_class = TinyGRUConfig

    def __init__(self, config: TinyGRUConfig) -> None:
        super().__init__(config)
        self.embed = nn.Embedding(config.vocab_size, config.hidden_size)
        self.gru = nn.GRU(config.hidden_size, config.hidden_size, config.num_hidden_layers,
                          batch_first=True)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size)
        self.post_init()

    def get_output_embeddings(self) -> nn.Module:
        return self.lm_head

    def forward(self, input_ids: torch.Tensor, labels: torch.Tensor | None = None,
                **kwargs) -> CausalLMOutput:
        hidden, _ = self.gru(self.embed(input_ids))                 # [B, T, H]
        logits = self.lm_head(hidden)                               # [B, T, V]
        loss = None if labels is None else self.loss_function(
            logits, labels, vocab_size=self.config.vocab_size)
        return CausalLMOutput(loss=loss, logits=logits)


def flops_per_token(config: TinyGRUConfig, length: int) -> float:
    # Three gates, each an input and a recurrent product, per layer; then the head.
    width = config.hidden_size
    return 2 * (3 * 2 * width * width * config.num_hidden_layers + width * config.vocab_size)


# Everything the package knows of the model: the name --model takes, its config, its presets,
# its FLOPs and how it trains under --preset cpu.
SPEC = ModelSpec(
    name="tiny_gru",
    config=TinyGRUConfig,
    presets={"paper": {"hidden_size": 256, "num_hidden_layers": 2},
             "tiny": {"hidden_size": 32, "num_hidden_layers": 1}},
    flops_per_token=flops_per_token,
    cpu_budget=CpuBudget(lrs=(1e-2,), max_steps=3000, eval_every=50),
)


def main() -> None:
    cell = parse("modadd", "acot_L4_m3")
    pool = train_pool_size(cell)
    arrays = cell_arrays(cell, seed=0, max_train=pool)
    data = TrainData(
        *(torch.from_numpy(a) for a in (arrays.train_input_ids, arrays.train_labels,
                                        arrays.val_input_ids, arrays.val_labels)),
        whole_pool=pool)
    # The config as the package builds one: the spec's preset, the task's vocabulary and its
    # special tokens.
    config = TinyGRUConfig(**SPEC.presets["tiny"], vocab_size=cell.vocab.size,
                           **cell.vocab.special_token_ids())
    budget = SPEC.cpu_budget
    settings = TrainSettings(max_steps=20 if SMALL else budget.max_steps,
                             eval_every=10 if SMALL else budget.eval_every,
                             lrs=budget.lrs, seeds=(10, 20))

    def probe(n: int) -> ProbeOutcome:
        runs = train_grid(lambda: TinyGRUForCausalLM(config), data, n, settings)
        return ProbeOutcome(n=n, success=any(run.success for run in runs),
                            best_val_loss=min(run.best_val_loss for run in runs),
                            steps=sum(run.steps for run in runs))

    search = SearchSettings(mode="refined", n_start=2, n_max=4 if SMALL else pool)
    print(f"{SPEC.name}: {run_search(probe, pool, search).summary()}")


if __name__ == "__main__":
    main()
