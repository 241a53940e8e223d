"""Self-play training: determinism, checkpoints and resume, and that it learns."""

import json
import shutil
from dataclasses import replace
from functools import partial

import numpy as np
import pytest
import torch

from gammon.engine.errors import GammonError
from gammon.engine.play.duel import duel
from gammon.engine.play.players import Cubeless
from gammon.engine.rules.board import RACE, position_class, starting_board
from gammon.engine.rules.groups import ranked_in_groups
from gammon.engine.rules.variants import variant_named
from gammon.engine.search.bearoff import WithBearoff
from gammon.engine.search.evaluator import evaluator_policy
from gammon.models.baselines import RandomEvaluator
from gammon.models.network import WeightsError, load_weights, net_encodings
from gammon.models.onesided import OneSidedRace
from gammon.training.cli import main as train_cli
from gammon.training.distill import (
    Collecting,
    DistillConfig,
    build_parser,
    collect_batch,
    collect_positions,
    generation,
    held_out_rows,
    label_chunk,
    label_positions,
    labeller,
    model_runner,
    replayed_positions,
    rival_plays,
)
from gammon.training.recipe import RECIPES, Recipe, run_recipe, with_seed
from gammon.training.train import Config, Trainer, train


def tiny(**changes) -> Config:
    settings = dict(games=60, parallel=16, hidden=16, checkpoint_every=30, eval_every=10_000, eval_games=10, threads=1,
                    seed=3)
    settings.update(changes)
    return Config(**settings)


def weights_of(path):
    return load_weights(path).net.state_dict()


def same_weights(a, b) -> bool:
    return all(torch.equal(a[k], b[k]) for k in a)


def test_same_seed_same_network(tmp_path):
    first = train(tiny(), tmp_path / "a", progress=False)
    second = train(tiny(), tmp_path / "b", progress=False)
    other_seed = train(tiny(seed=4), tmp_path / "c", progress=False)
    assert same_weights(weights_of(first), weights_of(second))
    assert not same_weights(weights_of(first), weights_of(other_seed))


def test_a_ply_is_learned_in_minibatches_of_the_given_size():
    boards = np.repeat(starting_board()[None], 16, axis=0)
    targets = torch.softmax(torch.randn(16, 6, generator=torch.Generator().manual_seed(0)), dim=1)

    def learned(minibatch: int) -> Trainer:
        trainer = Trainer(tiny(minibatch=minibatch))
        trainer.targets = targets
        trainer.learn(boards, boards)
        return trainer

    whole, split, one_batch = learned(0), learned(5), learned(16)
    assert (len(whole.losses), len(split.losses), whole.plies, split.plies) == (1, 4, 1, 1)  # 5 + 5 + 5 + 1
    assert same_weights(whole.model.state_dict(), one_batch.model.state_dict())
    assert not same_weights(whole.model.state_dict(), split.model.state_dict())
    with pytest.raises(GammonError, match="--minibatch"):
        tiny(minibatch=-1).check()


def test_replay_takes_extra_steps_on_earlier_plies_of_its_window():
    rows = torch.Generator().manual_seed(0)
    plies = [(np.repeat(starting_board()[None], 16, axis=0), torch.softmax(torch.randn(16, 6, generator=rows), dim=1))
             for _ in range(5)]
    trainer = Trainer(tiny(replay=3, replay_window=2, minibatch=8))
    for boards, targets in plies:
        trainer.targets = targets
        trainer.learn(boards, boards)
    assert (len(trainer.losses), trainer.plies) == (5 * (1 + 3) * 2, 5)  # each ply: itself and 3 replays, 2 steps each
    assert [targets for _, targets in trainer.replay_plies] == [plies[3][1], plies[4][1]]  # the last two plies
    plain = Trainer(tiny(minibatch=8))
    for boards, targets in plies:
        plain.targets = targets
        plain.learn(boards, boards)
    assert (len(plain.losses), len(plain.replay_plies)) == (10, 0)
    for bad in (dict(replay=-1), dict(replay_window=0)):
        with pytest.raises(GammonError, match="--replay"):
            tiny(**bad).check()


