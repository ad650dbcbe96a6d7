"""The memory floors sizes are held to (`runner.memory`): each a floor of what a step holds for
every registered model, and the memory read from the device the campaign runs on."""

import types

import pytest
import torch

from hf_induction.models import MODEL_NAMES
from hf_induction.models.build import build_model
from hf_induction.runner.memory import MEMORY_ENV, Step, machine_memory
from hf_induction.tasks import parse


def saved_activation_bytes(model, input_ids) -> int:
    """Bytes of the tensors autograd keeps for the backward pass of one loss, weights aside."""
    weights = {p.untyped_storage().data_ptr() for p in model.parameters()}
    kept: dict[int, int] = {}

    def pack(tensor):
        storage = tensor.untyped_storage()
        if storage.data_ptr() not in weights:
            kept[storage.data_ptr()] = max(kept.get(storage.data_ptr(), 0), storage.nbytes())
        return tensor

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda tensor: tensor):
        model(input_ids=input_ids, labels=input_ids)
    return sum(kept.values())


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_the_step_floor_is_below_what_every_model_keeps(name):
    # The floor must never refuse a batch that would have run: every registered model keeps
    # at least this much for its backward pass.
    cell = parse("modadd", "acot_L6")
    torch.manual_seed(0)
    model = build_model(name, cell.vocab, "tiny")
    config = model.config
    rows, tokens = 4, cell.token_length(cell.max_len)
    step = Step(tokens=tokens, hidden=config.hidden_size, layers=config.num_hidden_layers,
                vocab=config.vocab_size, value_bytes=4, runs=1)
    ids = torch.randint(0, config.vocab_size, (rows, tokens))
    assert saved_activation_bytes(model, ids) >= rows * step.row_bytes


def test_the_memory_is_the_accelerators_on_cuda(monkeypatch):
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    asked = []

    def properties(index):
        asked.append(index)
        return types.SimpleNamespace(total_memory=80 << 30)

    monkeypatch.setattr(torch.cuda, "get_device_properties", properties)
    memory = machine_memory("cuda:1")
    assert asked == [1] and memory.size == 80 << 30 and "cuda:1's 80.0 GiB" in memory.what


def test_processes_on_one_machine_share_its_ram(monkeypatch):
    monkeypatch.delenv(MEMORY_ENV, raising=False)
    monkeypatch.delenv("LOCAL_WORLD_SIZE", raising=False)
    alone = machine_memory("cpu").size
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "4")
    shared = machine_memory("cpu")
    assert shared.size == alone // 4 and "a share of 4 processes" in shared.what


def test_the_override_is_in_gib(monkeypatch):
    monkeypatch.setenv(MEMORY_ENV, "1.5")
    assert machine_memory("cuda").size == 3 << 29
