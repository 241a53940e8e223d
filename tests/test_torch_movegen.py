"""The torch move generator (training/torch_movegen.py) against the numpy one, on CPU torch.

The same afterstate sets as :func:`engine.rules.movegen.generate`: on the shared 20,000-item
workload (its recorded hashes and dice used) and on the positions of ``tests/positions.py``
(random play of standard, nackgammon and hypergammon, and the built corner cases). When
a GPU is present the device's results must equal the CPU's. The benchmarks' torch paths
(benchmarks/movegen.py --backend torch, benchmarks/device.py) run on a small workload.
"""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import gammon.benchmarks.device as device_benchmark
import gammon.benchmarks.movegen as movegen_benchmark
import gammon.training.torch_movegen as torch_movegen
from gammon.benchmarks.movegen import afterstate_hash
from gammon.engine.rules.board import BoardError, starting_board
from gammon.engine.rules.movegen import generate as numpy_generate
from gammon.training.torch_movegen import generate

try:  # tests/ is on sys.path under pytest's default import mode
    import positions
    from test_movegen import replayed, workload  # noqa: F401 (the shared fixture)
except ImportError:  # pragma: no cover
    from tests import positions
    from tests.test_movegen import replayed, workload  # noqa: F401

SEED = 5_150_113  # positions of our own, beside the shared workload
DATA = Path(__file__).parent / "data"


def canonical(afterstates) -> np.ndarray:
    """Rows (input, board...) sorted: equal for two results exactly when every input's set is equal."""
    table = np.concatenate([afterstates.parent[:, None], afterstates.boards.astype(np.int64)], axis=1)
    return table[np.lexsort(table.T[::-1])]


def disagreeing_inputs(ours, theirs) -> list[int]:
    """Inputs whose afterstate sets or dice used differ between two numpy-side results."""
    wrong = np.flatnonzero((ours.counts() != theirs.counts()) | (ours.dice_used != theirs.dice_used))
    if len(wrong) == 0 and not np.array_equal(canonical(ours), canonical(theirs)):
        differ = np.any(canonical(ours) != canonical(theirs), axis=1)
        wrong = np.unique(canonical(ours)[differ, 0])
    return wrong.tolist()


def test_every_workload_item_matches_its_afterstate_hash(workload):
    boards, dice, hashes, used = workload
    result = generate(torch.from_numpy(boards), torch.from_numpy(dice)).to_numpy()
    assert len(hashes) == 20_000
    wrong = [i for i, h in enumerate(hashes) if afterstate_hash(result.of(i)) != h]
    assert wrong == [], f"{len(wrong)} mismatches, first {wrong[:5]}"
    assert np.array_equal(result.dice_used, used)


FAMILIES = [f"play_{variant}" for variant in positions.VARIANTS] + sorted(positions.CORNER_FAMILIES)


def family_positions(family: str):
    """(boards, dice, variant) of one family of tests/positions.py at its default size."""
    if family.startswith("play_"):
        variant = family.removeprefix("play_")
        games = positions.RANDOM_PLAY_GAMES[variant]
        return (*positions.random_play(variant, games=games, seed=SEED), variant)
    return (*positions.CORNER_FAMILIES[family](seed=SEED), "standard")


@pytest.mark.parametrize("family", FAMILIES)
def test_same_afterstates_as_numpy(family):
    """Random play of every variant on backgammon's board, and every built corner case."""
    boards, dice, variant = family_positions(family)
    ours = generate(torch.from_numpy(boards), torch.from_numpy(dice), variant=variant).to_numpy()
    theirs = numpy_generate(boards, dice, variant=variant)
    wrong = disagreeing_inputs(ours, theirs)
    assert wrong == [], f"{family}: {len(wrong)} of {len(boards)} inputs differ, first {wrong[:5]}"


def test_recorded_steps_replay_to_the_afterstate(workload):
    boards, dice, _, _ = workload
    result = generate(torch.from_numpy(boards[:2000]), torch.from_numpy(dice[:2000]))
    steps, parent, after = result.steps.numpy(), result.parent.numpy(), result.boards.numpy()
    for k in range(0, len(result), 7):
        assert replayed(boards[parent[k]], steps[k]) == after[k].tolist()


def test_hash_collisions_fall_back_to_exact_comparison(workload, monkeypatch):
    boards, dice, hashes, _ = workload
    constants = torch_movegen._constants

    def colliding(device):  # every board of an input hashes alike
        c = constants(device)
        return dataclasses.replace(c, weights=torch.zeros_like(c.weights),
                                   landing_weights=torch.zeros_like(c.landing_weights))

    exact = torch_movegen._unique_exact
    calls = []
    monkeypatch.setattr(torch_movegen, "_constants", colliding)
    monkeypatch.setattr(torch_movegen, "_unique_exact", lambda *a: calls.append(1) or exact(*a))
    result = generate(torch.from_numpy(boards[:500]), torch.from_numpy(dice[:500])).to_numpy()
    assert calls, "the exact path was not taken"
    assert all(afterstate_hash(result.of(i)) == hashes[i] for i in range(500))