@pytest.mark.parametrize("replay", [0, 2])  # the replay window is part of what a checkpoint keeps
def test_a_killed_run_resumes_to_the_same_network(tmp_path, replay):
    whole = train(tiny(replay=replay), tmp_path / "whole", progress=False)
    # Stop at the first checkpoint (as if killed just after it), then resume to the end.
    train(tiny(games=30, replay=replay), tmp_path / "split", progress=False)
    resumed = train(tiny(replay=replay), tmp_path / "split", resume=True, progress=False, games_override=60)
    assert same_weights(weights_of(whole), weights_of(resumed))
    log = [json.loads(line) for line in (tmp_path / "split" / "log.jsonl").read_text().splitlines()]
    games = [row["games"] for row in log if "loss" in row]
    assert games == sorted(games) and games[-1] >= 60
    assert (tmp_path / "split" / "curve.svg").read_text().startswith("<svg")


def test_a_truncated_checkpoint_is_reported_not_loaded(tmp_path):
    train(tiny(games=30), tmp_path / "run", progress=False)
    checkpoint = tmp_path / "run" / "checkpoint.pt"
    checkpoint.write_bytes(checkpoint.read_bytes()[:1000])
    with pytest.raises(WeightsError, match="unreadable"):
        train(tiny(), tmp_path / "run", resume=True, progress=False)
    with pytest.raises(WeightsError, match="no checkpoint"):
        train(tiny(), tmp_path / "empty", resume=True, progress=False)


def test_a_checkpoint_missing_a_field_is_reported_not_a_crash(tmp_path):
    train(tiny(games=30), tmp_path / "run", progress=False)
    checkpoint = tmp_path / "run" / "checkpoint.pt"
    state = torch.load(checkpoint, weights_only=True)
    del state["optimizer"]
    state["config"]["no_such_option"] = 1
    torch.save(state, checkpoint)
    with pytest.raises(WeightsError, match="lacks or garbles a field"):
        train(tiny(), tmp_path / "run", resume=True, progress=False)


def test_a_fresh_run_will_not_overwrite_a_run_in_progress(tmp_path):
    train(tiny(games=30), tmp_path / "run", progress=False)
    with pytest.raises(WeightsError, match="already holds a training run"):
        train(tiny(), tmp_path / "run", progress=False)


def test_every_game_opens_with_two_different_dice(monkeypatch):
    import gammon.engine.play.game as game
    import gammon.training.train as train_module
    from gammon.engine.rules.board import starting_board

    rolls = []
    real = game.generate

    def spy(boards, dice, **kwargs):
        opening = (boards == starting_board()).all(axis=1)
        rolls.extend(map(tuple, dice[opening].tolist()))
        return real(boards, dice, **kwargs)

    monkeypatch.setattr(game, "generate", spy)
    trainer = train_module.Trainer(tiny(parallel=64))
    trainer.self_play(80)
    assert len(rolls) >= 64 and all(a != b for a, b in rolls)


def test_a_short_training_run_beats_random(tmp_path):
    weights = train(tiny(games=3000, parallel=128, hidden=32, checkpoint_every=3000, eval_games=20), tmp_path / "run",
                    progress=False)
    net = load_weights(weights)
    stats = duel(Cubeless(evaluator_policy(net)), Cubeless(evaluator_policy(RandomEvaluator(5))), 400, seed=9)
    assert stats.ci95[0] > 0.3, stats
    assert np.isfinite(stats.ppg)


