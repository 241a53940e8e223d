"""Fevga and Moultezim on the command line: every command that takes --variant, the players, the heuristic."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from gammon.app.cli import main
from gammon.app.terminal import TerminalGame
from gammon.engine.play.duel import duel
from gammon.engine.play.game import Rules, play_games, random_policy
from gammon.engine.play.players import Cubeless
from gammon.engine.records.formats import board_from_position_id, position_id
from gammon.engine.rules.notation import legal_plays
from gammon.engine.rules.variants import VARIANTS
from gammon.engine.search.evaluator import evaluator_policy
from gammon.models import players
from gammon.models.network import build_model, save_weights
from gammon.models.players import load_analyst, load_player

GREEK = ("fevga", "moultezim")


@pytest.fixture(scope="module")
def nets(tmp_path_factory) -> dict[str, str]:
    """A small untrained net per Greek variant, saved as training saves one (its config names the variant)."""
    folder = tmp_path_factory.mktemp("greek-nets")
    torch.manual_seed(0)
    paths = {}
    for variant in GREEK:
        paths[variant] = str(folder / f"{variant}.pt")
        save_weights(paths[variant], build_model("all=tesauro198", (8,)), config={"variant": variant})
    return paths


@pytest.fixture
def nothing_shipped(monkeypatch, tmp_path):
    """No net shipped for any variant but the standard one (models/ as before the Greek nets)."""
    monkeypatch.setattr(players, "MODELS", tmp_path)


def sample_position(variant: str) -> np.ndarray:
    """A position reached after 30 turns of a random game of ``variant``, seen from the player on roll."""
    rng = np.random.default_rng(1)
    record = play_games((random_policy(rng), random_policy(rng)), 1, seed=2, variant=variant, record=True).records[0]
    return record.turns[30][2]


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("variant", GREEK)
def test_moves_hint_eval_cube_and_show_read_and_answer_a_position_of_the_variant(capsys, nets, variant):
    board = sample_position(variant)
    pid = position_id(board, variant)
    flip = VARIANTS[variant].geometry.flip
    legal = {p.notation: p.board for p in legal_plays(board, (5, 3), variant)}

    code, out, _ = run(capsys, "moves", pid, "--dice", "53", "--variant", variant, "--json")
    moves = json.loads(out)["moves"]
    assert code == 0 and {m["move"] for m in moves} == set(legal)
    for m in moves:  # the ID it leaves is the opponent's view, read back in the variant
        assert np.array_equal(flip(board_from_position_id(m["result_id"], variant)), legal[m["move"]])

    code, out, _ = run(capsys, "hint", pid, "--dice", "53", "--variant", variant, "--model", nets[variant],
                       "--ply", "1", "--json")
    ranked = json.loads(out)["moves"]
    assert code == 0 and {(m["move"], m["result_id"]) for m in ranked} == {(m["move"], m["result_id"]) for m in moves}
    searched = [m["equity"] for m in ranked if m["plies"] == 1]  # the moves the filter kept, best first
    assert searched and searched == sorted(searched, reverse=True)

    code, out, _ = run(capsys, "eval", pid, "--variant", variant, "--model", nets[variant], "--ply", "1", "--json")
    probs = [row["probs"] for row in json.loads(out)["evaluations"]]
    assert code == 0 and len(probs) == 2 and all(0 <= p[1] <= p[0] <= 1 for p in probs)

    code, out, _ = run(capsys, "cube", pid, "--variant", variant, "--model", nets[variant], "--json")
    assert code == 0 and json.loads(out)["action"] in ("no_double", "double")

    code, out, _ = run(capsys, "show", pid, "--variant", variant)
    pips = VARIANTS[variant].geometry.opponent_counts(board) @ np.arange(1, 26)
    assert code == 0 and f"O: pips {pips}," in out


@pytest.mark.parametrize("variant", GREEK)
def test_batch_hints_read_their_positions_in_the_variant(capsys, nets, tmp_path, variant):
    board = sample_position(variant)
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps({"id": 1, "position_id": position_id(board, variant), "dice": [6, 1]}) + "\n")
    code, _, _ = run(capsys, "hint", "--batch", str(source), "--out", str(out), "--variant", variant,
                     "--model", nets[variant], "--ply", "0")
    answer = json.loads(out.read_text())
    assert code == 0 and answer["move"] in {p.notation for p in legal_plays(board, (6, 1), variant)}


def test_a_greek_variant_without_a_shipped_net_says_how_to_train_one(capsys, nothing_shipped):
    code, _, err = run(capsys, "eval", position_id(VARIANTS["fevga"].starting_board(), "fevga"), "--variant", "fevga")
    assert code == 2 and err.strip() == ("gammon eval: error: no shipped net for fevga: train one with "
                                         "gammon train --variant fevga --out DIR and pass --model DIR/model.pt")
    assert load_player("default", variant="nackgammon").name == "default"  # backgammon's board: the standard net


def test_the_shipped_net_of_a_variant_is_its_own(nets, nothing_shipped, tmp_path):
    (tmp_path / "moultezim.pt").write_bytes(open(nets["moultezim"], "rb").read())
    net = load_analyst("default", variant="moultezim")
    assert net.variant is VARIANTS["moultezim"] and net.evaluator.name == "moultezim"


def test_a_net_plays_only_the_variant_it_was_trained_for(capsys, nets):
    pid = position_id(VARIANTS["moultezim"].starting_board(), "moultezim")
    code, _, err = run(capsys, "eval", pid, "--variant", "moultezim", "--model", nets["fevga"])
    assert code == 2 and "is a net for fevga, not moultezim: give --variant fevga" in err
    code, _, err = run(capsys, "eval", pid, "--model", nets["fevga"])
    assert code == 2 and "is a net for fevga, not standard" in err


@pytest.mark.parametrize("variant", GREEK)
def test_the_heuristic_of_a_greek_variant_beats_random_by_a_wide_margin(variant):
    heuristic = evaluator_policy(load_player("heuristic", variant=variant))
    random = evaluator_policy(load_player("random", 1))
    stats = duel(Cubeless(heuristic), Cubeless(random), 300, seed=3, rules=Rules(variant=variant))
    assert stats.ci95[0] > 0.5, stats
    backgammon_heuristic = evaluator_policy(load_player("heuristic"))  # mirrored tracks: no use here
    stats = duel(Cubeless(heuristic), Cubeless(backgammon_heuristic), 100, seed=3, rules=Rules(variant=variant))
    assert stats.ppg > 0.5


def test_pubeval_and_gnubg_are_refused_off_backgammons_board(capsys):
    code, _, err = run(capsys, "match", "pubeval", "random", "--variant", "fevga", "--games", "4")
    assert code == 2 and "pubeval plays on backgammon's board only, not fevga" in err


@pytest.mark.parametrize("variant", GREEK)
def test_demo_plays_a_whole_game_and_says_who_plays(capsys, nets, nothing_shipped, variant):
    code, out, _ = run(capsys, "demo", "--variant", variant)
    assert code == 0 and out.startswith(f"no net is shipped for {variant} yet: X is its heuristic")
    assert f"{variant} game, X (heuristic) vs O (heuristic)" in out and " wins a " in out.splitlines()[-1]
    assert "O: pips 360, off 0" in out  # the first board: his 15 checkers on his own 24-point
    code, out, _ = run(capsys, "demo", "--variant", variant, "--x", nets[variant], "--quiet")
    assert code == 0 and out.startswith(f"{variant} game, X ({nets[variant]}) vs O (heuristic)")


@pytest.mark.parametrize("variant", GREEK)
def test_match_and_bench_strength_play_the_variant(capsys, nets, variant):
    code, out, _ = run(capsys, "match", nets[variant], "heuristic", "--variant", variant, "--games", "4", "--json")
    assert code == 0 and json.loads(out)["games"] == 4
    code, out, _ = run(capsys, "match", "heuristic", "random", "--variant", variant, "--length", "3", "--matches",
                       "4", "--json")
    assert code == 0 and json.loads(out)["match_length"] == 3
    code, out, _ = run(capsys, "bench", "strength", "heuristic", "random", "--variant", variant, "--games", "20",
                       "--json")
    assert code == 0 and json.loads(out)["variant"] == variant
    code, _, err = run(capsys, "match", "heuristic", "random", "--variant", variant, "--games", "4",
                       "--record", "first.mat")
    assert code == 2 and f".mat and .sgf files hold hypergammon, nackgammon, standard only, not {variant}" in err


@pytest.mark.parametrize("variant", GREEK)
def test_a_greek_game_plays_to_the_end_at_the_prompt(nets, variant):
    """The board, the pips, the moves typed and the refusals follow the variant's rules."""
    out: list[str] = []
    answers = iter(["pip", "24/12"])  # at the first move prompt: the pips, then a move onto his start

    def answer() -> str:
        last = out[-1]
        if last.endswith("roll> "):
            return "roll"
        if last.endswith("take or pass> "):
            return "take"
        scripted = next(answers, None)
        if scripted:
            return scripted
        legal = legal_plays(game.position[0], game.position[1], variant)
        return legal[0].notation

    game = TerminalGame(load_analyst(nets[variant], variant=variant), seed=4, read=answer, variant=variant,
                        write=lambda *a, end="\n", **k: out.append(" ".join(map(str, a)) + end))
    game.run()
    said = "".join(out)
    assert "pips: you " in said and "O (bot): pips " in said
    assert "illegal: '24/12' is not legal" in said
    assert any(line.startswith(("You win", "The bot wins")) for line in game.record), game.record[-5:]
    assert not any("*" in line or "bar/" in line for line in game.record)


