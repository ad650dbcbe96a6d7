"""PyTorch Mamba-3 (SISO or MIMO): pre-norm blocks of the Mamba-3 mixer (trapezoidal rule, a
complex state by data-dependent rotations, data-dependent decay, RMS-normed B and C with
biases, no convolution) and a SwiGLU MLP: `Mamba3Config`.

This file imports only torch, transformers and its own folder's files, so that a checkpoint saved
with `save_pretrained` carries it and loads with `trust_remote_code=True` without hf_induction.
"""

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from transformers import GenerationMixin, PreTrainedModel
from transformers import initialization as init
from transformers.modeling_layers import GradientCheckpointingLayer
from transformers.utils import ModelOutput

from .chunked import chunk_mamba3
from .configuration_mamba3 import Mamba3Config
from .naive import naive_mamba3


class Mamba3Cache:
    """What a layer needs to continue a sequence: its state h [B, H, N, P], and the last
    token's write vectors B [B, H, R, N] and inputs x [B, H, R, P] (R = 1 but with MIMO), which
    the trapezoid writes again at the next token. Constant in the length, so `generate()` costs
    the same per token at any length."""

    is_compileable = False

    def __init__(self, memories: list[torch.Tensor], last_B: list[torch.Tensor],
                 last_x: list[torch.Tensor]):
        self.memories = memories
        self.last_B = last_B
        self.last_x = last_x

    def layer(self, index: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.memories[index], self.last_B[index], self.last_x[index]

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        def pick(tensors):
            return [t.index_select(0, beam_idx.to(t.device)) for t in tensors]
        self.memories, self.last_B, self.last_x = (pick(self.memories), pick(self.last_B),
                                                   pick(self.last_x))


@dataclass
class Mamba3Output(ModelOutput):
    r"""
    last_hidden_state (`torch.Tensor` of shape `(batch_size, sequence_length, hidden_size)`):
        The final norm's output.
    cache (`Mamba3Cache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        The embeddings and every block's output, returned when `output_hidden_states=True`.
    """

    last_hidden_state: torch.Tensor | None = None
    cache: Mamba3Cache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


@dataclass
class Mamba3CausalLMOutput(ModelOutput):
    r"""
    loss (`torch.Tensor` of shape `(1,)`, *optional*):
        Next-token cross-entropy (labels shifted inside the model), when `labels` is passed.
    logits (`torch.Tensor` of shape `(batch_size, sequence_length, vocab_size)`):
        The read-out of every position.
    cache (`Mamba3Cache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        Returned when `output_hidden_states=True`.
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    cache: Mamba3Cache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None



class Mamba3RMSNorm(nn.Module):
    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetRMSNorm with DeltaNet->Mamba3  # noqa: E501
    def __init__(self, size: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetRMSNorm with DeltaNet->Mamba3  # noqa: E501
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)



def heavy_tail(u: torch.Tensor) -> torch.Tensor:
    """The reference's activation of the decay rate: 1 + u for u >= 0, 1 / (1 - u) below,
    positive, continuous and smooth at 0, and only slowly vanishing for negative u."""
    return u.clamp_min(0) + torch.reciprocal(1 - u.clamp_max(0))


class Mamba3Mixer(nn.Module):
    """The Mamba-3 mixer of one block (see `Mamba3Config`)."""

    def __init__(self, config: Mamba3Config):
        super().__init__()
        self.config = config
        d, inner, N, H = config.hidden_size, config.inner_size, config.state_size, config.num_heads
        R, P = config.mimo_rank, config.head_dim
        # z (the output gate), x, B and C (R of each), the time steps, the decay rates, the
        # trapezoid's weights and the rotation angles: one projection, in the reference's order.
        self.in_sizes = [inner, inner, R * N, R * N, H, H, H, config.num_angles]
        self.in_proj = nn.Linear(d, sum(self.in_sizes), bias=False)
        self.dt_bias = nn.Parameter(torch.empty(H))
        # B and C are projected once for all heads and made each head's own by its bias.
        self.B_bias = nn.Parameter(torch.empty(H, R, N))
        self.C_bias = nn.Parameter(torch.empty(H, R, N))
        self.B_norm = Mamba3RMSNorm(N, config.bc_norm_eps)
        self.C_norm = Mamba3RMSNorm(N, config.bc_norm_eps)
        if R > 1:
            # MIMO: each head's x and z taken to R inputs and gates, its R outputs summed.
            self.mimo_x = nn.Parameter(torch.empty(H, R, P))
            self.mimo_z = nn.Parameter(torch.empty(H, R, P))
            self.mimo_o = nn.Parameter(torch.empty(H, R, P))
        self.D = nn.Parameter(torch.empty(H))
        self.out_proj = nn.Linear(inner, d, bias=False)

    def ranks(self, t: torch.Tensor, name: str) -> torch.Tensor:
        """[B, H, T, P] -> [B, H, T, R, P]: times the MIMO weights ``name`` (SISO: as it is)."""
        if self.config.mimo_rank == 1:
            return t[:, :, :, None]
        return t[:, :, :, None] * getattr(self, name).to(t.dtype)[:, None]

    def angles(self, theta: torch.Tensor, dt: torch.Tensor) -> torch.Tensor:
        """The turn [B, H, T, N/2] of each pair of state rows from the angle projection
        [B, T, num_angles] and the time steps [B, H, T]: pi tanh(theta) dt, with the sign that
        turns the state (the reference turns B and C forward by the cumulative angle, which is
        the state turning back), and no turn for the pairs past `num_angles`."""
        turn = -math.pi * torch.tanh(theta)[:, None] * dt[..., None]
        return F.pad(turn, (0, self.config.state_size // 2 - self.config.num_angles))

    def forward(self, hidden: torch.Tensor, state: tuple | None = None):
        """``hidden`` [B, T, d] and the layer's state (h, last B, last x) or None; returns the
        mixer's output [B, T, d] and the new state."""
        config = self.config
        batch, length, _ = hidden.shape
        h, last_B, last_x = state if state is not None else (None, None, None)
        z, x, B, C, dt, A, trap, theta = self.in_proj(hidden).split(self.in_sizes, dim=-1)
        # The state is a product of T transitions: in half precision its rounding compounds
        # with the length, so the recurrence runs in float32 at least, autocast or not.
        dtype = torch.promote_types(self.in_proj.weight.dtype, torch.float32)
        dt = F.softplus(dt.to(dtype) + self.dt_bias).transpose(1, 2)  # [B, H, T]
        A = -heavy_tail(A.to(dtype)).clamp_min(config.A_floor).transpose(1, 2)
        lam = torch.sigmoid(trap.to(dtype)).transpose(1, 2)
        R, N = config.mimo_rank, config.state_size
        B, C = (norm(t.unflatten(-1, (R, N))).to(dtype)[:, None]  # [B, H, T, R, N]
                + bias[:, None].to(dtype)
                for norm, t, bias in ((self.B_norm, B, self.B_bias), (self.C_norm, C, self.C_bias)))
        heads = x.view(batch, length, config.num_heads, config.head_dim).transpose(1, 2)
        x = self.ranks(heads.to(dtype), "mimo_x")  # [B, H, T, R, P]
        args = (x, B, C, A * dt, dt, lam, self.angles(theta.to(dtype), dt))
        with torch.autocast(hidden.device.type, enabled=False):
            if config.ssm_kernel == "chunked" and length > 1:
                y, h = chunk_mamba3(*args, initial_state=h, last_B=last_B, last_x=last_x,
                                    chunk_size=config.chunk_size)
            else:
                y, h = naive_mamba3(*args, initial_state=h, last_B=last_B, last_x=last_x)
        y = y + self.D.to(dtype)[:, None, None, None] * x
        z = z.view(batch, length, config.num_heads, config.head_dim).transpose(1, 2)
        y = y * F.silu(self.ranks(z.to(dtype), "mimo_z"))
        y = y[:, :, :, 0] if R == 1 else (y * self.mimo_o.to(dtype)[:, None]).sum(3)
        y = y.transpose(1, 2).reshape(batch, length, -1)
        return self.out_proj(y.to(hidden.dtype)), (h, B[:, :, -1], x[:, :, -1])


class Mamba3MLP(nn.Module):
    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetMLP with DeltaNet->Mamba3  # noqa: E501
    def __init__(self, config: Mamba3Config):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetMLP with DeltaNet->Mamba3  # noqa: E501
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))



