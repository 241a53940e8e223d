"""gammon rollout --batch: the same numbers however the shards are played, resumed, or lost on the way."""

import json
import os
import sys
from functools import partial

import numpy as np
import pytest

from gammon.app.cli import main
from gammon.app.rollouts import in_process, model_identity, play_block, process_pool, ray_tasks, roll_batch, store_path

POSITIONS = ["4HPwATDgc/ABMA", "sGfwATDgc/ABMA", "4HPwBSDgc/ABMA"]  # the opening, then after 8/5 6/5 and 24/14
LINES = [json.dumps({"id": "a", "position_id": POSITIONS[0]}), "not json",
         json.dumps({"id": "b", "gnubgid": POSITIONS[1] + ":cAkAAAAAAAAE"}), "",
         json.dumps({"id": "c", "position_id": POSITIONS[2]})]
GAMES, BLOCK, TRUNCATE, SEED = 72, 36, 3, 7  # 2 blocks a position, 6 shards; short games keep it fast
TASK = partial(play_block, "default", "standard", TRUNCATE)


def roll(tmp_path, runner, name="out.jsonl"):
    """Roll LINES out with ``runner``; (exit code, the bytes of OUT)."""
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(LINES) + "\n")
    out = tmp_path / name
    code = roll_batch(source, out, games=GAMES, truncate=TRUNCATE, seed=SEED, model="default", runner=runner,
                      block=BLOCK)
    assert not store_path(out).exists()  # removed once OUT is complete
    return code, out.read_bytes()


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """OUT of one uninterrupted run, every shard in this process."""
    return roll(tmp_path_factory.mktemp("reference"), in_process(TASK))[1]


class CrashOnce:
    """A task whose worker process dies the first time it meets shard ``key`` (a marker file says it did)."""

    def __init__(self, marker, key):
        self.marker, self.key = str(marker), key

    def __call__(self, shard):
        if shard.key == self.key and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            os._exit(1)
        return TASK(shard)


def stop_after(runner, count):
    """A runner interrupted (as by Ctrl-C) once ``count`` shards have finished."""

    def run(shards):
        for done, result in enumerate(runner(shards), 1):
            yield result
            if done == count:
                raise KeyboardInterrupt

    return run


def test_every_line_is_answered_in_order_and_a_bad_line_gets_its_error_record(reference):
    records = [json.loads(line) for line in reference.decode().splitlines()]
    assert [r["id"] for r in records] == ["a", None, "b", "c"]
    assert records[1] == {"id": None, "line": 2, "error": "not JSON: Expecting value at column 1"}
    for record in (records[0], records[2], records[3]):
        assert record["games"] == GAMES and record["truncated"] == GAMES and len(record["probs"]) == 5
        low, high = record["ci95"]
        assert low < record["equity"] < high
    assert records[0]["equity"] != records[3]["equity"]  # every position has its own dice


def test_two_worker_processes_write_the_same_bytes_as_one_process(tmp_path, reference):
    assert roll(tmp_path, process_pool(TASK, 2)) == (1, reference)


def test_an_interrupted_run_resumes_without_playing_a_finished_shard_again(tmp_path, reference, capsys):
    with pytest.raises(KeyboardInterrupt):
        roll(tmp_path, stop_after(in_process(TASK), 4))
    store = store_path(tmp_path / "out.jsonl")
    assert f"interrupted; 4 finished shard(s) are kept in {store}" in capsys.readouterr().err
    kept = [json.loads(line) for line in store.read_text().splitlines()[1:]]
    assert len(kept) == 4 and not (tmp_path / "out.jsonl").exists()
    with open(store, "ab") as f:
        f.write(b'{"line": 5, "blo')  # the last line of a run killed while writing it
    played = []

    def recording(shards):
        played.extend(shard.key for shard in shards)
        return in_process(TASK)(shards)

    assert roll(tmp_path, recording) == (1, reference)
    assert len(played) == 2 and not {(k["line"], k["block"]) for k in kept} & set(played)


def test_a_store_left_by_a_run_with_other_options_is_refused_in_one_line(tmp_path, capsys):
    with pytest.raises(KeyboardInterrupt):
        roll(tmp_path, stop_after(in_process(TASK), 1))
    capsys.readouterr()
    code = main(["rollout", "--batch", str(tmp_path / "in.jsonl"), "--out", str(tmp_path / "out.jsonl"),
                 "--games", str(GAMES), "--truncate", str(TRUNCATE), "--seed", str(SEED + 1)])
    error = capsys.readouterr().err
    assert code == 2 and error.count("\n") == 1
    assert "other options (block, seed)" in error and "delete it to start over" in error