def test_a_distillation_generation_fits_its_own_search(tmp_path):
    """A generation moves the net towards its 1-ply search: the held-out divergence of all positions drops by a
    tenth or more and the contact net's by 5% or more (12% and 7.5% on this tiny run), and no net ends worse."""
    td = train(tiny(games=1500, parallel=64, hidden=32, checkpoint_every=1500), tmp_path / "td", progress=False)
    config = DistillConfig(positions=3000, epochs=12, chunk=500, lr=1e-3, seed=5)
    weights = generation(td, tmp_path / "gen", config, progress=False)
    log = [json.loads(line) for line in (tmp_path / "gen" / "log.jsonl").read_text().splitlines()]
    fitted = next(r for r in log if r["step"] == "fitted")
    before, after = fitted["held_out_before"], fitted["held_out_after"]
    assert after["all"] < 0.9 * before["all"] and after["contact"] < 0.95 * before["contact"], fitted
    assert all(after[name] <= before[name] for name in before), fitted
    labels = np.load(tmp_path / "gen" / "labels.npy")
    assert labels.shape == (3000, 6) and np.allclose(labels.sum(1), 1, atol=1e-5) and (labels >= 0).all()
    assert load_weights(weights).meta["stages"][-1]["distill"]["positions"] == 3000
    # Finished: running it again does nothing and keeps the weights.
    assert generation(td, tmp_path / "gen", config, progress=False) == weights


def test_a_generation_replays_earlier_labels_and_restarts_or_widens_nets(tmp_path):
    td = train(tiny(games=300, parallel=32, hidden=16, checkpoint_every=300), tmp_path / "td", progress=False)
    first = generation(td, tmp_path / "gen1", DistillConfig(positions=300, epochs=2, chunk=300, seed=5), progress=False)
    config = DistillConfig(positions=200, epochs=2, chunk=200, seed=6, replay=1, fresh="contact=24", split="hash",
                           cosine=True)
    second = generation(first, tmp_path / "gen2", config, progress=False)
    fitted = [json.loads(line) for line in (tmp_path / "gen2" / "log.jsonl").read_text().splitlines()][-1]
    assert fitted["step"] == "fitted" and fitted["positions"] == 500  # its own 200 and gen1's 300
    nets = load_weights(second).net.nets
    assert nets["contact"].hidden == (24,) and nets["race"].hidden == (16,)
    # Relabelled: gen1's positions (each once, none of gen3's own) get labels from gen2's search.
    third = tmp_path / "gen3"
    generation(second, third, replace(config, seed=7, fresh="", relabel=True), progress=False)
    replayed = np.unique(np.load(tmp_path / "gen2" / "positions.npy"), axis=0)
    own = {b.tobytes() for b in np.load(third / "positions.npy")}
    replayed = replayed[[b.tobytes() not in own for b in replayed]]
    relabels = np.load(third / "relabels.npy")
    assert len(relabels) == len(replayed) > 0
    teacher = model_runner(partial(label_chunk, 1), load_weights(second), second)
    searched = label_positions(replayed[:5], 5, tmp_path / "p.npz", teacher, progress=False)
    assert np.allclose(relabels[:5], searched, atol=1e-6)
    # A relabelled generation stands for all before it: gen4 replays gen3's fit (its own and its relabelled
    # positions), not gen2's old labels; and it collects rival plays' positions too, and restarts a two-layer net.
    fourth = generation(third / "model.pt", tmp_path / "gen4",
                        replace(config, seed=8, fresh="contact=12x8", replay=2, rivals=0.5), progress=False)
    fitted = [json.loads(line) for line in (tmp_path / "gen4" / "log.jsonl").read_text().splitlines()][-1]
    assert fitted["positions"] == 200 + 200 + len(relabels)
    assert load_weights(fourth).net.nets["contact"].hidden == (12, 8)
    # Widened instead of restarted: it starts the fit where the narrow net stood (the same held-out divergence
    # as the same generation without widening) and ends with the wider layers.
    plain = replace(config, seed=9, fresh="", replay=0, epochs=1)
    wide = generation(fourth, tmp_path / "gen5" / "wide", replace(plain, widen="contact=20x12"), progress=False)
    generation(fourth, tmp_path / "gen5" / "narrow", plain, progress=False)
    before = [[json.loads(line) for line in (tmp_path / "gen5" / k / "log.jsonl").read_text().splitlines()][-1]
              ["held_out_before"]["contact"] for k in ("wide", "narrow")]
    assert before[0] == pytest.approx(before[1], rel=1e-3)
    assert load_weights(wide).net.nets["contact"].hidden == (20, 12)
    with pytest.raises(GammonError, match="none narrower"):
        generation(fourth, tmp_path / "gen7", replace(plain, widen="contact=10x8"), progress=False)
    with pytest.raises(GammonError, match="name the same net"):
        generation(fourth, tmp_path / "gen8", replace(plain, widen="contact=20x12", fresh="contact=8"), progress=False)
    with pytest.raises(GammonError, match="gen0 has no labelled positions"):
        generation(first, tmp_path / "gen1b" / "gen1", replace(config, replay=1), progress=False)
    with pytest.raises(GammonError, match="--fresh"):
        generation(first, tmp_path / "gen5", replace(config, replay=0, fresh="crashed=8"), progress=False)
    with pytest.raises(GammonError, match="--fresh"):
        generation(first, tmp_path / "gen6", replace(config, replay=0, fresh="contact=8x"), progress=False)