# -- rollouts ---------------------------------------------------------------------------------


def rollout_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, "rollout", *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def last_checker_on(point: int, theirs: dict[int, int]) -> np.ndarray:
    """Our last checker on ``point`` (the rest borne off) and theirs on our points ``theirs`` {point: count}."""
    board = np.zeros(26, dtype=np.int8)
    board[point] = 1
    for their_point, count in theirs.items():
        board[their_point] = -count
    return board


# Our last checker comes off with any roll, all fifteen of theirs in our home board: a backgammon in backgammon.
IN_OUR_HOME = last_checker_on(1, {2: 3, 3: 3, 4: 3, 5: 3, 6: 3})
# A backgammon Position ID: our fifteen on our 12-point, theirs on their 24-point, the same point in these variants.
BOTH_ON_12 = position_id(np.array([0, -15] + [0] * 10 + [15] + [0] * 13))


@pytest.mark.parametrize("variant", GREEK)
def test_a_rollout_moves_and_scores_by_the_variants_rules(capsys, nets, variant):
    net = ("--variant", variant, "--model", nets[variant], "--games", "72")
    # Their lone checker holds our 1-point: of the 36 first rolls only 1-1 cannot bear ours off from the 2.
    blocked = last_checker_on(2, {1: 1})
    assert rollout_json(capsys, position_id(blocked, variant), *net, "--truncate", "1")["truncated"] == 2
    # In backgammon 1-1 hits it (2/1* 1/off): every game ends at once.
    assert rollout_json(capsys, position_id(blocked), "--games", "72", "--truncate", "1")["truncated"] == 0

    pid = position_id(IN_OUR_HOME, variant)  # a gammon: these variants have no backgammons
    result = rollout_json(capsys, pid, *net)
    assert result["position"] == pid and result["probs"] == [1.0, 1.0, 0.0, 0.0, 0.0] and result["equity"] == 2.0
    # Whatever the cube does, a gammon a game: 1 (double, pass), 2 or 4 (double, take) per starting cube, never 3.
    assert rollout_json(capsys, pid, *net, "--cubeful")["cubeful_equity"] in (1.0, 2.0, 4.0)
    code, out, _ = run(capsys, "rollout", pid, *net)  # drawn in the variant: their pips along their own track
    assert code == 0 and "O: pips 240, off 0" in out and "cubeless equity +2.000" in out


