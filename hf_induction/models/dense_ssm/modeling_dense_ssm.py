"""PyTorch Dense-SSM: the bilinear RNN h_t = A(x_t) h_{t-1} with A(x) linear in the one-hot token.

This file imports only torch, transformers and its own configuration, so that a checkpoint saved
with `save_pretrained` carries it and loads with `trust_remote_code=True` without hf_induction.
"""

from dataclasses import dataclass

import torch
from torch import nn
from transformers import GenerationMixin, PreTrainedModel
from transformers import initialization as init
from transformers.modeling_layers import GradientCheckpointingLayer
from transformers.utils import ModelOutput

from .configuration_dense_ssm import DenseSSMConfig
from .grouped_kernel import grouped_dense_ssm_states


def rms_normalise(hidden: torch.Tensor, eps: float) -> torch.Tensor:
    """Rescale the last dimension to unit root mean square."""
    return hidden * torch.rsqrt(hidden.pow(2).mean(-1, keepdim=True) + eps)


def full_precision(device: torch.device):
    """Autocast off: the recurrence runs in its parameters' dtype.

    h_T is a product of T matrices; in bfloat16 or float16 its rounding error compounds with
    the length, so under mixed precision only the read-out is cast down."""
    return torch.autocast(device.type, enabled=False)


def _inside_functorch(*tensors: torch.Tensor | None) -> bool:
    """Whether vmap or grad wraps any of these tensors. The grouped kernel plans its blocks from
    concrete token ids and has no vmap rule, so under a transform the layer uses `all_tokens`."""
    return any(
        t is not None and torch._C._functorch.is_functorch_wrapped_tensor(t) for t in tensors
    )


def stacked_dense_ssm_states(
    input_ids: torch.LongTensor,
    initial_state: torch.Tensor,
    transition: torch.Tensor | None = None,
    transition_u: torch.Tensor | None = None,
    transition_v: torch.Tensor | None = None,
    transition_w: torch.Tensor | None = None,
    path: str = "all_tokens",
    state_norm: str = "step",
    eps: float = 1e-8,
) -> torch.Tensor:
    """The states of R independent Dense-SSMs at once: ``[R, B, T] -> [R, B, T, d]``.

    Every parameter carries a leading run dimension R (``initial_state`` [R, d], ``transition``
    [R, V, d, d], or the factors [R, d, R'], [R, V, R'], [R, d, R']); run r reads its own batch
    ``input_ids[r]``. The same recurrence as `DenseSSMLayer.forward`, with each matrix product
    batched over runs (`torch.bmm`), so a grid of runs trains as one model without vmap.
    """
    runs, batch_size, seq_len = input_ids.shape
    d = initial_state.shape[-1]
    h = initial_state[:, None, :].expand(runs, batch_size, d)  # [R, B, d]

    if path == "grouped":
        # R runs of V tokens are one recurrence over R * V tokens: run r's token k is r * V + k.
        vocab_size = transition.shape[1]
        run_offset = torch.arange(runs, device=input_ids.device)[:, None, None] * vocab_size
        states = grouped_dense_ssm_states(
            (input_ids + run_offset).view(runs * batch_size, seq_len),
            h.reshape(runs * batch_size, d),
            transition.reshape(runs * vocab_size, d, d),
            normalise=state_norm == "step",
            eps=eps,
        ).view(runs, batch_size, seq_len, d)
        return rms_normalise(states, eps) if state_norm == "readout" else states

    # 1. Per-step operands that do not depend on the state.
    if path == "all_tokens":
        vocab_size = transition.shape[1]
        # table[r, j, k*d + i] = A_r(e_k)[i, j]
        table = transition.permute(0, 3, 1, 2).reshape(runs, d, vocab_size * d)
        index = input_ids[..., None, None].expand(runs, batch_size, seq_len, 1, d)
    elif path == "gather":
        vocab_size = transition.shape[1]
        run_offset = torch.arange(runs, device=input_ids.device)[:, None, None] * vocab_size
        # Row r*V + k of the flattened table is A_r(e_k).
        flat_ids = input_ids + run_offset  # [R, B, T]
        flat_table = transition.reshape(runs * vocab_size, d, d)
    else:
        vocab_size = transition_v.shape[1]
        run_offset = torch.arange(runs, device=input_ids.device)[:, None, None] * vocab_size
        token_gain = transition_v.reshape(runs * vocab_size, -1)[input_ids + run_offset]
        transition_u_t = transition_u.transpose(1, 2)  # [R, R', d]

    # 2. The recurrence, one step per token.
    states = []
    for t in range(seq_len):
        if path == "all_tokens":
            candidates = torch.bmm(h, table).view(runs, batch_size, vocab_size, d)
            h = candidates.gather(2, index[:, :, t]).squeeze(2)  # [R, B, d]
        elif path == "gather":
            matrices = flat_table[flat_ids[:, :, t]]  # [R, B, d, d]
            h = torch.matmul(matrices, h[..., None]).squeeze(-1)  # [R, B, d]
        else:
            h = torch.bmm(torch.bmm(h, transition_w) * token_gain[:, :, t], transition_u_t)
        if state_norm == "step":
            h = rms_normalise(h, eps)
        states.append(h)
    states = torch.stack(states, dim=2)  # [R, B, T, d]

    # 3. What the read-out sees.
    if state_norm == "readout":
        return rms_normalise(states, eps)
    return states


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


