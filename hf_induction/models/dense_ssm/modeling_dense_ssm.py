"""PyTorch Dense-SSM: the bilinear RNN h_t = A(x_t) h_{t-1} with A(x) linear in the one-hot token.

This file imports only torch, transformers and its own configuration, so that a checkpoint saved
with `save_pretrained` carries it and loads with `trust_remote_code=True` without hf_induction.
"""

from dataclasses import dataclass

import torch
from torch import nn
from transformers import GenerationMixin, PreTrainedModel
from transformers import initialization as init
from transformers.utils import ModelOutput

from .configuration_dense_ssm import DenseSSMConfig


def rms_normalise(hidden: torch.Tensor, eps: float) -> torch.Tensor:
    """Rescale the last dimension to unit root mean square."""
    return hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + eps)


class DenseSSMCache:
    """The recurrent state after the last token seen: one [B, d] tensor per layer.

    A recurrent model needs nothing else to continue a sequence, so `generate()` can feed it one
    token per step.
    """

    is_compileable = False

    def __init__(self, states: list[torch.Tensor]):
        self.states = states

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        self.states = [s.index_select(0, beam_idx.to(s.device)) for s in self.states]


@dataclass
class DenseSSMOutput(ModelOutput):
    r"""
    last_hidden_state (`torch.Tensor` of shape `(batch_size, sequence_length, hidden_size)`):
        The states h_1..h_T, as the read-out sees them.
    cache (`DenseSSMCache`, *optional*):
        The state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        The same states, returned when `output_hidden_states=True`.
    """

    last_hidden_state: torch.Tensor | None = None
    cache: DenseSSMCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


@dataclass
class DenseSSMCausalLMOutput(ModelOutput):
    r"""
    loss (`torch.Tensor` of shape `(1,)`, *optional*):
        Next-token cross-entropy (labels shifted inside the model), when `labels` is passed.
    logits (`torch.Tensor` of shape `(batch_size, sequence_length, vocab_size)`):
        The read-out of every state.
    cache (`DenseSSMCache`, *optional*):
        The state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        The states, returned when `output_hidden_states=True`.
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    cache: DenseSSMCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


class DenseSSMLayer(nn.Module):
    """One bilinear recurrence. The fast path never builds a [B, T, d, d] tensor at once.

    Dense transition: `transition[k]` is A(e_k), shape [vocab_size, d, d]. With the default
    `"all_tokens"` kernel, each step multiplies the state by the whole table in one matrix product
    ([B, d] x [d, V*d]) and gathers the row of the current token; autograd keeps only the states.
    With `"gather"`, each step indexes A(x_t) for every example ([B, d, d]) and multiplies.
    Factorised transition: A(x) h = U (v_x * (W^T h)), two thin matrix products per step.
    All paths use only batched tensor operations, so they run under `torch.func.vmap`.
    """

    def __init__(self, config: DenseSSMConfig):
        super().__init__()
        self.vocab_size = config.vocab_size
        self.hidden_size = config.hidden_size
        self.rank = config.transition_rank
        self.state_norm = config.state_norm
        self.eps = config.state_norm_eps
        # One of "all_tokens", "gather" (dense transition) or "factorised".
        self.path = config.transition_kernel if self.rank is None else "factorised"
        d, V = config.hidden_size, config.vocab_size
        self.initial_state = nn.Parameter(torch.empty(d))
        if self.rank is None:
            self.transition = nn.Parameter(torch.empty(V, d, d))
        else:
            self.transition_u = nn.Parameter(torch.empty(d, self.rank))
            self.transition_v = nn.Parameter(torch.empty(V, self.rank))
            self.transition_w = nn.Parameter(torch.empty(d, self.rank))

    def forward(
        self, input_ids: torch.LongTensor, state: torch.Tensor | None = None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Return the states h_1..h_T [B, T, d] and the last state [B, d]."""
        batch_size, seq_len = input_ids.shape
        d, V = self.hidden_size, self.vocab_size
        h = self.initial_state.expand(batch_size, d) if state is None else state  # [B, d]

        # 1. Per-step operands that do not depend on the state.
        if self.path == "all_tokens":
            # table[j, k*d + i] = A(e_k)[i, j], so (h @ table)[b, k*d + i] = (A(e_k) h_b)[i]
            table = self.transition.permute(2, 0, 1).reshape(d, V * d)
            index = input_ids[:, :, None, None].expand(batch_size, seq_len, 1, d)  # [B, T, 1, d]
        elif self.path == "factorised":
            token_gain = nn.functional.embedding(input_ids, self.transition_v)  # [B, T, R]

        # 2. The recurrence, one step per token.
        states = []
        for t in range(seq_len):
            if self.path == "all_tokens":
                candidates = (h @ table).view(batch_size, V, d)  # [B, V, d]
                h = candidates.gather(1, index[:, t]).squeeze(1)  # [B, d]
            elif self.path == "gather":
                matrices = self.transition[input_ids[:, t]]  # [B, d, d]
                h = torch.bmm(matrices, h[:, :, None]).squeeze(-1)  # [B, d]
            else:
                h = ((h @ self.transition_w) * token_gain[:, t]) @ self.transition_u.T  # [B, d]
            if self.state_norm == "step":
                h = rms_normalise(h, self.eps)
            states.append(h)
        states = torch.stack(states, dim=1)  # [B, T, d]

        # 3. What the read-out sees.
        if self.state_norm == "readout":
            return rms_normalise(states, self.eps), h
        return states, h


