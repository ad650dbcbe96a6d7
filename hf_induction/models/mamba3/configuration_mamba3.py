"""Configuration of Mamba-3: the trapezoidal, complex-state selective SSM of Lahoti et al.
(arXiv 2603.15569) as its public layer (state-spaces/mamba, `mamba_ssm/modules/mamba3.py`)
builds it, single- or multi-input multi-output."""

from transformers import PreTrainedConfig

# The reference's two rotary fractions: half of the state rows turned, or all of them.
ROPE_FRACTIONS = (0.5, 1.0)
SSM_KERNELS = ("chunked", "recurrent")


class Mamba3Config(PreTrainedConfig):
    r"""
    Configuration of a [`Mamba3ForCausalLM`]: pre-norm blocks of a Mamba-3 mixer and a SwiGLU
    MLP (the reference's `mixer_seq_simple` block). Per head the mixer keeps a state h
    [state_size, head_dim] and, per token, with the exponential-trapezoidal rule,

        h_t = R_t (a_t h_{t-1} + (1 - lam_t) dt_t a_t B_{t-1} x_{t-1}^T) + lam_t dt_t B_t x_t^T
        y_t = (h_t^T C_t + D x_t) * silu(z_t)


    with a_t = exp(A_t dt_t), A_t = -max(f(A-projection), A_floor) data-dependent (f the
    reference's heavy-tailed activation, 1 + u or 1 / (1 - u)), dt_t = softplus(projection +
    dt_bias), lam_t = sigmoid(projection) the trapezoid's weight per head, and R_t turning state
    rows 2i, 2i + 1 (the first `num_angles` pairs) by pi tanh(theta_t[i]) dt_t: a complex state.
    B and C are RMS-normed and then offset by a learned bias per head (initialised to 1); there
    is no short convolution. With `mimo_rank` R > 1 (MIMO) a token writes R outer products
    sum_r B_{t,r} x_{t,r}^T into the state and reads it R times, y_{t,r} = h_t^T C_{t,r}, where
    B and C are projected R times and x_{t,r} = x_t * mimo_x[r], gated by z_t * mimo_z[r] and
    summed with weights mimo_o[r] (per head and channel): R times the state's use per token at
    the same state size. The reference's optional output norm is not built.

    Args:
        vocab_size (`int`, *optional*, defaults to 9):
            Number of tokens.
        hidden_size (`int`, *optional*, defaults to 256):
            Width d of the residual stream.
        num_hidden_layers (`int`, *optional*, defaults to 6):
            Number of blocks.
        expand (`int`, *optional*, defaults to 2):
            The mixer's inner width is `expand * hidden_size`.
        head_dim (`int`, *optional*, defaults to 64):
            Channels P per head; the inner width must be a multiple of it.
        state_size (`int`, *optional*, defaults to 32):
            State rows N per head (B and C are projected once, as the reference's one group,
            and made per head by their biases).
        mimo_rank (`int`, *optional*, defaults to 1):
            R: 1 is the single-input single-output layer (SISO), more is MIMO (the reference
            uses 4).
        rope_fraction (`float`, *optional*, defaults to 0.5):
            The fraction of state rows that turn, one of `ROPE_FRACTIONS`; the pairs that turn
            are `num_angles`, at least one.
        intermediate_size (`int`, *optional*, defaults to 540):
            Width of the SwiGLU MLP.
        dt_min (`float`, *optional*, defaults to 0.001):
            The smallest initial time step (drawn log-uniform per head).
        dt_max (`float`, *optional*, defaults to 0.1):
            The largest initial time step.
        dt_init_floor (`float`, *optional*, defaults to 1e-4):
            The floor of the initial time steps.
        A_floor (`float`, *optional*, defaults to 1e-4):
            The smallest decay rate -A: no token keeps its state undecayed.
        rms_norm_eps (`float`, *optional*, defaults to 1e-6):
            Epsilon of the blocks' RMS norms.
        bc_norm_eps (`float`, *optional*, defaults to 1e-5):
            Epsilon of the RMS norms of B and C (the reference's).
        ssm_kernel (`str`, *optional*, defaults to `"chunked"`):
            `"chunked"`: the chunked form (`chunked.py`). `"recurrent"`: the step-by-step
            reference (`naive.py`). Both compute the same function; one-token steps
            (`generate()` with a cache) always use the recurrence.
        chunk_size (`int`, *optional*, defaults to 64):
            Steps per chunk of the chunked kernel's scan: a token is one step, or 2R with MIMO
            (so 64 / (2R) tokens a chunk, near the reference's advice of 64 / R); a shorter
            sequence is one chunk.
        initializer_range (`float`, *optional*, defaults to 0.02):
            Standard deviation of the linear and embedding weights.
        use_cache (`bool`, *optional*, defaults to `True`):
            Whether `generate()` keeps each layer's state between steps.
    """

    model_type = "hf_induction_mamba3"

    vocab_size: int = 9
    hidden_size: int = 256
    num_hidden_layers: int = 6
    expand: int = 2
    head_dim: int = 64
    state_size: int = 32
    mimo_rank: int = 1
    rope_fraction: float = 0.5
    intermediate_size: int = 540
    dt_min: float = 1e-3
    dt_max: float = 0.1
    dt_init_floor: float = 1e-4
    A_floor: float = 1e-4
    rms_norm_eps: float = 1e-6
    bc_norm_eps: float = 1e-5
    ssm_kernel: str = "chunked"
    chunk_size: int = 64
    initializer_range: float = 0.02
    use_cache: bool = True
    bos_token_id: int | None = None
    eos_token_id: int | None = None
    pad_token_id: int | None = None
    tie_word_embeddings: bool = False

    def __post_init__(self, **kwargs):
        for name in ("vocab_size", "hidden_size", "num_hidden_layers", "expand", "head_dim",
                     "state_size", "mimo_rank", "intermediate_size", "chunk_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.inner_size % self.head_dim:
            raise ValueError(f"expand * hidden_size ({self.inner_size}) must be a multiple of "
                             f"head_dim ({self.head_dim})")
        if self.rope_fraction not in ROPE_FRACTIONS:
            raise ValueError(f"rope_fraction must be one of {ROPE_FRACTIONS}, got "
                             f"{self.rope_fraction!r}")
        if self.num_angles < 1:
            raise ValueError(f"state_size {self.state_size} at rope_fraction "
                             f"{self.rope_fraction} turns no pair of rows; need state_size >= "
                             f"{int(2 / self.rope_fraction)}")
        if self.ssm_kernel not in SSM_KERNELS:
            raise ValueError(f"ssm_kernel must be one of {SSM_KERNELS}, got {self.ssm_kernel!r}")
        if not 0 < self.dt_min <= self.dt_max:
            raise ValueError(f"need 0 < dt_min <= dt_max, got {self.dt_min} and {self.dt_max}")
        if not (self.dt_init_floor > 0 and self.A_floor > 0):
            raise ValueError(f"dt_init_floor and A_floor must be positive, got "
                             f"{self.dt_init_floor} and {self.A_floor}")
        super().__post_init__(**kwargs)

    @property
    def inner_size(self) -> int:
        return self.expand * self.hidden_size

    @property
    def num_heads(self) -> int:
        return self.inner_size // self.head_dim

    @property
    def num_angles(self) -> int:
        """Pairs of state rows that turn (the reference's ``num_rope_angles``): the turned rows
        rounded down to even, halved."""
        return int(self.state_size * self.rope_fraction) // 2


__all__ = ["Mamba3Config"]