def test_one_board_is_a_batch_of_one():
    one = generate(torch.from_numpy(starting_board()), torch.tensor([6, 4]))
    assert len(one) == 14 and one.offsets.tolist() == [0, 14] and one.dice_used.tolist() == [2]


def test_bad_input_is_rejected_with_a_clear_message():
    board = torch.from_numpy(starting_board())
    too_many = board.clone()
    too_many[13] = 6
    with pytest.raises(BoardError, match="board 0: a side has more than 15 checkers"):
        generate(too_many, torch.tensor([6, 4]))
    with pytest.raises(BoardError, match="dice must be 1..6"):
        generate(board, torch.tensor([7, 1]))
    with pytest.raises(BoardError, match="shape"):
        generate(board[:20], torch.tensor([6, 1]))
    negative_bar = board.clone()
    negative_bar[25] = -1
    with pytest.raises(BoardError, match="bar counts"):
        generate(negative_bar, torch.tensor([6, 1]))
    with pytest.raises(BoardError, match="backgammon's board only; use engine.rules.movegen.generate for fevga"):
        generate(board, torch.tensor([6, 1]), variant="fevga")


@pytest.mark.skipif(not torch.cuda.is_available(), reason="no GPU")
def test_the_gpu_gives_the_cpus_afterstates(workload):
    boards, dice, _, _ = workload
    on_cpu = generate(torch.from_numpy(boards), torch.from_numpy(dice))
    on_gpu = generate(torch.from_numpy(boards).cuda(), torch.from_numpy(dice).cuda())
    for name in ("boards", "parent", "offsets", "plays", "dice_used"):
        assert torch.equal(getattr(on_gpu, name).cpu(), getattr(on_cpu, name)), name



@pytest.fixture
def small_workload(tmp_path):
    """The shared workload's first 300 items, as a workload file of its own."""
    path = tmp_path / "workload.jsonl"
    with open(DATA / "movegen_workload.jsonl") as f:
        path.write_text("".join(line for _, line in zip(range(300), f)))
    return path


def test_the_benchmark_checks_the_torch_backend_like_numpy(small_workload, capsys):
    common = ["--workload", str(small_workload), "--check", "--json", "--batches", "64", "--rounds", "1"]
    assert movegen_benchmark.main(common) == 0
    numpy_report = json.loads(capsys.readouterr().out)
    assert movegen_benchmark.main(common + ["--backend", "torch", "--device", "cpu"]) == 0
    torch_report = json.loads(capsys.readouterr().out)
    assert torch_report["mismatches"] == numpy_report["mismatches"] == 0
    assert set(numpy_report) <= set(torch_report) and set(numpy_report["ours"][0]) <= set(torch_report["ours"][0])
    assert torch_report["ours"][0]["ratio_to_numpy"] > 0


def test_the_device_benchmark_times_learning_to_each_mark(capsys, monkeypatch):
    """Two rows of 16 and 32 games side by side, evaluated every 16 games; the marks lowered so that the
    first is reached at once (no score is below -3) and the second never."""
    monkeypatch.setattr(device_benchmark, "LEARNING_MARKS", (-3.0, 3.5))
    argv = ["--device", "cpu", "--measures", "learning", "--batches", "16,32", "--learn-games", "32",
            "--eval-every", "16", "--eval-games", "4", "--json"]
    assert device_benchmark.main(argv) == 0
    measure = json.loads(capsys.readouterr().out)["measures"]["learning"]
    assert [row["batch"] for row in measure["rows"]] == [16, 32] and measure["rate"] == "seconds_to_3.5"
    for row in measure["rows"]:
        games = [point["games"] for point in row["curve"]]  # a ply can finish several games at once
        assert 16 <= games[0] < 32 <= games[-1] == row["games"] and games == sorted(games)
        assert row["games_to_-3.0"] == games[0] and row["seconds_to_-3.0"] == row["curve"][0]["seconds"] > 0
        assert row["games_to_3.5"] is None and row["seconds_to_3.5"] is None
    assert device_benchmark.main(argv[:-1]) == 0  # the text report: an unreached mark reads so
    assert "not reached s to +3.5" in capsys.readouterr().out


def test_the_device_benchmark_reports_every_measure(small_workload, capsys):
    argv = ["--device", "cpu", "--workload", str(small_workload), "--batches", "64,128", "--seconds", "0", "--json",
            "--measures", "movegen,encoding,selfplay,rollout"]
    assert device_benchmark.main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["device"]["type"] == "cpu"
    for name, measure in report["measures"].items():
        assert measure["mismatches"] == 0, name
        assert [row["batch"] for row in measure["rows"]] == [64, 128] and measure["stopped"] is None, name
        assert all(row[measure["rate"]] > 0 for row in measure["rows"]), name