class DenseSSMLayer(GradientCheckpointingLayer):
    """One bilinear recurrence. The fast path never builds a [B, T, d, d] tensor at once.

    Dense transition: `transition[k]` is A(e_k), shape [vocab_size, d, d]. With the default
    `"grouped"` kernel, each step packs the states by token and applies each token's matrix to its
    block in one `bmm`, with a hand-written backward (`grouped_kernel.py`). With `"all_tokens"`,
    each step multiplies the state by the whole table in one matrix product ([B, d] x [d, V*d])
    and gathers the row of the current token; autograd keeps only the states. With `"gather"`,
    each step indexes A(x_t) for every example ([B, d, d] per step) and multiplies.
    Factorised transition: A(x) h = U (v_x * (W^T h)), two thin matrix products per step.
    `all_tokens`, `gather` and the factorised path use only batched tensor operations, so they
    run under `torch.func.vmap`; under vmap (or grad) the grouped kernel gives way to `all_tokens`.
    Under autocast the recurrence stays in the parameters' dtype (`full_precision`). With
    gradient checkpointing on, the layer's activations are recomputed in the backward.
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
        with full_precision(input_ids.device):
            return self._recurrence(input_ids, state)

    def _recurrence(
        self, input_ids: torch.LongTensor, state: torch.Tensor | None
    ) -> tuple[torch.Tensor, torch.Tensor]:
        batch_size, seq_len = input_ids.shape
        d, V = self.hidden_size, self.vocab_size
        h = self.initial_state.expand(batch_size, d) if state is None else state  # [B, d]
        path = self.path
        if path == "grouped" and _inside_functorch(input_ids, h, self.transition):
            path = "all_tokens"
        if path == "grouped":
            states = grouped_dense_ssm_states(
                input_ids, h, self.transition, normalise=self.state_norm == "step", eps=self.eps
            )
            h = states[:, -1]
            if self.state_norm == "readout":
                return rms_normalise(states, self.eps), h
            return states, h

        # 1. Per-step operands that do not depend on the state.
        if path == "all_tokens":
            # table[j, k*d + i] = A(e_k)[i, j], so (h @ table)[b, k*d + i] = (A(e_k) h_b)[i]
            table = self.transition.permute(2, 0, 1).reshape(d, V * d)
            index = input_ids[:, :, None, None].expand(batch_size, seq_len, 1, d)  # [B, T, 1, d]
        elif path == "factorised":
            token_gain = nn.functional.embedding(input_ids, self.transition_v)  # [B, T, R]

        # 2. The recurrence, one step per token.
        states = []
        for t in range(seq_len):
            if path == "all_tokens":
                candidates = (h @ table).view(batch_size, V, d)  # [B, V, d]
                h = candidates.gather(1, index[:, t]).squeeze(1)  # [B, d]
            elif path == "gather":
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
    supports_gradient_checkpointing = True

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

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DenseSSM
    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DenseSSM
    def set_output_embeddings(self, new_embeddings: nn.Linear) -> None:
        self.lm_head = new_embeddings

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DenseSSM
    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        # The state lives in the DenseSSMCache returned by forward(), not in a key/value cache.
        return False

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DenseSSM
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

    @property
    def stacked_grid_wins_on_cpu(self) -> bool:
        """Whether the grid trainer's "auto" mode stacks runs on the CPU. A small state's step
        is a loop of small products, and batching 15 runs into each wins (3.2x at d 16, 1.7x
        at d 64); from d 128 the 15 runs' [15 V, d, d] transition no longer fits the cache and
        15 separate runs are as fast or faster (docs/benchmarks.md)."""
        return self.config.hidden_size < 128

    def stacked_forward(
        self, params: dict[str, torch.Tensor], input_ids: torch.LongTensor
    ) -> torch.Tensor:
        """Logits ``[R, B, T, V]`` of R models shaped like this one, from stacked parameters.

        Args:
            params: this model's `named_parameters()` names, each tensor with a leading run
                dimension R (as `torch.func.stack_module_state` returns them).
            input_ids: ``[R, B, T]``, run r's batch in row r.

        The grid trainer calls this instead of vmapping `forward`: the same function, with the
        runs batched into `torch.bmm` / `torch.baddbmm`, and no vmap or `functional_call`
        overhead per step. Tests hold it to `forward` run by run, on outputs and gradients.
        """
        layer = self.model.layer
        prefix = "model.layer."
        factors = {
            name: params[prefix + name]
            for name in ("transition", "transition_u", "transition_v", "transition_w")
            if prefix + name in params
        }
        with full_precision(input_ids.device):
            states = stacked_dense_ssm_states(
                input_ids,
                params[prefix + "initial_state"],
                path=layer.path,
                state_norm=layer.state_norm,
                eps=layer.eps,
                **factors,
            )  # [R, B, T, d]
        runs, batch_size, seq_len, d = states.shape
        logits = torch.baddbmm(
            params["lm_head.bias"][:, None, :],
            states.reshape(runs, batch_size * seq_len, d),
            params["lm_head.weight"].transpose(1, 2),
        )  # [R, B*T, V]
        return logits.view(runs, batch_size, seq_len, -1)

    # Copied from hf_induction.models.lstm.modeling_lstm.LSTMForCausalLM with LSTM->DenseSSM
    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: DenseSSMCache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        inputs_embeds: torch.Tensor | None = None,
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
        return DenseSSMCausalLMOutput(
            loss=loss, logits=logits, cache=outputs.cache, hidden_states=outputs.hidden_states
        )


__all__ = ["DenseSSMCache", "DenseSSMForCausalLM", "DenseSSMModel", "DenseSSMPreTrainedModel"]
