"""Configuration of PaTH attention: softmax attention whose positions are products of
data-dependent Householder matrices."""

from transformers import PreTrainedConfig

ATTN_KERNELS = ("chunked", "naive")


class PaTHAttnConfig(PreTrainedConfig):
    r"""
    Configuration of a [`PaTHAttnForCausalLM`] (Yang et al., "PaTH Attention: Position Encoding
    via Accumulating Householder Transformations", arXiv 2505.16381): pre-norm blocks of PaTH
    attention and a SwiGLU MLP, with no position embeddings. Per head the score of query i and
    key j <= i is

        s_ij = q_i^T H_i H_{i-1} ... H_{j+1} k_j / sqrt(head_dim),    H_t = I - beta_t w_t w_t^T

    so that where a key sits is told by the product of the tokens' transforms between it and the
    query. w_t is a unit vector per head (a low-rank projection, a short causal convolution, SiLU,
    then L2 normalisation) and beta_t = 2 sigmoid(.) in (0, 2), so each H_t has eigenvalues 1 and
    1 - beta_t in (-1, 1): a token can reflect. The layer follows fla's `PaTHAttention` at its
    defaults: no query/key norm, no forget gate (its `use_forget_gate` is off by default and is
    not offered here), as many key/value heads as query heads.

    Args:
        vocab_size (`int`, *optional*, defaults to 9):
            Number of tokens.
        hidden_size (`int`, *optional*, defaults to 256):
            Width d of the residual stream.
        num_hidden_layers (`int`, *optional*, defaults to 6):
            Number of blocks.
        num_heads (`int`, *optional*, defaults to 4):
            Attention heads; `hidden_size` must be a multiple of it.
        w_low_rank_dim (`int` or `None`, *optional*, defaults to 32):
            Rank of the map from the hidden state to the Householder directions w (fla's
            `use_low_rank_w`, rank 32); None: one full `hidden_size` x `hidden_size` map.
        conv_size (`int`, *optional*, defaults to 3):
            Width of the causal convolution over w (fla's `ShortConvolution`, no bias, SiLU);
            0: none, w is the projection itself.
        intermediate_size (`int`, *optional*, defaults to 720):
            Width of the SwiGLU MLP.
        rms_norm_eps (`float`, *optional*, defaults to 1e-6):
            Epsilon of the RMS norms.
        attn_kernel (`str`, *optional*, defaults to `"chunked"`):
            `"chunked"`: the key cache carried chunk by chunk by the delta rule (`chunked.py`).
            `"naive"`: every product H_i ... H_{j+1} formed explicitly (`naive.py`), the
            reference. Both compute the same function.
        chunk_size (`int`, *optional*, defaults to 64):
            Queries per chunk of the chunked kernel.
        initializer_range (`float`, *optional*, defaults to 0.02):
            Standard deviation of the linear and embedding weights.
        use_cache (`bool`, *optional*, defaults to `True`):
            Whether `generate()` keeps each layer's keys (carried to the last token), values
            and convolution window between steps.
    """

    model_type = "hf_induction_path_attn"
    # transformers' name for an attention model's heads: what reads a config for attention's
    # T x T memory (the reach check's batch bound) finds it there.
    attribute_map = {"num_attention_heads": "num_heads"}

    vocab_size: int = 9
    hidden_size: int = 256
    num_hidden_layers: int = 6
    num_heads: int = 4
    w_low_rank_dim: int | None = 32
    conv_size: int = 3
    intermediate_size: int = 720
    rms_norm_eps: float = 1e-6
    attn_kernel: str = "chunked"
    chunk_size: int = 64
    initializer_range: float = 0.02
    use_cache: bool = True
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self, **kwargs):
        for name in ("vocab_size", "hidden_size", "num_hidden_layers", "num_heads",
                     "intermediate_size", "chunk_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.hidden_size % self.num_heads:
            raise ValueError(f"hidden_size ({self.hidden_size}) must be a multiple of num_heads "
                             f"({self.num_heads})")
        if self.w_low_rank_dim is not None and self.w_low_rank_dim < 1:
            raise ValueError(f"w_low_rank_dim must be positive or None (a full-rank map), got "
                             f"{self.w_low_rank_dim}")
        if self.conv_size < 0:
            raise ValueError(f"conv_size must be 0 (no convolution) or positive, got "
                             f"{self.conv_size}")
        if self.attn_kernel not in ATTN_KERNELS:
            raise ValueError(f"attn_kernel must be one of {ATTN_KERNELS}, got "
                             f"{self.attn_kernel!r}")
        super().__post_init__(**kwargs)

    @property
    def head_dim(self) -> int:
        return self.hidden_size // self.num_heads


__all__ = ["PaTHAttnConfig"]
