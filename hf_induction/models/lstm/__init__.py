"""LSTM baseline: configuration, model, the pure-tensor reference LSTM, and its `SPEC`.

`SPEC` loads without torch; the classes load, and register with the Auto classes, on first
use.
"""

from ..spec import CpuBudget, ModelSpec


def flops_per_token(config, length: int) -> float:
    # 8 H (E + H) per layer (four gates, input and recurrent products) and the head.
    H, E, L = config.hidden_size, config.embedding_size, config.num_hidden_layers
    return sum(8 * H * ((E if k == 0 else H) + H) for k in range(L)) + 2 * H * config.vocab_size


_MODELING = "hf_induction.models.lstm.modeling_lstm"
SPEC = ModelSpec(
    name="lstm",
    config="hf_induction.models.lstm.configuration_lstm:LSTMConfig",
    presets={
        "paper": {"num_hidden_layers": 1, "hidden_size": 768},
        "tiny": {"num_hidden_layers": 1, "hidden_size": 32},
    },
    flops_per_token=flops_per_token,
    # The tiny LSTM learned acot_L5 and acot_L10_uniform at 1e-2 in 5,000 steps, and 3e-2
    # did best of four on acot_L3_m2 (0.11).
    cpu_budget=CpuBudget(lrs=(3e-2, 1e-2), max_steps=5000, eval_every=100),
    auto_classes={"AutoModel": f"{_MODELING}:LSTMModel",
                  "AutoModelForCausalLM": f"{_MODELING}:LSTMForCausalLM"},
)

__getattr__ = SPEC.exports(__name__, {
    "LSTMConfig": "configuration_lstm", "LSTMCache": "modeling_lstm",
    "LSTMForCausalLM": "modeling_lstm", "LSTMModel": "modeling_lstm", "lstm_reference": "naive",
})

__all__ = ["SPEC", "LSTMCache", "LSTMConfig", "LSTMForCausalLM", "LSTMModel", "lstm_reference"]
