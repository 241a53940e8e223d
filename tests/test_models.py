"""Network inputs and outputs, weight files, players by name, the strength benchmark."""

import json
import pickle

import numpy as np
import pytest
import torch
from positions import all_families  # tests/ is on sys.path under pytest

from gammon.benchmarks.strength import main as strength_main
from gammon.engine.errors import GammonError
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.outcomes import cubeless_equity
from gammon.models.encoding import encoder, tesauro198, tesauro198_race
from gammon.models.network import (
    ClassNets,
    NetEvaluator,
    TDNet,
    WeightsError,
    build_model,
    load_weights,
    save_weights,
    seed_from,
    widened,
)
from gammon.models.players import load_player
from gammon.training.inputs import main as inputs_main
from gammon.training.inputs import moved_inputs


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
    only = loaded.net.nets["all"]
    assert loaded.meta["games"] == 123 and only.encoding == "tesauro198" and only.hidden == (32,)
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
    assert report["luck_adjusted_ppg"] is None
    assert strength_main(["default", "pubeval", "--games", "8", "--seed", "3", "--luck", "default", "--json"]) == 0
    low, high = json.loads(capsys.readouterr().out)["luck_adjusted_ci95"]
    assert low < high


def race_and_contact(boards):
    from gammon.engine.rules.board import is_race

    return boards[is_race(boards)][:40], boards[~is_race(boards)][:40]


def test_a_model_routes_each_board_to_its_class_net(tmp_path, boards):
    torch.manual_seed(2)
    model = build_model("contact=contact-v1,race=race-v1", (16,))
    with torch.no_grad():  # the race net says "win", the contact net "lose"
        model.nets["race"].layers[-1].bias.copy_(torch.tensor([20.0, 0, 0, 0, 0, 0]))
        model.nets["contact"].layers[-1].bias.copy_(torch.tensor([0, 0, 0, 20.0, 0, 0]))
    race, contact = race_and_contact(boards)
    evaluator = NetEvaluator(model)
    assert len(race) and len(contact)
    assert (evaluator.probabilities(race)[:, 0] > 0.99).all()
    assert (evaluator.probabilities(contact)[:, 0] < 0.01).all()
    mixed = np.concatenate([race[:5], contact[:5]])
    assert np.allclose(evaluator.probabilities(mixed)[:, 0].round(), [1] * 5 + [0] * 5)

    save_weights(tmp_path / "m.pt", model, games=7)
    loaded = load_weights(tmp_path / "m.pt")
    assert set(loaded.net.nets) == {"contact", "race"} and loaded.meta["games"] == 7
    assert np.allclose(loaded.probabilities(mixed), evaluator.probabilities(mixed))


def test_a_damaged_model_file_gets_a_clear_error(tmp_path):
    model = build_model("contact=contact-v1,race=race-v1", (8,))
    save_weights(tmp_path / "m.pt", model)
    payload = torch.load(tmp_path / "m.pt", weights_only=True)
    del payload["nets"]["race"]
    torch.save(payload, tmp_path / "no_race.pt")
    payload = torch.load(tmp_path / "m.pt", weights_only=True)
    payload["nets"]["race"]["state_dict"]["layers.0.weight"] = torch.zeros(8, 5)
    torch.save(payload, tmp_path / "wrong_shape.pt")
    payload = torch.load(tmp_path / "m.pt", weights_only=True)
    payload["nets"]["contact"]["hidden"] = [2_000_000]  # a header that would allocate gigabytes
    torch.save(payload, tmp_path / "huge.pt")
    data = (tmp_path / "m.pt").read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 3])
    for name in ("no_race.pt", "wrong_shape.pt", "huge.pt"):
        with pytest.raises(WeightsError, match="do not fit"):
            load_weights(tmp_path / name)
    with pytest.raises(WeightsError, match="not a readable"):
        load_weights(tmp_path / "cut.pt")
    with pytest.raises(ValueError, match="NAME=ENCODING"):
        build_model("contact:contact-v1", (8,))
    with pytest.raises(ValueError, match="'contact' and 'race'"):
        ClassNets({"contact": TDNet()})


