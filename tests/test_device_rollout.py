"""Rollouts on the device (training/device_rollout.py) against engine.play.rollout and engine.search.bearoff,
on CPU torch.

The bear-off evaluation against numpy's on small databases, the analyst (a net with the
databases) against WithBearoff(NetEvaluator), a rollout truncated after the first move
(no dice drawn: stratified first rolls only) equal to the host's, a full one agreeing
with the host's within its error, and a certain gammon exactly.
"""

from __future__ import annotations

import functools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from gammon.engine.errors import GammonError
from gammon.engine.play import rollout as host
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.movegen import generate
from gammon.engine.rules.variants import variant_named
from gammon.engine.search.bearoff import Databases, WithBearoff, build_one_sided, build_two_sided, positions
from gammon.engine.search.bearoff import bearoff_probabilities as numpy_bearoff
from gammon.engine.search.evaluator import afterstate_equity
from gammon.models.network import NetEvaluator, build_model
from gammon.training.device_rollout import BearoffTables, DeviceAnalyst, bearoff_probabilities, rollout

try:  # tests/ is on sys.path under pytest's default import mode
    import positions as test_positions
except ImportError:  # pragma: no cover
    from tests import positions as test_positions

SEED = 4_417_023
CPU = torch.device("cpu")


pytestmark = pytest.mark.usefixtures("one_torch_thread")


@functools.cache
def databases() -> Databases:
    """Small databases, built in about a second: one-sided up to 6 checkers, two-sided up to 4."""
    return Databases(build_one_sided(6), build_two_sided(4))


@functools.cache
def evaluator() -> WithBearoff:
    torch.manual_seed(2)
    return WithBearoff(NetEvaluator(build_model("contact=contact-v1,race=race-v1", (16,))), databases())


def bearoff_board(mine, theirs) -> np.ndarray:
    """My counts on points 1..6 and the opponent's on its own points 1..6, me on roll."""
    board = np.zeros(26, dtype=np.int8)
    board[1:7] = mine
    board[24:18:-1] = -np.asarray(theirs)
    return board


def bearoffs(n: int) -> np.ndarray:
    """Random pairs of home boards of up to 6 checkers a side (every pair applies), seeded."""
    counts = positions(6)[1:]
    rng = np.random.default_rng(SEED)
    return np.array([bearoff_board(counts[i], counts[j]) for i, j in rng.integers(0, len(counts), (n, 2))])


def mixed_boards() -> np.ndarray:
    """Random play (contact, races, bear-offs of 15 checkers) and small bear-offs, some with all 6 still on."""
    play, _ = test_positions.random_play("standard", games=6, seed=SEED)
    return np.concatenate([play, bearoffs(1500)])


@pytest.mark.parametrize("checkers", [6, 15])
def test_bearoff_probabilities_are_numpys(checkers):
    boards = mixed_boards()
    tables = BearoffTables.of(databases(), CPU)
    ours, applies = bearoff_probabilities(torch.from_numpy(boards), checkers, tables)
    theirs, their_applies = numpy_bearoff(boards, checkers, databases())
    assert np.array_equal(applies.numpy(), their_applies) and 0 < applies.sum() < len(boards)
    assert np.allclose(ours.numpy(), theirs, atol=1e-12)
    assert (theirs[:, 1] > 0).any() == (checkers == 6) and (theirs[:, 3] > 0).any() == (checkers == 6)


def test_the_analyst_evaluates_as_with_bearoff_and_a_net_does():
    boards = mixed_boards()
    analyst = DeviceAnalyst.of(evaluator(), CPU)
    ours = analyst.probabilities(torch.from_numpy(boards)).numpy()
    assert np.allclose(ours, evaluator().probabilities(boards), atol=1e-6)
    play, dice = test_positions.random_play("standard", games=6, seed=SEED)
    after = generate(play, dice).boards
    finishing = np.concatenate([after, flip(bearoffs(200))])  # some afterstates where the mover is off
    equity = analyst.afterstate_equity(torch.from_numpy(finishing)).numpy()
    assert np.allclose(equity, afterstate_equity(evaluator(), finishing), atol=1e-5)


@pytest.mark.parametrize("board", [starting_board(), bearoff_board([2, 2, 1, 0, 1, 0], [1, 1, 2, 0, 0, 2])])
def test_a_rollout_truncated_after_one_turn_is_the_hosts(board):
    """No dice are drawn: each game plays its stratified first roll, then the evaluator scores it."""
    analyst = DeviceAnalyst.of(evaluator(), CPU)
    ours = rollout(analyst, board, games=72, seed=1, truncate=1, chunk=50)
    theirs = host.rollout(evaluator(), board, games=72, seed=1, truncate=1)
    assert np.allclose(ours.probs, theirs.probs, atol=1e-6) and ours.truncated == theirs.truncated
    assert abs(ours.equity - theirs.equity) < 1e-6 and abs(ours.std_error - theirs.std_error) < 1e-6


def test_a_full_rollout_agrees_with_the_hosts_and_a_seed_repeats_it():
    board = bearoff_board([3, 3, 2, 2, 2, 3], [2, 3, 3, 3, 2, 2])  # 15 a side: the net plays until 6 are left
    analyst = DeviceAnalyst.of(evaluator(), CPU)
    ours = rollout(analyst, board, games=1296, seed=3)
    theirs = host.rollout(evaluator(), board, games=1296, seed=3)
    assert ours.truncated == 0 and 0 < ours.probs[0] < 1
    assert abs(ours.equity - theirs.equity) < 4 * np.hypot(ours.std_error, theirs.std_error), (ours, theirs)
    again = rollout(analyst, board, games=1296, seed=3)
    other = rollout(analyst, board, games=1296, seed=4)
    assert again.equity == ours.equity and np.array_equal(again.probs, ours.probs) and other.equity != ours.equity


def test_a_certain_gammon_rolls_out_to_exactly_two_points():
    board = np.zeros(26, dtype=np.int8)
    board[1] = 1  # our last checker on the 1-point: any roll bears it off
    board[19:25] = [-3, -3, -3, -2, -2, -2]  # opponent all home, nothing borne off
    result = rollout(DeviceAnalyst.of(evaluator(), CPU), board, games=72, seed=1)
    assert result.equity == 2.0 and result.std_error == 0.0
    assert result.probs.tolist() == [1.0, 1.0, 0.0, 0.0, 0.0]


def test_what_the_device_cannot_roll_out_is_refused_in_one_line():
    analyst = DeviceAnalyst.of(evaluator(), CPU)
    with pytest.raises(GammonError, match="at least 2 games; got 1"):
        rollout(analyst, starting_board(), games=1)
    with pytest.raises(GammonError, match="at least 1 turn; got 0"):
        rollout(analyst, starting_board(), games=36, truncate=0)
    with pytest.raises(GammonError, match="roll fevga out on the host"):
        DeviceAnalyst(evaluator().evaluator.net, variant_named("fevga"), None, CPU)

    class Heuristic:
        name = "heuristic"

    with pytest.raises(GammonError, match="heuristic rolls out on the host"):
        DeviceAnalyst.of(Heuristic(), CPU)
