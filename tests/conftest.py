"""Fixtures shared by the test files."""

import pytest


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a module: results reproducible for a fixed thread count, and one is also the
    fastest on a busy machine."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
