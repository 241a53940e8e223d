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


@pytest.fixture(params=["baseline", "x86-64-v3", "x86-64-v4"])
def instruction_set(request):
    """The compiled nets' kernels (models/_native.c) of each instruction set in turn, where the processor runs it:
    each set has its own vectors, so each is checked."""
    native = pytest.importorskip("gammon.models._native", reason="models/_native.c was not built (no C compiler)")
    try:
        before = native.instruction_set(request.param)
    except ValueError as fault:
        pytest.skip(str(fault))
    yield request.param
    native.instruction_set(before)