@pytest.mark.parametrize("variant", GREEK)
def test_a_truncated_rollout_of_a_middle_game_gives_sensible_probabilities(capsys, nets, variant):
    pid = position_id(sample_position(variant), variant)
    result = rollout_json(capsys, pid, "--variant", variant, "--model", nets[variant], "--games", "72",
                          "--truncate", "4")
    win, gammon, backgammon, lose_gammon, lose_backgammon = result["probs"]
    assert result["games"] == 72 and 0 < result["truncated"] <= 72
    assert 0 <= gammon <= win <= 1 and 0 <= lose_gammon <= 1 - win and backgammon == lose_backgammon == 0
    assert result["ci95"][0] <= result["equity"] <= result["ci95"][1]


@pytest.mark.parametrize("variant", GREEK)
def test_batch_rollouts_read_and_play_their_positions_in_the_variant(capsys, nets, tmp_path, variant):
    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    lines = [{"id": "a", "position_id": position_id(IN_OUR_HOME, variant)},
             {"id": "b", "position_id": position_id(sample_position(variant), variant)},
             {"id": "c", "position_id": BOTH_ON_12}]
    source.write_text("".join(json.dumps(line) + "\n" for line in lines))
    code, _, err = run(capsys, "rollout", "--batch", str(source), "--out", str(out), "--variant", variant,
                       "--model", nets[variant], "--games", "36", "--truncate", "3")
    gammon, middle, wrong = (json.loads(line) for line in out.read_text().splitlines())
    assert code == 1 and "2 position(s) rolled out (36 games each), 1 failed" in err
    assert gammon["probs"] == [1.0, 1.0, 0.0, 0.0, 0.0] and middle["truncated"] > 0
    assert wrong == {"id": "c", "line": 3, "error": f"both sides have checkers on point 12 in Position ID "
                                                    f"'{BOTH_ON_12}'"}


