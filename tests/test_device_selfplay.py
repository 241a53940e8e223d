"""Self-play on the device (training/device_selfplay.py) and the trainer's torch backend, on CPU torch.

The game step against the host's rules: the scoring of finished games against
engine.rules.outcomes.result_points and engine.rules.outcomes, the nets' routing and choice against
models.network and the numpy trainer's policy, every chosen afterstate legal by
engine.rules.movegen, the opening roll; then the trainer: it learns, and a killed run resumes
to the same network.
"""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gammon.engine.errors import GammonError
from gammon.engine.play.duel import duel
from gammon.engine.play.players import Cubeless
from gammon.engine.rules.board import RACE, flip, position_class, starting_board
from gammon.engine.rules.movegen import generate as numpy_generate
from gammon.engine.rules.outcomes import RESULT_POINTS, exclusive_results, outcome_probs
from gammon.engine.rules.outcomes import result_points as numpy_result_points
from gammon.engine.rules.variants import variant_named
from gammon.engine.search.evaluator import evaluator_policy
from gammon.models.baselines import RandomEvaluator
from gammon.models.network import build_model, load_weights
from gammon.models.onesided import OneSidedRace
from gammon.training import device_selfplay
from gammon.training.device_selfplay import DeviceGames, model_logits, outcome_results, result_points
from gammon.training.torch_movegen import generate
from gammon.training.train import Config, Trainer, train

try:  # tests/ is on sys.path under pytest's default import mode
    import positions
except ImportError:  # pragma: no cover
    from tests import positions

SEED = 7_301_977


def tiny(**changes) -> Config:
    settings = dict(games=60, parallel=16, hidden=16, checkpoint_every=30, eval_every=10_000, eval_games=10, threads=1,
                    seed=3, backend="torch")
    settings.update(changes)
    return Config(**settings)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def finished_boards(variant: str) -> np.ndarray:
    """Afterstates of random play, and the same boards with the mover's checkers all borne off: every result."""
    boards, dice = positions.random_play(variant, games=8, seed=SEED)
    after = numpy_generate(boards, dice, variant=variant).boards
    won = after.copy()
    won[:, 1:26] = np.minimum(won[:, 1:26], 0)
    return np.concatenate([after, won])


@pytest.mark.parametrize("variant", positions.VARIANTS)
def test_result_points_are_numpys(variant):
    boards = finished_boards(variant)
    checkers = variant_named(variant).checkers
    for backgammons in (True, False):
        ours = result_points(torch.from_numpy(boards), checkers, backgammons).numpy()
        assert np.array_equal(ours, numpy_result_points(boards, checkers, backgammons))
    assert set(np.unique(ours)) == {0, 1, 2} and 3 in numpy_result_points(boards, checkers)


def test_outcome_results_are_numpys_outcome_probabilities():
    points = np.array([1, 2, 3, -1, -2, -3])
    ours = outcome_results(torch.from_numpy(points)).numpy()
    assert np.array_equal(ours, exclusive_results(outcome_probs(points)))
    assert np.array_equal(ours @ RESULT_POINTS, points)


@pytest.mark.parametrize("spec", ["contact=contact-v1,race=race-v1", "contact=contact-v1,crashed=tesauro198+race,"
                                  "race=race-v1", "all=tesauro198"])
def test_the_nets_answer_each_board_as_class_nets_does(spec):
    torch.manual_seed(1)
    model = build_model(spec, (8,))
    boards, _ = positions.random_play("standard", games=8, seed=SEED)
    ours = model_logits(model, torch.from_numpy(boards))
    assert torch.allclose(ours, model.logits(boards), atol=1e-5)
    ours.sum().backward()  # every net with boards of its class learns from them
    assert all(net.layers[0].weight.grad is not None for net in model.nets.values())


def test_a_one_sided_race_net_answers_on_the_host_as_class_nets_does():
    torch.manual_seed(2)
    model = build_model("contact=contact-v1,race=race-v1", (8,))
    model.nets["race"] = OneSidedRace((8,)).eval()
    boards, _ = positions.random_play("standard", games=8, seed=SEED)
    assert (position_class(boards) == RACE).any()
    assert torch.allclose(model_logits(model, torch.from_numpy(boards)), model.logits(boards), atol=1e-5)


def test_the_choice_is_the_numpy_trainers():
    trainer = Trainer(tiny(backend="numpy", hidden=32))
    boards, dice = positions.random_play("standard", games=8, seed=SEED)
    theirs = numpy_generate(boards, dice)
    their_choice = trainer.policy(theirs)
    their_targets = trainer.targets.numpy()
    ours = generate(torch.from_numpy(boards), torch.from_numpy(dice))
    choice, targets = device_selfplay.greedy_choice(trainer.model, ours, trainer.variant)
    assert np.allclose(targets.numpy(), their_targets, atol=1e-5)
    chosen = ours.boards[choice].numpy()
    differ = np.flatnonzero((chosen != theirs.boards[their_choice]).any(1))
    assert len(differ) <= len(boards) // 1000, differ  # float32 against float64: only a near tie may differ
    values = trainer.result_distribution(np.concatenate([chosen[differ], theirs.boards[their_choice][differ]]))
    assert np.allclose(*np.split(values @ RESULT_POINTS, 2), atol=1e-5)


