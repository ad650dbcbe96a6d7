"""PyTorch PD-SSM: post-norm blocks of the PD-SSM layer (transition P(u) D(u), a column one-hot
matrix times a complex diagonal) and a GELU MLP: `PDSSMConfig`.

The layer follows the public reference (IBM/expressive-sparse-state-space-model, commit
8682e78): the paper's equations (1)-(5) for the transition, its JAX layer
(`time_series_JAX/models/PDSSM.py`, `PDSSMLayer`) for P column one-hot and A = P D (the state
moves after it is scaled), and its state-tracking layer (`state_tracking_PyTorch/models/pdssm.py`,
`PD_Block`) for the rest: two-layer GELU MLPs of width 2N for D's magnitude and phase, the
complex read-in B u (no bias), x_0 the one-hot first state, the read-out of [Re x, Im x] by a
linear map with bias (Re(C x) plus a bias) plus D_skip * u, then a LayerNorm, and its
initialisation. That layer normalises P's scores over rows (a row one-hot P, D on the left);
the paper and the JAX layer take columns, which is what lets one layer follow any automaton.
The GELU MLP with a residual and a second LayerNorm after the layer is the block of the
paper's figure (its LRA and time-series models); the reference's dropout is left out, as in
the other models here.

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

from .configuration_pd_ssm import PDSSMConfig
from .naive import naive_pd_ssm
from .scan import scan_pd_ssm


class PDSSMCache:
    """What a layer needs to continue a sequence: its complex state x [B, N], per layer.
    Constant in the length, so `generate()` costs the same per token at any length."""

    is_compileable = False

    def __init__(self, memories: list[torch.Tensor]):
        self.memories = memories

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        self.memories = [m.index_select(0, beam_idx.to(m.device)) for m in self.memories]


@dataclass
class PDSSMOutput(ModelOutput):
    r"""
    last_hidden_state (`torch.Tensor` of shape `(batch_size, sequence_length, hidden_size)`):
        The last block's output.
    cache (`PDSSMCache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        The embeddings and every block's output, returned when `output_hidden_states=True`.
    """

    last_hidden_state: torch.Tensor | None = None
    cache: PDSSMCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


@dataclass
class PDSSMCausalLMOutput(ModelOutput):
    r"""
    loss (`torch.Tensor` of shape `(1,)`, *optional*):
        Next-token cross-entropy (labels shifted inside the model), when `labels` is passed.
    logits (`torch.Tensor` of shape `(batch_size, sequence_length, vocab_size)`):
        The read-out of every position.
    cache (`PDSSMCache`, *optional*):
        Every layer's state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        Returned when `output_hidden_states=True`.
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    cache: PDSSMCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


class PDSSMLayer(nn.Module):
    """The PD-SSM layer of one block (see `PDSSMConfig`); names as the reference's."""

    def __init__(self, config: PDSSMConfig):
        super().__init__()
        self.config = config
        d, N, K, E = (config.hidden_size, config.state_size, config.dictionary_size,
                      config.diagonal_size)
        # s(u) = softmax(S u) over the dictionary {M_k}, stored [k, row, column].
        self.S = nn.Linear(d, K, bias=False)
        self.A_dict = nn.Parameter(torch.empty(K, N, N))
        self.D_magnitude_generator = nn.Sequential(nn.Linear(d, E), nn.GELU(), nn.Linear(E, N))
        self.D_phase_generator = nn.Sequential(nn.Linear(d, E), nn.GELU(), nn.Linear(E, N))
        self.B_re = nn.Parameter(torch.empty(N, d))
        self.B_im = nn.Parameter(torch.empty(N, d))
        self.D = nn.Parameter(torch.empty(d))
        self.readout = nn.Linear(2 * N, d)

    def operands(self, u: torch.Tensor):
        """The kernels' arguments for tokens ``u`` [B, T, d]: each token's score matrix M
        [B, T, N, N], diagonal D [B, T, N] and input B u [B, T, N] (complex), in float32 at
        least, autocast or not: a state is a product of T transitions, and half precision's
        rounding compounds with the length."""
        dtype = torch.promote_types(self.A_dict.dtype, torch.float32)
        with torch.autocast(u.device.type, enabled=False):
            u = u.to(self.A_dict.dtype)
            # Equations (1)-(2): the token's mixture of the dictionary's score matrices.
            weights = self.S(u).to(dtype).softmax(-1)  # [B, T, K]
            scores = torch.einsum("btk,kij->btij", weights, self.A_dict.to(dtype))
            # (4)-(5): magnitude in (0, 1), phase in (0, 2 pi).
            magnitude = torch.sigmoid(self.D_magnitude_generator(u).to(dtype))
            phase = 2 * math.pi * torch.sigmoid(self.D_phase_generator(u).to(dtype))
            diagonal = torch.polar(magnitude, phase)
            u = u.to(dtype)
            inputs = torch.complex(u @ self.B_re.to(dtype).t(), u @ self.B_im.to(dtype).t())
        return scores, diagonal, inputs

    def initial_state(self, batch: int, like: torch.Tensor) -> torch.Tensor:
        """x_0 [batch, N]: the one-hot first state, as the reference's."""
        x = torch.zeros(batch, self.config.state_size, dtype=like.dtype, device=like.device)
        x[:, 0] = 1
        return x

    def read(self, states: torch.Tensor, u: torch.Tensor) -> torch.Tensor:
        """The layer's output [B, T, d] from its complex states [B, T, N] and inputs ``u``:
        Re(C x) plus a bias, with C = W[:, :N] - i W[:, N:], read as the reference does from
        [Re x, Im x]; plus the skip D_skip * u."""
        real = torch.cat([states.real, states.imag], dim=-1).to(u.dtype)
        return self.readout(real) + self.D * u

    def forward(self, u: torch.Tensor, state: torch.Tensor | None = None):
        """``u`` [B, T, d] and the layer's state x [B, N] or None; returns y [B, T, d] and the
        new state."""
        scores, diagonal, inputs = self.operands(u)
        x0 = self.initial_state(u.shape[0], diagonal) if state is None else state
        kernel = (scan_pd_ssm if self.config.ssm_kernel == "scan" and u.shape[1] > 1
                  else naive_pd_ssm)
        with torch.autocast(u.device.type, enabled=False):
            states, last = kernel(scores, diagonal, inputs, x0)
        return self.read(states, u), last


class PDSSMMLP(nn.Module):
    def __init__(self, config: PDSSMConfig):
        super().__init__()
        self.fc_in = nn.Linear(config.hidden_size, config.intermediate_size)
        self.fc_out = nn.Linear(config.intermediate_size, config.hidden_size)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc_out(F.gelu(self.fc_in(x)))


class PDSSMBlock(GradientCheckpointingLayer):
    """Post-norm, as the paper's block: LayerNorm(layer), then LayerNorm(h + MLP(h)). The
    layer's own skip is D_skip * u; there is no residual around it."""

    def __init__(self, config: PDSSMConfig):
        super().__init__()
        self.mixer = PDSSMLayer(config)
        self.mixer_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)
        self.mlp = PDSSMMLP(config)
        self.mlp_norm = nn.LayerNorm(config.hidden_size, eps=config.layer_norm_eps)

    def forward(self, hidden: torch.Tensor, state: torch.Tensor | None = None):
        mixed, state = self.mixer(hidden, state)
        hidden = self.mixer_norm(mixed)
        return self.mlp_norm(hidden + self.mlp(hidden)), state


class PDSSMPreTrainedModel(PreTrainedModel):
    config: PDSSMConfig
    config_class = PDSSMConfig
    base_model_prefix = "model"
    _no_split_modules = ["PDSSMBlock"]
    _is_stateful = True
    supports_gradient_checkpointing = True

    @torch.no_grad()
    def _init_weights(self, module):
        # The reference's initialisation: PyTorch's own defaults for the linear maps
        # (uniform in +-1/sqrt(fan-in), weights and biases) and embeddings (N(0, 1)); the
        # dictionary N(0, 1/N), B N(0, 1/(2N)) per part, the skip D N(0, 1/d).
        if isinstance(module, nn.Linear):
            bound = 1 / math.sqrt(module.in_features)
            init.uniform_(module.weight, -bound, bound)
            if module.bias is not None:
                init.uniform_(module.bias, -bound, bound)
        elif isinstance(module, nn.Embedding):
            init.normal_(module.weight, std=1.0)
        elif isinstance(module, nn.LayerNorm):
            init.ones_(module.weight)
            init.zeros_(module.bias)
        elif isinstance(module, PDSSMLayer):
            N, d = module.config.state_size, module.config.hidden_size
            init.normal_(module.A_dict, std=1 / math.sqrt(N))
            init.normal_(module.B_re, std=1 / math.sqrt(2 * N))
            init.normal_(module.B_im, std=1 / math.sqrt(2 * N))
            init.normal_(module.D, std=1 / math.sqrt(d))


class PDSSMModel(PDSSMPreTrainedModel):
    def __init__(self, config: PDSSMConfig):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.hidden_size)
        self.layers = nn.ModuleList(PDSSMBlock(config) for _ in range(config.num_hidden_layers))
        self.gradient_checkpointing = False
        self.post_init()

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->PDSSM
    def get_input_embeddings(self):
        return self.embeddings

    # Copied from hf_induction.models.deltanet.modeling_deltanet.DeltaNetModel with DeltaNet->PDSSM
    def set_input_embeddings(self, new_embeddings):
        self.embeddings = new_embeddings

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        inputs_embeds: torch.Tensor | None = None,
        cache: PDSSMCache | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> tuple | PDSSMOutput:
        r"""
        cache (`PDSSMCache`, *optional*):
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
        memories = []
        for index, block in enumerate(self.layers):
            hidden, memory = block(hidden, cache.memories[index] if cache is not None else None)
            memories.append(memory)
            if output_hidden_states:
                all_hidden_states += (hidden,)
        new_cache = PDSSMCache(memories) if use_cache else None
        if not return_dict:
            return tuple(v for v in (hidden, new_cache, all_hidden_states) if v is not None)
        return PDSSMOutput(
            last_hidden_state=hidden, cache=new_cache, hidden_states=all_hidden_states
        )


class PDSSMForCausalLM(PDSSMPreTrainedModel, GenerationMixin):
    _tied_weights_keys = {"lm_head.weight": "model.embeddings.weight"}

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PDSSM
    def __init__(self, config: PDSSMConfig):
        super().__init__(config)
        self.model = PDSSMModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size)
        self.post_init()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PDSSM
    def get_input_embeddings(self):
        return self.model.get_input_embeddings()

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PDSSM
    def set_input_embeddings(self, new_embeddings):
        self.model.set_input_embeddings(new_embeddings)

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PDSSM
    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PDSSM
    def set_output_embeddings(self, new_embeddings: nn.Linear) -> None:
        self.lm_head = new_embeddings

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PDSSM
    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        # The state lives in the PDSSMCache returned by forward(), not in a key/value cache.
        return False

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PDSSM
    def prepare_inputs_for_generation(
        self,
        input_ids: torch.LongTensor,
        cache: PDSSMCache | None = None,
        use_cache: bool | None = None,
        **kwargs,
    ) -> dict:
        # With a state in hand, only the newest token is new; without one, read the whole prompt.
        if cache is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids.contiguous(), "cache": cache, "use_cache": use_cache}

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->PDSSM
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: PDSSMCache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        inputs_embeds: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ) -> tuple | PDSSMCausalLMOutput:
        r"""
        cache (`PDSSMCache`, *optional*):
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
        return PDSSMCausalLMOutput(
            loss=loss, logits=logits, cache=outputs.cache, hidden_states=outputs.hidden_states
        )


__all__ = ["PDSSMCache", "PDSSMForCausalLM", "PDSSMModel", "PDSSMPreTrainedModel"]