def test_a_generation_can_fit_the_race_net_alone_on_rollout_labels(tmp_path):
    td = train(tiny(games=300, parallel=32, hidden=16, checkpoint_every=300), tmp_path / "td", progress=False)
    first = generation(td, tmp_path / "gen1", DistillConfig(positions=400, epochs=2, chunk=400, seed=5),
                       progress=False)
    config = DistillConfig(positions=400, epochs=3, chunk=50, seed=6, replay=1, relabel=True, rollouts=36,
                           nets="race", split="hash", lr=1e-3)
    second = generation(first, tmp_path / "gen2", config, progress=False)
    # Only race positions are kept, new and replayed, and their labels are the rollouts'.
    own, relabelled = np.load(tmp_path / "gen2" / "positions.npy"), np.load(tmp_path / "gen2" / "relabels.npy")
    gen1 = np.load(tmp_path / "gen1" / "positions.npy")
    assert len(own) > 0 and (position_class(own) == RACE).all()
    assert len(relabelled) == int((position_class(gen1) == RACE).sum()) > 0
    rolled = model_runner(labeller(config), WithBearoff(load_weights(first)), first)
    labels = np.load(tmp_path / "gen2" / "labels.npy")
    assert np.allclose(label_positions(own[:50], 50, tmp_path / "p.npz", rolled, progress=False), labels[:50])
    assert labels.shape == (len(own), 6) and np.allclose(labels.sum(1), 1, atol=1e-5)
    # The contact net is untouched, the race net fitted.
    before, after = load_weights(first).net.nets, load_weights(second).net.nets
    assert same_weights(before["contact"].state_dict(), after["contact"].state_dict())
    assert not same_weights(before["race"].state_dict(), after["race"].state_dict())
    # A generation after it replays gen2's race positions and, past it, gen1's whole fit.
    generation(second, tmp_path / "gen3", DistillConfig(positions=100, epochs=1, chunk=100, seed=7, replay=2),
               progress=False)
    fitted = [json.loads(line) for line in (tmp_path / "gen3" / "log.jsonl").read_text().splitlines()][-1]
    assert fitted["positions"] == 100 + len(own) + len(relabelled) + len(gen1)
    with pytest.raises(GammonError, match="--nets 'crashed'"):
        generation(first, tmp_path / "gen4", DistillConfig(positions=100, nets="crashed"), progress=False)
    with pytest.raises(GammonError, match="does not fit"):
        generation(first, tmp_path / "gen5", DistillConfig(positions=100, nets="race", fresh="contact=8"),
                   progress=False)


