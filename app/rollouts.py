"""``gammon rollout --batch IN --out OUT``: many rollouts, played in this process, a process pool or on Ray.

IN is JSON Lines read and checked as for ``hint --batch`` (:mod:`app.batch`): ``{"id": ...,
"gnubgid" | "position_id": ...}``, positions of ``--variant``, whose rules the games follow. OUT
gets one record per non-blank line, in input order: the id and the cubeless rollout (games,
probs, equity, std_error, ci95, truncated), or the error record of a bad line. Run times are
left out of OUT so that the same run always writes the same bytes; the closing line on stderr
gives them.

The work is cut into shards (:mod:`engine.play.shards`) that a *runner* plays: this process
(``--workers 1``), a pool of ``--workers K`` processes, or Ray tasks (``--ray auto`` joins the
machine's Ray or starts one, ``--ray ADDRESS`` joins a cluster). Whoever plays them, the
numbers are the same. Finished shards go to the store ``OUT.shards`` as they come in, so a run
stopped for any reason resumes when started again the same way; OUT is written atomically once
every shard is in, and the store is then deleted. A worker process that dies costs only the
shards it was playing: the pool is restarted for the rest, Ray retries the task.
"""

from __future__ import annotations

import contextlib
import json
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import numpy as np
from tqdm import tqdm

from gammon.app.batch import TooLong, answer_line, read_lines, warn_ignored
from gammon.engine.errors import GammonError
from gammon.engine.files import atomic_write, check_distinct
from gammon.engine.play.shards import AppendOnlyStore, BlockStats, Shard, ShardStore, combine, plan, play_shard
from gammon.models.inference import file_digest
from gammon.models.players import shared_analyst
from gammon.training.runners import Runner, in_process, process_pool, ray_tasks

BLOCK_GAMES = 432  # 12 x 36: a 1296-game rollout is 3 shards of about a second each, long enough to hide the overhead
TIMING = ("seconds", "games_per_s")  # differ from run to run, so they stay out of OUT
# -- the input -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Entry:
    """One non-blank input line: its id and board, or the error record that answers it."""

    line: int
    ident: object = None
    board: np.ndarray | None = None
    error: str | None = None


def read_batch(source, variant: str = "standard") -> list[Entry]:
    """Every non-blank line of the binary ``source`` (positions of ``variant``), checked by
    :func:`app.batch.answer_line`."""
    entries, boards, ignored = [], [], set()

    def keep(board, state, dice) -> dict:
        boards.append(board)  # played later, in shards; the dice of a Match ID play no part in a rollout
        return {}

    for number, raw in read_lines(source):
        if raw is not TooLong and not raw.strip():
            continue  # blank lines are allowed and skipped
        boards.clear()
        text, ok = answer_line(number, raw, keep, variant, ignored)
        entries.append(Entry(number, json.loads(text)["id"], boards[0]) if ok else Entry(number, error=text))
    warn_ignored("rollout", ignored)
    return entries


def model_identity(model: str, variant: str) -> dict:
    """The model by name and by content: a store of games its other weights played cannot be resumed."""
    from gammon.models.players import weights_path

    weights = weights_path(model, variant)  # loaded already: it exists
    return {"model": model, "model_sha256": file_digest(weights) if weights.is_file() else None, "variant": variant}


def run_options(batch, games: int, truncate: int | None, seed: int, block: int, model: str, variant: str,
                reduce_variance: bool = False, truncate_plies: int = 0) -> dict:
    """What decides every shard's numbers: a store made with other options cannot be resumed."""
    return {"input_sha256": file_digest(batch), "games": games, "truncate": truncate, "seed": seed, "block": block,
            **model_identity(model, variant), "reduce_variance": reduce_variance,
            # a key only when set, so that a store written before the option existed still resumes
            **({"truncate_plies": truncate_plies} if truncate_plies else {})}


def single_options(args, board, cube) -> dict:
    """What decides the numbers of ``gammon rollout POS``'s chunks of games (its ``--save`` store), the chunks'
    size included: a chunk's dice follow its first game's number."""
    from gammon.engine.play import rollout

    return {"board": [int(x) for x in board], "games": args.games, "seed": args.seed, "truncate": args.truncate,
            "chunk": rollout.CHUNK if args.until is None else rollout.STOP_CHECK,
            "truncate_plies": args.truncate_ply,
            "reduce_variance": args.vr, "until": args.until, "search": list(args.search or ()),
            "cube": repr(cube) if args.cubeful else None, "cube_plies": args.cube_ply,
            **model_identity(args.model, args.variant)}


# -- playing shards ------------------------------------------------------------------------

def play_block(model: str, variant: str, truncate: int | None, shard: Shard,
               reduce_variance: bool = False, truncate_plies: int = 0) -> BlockStats:
    """The task every runner runs: one shard, played by ``model`` in ``variant``."""
    return play_shard(shared_analyst(model, variant), shard, truncate, reduce_variance, truncate_plies)


# -- the batch -----------------------------------------------------------------------------


def store_path(out: Path) -> Path:
    return out.with_name(out.name + ".shards")


