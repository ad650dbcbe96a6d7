"""Dense-SSM (bilinear RNN): configuration, model, and the naive reference."""

from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

from .configuration_dense_ssm import DenseSSMConfig
from .modeling_dense_ssm import DenseSSMCache, DenseSSMForCausalLM, DenseSSMModel

AutoConfig.register(DenseSSMConfig.model_type, DenseSSMConfig, exist_ok=True)
AutoModel.register(DenseSSMConfig, DenseSSMModel, exist_ok=True)
AutoModelForCausalLM.register(DenseSSMConfig, DenseSSMForCausalLM, exist_ok=True)

# A saved checkpoint then carries this code and an auto_map, for trust_remote_code=True.
DenseSSMConfig.register_for_auto_class()
DenseSSMModel.register_for_auto_class("AutoModel")
DenseSSMForCausalLM.register_for_auto_class("AutoModelForCausalLM")

__all__ = ["DenseSSMCache", "DenseSSMConfig", "DenseSSMForCausalLM", "DenseSSMModel"]
