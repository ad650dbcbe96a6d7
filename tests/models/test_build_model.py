import json

import pytest
import torch

from hf_induction.models import MODEL_NAMES, PRESETS, build_config, build_model, model_config_hash
from hf_induction.tasks import Vocab


def test_model_names_and_presets():
    assert set(MODEL_NAMES) == {"dense_ssm", "lstm", "gpt2", "mamba", "gpt2_offset", "rope",
                                "mamba2", "xlstm", "hybrid", "deltanet", "deltanet_neg",
                                "gated_deltanet", "gated_deltanet_neg", "deltaproduct2",
                                "deltaproduct2_neg", "deltaproduct3_neg",
                                "gated_deltaproduct2_neg", "rwkv7", "qwen3_next",
                                "kimi_linear", "selective_ssm", "selective_ssm_neg",
                                "selective_ssm_complex", "path_attn", "mamba3", "pd_ssm"}
    assert set(PRESETS) == {"paper", "tiny"}
    for preset in PRESETS.values():
        assert set(preset) == set(MODEL_NAMES)


def test_overrides_replace_preset_values():
    model = build_model("gpt2", vocab_size=9, preset="tiny", n_layer=1, hidden_size=16)
    assert (model.config.num_hidden_layers, model.config.hidden_size) == (1, 16)


@pytest.fixture
def llama_config_dir(tmp_path):
    """A config.json of a small transformers model that is not one of ours."""
    config = {
        "model_type": "llama",
        "architectures": ["LlamaForCausalLM"],
        "hidden_size": 16,
        "intermediate_size": 32,
        "num_hidden_layers": 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "vocab_size": 1000,
        "max_position_embeddings": 64,
    }
    (tmp_path / "config.json").write_text(json.dumps(config))
    return tmp_path


def test_hf_prefix_builds_any_config_with_the_task_vocabulary(llama_config_dir):
    model = build_model(f"hf:{llama_config_dir}", vocab_size=Vocab(5), num_hidden_layers=1)
    config = model.config
    assert type(model).__name__ == "LlamaForCausalLM"
    assert (config.vocab_size, config.num_hidden_layers, config.hidden_size) == (9, 1, 16)
    assert (config.bos_token_id, config.eos_token_id, config.pad_token_id) == (5, 7, 8)
    assert model(input_ids=torch.randint(0, 9, (2, 5))).logits.shape == (2, 5, 9)


def test_hf_prefix_rejects_unknown_overrides(llama_config_dir):
    with pytest.raises(ValueError, match="unknown override"):
        build_model(f"hf:{llama_config_dir}", vocab_size=9, not_a_field=1)


@pytest.mark.parametrize(
    ("args", "kwargs", "message"),
    [
        pytest.param(("transformer", 9), {}, "allowed: ", id="unknown_name"),
        pytest.param(("lstm", 9), {"preset": "huge"}, "allowed: ", id="unknown_preset"),
        pytest.param(("lstm", 9), {"hiden_size": 3}, "unknown override", id="unknown_override"),
        pytest.param(("lstm", 0), {}, "positive integer", id="vocab_too_small"),
        pytest.param(("dense_ssm", 9), {"state_norm": "rms"}, "state_norm", id="bad_value"),
    ],
)
def test_bad_inputs_raise_value_error_naming_allowed_values(args, kwargs, message):
    with pytest.raises(ValueError, match=message):
        build_model(*args, **kwargs)


def test_a_bare_size_sets_no_special_tokens_and_clears_foreign_ones(tmp_path):
    import logging

    from transformers import GPT2Config
    from transformers.utils import logging as hf_logging

    GPT2Config(n_layer=1, n_embd=8, n_head=2).save_pretrained(tmp_path)
    warned = []
    handler = logging.Handler()
    handler.emit = lambda record: warned.append(record.getMessage())
    hf_logging.warning_once.cache_clear()  # an earlier test may have spent the one warning
    logging.getLogger("transformers").addHandler(handler)
    try:
        gpt2 = build_model("gpt2", vocab_size=9).config
        hub = build_config(f"hf:{tmp_path}", vocab_size=9)
    finally:
        logging.getLogger("transformers").removeHandler(handler)
    # GPT-2's own 50256 cannot be a token of a 9-token vocabulary...
    assert (gpt2.bos_token_id, gpt2.eos_token_id) == (None, None)
    assert (hub.bos_token_id, hub.eos_token_id) == (None, None)
    # ...and it is left out when the config is built, not cleared after transformers has
    # warned that it lies outside the vocabulary.
    assert not [m for m in warned if "50256" in m]
    task = build_model("gpt2", vocab_size=Vocab(5)).config
    assert (task.vocab_size, task.bos_token_id, task.eos_token_id, task.pad_token_id) == (
        9, 5, 7, 8)


