"""Batches of rollouts cut into shards: the same numbers on one process or a thousand, and resumable.

A batch rollout is cut into *shards*: one block of games of one position. A position of
``games`` games is played as blocks of ``block`` games (the last one may be shorter), and
block ``b`` of the position on input line ``line`` gets its own dice seed, drawn from
``numpy.random.SeedSequence([seed, line, b])``. A shard's result therefore depends on the
options, the line and the block index only: not on which process plays it, when, in what
order, or how many processes there are. A position's result is its blocks' statistics
combined in block order (:func:`combine`), so one process, a process pool and a Ray cluster
give the same numbers, bit for bit. Blocks are whole multiples of 36 games so that every
block stratifies the first roll on its own (see :mod:`engine.play.rollout`).

Finished shards are kept in a :class:`ShardStore` (a single rollout's chunks of games in a
:class:`ChunkStore`, the same way): an append-only JSON Lines file whose
first line holds the options of the run. A run started again with the same options reads
the shards already finished and plays only the others; other options are refused, since
their shards would not add up to the result asked for. Every shard line is flushed as it
is written (a killed process loses nothing) and fsynced at least once a second (a power
cut loses at most the last second); a line cut short by a crash is dropped on reading.
JSON keeps floats exactly (``repr`` round-trips), so resumed shards count as if never stored.
"""

from __future__ import annotations

import fcntl
import json
import math
import os
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from gammon.engine.errors import GammonError
from gammon.engine.play.rollout import RolloutResult, rollout
from gammon.engine.play.stats import interval95
from gammon.engine.search.evaluator import ProbabilityEvaluator

STORE_KIND = "gammon rollout shards"
CHUNK_KIND = "gammon rollout chunks"
SYNC_SECONDS = 1.0  # how stale the fsynced part of the store may get; each line is still flushed at once


class StoreError(GammonError):
    """A shard store that cannot be used for this run (other options, damaged, in use)."""


@dataclass(frozen=True)
class Shard:
    """One block of games of one position: what a worker needs to play it, and nothing else."""

    line: int  # the position's 1-based line in the input
    block: int  # which block of the position's games
    games: int
    seed: int
    board: tuple[int, ...]

    @property
    def key(self) -> tuple[int, int]:
        return self.line, self.block

    @property
    def where(self) -> str:
        return f"line {self.line}, block {self.block}"


@dataclass(frozen=True)
class BlockStats:
    """What a block of games adds to its position's result: enough to combine blocks exactly."""

    games: int
    probs: tuple[float, ...]  # mean of the five result probabilities, player on roll
    equity: float  # mean cubeless equity
    m2: float  # sum of squared deviations of the games' equities from their mean
    truncated: int
    seconds: float  # time the worker spent; never part of the numbers


def block_seed(seed: int, line: int, block: int) -> int:
    """The dice seed of block ``block`` of line ``line``: independent streams for every (seed, line, block)."""
    return int(np.random.SeedSequence([seed, line, block]).generate_state(1, np.uint64)[0])


def plan(positions: dict[int, np.ndarray], games: int, block: int, seed: int) -> list[Shard]:
    """Every shard of a batch: ``positions`` maps input line to board; blocks of ``block`` games, in line order."""
    if block < 36 or block % 36:
        raise GammonError(f"a block is a whole multiple of 36 games (first rolls stratified); got {block}")
    if games < 36 or games % 36:
        raise GammonError(f"a batch rollout plays a multiple of 36 games; got {games}")
    return [Shard(line, b, min(block, games - first), block_seed(seed, line, b), tuple(int(x) for x in board))
            for line, board in positions.items() for b, first in enumerate(range(0, games, block))]


def play_shard(evaluator: ProbabilityEvaluator, shard: Shard, truncate: int | None,
               reduce_variance: bool = False, truncate_plies: int = 0) -> BlockStats:
    """Roll the shard's position out for its games and seed (:func:`engine.play.rollout.rollout`)."""
    result = rollout(evaluator, np.array(shard.board, dtype=np.int64), games=shard.games, seed=shard.seed,
                     truncate=truncate, reduce_variance=reduce_variance, truncate_plies=truncate_plies)
    n = result.games
    # rollout gives the standard error of the mean; the sum of squares is what blocks add
    return BlockStats(n, tuple(float(p) for p in result.probs), result.equity, result.std_error ** 2 * n * (n - 1),
                      result.truncated, result.seconds)


def combine(blocks: list[BlockStats]) -> RolloutResult:
    """One position's rollout from its blocks, taken in block order (Chan's pooled mean and variance)."""
    n = sum(b.games for b in blocks)
    probs = np.sum([np.array(b.probs) * b.games for b in blocks], axis=0) / n
    equity = sum(b.equity * b.games for b in blocks) / n
    m2 = sum(b.m2 + b.games * (b.equity - equity) ** 2 for b in blocks)
    std_error = math.sqrt(m2 / (n - 1) / n)
    return RolloutResult(n, probs, equity, std_error, interval95(equity, std_error),
                         sum(b.truncated for b in blocks), sum(b.seconds for b in blocks))


