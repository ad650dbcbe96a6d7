"""Configuration of the LSTM baseline: embedding, `nn.LSTM`, linear head."""

from transformers import PreTrainedConfig

LSTM_IMPLEMENTATIONS = ("fused", "reference")


class LSTMConfig(PreTrainedConfig):
    r"""
    Configuration of an [`LSTMForCausalLM`]: token embedding, a stack of LSTM layers, and a
    linear read-out of the top layer's hidden state at every position.

    Args:
        vocab_size (`int`, *optional*, defaults to 9):
            Number of tokens (|G| + 4 in the task token layout).
        hidden_size (`int`, *optional*, defaults to 768):
            Size of the LSTM hidden and cell states.
        num_hidden_layers (`int`, *optional*, defaults to 1):
            Number of stacked LSTM layers.
        embedding_size (`int`, *optional*):
            Size of the token embedding; `None` means `hidden_size`.
        lstm_implementation (`str`, *optional*, defaults to `"fused"`):
            `"fused"` runs `nn.LSTM` (the fused CPU/cuDNN kernel). `"reference"` runs the same
            parameters through `lstm_reference`, plain tensor operations that
            `torch.func.vmap` can batch over stacked copies of the model. Both compute the same
            function; this field only picks the kernel.
        use_cache (`bool`, *optional*, defaults to `True`):
            Whether `generate()` keeps the recurrent state between steps. A plain `forward()`
            returns the state only when called with `use_cache=True`.

    Initialisation follows PyTorch's defaults: embedding N(0, 1); LSTM and head weights and
    biases U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
    """

    model_type = "hf_induction_lstm"

    vocab_size: int = 9
    hidden_size: int = 768
    num_hidden_layers: int = 1
    embedding_size: int | None = None
    lstm_implementation: str = "fused"
    use_cache: bool = True
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self, **kwargs):
        if self.embedding_size is None:
            self.embedding_size = self.hidden_size
        for name in ("vocab_size", "hidden_size", "num_hidden_layers", "embedding_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.lstm_implementation not in LSTM_IMPLEMENTATIONS:
            raise ValueError(
                f"lstm_implementation must be one of {LSTM_IMPLEMENTATIONS}, "
                f"got {self.lstm_implementation!r}"
            )
        if self.tie_word_embeddings and self.embedding_size != self.hidden_size:
            raise ValueError("tie_word_embeddings needs embedding_size == hidden_size")
        super().__post_init__(**kwargs)


__all__ = ["LSTMConfig"]