def test_config_hash_is_stable_and_tells_configs_apart():
    a = build_model("dense_ssm", vocab_size=9)
    assert model_config_hash(a) == model_config_hash(build_model("dense_ssm", vocab_size=9))
    assert model_config_hash(a) == model_config_hash(a.config)
    assert model_config_hash(a) != model_config_hash(build_model("dense_ssm", vocab_size=10))
    assert model_config_hash(a) != model_config_hash(
        build_model("dense_ssm", vocab_size=9, hidden_size=8)
    )
    assert len(model_config_hash(a)) == 12


@pytest.mark.parametrize("preset", ["paper", "tiny"])
def test_gpt2_presets_compute_gpt2s_own_activation(preset):
    import torch
    from transformers.activations import ACT2FN

    from hf_induction.models import build_config

    config = build_config("gpt2", 9, preset)
    assert config.activation_function == "gelu_pytorch_tanh"
    x = torch.linspace(-8, 8, 10_001, dtype=torch.float64)
    gelu_new = 0.5 * x * (1 + torch.tanh((2 / torch.pi) ** 0.5 * (x + 0.044715 * x**3)))
    torch.testing.assert_close(ACT2FN[config.activation_function](x), gelu_new,
                               rtol=1e-12, atol=1e-12)
    torch.testing.assert_close(ACT2FN["gelu_new"](x), gelu_new, rtol=1e-12, atol=1e-12)


def test_an_hf_id_not_in_the_cache_offline_is_one_line_saying_how_to_get_it(monkeypatch,
                                                                           tmp_path):
    # (Online with no network the Hub client retries for about 30 s first; the line is the
    # same but for its reason, and its retry warnings are silenced.)
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hub"))
    with pytest.raises(OSError) as e:
        build_config("hf:no-org/no-such-model", Vocab(3))
    message = str(e.value)
    assert len(message.splitlines()) == 1
    assert message.startswith("hf:no-org/no-such-model is not in the local Hub cache and "
                              "HF_HUB_OFFLINE is set")
    assert "hf download no-org/no-such-model config.json" in message


def test_each_model_is_one_spec_registered_once_and_loads_without_torch():
    import subprocess
    import sys

    from hf_induction.models import SPECS
    from hf_induction.models.flops import flops_per_token
    from hf_induction.models.registry import MODEL_MODULES, _specs

    # One line per module; a module's specs (one, or several settings of one architecture)
    # never share a name with another's.
    named = [spec.name for module in MODEL_MODULES for spec in _specs(module)]
    assert len(MODEL_MODULES) == len(set(MODEL_MODULES))
    assert len(named) == len(set(named)) == len(SPECS)
    for name, spec in SPECS.items():
        assert spec.name == name and spec.cpu_budget.max_steps > 0
        for preset in PRESETS:
            assert PRESETS[preset][name] == spec.presets[preset]
            config = build_config(name, 9, preset)
            assert flops_per_token(name, config, 11) == spec.flops_per_token(config, 11)
    code = ("import sys; from hf_induction.models import SPECS; "
            "from hf_induction.runner.budgets import BUDGETS; "
            "print('torch' in sys.modules or 'transformers' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.stdout.strip() == "False", done.stderr


def test_only_the_kernel_fallback_lines_are_dropped():
    import logging

    from transformers.utils import logging as hf_logging

    from hf_induction.models.build import KERNEL_FALLBACK

    seen = []
    handler = logging.Handler()
    handler.emit = lambda record: seen.append(record.getMessage())
    hf_logging.warning_once.cache_clear()  # an earlier test may have spent each line's one
    logging.getLogger("transformers").addHandler(handler)
    hub_kernels = logging.getLogger("transformers.integrations.hub_kernels")
    try:
        model = build_model("mamba2", vocab_size=9).train()
        model(input_ids=torch.zeros(1, 3, dtype=torch.long)).logits.sum().backward()
        hub_kernels.warning("`f` %s because `pkg` is not installed.", KERNEL_FALLBACK)
        hub_kernels.warning("a kernel could not be loaded")
    finally:
        logging.getLogger("transformers").removeHandler(handler)
    assert "a kernel could not be loaded" in seen
    assert not [message for message in seen if KERNEL_FALLBACK in message]


@pytest.mark.slow
def test_a_model_is_saved_from_a_process_other_than_rank_0(tmp_path, monkeypatch):
    # Under torchrun each process trains jobs of its own; transformers 5 writes nothing on
    # rank 1 once torch.distributed is up (it assumes data parallelism). Rank 1, as it sees it:
    import transformers.distributed.mixin as mixin

    from hf_induction.models.build import save_model

    monkeypatch.setattr(mixin, "_is_torch_distributed_initialized", lambda: True)
    monkeypatch.setattr(mixin, "_get_torch_distributed_rank", lambda: 1)
    model = build_model("gpt2_offset", vocab_size=12, preset="tiny")
    model.save_pretrained(tmp_path / "plain")
    assert not (tmp_path / "plain" / "model.safetensors").exists()  # the pitfall itself
    save_model(model, tmp_path / "ours")
    assert {"config.json", "model.safetensors"} <= {p.name for p in (tmp_path / "ours").iterdir()}
    assert "should_save_on_this_rank" not in vars(model)  # the instance is left as it was