def test_a_student_fits_another_teachers_positions_and_labels_and_labelled_folders(tmp_path):
    """Knowledge distillation: --teacher collects and labels, the model's own nets are fitted, --labelled folders
    join the fit first, and --ema chooses among moving averages of the weights."""
    student = train(tiny(hidden=16), tmp_path / "student", progress=False)
    teacher = train(tiny(hidden=24, seed=4), tmp_path / "teacher", progress=False)
    (tmp_path / "gen1").mkdir()  # a folder of labelled positions: 200 starting boards, labelled evenly
    np.save(tmp_path / "gen1" / "positions.npy", np.repeat(starting_board()[None], 200, axis=0))
    np.save(tmp_path / "gen1" / "labels.npy", np.full((200, 6), 1 / 6, np.float32))
    config = DistillConfig(positions=300, epochs=2, chunk=300, seed=6, teacher=str(teacher),
                           labelled=str(tmp_path / "gen1"))
    fitted = generation(student, tmp_path / "kd", config, progress=False)
    # The teacher's self-play gives the positions and its 1-ply search the labels.
    taught = WithBearoff(load_weights(teacher))
    collecting = partial(collect_batch, Collecting(explore=0.1, rivals=0.0, seed=6))
    own = np.load(tmp_path / "kd" / "positions.npy")
    assert np.array_equal(collect_positions(300, 6, model_runner(collecting, taught, teacher), progress=False), own)
    searched = label_positions(own[:5], 5, tmp_path / "p.npz", model_runner(partial(label_chunk, 1), taught, teacher),
                               progress=False)
    assert np.allclose(np.load(tmp_path / "kd" / "labels.npy")[:5], searched, atol=1e-6)
    # The student keeps its size and is fitted on its 300 and gen1's 200.
    assert load_weights(fitted).net.nets["contact"].hidden == (16,)
    log = [json.loads(line) for line in (tmp_path / "kd" / "log.jsonl").read_text().splitlines()]
    assert log[-1]["step"] == "fitted" and log[-1]["positions"] == 500
    def on_kd_positions(folder):  # a run that collects nothing: the positions are there already
        (tmp_path / folder).mkdir()
        np.save(tmp_path / folder / "positions.npy", own)
        return tmp_path / folder

    # The model as its own teacher changes nothing: the teacher's nets are built without drawing random numbers.
    quick = replace(config, plies=0, teacher="")
    alone = generation(student, on_kd_positions("self"), quick, progress=False)
    itself = generation(student, on_kd_positions("self2"), replace(quick, teacher=str(student)), progress=False)
    assert same_weights(weights_of(alone), weights_of(itself))
    # Averages that hardly move from the start (decay near 1) are candidates that hardly differ from it; averages
    # of the last few steps (decay 0.5) fit about as the weights do, and are other weights than theirs.
    def fit_of(folder):
        return [json.loads(line) for line in (tmp_path / folder / "log.jsonl").read_text().splitlines()][-1]

    taught = replace(config, plies=0, batch=32)  # the teacher's 0-ply: something to learn, quickly labelled
    plain = generation(student, on_kd_positions("plain"), taught, progress=False)
    slow = generation(student, on_kd_positions("ema"), replace(taught, ema=0.999999), progress=False)
    short = generation(student, on_kd_positions("ema-short"), replace(taught, ema=0.5), progress=False)
    assert fit_of("ema")["held_out_after"]["all"] == pytest.approx(fit_of("ema")["held_out_before"]["all"], rel=1e-3)
    for folder in ("plain", "ema-short"):
        assert fit_of(folder)["held_out_after"]["all"] < 0.95 * fit_of(folder)["held_out_before"]["all"]
    assert not same_weights(weights_of(slow), weights_of(plain))
    assert not same_weights(weights_of(short), weights_of(plain))
    with pytest.raises(GammonError, match="--ema is a decay"):
        generation(student, tmp_path / "bad-ema", replace(config, ema=1.0), progress=False)
    with pytest.raises(GammonError, match="--labelled .*gen9: the folder has no positions.npy"):
        generation(student, tmp_path / "bad-folder", replace(config, labelled=str(tmp_path / "gen9")), progress=False)
    (tmp_path / "five").mkdir()
    np.save(tmp_path / "five" / "positions.npy", own[:3])
    np.save(tmp_path / "five" / "labels.npy", np.full((3, 5), 0.2, np.float32))
    with pytest.raises(GammonError, match=r"--labelled .*five: .*each board \(26 cells\) needs its six results"):
        generation(student, tmp_path / "bad-labels", replace(config, labelled=str(tmp_path / "five")), progress=False)
    shutil.copytree(tmp_path / "gen1", tmp_path / "copy")  # a set named twice would weigh double
    for twice in ("gen1,gen1", "gen1,copy"):
        folders = ",".join(str(tmp_path / name) for name in twice.split(","))
        with pytest.raises(GammonError, match=r"--labelled .*(gen1|copy): the same positions and labels as .*gen1"):
            generation(student, tmp_path / "twice", replace(config, labelled=folders), progress=False)
    other = train(tiny(variant="hypergammon", games=60, eval_every=60, eval_games=4), tmp_path / "hyper",
                  progress=False)
    with pytest.raises(GammonError, match="--teacher .* plays hypergammon, the model standard"):
        generation(student, tmp_path / "bad-teacher", replace(config, teacher=str(other)), progress=False)


