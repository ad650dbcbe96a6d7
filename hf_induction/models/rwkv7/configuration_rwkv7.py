"""Configuration of RWKV-7 "Goose": blocks of a time mix (a generalized delta rule) and a channel
mix."""

from transformers import PreTrainedConfig

RWKV7_KERNELS = ("chunked", "recurrent")
# The chunked kernel's longest chunk: a log decay of at least -e^-0.5 a token keeps its inverse
# decays below exp(0.61 * 64) = 7e16, which leaves float32 a factor 1e21 for the keys' sizes
# and the sums over channels.
MAX_CHUNK = 64


class RWKV7Config(PreTrainedConfig):
    r"""
    Configuration of an [`RWKV7ForCausalLM`] (Peng et al., "RWKV-7 "Goose" with Expressive
    Dynamic State Evolution", arXiv 2503.14456): pre-norm blocks of a time mix and a channel mix.
    Per head the time mix keeps a matrix memory M [head_dim, head_dim] and updates it once per
    token with the generalized delta rule

        M_t = (diag(w_t) - (a_t * kk_t) kk_t^T) M_{t-1} + k_t v_t^T,    o_t = M_t^T r_t

    with a vector-valued decay w_t in (exp(-exp(-0.5)), 1) = (0.545, 1), a vector-valued
    in-context learning rate a_t in (0, 1), the unit removal key kk_t and the replacement key
    k_t (k scaled by a, per channel, as the paper's "relaxed value replacement"). The
    transition is similar to the symmetric diag(w) - z z^T (z = sqrt(a) * kk), so its
    eigenvalues are real and lie in (min(w) - 1, 1): a token can flip a direction only as far
    as -0.455, where DeltaNet [-1, 1] reaches -1.

    Args:
        vocab_size (`int`, *optional*, defaults to 9):
            Number of tokens.
        hidden_size (`int`, *optional*, defaults to 256):
            Width d of the residual stream.
        num_hidden_layers (`int`, *optional*, defaults to 6):
            Number of blocks.
        head_dim (`int`, *optional*, defaults to 64):
            Size of each head's keys and values; `hidden_size` must be a multiple of it.
        intermediate_size (`int`, *optional*):
            Width of the channel mix (ReLU^2 MLP); `None` means `4 * hidden_size`.
        decay_low_rank_dim (`int`, *optional*, defaults to 32):
            Rank of the low-rank map that makes the decay w_t data-dependent.
        a_low_rank_dim (`int`, *optional*, defaults to 32):
            Rank of the in-context learning rate's map.
        v_low_rank_dim (`int`, *optional*, defaults to 32):
            Rank of the value residual's mix (every block after the first mixes its values
            with the first block's, per channel).
        gate_low_rank_dim (`int`, *optional*, defaults to 64):
            Rank of the output gate's map.
        norm_eps (`float`, *optional*, defaults to 1e-5):
            Epsilon of the layer norms and of the per-head output norm.
        rwkv_kernel (`str`, *optional*, defaults to `"chunked"`):
            `"chunked"`: a chunk's recalls from one unit-triangular solve and a few matrix
            products (`chunked.py`). `"recurrent"`: the step-by-step reference (`naive.py`).
            Both compute the same function; this field only picks the kernel. One-token steps
            (`generate()` with a cache) always use the recurrence.
        chunk_size (`int`, *optional*, defaults to 16):
            Tokens per chunk of the chunked kernel, 1 to 64; a shorter sequence is one chunk.
        initializer_range (`float`, *optional*, defaults to 0.02):
            Standard deviation of the embedding and head weights.
        use_cache (`bool`, *optional*, defaults to `True`):
            Whether `generate()` keeps each layer's memory and last inputs between steps. A plain
            `forward()` returns them only when called with `use_cache=True`.
    """

    model_type = "hf_induction_rwkv7"

    vocab_size: int = 9
    hidden_size: int = 256
    num_hidden_layers: int = 6
    head_dim: int = 64
    intermediate_size: int | None = None
    decay_low_rank_dim: int = 32
    a_low_rank_dim: int = 32
    v_low_rank_dim: int = 32
    gate_low_rank_dim: int = 64
    norm_eps: float = 1e-5
    rwkv_kernel: str = "chunked"
    chunk_size: int = 16
    initializer_range: float = 0.02
    use_cache: bool = True
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self, **kwargs):
        if self.intermediate_size is None:
            self.intermediate_size = 4 * self.hidden_size
        for name in ("vocab_size", "hidden_size", "num_hidden_layers", "head_dim",
                     "intermediate_size", "decay_low_rank_dim", "a_low_rank_dim",
                     "v_low_rank_dim", "gate_low_rank_dim"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.hidden_size % self.head_dim:
            raise ValueError(f"hidden_size ({self.hidden_size}) must be a multiple of head_dim "
                             f"({self.head_dim})")
        if not 1 <= self.chunk_size <= MAX_CHUNK:
            raise ValueError(f"chunk_size must be in 1..{MAX_CHUNK}, got {self.chunk_size}")
        if self.rwkv_kernel not in RWKV7_KERNELS:
            raise ValueError(f"rwkv_kernel must be one of {RWKV7_KERNELS}, "
                             f"got {self.rwkv_kernel!r}")
        super().__post_init__(**kwargs)

    @property
    def num_heads(self) -> int:
        return self.hidden_size // self.head_dim


__all__ = ["RWKV7Config"]
