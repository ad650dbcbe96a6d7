"""PyTorch LSTM language model: embedding, `nn.LSTM`, linear head.

This file imports only torch, transformers and its own folder's files, so that a checkpoint saved
with `save_pretrained` carries it and loads with `trust_remote_code=True` without hf_induction.
"""

import math
from dataclasses import dataclass

import torch
from torch import nn
from transformers import GenerationMixin, PreTrainedModel
from transformers import initialization as init
from transformers.utils import ModelOutput

from .configuration_lstm import LSTMConfig
from .naive import lstm_reference


class StackedLSTMRecurrence(torch.autograd.Function):
    """The time loop of R stacked LSTMs from zero state, with a hand-written backward.

    ``projected`` [R, B, T, 4H] is x_t W_ih^T + b (gates i, f, g, o), ``w_hh_t`` [R, H, 4H];
    returns h [R, B, T, H]. Autograd through a Python loop records ~20 small ops per step;
    here the forward records none, and the backward precomputes every gate derivative over
    all steps at once, leaving ~7 ops and one bmm per step. Tests hold it to `nn.LSTM`.
    """

    @staticmethod
    def forward(ctx, projected: torch.Tensor, w_hh_t: torch.Tensor) -> torch.Tensor:
        runs, batch, seq_len, four_h = projected.shape
        hidden = four_h // 4
        # Time-major buffers, so that each step writes a contiguous block.
        acts = projected.new_empty(seq_len, runs, batch, four_h)  # σ(i), σ(f), tanh(g), σ(o)
        cs = projected.new_empty(seq_len, runs, batch, hidden)
        hs = projected.new_empty(seq_len, runs, batch, hidden)
        h = projected.new_zeros(runs, batch, hidden)
        c = projected.new_zeros(runs, batch, hidden)
        g_slice = slice(2 * hidden, 3 * hidden)
        for t in range(seq_len):
            gates = torch.baddbmm(projected[:, :, t], h, w_hh_t)
            a = acts[t]
            torch.sigmoid(gates, out=a)
            torch.tanh(gates[..., g_slice], out=a[..., g_slice])
            i, f, g, o = a.chunk(4, dim=-1)
            c = torch.addcmul(f * c, i, g, out=cs[t])
            h = torch.mul(o, torch.tanh(c), out=hs[t])
        ctx.save_for_backward(acts, cs, hs, w_hh_t)
        return hs.permute(1, 2, 0, 3)

    @staticmethod
    def backward(ctx, grad_hs: torch.Tensor):
        acts, cs, hs, w_hh_t = ctx.saved_tensors
        seq_len, runs, batch, four_h = acts.shape
        hidden = four_h // 4
        i, f, g, o = acts.chunk(4, dim=-1)
        tanh_c = torch.tanh(cs)
        c_prev = torch.cat([cs.new_zeros(1, runs, batch, hidden), cs[:-1]])
        # d(c_t)/d(h_t) and d(o_pre)/d(h_t), then d(i_pre, f_pre, g_pre)/d(c_t): all steps at once.
        dc_dh = o * (1 - tanh_c * tanh_c)
        do_dh = tanh_c * o * (1 - o)
        difg_dc = torch.cat([g * i * (1 - i), c_prev * f * (1 - f), i * (1 - g * g)], dim=-1)
        difg_dc = difg_dc.view(seq_len, runs, batch, 3, hidden)
        grad_h = grad_hs.permute(2, 0, 1, 3)  # [T, R, B, H]
        dgates = acts.new_empty(seq_len, runs, batch, four_h)
        w_hh = w_hh_t.transpose(1, 2)  # [R, 4H, H]
        dh_next = grad_h.new_zeros(runs, batch, hidden)
        dc_next = grad_h.new_zeros(runs, batch, hidden)
        for t in reversed(range(seq_len)):
            dh = grad_h[t] + dh_next
            dc = torch.addcmul(dc_next, dh, dc_dh[t])
            out = dgates[t]
            torch.mul(difg_dc[t], dc.unsqueeze(-2),
                      out=out[..., : 3 * hidden].view(runs, batch, 3, hidden))
            torch.mul(dh, do_dh[t], out=out[..., 3 * hidden :])
            dc_next = dc * f[t]
            dh_next = torch.bmm(out, w_hh)
        grad_w = None
        if ctx.needs_input_grad[1]:
            h_prev = torch.cat([hs.new_zeros(1, runs, batch, hidden), hs[:-1]])
            h_prev = h_prev.permute(1, 0, 2, 3).reshape(runs, seq_len * batch, hidden)
            grad_w = torch.bmm(h_prev.transpose(1, 2),
                               dgates.permute(1, 0, 2, 3).reshape(runs, seq_len * batch, four_h))
        return dgates.permute(1, 2, 0, 3), grad_w


