"""Configuration of DeltaNet and Gated DeltaNet, with or without negative eigenvalues."""

from transformers import PreTrainedConfig

DELTA_RULE_KERNELS = ("chunked", "recurrent")


class DeltaNetConfig(PreTrainedConfig):
    r"""
    Configuration of a [`DeltaNetForCausalLM`]: pre-norm blocks of a delta-rule token mixer and
    a SwiGLU MLP. Per head, the mixer keeps a matrix memory S [head_dim, head_dim] and updates
    it once per token:

        S_t = a_t (I - b_t k_t k_t^T) S_{t-1} + b_t k_t v_t^T,    o_t = S_t^T q_t / sqrt(head_dim)

    with q, k, v from a short causal convolution and SiLU, q and k of unit length, and the step
    size b_t = sigmoid(w_b . x_t). The transition I - b k k^T has eigenvalues 1 and 1 - b.

    Args:
        vocab_size (`int`, *optional*, defaults to 9):
            Number of tokens.
        hidden_size (`int`, *optional*, defaults to 256):
            Width d of the residual stream.
        num_hidden_layers (`int`, *optional*, defaults to 6):
            Number of blocks.
        num_heads (`int`, *optional*, defaults to 4):
            Number of delta-rule heads.
        head_dim (`int`, *optional*):
            Size of each head's keys and values; `None` means `hidden_size // num_heads`.
        intermediate_size (`int`, *optional*, defaults to 640):
            Width of the SwiGLU MLP.
        gated (`bool`, *optional*, defaults to `False`):
            Gated DeltaNet (Yang, Kautz & Hatamizadeh, ICLR 2025): a data-dependent decay
            a_t = exp(-exp(A) softplus(w_a . x_t + dt_bias)) in (0, 1] per head, as Mamba-2's,
            and an output gate (RMSNorm(o) * SiLU(W_g x)). `False`: DeltaNet (Yang et al.,
            NeurIPS 2024), a_t = 1.
        allow_neg_eigval (`bool`, *optional*, defaults to `False`):
            b_t = 2 sigmoid(.) in (0, 2), so that the transition's eigenvalue 1 - b_t ranges over
            (-1, 1): Grazzi et al. (ICLR 2025) show that linear RNNs need negative eigenvalues to
            track the state of even Z_2 (parity). `False`: b_t in (0, 1), eigenvalues in [0, 1].
        conv_size (`int`, *optional*, defaults to 4):
            Width of the depthwise causal convolution over q, k and v; 0 for none.
        delta_rule_kernel (`str`, *optional*, defaults to `"chunked"`):
            `"chunked"`: the WY / UT form (`chunked.py`), a few matrix products per chunk of
            tokens. `"recurrent"`: the step-by-step reference (`naive.py`). Both compute the
            same function; this field only picks the kernel. One-token steps (`generate()` with
            a cache) always use the recurrence.
        chunk_size (`int`, *optional*, defaults to 64):
            Tokens per chunk of the chunked kernel; a shorter sequence is one chunk.
        rms_norm_eps (`float`, *optional*, defaults to 1e-6):
            Epsilon of the RMS norms.
        initializer_range (`float`, *optional*, defaults to 0.02):
            Standard deviation of the embedding and linear weights.
        use_cache (`bool`, *optional*, defaults to `True`):
            Whether `generate()` keeps each layer's memory and convolution window between
            steps. A plain `forward()` returns them only when called with `use_cache=True`.
    """

    model_type = "hf_induction_deltanet"

    vocab_size: int = 9
    hidden_size: int = 256
    num_hidden_layers: int = 6
    num_heads: int = 4
    head_dim: int | None = None
    intermediate_size: int = 640
    gated: bool = False
    allow_neg_eigval: bool = False
    conv_size: int = 4
    delta_rule_kernel: str = "chunked"
    chunk_size: int = 64
    rms_norm_eps: float = 1e-6
    initializer_range: float = 0.02
    use_cache: bool = True
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    tie_word_embeddings: bool = False
    # Householder factors per token: one for DeltaNet (not a field, so DeltaNet's configs and
    # their hashes are what they were); `DeltaProductConfig` makes it one.
    num_householder = 1

    def __post_init__(self, **kwargs):
        if self.head_dim is None:
            self.head_dim = self.hidden_size // self.num_heads
        for name in ("vocab_size", "hidden_size", "num_hidden_layers", "num_heads", "head_dim",
                     "intermediate_size", "chunk_size", "num_householder"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.conv_size < 0:
            raise ValueError(f"conv_size must be 0 (no convolution) or more, got {self.conv_size}")
        if self.delta_rule_kernel not in DELTA_RULE_KERNELS:
            raise ValueError(f"delta_rule_kernel must be one of {DELTA_RULE_KERNELS}, "
                             f"got {self.delta_rule_kernel!r}")
        super().__post_init__(**kwargs)


class DeltaProductConfig(DeltaNetConfig):
    r"""
    Configuration of a [`DeltaProductForCausalLM`] (Siems et al., "DeltaProduct: Improving
    State-Tracking in Linear RNNs via Householder Products", arXiv 2502.10297): a
    [`DeltaNetConfig`] whose mixer takes ``num_householder`` delta-rule steps per token, each
    with its own key, value and step size, so that a token's transition is a product of n_h
    generalized Householder matrices (I - b k k^T):

        S_t = a_t (prod_{j = n_h..1} (I - b_tj k_tj k_tj^T)) S_{t-1} + (the n_h writes)

    With ``allow_neg_eigval`` each factor can be a reflection, and a product of n_h reflections
    can express any permutation that is a product of n_h transpositions: S_3's 3-cycles need
    n_h >= 2. The gate a_t (``gated``) acts once per token.

    Args:
        num_householder (`int`, *optional*, defaults to 2):
            Householder factors n_h per token; 1 is DeltaNet exactly.
        All other arguments as [`DeltaNetConfig`].
    """

    model_type = "hf_induction_deltaproduct"

    num_householder: int = 2


__all__ = ["DeltaNetConfig", "DeltaProductConfig"]
