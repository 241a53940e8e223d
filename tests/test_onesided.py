"""The one-sided race net: the race formula, its inputs, its targets, its place in a model, its training."""

import json

import numpy as np
import pytest
import torch

from gammon.engine.errors import GammonError
from gammon.engine.rules.board import RACE, is_race, position_class
from gammon.engine.rules.outcomes import exclusive_results
from gammon.engine.search.bearoff import (
    MAX_ROLLS,
    RaceDistributions,
    database_distributions,
    default_databases,
    position_index,
    positions,
    race_probabilities,
)
from gammon.models.network import ClassNets, NetEvaluator, WeightsError, build_model, load_weights, save_weights
from gammon.models.onesided import BINS, OneSidedRace, one_sided_inputs
from gammon.training.distill import fitted_nets
from gammon.training.onesided import OneSidedConfig, divergence, loss_masks, race_sides, targets, train_one_sided


def certain(n: int, bins: int = 10) -> np.ndarray:
    """A distribution (1, bins): exactly n rolls."""
    d = np.zeros((1, bins))
    d[0, n] = 1.0
    return d


def side(rolls: int, first: int, clear: int) -> RaceDistributions:
    return RaceDistributions(certain(rolls), certain(first), certain(clear))


def one_side(counts: dict[int, int]) -> np.ndarray:
    """(1, 24) checkers of one side from {its own point: checkers}."""
    c = np.zeros((1, 24), dtype=np.int8)
    for point, n in counts.items():
        c[0, point - 1] = n
    return c


def race_board(mine: dict[int, int], theirs: dict[int, int]) -> np.ndarray:
    """A board on roll from {point: checkers} of each side, each in its own numbering."""
    board = np.zeros(26, dtype=np.int8)
    board[1:25] = one_side(mine)[0] - one_side(theirs)[0, ::-1]
    return board


# -- the race formula ------------------------------------------------------------------------------------


def test_the_side_on_roll_wins_a_tie_in_rolls():
    none_off = np.array([True])
    assert race_probabilities(side(3, 1, 0), side(3, 1, 0), none_off, none_off)[0, 0] == 1.0
    assert race_probabilities(side(4, 1, 0), side(3, 1, 0), none_off, none_off)[0, 0] == 0.0


def test_gammons_and_backgammons_follow_the_first_checker_and_the_clearing():
    yes, no = np.array([True]), np.array([False])
    # I finish in 3; the opponent gets its first checker off on its 3rd roll, after my 3rd: a gammon,
    # and it leaves my home board on its 2nd: no backgammon.
    probs = race_probabilities(side(3, 1, 0), side(6, 3, 2), yes, yes)
    assert probs[0].tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]
    # Still in my home board after 3 rolls: a backgammon too; but not once it has a checker off.
    assert race_probabilities(side(3, 1, 0), side(8, 4, 4), yes, yes)[0].tolist() == [1.0, 1.0, 1.0, 0.0, 0.0]
    assert race_probabilities(side(3, 1, 0), side(8, 4, 4), yes, no)[0].tolist() == [1.0, 0.0, 0.0, 0.0, 0.0]
    # I need 5, it needs 2: my 2nd roll (and first checker) comes before its 2nd, so a single loss.
    assert race_probabilities(side(5, 2, 0), side(2, 1, 0), yes, yes)[0].tolist() == [0.0, 0.0, 0.0, 0.0, 0.0]
    # My first checker only on my 3rd roll, after its 2nd: I lose a gammon.
    assert race_probabilities(side(5, 3, 0), side(2, 1, 0), yes, yes)[0].tolist() == [0.0, 0.0, 0.0, 1.0, 0.0]


def test_mixed_distributions_and_the_caps():
    yes = np.array([True])
    half = RaceDistributions(np.array([[0, 0.5, 0.5, 0]]), certain(1, 4), certain(0, 4))
    probs = race_probabilities(half, side(2, 1, 0), yes, yes)
    assert probs[0, 0] == pytest.approx(1.0)  # 1 or 2 rolls against 2: I always win
    # A gammon estimate above the wins it belongs to is capped by them.
    greedy = RaceDistributions(certain(3), certain(5), certain(0))
    probs = race_probabilities(side(4, 1, 0), greedy, yes, yes)  # wins 0; "gammons" would be 1
    assert probs[0, 0] == 0 and probs[0, 1] == 0


def test_database_distributions_give_the_bearoff_probabilities():
    one = default_databases().one
    mine, theirs = np.array([[2, 2, 2, 3, 3, 3]]), np.array([[0, 0, 1, 4, 5, 5]])
    probs = race_probabilities(database_distributions(one, mine), database_distributions(one, theirs),
                               np.array([True]), np.array([True]))
    i, j = position_index(mine), position_index(theirs)
    survival = np.cumsum(one.rolls[j][:, ::-1], axis=1)[:, ::-1]
    assert probs[0, 0] == pytest.approx(float((one.rolls[i] * survival).sum()))
    assert probs[0, 2] == probs[0, 4] == 0.0


