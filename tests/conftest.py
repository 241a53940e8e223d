"""Fixtures shared by the test files."""

import os

# As gammon/__init__.py does, before any test module imports numpy: OpenBLAS's spinning threads in every
# xdist worker would fight for the cores.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import pytest  # noqa: E402


@pytest.fixture(scope="module")
def one_torch_thread():
    """Torch on one thread for a module: results reproducible for a fixed thread count, and one is also the
    fastest on a busy machine."""
    torch = pytest.importorskip("torch")
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