def test_a_model_seeded_from_a_smaller_encoding_answers_as_its_seed(boards):
    torch.manual_seed(3)
    source = TDNet("tesauro198+race", (16,))
    model = build_model("contact=contact-v1,race=race-v1", (16,))
    assert sorted(seed_from(model, ClassNets({"all": source}))) == ["contact", "race"]
    assert np.allclose(NetEvaluator(model).probabilities(boards), NetEvaluator(source).probabilities(boards), atol=1e-6)
    assert seed_from(build_model("contact=contact-v1,race=race-v1", (8,)), ClassNets({"all": source})) == []


def test_a_version_1_file_still_loads(tmp_path, boards):
    torch.manual_seed(4)
    net = TDNet("tesauro198+race", (8,))
    torch.save({"format": "gammon-weights", "version": 1, "encoding": net.encoding, "hidden": [8],
                "state_dict": net.state_dict(), "meta": {"games": 5}}, tmp_path / "v1.pt")
    loaded = load_weights(tmp_path / "v1.pt")
    assert list(loaded.net.nets) == ["all"] and loaded.meta == {"games": 5}
    assert np.allclose(loaded.probabilities(boards[:50]), NetEvaluator(net).probabilities(boards[:50]))


def test_the_shipped_model_has_a_net_per_class():
    net = load_player("default")
    assert {"contact", "race"} <= set(net.model.nets)


def test_a_widened_net_computes_what_the_narrow_one_did():
    narrow = TDNet("tesauro198+race", (12, 8))
    boards = np.stack([starting_board(), flip(starting_board())])
    exact = widened(narrow, (20, 8), noise=0.0)
    assert exact.hidden == (20, 8)
    torch.testing.assert_close(exact.logits(boards), narrow.logits(boards), atol=1e-5, rtol=0)
    twice = widened(narrow, (30, 17), noise=0.0)  # units copied once or twice, in both layers
    torch.testing.assert_close(twice.logits(boards), narrow.logits(boards), atol=1e-5, rtol=0)
    apart = widened(narrow, (20, 8))  # the copies set apart: close, not equal
    difference = (apart.logits(boards) - narrow.logits(boards)).abs().max()
    assert 0 < difference < 1e-2
    with pytest.raises(GammonError, match="none narrower"):
        widened(narrow, (10, 8))
    with pytest.raises(GammonError, match="as many layers"):
        widened(narrow, (12,))


def test_a_net_moved_onto_wider_inputs_answers_as_before_and_refuses_other_inputs(tmp_path, boards):
    torch.manual_seed(5)
    model = build_model("contact=contact-v1,race=race-v1", (16, 8))
    save_weights(tmp_path / "m.pt", model, stages=[{"td": {}}])
    assert inputs_main([str(tmp_path / "m.pt"), str(tmp_path / "v3.pt"), "--nets", "contact=contact-v3"]) == 0
    moved = load_weights(tmp_path / "v3.pt")
    assert {name: net.encoding for name, net in moved.net.nets.items()} == {"contact": "contact-v3",
                                                                           "race": "race-v1"}
    assert moved.meta["stages"] == [{"td": {}}, {"inputs": {"contact": "contact-v3"}}]
    np.testing.assert_allclose(moved.probabilities(boards), NetEvaluator(model).probabilities(boards), atol=1e-6)
    assert not moved.net.nets["contact"].layers[0].weight[:, 232:].any()  # the new inputs' weights start at zero
    for spec, fault in (("contact=tesauro198+race", "does not extend contact's contact-v1"),
                        ("contact=contact-v1", "does not extend"), ("crashed=contact-v3", "no net 'crashed'")):
        with pytest.raises(GammonError, match=fault):
            moved_inputs(model, spec)