class AppendOnlyStore:
    """Finished pieces of one run, on disk: an append-only JSON Lines file whose first line holds the
    run's ``kind`` and ``options`` (any JSON object); one run at a time (a file lock). A store written
    with other options raises StoreError. Subclasses read each later line in :meth:`_take`.
    """

    def __init__(self, path, options: dict, kind: str):
        self.path = Path(path)
        self.options = json.loads(json.dumps(options))  # as it reads back from the file
        self.kind = kind
        self._file = open(self.path, "a+b")  # held open and appended to until close()
        self._synced = 0.0
        try:
            fcntl.flock(self._file.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            self._file.close()
            raise StoreError(f"{self.path} is in use by another run writing the same output") from None
        try:
            self._load()
        except BaseException:
            self._file.close()
            raise

    def _take(self, record: dict) -> None:
        """Keep one finished piece read back from the file; KeyError or TypeError when it is not one."""
        raise NotImplementedError

    def _load(self) -> None:
        self._file.seek(0)
        data = self._file.read()
        if not data:
            self._append({"kind": self.kind, "options": self.options})
            return
        # The header first, so that a file which is not a store is left as it is
        first, newline, _ = data.partition(b"\n")
        try:
            header = json.loads(first)
        except ValueError:
            header = None
        if not newline or not isinstance(header, dict) or header.get("kind") != self.kind:
            raise StoreError(f"{self.path} is not a store of {self.kind}; move it away")
        self._check_options(header)
        whole = data[: data.rfind(b"\n") + 1]  # a line cut short by a crash is dropped
        if len(whole) != len(data):
            self._file.truncate(len(whole))
        lines = whole.splitlines()
        for number, raw in enumerate(lines[1:], 2):
            try:
                self._take(self._read(raw, number))
            except (KeyError, TypeError, ValueError):
                raise StoreError(f"line {number} of {self.path} is not a finished piece of a {self.kind}; "
                                 "delete the file to start over") from None

    def _read(self, raw: bytes, number: int) -> dict:
        try:
            record = json.loads(raw)
        except ValueError:
            record = None
        if not isinstance(record, dict):
            raise StoreError(f"line {number} of {self.path} is damaged; delete the file to start over")
        return record

    def _check_options(self, header: dict) -> None:
        theirs = header.get("options", {})
        differ = sorted(k for k in self.options.keys() | theirs.keys() if self.options.get(k) != theirs.get(k))
        if differ:
            raise StoreError(f"{self.path} holds the finished work of a run with other options "
                             f"({', '.join(differ)}); run again with the same input and options to resume, "
                             "or delete it to start over")

    def _append(self, record: dict) -> None:
        self._file.write(json.dumps(record, allow_nan=False).encode() + b"\n")
        self._file.flush()
        if time.monotonic() - self._synced >= SYNC_SECONDS:
            self._sync()

    def _sync(self) -> None:
        os.fsync(self._file.fileno())
        self._synced = time.monotonic()

    def close(self) -> None:
        """Sync and release the store; it stays on disk for a later run to resume from."""
        if not self._file.closed:
            try:
                self._sync()
            finally:
                self._file.close()

    def remove(self) -> None:
        """Close and delete the store: the run it served is complete."""
        self.close()
        self.path.unlink(missing_ok=True)


class ShardStore(AppendOnlyStore):
    """The finished shards of one batch run, beside its output: ``done`` maps (line, block) to the
    :class:`BlockStats` already finished."""

    def __init__(self, path, options: dict):
        self.done: dict[tuple[int, int], BlockStats] = {}
        super().__init__(path, options, STORE_KIND)

    def _take(self, record: dict) -> None:
        key = (record.pop("line"), record.pop("block"))
        self.done.setdefault(key, BlockStats(**{**record, "probs": tuple(record["probs"])}))

    def add(self, shard: Shard, stats: BlockStats) -> None:
        """Keep a finished shard: flushed now, fsynced within SYNC_SECONDS."""
        self.done[shard.key] = stats
        self._append({"line": shard.line, "block": shard.block, **asdict(stats)})


class ChunkStore(AppendOnlyStore):
    """The finished chunks of games of one rollout of one position (``gammon rollout POS --save FILE``).

    A rollout's chunk of games depends on the options and its first game's number alone
    (:func:`engine.play.rollout.rollout_games`), so a killed rollout started again with the same
    store plays only the chunks it lacks and ends with the numbers of an unbroken run: ``done``
    maps a chunk's first game to what it gave, each game's numbers exactly (JSON floats round-trip).
    """

    def __init__(self, path, options: dict):
        self.done: dict[int, list] = {}
        super().__init__(path, options, CHUNK_KIND)

    def _take(self, record: dict) -> None:
        self.done.setdefault(int(record["first"]), list(record["values"]))

    def add(self, first: int, values: list) -> None:
        """Keep a finished chunk: flushed now, fsynced within SYNC_SECONDS."""
        self.done[first] = values
        self._append({"first": first, "values": values})