def test_every_move_is_legal_every_game_scores_as_numpy_and_opens_by_the_rule():
    trainer = Trainer(tiny(parallel=48))
    plies = []

    def record(ply):
        plies.append({field.name: getattr(ply, field.name).numpy().copy() for field in dataclasses.fields(ply)})

    for _ in range(160):
        trainer.device_games.ply(trainer, watch=record)
    start = starting_board()
    for ply in plies:
        before, after, dice, first = ply["before"], ply["after"], ply["dice"], ply["first_move"]
        legal = numpy_generate(before, dice)
        legal_set = {(int(i), b.tobytes()) for i, b in zip(legal.parent, legal.boards)}
        assert all((i, b.tobytes()) in legal_set for i, b in enumerate(after))
        assert np.array_equal(ply["won"], numpy_result_points(after, 15))
        assert (before[first] == start).all() and (dice[first, 0] != dice[first, 1]).all()
        assert np.array_equal(ply["on_roll"][first], dice[first, 1] > dice[first, 0])  # player 0 holds die 0
    for ply, following in zip(plies, plies[1:]):
        going = ply["won"] == 0
        assert np.array_equal(following["first_move"], ~going)
        assert np.array_equal(following["before"][going], flip(ply["after"][going]))
        assert np.array_equal(following["on_roll"][going], 1 - ply["on_roll"][going])
    assert sum(int((ply["won"] > 0).sum()) for ply in plies) >= 20 and trainer.plies == 160


def test_opening_rolls_are_the_30_different_pairs_evenly():
    games = DeviceGames(variant_named("standard"), 30_000, torch.device("cpu"), seed=SEED)
    dice = games.roll().numpy()
    assert (dice[:, 0] != dice[:, 1]).all()
    counts = np.unique(dice[:, 0] * 6 + dice[:, 1], return_counts=True)[1]
    assert len(counts) == 30 and counts.min() > 850 and counts.max() < 1150  # 1,000 each, sd 31
    assert np.array_equal(games.on_roll.numpy(), dice[:, 1] > dice[:, 0])
    games.first_move[:] = False
    later = games.roll().numpy()
    assert 0.15 < (later[:, 0] == later[:, 1]).mean() < 0.18  # fresh rolls: doubles 1 in 6


def test_a_short_run_of_the_torch_backend_learns_to_crush_random(tmp_path):
    """Untrained, these nets lose to random play (-0.9 ppg); after 500 games of the torch backend they win
    +2.5 ppg (seeds 3 and 4; the numpy trainer +2.4), at 200 games +0.9 to +2.0."""
    weights = train(tiny(games=500, parallel=128, hidden=32, checkpoint_every=500, eval_games=20), tmp_path / "run",
                    progress=False)
    net = load_weights(weights)
    stats = duel(Cubeless(evaluator_policy(net)), Cubeless(evaluator_policy(RandomEvaluator(5))), 400, seed=9)
    assert stats.ci95[0] > 2.0, stats


@pytest.mark.parametrize("minibatch, replay", [(0, 0), (5, 0), (0, 2)])  # one TD step a ply, several, replays
def test_a_killed_torch_run_resumes_to_the_same_network(tmp_path, minibatch, replay):
    options = dict(minibatch=minibatch, replay=replay, games=32, checkpoint_every=16)
    whole = train(tiny(**options), tmp_path / "whole", progress=False)
    train(tiny(**options | dict(games=16)), tmp_path / "split", progress=False)  # killed after its first checkpoint
    checkpoint = torch.load(tmp_path / "split" / "checkpoint.pt", weights_only=True)
    assert {"boards", "first_move", "on_roll", "dice_rng"} <= set(checkpoint)
    assert checkpoint["config"]["backend"] == "torch" and checkpoint["config"]["minibatch"] == minibatch
    assert len(checkpoint["replay_plies"]) == (0 if replay == 0 else 32)
    resumed = train(tiny(**options), tmp_path / "split", resume=True, progress=False, games_override=32)
    other_seed = train(tiny(seed=4, **options), tmp_path / "other", progress=False)
    a, b, c = (load_weights(w).net.state_dict() for w in (whole, resumed, other_seed))
    assert all(torch.equal(a[k], b[k]) for k in a)
    assert not all(torch.equal(a[k], c[k]) for k in a)
    log = [json.loads(line) for line in (tmp_path / "split" / "log.jsonl").read_text().splitlines()]
    assert [row["games"] for row in log if "loss" in row][-1] >= 32 and all(np.isfinite(row["loss"]) for row in log
                                                                             if "loss" in row)


def test_the_torch_backend_refuses_what_it_cannot_play():
    with pytest.raises(GammonError, match="--backend is auto, numpy or torch; got 'jax'"):
        tiny(backend="jax").check()
    with pytest.raises(GammonError, match="fevga self-plays with --backend numpy"):
        tiny(variant="fevga", nets="all=tesauro198").check()
    with pytest.raises(GammonError, match="moultezim self-plays with --backend numpy"):
        DeviceGames(variant_named("moultezim"), 4, torch.device("cpu"), seed=1)
