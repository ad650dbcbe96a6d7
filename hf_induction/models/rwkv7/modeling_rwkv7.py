"""PyTorch RWKV-7 "Goose": pre-norm blocks of a time mix (the generalized delta rule) and a
channel mix, after Peng et al. (arXiv 2503.14456) and the RWKV-7 layer of
flash-linear-attention, written in plain PyTorch.

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

from .chunked import chunk_rwkv7
from .configuration_rwkv7 import RWKV7Config
from .naive import naive_rwkv7

# The decay is w = exp(-e^-0.5 sigmoid(.)) in (0.545, 1), as the paper's exp(-exp(-softplus(.)
# - 0.5)) bounds it: no token wipes a channel of the memory in one step.
LOG_DECAY_BOUND = math.exp(-0.5)
# The token-shift mixes of the time mix, one row each in this order (receptance, decay, key,
# value, learning rate, gate), with the exponent of each row's initial ramp over the channels.
TIME_MIX_RAMPS = {"r": 0.2, "w": 0.9, "k": 0.7, "v": 0.7, "a": 0.9, "g": 0.2}


class RWKV7Cache:
    """What a layer needs to continue a sequence: its memory M [B, H, d_k, d_v] and the last
    input of its time mix and of its channel mix [B, d] (their token shifts), per layer.
    Constant in the length, so `generate()` costs the same per token at any length."""

    is_compileable = False

    def __init__(self, memories: list[torch.Tensor], time_last: list[torch.Tensor],
                 channel_last: list[torch.Tensor]):
        self.memories = memories
        self.time_last = time_last
        self.channel_last = channel_last

    def layer(self, index: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        return self.memories[index], self.time_last[index], self.channel_last[index]

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        def pick(tensors):
            return [t.index_select(0, beam_idx.to(t.device)) for t in tensors]
        self.memories, self.time_last = pick(self.memories), pick(self.time_last)
        self.channel_last = pick(self.channel_last)


@dataclass
class RWKV7Output(ModelOutput):
    r"""
    last_hidden_state (`torch.Tensor` of shape `(batch_size, sequence_length, hidden_size)`):
        The final norm's output.
    cache (`RWKV7Cache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        The embeddings and every block's output, returned when `output_hidden_states=True`.
    """

    last_hidden_state: torch.Tensor | None = None
    cache: RWKV7Cache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


@dataclass
class RWKV7CausalLMOutput(ModelOutput):
    r"""
    loss (`torch.Tensor` of shape `(1,)`, *optional*):
        Next-token cross-entropy (labels shifted inside the model), when `labels` is passed.
    logits (`torch.Tensor` of shape `(batch_size, sequence_length, vocab_size)`):
        The read-out of every position.
    cache (`RWKV7Cache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        Returned when `output_hidden_states=True`.
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    cache: RWKV7Cache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


def token_shift(x: torch.Tensor, last: torch.Tensor | None):
    """Each position's previous input [B, T, d] (``last`` [B, d] before the first; None:
    zeros, as at a sequence's start), and the new last input."""
    first = x.new_zeros(x.shape[0], 1, x.shape[2]) if last is None else last[:, None].to(x.dtype)
    return torch.cat([first, x[:, :-1]], dim=1), x[:, -1]


class RWKV7LoRA(nn.Module):
    """A low-rank map d -> rank -> out with an activation between, as RWKV-7 makes its decay,
    learning rate, value mix and gate data-dependent."""

    def __init__(self, size: int, rank: int, out: int, activation, bias: bool):
        super().__init__()
        self.down = nn.Linear(size, rank, bias=False)
        self.up = nn.Linear(rank, out, bias=bias)
        self.activation = activation

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        hidden = self.down(x)
        return self.up(hidden if self.activation is None else self.activation(hidden))


class RWKV7TimeMix(nn.Module):
    """The time mix of one block: the generalized delta rule over heads (see `RWKV7Config`)."""

    def __init__(self, config: RWKV7Config, layer_idx: int):
        super().__init__()
        self.config, self.layer_idx = config, layer_idx
        d, self.num_heads, self.head_dim = config.hidden_size, config.num_heads, config.head_dim
        self.mix = nn.Parameter(torch.empty(len(TIME_MIX_RAMPS), d))
        self.r_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        self.o_proj = nn.Linear(d, d, bias=False)
        self.w_lora = RWKV7LoRA(d, config.decay_low_rank_dim, d, torch.tanh, bias=True)
        self.a_lora = RWKV7LoRA(d, config.a_low_rank_dim, d, None, bias=True)
        if layer_idx > 0:
            # The value residual: later blocks mix their values with the first block's.
            self.v_lora = RWKV7LoRA(d, config.v_low_rank_dim, d, None, bias=True)
        self.g_lora = RWKV7LoRA(d, config.gate_low_rank_dim, d, torch.sigmoid, bias=False)
        self.k_k = nn.Parameter(torch.empty(d))
        self.k_a = nn.Parameter(torch.empty(d))
        self.r_k = nn.Parameter(torch.empty(self.num_heads, self.head_dim))
        self.o_norm_weight = nn.Parameter(torch.empty(d))
        self.o_norm_bias = nn.Parameter(torch.empty(d))

    def heads(self, x: torch.Tensor) -> torch.Tensor:
        """[B, T, d] -> [B, H, T, head_dim]."""
        return x.view(*x.shape[:2], self.num_heads, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor, state: tuple, v_first: torch.Tensor | None):
        """``x`` [B, T, d], the layer's (memory, last input) or Nones, and the first block's
        values (None in the first block); returns the output [B, T, d], the new state and the
        first block's values."""
        batch, length, d = x.shape
        memory, last = state
        previous, last = token_shift(x, last)
        xr, xw, xk, xv, xa, xg = (x + (previous - x) * mix for mix in self.mix)
        r, k, v = self.r_proj(xr), self.k_proj(xk), self.v_proj(xv)
        log_w = -LOG_DECAY_BOUND * torch.sigmoid(self.w_lora(xw))
        if self.layer_idx == 0:
            v_first = v
        else:
            v = v + (v_first - v) * torch.sigmoid(self.v_lora(xv))
        a = torch.sigmoid(self.a_lora(xa))
        g = self.g_lora(xg)
        # The removal key, of unit length per head; the replacement key, scaled by the learning
        # rate per channel where k_a says so (the paper's relaxed value replacement).
        kk = F.normalize(self.heads(k * self.k_k), dim=-1)
        k = k * (1 + (a - 1) * self.k_a)
        # The memory is a product of T transitions: in half precision its rounding compounds
        # with the length, so the recurrence runs in float32 at least, autocast or not.
        dtype = torch.promote_types(self.r_proj.weight.dtype, torch.float32)
        r_h, k_h, v_h = (self.heads(t).to(dtype) for t in (r, k, v))
        with torch.autocast(x.device.type, enabled=False):
            inputs = (r_h, self.heads(log_w).to(dtype), k_h, v_h, kk.to(dtype),
                      self.heads(a).to(dtype))
            if self.config.rwkv_kernel == "chunked" and length > 1:
                o, memory = chunk_rwkv7(*inputs, initial_state=memory,
                                        chunk_size=self.config.chunk_size)
            else:
                o, memory = naive_rwkv7(*inputs, initial_state=memory)
            # A layer norm per head, then the bonus: each head's own token, weighted by how
            # much its receptance matches its key.
            o = F.layer_norm(o, (self.head_dim,), eps=self.head_dim * self.config.norm_eps)
            o = (o * self.heads(self.o_norm_weight[None, None]).to(dtype)
                 + self.heads(self.o_norm_bias[None, None]).to(dtype))
            o = o + (r_h * k_h * self.r_k[:, None].to(dtype)).sum(-1, keepdim=True) * v_h
        o = o.transpose(1, 2).reshape(batch, length, d).to(x.dtype)
        return self.o_proj(o * g), (memory, last), v_first


class RWKV7ChannelMix(nn.Module):
    """The channel mix: a token-shifted ReLU^2 MLP."""

    def __init__(self, config: RWKV7Config, layer_idx: int):
        super().__init__()
        self.layer_idx = layer_idx
        self.mix = nn.Parameter(torch.empty(config.hidden_size))
        self.key = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.value = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    def forward(self, x: torch.Tensor, last: torch.Tensor | None):
        previous, last = token_shift(x, last)
        return self.value(F.relu(self.key(x + (previous - x) * self.mix)) ** 2), last


class RWKV7Block(GradientCheckpointingLayer):
    def __init__(self, config: RWKV7Config, layer_idx: int):
        super().__init__()
        self.time_norm = nn.LayerNorm(config.hidden_size, eps=config.norm_eps)
        self.time_mix = RWKV7TimeMix(config, layer_idx)
        self.channel_norm = nn.LayerNorm(config.hidden_size, eps=config.norm_eps)
        self.channel_mix = RWKV7ChannelMix(config, layer_idx)

    def forward(self, hidden: torch.Tensor, state: tuple, v_first: torch.Tensor | None):
        memory, time_last, channel_last = state
        mixed, (memory, time_last), v_first = self.time_mix(
            self.time_norm(hidden), (memory, time_last), v_first)
        hidden = hidden + mixed
        mixed, channel_last = self.channel_mix(self.channel_norm(hidden), channel_last)
        return hidden + mixed, (memory, time_last, channel_last), v_first


class RWKV7PreTrainedModel(PreTrainedModel):
    config: RWKV7Config
    config_class = RWKV7Config
    base_model_prefix = "model"
    _no_split_modules = ["RWKV7Block"]
    _is_stateful = True
    supports_gradient_checkpointing = True

    @torch.no_grad()
    def _init_weights(self, module):
        # RWKV-7's own initialisation (the paper's code; fla's layer follows it): ramps over the
        # channels that start each channel at its own time scale, zero output projections so
        # that every block starts as the identity, small orthogonal low-rank maps.
        config = self.config
        if isinstance(module, (nn.Linear, nn.Embedding)):
            init.normal_(module.weight, std=config.initializer_range)
            if getattr(module, "bias", None) is not None:
                init.zeros_(module.bias)
        elif isinstance(module, nn.LayerNorm):
            init.ones_(module.weight)
            init.zeros_(module.bias)
        elif isinstance(module, RWKV7LoRA):
            init.zeros_(module.down.weight)
            init.orthogonal_(module.up.weight, gain=0.1)
        elif isinstance(module, RWKV7TimeMix):
            self._init_time_mix(module)
        elif isinstance(module, RWKV7ChannelMix):
            layers, d = config.num_hidden_layers, config.hidden_size
            ramp = torch.arange(d, dtype=torch.float32) / d
            init.copy_(module.mix, 1 - ramp ** ((1 - module.layer_idx / layers) ** 4))
            init.orthogonal_(module.key.weight)
            init.zeros_(module.value.weight)

    def _init_time_mix(self, module: "RWKV7TimeMix") -> None:
        config = self.config
        layers, d, head_dim = config.num_hidden_layers, config.hidden_size, config.head_dim
        depth = module.layer_idx / max(layers - 1, 1)  # 0 in the first block, 1 in the last
        remaining = 1 - module.layer_idx / layers  # 1 in the first block, towards 0
        n = torch.arange(d, dtype=torch.float32)
        ramp, linear = n / d, n / max(d - 1, 1) - 0.5
        zigzag = ((n % head_dim) - (head_dim - 1) / 2) / max((head_dim - 1) / 2, 1)
        zigzag = zigzag * zigzag.abs()
        init.copy_(module.mix, torch.stack([1 - ramp ** (p * remaining)
                                            for p in TIME_MIX_RAMPS.values()]))
        decay = -6 + 6 * (n / max(d - 1, 1)) ** (1 + depth ** 0.3)
        init.copy_(module.w_lora.up.bias, decay + 0.5 + 2.5 * zigzag)
        init.copy_(module.a_lora.up.bias, -0.19 + 0.3 * zigzag + 0.4 * linear)
        if module.layer_idx > 0:
            init.copy_(module.v_lora.up.bias, 0.73 - 0.4 * linear)
        init.copy_(module.k_k, 0.71 - 0.1 * linear)
        init.constant_(module.k_a, 1.02)
        init.constant_(module.r_k, -0.04)
        init.constant_(module.o_norm_weight, ((module.layer_idx + 1) / layers) ** 0.7)
        init.zeros_(module.o_norm_bias)
        init.orthogonal_(module.r_proj.weight)
        init.orthogonal_(module.k_proj.weight, gain=0.1)
        init.orthogonal_(module.v_proj.weight)
        init.zeros_(module.o_proj.weight)


class RWKV7Model(RWKV7PreTrainedModel):
    def __init__(self, config: RWKV7Config):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        # RWKV normalises the embeddings once before the first block.
        self.pre_norm = nn.LayerNorm(config.hidden_size, eps=config.norm_eps)
        self.layers = nn.ModuleList(RWKV7Block(config, i) for i in range(config.num_hidden_layers))
        self.norm = nn.LayerNorm(config.hidden_size, eps=config.norm_eps)
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
        cache: RWKV7Cache | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> tuple | RWKV7Output:
        r"""
        cache (`RWKV7Cache`, *optional*):
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
        hidden = self.pre_norm(hidden)
        all_hidden_states = (hidden,) if output_hidden_states else None
        states, v_first = [], None
        for index, block in enumerate(self.layers):
            state = cache.layer(index) if cache is not None else (None, None, None)
            hidden, state, v_first = block(hidden, state, v_first)
            states.append(state)
            if output_hidden_states:
                all_hidden_states += (hidden,)
        hidden = self.norm(hidden)
        new_cache = RWKV7Cache(*map(list, zip(*states, strict=True))) if use_cache else None
        if not return_dict:
            return tuple(v for v in (hidden, new_cache, all_hidden_states) if v is not None)
        return RWKV7Output(
            last_hidden_state=hidden, cache=new_cache, hidden_states=all_hidden_states
        )


class RWKV7ForCausalLM(RWKV7PreTrainedModel, GenerationMixin):
    _tied_weights_keys = {"lm_head.weight": "model.embeddings.weight"}

    def __init__(self, config: RWKV7Config):
        super().__init__(config)
        self.model = RWKV7Model(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->RWKV7
    def get_input_embeddings(self):
        return self.model.get_input_embeddings()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->RWKV7
    def set_input_embeddings(self, new_embeddings):
        self.model.set_input_embeddings(new_embeddings)

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->RWKV7
    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->RWKV7
    def set_output_embeddings(self, new_embeddings: nn.Linear) -> None:
        self.lm_head = new_embeddings

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->RWKV7
    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        # The state lives in the RWKV7Cache returned by forward(), not in a key/value cache.
        return False

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->RWKV7
    def prepare_inputs_for_generation(
        self,
        input_ids: torch.LongTensor,
        cache: RWKV7Cache | None = None,
        use_cache: bool | None = None,
        **kwargs,
    ) -> dict:
        # With a state in hand, only the newest token is new; without one, read the whole prompt.
        if cache is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids.contiguous(), "cache": cache, "use_cache": use_cache}

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->RWKV7
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: RWKV7Cache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        inputs_embeds: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ) -> tuple | RWKV7CausalLMOutput:
        r"""
        cache (`RWKV7Cache`, *optional*):
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
        return RWKV7CausalLMOutput(
            loss=loss, logits=logits, cache=outputs.cache, hidden_states=outputs.hidden_states
        )


__all__ = ["RWKV7Cache", "RWKV7ForCausalLM", "RWKV7Model", "RWKV7PreTrainedModel"]
