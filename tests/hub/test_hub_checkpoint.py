"""push_checkpoint against the Hub stand-in: weights, code, tokenizer and card, loaded back with
trust_remote_code in a process that never imports hf_induction."""


import pytest
from _hub_clients import run_client
from huggingface_hub import ModelCard

from hf_induction.hub.cards import checkpoint_card

FIELDS = dict(task="modadd", config="acot_L5", model="dense_ssm", n=128, learning_rate=1e-3,
              seed=10, steps=500, validation_loss=5e-5, epsilon=1e-4,
              dataset_id="org/modadd", results_repo="org/results",
              metrics={"ood_normalised_accuracy": 0.9})


def test_card_renders_the_template_with_model_index():
    card = checkpoint_card("org/ckpt", FIELDS)
    text = str(card)
    for fragment in ["| training-set size N | 128 |", "| learning rate | 0.001 |", "| seed | 10 |",
                     "| steps | 500 |", "| validation loss | 5e-05 |", "`acot_L5`", "group Z_5",
                     'from_pretrained("org/ckpt", trust_remote_code=True)', "org/results"]:
        assert fragment in text, fragment
    reloaded = ModelCard(text)
    index = reloaded.data.to_dict()["model-index"][0]
    assert index["name"] == "ckpt"
    metrics = index["results"][0]["metrics"]
    assert [m["type"] for m in metrics] == ["loss", "ood_normalised_accuracy"]
    assert metrics[0]["value"] == 5e-5
    assert index["results"][0]["dataset"] == {"name": "modadd acot_L5", "type": "org/modadd",
                                              "config": "acot_L5", "split": "validation"}
    with pytest.raises(ValueError, match="card_fields needs seed"):
        checkpoint_card("org/ckpt", {k: v for k, v in FIELDS.items() if k != "seed"})


PUSH = f"""
import torch
from hf_induction.hub import push_checkpoint
from hf_induction.models import build_model
from hf_induction.tasks import WordProblemCell
from hf_induction.tasks.tokenizer import build_tokenizer
from transformers import GPT2Config, GPT2LMHeadModel
torch.manual_seed(0)
cfg = WordProblemCell.parse("modadd", "acot_L5")
tokenizer = build_tokenizer(cfg)
model = build_model("dense_ssm", vocab_size=cfg.vocab, preset="tiny")
fields = {FIELDS!r}
first = push_checkpoint(model, tokenizer, "org/dense", fields)
again = push_checkpoint(model, tokenizer, "org/dense", fields)
gpt2 = GPT2LMHeadModel(GPT2Config(n_layer=1, n_embd=16, n_head=2, vocab_size=9, n_positions=16,
                                  **cfg.vocab.special_token_ids())).eval()
push_checkpoint(gpt2, tokenizer, "org/gpt2", {{**fields, "model": "gpt2"}})
ids = tokenizer(["1 2 3 4 0"], return_tensors="pt")["input_ids"]
with torch.no_grad():
    logits = {{"org/dense": model(ids).logits.tolist(), "org/gpt2": gpt2(ids).logits.tolist()}}
Path("expected.json").write_text(json.dumps(dict(ids=ids.tolist(), logits=logits)))
from huggingface_hub import HfApi
result(first=first.changed, again=again.changed,
       files=sorted(HfApi().list_repo_files("org/dense")))
"""

LOAD = """
import sys, torch
from transformers import AutoModelForCausalLM, AutoTokenizer
from huggingface_hub import HfApi, ModelCard, hf_hub_download
expected = json.loads(Path("expected.json").read_text())
close = {}
for repo in ["org/dense", "org/gpt2"]:
    model = AutoModelForCausalLM.from_pretrained(repo, trust_remote_code=True)
    tokenizer = AutoTokenizer.from_pretrained(repo, trust_remote_code=True)
    ids = tokenizer(["1 2 3 4 0"], return_tensors="pt")["input_ids"]
    assert ids.tolist() == expected["ids"], ids
    with torch.no_grad():
        got = model(ids).logits
    close[repo] = torch.allclose(got, torch.tensor(expected["logits"][repo]), atol=1e-5)
card = ModelCard.load("org/dense")
eval_yaml = Path(hf_hub_download("org/dense", ".eval_results/acot_L5.yaml")).read_text()
config = json.loads(Path(hf_hub_download("org/dense", "config.json")).read_text())
result(close=close, imported=[m for m in sys.modules if m.startswith("hf_induction")],
       model_type=type(model).__name__, index=card.data.to_dict()["model-index"],
       eval_yaml=eval_yaml, auto_map=config.get("auto_map"))
"""


@pytest.mark.slow
def test_push_checkpoint_and_load_with_trust_remote_code(hub_server):
    pushed = run_client(hub_server, PUSH, timeout=180)
    assert pushed["first"] and not pushed["again"]  # an unchanged checkpoint: no new commit
    files = pushed["files"]
    assert "model.safetensors" in files and "config.json" in files and "README.md" in files
    assert "tokenizer.json" in files and ".eval_results/acot_L5.yaml" in files
    assert any(f.startswith("modeling_") and f.endswith(".py") for f in files), files
    assert any(f.startswith("configuration_") and f.endswith(".py") for f in files), files

    loaded = run_client(hub_server, LOAD, timeout=180)
    assert loaded["close"] == {"org/dense": True, "org/gpt2": True}
    assert loaded["imported"] == []  # the Dense-SSM code came from the repo, not the package
    assert loaded["auto_map"]["AutoModelForCausalLM"].endswith("ForCausalLM")
    metrics = loaded["index"][0]["results"][0]["metrics"]
    assert metrics[0] == {"type": "loss", "value": 5e-5, "name": "validation loss"}
    assert "id: org/modadd" in loaded["eval_yaml"] and "task_id: acot_L5" in loaded["eval_yaml"]
