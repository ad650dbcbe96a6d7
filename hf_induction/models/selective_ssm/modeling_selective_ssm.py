"""PyTorch selective SSM: pre-norm blocks of Mamba-2's state-space mixer and a SwiGLU MLP, with
the state transition's eigenvalues real in [0, 1], real in [-1, 1] (Grazzi et al.) or complex
(Mamba-3's rotations): `SelectiveSSMConfig`.

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

from .chunked import chunk_ssm
from .configuration_selective_ssm import SelectiveSSMConfig
from .naive import naive_ssm


class SelectiveSSMCache:
    """What a layer needs to continue a sequence: its memory S [B, H, d_k, d_v] and the last
    ``conv_size - 1`` inputs of its convolution [B, conv_size - 1, C], per layer. Constant in
    the length, so `generate()` costs the same per token at any length."""

    is_compileable = False

    def __init__(self, memories: list[torch.Tensor], windows: list[torch.Tensor | None]):
        self.memories = memories
        self.windows = windows

    def layer(self, index: int) -> tuple[torch.Tensor, torch.Tensor | None]:
        return self.memories[index], self.windows[index]

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        self.memories = [m.index_select(0, beam_idx.to(m.device)) for m in self.memories]
        self.windows = [w if w is None else w.index_select(0, beam_idx.to(w.device))
                        for w in self.windows]



@dataclass
class SelectiveSSMOutput(ModelOutput):
    r"""
    last_hidden_state (`torch.Tensor` of shape `(batch_size, sequence_length, hidden_size)`):
        The final norm's output.
    cache (`SelectiveSSMCache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        The embeddings and every block's output, returned when `output_hidden_states=True`.
    """

    last_hidden_state: torch.Tensor | None = None
    cache: SelectiveSSMCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


@dataclass
class SelectiveSSMCausalLMOutput(ModelOutput):
    r"""
    loss (`torch.Tensor` of shape `(1,)`, *optional*):
        Next-token cross-entropy (labels shifted inside the model), when `labels` is passed.
    logits (`torch.Tensor` of shape `(batch_size, sequence_length, vocab_size)`):
        The read-out of every position.
    cache (`SelectiveSSMCache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        Returned when `output_hidden_states=True`.
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    cache: SelectiveSSMCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None



class SelectiveSSMRMSNorm(nn.Module):
    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetRMSNorm with DeltaNet->SelectiveSSM  # noqa: E501
    def __init__(self, size: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetRMSNorm with DeltaNet->SelectiveSSM  # noqa: E501
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)



# Copied from hf_induction.models.deltanet.modeling_deltanet.causal_conv
def causal_conv(x: torch.Tensor, weight: torch.Tensor, window: torch.Tensor | None):
    """Depthwise causal convolution of ``x`` [B, T, C] with ``weight`` [C, 1, K] (the layout
    of ``nn.Conv1d(C, C, K, groups=C)``), continuing from ``window`` [B, K - 1, C] (the
    previous inputs; None: zeros). Returns the output [B, T, C] and the new window, so a prompt
    and the tokens decoded after it see the same inputs as one full pass."""
    width, length = weight.shape[-1], x.shape[1]
    if window is None:
        window = x.new_zeros(x.shape[0], width - 1, x.shape[2])
    x = torch.cat([window.to(x.dtype), x], dim=1)
    # The K shifted products summed, channels last: F.conv1d's function, and on the CPU about
    # 1.5 times faster forward and backward than its grouped kernel at these sizes.
    taps = weight[:, 0].t().to(x.dtype)  # [K, C]
    out = x[:, :length] * taps[0]
    for j in range(1, width):
        out = out + x[:, j:j + length] * taps[j]
    return out, x[:, x.shape[1] - (width - 1):]



class SelectiveSSMMixer(nn.Module):
    """The selective state-space mixer of one block (see `SelectiveSSMConfig`)."""

    def __init__(self, config: SelectiveSSMConfig):
        super().__init__()
        self.config = config
        d, inner, N, H = config.hidden_size, config.inner_size, config.state_size, config.num_heads
        # z (the output gate), x, B and C (convolved together), the time steps and, for the
        # complex transition, the rotation angles: one projection, as Mamba-2's.
        self.xBC_sizes = [inner, N, N]
        self.in_sizes = [inner, sum(self.xBC_sizes), H, config.num_angles]
        self.in_proj = nn.Linear(d, sum(self.in_sizes), bias=False)
        self.conv_weight = nn.Parameter(torch.empty(sum(self.xBC_sizes), 1, config.conv_size))
        self.dt_bias = nn.Parameter(torch.empty(H))
        self.A_log = nn.Parameter(torch.empty(H))
        self.D = nn.Parameter(torch.empty(H))
        self.norm = SelectiveSSMRMSNorm(inner, config.rms_norm_eps)
        self.out_proj = nn.Linear(inner, d, bias=False)

    def transition(self, dt: torch.Tensor, angles: torch.Tensor):
        """Each token's transition from its time steps ``dt`` [B, H, T] and angles [B, T, N/2]:
        (log |a_t|, the sign of a_t or None, the rotation angles [B, H, T, N/2] or None), the
        arguments of the kernels."""
        log_a = -self.A_log.to(dt.dtype).exp()[:, None] * dt
        if self.config.transition == "negative":
            a = 2 * log_a.exp() - 1
            # |a| has a floor so that log |a| stays finite where a token lands on 0 exactly.
            return a.abs().clamp_min(1e-30).log(), torch.where(a < 0, -1.0, 1.0).to(a.dtype), None
        if self.config.transition == "complex":
            # One angle per pair of state rows, shared by the heads; each head turns by it
            # times its own time step, as it decays by its time step times its rate.
            return log_a, None, dt[..., None] * angles[:, None]
        return log_a, None, None

    def forward(self, hidden: torch.Tensor, state: tuple | None = None):
        """``hidden`` [B, T, d] and the layer's state (h, window) or None; returns the mixer's
        output [B, T, d] and the new state."""
        config = self.config
        batch, length, _ = hidden.shape
        h, window = state if state is not None else (None, None)
        z, xBC, dt, angles = self.in_proj(hidden).split(self.in_sizes, dim=-1)
        xBC, window = causal_conv(xBC, self.conv_weight, window)
        x, B, C = F.silu(xBC).split(self.xBC_sizes, dim=-1)
        # The state is a product of T transitions: in half precision its rounding compounds
        # with the length, so the recurrence runs in float32 at least, autocast or not.
        dtype = torch.promote_types(self.in_proj.weight.dtype, torch.float32)
        dt = F.softplus(dt.to(dtype) + self.dt_bias).transpose(1, 2)  # [B, H, T]
        log_a, sign, theta = self.transition(dt, angles.to(dtype))
        heads = x.view(batch, length, config.num_heads, config.head_dim).transpose(1, 2)
        inputs = heads.to(dtype) * dt[..., None]
        B, C = (t.to(dtype)[:, None].expand(-1, config.num_heads, -1, -1) for t in (B, C))
        with torch.autocast(hidden.device.type, enabled=False):
            if config.ssm_kernel == "chunked" and length > 1:
                y, h = chunk_ssm(inputs, B, C, log_a, sign, theta, initial_state=h,
                                 chunk_size=config.chunk_size)
            else:
                y, h = naive_ssm(inputs, B, C, log_a, sign, theta, initial_state=h)
        y = y + self.D.to(dtype)[:, None, None] * heads.to(dtype)
        y = y.transpose(1, 2).reshape(batch, length, -1).to(hidden.dtype)
        # Mamba-2's gated norm: the gate first, then the norm.
        return self.out_proj(self.norm(y * F.silu(z))), (h, window)


class SelectiveSSMMLP(nn.Module):
    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetMLP with DeltaNet->SelectiveSSM  # noqa: E501
    def __init__(self, config: SelectiveSSMConfig):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetMLP with DeltaNet->SelectiveSSM  # noqa: E501
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))