# -- inputs ---------------------------------------------------------------------------------------------


def test_one_sided_inputs_of_a_hand_made_side():
    # 2 checkers on the 20-point, 1 on the 8-point, 10 on the 1-point: 2 off, 58 pips.
    x = one_sided_inputs(one_side({20: 2, 8: 1, 1: 10}))[0]
    assert x.shape == (101,)
    assert x[0:4].tolist() == [1, 1, 1, 3.5]  # point 1: n >= 1, 2, 3 and (10 - 3) / 2
    assert x[7 * 4 : 8 * 4].tolist() == [1, 0, 0, 0]  # point 8
    assert x[19 * 4 : 20 * 4].tolist() == [1, 1, 0, 0]  # point 20
    off, pip, outside, in_their_home, to_come_home = x[96:]
    assert off == pytest.approx(2 / 15) and pip == pytest.approx(58 / 100)
    assert outside == pytest.approx(3 / 15) and in_their_home == pytest.approx(2 / 15)
    assert to_come_home == pytest.approx((2 * 14 + 2) / 50)


# -- the net's distributions and its place in a model ---------------------------------------------------------


def small_net(seed: int = 0) -> OneSidedRace:
    torch.manual_seed(seed)
    return OneSidedRace((16,)).eval()


def test_home_sides_come_from_the_database_and_cleared_sides_have_nothing_to_clear():
    net = small_net()
    counts = np.zeros((2, 24), dtype=np.int8)
    counts[0, :6] = [3, 3, 3, 2, 2, 2]
    counts[1, [0, 9]] = [12, 3]
    dists = net.distributions(counts)
    row = default_databases().one.rolls[position_index(counts[:1, :6])]
    assert np.allclose(dists.rolls[0, :MAX_ROLLS], row[0]) and not dists.rolls[0, MAX_ROLLS:].any()
    assert dists.clear[1].tolist() == [1.0] + [0.0] * (BINS - 1)
    assert dists.rolls[1].sum() == pytest.approx(1.0) and dists.rolls[1, 0] < 1.0


def test_a_model_with_a_one_sided_race_net_saves_loads_and_answers_races(tmp_path):
    model = build_model("contact=contact-v1,race=race-v1", (8,))
    model.nets["race"] = small_net(1)
    board = race_board({10: 3, 2: 12}, {9: 2, 3: 13})
    evaluator = NetEvaluator(model)
    probs = evaluator.probabilities(board[None])
    assert np.allclose(probs, model.nets["race"].probabilities(board[None]), atol=1e-6)
    save_weights(tmp_path / "m.pt", model)
    loaded = load_weights(tmp_path / "m.pt")
    assert isinstance(loaded.net.nets["race"], OneSidedRace)
    assert np.allclose(loaded.probabilities(board[None]), probs)

    payload = torch.load(tmp_path / "m.pt", weights_only=True)
    payload["nets"]["race"]["kind"] = "two-headed"
    torch.save(payload, tmp_path / "unknown.pt")
    with pytest.raises(WeightsError, match="kind 'two-headed'"):
        load_weights(tmp_path / "unknown.pt")
    with pytest.raises(GammonError, match="only the race net"):
        ClassNets({"contact": small_net(), "race": small_net()})
    with pytest.raises(GammonError, match="one-sided"):
        fitted_nets(model, "race")
    assert fitted_nets(model, "") == ["contact"]


def test_logits_are_the_log_of_the_exclusive_results():
    net = small_net(2)
    boards = np.array([race_board({13: 2, 6: 5, 4: 8}, {8: 4, 5: 11}), race_board({7: 1, 1: 14}, {17: 1, 2: 14})])
    assert is_race(boards).all()
    from_logits = torch.softmax(net.logits(boards), dim=-1).numpy()
    assert np.allclose(from_logits, exclusive_results(net.probabilities(boards)), atol=1e-6)


# -- targets and training -----------------------------------------------------------------------------------


def test_targets_of_home_sides_reproduce_the_database():
    """The database satisfies the same one-roll recurrence the targets apply: on home sides they agree."""
    one = default_databases().one
    home = positions(15)[np.random.default_rng(0).choice(np.arange(1, 54_264), 40, replace=False)]
    sides = np.zeros((40, 24), dtype=np.int8)
    sides[:, :6] = home
    y = targets(sides, small_net())
    rows = position_index(home)
    assert np.allclose(y[:, 0, :MAX_ROLLS], one.rolls[rows], atol=1e-6)
    full = home.sum(axis=1) == 15
    assert np.allclose(y[full, 1, :MAX_ROLLS], one.first[rows[full]], atol=1e-6)
    assert (y[:, 2, 0] == 1).all()


