"""More processes than GPUs: each process's device, and the plan's line."""

import pytest

from hf_induction.runner.devices import DeviceShare, device_share


@pytest.mark.parametrize(("processes", "devices", "expected"), [
    (8, 1, [0] * 8), (8, 2, [0, 1] * 4), (3, 2, [0, 1, 0]), (2, 4, [0, 1])])
def test_each_process_trains_on_its_local_rank_mod_the_devices(processes, devices, expected):
    share = DeviceShare(processes, devices)
    assert [share.device_of(r) for r in range(processes)] == expected
    assert share.shared == (processes > devices)


def test_the_plan_says_how_many_share_a_device_and_names_mps():
    words = DeviceShare(8, 3).words()
    assert "8 processes over 3 CUDA devices, up to 3 on each" in words
    assert "nvidia-cuda-mps-control -d" in words


def test_a_rank_outside_the_launch_is_refused():
    with pytest.raises(ValueError, match="local rank 4 outside 0..3"):
        DeviceShare(4, 1).device_of(4)


@pytest.mark.parametrize("device", ["cpu", "cuda:0"])
def test_the_cpu_and_a_named_device_are_not_shared_out(device):
    assert device_share(device) is None


def test_no_gpu_no_share(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setenv("LOCAL_WORLD_SIZE", "8")
    assert device_share("cuda") is None
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 2)
    assert device_share("cuda") == DeviceShare(8, 2)
