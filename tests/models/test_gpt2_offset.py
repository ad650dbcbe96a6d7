"""GPT-2 trained from random position offsets: every position embedding is trained, and the
model is plain GPT-2 outside training."""

import torch
from transformers import GPT2LMHeadModel

from hf_induction.models import build_model
from hf_induction.tasks import Vocab


def models():
    torch.manual_seed(0)
    offset = build_model("gpt2_offset", Vocab(5), "tiny", resid_pdrop=0.0, embd_pdrop=0.0,
                         attn_pdrop=0.0)
    plain = GPT2LMHeadModel(offset.config)
    plain.load_state_dict(offset.state_dict())
    return offset, plain


def test_training_positions_start_at_random_offsets_covering_every_position():
    offset, _ = models()
    seen = []
    offset.transformer.wpe.register_forward_hook(lambda m, args, out: seen.append(args[0]))
    offset.train()
    ids = torch.randint(0, 5, (64, 10))
    for _ in range(20):
        offset(input_ids=ids)
    positions = torch.cat([p.reshape(-1, 10) for p in seen])
    # Consecutive within a row, starting anywhere in 0..n_positions - T.
    assert (positions.diff(dim=1) == 1).all()
    starts = positions[:, 0]
    assert starts.min() == 0 and starts.max() == offset.config.n_positions - 10
    assert len(starts.unique()) > 100
    used = torch.zeros(offset.config.n_positions, dtype=torch.bool)
    used[positions.reshape(-1)] = True
    assert used.all()


def test_outside_training_it_is_gpt2():
    offset, plain = models()
    ids = torch.randint(0, 5, (3, 12))
    offset.eval()
    plain.eval()
    with torch.no_grad():
        torch.testing.assert_close(offset(input_ids=ids).logits, plain(input_ids=ids).logits)
    prompt = ids[:, :4]
    assert torch.equal(offset.generate(prompt, max_new_tokens=5, do_sample=False),
                       plain.generate(prompt, max_new_tokens=5, do_sample=False))


def test_explicit_positions_and_the_none_setting_are_respected():
    offset, plain = models()
    ids = torch.randint(0, 5, (2, 6))
    positions = torch.arange(6).expand(2, -1)
    offset.train()
    plain.train()
    with torch.no_grad():
        torch.testing.assert_close(offset(input_ids=ids, position_ids=positions).logits,
                                   plain(input_ids=ids, position_ids=positions).logits)
    offset.config.position_offset = "none"
    with torch.no_grad():
        torch.testing.assert_close(offset(input_ids=ids).logits, plain(input_ids=ids).logits)