@pytest.mark.parametrize("variant", GREEK)
def test_a_rollout_refuses_in_one_line_what_the_variant_cannot_play(capsys, nets, variant):
    code, _, err = run(capsys, "rollout", BOTH_ON_12, "--variant", variant, "--model", nets[variant])
    assert code == 2 and err == f"gammon rollout: error: both sides have checkers on point 12 in Position ID " \
                                f"'{BOTH_ON_12}'\n"
    start = position_id(VARIANTS[variant].starting_board(), variant)
    code, _, err = run(capsys, "rollout", start, "--variant", variant, "--model", nets[variant], "--device", "cpu")
    assert code == 2 and err.count("\n") == 1 and f"roll {variant} out on the host" in err


def test_a_hypergammon_rollout_plays_three_checkers_a_side(capsys, tmp_path):
    # Our last checker comes off; their three are in their home board. With three a side they have
    # borne none off (a gammon); the same Position ID in backgammon has twelve of theirs off (a single game).
    pid = position_id(last_checker_on(1, {19: 1, 20: 1, 21: 1}))
    assert rollout_json(capsys, pid, "--variant", "hypergammon", "--games", "36")["equity"] == 2.0
    assert rollout_json(capsys, pid, "--games", "36")["equity"] == 1.0

    start = position_id(VARIANTS["hypergammon"].starting_board())
    for truncate in ((), ("--truncate", "5")):
        result = rollout_json(capsys, start, "--variant", "hypergammon", "--games", "72", *truncate)
        win, gammon, backgammon, lose_gammon, lose_backgammon = result["probs"]
        assert 0 <= backgammon <= gammon <= win <= 1 and 0 <= lose_backgammon <= lose_gammon <= 1 - win
        assert result["truncated"] == (72 if truncate else 0)

    source, out = tmp_path / "in.jsonl", tmp_path / "out.jsonl"
    source.write_text(json.dumps({"id": 1, "position_id": pid}) + "\n"
                      + json.dumps({"id": 2, "position_id": "4HPwATDgc/ABMA"}) + "\n")
    code, _, _ = run(capsys, "rollout", "--batch", str(source), "--out", str(out), "--variant", "hypergammon",
                     "--games", "36")
    gammon, opening = (json.loads(line) for line in out.read_text().splitlines())
    assert code == 1 and gammon["equity"] == 2.0 and opening["error"] == "point 6 holds 5 checkers; a side has only 3"
    code, _, err = run(capsys, "rollout", "4HPwATDgc/ABMA", "--variant", "hypergammon")
    assert code == 2 and err == "gammon rollout: error: point 6 holds 5 checkers; a side has only 3\n"
