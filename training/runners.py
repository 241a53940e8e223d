"""Where independent pieces of work run: this process, a pool of processes, or Ray tasks.

A *runner* takes a list of work items and yields ``(item, result)`` as each is finished, in
any order. Items are small picklable values with a ``key`` (unique in the list) and a
``where`` (how an error names them); the task is a picklable function of one item. The
caller keeps what comes back (a shard store, a partial file), so a run that stops for any
reason resumes with the items not yet finished. Batch rollouts (:mod:`app.rollouts`) and
the labelling of training positions (:mod:`training.distill`) run on these.

Worker processes and Ray tasks run torch with one thread each: the workers share the cores
among themselves, and torch's own threads would oversubscribe them. A worker process that
dies costs only the items it held: the pool is restarted for the rest, Ray retries the task
(``MAX_RETRIES`` times).
"""

from __future__ import annotations

import logging
import multiprocessing
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any

from gammon.engine.errors import GammonError

MAX_RETRIES = 3  # times an item is run again after its worker process died
INSTALL_RAY = "--ray needs Ray, the optional extra: pip install -e '.[distributed]'"

Runner = Callable[[list[Any]], Iterator[tuple[Any, Any]]]


class ShardError(GammonError):
    """Work that could not be run (workers kept dying, the cluster went away); finished items are kept."""


def one_thread() -> None:
    """Worker processes share the cores among themselves; torch's own threads would oversubscribe them."""
    import torch

    torch.set_num_threads(1)


def in_process(task) -> Runner:
    """Run the items one after another in this process."""
    return lambda shards: ((shard, task(shard)) for shard in shards)


def process_pool(task, workers: int) -> Runner:
    """Run the items on ``workers`` processes; when one dies, the rest of the work goes to a fresh pool."""

    def run(shards: list) -> Iterator[tuple[Any, Any]]:
        left = list(shards)
        for _ in range(MAX_RETRIES + 1):
            finished = set()
            for shard, stats in _pool_pass(left, task, workers):
                finished.add(shard.key)
                yield shard, stats
            left = [shard for shard in left if shard.key not in finished]
            if not left:
                return
        raise ShardError(f"worker processes died {MAX_RETRIES + 1} times over; the finished work is kept: "
                         "run the same command again to resume")

    return run


def _pool_pass(shards: list, task, workers: int) -> Iterator[tuple[Any, Any]]:
    """Run ``shards`` on one pool until they are done or a worker dies (which breaks the whole pool)."""
    # forkserver: a worker forked from a process whose torch has run threads can hang
    pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("forkserver"),
                               initializer=one_thread)
    queue, running = iter(shards), {}
    try:
        while True:
            try:  # twice the workers in flight keeps every worker busy without queueing the whole batch
                while len(running) < 2 * workers and (shard := next(queue, None)) is not None:
                    running[pool.submit(task, shard)] = shard
            except BrokenProcessPool:
                pass  # seen below through the futures already running
            if not running:
                return
            ready, _ = wait(running, return_when=FIRST_COMPLETED)
            if any(isinstance(future.exception(), BrokenProcessPool) for future in ready):
                ready = wait(running).done  # every future ends at once when the pool breaks
                yield from ((running[f], f.result()) for f in ready if f.exception() is None)
                return
            for future in ready:
                yield running.pop(future), future.result()
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _ray():
    try:
        import ray
    except ImportError:
        raise GammonError(INSTALL_RAY) from None
    return ray


def _run_on_ray(task, shard):
    one_thread()
    return task(shard)


def ray_tasks(task, address: str, in_flight: int | None) -> Runner:
    """Run the items as Ray tasks; a task whose worker died is retried (``max_retries``).

    ``address`` is ``auto`` (the machine's running Ray, else a new local one) or a cluster's
    address; a Ray this process is already connected to is used as it is. At most
    ``in_flight`` tasks (default: twice the cluster's CPUs) are submitted at a time.
    """
    ray = _ray()  # before any work: without Ray, fail at once

    def run(shards: list) -> Iterator[tuple[Any, Any]]:
        if not shards:
            return
        joined = not ray.is_initialized()
        if joined:
            _connect(ray, address)
        try:
            remote = ray.remote(max_retries=MAX_RETRIES)(_run_on_ray)
            cap = in_flight or 2 * int(ray.cluster_resources().get("CPU", 1))
            queue, running = iter(shards), {}
            while True:
                while len(running) < cap and (shard := next(queue, None)) is not None:
                    running[remote.remote(task, shard)] = shard
                if not running:
                    return
                refs = list(running)
                ray.wait(refs, num_returns=1)  # block until one is done, then take every one that is
                for ref in ray.wait(refs, num_returns=len(refs), timeout=0)[0]:
                    shard = running.pop(ref)
                    yield shard, _get(ray, ref, shard)
        finally:
            if joined:
                ray.shutdown()

    return run


def _connect(ray, address: str) -> None:
    try:
        if address == "auto":
            ray.init(logging_level=logging.WARNING)
        else:
            ray.init(address=address, logging_level=logging.WARNING)
    except ConnectionError as exc:
        raise ShardError(f"cannot reach the Ray cluster at {address}: {exc}") from None


def _get(ray, ref, shard):
    try:
        return ray.get(ref)
    except ray.exceptions.RayTaskError:  # the task itself raised: a bug, keep its traceback
        raise
    except ray.exceptions.RayError as exc:  # workers or nodes lost past max_retries
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ShardError(f"{shard.where} was lost on Ray ({reason}); the finished work is kept: "
                         "run the same command again to resume") from None