class SelectiveSSMBlock(GradientCheckpointingLayer):
    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetBlock with DeltaNet->SelectiveSSM  # noqa: E501
    def __init__(self, config: SelectiveSSMConfig):
        super().__init__()
        self.mixer_norm = SelectiveSSMRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mixer = SelectiveSSMMixer(config)
        self.mlp_norm = SelectiveSSMRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = SelectiveSSMMLP(config)

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetBlock with DeltaNet->SelectiveSSM  # noqa: E501
    def forward(self, hidden: torch.Tensor, state: tuple | None = None):
        mixed, state = self.mixer(self.mixer_norm(hidden), state)
        hidden = hidden + mixed
        return hidden + self.mlp(self.mlp_norm(hidden)), state



class SelectiveSSMPreTrainedModel(PreTrainedModel):
    config: SelectiveSSMConfig
    config_class = SelectiveSSMConfig
    base_model_prefix = "model"
    _no_split_modules = ["SelectiveSSMBlock"]
    _is_stateful = True
    supports_gradient_checkpointing = True

    @torch.no_grad()
    def _init_weights(self, module):
        config = self.config
        if isinstance(module, (nn.Linear, nn.Embedding)):
            init.normal_(module.weight, std=config.initializer_range)
            if getattr(module, "bias", None) is not None:
                init.zeros_(module.bias)
        elif isinstance(module, SelectiveSSMRMSNorm):
            init.ones_(module.weight)
        elif isinstance(module, SelectiveSSMMixer):
            # nn.Conv1d's own default for a depthwise kernel (fan-in = its width), and Mamba-2's
            # decay rates A in [1, 16], time steps log-uniform in [dt_min, dt_max], D = 1.
            bound = 1 / math.sqrt(config.conv_size)
            init.uniform_(module.conv_weight, -bound, bound)
            H = config.num_heads
            init.copy_(module.A_log, torch.empty(H).uniform_(1, 16).log())
            dt = torch.exp(torch.empty(H).uniform_(math.log(config.dt_min),
                                                   math.log(config.dt_max)))
            init.copy_(module.dt_bias, dt + torch.log(-torch.expm1(-dt)))  # softplus^-1
            init.ones_(module.D)


