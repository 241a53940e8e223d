"""Acey-Deucey end to end: the 1-2's extra roll valued from the mover's side, the nets' inputs, the
heuristic, a training run, and every command that takes --variant acey-deucey."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gammon.app.cli import main
from gammon.app.terminal import TerminalGame
from gammon.engine.errors import GammonError
from gammon.engine.play.duel import duel
from gammon.engine.play.game import Rules, play, play_games, random_policy
from gammon.engine.play.players import Cubeless
from gammon.engine.records.formats import parse_position, position_id
from gammon.engine.rules.board import CONTACT, RACE, position_class
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.notation import MoveError, find_play, format_move, legal_plays
from gammon.engine.rules.outcomes import afterstate_probs, cubeless_equity, exclusive_results
from gammon.engine.rules.variants import ACEY_DEUCEY
from gammon.engine.search.bearoff import WithBearoff
from gammon.engine.search.evaluator import (
    WILD_KEEP,
    afterstate_equity,
    afterstate_scores,
    evaluator_policy,
    wild_filter,
)
from gammon.models import players
from gammon.models.encoding import encoder, tesauro198
from gammon.models.network import NetEvaluator, build_model, load_weights
from gammon.models.players import load_analyst, load_player
from gammon.training.torch_encoding import encoder as torch_encoder
from gammon.training.train import Config, Trainer

ACEY = ACEY_DEUCEY
V = ("--variant", "acey-deucey")
WILD = (1, 2)


def acey_board(points: dict[int, int], to_enter: tuple[int, int] = (0, 0), bars: tuple[int, int] = (0, 0)):
    """A board of 28 cells: ``points`` {mover's point: count, negative for the opponent}, each side's
    checkers still to enter (mover first) and on the bar (mover first)."""
    board = np.zeros(28, dtype=np.int8)
    for point, count in points.items():
        board[point] = count
    board[25], board[0] = bars
    board[26], board[27] = to_enter
    return board


@pytest.fixture(scope="module")
def sample() -> np.ndarray:
    """A middle-game position of a random game, seen from the player on roll (checkers still to enter)."""
    rng = np.random.default_rng(1)
    record = play_games((random_policy(rng), random_policy(rng)), 1, seed=2, variant=ACEY, record=True).records[0]
    board = record.turns[30][2]
    assert board[26] > 0 and board[27] > 0
    return board


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> str:
    """The weights of a tiny ``gammon train --variant acey-deucey`` run."""
    out = tmp_path_factory.mktemp("acey-run")
    assert main(["train", *V, "--out", str(out), "--games", "32", "--parallel", "16", "--hidden", "8",
                 "--threads", "1", "--eval-every", "32", "--eval-games", "4", "--checkpoint-every", "32",
                 "--no-progress"]) == 0
    return str(out / "model.pt")


@pytest.fixture
def nothing_shipped(monkeypatch, tmp_path):
    monkeypatch.setattr(players, "MODELS", tmp_path)


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- the extra roll ------------------------------------------------------------------------


def test_an_afterstate_with_the_extra_roll_is_the_movers_own_position_on_roll():
    # One checker left each, on its own 1-point: whoever rolls next bears it off and wins.
    board = acey_board({1: 1, 24: -1})
    exact = WithBearoff(NetEvaluator(build_model("all=tesauro198+enter", (8,)), variant=ACEY))
    assert afterstate_probs(exact.probabilities, board[None], ACEY, np.array([True]))[0, 0] == 1.0
    assert afterstate_probs(exact.probabilities, board[None], ACEY)[0, 0] == 0.0  # the turn passes: lost


def test_players_search_and_the_trainer_value_a_1_2_turn_from_the_movers_side(sample):
    torch.manual_seed(0)
    net = NetEvaluator(build_model("all=tesauro198+enter", (8,)), variant=ACEY)
    part = acey_board({1: 14, 12: 1, 3: -2, 24: -13})  # 2-2, 3-3 and 6-6 are played only in part here
    afterstates = generate(np.stack([sample, part]), np.array([WILD, WILD]), variant=ACEY)
    again = afterstates.extra_roll  # after a double played in full; the others end the turn
    assert again.any() and not again.all() and len(afterstates) > 1000
    on_roll = net.probabilities(afterstates.boards)  # nobody has won yet: every afterstate goes on
    scores = afterstate_scores(net, afterstates)
    assert np.allclose(scores[again], cubeless_equity(on_roll[again]))
    assert np.allclose(scores[~again], net.score_afterstates(afterstates.boards[~again]))  # the turn passes
    assert not np.allclose(net.score_afterstates(afterstates.boards), cubeless_equity(on_roll))  # turned round
    assert evaluator_policy(net)(afterstates)[0] == np.argmax(scores[: afterstates.offsets[1]])
    trainer = Trainer(Config(variant="acey-deucey", parallel=2, hidden=8, threads=1))
    targets = trainer.result_distribution(afterstates.boards[:50], np.ones(50, dtype=bool))
    mine = NetEvaluator(trainer.model, variant=ACEY).probabilities(afterstates.boards[:50])
    assert np.allclose(targets, exclusive_results(mine), atol=1e-6)  # the TD target: the same side, on roll


def test_a_bots_wild_filter_sends_only_its_best_plays_of_the_1_2_on_to_a_double(sample):
    torch.manual_seed(0)
    net = NetEvaluator(build_model("all=tesauro198+enter", (8,)), variant=ACEY)
    full = generate(sample[None], np.array([WILD]), variant=ACEY)
    everything = generate(sample[None], np.array([WILD]), variant=ACEY,
                          wild_filter=lambda b, g: np.ones(len(b), bool))
    assert np.array_equal(everything.boards, full.boards) and np.array_equal(everything.plays, full.plays)

    seen = {}

    def spy(boards, group):
        seen["boards"] = boards
        return wild_filter(net)(boards, group)

    pruned = generate(sample[None], np.array([WILD]), variant=ACEY, wild_filter=spy)
    first = seen["boards"]
    values = afterstate_equity(net, first, np.ones(len(first), dtype=bool))  # the mover's, on roll again
    assert len(first) > WILD_KEEP
    kept = first[np.argsort(-values, kind="stable")[:WILD_KEEP]]
    doubles = np.array([(d, d) for d in range(1, 7)] * WILD_KEEP)
    then = generate(np.repeat(kept, 6, axis=0), doubles, variant=ACEY)  # each kept play, then any double
    as_set = lambda boards: set(map(bytes, boards.astype(np.int8)))  # noqa: E731
    assert as_set(pruned.boards) == as_set(then.boards) and as_set(pruned.boards) < as_set(full.boards)
    assert pruned.extra_roll.any() and len(pruned.boards) < len(full.boards) / 2
    with pytest.raises(ValueError, match="at least one play of every roll"):
        generate(sample[None], np.array([WILD]), variant=ACEY, wild_filter=lambda b, g: np.zeros(len(b), bool))


def test_bots_and_the_trainer_hand_their_wild_filter_to_the_game_loop():
    torch.manual_seed(0)
    policy = evaluator_policy(NetEvaluator(build_model("all=tesauro198+enter", (8,)), variant=ACEY))
    trainer = Trainer(Config(variant="acey-deucey", parallel=8, hidden=8, threads=1))
    for player, original in ((Cubeless(policy), policy.wild_filter), (trainer, trainer.wild_filter)):
        calls = []
        player.wild_filter = lambda b, g, keep=original, calls=calls: calls.append(len(b)) or keep(b, g)
        result = play((player, player), 8, seed=3, rules=Rules(variant="acey-deucey"), stop_after=60)
        assert calls and result.boards.shape == (8, 28)


# -- the nets' inputs and positions ----------------------------------------------------------


def test_the_acey_inputs_hold_the_checkers_still_to_enter_apart_from_the_bar_and_the_tray():
    # Mover: 11 on points, 1 hit on the bar, 3 still to enter. Opponent: 5 on points, 10 borne off.
    board = acey_board({24: 2, 13: 4, 6: 5, 3: -2, 19: -3}, to_enter=(3, 0), bars=(1, 0))
    encode, width = encoder("tesauro198+enter")
    x = encode(board[None])[0]
    assert width == 202 and x.shape == (202,)
    assert x[4 * 23 : 4 * 24].tolist() == [1, 1, 0, 0]  # the mover's 24-point: two checkers
    assert x[192:196].tolist() == pytest.approx([0.5, 0.0, 0.0, 10 / 15])  # bars; borne off: none, and 10
    assert x[198:].tolist() == pytest.approx([3 / 15, 0.0, 1.0, 0.0])  # still to enter, and whether any
    backgammon = board[:26]  # a board without checkers to enter: Tesauro's inputs and four zeros
    backgammon[25] = 4
    assert np.array_equal(encode(backgammon[None]), np.concatenate([tesauro198(backgammon[None]), np.zeros((1, 4))], 1))


def test_the_torch_inputs_equal_numpys_on_acey_boards(sample):
    boards = generate(sample[None], np.array([WILD]), variant=ACEY).boards[::50]
    ours, _ = torch_encoder("tesauro198+enter")
    assert np.allclose(ours(torch.from_numpy(boards)).numpy(), encoder("tesauro198+enter")[0](boards))


def test_position_classes_count_a_checker_still_to_enter_as_on_the_bar():
    passed = acey_board({6: 15, 19: -15})  # both sides home: a race
    waiting = acey_board({6: 15, 19: -14}, to_enter=(0, 1))  # his last checker enters in front of ours
    assert position_class(np.stack([passed, waiting])).tolist() == [RACE, CONTACT]


# -- players ----------------------------------------------------------------------------------


def test_the_heuristic_beats_random_and_pubeval_and_gnubg_are_refused():
    heuristic = evaluator_policy(load_player("heuristic", variant="acey-deucey"))
    stats = duel(Cubeless(heuristic), Cubeless(evaluator_policy(load_player("random", 1))), 40, seed=3,
                 rules=Rules(variant="acey-deucey"))
    assert stats.ci95[0] > 1.5, stats
    for name in ("pubeval", "gnubg"):
        with pytest.raises(GammonError, match="not acey-deucey"):
            load_player(name, variant="acey-deucey")


def test_a_trained_net_loads_for_acey_deucey_only_and_plays_a_demo_to_the_end(capsys, trained):
    net = load_weights(trained)
    assert net.variant is ACEY and {n.encoding for n in net.net.nets.values()} == {"tesauro198+enter"}
    code, out, _ = run(capsys, "demo", *V, "--x", trained, "--seed", "4")
    assert code == 0 and out.startswith(f"acey-deucey game, X ({trained}) vs O (heuristic)")
    assert "to enter X 15, O 15" in out and " wins a " in out.splitlines()[-1]
    code, _, err = run(capsys, "eval", "4HPwATDgc/ABMA", "--model", trained)
    assert code == 2 and "is a net for acey-deucey, not standard" in err


def test_the_shipped_net_plays_acey_deucey_and_beats_a_random_player():
    net = load_player("default", variant="acey-deucey")
    assert net.variant is ACEY and {n.encoding for n in net.model.nets.values()} == {"tesauro198+enter"}
    stats = duel(Cubeless(evaluator_policy(net)), Cubeless(random_policy(np.random.default_rng(0))), 20, seed=1,
                 rules=Rules(variant="acey-deucey"))
    assert stats.ppg > 1.5  # +2.93 over 2,000 games (models/variants.md)


def test_without_a_shipped_net_the_default_player_says_how_to_train_one(capsys, nothing_shipped):
    code, _, err = run(capsys, "eval", "AAAAAAAAAAAAAA-15-15", *V)
    assert code == 2 and err.strip() == ("gammon eval: error: no shipped net for acey-deucey: train one with gammon "
                                         "train --variant acey-deucey --out DIR and pass --model DIR/model.pt")
    code, out, _ = run(capsys, "demo", *V, "--quiet")
    assert code == 0 and out.startswith("no net is shipped for acey-deucey yet: X is its heuristic")


def test_training_refuses_inputs_that_cannot_read_the_checkers_still_to_enter():
    with pytest.raises(GammonError, match="give --nets all=tesauro198\\+enter"):
        Config(variant="acey-deucey", nets="contact=contact-v1,race=race-v1").check()


# -- notation ---------------------------------------------------------------------------------


def test_an_entry_from_off_the_board_is_written_off_and_a_hit_checker_bar():
    board = acey_board({13: 3, 6: 2, 2: -2}, to_enter=(9, 13), bars=(1, 0))
    assert format_move(board, [(25, 22), (25, 20)]) == "bar/22 off/20"
    assert find_play(board, (3, 5), "off/20 bar/22", ACEY).notation == "bar/22 off/20"
    with pytest.raises(MoveError, match="cannot move from 'off'"):
        find_play(acey_board({13: 3, 6: 2, 2: -2}, to_enter=(10, 13))[:26], (3, 5), "off/20")


def test_a_1_2_turn_is_written_in_its_two_parts_and_read_back_in_any_order(sample):
    plays = legal_plays(sample, WILD, ACEY)
    assert all(" then " in p.notation for p in plays)
    assert any(p.rolls_again for p in plays)
    play = next(p for p in plays if "then 6-6:" in p.notation)
    assert np.array_equal(find_play(sample, WILD, play.notation, ACEY).board, play.board)
    steps = play.notation.replace(" then 6-6:", "")  # every step of the turn as one list
    assert np.array_equal(find_play(sample, WILD, steps, ACEY).board, play.board)
    assert format_move(sample, -np.ones((6, 2), dtype=int), wild=True) == ""  # nothing played: no move at all


# -- the commands -----------------------------------------------------------------------------


def test_show_moves_eval_hint_and_cube_answer_an_acey_position(capsys, trained, sample, tmp_path):
    pid = position_id(sample, ACEY)
    code, out, _ = run(capsys, "show", pid, *V)
    assert code == 0 and f"to enter X {sample[26]}, O {sample[27]}" in out
    code, _, _ = run(capsys, "show", pid, *V, "--svg", str(tmp_path / "p.svg"))
    assert code == 0 and f">{sample[26]} to enter<" in (tmp_path / "p.svg").read_text()

    legal = {p.notation: p for p in legal_plays(sample, WILD, ACEY)}
    code, out, _ = run(capsys, "moves", pid, "--dice", "12", *V, "--json")
    moves = json.loads(out)["moves"]
    assert code == 0 and {m["move"] for m in moves} == set(legal)
    for m in moves[::200]:  # where he rolls again the ID is his own position, else it is turned round
        play = legal[m["move"]]
        expected = play.board if play.rolls_again else ACEY.geometry.flip(play.board)
        assert np.array_equal(parse_position(m["result_id"], ACEY)[0], expected)

    code, out, _ = run(capsys, "hint", pid, "--dice", "12", *V, "--model", trained, "--ply", "0", "--json")
    ranked = json.loads(out)["moves"]
    assert code == 0 and {(m["move"], m["result_id"]) for m in ranked} == {(m["move"], m["result_id"]) for m in moves}

    code, out, _ = run(capsys, "eval", pid, *V, "--model", trained, "--ply", "1", "--json")
    rows = json.loads(out)["evaluations"]
    assert code == 0 and len(rows) == 2 and all(0 <= r["probs"][1] <= r["probs"][0] <= 1 for r in rows)
    code, out, _ = run(capsys, "cube", pid, *V, "--model", trained, "--ply", "0", "--json")
    assert code == 0 and json.loads(out)["action"] in ("no_double", "double")


def test_match_and_bench_strength_play_acey_deucey_and_match_files_are_refused(capsys, trained, tmp_path):
    code, out, _ = run(capsys, "match", trained, "heuristic", *V, "--games", "4", "--json")
    assert code == 0 and json.loads(out)["games"] == 4
    code, out, _ = run(capsys, "bench", "strength", "heuristic", "random", *V, "--games", "4", "--json")
    assert code == 0 and json.loads(out)["ppg"] > 0
    code, _, err = run(capsys, "match", "heuristic", "random", *V, "--games", "4", "--record", str(tmp_path / "m.mat"))
    assert code == 2 and "not acey-deucey" in err


def test_play_takes_a_1_2_with_its_double_and_then_the_extra_roll(trained):
    """Seed 13: the bot opens, then the person rolls 1-2 (and 4-4 after it)."""
    said: list[str] = []
    answered = []

    def read() -> str:
        prompt = said[-1]
        if prompt == "roll> ":
            return "roll"
        board, dice = game.position
        if answered:  # the next move prompt of the same turn: the extra roll
            answered.append((prompt, dice))
            return "quit"
        play = [p for p in legal_plays(board, dice, ACEY) if p.rolls_again][-1]  # a double in full
        answered.append((prompt, dice, play.notation))
        return play.notation

    game = TerminalGame(load_analyst(trained, variant="acey-deucey"), seed=13, read=read,
                        write=lambda text="", **_: said.append(str(text)), variant="acey-deucey")
    assert game.run() == 0
    (prompt, dice, typed), (then, extra) = answered
    assert prompt == then == "move> " and sorted(dice) == [1, 2] and " then " in typed
    assert any(line.startswith(f"You roll {dice[0]}-{dice[1]} and play {typed}.") for line in said)
    assert sorted(extra) != [1, 2] and "Session ended." in said


# -- rollouts ---------------------------------------------------------------------------------

# Our last three checkers on the 1-point, all fifteen of theirs still to enter. A double bears the three
# off, and so does a 1-2 (its 1 and 2, then any double); each other roll leaves one: 8 of the 36 rolls win.
LAST_THREE = position_id(acey_board({1: 3}, to_enter=(0, 15)), ACEY)


def rollout_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, "rollout", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_a_rollout_plays_the_1_2_and_scores_a_checker_never_entered_as_a_backgammon(capsys, trained):
    net = (*V, "--model", trained, "--games", "72")
    assert rollout_json(capsys, LAST_THREE, *net, "--truncate", "1")["truncated"] == 72 - 2 * 8
    result = rollout_json(capsys, LAST_THREE, *net)
    assert result["position"] == LAST_THREE and result["probs"] == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert result["equity"] == 3.0 and result["truncated"] == 0
    # Whatever the cube does, a backgammon a game: 1 (double, pass), 3 or 6 (double, take) per starting cube.
    assert rollout_json(capsys, LAST_THREE, *net, "--cubeful")["cubeful_equity"] in (1.0, 3.0, 6.0)
    code, out, _ = run(capsys, "rollout", LAST_THREE, *net)
    assert code == 0 and "to enter X 0, O 15" in out and "cubeless equity +3.000" in out


def test_a_truncated_rollout_from_the_start_gives_sensible_probabilities(capsys, trained):
    result = rollout_json(capsys, "AAAAAAAAAAAAAA-15-15", *V, "--model", trained, "--games", "72", "--truncate", "6")
    win, gammon, backgammon, lose_gammon, lose_backgammon = result["probs"]
    assert result["games"] == 72 and result["truncated"] == 72
    assert 0 <= backgammon <= gammon <= win <= 1 and 0 <= lose_backgammon <= lose_gammon <= 1 - win


def test_batch_rollouts_read_and_play_acey_positions(capsys, trained, tmp_path):
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text("".join(json.dumps({"id": i, "position_id": text}) + "\n"
                              for i, text in enumerate((LAST_THREE, "AAAAAAAAAAAAAA-15-15", "4HPwATDgc/ABMA"))))
    code, _, err = run(capsys, "rollout", "--batch", str(source), "--out", str(out), *V, "--model", trained,
                       "--games", "36", "--truncate", "1")
    last_three, start, standard = (json.loads(line) for line in out.read_text().splitlines())
    assert code == 1 and "2 position(s) rolled out (36 games each), 1 failed" in err
    assert last_three["truncated"] == 36 - 8 and start["truncated"] == 36
    assert standard["error"] == "an Acey-Deucey position is 'PositionID-A-B' (A, B: checkers still to enter, " \
                                "player on roll first); got '4HPwATDgc/ABMA'"


def test_a_rollout_refuses_in_one_line_what_acey_deucey_cannot_play(capsys, trained, nothing_shipped):
    for argv, fault in (((LAST_THREE,), "cannot read 'AAAADgAAAAAAAA-0-15' as a position"),
                        (("AAAAAAAAAAAAAA-16-15", *V, "--model", trained), "holds 16 checkers; a side has only 15"),
                        ((LAST_THREE, *V, "--model", trained, "--device", "cpu"), "roll acey-deucey out on the host"),
                        ((LAST_THREE, *V), "no shipped net for acey-deucey: train one")):
        code, _, err = run(capsys, "rollout", *argv)
        assert code == 2 and err.count("\n") == 1 and fault in err, err
