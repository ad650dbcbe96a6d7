"""What every model must do, whichever architecture: the trainer never branches on the type."""

import math

import pytest
import torch
from transformers import AutoConfig, AutoModelForCausalLM

from hf_induction.models import MODEL_NAMES, build_model, model_config_hash
from hf_induction.tasks import Vocab

from .model_checks import assert_backward_reaches_all_parameters

# Z_5 in the task layout: elements 0..4, BOS 5, SEP 6, EOS 7, PAD 8.
TASK_VOCAB = Vocab(5)
VOCAB = TASK_VOCAB.size


def random_ids(batch_size: int, seq_len: int, seed: int = 1) -> torch.LongTensor:
    return torch.randint(
        0, VOCAB - 4, (batch_size, seq_len), generator=torch.Generator().manual_seed(seed)
    )


@pytest.fixture(scope="module", params=MODEL_NAMES)
def tiny_model(request):
    torch.manual_seed(0)
    return build_model(request.param, vocab_size=TASK_VOCAB, preset="tiny").eval()


def test_shared_fields_and_special_tokens(tiny_model):
    config = tiny_model.config
    assert (config.vocab_size, config.bos_token_id, config.eos_token_id, config.pad_token_id) == (
        VOCAB,
        5,
        7,
        8,
    )
    assert config.hidden_size > 0 and config.num_hidden_layers > 0


def test_forward_shapes(tiny_model):
    logits = tiny_model(input_ids=random_ids(3, 11)).logits
    assert logits.shape == (3, 11, VOCAB) and logits.dtype == torch.float32


def test_backward(tiny_model):
    assert_backward_reaches_all_parameters(tiny_model, random_ids(2, 6))
    tiny_model.eval()


def test_right_padding_does_not_change_earlier_logits(tiny_model):
    ids = random_ids(2, 6)
    padded = torch.cat([ids, torch.full((2, 3), VOCAB - 1)], dim=1)
    with torch.no_grad():
        torch.testing.assert_close(
            tiny_model(input_ids=padded).logits[:, :6], tiny_model(input_ids=ids).logits
        )


def test_save_load_round_trip_through_auto_classes(tiny_model, tmp_path):
    tiny_model.save_pretrained(tmp_path)
    config = AutoConfig.from_pretrained(tmp_path)
    loaded = AutoModelForCausalLM.from_pretrained(tmp_path).eval()
    assert type(config) is type(tiny_model.config)
    assert type(loaded) is type(tiny_model)
    assert model_config_hash(loaded) == model_config_hash(tiny_model)
    ids = random_ids(2, 7)
    with torch.no_grad():
        torch.testing.assert_close(
            loaded(input_ids=ids).logits, tiny_model(input_ids=ids).logits, rtol=0, atol=0
        )