def stacked_lstm(
    inputs: torch.Tensor, weights: dict[str, torch.Tensor], num_layers: int = 1
) -> torch.Tensor:
    """R independent batch-first LSTMs at once, from zero state: ``[R, B, T, E] -> [R, B, T, H]``.

    `weights` holds `nn.LSTM`'s parameters (`weight_ih_l{k}` [R, 4H, E], `weight_hh_l{k}`
    [R, 4H, H], `bias_ih_l{k}`, `bias_hh_l{k}` [R, 4H]), each with a leading run dimension.
    The arithmetic of `nn.LSTM` (gates i, f, g, o), with every matrix product batched over
    runs in one `torch.baddbmm`; tests hold it to `nn.LSTM` run by run.
    """
    runs, batch_size, seq_len, _ = inputs.shape
    layer_input = inputs
    for k in range(num_layers):
        w_ih, w_hh = weights[f"weight_ih_l{k}"], weights[f"weight_hh_l{k}"]
        hidden_size = w_hh.shape[2]
        bias = (weights[f"bias_ih_l{k}"] + weights[f"bias_hh_l{k}"])[:, None, :]  # [R, 1, 4H]
        # The input projection does not depend on the state: one product for all steps.
        projected = torch.baddbmm(
            bias, layer_input.reshape(runs, batch_size * seq_len, -1), w_ih.transpose(1, 2)
        ).view(runs, batch_size, seq_len, 4 * hidden_size)
        layer_input = StackedLSTMRecurrence.apply(projected, w_hh.transpose(1, 2))
    return layer_input


class LSTMCache:
    """The recurrent state after the last token seen: (h, c), each [num_layers, B, H]."""

    is_compileable = False

    def __init__(self, hidden: torch.Tensor, cell: torch.Tensor):
        self.hidden = hidden
        self.cell = cell

    def reorder_cache(self, beam_idx: torch.LongTensor) -> None:
        self.hidden = self.hidden.index_select(1, beam_idx.to(self.hidden.device))
        self.cell = self.cell.index_select(1, beam_idx.to(self.cell.device))


@dataclass
class LSTMOutput(ModelOutput):
    r"""
    last_hidden_state (`torch.Tensor` of shape `(batch_size, sequence_length, hidden_size)`):
        The top layer's hidden states.
    cache (`LSTMCache`, *optional*):
        The state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        The embeddings and the top layer's hidden states, returned when `output_hidden_states=True`.
    """

    last_hidden_state: torch.Tensor | None = None
    cache: LSTMCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


@dataclass
class LSTMCausalLMOutput(ModelOutput):
    r"""
    loss (`torch.Tensor` of shape `(1,)`, *optional*):
        Next-token cross-entropy (labels shifted inside the model), when `labels` is passed.
    logits (`torch.Tensor` of shape `(batch_size, sequence_length, vocab_size)`):
        The read-out of every position.
    cache (`LSTMCache`, *optional*):
        The state after the last token, returned when `use_cache=True`.
    hidden_states (`tuple(torch.Tensor)`, *optional*):
        Returned when `output_hidden_states=True`.
    """

    loss: torch.Tensor | None = None
    logits: torch.Tensor | None = None
    cache: LSTMCache | None = None
    hidden_states: tuple[torch.Tensor, ...] | None = None


class LSTMPreTrainedModel(PreTrainedModel):
    config: LSTMConfig
    config_class = LSTMConfig
    base_model_prefix = "model"
    _no_split_modules = ["LSTM"]
    _is_stateful = True
    supports_gradient_checkpointing = True

    @torch.no_grad()
    def _init_weights(self, module):
        bound = 1.0 / math.sqrt(self.config.hidden_size)
        if isinstance(module, nn.Embedding):
            init.normal_(module.weight, std=1.0)
        elif isinstance(module, (nn.LSTM, nn.Linear)):
            for param in module.parameters(recurse=False):
                init.uniform_(param, -bound, bound)