def roll_batch(batch, out, *, games: int, truncate: int | None, seed: int, model: str, runner: Runner,
               block: int = BLOCK_GAMES, variant: str = "standard", reduce_variance: bool = False,
               truncate_plies: int = 0) -> int:
    """Roll out every position of ``batch`` (positions of ``variant``) into ``out``, resuming from
    ``out.shards``; 1 when a line failed."""
    started = time.monotonic()
    out = Path(out)
    if out.is_dir():
        raise GammonError(f"--out {out} is a folder; give a file name")
    with open(batch, "rb") as source:  # a missing input fails before anything is loaded or written
        entries = read_batch(source, variant)
    shared_analyst(model, variant)  # an unknown model or a net of another variant fails here, not in every worker
    shards = plan({e.line: e.board for e in entries if e.board is not None}, games, block, seed)
    store = ShardStore(store_path(out), run_options(batch, games, truncate, seed, block, model, variant,
                                                    reduce_variance, truncate_plies))
    resumed = sum(shard.key in store.done for shard in shards)
    with kept_on_stop(store, "shard(s)"):
        _play(shards, store, runner)
        atomic_write(out, lambda f: f.writelines(line.encode() + b"\n" for line in _records(entries, shards, store)))
    failed = sum(e.error is not None for e in entries)
    note = f"; {resumed} of {len(shards)} shards resumed from {store.path}" if resumed else ""
    print(f"gammon rollout: {len(entries) - failed} position(s) rolled out ({games} games each), {failed} failed, "
          f"in {time.monotonic() - started:.1f} s{note}; "
          + (f"see the 'error' field of the failed lines in {out}" if failed else f"results in {out}"),
          file=sys.stderr)
    return 1 if failed else 0


@contextlib.contextmanager
def kept_on_stop(store: AppendOnlyStore, pieces: str):
    """Run the work ``store`` keeps: removed once it completes; kept for the next run when it stops (Ctrl-C,
    SIGTERM: then one line says so) or fails after finishing something; a store of nothing is removed."""
    try:
        yield store
    except BaseException as exc:
        if isinstance(exc, Exception) and not store.done:
            store.remove()
        else:
            store.close()
        if not isinstance(exc, Exception):  # Ctrl-C or SIGTERM, not a fault
            print(f"gammon rollout: interrupted; {len(store.done)} finished {pieces} are kept in {store.path}: "
                  "run the same command again to resume", file=sys.stderr)
        raise
    store.remove()


def _play(shards: list[Shard], store: ShardStore, runner: Runner) -> None:
    """Play the shards the store lacks, keeping each as it finishes; one progress bar in games."""
    todo = [shard for shard in shards if shard.key not in store.done]
    with tqdm(total=sum(s.games for s in shards), initial=sum(s.games for s in shards) - sum(s.games for s in todo),
              unit="game", disable=not sys.stderr.isatty()) as bar:
        for shard, stats in runner(todo):
            store.add(shard, stats)
            bar.update(shard.games)


def _records(entries: list[Entry], shards: list[Shard], store: ShardStore) -> Iterable[str]:
    blocks: dict[int, list[BlockStats]] = {}
    for shard in shards:  # in block order: the one order every run combines them in
        blocks.setdefault(shard.line, []).append(store.done[shard.key])
    for entry in entries:
        if entry.error is not None:
            yield entry.error
            continue
        fields = {k: v for k, v in combine(blocks[entry.line]).as_dict().items() if k not in TIMING}
        yield json.dumps({"id": entry.ident, **fields}, allow_nan=False)


# -- the command line ----------------------------------------------------------------------


def runner_for(args, task) -> Runner:
    """The runner ``--ray`` and ``--workers`` ask for."""
    if args.ray:
        return ray_tasks(task, args.ray, args.workers)
    if (args.workers or 1) > 1:
        return process_pool(task, args.workers)
    return in_process(task)


def batch_rollout(args) -> int:
    """``gammon rollout --batch IN --out OUT [--ray ...] [--workers K]``."""
    if not args.out:
        raise GammonError("--batch needs --out FILE")
    if args.cubeful:
        raise GammonError("--batch rolls out cubeless; --cubeful is for one position")
    if args.save:
        raise GammonError("--batch keeps its finished shards in OUT.shards; --save is for one position")
    check_distinct(args.batch, args.out)
    runner = runner_for(args, partial(play_block, args.model, args.variant, args.truncate,
                                      reduce_variance=args.vr, truncate_plies=args.truncate_ply))
    return roll_batch(args.batch, args.out, games=args.games, truncate=args.truncate, seed=args.seed,
                      model=args.model, runner=runner, variant=args.variant, reduce_variance=args.vr,
                      truncate_plies=args.truncate_ply)


def refuse_batch_options(args) -> None:
    """One position is rolled out here, in this process: the batch options would do nothing."""
    for given, name in ((args.workers, "--workers"), (args.ray, "--ray")):
        if given:
            raise GammonError(f"{name} goes with --batch IN.jsonl; one position is rolled out in this process")
