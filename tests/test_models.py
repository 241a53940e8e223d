"""Network inputs and outputs, weight files, players by name, the strength benchmark."""

import json
import pickle

import numpy as np
import pytest
import torch

from benchmarks.strength import main as strength_main
from engine.board import flip, starting_board
from engine.evaluator import cubeless_equity
from models.encoding import encoder, tesauro198, tesauro198_race
from models.network import NetEvaluator, TDNet, WeightsError, load_weights, save_weights
from models.players import load_player
from positions import all_families  # tests/ is on sys.path under pytest


@pytest.fixture(scope="module")
def boards():
    return np.concatenate([b for b, _ in all_families(5).values()])[:3000]


def test_tesauro198_units_on_the_starting_position():
    x = tesauro198(starting_board()[None])[0]
    assert x.shape == (198,)
    assert x[4 * 23 : 4 * 24].tolist() == [1, 1, 0, 0]  # our 24-point: 2 checkers
    assert x[4 * 5 : 4 * 6].tolist() == [1, 1, 1, 1]  # our 6-point: 5 checkers -> (5-3)/2
    assert np.array_equal(x[:96], x[96:192])  # the opening position is symmetric
    assert x[192:].tolist() == [0, 0, 0, 0, 1, 0]  # bars, borne off, side to move


def test_race_units_and_widths(boards):
    for name in ("tesauro198", "tesauro198+race"):
        encode, width = encoder(name)
        assert encode(boards).shape == (len(boards), width)
    race = tesauro198_race(starting_board()[None])[0, 198:]
    assert race.tolist() == pytest.approx([1.67, 1.67, 0.0, 1.0, 1.0, 1.0])
    with pytest.raises(ValueError, match="unknown encoding"):
        encoder("nope")


def test_outputs_are_consistent_probabilities(boards):
    torch.manual_seed(0)
    net = NetEvaluator(TDNet())
    p = net.probabilities(boards)
    assert p.shape == (len(boards), 5)
    assert (p >= 0).all() and (p <= 1).all()
    assert (p[:, 2] <= p[:, 1] + 1e-7).all() and (p[:, 1] <= p[:, 0] + 1e-7).all()  # bg <= gammon <= win
    assert (p[:, 4] <= p[:, 3] + 1e-7).all() and (p[:, 3] <= 1 - p[:, 0] + 1e-6).all()
    equity = cubeless_equity(p)
    assert (np.abs(equity) <= 3).all()
    # The mover's afterstate score is minus the opponent's equity on roll.
    going = boards[(boards[:, 1:26] > 0).any(1)][:50]
    assert np.allclose(net.score_afterstates(going), -cubeless_equity(net.probabilities(flip(going))))


def test_weights_round_trip_with_metadata(tmp_path, boards):
    torch.manual_seed(1)
    net = TDNet("tesauro198", (32,))
    save_weights(tmp_path / "w.pt", net, games=123)
    loaded = load_weights(tmp_path / "w.pt")
    assert loaded.meta["games"] == 123 and loaded.net.encoding == "tesauro198" and loaded.net.hidden == (32,)
    assert np.allclose(loaded.probabilities(boards), NetEvaluator(net).probabilities(boards))
    assert not list(tmp_path.glob("*.tmp"))  # the atomic write left nothing behind


def test_bad_weight_files_get_clear_errors(tmp_path):
    save_weights(tmp_path / "good.pt", TDNet())
    data = (tmp_path / "good.pt").read_bytes()
    (tmp_path / "truncated.pt").write_bytes(data[: len(data) // 2])
    (tmp_path / "noise.pt").write_bytes(np.random.default_rng(0).bytes(5000))
    torch.save({"something": torch.zeros(3)}, tmp_path / "foreign.pt")
    (tmp_path / "pickle.pt").write_bytes(pickle.dumps(object()))
    cases = {"missing.pt": "does not exist", "truncated.pt": "not a readable", "noise.pt": "not a readable",
             "foreign.pt": "not a gammon weights file", "pickle.pt": "not a readable"}
    for name, fragment in cases.items():
        with pytest.raises(WeightsError, match=fragment):
            load_weights(tmp_path / name)


def test_players_by_name():
    assert load_player("pubeval").name == "pubeval"
    assert load_player("heuristic").name == "heuristic"
    with pytest.raises(ValueError, match="unknown player"):
        load_player("no-such-player")


def test_strength_benchmark_prints_json(capsys):
    assert strength_main(["heuristic", "random", "--games", "40", "--seed", "3", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["games"] == 40 and report["ppg"] > 0
    low, high = report["ci95"]
    assert low <= report["ppg"] <= high
    assert {"win_rate", "gammon_rate", "backgammon_rate"} <= set(report)