def paper_formula(name: str, config) -> int:
    V, d, L = config.vocab_size, config.hidden_size, config.num_hidden_layers
    if "deltanet" in name or "deltaproduct" in name:
        # Embeddings; per block two RMS norms, q and the n_h k and v ((1 + 2 n_h) d I), their
        # convolution ((1 + 2 n_h) I K), the n_h step sizes (n_h d H), with a gate also a_proj
        # (d H), A and dt (2 H) and the output gate (d I); the output norm and projection; the
        # SwiGLU MLP; the final norm; the head.
        H, inner, n = config.num_heads, config.num_heads * config.head_dim, config.num_householder
        gate = (d * H + 2 * H + d * inner) if config.gated else 0
        mixer = (1 + 2 * n) * inner * (d + config.conv_size) + n * d * H + gate
        block = 2 * d + mixer + config.head_dim + inner * d + 3 * d * config.intermediate_size
        return V * d + L * block + d + d * V
    if name == "rwkv7":
        # Embeddings and their norm; per block two layer norms, the time mix (six token-shift
        # mixes, r, k, v, o, the decay, learning-rate and gate low-rank maps, the value
        # residual's after the first block, k_k, k_a, r_k, the per-head norm) and the channel
        # mix (its shift mix, key and value); the final norm; an untied head.
        def low_rank(rank, bias=True):
            return 2 * d * rank + (d if bias else 0)
        time = (6 * d + 4 * d * d + low_rank(config.decay_low_rank_dim)
                + low_rank(config.a_low_rank_dim) + low_rank(config.gate_low_rank_dim, False)
                + 3 * d + 2 * d)
        channel = d + 2 * d * config.intermediate_size
        return (V * d + 2 * d + L * (4 * d + time + channel)
                + (L - 1) * low_rank(config.v_low_rank_dim) + 2 * d + d * V)
    if name == "dense_ssm":
        # V transition matrices, h_0, read-out weight and bias.
        return V * d * d + d + d * V + V
    if name == "lstm":
        E = config.embedding_size
        gates = 4 * d * (E + d) + 8 * d + (L - 1) * (4 * d * 2 * d + 8 * d)
        return V * E + gates + d * V + V
    if name in ("gpt2", "gpt2_offset"):
        # Token and position embeddings, 12 d^2 + 13 d per block, final layer norm; head tied.
        return V * d + config.n_positions * d + L * (12 * d * d + 13 * d) + 2 * d
    if name == "rope":
        # Embeddings; per block Q, K, V, O (no bias), a gated MLP of 3 d I, two RMS norms;
        # the final norm; an untied head. No position parameters: rotary.
        inner = config.intermediate_size
        return V * d + L * (4 * d * d + 3 * d * inner + 2 * d) + d + d * V
    if name == "mamba":
        E, N, K = config.intermediate_size, config.state_size, config.conv_kernel
        R = math.ceil(d / 16)
        block = d + d * 2 * E + E * K + E + E * (R + 2 * N) + R * E + E + E * N + E + E * d
        return V * d + L * block + d
    if name == "mamba2":
        # Embeddings; per block an RMS norm, the input projection to z, x, B, C and dt (no bias),
        # the convolution over x, B, C (weights and bias), dt bias, A and D per head, the gated
        # norm, the output projection; the final norm; the head tied.
        E, N, G, H = config.expand * d, config.state_size, config.n_groups, config.num_heads
        conv = (E + 2 * G * N) * (config.conv_kernel + 1)
        block = d + d * (2 * E + 2 * G * N + H) + conv + 3 * H + E + E * d
        return V * d + L * block + d
    if name == "xlstm":
        # Embeddings; per block two RMS norms, q, k, v and the output gate (no bias), input and
        # forget gates (with bias), the per-head norm and the output projection of the mLSTM,
        # a gated feed-forward of 3 d F (F = d x ffn_proj_factor rounded as transformers
        # rounds it); the final norm; an untied head.
        qk, v = int(d * config.qk_dim_factor), int(d * config.v_dim_factor)
        m = config.ffn_round_up_to_multiple_of
        F = int((d * config.ffn_proj_factor + m - 1) // m * m)
        H = config.num_heads
        block = 2 * d + d * (2 * qk + 2 * v) + 2 * (d * H + H) + v + v * d + 3 * d * F
        return V * d + L * block + d + d * V
    if name == "hybrid":
        # Embeddings; per delta-rule layer q, k (key width), v and the output gate (value
        # width), a and b (one per value head), the output projection, the convolution over q,
        # k, v (no bias), A and dt per head, the gated output norm (one value head wide); per
        # attention layer Q, K, V, O and the q/k norms; both a gated MLP of 3 d I and two RMS
        # norms; the final norm; an untied head.
        keys = config.linear_num_key_heads * config.linear_key_head_dim
        values = config.linear_num_value_heads * config.linear_value_head_dim
        heads = config.linear_num_value_heads
        delta = (d * (2 * keys + 2 * values + 2 * heads) + values * d
                 + (2 * keys + values) * config.linear_conv_kernel_dim + 2 * heads
                 + config.linear_value_head_dim)
        kv = d * config.num_key_value_heads // config.num_attention_heads
        attention = 2 * d * d + 2 * d * kv + d + kv
        mixers = sum(delta if kind == "linear_attention" else attention
                     for kind in config.layer_types)
        return V * d + mixers + L * (3 * d * config.intermediate_size + 2 * d) + d + d * V
    if name.startswith("qwen3_next"):
        # Embeddings; per linear layer dt and A per value head, the convolution over q, k, v
        # (no bias), q, k, v and the output gate z, b and a per value head, the gated norm
        # (one value head wide), the output projection; per attention layer Q and its output
        # gate, K, V, O and the q/k norms; both a gated MLP of 3 d I and two RMS norms; the
        # final norm; an untied head.
        heads = config.linear_num_value_heads
        keys = config.linear_num_key_heads * config.linear_key_head_dim
        values = heads * config.linear_value_head_dim
        linear = (2 * heads + (2 * keys + values) * config.linear_conv_kernel_dim
                  + d * (2 * keys + 2 * values + 2 * heads) + config.linear_value_head_dim
                  + values * d)
        q, kv = (config.num_attention_heads * config.head_dim,
                 config.num_key_value_heads * config.head_dim)
        attention = d * (2 * q + 2 * kv) + q * d + 2 * config.head_dim
        mixers = sum(linear if kind == "linear_attention" else attention
                     for kind in config.layer_types)
        return V * d + mixers + L * (3 * d * config.intermediate_size + 2 * d) + d + d * V
    if name.startswith("kimi_linear"):
        # Embeddings; per KDA layer q, k, v, their convolution (no bias), the forget gate's
        # dt bias (per channel), A (per head) and low-rank map (rank = head width), beta per
        # head, the output gate's low-rank map, the output norm (one head wide), the output
        # projection; per MLA layer Q, the compressed key/value with the rotary key, its norm,
        # its expansion to keys and values, O; both a gated MLP of 3 d I and two RMS norms;
        # the final norm; an untied head.
        heads, width = config.linear_num_heads, config.linear_head_dim
        inner = heads * width
        kda = (3 * d * inner + 3 * inner * config.linear_conv_kernel_dim + inner + heads
               + 2 * (width * d + inner * width) + heads * d + width + d * inner)
        h, rank = config.num_attention_heads, config.kv_lora_rank
        qk = config.qk_nope_head_dim + config.qk_rope_head_dim
        mla = (d * h * qk + d * (rank + config.qk_rope_head_dim) + rank
               + rank * h * (config.qk_nope_head_dim + config.v_head_dim)
               + h * config.v_head_dim * d)
        mixers = sum(kda if kind == "linear_attention" else mla for kind in config.layer_types)
        return V * d + mixers + L * (3 * d * config.intermediate_size + 2 * d) + d + d * V
    if name.startswith("selective_ssm"):
        # Embeddings; per block two RMS norms, the mixer's input projection to z and x (E each),
        # B and C (N each), a time step per head and, complex, N / 2 angles; the convolution over
        # x, B, C (no bias); dt bias, A and D per head; the gated norm (E); the output
        # projection; the SwiGLU MLP; the final norm; an untied head.
        E, N, H = config.expand * d, config.state_size, config.expand * d // config.head_dim
        angles = N // 2 if name.endswith("complex") else 0
        mixer = (d * (2 * E + 2 * N + H + angles) + (E + 2 * N) * config.conv_size + 3 * H + E
                 + E * d)
        return V * d + L * (2 * d + mixer + 3 * d * config.intermediate_size) + d + d * V
    if name == "mamba3":
        # Embeddings; per block two RMS norms, the mixer's input projection to z and x (E each),
        # R B's and C's (N each), a time step, decay rate and trapezoid weight per head and the
        # angles; dt bias and D per head, B and C biases (R N per head) and norms (N each), with
        # MIMO (R > 1) three weights of R P per head; the output projection (no convolution, no
        # output norm); the SwiGLU MLP; the final norm; an untied head.
        E, N, H = config.expand * d, config.state_size, config.expand * d // config.head_dim
        R, S = config.mimo_rank, int(N * config.rope_fraction) // 2
        mimo = 3 * H * R * config.head_dim if R > 1 else 0
        mixer = (d * (2 * E + 2 * R * N + 3 * H + S) + 2 * H + 2 * H * R * N + 2 * N + mimo
                 + E * d)
        return V * d + L * (2 * d + mixer + 3 * d * config.intermediate_size) + d + d * V
    if name == "pd_ssm":
        # Embeddings; per block the layer's selector (d K) and dictionary (K N^2), the
        # magnitude and phase MLPs (d -> 2N -> N, with biases), B's two parts, the skip D, the
        # read-out of [Re x, Im x] (with bias), then two layer norms and a GELU MLP with
        # biases; an untied head with bias.
        N, K, E, inner = (config.state_size, config.dictionary_size,
                          config.diagonal_expand * config.state_size, config.intermediate_size)
        layer = d * K + K * N * N + 2 * (d * E + E + E * N + N) + 2 * N * d + d + 2 * N * d + d
        block = layer + 4 * d + 2 * d * inner + inner + d
        return V * d + L * block + d * V + V
    if name == "path_attn":
        # Embeddings; per block two RMS norms, Q, K, V, O (no bias), the map to the Householder
        # directions (through its rank, or full), their convolution (no bias), the step sizes
        # (with bias), the SwiGLU MLP; the final norm; an untied head. No position parameters.
        r = config.w_low_rank_dim
        w_map = 2 * d * r if r is not None else d * d
        mixer = 4 * d * d + w_map + d * config.conv_size + d * config.num_heads + config.num_heads
        return V * d + L * (2 * d + mixer + 3 * d * config.intermediate_size) + d + d * V
    raise AssertionError(name)


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_paper_preset_parameter_count_matches_formula(name):
    model = build_model(name, vocab_size=VOCAB, preset="paper")
    count = sum(p.numel() for p in model.parameters())
    print(f"paper preset {name} (vocab {VOCAB}): {count:,} parameters")
    assert count == paper_formula(name, model.config)


def test_paper_preset_sizes():
    gpt2 = build_model("gpt2", vocab_size=VOCAB, preset="paper").config
    assert (gpt2.n_layer, gpt2.n_embd, gpt2.n_head, gpt2.n_inner) == (6, 256, 8, None)
    lstm = build_model("lstm", vocab_size=VOCAB, preset="paper").config
    assert (lstm.num_hidden_layers, lstm.hidden_size) == (1, 768)
    dense = build_model("dense_ssm", vocab_size=VOCAB, preset="paper").config
    assert (dense.num_hidden_layers, dense.hidden_size) == (1, 256)
    # The second study's from-scratch transformers: 4 layers, 4 heads, d 256.
    for name in ("gpt2_offset", "rope"):
        config = build_model(name, vocab_size=VOCAB, preset="paper").config
        assert (config.num_hidden_layers, config.num_attention_heads, config.hidden_size) == (
            4, 4, 256)
    # The hybrid in the same shape: three gated delta-rule layers (negative eigenvalues
    # allowed), then attention.
    hybrid = build_model("hybrid", vocab_size=VOCAB, preset="paper").config
    assert (hybrid.num_hidden_layers, hybrid.num_attention_heads, hybrid.hidden_size) == (4, 4, 256)
    assert hybrid.layer_types == ["linear_attention"] * 3 + ["full_attention"]
    assert hybrid.linear_allow_neg_eigval


@pytest.mark.parametrize("name", ["dense_ssm", "lstm"])
def test_generate_feeds_recurrent_models_one_token_per_step(name):
    model = build_model(name, vocab_size=VOCAB, preset="tiny").eval()
    lengths = []
    model.register_forward_pre_hook(
        lambda module, args, kwargs: lengths.append(kwargs["input_ids"].shape[1]), with_kwargs=True
    )
    prompt = random_ids(2, 5)
    model.generate(prompt, max_new_tokens=4, min_new_tokens=4, do_sample=False)
    assert lengths == [5, 1, 1, 1]
