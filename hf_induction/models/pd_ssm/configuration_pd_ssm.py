"""Configuration of PD-SSM (arXiv 2509.22284, NeurIPS 2025): a state-space model whose transition
is a column one-hot matrix times a complex diagonal."""

from transformers import PreTrainedConfig

SSM_KERNELS = ("scan", "recurrent")


class PDSSMConfig(PreTrainedConfig):
    r"""
    Configuration of a [`PDSSMForCausalLM`]: post-norm blocks of a PD-SSM layer and a GELU MLP.
    The layer keeps a complex state x [state_size] and updates it once per token u_t,

        x_t = P(u_t) D(u_t) x_{t-1} + B u_t,    y_t = Re(C x_t) + D_skip * u_t

    where P(u_t) is column one-hot (each column holds a single 1, so the state's entry j moves
    to one row) and D(u_t) a complex diagonal of magnitude in (0, 1) and phase in (0, 2 pi).
    One layer of N states can so follow any automaton of N states exactly (one-hot states),
    and a product of such transitions is again one (the scan kernel's combine). P is chosen
    from the token: a softmax over a dictionary of `dictionary_size` real N x N score matrices
    mixes them, and each column's largest score gives its 1, with the gradient of each column's
    softmax (straight-through).

    Args:
        vocab_size (`int`, *optional*, defaults to 9):
            Number of tokens.
        hidden_size (`int`, *optional*, defaults to 256):
            Width d of the residual stream (the tokens' embeddings u).
        num_hidden_layers (`int`, *optional*, defaults to 6):
            Number of blocks.
        state_size (`int`, *optional*, defaults to 128):
            Complex states N per layer (the reference's state-tracking runs use 128).
        dictionary_size (`int`, *optional*, defaults to 8):
            Score matrices K the column one-hot transition is chosen from (the reference's
            state-tracking layer's default).
        diagonal_expand (`int`, *optional*, defaults to 2):
            The magnitude and phase MLPs' hidden width is `diagonal_expand * state_size` (the
            reference's `hidden_D_multiple`).
        intermediate_size (`int`, *optional*, defaults to 720):
            Width of each block's GELU MLP.
        layer_norm_eps (`float`, *optional*, defaults to 1e-5):
            Epsilon of the layer norms (`nn.LayerNorm`'s default, as the reference's).
        ssm_kernel (`str`, *optional*, defaults to `"scan"`):
            `"scan"`: the associative scan over (index, diagonal, input) triples (`scan.py`).
            `"recurrent"`: the step-by-step reference with dense matrices (`naive.py`). Both
            compute the same function and the same gradients; one-token steps (`generate()`
            with a cache) always use the recurrence.
        use_cache (`bool`, *optional*, defaults to `True`):
            Whether `generate()` keeps each layer's state between steps.
    """

    model_type = "hf_induction_pd_ssm"

    vocab_size: int = 9
    hidden_size: int = 256
    num_hidden_layers: int = 6
    state_size: int = 128
    dictionary_size: int = 8
    diagonal_expand: int = 2
    intermediate_size: int = 720
    layer_norm_eps: float = 1e-5
    ssm_kernel: str = "scan"
    use_cache: bool = True
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self, **kwargs):
        for name in ("vocab_size", "hidden_size", "num_hidden_layers", "state_size",
                     "dictionary_size", "diagonal_expand", "intermediate_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if not self.layer_norm_eps > 0:
            raise ValueError(f"layer_norm_eps must be positive, got {self.layer_norm_eps}")
        if self.ssm_kernel not in SSM_KERNELS:
            raise ValueError(f"ssm_kernel must be one of {SSM_KERNELS}, got {self.ssm_kernel!r}")
        super().__post_init__(**kwargs)

    @property
    def diagonal_size(self) -> int:
        """Hidden width of the magnitude and phase MLPs."""
        return self.diagonal_expand * self.state_size


__all__ = ["PDSSMConfig"]