def test_a_worker_process_that_dies_costs_only_its_shards_and_changes_nothing(tmp_path, reference):
    marker = tmp_path / "crashed"
    assert roll(tmp_path, process_pool(CrashOnce(marker, (3, 1)), 2)) == (1, reference)
    assert marker.exists()


def test_the_command_line_rolls_a_batch_out_and_refuses_the_batch_options_for_one_position(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(LINES[:2]) + "\n")
    out = tmp_path / "out.jsonl"
    assert main(["rollout", "--batch", str(source), "--out", str(out), "--games", "36", "--truncate", "1"]) == 1
    assert [json.loads(line)["id"] for line in out.read_text().splitlines()] == ["a", None]
    assert "1 position(s) rolled out (36 games each), 1 failed" in capsys.readouterr().err
    assert main(["rollout", POSITIONS[0], "--workers", "2"]) == 2
    assert "--workers goes with --batch" in capsys.readouterr().err


def test_without_ray_the_ray_option_says_in_one_line_how_to_install_it(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray now fails as if it were not installed
    source = tmp_path / "in.jsonl"
    source.write_text(LINES[0] + "\n")
    assert main(["rollout", "--batch", str(source), "--out", str(tmp_path / "out.jsonl"), "--ray"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "pip install -e '.[distributed]'" in error


@pytest.fixture(scope="module")
def ray():
    ray = pytest.importorskip("ray")
    # Ray's workers import the tasks they run; CrashOnce lives in this test file
    ray.init(num_cpus=2, include_dashboard=False, logging_level="WARNING",
             runtime_env={"env_vars": {"PYTHONPATH": os.path.dirname(__file__)}})
    yield ray
    ray.shutdown()


def test_ray_tasks_write_the_same_bytes_as_one_process(tmp_path, reference, ray):
    assert roll(tmp_path, ray_tasks(TASK, "auto", None)) == (1, reference)


def test_a_ray_worker_that_kills_itself_is_retried_and_changes_nothing(tmp_path, reference, ray):
    marker = tmp_path / "crashed"
    assert roll(tmp_path, ray_tasks(CrashOnce(marker, (1, 0)), "auto", None)) == (1, reference)
    assert marker.exists()


def test_training_positions_labelled_as_ray_tasks_get_the_labels_of_one_process(tmp_path, ray):
    from gammon.engine.records.formats import board_from_position_id
    from gammon.engine.search.bearoff import WithBearoff
    from gammon.models.network import load_weights
    from gammon.models.players import DEFAULT_MODEL
    from gammon.training.distill import label_chunk, label_positions, model_runner

    boards = np.stack([board_from_position_id(p) for p in POSITIONS] * 2)
    here = model_runner(partial(label_chunk, 1), WithBearoff(load_weights(DEFAULT_MODEL)), DEFAULT_MODEL)
    whole = label_positions(boards, 2, tmp_path / "here.npz", here, progress=False)
    on_ray = model_runner(partial(label_chunk, 1), None, DEFAULT_MODEL, ray="auto")
    assert np.allclose(label_positions(boards, 2, tmp_path / "ray.npz", on_ray, progress=False), whole, atol=1e-6)


def test_variance_reduced_batches_give_the_same_numbers_in_a_pool_and_narrower_intervals(tmp_path, reference):
    source = tmp_path / "in.jsonl"
    source.write_text("\n".join(LINES) + "\n")
    common = ["rollout", "--batch", str(source), "--games", str(GAMES), "--truncate", str(TRUNCATE),
              "--seed", str(SEED), "--vr"]
    assert main([*common, "--out", str(tmp_path / "one.jsonl")]) == 1  # the bad line fails, the rest are answered
    assert main([*common, "--out", str(tmp_path / "pool.jsonl"), "--workers", "2"]) == 1
    one = (tmp_path / "one.jsonl").read_bytes()
    assert one == (tmp_path / "pool.jsonl").read_bytes()
    reduced = [json.loads(line) for line in one.splitlines()]
    plain = [json.loads(line) for line in reference.splitlines()]
    for r, p in zip(reduced, plain):
        assert ("error" in r) == ("error" in p)
        if "error" not in r:
            assert r["std_error"] < p["std_error"] / 2


def test_one_position_saved_as_it_goes_resumes_after_an_interrupt_to_the_unsaved_numbers(tmp_path, capsys,
                                                                                       monkeypatch):
    import gammon.engine.play.rollout as rollout_module

    monkeypatch.setattr(rollout_module, "CHUNK", 36)
    args = ["rollout", POSITIONS[0], "--games", "108", "--truncate", "2", "--seed", "3", "--json"]
    assert main(args) == 0
    unsaved = json.loads(capsys.readouterr().out)
    store = tmp_path / "opening.store"
    chunks = rollout_module._rollout_chunk
    calls = []

    def interrupted(*a, **k):
        calls.append(1)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return chunks(*a, **k)

    monkeypatch.setattr(rollout_module, "_rollout_chunk", interrupted)
    assert main(args + ["--save", str(store)]) == 130
    assert f"interrupted; 1 finished chunk(s) of games are kept in {store}" in capsys.readouterr().err
    assert main(args[:-1] + ["--seed", "4", "--save", str(store)]) == 2  # other dice: refused, store kept
    assert "other options (seed)" in capsys.readouterr().err and store.exists()
    assert main(args + ["--save", str(store)]) == 0
    resumed = capsys.readouterr()
    assert "resuming from" in resumed.err and not store.exists()
    timing = ("seconds", "games_per_s")
    assert {k: v for k, v in json.loads(resumed.out).items() if k not in timing} == \
        {k: v for k, v in unsaved.items() if k not in timing}


def test_save_leaves_a_file_that_is_not_a_store_as_it_was(tmp_path, capsys):
    notes = tmp_path / "notes.txt"
    for text in ("my notes, one line without its newline", "line one\nline two without its newline"):
        notes.write_text(text)
        assert main(["rollout", POSITIONS[0], "--games", "36", "--truncate", "1", "--save", str(notes)]) == 2
        assert "is not a store of gammon rollout chunks; move it away" in capsys.readouterr().err
        assert notes.read_text() == text


def test_rollout_options_that_would_do_nothing_are_refused_in_one_line(tmp_path, capsys):
    source = tmp_path / "in.jsonl"
    source.write_text(LINES[0] + "\n")
    out = str(tmp_path / "out.jsonl")
    for argv, says in (
            (["rollout", POSITIONS[0], "--cube-ply", "1"], "give --cubeful"),
            (["rollout", "--batch", str(source), "--out", out, "--cube-ply", "1"], "give --cubeful"),
            (["rollout", POSITIONS[0], "--truncate-ply", "1"], "give --truncate"),
            (["rollout", "--batch", str(source), "--out", out, "--truncate-ply", "1"], "give --truncate"),
            (["hint", POSITIONS[0], "--dice", "31", "--rollout", "--truncate-ply", "2"], "give --truncate"),
            (["rollout", POSITIONS[0], "--device", "cpu", "--save", str(tmp_path / "s")], "drop --truncate-ply"),
            (["rollout", "--batch", str(source), "--out", out, "--save", str(tmp_path / "s")], "--save is for one"),
            (["cube", POSITIONS[0], "--cube-ply", "1"], "add --rollout"),
            (["analyze", "tests/data/matches/gnubg-5pt.mat", "--workers", "2"], "give --level too")):
        assert main(argv) == 2, argv
        error = capsys.readouterr().err
        assert says in error and error.count("\n") == 1, (argv, error)
    assert not (tmp_path / "s").exists()


def test_a_saved_rollout_resumed_with_another_truncation_ply_is_refused(tmp_path, capsys, monkeypatch):
    import gammon.engine.play.rollout as rollout_module

    store = tmp_path / "r.store"
    args = ["rollout", POSITIONS[0], "--games", "72", "--truncate", "1", "--save", str(store)]
    real = rollout_module._rollout_chunk

    def interrupted(*a, **k):
        real(*a, **k)
        raise KeyboardInterrupt  # after the first chunk is played, before it is kept

    monkeypatch.setattr(rollout_module, "CHUNK", 36)
    monkeypatch.setattr(rollout_module, "_rollout_chunk", interrupted)
    assert main(args) == 130 and store.exists()
    capsys.readouterr()
    assert main(args + ["--truncate-ply", "1"]) == 2
    assert "other options (truncate_plies)" in capsys.readouterr().err


def test_a_store_names_each_shipped_net_by_its_content():
    """A batch store resumes only with the weights it was made with: ``fast`` as well as ``default`` by their bytes."""
    from gammon.models.inference import file_digest
    from gammon.models.players import MODELS

    for name in ("default", "fast"):
        assert model_identity(name, "standard")["model_sha256"] == file_digest(MODELS / f"{name}.pt")