class SelectiveSSMModel(SelectiveSSMPreTrainedModel):
    def __init__(self, config: SelectiveSSMConfig):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(SelectiveSSMBlock(config)
                                    for _ in range(config.num_hidden_layers))
        self.norm = SelectiveSSMRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.gradient_checkpointing = False
        self.post_init()

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->SelectiveSSM  # noqa: E501
    def get_input_embeddings(self):
        return self.embeddings

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->SelectiveSSM  # noqa: E501
    def set_input_embeddings(self, new_embeddings):
        self.embeddings = new_embeddings

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->SelectiveSSM  # noqa: E501
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        cache: SelectiveSSMCache | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> tuple | SelectiveSSMOutput:
        r"""
        cache (`SelectiveSSMCache`, *optional*):
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
        memories, windows = [], []
        for index, block in enumerate(self.layers):
            hidden, (memory, window) = block(
                hidden, cache.layer(index) if cache is not None else None
            )
            memories.append(memory)
            windows.append(window)
            if output_hidden_states:
                all_hidden_states += (hidden,)
        hidden = self.norm(hidden)
        new_cache = SelectiveSSMCache(memories, windows) if use_cache else None
        if not return_dict:
            return tuple(v for v in (hidden, new_cache, all_hidden_states) if v is not None)
        return SelectiveSSMOutput(
            last_hidden_state=hidden, cache=new_cache, hidden_states=all_hidden_states
        )



class SelectiveSSMForCausalLM(SelectiveSSMPreTrainedModel, GenerationMixin):
    _tied_weights_keys = {"lm_head.weight": "model.embeddings.weight"}

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetForCausalLM with DeltaNet->SelectiveSSM  # noqa: E501
    def __init__(self, config: SelectiveSSMConfig):
        super().__init__(config)
        self.model = SelectiveSSMModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->SelectiveSSM
    def get_input_embeddings(self):
        return self.model.get_input_embeddings()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->SelectiveSSM
    def set_input_embeddings(self, new_embeddings):
        self.model.set_input_embeddings(new_embeddings)

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->SelectiveSSM
    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->SelectiveSSM
    def set_output_embeddings(self, new_embeddings: nn.Linear) -> None:
        self.lm_head = new_embeddings

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->SelectiveSSM
    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        # The state lives in the SelectiveSSMCache returned by forward(), not in a key/value cache.
        return False

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->SelectiveSSM
    def prepare_inputs_for_generation(
        self,
        input_ids: torch.LongTensor,
        cache: SelectiveSSMCache | None = None,
        use_cache: bool | None = None,
        **kwargs,
    ) -> dict:
        # With a state in hand, only the newest token is new; without one, read the whole prompt.
        if cache is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids.contiguous(), "cache": cache, "use_cache": use_cache}

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->SelectiveSSM
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: SelectiveSSMCache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        inputs_embeds: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ) -> tuple | SelectiveSSMCausalLMOutput:
        r"""
        cache (`SelectiveSSMCache`, *optional*):
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
        return SelectiveSSMCausalLMOutput(
            loss=loss, logits=logits, cache=outputs.cache, hidden_states=outputs.hidden_states
        )


__all__ = ["SelectiveSSMCache", "SelectiveSSMForCausalLM", "SelectiveSSMModel",
           "SelectiveSSMPreTrainedModel"]
