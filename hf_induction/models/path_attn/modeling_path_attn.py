"""PyTorch PaTH attention: pre-norm blocks of softmax attention whose positions are products of
data-dependent Householder matrices, and a SwiGLU MLP; no position embeddings
(`PaTHAttnConfig`).

This file imports only torch, transformers and its own folder's files, so that a checkpoint saved
with `save_pretrained` carries it and loads with `trust_remote_code=True` without hf_induction.
"""

import functools
import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from torch import nn
from transformers import GenerationMixin, PreTrainedModel
from transformers import initialization as init
from transformers.modeling_layers import GradientCheckpointingLayer
from transformers.utils import ModelOutput

from .chunked import chunk_path_attn
from .configuration_path_attn import PaTHAttnConfig
from .naive import naive_path_attn


class PaTHAttnCache:
    """What a layer needs to continue a sequence: its memory, every key so far carried through
    the Householder transforms of the tokens after it up to the last one [B, H, n, head_dim]
    and the values [B, H, n, head_dim], and the last ``conv_size - 1`` inputs of the
    convolution over w [B, conv_size - 1, hidden_size] (None without one), per layer. A new
    token's transform updates every cached key before its own key joins them, as fla's decoding
    does; the memory grows by one key and value a token, as any attention's."""

    is_compileable = False

    def __init__(self, memories: list[tuple[torch.Tensor, torch.Tensor]],
                 windows: list[torch.Tensor | None]):
        self.memories = memories
        self.windows = windows

    def layer(self, index: int) -> tuple[tuple[torch.Tensor, torch.Tensor], torch.Tensor | None]:
        return self.memories[index], self.windows[index]

    def get_seq_length(self, layer_idx: int = 0) -> int:
        return self.memories[layer_idx][0].shape[2]

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        self.memories = [tuple(t.index_select(0, beam_idx.to(t.device)) for t in memory)
                         for memory in self.memories]
        self.windows = [w if w is None else w.index_select(0, beam_idx.to(w.device))
                        for w in self.windows]


@dataclass
class PaTHAttnOutput(ModelOutput):
    r"""
    last_hidden_state (`torch.Tensor` of shape `(batch_size, sequence_length, hidden_size)`):
        The final norm's output.
    cache (`PaTHAttnCache`, *optional*):
        Every layer's keys, values and convolution window after the last token, returned when
        `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        The embeddings and every block's output, returned when `output_hidden_states=True`.
    """

    last_hidden_state: torch.Tensor | None = None
    cache: PaTHAttnCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


@dataclass
class PaTHAttnCausalLMOutput(ModelOutput):
    r"""
    loss (`torch.Tensor` of shape `(1,)`, *optional*):
        Next-token cross-entropy (labels shifted inside the model), when `labels` is passed.
    logits (`torch.Tensor` of shape `(batch_size, sequence_length, vocab_size)`):
        The read-out of every position.
    cache (`PaTHAttnCache`, *optional*):
        Every layer's keys, values and convolution window after the last token, returned when
        `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        Returned when `output_hidden_states=True`.
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    cache: PaTHAttnCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


class PaTHAttnRMSNorm(nn.Module):
    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetRMSNorm with DeltaNet->PaTHAttn  # noqa: E501
    def __init__(self, size: int, eps: float):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(size))
        self.eps = eps

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetRMSNorm with DeltaNet->PaTHAttn  # noqa: E501
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


class PaTHAttnMixer(nn.Module):
    """PaTH attention over one block's input (see `PaTHAttnConfig`): fla's `PaTHAttention` at
    its defaults."""

    def __init__(self, config: PaTHAttnConfig):
        super().__init__()
        self.config = config
        d, heads = config.hidden_size, config.num_heads
        self.q_proj = nn.Linear(d, d, bias=False)
        self.k_proj = nn.Linear(d, d, bias=False)
        self.v_proj = nn.Linear(d, d, bias=False)
        # The Householder directions through a rank-r bottleneck, as fla's (rank 32), or one map.
        rank = config.w_low_rank_dim
        self.w_proj = (nn.Sequential(nn.Linear(d, rank, bias=False), nn.Linear(rank, d, bias=False))
                       if rank is not None else nn.Linear(d, d, bias=False))
        if config.conv_size:
            self.conv_weight = nn.Parameter(torch.empty(d, 1, config.conv_size))
        self.b_proj = nn.Linear(d, heads, bias=True)
        self.o_proj = nn.Linear(d, d, bias=False)
        self.kernel = (functools.partial(chunk_path_attn, chunk_size=config.chunk_size)
                       if config.attn_kernel == "chunked" else naive_path_attn)

    def forward(self, x: torch.Tensor, state: tuple | None = None):
        """``x`` [B, T, d] and the layer's state ((keys, values), window) or None; returns the
        mixer's output [B, T, d] and the new state."""
        config = self.config
        batch, length, _ = x.shape
        (keys, values), window = state if state is not None else ((None, None), None)

        def heads(t: torch.Tensor) -> torch.Tensor:
            return t.view(batch, length, config.num_heads, config.head_dim).transpose(1, 2)

        w = self.w_proj(x)
        if config.conv_size:
            w, window = causal_conv(w, self.conv_weight, window)
            w = F.silu(w)
        # The positions are products of T transforms: in half precision their rounding
        # compounds with the length, so the attention runs in float32 at least, autocast or not.
        dtype = torch.promote_types(self.q_proj.weight.dtype, torch.float32)
        w = F.normalize(heads(w).to(dtype), dim=-1)
        # beta in (0, 2): the eigenvalue 1 - beta in (-1, 1), a reflection allowed (fla's).
        beta = 2 * torch.sigmoid(self.b_proj(x).to(dtype)).transpose(1, 2)  # [B, H, T]
        q, k, v = (heads(proj(x)).to(dtype) for proj in (self.q_proj, self.k_proj, self.v_proj))
        with torch.autocast(x.device.type, enabled=False):
            o, keys, values = self.kernel(q, k, v, w, beta, keys, values)
        o = o.transpose(1, 2).reshape(batch, length, -1).to(x.dtype)
        return self.o_proj(o), ((keys, values), window)