def test_the_distill_command_reads_switches_as_switches():
    args = build_parser().parse_args(["--model", "m.pt", "--out", "gen2", "--relabel", "--no-cosine", "--nets", "race",
                                      "--rollouts", "36"])
    assert (args.relabel, args.cosine, args.nets, args.rollouts) == (True, False, "race", 36)
    assert build_parser().parse_args(["--model", "m.pt", "--out", "gen2"]).relabel is False


def test_rival_plays_are_ranked_just_below_the_best_of_groups_with_a_choice():
    values = np.array([0.1, 0.9, 0.5, 0.7, 0.3, 0.2, 0.0, 0.4, 0.6])  # groups: one play, then 7, then 1
    offsets = np.array([0, 1, 8, 9])
    ranked = ranked_in_groups(values, offsets)
    assert list(ranked[1:8]) == [1, 3, 2, 7, 4, 5, 6]
    rng = np.random.default_rng(1)
    seen = set()
    for _ in range(200):
        rivals = rival_plays(ranked, offsets, 1.0, rng)
        assert len(rivals) == 1  # only the group with a choice
        seen.add(int(rivals[0]))
    assert seen == {3, 2, 7, 4}  # the four ranked after the best (1), never the best nor the three worst
    assert len(rival_plays(ranked, offsets, 0.0, rng)) == 0


def test_a_hash_split_holds_out_each_position_whatever_the_batch_it_comes_in():
    rng = np.random.default_rng(3)
    boards = rng.integers(-3, 4, size=(20_000, 26)).astype(np.int8)
    config = DistillConfig(split="hash", holdout=0.1)
    held = held_out_rows(boards, config)
    assert 0.09 < held.mean() < 0.11
    shuffled = rng.permutation(len(boards))
    assert np.array_equal(held_out_rows(boards[shuffled], config), held[shuffled])  # the position decides
    assert held_out_rows(boards, replace(config, split="random")).sum() == 2_000
    with pytest.raises(GammonError, match="--split"):
        held_out_rows(boards, replace(config, split="odd"))


def test_collecting_and_labelling_give_the_same_positions_and_labels_on_worker_processes_and_resume(tmp_path):
    weights = train(tiny(), tmp_path / "td", progress=False)
    evaluator = WithBearoff(load_weights(weights))  # as a generation labels
    collecting = partial(collect_batch, Collecting(explore=0.1, rivals=0.5, seed=1, games=20))
    boards = collect_positions(200, 1, model_runner(collecting, evaluator, weights), progress=False)
    pooled = collect_positions(200, 1, model_runner(collecting, evaluator, weights, workers=2), width=3, progress=False)
    assert np.array_equal(pooled, boards) and len({b.tobytes() for b in boards}) == 200
    boards = boards[:8]
    here = model_runner(partial(label_chunk, 1), evaluator, weights)
    whole = label_positions(boards, 2, tmp_path / "whole.npz", here, progress=False)
    pooled = label_positions(boards, 2, tmp_path / "pool.npz",
                             model_runner(partial(label_chunk, 1), evaluator, weights, workers=2), progress=False)
    assert np.allclose(pooled, whole, atol=1e-6)

    def out_of_order_then_killed(pieces):
        for index in (1, 0, 3):
            yield pieces[index], here([pieces[index]]).__next__()[1]
        raise KeyboardInterrupt

    saved = tmp_path / "labels.partial.npz"
    with pytest.raises(KeyboardInterrupt):
        label_positions(boards, 2, saved, out_of_order_then_killed, progress=False, save_every=0)
    assert np.array_equal(np.load(saved)["labels"], whole[:4])  # the first two chunks; the fourth waits for the third
    ran = []

    def counting(pieces):
        ran.extend(piece.start for piece in pieces)
        return here(pieces)

    assert np.array_equal(label_positions(boards, 2, saved, counting, progress=False), whole)
    assert ran == [4, 6]