class LSTMModel(LSTMPreTrainedModel):
    def __init__(self, config: LSTMConfig):
        super().__init__(config)
        self.embeddings = nn.Embedding(config.vocab_size, config.embedding_size)
        self.lstm = nn.LSTM(
            config.embedding_size,
            config.hidden_size,
            num_layers=config.num_hidden_layers,
            batch_first=True,
        )
        # Set by `gradient_checkpointing_enable()`: the recurrence is recomputed in the backward.
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
        cache: LSTMCache | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        **kwargs,
    ) -> tuple | LSTMOutput:
        r"""
        cache (`LSTMCache`, *optional*):
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
        if inputs_embeds is None:
            inputs_embeds = self.embeddings(input_ids)  # [B, T, E]
        state = (cache.hidden, cache.cell) if cache is not None else None
        if self.gradient_checkpointing and self.training and torch.is_grad_enabled():
            hidden, (h_n, c_n) = self._gradient_checkpointing_func(
                self._recurrence, inputs_embeds, state
            )
        else:
            hidden, (h_n, c_n) = self._recurrence(inputs_embeds, state)

        new_cache = LSTMCache(h_n, c_n) if use_cache else None
        all_hidden_states = (inputs_embeds, hidden) if output_hidden_states else None
        if not return_dict:
            return tuple(v for v in (hidden, new_cache, all_hidden_states) if v is not None)
        return LSTMOutput(
            last_hidden_state=hidden, cache=new_cache, hidden_states=all_hidden_states
        )

    def _recurrence(self, inputs_embeds: torch.Tensor, state: tuple | None):
        """The LSTM over ``inputs_embeds`` [B, T, E] from ``state`` (None: zeros).

        Autocast is off and the inputs are cast to the weights' dtype: oneDNN's fused LSTM has
        no mixed-precision kernel, and a long recurrence in half precision compounds its rounding.
        """
        inputs_embeds = inputs_embeds.to(self.lstm.weight_ih_l0.dtype)
        with torch.autocast(inputs_embeds.device.type, enabled=False):
            if self.config.lstm_implementation == "fused":
                return self.lstm(inputs_embeds, state)
            weights = {name: getattr(self.lstm, name) for name in self.lstm._flat_weights_names}
            return lstm_reference(inputs_embeds, weights, self.config.num_hidden_layers, state)


class LSTMForCausalLM(LSTMPreTrainedModel, GenerationMixin):
    _tied_weights_keys = {"lm_head.weight": "model.embeddings.weight"}

    def __init__(self, config: LSTMConfig):
        super().__init__(config)
        self.model = LSTMModel(config)
        self.lm_head = nn.Linear(config.hidden_size, config.vocab_size)
        self.post_init()

    def get_input_embeddings(self):
        return self.model.get_input_embeddings()

    def set_input_embeddings(self, new_embeddings):
        self.model.set_input_embeddings(new_embeddings)

    def get_output_embeddings(self) -> nn.Linear:
        return self.lm_head

    def set_output_embeddings(self, new_embeddings: nn.Linear) -> None:
        self.lm_head = new_embeddings

    @classmethod
    def _supports_default_dynamic_cache(cls) -> bool:
        # The state lives in the LSTMCache returned by forward(), not in a key/value cache.
        return False

    def prepare_inputs_for_generation(
        self,
        input_ids: torch.LongTensor,
        cache: LSTMCache | None = None,
        use_cache: bool | None = None,
        **kwargs,
    ) -> dict:
        # With a state in hand, only the newest token is new; without one, read the whole prompt.
        if cache is not None:
            input_ids = input_ids[:, -1:]
        return {"input_ids": input_ids.contiguous(), "cache": cache, "use_cache": use_cache}

    # The grid trainer's "auto" mode stacks runs only off the CPU: there the Python-loop
    # stacked cell loses to one fused nn.LSTM per run (scripts/bench.py grid_speedup).
    stacked_grid_wins_on_cpu = False

    def stacked_forward(
        self, params: dict[str, torch.Tensor], input_ids: torch.LongTensor
    ) -> torch.Tensor:
        """Logits ``[R, B, T, V]`` of R models shaped like this one, from stacked parameters.

        Args:
            params: this model's `named_parameters()` names, each tensor with a leading run
                dimension R (as `torch.func.stack_module_state` returns them).
            input_ids: ``[R, B, T]``, run r's batch in row r.

        `nn.LSTM` has no vmap rule; the grid trainer calls this instead: `stacked_lstm` over
        the runs' embeddings, then the runs' read-outs in one `torch.baddbmm`.
        """
        runs, batch_size, seq_len = input_ids.shape
        embeddings = params["model.embeddings.weight"]  # [R, V, E]
        vocab_size = embeddings.shape[1]
        run_offset = torch.arange(runs, device=input_ids.device)[:, None, None] * vocab_size
        inputs = embeddings.reshape(runs * vocab_size, -1)[input_ids + run_offset]  # [R, B, T, E]
        weights = {
            name: params["model.lstm." + name] for name in self.model.lstm._flat_weights_names
        }
        with torch.autocast(input_ids.device.type, enabled=False):
            hidden = stacked_lstm(inputs, weights, self.config.num_hidden_layers)  # [R, B, T, H]
        head = params.get("lm_head.weight", embeddings)  # tied: the embedding table
        logits = torch.baddbmm(
            params["lm_head.bias"][:, None, :],
            hidden.reshape(runs, batch_size * seq_len, -1),
            head.transpose(1, 2),
        )  # [R, B*T, V]
        return logits.view(runs, batch_size, seq_len, -1)

    def forward(
        self,
        input_ids: torch.LongTensor | None = None,
        cache: LSTMCache | None = None,
        labels: torch.LongTensor | None = None,
        use_cache: bool | None = None,
        output_hidden_states: bool | None = None,
        return_dict: bool | None = None,
        inputs_embeds: torch.Tensor | None = None,
        attention_mask: torch.Tensor | None = None,
        **kwargs,
    ) -> tuple | LSTMCausalLMOutput:
        r"""
        cache (`LSTMCache`, *optional*):
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
        return LSTMCausalLMOutput(
            loss=loss, logits=logits, cache=outputs.cache, hidden_states=outputs.hidden_states
        )


__all__ = ["LSTMCache", "LSTMForCausalLM", "LSTMModel", "LSTMPreTrainedModel"]