class Mamba3Block(GradientCheckpointingLayer):
    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetBlock with DeltaNet->Mamba3  # noqa: E501
    def __init__(self, config: Mamba3Config):
        super().__init__()
        self.mixer_norm = Mamba3RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mixer = Mamba3Mixer(config)
        self.mlp_norm = Mamba3RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = Mamba3MLP(config)

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetBlock with DeltaNet->Mamba3  # noqa: E501
    def forward(self, hidden: torch.Tensor, state: tuple | None = None):
        mixed, state = self.mixer(self.mixer_norm(hidden), state)
        hidden = hidden + mixed
        return hidden + self.mlp(self.mlp_norm(hidden)), state



class Mamba3PreTrainedModel(PreTrainedModel):
    config: Mamba3Config
    config_class = Mamba3Config
    base_model_prefix = "model"
    _no_split_modules = ["Mamba3Block"]
    _is_stateful = True
    supports_gradient_checkpointing = True

    @torch.no_grad()
    def _init_weights(self, module):
        config = self.config
        if isinstance(module, (nn.Linear, nn.Embedding)):
            init.normal_(module.weight, std=config.initializer_range)
            if getattr(module, "bias", None) is not None:
                init.zeros_(module.bias)
        elif isinstance(module, Mamba3RMSNorm):
            init.ones_(module.weight)
        elif isinstance(module, Mamba3Mixer):
            # The reference's: time steps log-uniform in [dt_min, dt_max] with a floor, B and C
            # biases of 1, D = 1.
            H = config.num_heads
            dt = torch.exp(torch.empty(H).uniform_(math.log(config.dt_min),
                                                   math.log(config.dt_max)))
            dt = dt.clamp_min(config.dt_init_floor)
            init.copy_(module.dt_bias, dt + torch.log(-torch.expm1(-dt)))  # softplus^-1
            init.ones_(module.B_bias)
            init.ones_(module.C_bias)
            init.ones_(module.D)
            if config.mimo_rank > 1:
                # The reference's: inputs and outputs split evenly over the ranks, gates whole.
                init.constant_(module.mimo_x, 1 / config.mimo_rank)
                init.ones_(module.mimo_z)
                init.constant_(module.mimo_o, 1 / config.mimo_rank)


