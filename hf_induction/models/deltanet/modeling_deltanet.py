"""PyTorch DeltaNet and Gated DeltaNet: pre-norm blocks of a delta-rule mixer and a SwiGLU MLP.

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

from .chunked import chunk_delta_rule
from .configuration_deltanet import DeltaNetConfig, DeltaProductConfig
from .naive import naive_delta_rule
from .product import delta_product


class DeltaNetCache:
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
class DeltaNetOutput(ModelOutput):
    r"""
    last_hidden_state (`torch.Tensor` of shape `(batch_size, sequence_length, hidden_size)`):
        The final norm's output.
    cache (`DeltaNetCache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        The embeddings and every block's output, returned when `output_hidden_states=True`.
    """

    last_hidden_state: torch.Tensor | None = None
    cache: DeltaNetCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


@dataclass
class DeltaNetCausalLMOutput(ModelOutput):
    r"""
    loss (`torch.Tensor` of shape `(1,)`, *optional*):
        Next-token cross-entropy (labels shifted inside the model), when `labels` is passed.
    logits (`torch.Tensor` of shape `(batch_size, sequence_length, vocab_size)`):
        The read-out of every position.
    cache (`DeltaNetCache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        Returned when `output_hidden_states=True`.
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    cache: DeltaNetCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


class DeltaNetRMSNorm(nn.Module):
    def __init__(self, size: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        dtype = x.dtype
        x = x.float()
        x = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)
        return self.weight * x.to(dtype)


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


class DeltaNetMixer(nn.Module):
    """The delta-rule token mixer of one block (see `DeltaNetConfig`)."""

    def __init__(self, config: DeltaNetConfig):
        super().__init__()
        self.config = config
        self.num_heads, self.head_dim = config.num_heads, config.head_dim
        self.num_householder = n_h = config.num_householder
        d, inner = config.hidden_size, config.num_heads * config.head_dim
        # One query, and a key, a value and a step size per Householder factor.
        self.qkv_proj = nn.Linear(d, (1 + 2 * n_h) * inner, bias=False)
        if config.conv_size:
            self.conv_weight = nn.Parameter(torch.empty((1 + 2 * n_h) * inner, 1,
                                                        config.conv_size))
        self.b_proj = nn.Linear(d, config.num_heads * n_h, bias=False)
        if config.gated:
            self.a_proj = nn.Linear(d, config.num_heads, bias=False)
            self.A_log = nn.Parameter(torch.empty(config.num_heads))
            self.dt_bias = nn.Parameter(torch.empty(config.num_heads))
            self.g_proj = nn.Linear(d, inner, bias=False)
        self.o_norm = DeltaNetRMSNorm(config.head_dim, config.rms_norm_eps)
        self.o_proj = nn.Linear(inner, d, bias=False)

    def forward(self, x: torch.Tensor, state: tuple | None = None):
        """``x`` [B, T, d] and the layer's state (memory, window) or None; returns the
        mixer's output [B, T, d] and the new state."""
        batch, length, _ = x.shape
        memory, window = state if state is not None else (None, None)
        qkv = self.qkv_proj(x)
        if self.config.conv_size:
            qkv, window = causal_conv(qkv, self.conv_weight, window)
        n_h, inner = self.num_householder, self.num_heads * self.head_dim
        q, k, v = F.silu(qkv).split([inner, n_h * inner, n_h * inner], dim=-1)
        q = q.view(batch, length, self.num_heads, self.head_dim).transpose(1, 2)
        # [B, H, T, n_h, head_dim]: factor j of every token and head.
        k, v = (t.view(batch, length, n_h, self.num_heads, self.head_dim).permute(0, 3, 1, 2, 4)
                for t in (k, v))
        # The memory is a product of T transitions: in half precision its rounding compounds
        # with the length, so the recurrence runs in float32 at least, autocast or not.
        dtype = torch.promote_types(self.qkv_proj.weight.dtype, torch.float32)
        # Unit keys keep every factor's eigenvalues at 1 and 1 - b, inside [-1, 1].
        q, k = F.normalize(q.to(dtype), dim=-1), F.normalize(k.to(dtype), dim=-1)
        beta = torch.sigmoid(self.b_proj(x).to(dtype)).view(batch, length, n_h, self.num_heads)
        beta = beta.permute(0, 3, 1, 2)  # [B, H, T, n_h]
        if self.config.allow_neg_eigval:
            beta = 2 * beta
        g = None
        if self.config.gated:
            g = -self.A_log.to(dtype).exp() * F.softplus(self.a_proj(x).to(dtype) + self.dt_bias)
            g = g.transpose(1, 2)
        v = v.to(dtype)
        with torch.autocast(x.device.type, enabled=False):
            # Each Householder factor a sub-step of the rule (`product.py`; at n_h = 1 the
            # tokens themselves).
            if self.config.delta_rule_kernel == "chunked" and length > 1:
                o, memory = delta_product(chunk_delta_rule, q, k, v, beta, g,
                                          initial_state=memory, chunk_size=self.config.chunk_size)
            else:
                o, memory = delta_product(naive_delta_rule, q, k, v, beta, g,
                                          initial_state=memory)
        o = self.o_norm(o.transpose(1, 2))  # [B, T, H, head_dim]
        if self.config.gated:
            o = o * F.silu(self.g_proj(x)).view_as(o)
        return self.o_proj(o.reshape(batch, length, -1).to(x.dtype)), (memory, window)


class DeltaNetMLP(nn.Module):
    def __init__(self, config: DeltaNetConfig):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class DeltaNetBlock(GradientCheckpointingLayer):
    def __init__(self, config: DeltaNetConfig):
        super().__init__()
        self.mixer_norm = DeltaNetRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mixer = DeltaNetMixer(config)
        self.mlp_norm = DeltaNetRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = DeltaNetMLP(config)

    def forward(self, hidden: torch.Tensor, state: tuple | None = None):
        mixed, state = self.mixer(self.mixer_norm(hidden), state)
        hidden = hidden + mixed
        return hidden + self.mlp(self.mlp_norm(hidden)), state


class DeltaNetPreTrainedModel(PreTrainedModel):
    config: DeltaNetConfig
    config_class = DeltaNetConfig
    base_model_prefix = "model"
    _no_split_modules = ["DeltaNetBlock"]
    _is_stateful = True
    supports_gradient_checkpointing = True

    @torch.no_grad()
    def _init_weights(self, module):
        config = self.config
        if isinstance(module, (nn.Linear, nn.Embedding)):
            init.normal_(module.weight, std=config.initializer_range)
            if getattr(module, "bias", None) is not None:
                init.zeros_(module.bias)
        elif isinstance(module, DeltaNetRMSNorm):
            init.ones_(module.weight)
        elif isinstance(module, DeltaNetMixer):
            if config.conv_size:
                # nn.Conv1d's own default for a depthwise kernel (fan-in = its width).
                bound = 1 / math.sqrt(config.conv_size)
                init.uniform_(module.conv_weight, -bound, bound)
            if config.gated:
                # Mamba-2's: decay rates A in [1, 16], time steps log-uniform in [1e-3, 0.1].
                init.copy_(module.A_log, torch.empty(config.num_heads).uniform_(1, 16).log())
                dt = torch.exp(torch.empty(config.num_heads).uniform_(math.log(1e-3),
                                                                      math.log(0.1)))
                init.copy_(module.dt_bias, dt + torch.log(-torch.expm1(-dt)))  # softplus^-1


class DeltaNetModel(DeltaNetPreTrainedModel):
    def __init__(self, config: DeltaNetConfig):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(DeltaNetBlock(config) for _ in range(config.num_hidden_layers))
        self.norm = DeltaNetRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.gradient_checkpointing = False
        self.post_init()

    def get_input_embeddings(self):
        return self.embeddings

    def set_input_embeddings(self, new_embeddings):
        self.embeddings = new_embeddings

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        cache: DeltaNetCache | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> tuple | DeltaNetOutput:
        r"""
        cache (`DeltaNetCache`, *optional*):
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
        new_cache = DeltaNetCache(memories, windows) if use_cache else None
        if not return_dict:
            return tuple(v for v in (hidden, new_cache, all_hidden_states) if v is not None)
        return DeltaNetOutput(
            last_hidden_state=hidden, cache=new_cache, hidden_states=all_hidden_states
        )


class DeltaNetForCausalLM(DeltaNetPreTrainedModel, GenerationMixin):
    _tied_weights_keys = {"lm_head.weight": "model.embeddings.weight"}

    def __init__(self, config: DeltaNetConfig):
        super().__init__(config)
        self.model = DeltaNetModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DeltaNet
    def get_input_embeddings(self):
        return self.model.get_input_embeddings()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DeltaNet
    def set_input_embeddings(self, new_embeddings):
        self.model.set_input_embeddings(new_embeddings)

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DeltaNet
    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DeltaNet
    def set_output_embeddings(self, new_embeddings: nn.Linear) -> None:
        self.lm_head = new_embeddings

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DeltaNet
    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        # The state lives in the DeltaNetCache returned by forward(), not in a key/value cache.
        return False

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DeltaNet
    def prepare_inputs_for_generation(
        self,
        input_ids: torch.LongTensor,
        cache: DeltaNetCache | None = None,
        use_cache: bool | None = None,
        **kwargs,
    ) -> dict:
        # With a state in hand, only the newest token is new; without one, read the whole prompt.
        if cache is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids.contiguous(), "cache": cache, "use_cache": use_cache}

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DeltaNet
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: DeltaNetCache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        inputs_embeds: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ) -> tuple | DeltaNetCausalLMOutput:
        r"""
        cache (`DeltaNetCache`, *optional*):
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
        return DeltaNetCausalLMOutput(
            loss=loss, logits=logits, cache=outputs.cache, hidden_states=outputs.hidden_states
        )


class DeltaProductModel(DeltaNetModel):
    """DeltaNet's blocks with n_h Householder factors per token (`DeltaProductConfig`)."""

    config: DeltaProductConfig
    config_class = DeltaProductConfig


class DeltaProductForCausalLM(DeltaNetForCausalLM):
    """`DeltaNetForCausalLM` with n_h Householder factors per token (`DeltaProductConfig`)."""

    config: DeltaProductConfig
    config_class = DeltaProductConfig


__all__ = ["DeltaNetCache", "DeltaNetForCausalLM", "DeltaNetModel", "DeltaNetPreTrainedModel",
           "DeltaProductForCausalLM", "DeltaProductModel"]