def test_race_sides_are_distinct_outside_home_and_in_pip_order():
    boards = np.array([race_board({10: 3, 2: 12}, {9: 2, 3: 13}), race_board({10: 3, 2: 12}, {4: 15}),
                       race_board({24: 1, 13: 14}, {24: 1, 13: 14})])  # the last is contact
    assert (position_class(boards[:2]) == RACE).all() and position_class(boards[2]) != RACE
    sides = race_sides(boards)
    pips = sides.astype(int) @ np.arange(1, 25)
    assert len(sides) == 2 and (np.diff(pips) >= 0).all()
    assert loss_masks(sides)[:, 1].tolist() == [True, True]


def test_a_tiny_run_fits_its_targets_better_than_its_starting_net(tmp_path):
    config = OneSidedConfig(positions=1_500, hidden="16", band=40, band_steps=30, passes=1, pass_steps=150,
                            chunk=200, holdout=0.2, threads=1, seed=3)
    base = tmp_path / "base.pt"
    save_weights(base, build_model("contact=contact-v1,race=race-v1", (8,)))
    weights = train_one_sided(base, tmp_path / "run", config, progress=False)
    log = [json.loads(line) for line in (tmp_path / "run" / "log.jsonl").read_text().splitlines()]
    assert [row["step"] for row in log] == ["positions", "bands", "pass1"]
    trained = load_weights(weights).net.nets["race"]
    sides = np.load(tmp_path / "run" / "sides.npy")
    x = torch.from_numpy(one_sided_inputs(sides))
    y = torch.from_numpy(targets(sides, trained))
    mask = torch.from_numpy(loss_masks(sides))
    with torch.no_grad():
        after = divergence(trained, x, y, mask).item()
        before = divergence(OneSidedRace((16,)), x, y, mask).item()
    assert after < 0.5 * before
    assert train_one_sided(base, tmp_path / "run", config, progress=False) == weights  # done: not run again


# -- the shipped race net against GNU Backgammon ----------------------------------------------------------


def test_the_compiled_combination_of_two_sides_answers_as_race_probabilities(monkeypatch):
    """models/_native.c's race_rows against the numpy formula it mirrors, on the races of random play (gammons,
    backgammons, some checkers off) and hand-made ones at the formula's edges (a tie in rolls, a capped gammon)."""
    import gammon.models.inference as inference
    from gammon.models.players import load_player

    if inference.native_race_rows is None:
        pytest.skip("the compiled kernels were not built")
    try:  # tests/ is on sys.path under pytest's default import mode
        import positions as random_positions
    except ImportError:  # pragma: no cover
        from tests import positions as random_positions

    boards, _ = random_positions.random_play("standard", games=32, seed=8)
    hand_made = [race_board({1: 15}, {1: 15}), race_board({6: 1}, {19: 15}), race_board({24: 2, 1: 13}, {22: 1}),
                 race_board({12: 15}, {1: 2}), race_board({2: 3}, {2: 3})]
    races = np.concatenate([boards[position_class(boards) == RACE], hand_made])
    races = np.concatenate([races, races[::-1]])  # sides repeated, as a search's batches repeat them
    net = load_player("default").model.nets["race"]
    compiled, race_rows = net.probabilities(races), inference.native_race_rows
    monkeypatch.setattr(inference, "native_race_rows", None)
    np.testing.assert_allclose(compiled, net.probabilities(races), rtol=0, atol=1e-12)
    assert compiled[:, 4].any() and compiled[:, 3].any() and compiled[:, 2].any()
    for bins, rows in [(4, [0, 2]), (2**61 + 2, [0, 0]), (2**62, [0, 0])]:  # a row past the table; bins past it
        with pytest.raises(ValueError, match="rows of it"):
            race_rows(np.zeros((2, 3, 4)), bins, np.array(rows), np.array([0, 1]), np.ones(2, bool), np.ones(2, bool),
                      np.empty((2, 5)))


def test_the_shipped_race_net_agrees_with_gnubg_on_races_outside_the_databases():
    """gnubg-nn's 0-ply as the oracle, on the races of random play neither side has borne in yet.

    The shipped one-sided net agrees within about 0.008 points of cubeless equity on average
    (the two-sided race net it replaced: 0.027, with one in twenty positions off by 0.1).
    """
    gnubg_nn = pytest.importorskip("gnubg_nn")
    from gammon.engine.rules.outcomes import cubeless_equity
    from gammon.engine.search.bearoff import bearoff_probabilities
    from gammon.models.gnubg import to_gnubg
    from gammon.models.players import load_analyst

    try:  # tests/ is on sys.path under pytest's default import mode
        import positions as random_positions
    except ImportError:  # pragma: no cover
        from tests import positions as random_positions

    boards, _ = random_positions.random_play("standard", games=64, seed=5)
    races = boards[position_class(boards) == RACE]
    races = races[~bearoff_probabilities(races)[1]]
    assert len(races) > 500
    ours = cubeless_equity(load_analyst("default").probabilities(races))
    theirs = cubeless_equity(np.array([gnubg_nn.probabilities(b, 0) for b in to_gnubg(races).tolist()]))
    gap = np.abs(ours - theirs)
    assert gap.mean() < 0.015 and np.percentile(gap, 95) < 0.06
