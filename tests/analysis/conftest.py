import pytest
import torch


@pytest.fixture(autouse=True)
def one_thread():
    """Tiny ops on a shared 2-core machine run fastest, and most steadily, on one thread."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