class DenseSSMPreTrainedModel(PreTrainedModel):
    config: DenseSSMConfig
    config_class = DenseSSMConfig
    base_model_prefix = "model"
    _no_split_modules = ["DenseSSMLayer"]
    _is_stateful = True
    supports_gradient_checkpointing = False

    @torch.no_grad()
    def _init_weights(self, module):
        config = self.config
        if isinstance(module, DenseSSMLayer):
            init.normal_(module.initial_state, std=1.0)
            if module.rank is None:
                if getattr(module.transition, "_is_hf_initialized", False):
                    return
                V, d, _ = module.transition.shape
                q, r = torch.linalg.qr(torch.randn(V, d, d, dtype=torch.float64))
                # Sign fix so that Q is uniform (Haar) over the orthogonal group.
                table = q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1))[:, None, :]
                init.copy_(module.transition, table.to(module.transition.dtype))
            else:
                init.orthogonal_(module.transition_u)
                init.orthogonal_(module.transition_w)
                if not getattr(module.transition_v, "_is_hf_initialized", False):
                    signs = torch.randint(0, 2, module.transition_v.shape) * 2.0 - 1.0
                    init.copy_(module.transition_v, signs.to(module.transition_v.dtype))
        elif isinstance(module, nn.Linear):
            init.normal_(module.weight, std=config.initializer_range)
            if module.bias is not None:
                init.zeros_(module.bias)


class DenseSSMModel(DenseSSMPreTrainedModel):
    def __init__(self, config: DenseSSMConfig):
        super().__init__(config)
        self.layer = DenseSSMLayer(config)
        self.post_init()

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: DenseSSMCache | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> tuple | DenseSSMOutput:
        r"""
        cache (`DenseSSMCache`, *optional*):
            The state after the tokens already consumed; `input_ids` then holds only the new tokens.
        use_cache (`bool`, *optional*, defaults to `False`):
            Whether to return the state after the last token (`generate()` asks for it).
        """
        if input_ids is None:
            raise ValueError("the Dense-SSM reads token ids: pass input_ids")
        if kwargs.get("inputs_embeds") is not None:
            raise ValueError(
                "the Dense-SSM has no input embedding: pass input_ids, not inputs_embeds"
            )
        output_hidden_states = (
            output_hidden_states
            if output_hidden_states is not None
            else self.config.output_hidden_states
        )
        return_dict = return_dict if return_dict is not None else self.config.return_dict

        state = cache.states[0] if cache is not None else None
        states, last_state = self.layer(input_ids, state)
        new_cache = DenseSSMCache([last_state]) if use_cache else None
        all_hidden_states = (states,) if output_hidden_states else None

        if not return_dict:
            return tuple(v for v in (states, new_cache, all_hidden_states) if v is not None)
        return DenseSSMOutput(
            last_hidden_state=states, cache=new_cache, hidden_states=all_hidden_states
        )


class DenseSSMForCausalLM(DenseSSMPreTrainedModel, GenerationMixin):
    def __init__(self, config: DenseSSMConfig):
        super().__init__(config)
        self.model = DenseSSMModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size)
        self.post_init()

    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        # The state lives in a DenseSSMCache returned by forward(), not in a key/value cache.
        return False

    def prepare_inputs_for_generation(
        self,
        input_ids: torch.LongTensor,
        cache: DenseSSMCache | None = None,
        use_cache: bool | None = None,
        **kwargs,
    ) -> dict:
        # With a state in hand, only the newest token is new; without one, read the whole prompt.
        if cache is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids.contiguous(), "cache": cache, "use_cache": use_cache}

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: DenseSSMCache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ) -> tuple | DenseSSMCausalLMOutput:
        r"""
        cache (`DenseSSMCache`, *optional*):
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
            cache=cache,
            use_cache=use_cache,
            output_hidden_states=output_hidden_states,
            return_dict=True,
            inputs_embeds=kwargs.pop("inputs_embeds", None),
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
        return DenseSSMCausalLMOutput(
            loss=loss, logits=logits, cache=outputs.cache, hidden_states=outputs.hidden_states
        )


__all__ = ["DenseSSMCache", "DenseSSMForCausalLM", "DenseSSMModel", "DenseSSMPreTrainedModel"]
