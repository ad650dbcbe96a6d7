"""A researcher's own model, written into a folder outside the tree: a GRU causal LM (config,
model, `ModelSpec`), a broken copy whose loss forgets the shift to the next token, and one
whose head scores three tokens more than its vocabulary.

`write_package` lays it out as an installed distribution (a package and its ``dist-info``
with an entry point in ``hf_induction.models``), `write_file` as one Python file.
"""

from pathlib import Path

MODELING = '''
import torch
from torch import nn
from transformers import GenerationMixin, PreTrainedConfig, PreTrainedModel
from transformers.modeling_outputs import BaseModelOutput, CausalLMOutput


class GRUConfig(PreTrainedConfig):
    model_type = "outside_gru_{tag}"

    vocab_size: int = 9
    hidden_size: int = 16
    num_hidden_layers: int = 1
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    tie_word_embeddings: bool = False


class GRUModel(PreTrainedModel):
    config_class = GRUConfig
    base_model_prefix = "model"

    def __init__(self, config):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.gru = nn.GRU(config.hidden_size, config.hidden_size,
                          num_layers=config.num_hidden_layers, batch_first=True)
        self.post_init()

    def forward(self, input_ids, **kwargs):
        hidden, _ = self.gru(self.embeddings(input_ids))
        return BaseModelOutput(last_hidden_state=hidden)


class GRUForCausalLM(PreTrainedModel, GenerationMixin):
    config_class = GRUConfig
    base_model_prefix = "model"

    def __init__(self, config):
        super().__init__(config)
        self.model = GRUModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size)
        self.post_init()

    def get_output_embeddings(self):
        return self.lm_head

    def set_output_embeddings(self, new):
        self.lm_head = new

    @classmethod
    def _supports_default_dynamic_cache(cls):
        return False

    def prepare_inputs_for_generation(self, input_ids, **kwargs):
        # No state is kept between steps: each step reads the whole sequence.
        return {{"input_ids": input_ids}}

    def loss_of(self, logits, labels):
        return self.loss_function(logits=logits, labels=labels,
                                  vocab_size=self.config.vocab_size)

    def forward(self, input_ids, labels=None, attention_mask=None, **kwargs):
        # attention_mask is not needed: the model is causal, and batches are right-padded.
        logits = self.lm_head(self.model(input_ids).last_hidden_state).float()
        loss = None if labels is None else self.loss_of(logits, labels)
        return CausalLMOutput(loss=loss, logits=logits)


class BrokenConfig(GRUConfig):
    model_type = "outside_broken_{tag}"


class BrokenForCausalLM(GRUForCausalLM):
    config_class = BrokenConfig

    def loss_of(self, logits, labels):
        # Output j scored against label j, not j + 1.
        return nn.functional.cross_entropy(logits.flatten(0, 1), labels.flatten())


class WideHeadConfig(GRUConfig):
    model_type = "outside_wide_head_{tag}"


class WideHeadForCausalLM(GRUForCausalLM):
    config_class = WideHeadConfig

    def __init__(self, config):
        super().__init__(config)
        # A head sized by hand: logits of three tokens the vocabulary does not have.
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size + 3)
        self.post_init()

    def loss_of(self, logits, labels):
        return nn.functional.cross_entropy(logits[:, :-1].flatten(0, 1), labels[:, 1:].flatten())
'''

SPECS = '''
from hf_induction.models import CpuBudget, ModelSpec

PRESETS = {{"paper": {{"hidden_size": 64}}, "tiny": {{"hidden_size": 16}}}}
BUDGET = CpuBudget(lrs=(3e-2,), max_steps=200, eval_every=20)
SPEC = ModelSpec(name="{name}", config={config}, presets=PRESETS,
                 flops_per_token=lambda config, length: 0.0, cpu_budget=BUDGET,
                 auto_classes={{"AutoModelForCausalLM": {model}}})
WIDE = ModelSpec(name="{name}_wide", config={config},
                 presets={{"paper": {{"hidden_size": 64}}, "tiny": {{"hidden_size": 24}}}},
                 flops_per_token=lambda config, length: 0.0, cpu_budget=BUDGET,
                 auto_classes={{"AutoModelForCausalLM": {model}}})
BROKEN = ModelSpec(name="{name}_broken", config={broken_config}, presets=PRESETS,
                   flops_per_token=lambda config, length: 0.0, cpu_budget=BUDGET,
                   auto_classes={{"AutoModelForCausalLM": {broken_model}}})
WIDE_HEAD = ModelSpec(name="{name}_wide_head", config={wide_head_config}, presets=PRESETS,
                      flops_per_token=lambda config, length: 0.0, cpu_budget=BUDGET,
                      auto_classes={{"AutoModelForCausalLM": {wide_head_model}}})
'''


def write_package(site: Path, package: str, name: str) -> Path:
    """An installed distribution in ``site``: ``package/`` (its spec module loads without
    torch; the classes are named by "module:Class" strings) and its ``dist-info``, whose entry
    points give ``name`` (one spec) and ``name``-wide (a list). Put ``site`` on sys.path."""
    (site / package).mkdir(parents=True)
    (site / package / "modeling.py").write_text(MODELING.format(tag=package))
    where = f"{package}.modeling"
    (site / package / "__init__.py").write_text(SPECS.format(
        name=name, config=repr(f"{where}:GRUConfig"), model=repr(f"{where}:GRUForCausalLM"),
        broken_config=repr(f"{where}:BrokenConfig"),
        broken_model=repr(f"{where}:BrokenForCausalLM"),
        wide_head_config=repr(f"{where}:WideHeadConfig"),
        wide_head_model=repr(f"{where}:WideHeadForCausalLM")) + "\nMORE = [WIDE]\n")
    dist = site / f"{package}-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {package}\nVersion: 0.1\n")
    (dist / "entry_points.txt").write_text(
        f"[hf_induction.models]\n{name} = {package}:SPEC\n{name}_more = {package}:MORE\n")
    return site


def write_file(path: Path, name: str) -> Path:
    """One Python file holding the classes and specs that name them as classes."""
    path.write_text(MODELING.format(tag=path.stem) + SPECS.format(
        name=name, config="GRUConfig", model="GRUForCausalLM", broken_config="BrokenConfig",
        broken_model="BrokenForCausalLM", wide_head_config="WideHeadConfig",
        wide_head_model="WideHeadForCausalLM"))
    return path
