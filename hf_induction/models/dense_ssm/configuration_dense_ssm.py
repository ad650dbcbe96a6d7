"""Configuration of the Dense-SSM (bilinear RNN) of Ebrahimi & Memisevic (NeurIPS 2025)."""

from transformers import PreTrainedConfig

STATE_NORMS = ("none", "step", "readout")
TRANSITION_KERNELS = ("grouped", "all_tokens", "gather")


class DenseSSMConfig(PreTrainedConfig):
    r"""
    Configuration of a [`DenseSSMForCausalLM`]: the recurrence h_t = A(x_t) h_{t-1}, where A(x) is a
    LINEAR function of the one-hot input x (A(x)_ij = sum_k W_ijk x_k), so the model holds one d x d
    matrix per token. There is no bias and no additive input term; h_0 is learned; logits are a
    linear read-out of h_t.

    Args:
        vocab_size (`int`, *optional*, defaults to 9):
            Number of tokens, hence of transition matrices (|G| + 4 in the task token layout).
        hidden_size (`int`, *optional*, defaults to 256):
            Size d of the state h_t.
        num_hidden_layers (`int`, *optional*, defaults to 1):
            Number of recurrent layers. Only 1 is defined: A(x) is linear in a one-hot token, and a
            second layer would have no one-hot input. The field exists so that every model of the
            project shares `hidden_size`, `num_hidden_layers` and `vocab_size`.
        transition_rank (`int`, *optional*):
            `None` for the dense table of `vocab_size` d x d matrices. An integer R selects the
            factorised transition A(x) = U diag(V^T x) W^T, with U, W of shape [d, R] and V of
            shape [vocab_size, R].
        state_norm (`str`, *optional*, defaults to `"step"`):
            Where the state is rescaled to unit RMS: `"none"`, `"step"` (after every update) or
            `"readout"` (only the copy the read-out sees). The recurrence is linear in h with no
            additive term, so rescaling h_{t-1} only rescales h_t: `"step"` and `"readout"` compute
            the same logits and the same gradients in exact arithmetic. `"step"` is the default
            because it also keeps the state's numeric range bounded on sequences of any length
            (the out-of-distribution check runs at twice the training length), at the cost of one
            norm per step. Training and inference use the same function, so there is no
            train/inference mismatch. `"none"` lets the read-out see the raw scale.
        state_norm_eps (`float`, *optional*, defaults to 1e-8):
            Added to the mean square of the state before the reciprocal square root.
        transition_kernel (`str`, *optional*, defaults to `"grouped"`):
            How the dense transition is applied; all three compute the same function.
            `"grouped"`: at each step, pack the states by token and multiply each block by its
            own token's matrix in one batched product, with a hand-written backward; the least
            arithmetic and memory, and the fastest on the CPU at every size measured
            (docs/benchmarks.md). It needs concrete token ids, so under `torch.func.vmap` the
            model uses `"all_tokens"` instead. `"all_tokens"`: multiply the state by every token's
            matrix in one matrix product and keep the current token's row: V times the
            arithmetic, but autograd keeps only the [B, d] states. `"gather"`: index A(x_t) per
            example ([B, d, d] per step) and multiply: autograd keeps B*T*d*d numbers. Ignored by
            the factorised transition.
        initializer_range (`float`, *optional*, defaults to 0.02):
            Standard deviation of the read-out weights.
        use_cache (`bool`, *optional*, defaults to `True`):
            Whether `generate()` keeps the recurrent state between steps. A plain `forward()`
            returns the state only when called with `use_cache=True`.

    Initialisation: every A(e_k) is an independent random orthogonal matrix (QR of a Gaussian, with
    the sign fix that makes it Haar-uniform). Any product of orthogonal matrices is orthogonal, so
    at initialisation ||h_t|| = ||h_0|| exactly for any number of steps (2L and beyond), with or
    without normalisation, and gradients neither explode nor vanish through time; different tokens
    still act differently, as rotations, the way group elements act on a vector. (Identity plus
    noise was rejected: the same few matrices repeat along a sequence, so the noise adds up
    coherently: at d = 32, 7 tokens and noise 0.02 the norm grew 3-4x over 40 steps.) For the
    factorised transition, U and W get orthonormal columns (rows when R > d) and V random signs,
    so A(x) is exactly orthogonal when R = d and never expands the state otherwise (it shrinks
    when R < d, which the per-step normalisation absorbs). h_0 is N(0, 1); the read-out is
    N(0, initializer_range^2) with bias 0.
    """

    model_type = "hf_induction_dense_ssm"

    vocab_size: int = 9
    hidden_size: int = 256
    num_hidden_layers: int = 1
    transition_rank: int | None = None
    state_norm: str = "step"
    state_norm_eps: float = 1e-8
    transition_kernel: str = "grouped"
    initializer_range: float = 0.02
    use_cache: bool = True
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self, **kwargs):
        if self.vocab_size < 1 or self.hidden_size < 1:
            raise ValueError(
                "vocab_size and hidden_size must be positive, "
                f"got {self.vocab_size}, {self.hidden_size}"
            )
        if self.num_hidden_layers != 1:
            raise ValueError(
                f"num_hidden_layers must be 1 for the Dense-SSM, got {self.num_hidden_layers}"
            )
        if self.transition_rank is not None and self.transition_rank < 1:
            raise ValueError(
                f"transition_rank must be None or positive, got {self.transition_rank}"
            )
        if self.state_norm not in STATE_NORMS:
            raise ValueError(f"state_norm must be one of {STATE_NORMS}, got {self.state_norm!r}")
        if self.transition_kernel not in TRANSITION_KERNELS:
            raise ValueError(
                f"transition_kernel must be one of {TRANSITION_KERNELS}, "
                f"got {self.transition_kernel!r}"
            )
        if self.tie_word_embeddings:
            raise ValueError("the Dense-SSM has no input embedding to tie the read-out to")
        super().__post_init__(**kwargs)


__all__ = ["DenseSSMConfig"]
