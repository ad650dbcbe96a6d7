"""transformers' recurrent models under our presets: a row longer than a chunk, which the
contract tests' short rows never reach."""

import pytest
import torch

from hf_induction.models import build_config, build_model
from hf_induction.tasks import Vocab

VOCAB = Vocab(5)


def ids(length: int) -> torch.LongTensor:
    return torch.randint(0, 5, (3, length), generator=torch.Generator().manual_seed(0))


@pytest.mark.parametrize("name", ["mamba2", "xlstm"])
def test_chunk_size_only_picks_the_kernel(name):
    # Whole chunks, then (xLSTM) a remainder step by step, against one chunk (Mamba-2) or
    # every step (xLSTM) for the whole row.
    chunk = build_config(name, VOCAB).chunk_size
    row = ids(2 * chunk + 3)
    torch.manual_seed(0)
    chunked = build_model(name, VOCAB).double().eval()
    whole = build_model(name, VOCAB, chunk_size=4 * chunk).double().eval()
    whole.load_state_dict(chunked.state_dict())
    with torch.no_grad():
        # Both kernels compute in float32.
        torch.testing.assert_close(chunked(input_ids=row).logits, whole(input_ids=row).logits,
                                   rtol=1e-5, atol=1e-5)


def test_xlstm_trains_on_rows_longer_than_a_chunk():
    # With transformers' default use_cache=True the state cache's in-place update breaks the
    # chunkwise kernel's backward.
    model = build_model("xlstm", VOCAB).train()
    row = ids(2 * model.config.chunk_size + 3)
    model(input_ids=row, labels=row).loss.backward()
    assert all(p.grad is not None for p in model.parameters())