class Mamba3Model(Mamba3PreTrainedModel):
    def __init__(self, config: Mamba3Config):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(Mamba3Block(config)
                                    for _ in range(config.num_hidden_layers))
        self.norm = Mamba3RMSNorm(config.hidden_size, config.rms_norm_eps)
        self.gradient_checkpointing = False
        self.post_init()

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->Mamba3  # noqa: E501
    def get_input_embeddings(self):
        return self.embeddings

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->Mamba3  # noqa: E501
    def set_input_embeddings(self, new_embeddings):
        self.embeddings = new_embeddings

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        cache: Mamba3Cache | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> tuple | Mamba3Output:
        r"""
        cache (`Mamba3Cache`, *optional*):
            The state after the tokens already consumed; `input_ids` then holds only the new tokens.
        use_cache (`bool`, *optional*, defaults to `False`):
            Whether to return the state after the last token (`generate()` asks for it).
        """
        if (input_ids is None) == (inputs_embeds is None):
            raise ValueError("pass exactly one of input_ids or inputs_embeds")
        output_hidden_states = (
            output_hidden_states
            if output_hidden_states is not None
            else self.config.output_hidden_states
        )
        return_dict = return_dict if return_dict is not None else self.config.return_dict
        hidden = self.embeddings(input_ids) if inputs_embeds is None else inputs_embeds
        all_hidden_states = (hidden,) if output_hidden_states else None
        states = []
        for index, block in enumerate(self.layers):
            hidden, state = block(hidden, cache.layer(index) if cache is not None else None)
            states.append(state)
            if output_hidden_states:
                all_hidden_states += (hidden,)
        hidden = self.norm(hidden)
        new_cache = Mamba3Cache(*map(list, zip(*states, strict=True))) if use_cache else None
        if not return_dict:
            return tuple(v for v in (hidden, new_cache, all_hidden_states) if v is not None)
        return Mamba3Output(
            last_hidden_state=hidden, cache=new_cache, hidden_states=all_hidden_states
        )



