"""Configuration of the selective SSM: Mamba-2's layer with a choice of state transition (real
in [0, 1], real in [-1, 1], or complex)."""

from transformers import PreTrainedConfig

# The eigenvalues a token's transition can have, per setting (see `SelectiveSSMConfig`).
TRANSITIONS = ("real", "negative", "complex")
SSM_KERNELS = ("chunked", "recurrent")


class SelectiveSSMConfig(PreTrainedConfig):
    r"""
    Configuration of a [`SelectiveSSMForCausalLM`]: pre-norm blocks of a selective state-space
    mixer (Mamba-2's layer: input projection, short causal convolution, a scalar time step per
    head, the gated output norm) and a SwiGLU MLP. Per head the mixer keeps a state h
    [state_size, head_dim] and updates it once per token,

        h_t = a_t R_t h_{t-1} + dt_t B_t x_t^T,    y_t = h_t^T C_t + D x_t

    with a_t = exp(-dt_t exp(A_log)) and R_t the identity unless the transition says otherwise.
    The three settings differ in that transition only, so that they measure what its
    eigenvalues buy:

    - ``"real"``: a_t in (0, 1), as Mamba and Mamba-2 (eigenvalues in [0, 1]).
    - ``"negative"``: a_t replaced by 2 a_t - 1 in (-1, 1), Grazzi et al.'s negative-eigenvalue
      Mamba (arXiv 2411.12537): a token can flip the state's sign.
    - ``"complex"``: R_t turns state rows 2i, 2i + 1 by the angle dt_t theta_t[i], with theta
      a data-dependent projection: eigenvalues a_t e^{i dt_t theta_t} on the complex disk,
      Mamba-3's complex-valued state (Lahoti et al., arXiv 2603.15569), computed as its
      data-dependent rotary embedding of B and C. Not the rest of Mamba-3 (its trapezoidal
      rule, MIMO), which does not change the eigenvalues.

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
            State rows N per head (B and C are shared by the heads, as Mamba-2's one group);
            even for the complex transition (rows are turned in pairs).
        conv_size (`int`, *optional*, defaults to 4):
            Width of the causal convolution over x, B and C.
        intermediate_size (`int`, *optional*, defaults to 544):
            Width of the SwiGLU MLP.
        transition (`str`, *optional*, defaults to `"real"`):
            One of `TRANSITIONS`, above.
        dt_min (`float`, *optional*, defaults to 0.001):
            The smallest initial time step (drawn log-uniform per head, as Mamba-2's).
        dt_max (`float`, *optional*, defaults to 0.1):
            The largest initial time step.
        rms_norm_eps (`float`, *optional*, defaults to 1e-6):
            Epsilon of the RMS norms.
        ssm_kernel (`str`, *optional*, defaults to `"chunked"`):
            `"chunked"`: Mamba-2's chunked form on rotated B and C (`chunked.py`).
            `"recurrent"`: the step-by-step reference (`naive.py`). Both compute the same
            function; one-token steps (`generate()` with a cache) always use the recurrence.
        chunk_size (`int`, *optional*, defaults to 64):
            Tokens per chunk of the chunked kernel; a shorter sequence is one chunk.
        initializer_range (`float`, *optional*, defaults to 0.02):
            Standard deviation of the linear and embedding weights.
        use_cache (`bool`, *optional*, defaults to `True`):
            Whether `generate()` keeps each layer's state and convolution window between steps.
    """

    model_type = "hf_induction_selective_ssm"

    vocab_size: int = 9
    hidden_size: int = 256
    num_hidden_layers: int = 6
    expand: int = 2
    head_dim: int = 64
    state_size: int = 32
    conv_size: int = 4
    intermediate_size: int = 544
    transition: str = "real"
    dt_min: float = 1e-3
    dt_max: float = 0.1
    rms_norm_eps: float = 1e-6
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
                     "state_size", "conv_size", "intermediate_size", "chunk_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.inner_size % self.head_dim:
            raise ValueError(f"expand * hidden_size ({self.inner_size}) must be a multiple of "
                             f"head_dim ({self.head_dim})")
        if self.transition not in TRANSITIONS:
            raise ValueError(f"transition must be one of {TRANSITIONS}, got {self.transition!r}")
        if self.transition == "complex" and self.state_size % 2:
            raise ValueError(f"state_size must be even for the complex transition (rows turn in "
                             f"pairs), got {self.state_size}")
        if self.ssm_kernel not in SSM_KERNELS:
            raise ValueError(f"ssm_kernel must be one of {SSM_KERNELS}, got {self.ssm_kernel!r}")
        if not 0 < self.dt_min <= self.dt_max:
            raise ValueError(f"need 0 < dt_min <= dt_max, got {self.dt_min} and {self.dt_max}")
        super().__post_init__(**kwargs)

    @property
    def inner_size(self) -> int:
        return self.expand * self.hidden_size

    @property
    def num_heads(self) -> int:
        return self.inner_size // self.head_dim

    @property
    def num_angles(self) -> int:
        """Rotation angles per token (shared by the heads, scaled by each head's time step)."""
        return self.state_size // 2 if self.transition == "complex" else 0


__all__ = ["SelectiveSSMConfig"]