def test_the_tiny_recipe_runs_every_stage_and_resumes(tmp_path):
    weights = run_recipe("tiny", tmp_path / "r", progress=False)
    log = [json.loads(line) for line in (tmp_path / "r" / "log.jsonl").read_text().splitlines()]
    assert [r["stage"] for r in log] == ["td", "gen1", "race", "calibrate"] and all("ppg" in r["eval"] for r in log)
    assert log[-1]["seconds"] > 0 and "calibration" in load_weights(weights).meta
    assert (tmp_path / "r" / "gen1" / "prune" / "prune.pt").is_file()  # its labels searched through a screen
    nets = load_weights(weights).net.nets
    assert set(nets) == {"contact", "race"} and isinstance(nets["race"], OneSidedRace)
    assert (tmp_path / "r" / "curve.svg").read_text().startswith("<svg")
    run_recipe("tiny", tmp_path / "r", progress=False)  # all done: nothing is redone or logged twice
    assert len((tmp_path / "r" / "log.jsonl").read_text().splitlines()) == 4
    with pytest.raises(ValueError, match="unknown recipe"):
        run_recipe("nope", tmp_path / "x")


def test_a_recipe_trains_on_the_nets_it_is_given_and_refuses_other_nets_once_begun(tmp_path):
    short = Recipe(td=replace(RECIPES["tiny"].td, games=300, checkpoint_every=300, eval_every=300, eval_games=20),
                   eval_games=20)
    weights = run_recipe(short, tmp_path / "r", progress=False, nets="contact=contact-v2,race=race-v1")
    assert {name: net.encoding for name, net in load_weights(weights).net.nets.items()} == {
        "contact": "contact-v2", "race": "race-v1"}
    with pytest.raises(GammonError, match="began on --nets 'contact=contact-v2,race=race-v1'; --nets 'contact="):
        run_recipe(short, tmp_path / "r", progress=False, nets="contact=contact-v1,race=race-v1")
    run_recipe(short, tmp_path / "r", progress=False, nets="race=race-v1, contact=contact-v2")  # the same nets
    with pytest.raises(GammonError, match="unknown encoding 'contact-v9'"):
        run_recipe(short, tmp_path / "s", progress=False, nets="contact=contact-v9,race=race-v1")
    own = replace(short, td=replace(short.td, nets="contact=contact-v1,race=race-v1"))  # a recipe naming its nets
    with pytest.raises(GammonError, match="give another --out, or those nets to go on"):
        run_recipe(own, tmp_path / "r", progress=False)


def test_a_recipe_on_other_dice_moves_every_seed_and_refuses_another_seed_once_begun(tmp_path):
    moved = with_seed(RECIPES["tiny"], 5, tmp_path / "r")
    assert moved.td.seed == 5 and moved.generations[0].seed == 15 and moved.race.seed == 35
    assert moved.calibrate.seed == 4246 and moved.prune.seed == 45
    assert with_seed(RECIPES["tiny"], 1, tmp_path / "r") == RECIPES["tiny"]  # its own seed: the recipe as written
    short = Recipe(td=replace(RECIPES["tiny"].td, games=300, checkpoint_every=300, eval_every=300, eval_games=20),
                   eval_games=20)
    run_recipe(short, tmp_path / "r", progress=False, seed=5)
    assert torch.load(tmp_path / "r" / "td" / "checkpoint.pt", weights_only=True)["config"]["seed"] == 5
    with pytest.raises(GammonError, match="began with --seed 5; --seed 6 would not apply"):
        run_recipe(short, tmp_path / "r", progress=False, seed=6)
    with pytest.raises(GammonError, match="began with --seed 5; --seed 1 would not apply"):  # resumed without --seed
        run_recipe(short, tmp_path / "r", progress=False)


