"""LSTM baseline: configuration, model, and the pure-tensor reference LSTM."""

from transformers import AutoConfig, AutoModel, AutoModelForCausalLM

from .configuration_lstm import LSTMConfig
from .modeling_lstm import LSTMCache, LSTMForCausalLM, LSTMModel
from .naive import lstm_reference

AutoConfig.register(LSTMConfig.model_type, LSTMConfig, exist_ok=True)
AutoModel.register(LSTMConfig, LSTMModel, exist_ok=True)
AutoModelForCausalLM.register(LSTMConfig, LSTMForCausalLM, exist_ok=True)

# A saved checkpoint then carries this code and an auto_map, for trust_remote_code=True.
LSTMConfig.register_for_auto_class()
LSTMModel.register_for_auto_class("AutoModel")
LSTMForCausalLM.register_for_auto_class("AutoModelForCausalLM")

__all__ = ["LSTMCache", "LSTMConfig", "LSTMForCausalLM", "LSTMModel", "lstm_reference"]