class Mamba3ForCausalLM(Mamba3PreTrainedModel, GenerationMixin):
    _tied_weights_keys = {"lm_head.weight": "model.embeddings.weight"}

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetForCausalLM with DeltaNet->Mamba3  # noqa: E501
    def __init__(self, config: Mamba3Config):
        super().__init__(config)
        self.model = Mamba3Model(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->Mamba3
    def get_input_embeddings(self):
        return self.model.get_input_embeddings()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->Mamba3
    def set_input_embeddings(self, new_embeddings):
        self.model.set_input_embeddings(new_embeddings)

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->Mamba3
    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->Mamba3
    def set_output_embeddings(self, new_embeddings: nn.Linear) -> None:
        self.lm_head = new_embeddings

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->Mamba3
    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        # The state lives in the Mamba3Cache returned by forward(), not in a key/value cache.
        return False

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->Mamba3
    def prepare_inputs_for_generation(
        self,
        input_ids: torch.LongTensor,
        cache: Mamba3Cache | None = None,
        use_cache: bool | None = None,
        **kwargs,
    ) -> dict:
        # With a state in hand, only the newest token is new; without one, read the whole prompt.
        if cache is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids.contiguous(), "cache": cache, "use_cache": use_cache}

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->Mamba3
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: Mamba3Cache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        inputs_embeds: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ) -> tuple | Mamba3CausalLMOutput:
        r"""
        cache (`Mamba3Cache`, *optional*):
            The state after the tokens already consumed; `input_ids` then holds only the new tokens.
        labels (`torch.LongTensor` of shape `(batch_size, sequence_length)`, *optional*):
            Causal-LM labels, shifted inside the model (`labels = input_ids` works); -100 is
            ignored.
        use_cache (`bool`, *optional*, defaults to `False`):
            Whether to return the state after the last token.
        attention_mask (`torch.Tensor`, *optional*):
            Ignored: the model is causal, and batches are right-padded.
        """
        return_dict = return_dict if return_dict is not None else self.config.return_dict
        outputs = self.model(
            input_ids,
            inputs_embeds=inputs_embeds,
            cache=cache,
            use_cache=use_cache,
            output_hidden_states=output_hidden_states,
            return_dict=True,
        )
        logits = self.lm_head(outputs.last_hidden_state)  # [B, T, V]
        if logits.dtype in (torch.float16, torch.bfloat16):
            logits = logits.float()

        loss = None
        if labels is not None:
            loss = self.loss_function(
                logits=logits, labels=labels, vocab_size=self.config.vocab_size, **kwargs
            )

        if not return_dict:
            output = tuple(
                v for v in (logits, outputs.cache, outputs.hidden_states) if v is not None
            )
            return ((loss,) + output) if loss is not None else output
        return Mamba3CausalLMOutput(
            loss=loss, logits=logits, cache=outputs.cache, hidden_states=outputs.hidden_states
        )


__all__ = ["Mamba3Cache", "Mamba3ForCausalLM", "Mamba3Model",
           "Mamba3PreTrainedModel"]