def test_the_quick_recipe_trains_on_contact_v2():
    assert net_encodings(RECIPES["quick"].td.nets) == {"contact": "contact-v2", "race": "race-v1"}


def test_gammon_train_refuses_training_options_a_recipe_would_not_use(tmp_path):
    with pytest.raises(GammonError, match="only --nets .* and --seed .* apply to a --recipe.* drop --games, --lr"):
        train_cli(["--recipe", "tiny", "--lr", "0.1", "--games", "10", "--out", str(tmp_path / "r")])
    assert not (tmp_path / "r").exists()


def test_a_longer_recipe_carries_an_earlier_td_run_on_to_its_own_number_of_games(tmp_path):
    short = replace(RECIPES["tiny"].td, games=500, eval_every=500, eval_games=20)
    train(short, tmp_path / "r" / "td", progress=False)
    (tmp_path / "r" / "td" / "model.pt").unlink()  # the stage left with its checkpoint only, as a kill leaves it
    run_recipe(Recipe(td=replace(short, games=1_000), eval_games=20), tmp_path / "r", progress=False)
    rows = [json.loads(line) for line in (tmp_path / "r" / "td" / "log.jsonl").read_text().splitlines()]
    assert 1_000 <= max(row["games"] for row in rows) < 1_100  # a batch of games may run past the mark


def test_the_quick_recipe_in_miniature_relabels_everything_and_improves_on_each_net(tmp_path):
    """The quick recipe's own generations, shrunk (600 positions, 5 epochs, a 16x8 contact net): a two-layer contact
    net from random weights, then a generation that labels every earlier position anew with its own search and
    fits them better than the net it started from."""
    quick = RECIPES["quick"]
    shrunk = [replace(g, positions=600, epochs=5, chunk=200, fresh=g.fresh and "contact=16x8")
              for g in quick.generations[:2]]
    run_recipe(Recipe(td=RECIPES["tiny"].td, generations=shrunk, eval_games=100, prune=RECIPES["tiny"].prune),
               tmp_path / "q", progress=False)
    log = [json.loads(line) for line in (tmp_path / "q" / "log.jsonl").read_text().splitlines()]
    assert [r["stage"] for r in log] == ["td", "gen1", "gen2"]
    first, second = tmp_path / "q" / "gen1", tmp_path / "q" / "gen2"
    assert len(np.load(second / "relabels.npy")) == len(replayed_positions(np.load(second / "positions.npy"),
                                                                           [first]))
    fitted = [json.loads(line) for line in (second / "log.jsonl").read_text().splitlines()][-1]
    assert fitted["held_out_after"]["all"] < fitted["held_out_before"]["all"]
    assert load_weights(tmp_path / "q" / "model.pt").net.nets["contact"].hidden == (16, 8)


@pytest.mark.parametrize("variant", ["hypergammon", "fevga"])
def test_training_plays_the_variant_it_is_given_and_the_weights_remember_it(tmp_path, variant):
    weights = train(tiny(variant=variant, games=200, eval_every=200, eval_games=20), tmp_path / variant,
                    progress=False)
    net = load_weights(weights)
    assert net.variant.name == variant
    assert set(net.net.nets) == ({"all"} if variant == "fevga" else {"contact", "race"})
    rows = [json.loads(line) for line in (tmp_path / variant / "log.jsonl").read_text().splitlines()]
    evaluation = next(row for row in rows if "eval" in row)
    assert evaluation["eval"]["opponent"] == "heuristic" and evaluation["eval"]["games"] == 20
    start = np.repeat(variant_named(variant).starting_board()[None], 3, axis=0)
    probs = net.probabilities(start)
    assert probs.shape == (3, 5) and np.isfinite(probs).all()
    assert (probs[:, [2, 4]] == 0).all() == (variant == "fevga")  # Fevga scores no backgammons
    with pytest.raises(GammonError, match="--nets all=ENCODING"):
        Config(variant="moultezim", nets="contact=contact-v1,race=race-v1").check()