class PaTHAttnMLP(nn.Module):
    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetMLP with DeltaNet->PaTHAttn  # noqa: E501
    def __init__(self, config: PaTHAttnConfig):
        super().__init__()
        self.gate_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.up_proj = nn.Linear(config.hidden_size, config.intermediate_size, bias=False)
        self.down_proj = nn.Linear(config.intermediate_size, config.hidden_size, bias=False)

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetMLP with DeltaNet->PaTHAttn  # noqa: E501
    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class PaTHAttnBlock(GradientCheckpointingLayer):
    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetBlock with DeltaNet->PaTHAttn  # noqa: E501
    def __init__(self, config: PaTHAttnConfig):
        super().__init__()
        self.mixer_norm = PaTHAttnRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mixer = PaTHAttnMixer(config)
        self.mlp_norm = PaTHAttnRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.mlp = PaTHAttnMLP(config)

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetBlock with DeltaNet->PaTHAttn  # noqa: E501
    def forward(self, hidden: torch.Tensor, state: tuple | None = None):
        mixed, state = self.mixer(self.mixer_norm(hidden), state)
        hidden = hidden + mixed
        return hidden + self.mlp(self.mlp_norm(hidden)), state


class PaTHAttnPreTrainedModel(PreTrainedModel):
    config: PaTHAttnConfig
    config_class = PaTHAttnConfig
    base_model_prefix = "model"
    _no_split_modules = ["PaTHAttnBlock"]
    _is_stateful = True
    supports_gradient_checkpointing = True

    @torch.no_grad()
    def _init_weights(self, module):
        config = self.config
        if isinstance(module, (nn.Linear, nn.Embedding)):
            init.normal_(module.weight, std=config.initializer_range)
            if getattr(module, "bias", None) is not None:
                init.zeros_(module.bias)
        elif isinstance(module, PaTHAttnRMSNorm):
            init.ones_(module.weight)
        elif isinstance(module, PaTHAttnMixer) and config.conv_size:
            # nn.Conv1d's own default for a depthwise kernel (fan-in = its width).
            bound = 1 / math.sqrt(config.conv_size)
            init.uniform_(module.conv_weight, -bound, bound)


class PaTHAttnModel(PaTHAttnPreTrainedModel):
    def __init__(self, config: PaTHAttnConfig):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(PaTHAttnBlock(config) for _ in range(config.num_hidden_layers))
        self.norm = PaTHAttnRMSNorm(config.hidden_size, config.rms_norm_eps)
        self.gradient_checkpointing = False
        self.post_init()

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->PaTHAttn  # noqa: E501
    def get_input_embeddings(self):
        return self.embeddings

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->PaTHAttn  # noqa: E501
    def set_input_embeddings(self, new_embeddings):
        self.embeddings = new_embeddings

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->PaTHAttn  # noqa: E501
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        cache: PaTHAttnCache | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> tuple | PaTHAttnOutput:
        r"""
        cache (`PaTHAttnCache`, *optional*):
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
        new_cache = PaTHAttnCache(memories, windows) if use_cache else None
        if not return_dict:
            return tuple(v for v in (hidden, new_cache, all_hidden_states) if v is not None)
        return PaTHAttnOutput(
            last_hidden_state=hidden, cache=new_cache, hidden_states=all_hidden_states
        )


class PaTHAttnForCausalLM(PaTHAttnPreTrainedModel, GenerationMixin):
    _tied_weights_keys = {"lm_head.weight": "model.embeddings.weight"}

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetForCausalLM with DeltaNet->PaTHAttn  # noqa: E501
    def __init__(self, config: PaTHAttnConfig):
        super().__init__(config)
        self.model = PaTHAttnModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size, bias=False)
        self.post_init()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PaTHAttn
    def get_input_embeddings(self):
        return self.model.get_input_embeddings()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PaTHAttn
    def set_input_embeddings(self, new_embeddings):
        self.model.set_input_embeddings(new_embeddings)

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PaTHAttn
    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PaTHAttn
    def set_output_embeddings(self, new_embeddings: nn.Linear) -> None:
        self.lm_head = new_embeddings

    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        # transformers' DynamicCache only appends keys; PaTH's cached keys change with every new
        # token, so they live in the PaTHAttnCache returned by forward().
        return False

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PaTHAttn
    def prepare_inputs_for_generation(
        self,
        input_ids: torch.LongTensor,
        cache: PaTHAttnCache | None = None,
        use_cache: bool | None = None,
        **kwargs,
    ) -> dict:
        # With a state in hand, only the newest token is new; without one, read the whole prompt.
        if cache is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids.contiguous(), "cache": cache, "use_cache": use_cache}

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PaTHAttn
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: PaTHAttnCache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        inputs_embeds: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ) -> tuple | PaTHAttnCausalLMOutput:
        r"""
        cache (`PaTHAttnCache`, *optional*):
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
        return PaTHAttnCausalLMOutput(
            loss=loss, logits=logits, cache=outputs.cache, hidden_states=outputs.hidden_states
        )


__all__ = ["PaTHAttnCache", "PaTHAttnForCausalLM", "PaTHAttnModel", "PaTHAttnPreTrainedModel"]
