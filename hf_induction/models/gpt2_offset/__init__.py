"""GPT-2 with a random position offset in training (the study's absolute-position setup):
configuration, model, and its `SPEC`.

`SPEC` loads without torch; the classes load, and register with the Auto classes, on first
use.
"""

from .. import gpt2
from ..spec import ModelSpec

SPEC = ModelSpec(
    name="gpt2_offset",
    config="hf_induction.models.gpt2_offset.configuration_gpt2_offset:GPT2OffsetConfig",
    presets={
        # The second study's from-scratch transformers: 4 layers, 4 heads, d 256, MLP x4.
        "paper": {"n_layer": 4, "n_embd": 256, "n_head": 4, **gpt2.GELU_TANH},
        "tiny": {"n_layer": 2, "n_embd": 32, "n_head": 4, "n_positions": 128,
                 **gpt2.GELU_TANH},
    },
    # The offset only moves the position ids: GPT-2's count.
    flops_per_token=gpt2.flops_per_token,
    cpu_budget=gpt2.TRANSFORMER_CPU_BUDGET,
    auto_classes={"AutoModelForCausalLM":
                  "hf_induction.models.gpt2_offset.modeling_gpt2_offset:GPT2OffsetLMHeadModel"},
)

__getattr__ = SPEC.exports(__name__, {
    "GPT2OffsetConfig": "configuration_gpt2_offset",
    "GPT2OffsetLMHeadModel": "modeling_gpt2_offset",
})

__all__ = ["SPEC", "GPT2OffsetConfig", "GPT2OffsetLMHeadModel"]
