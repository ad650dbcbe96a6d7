"""GPT-2 with a random position offset in training (the study's absolute-position setup)."""

from transformers import AutoConfig, AutoModelForCausalLM

from .configuration_gpt2_offset import GPT2OffsetConfig
from .modeling_gpt2_offset import GPT2OffsetLMHeadModel

AutoConfig.register(GPT2OffsetConfig.model_type, GPT2OffsetConfig, exist_ok=True)
AutoModelForCausalLM.register(GPT2OffsetConfig, GPT2OffsetLMHeadModel, exist_ok=True)

# A saved checkpoint then carries this code and an auto_map, for trust_remote_code=True.
GPT2OffsetConfig.register_for_auto_class()
GPT2OffsetLMHeadModel.register_for_auto_class("AutoModelForCausalLM")

__all__ = ["GPT2OffsetConfig", "GPT2OffsetLMHeadModel"]
