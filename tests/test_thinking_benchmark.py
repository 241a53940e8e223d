"""benchmarks/thinking.py's hint timing: each engine's fastest turn kept, a 3-ply also set beside a peer's 2-ply."""

import pytest

from gammon.benchmarks.thinking import hint_latency, read_positions
from gammon.models.players import load_analyst


class CountingPeer:
    """A stand-in for gnubg-nn: notes the depth of every hint it is asked for."""

    def __init__(self):
        self.depths = []

    def best_move(self, board, d1, d2, plies):
        self.depths.append(plies)
        return ()


@pytest.mark.parametrize("plies", [1, 3])
def test_each_position_is_timed_in_turns_and_a_3_ply_beside_the_peer_s_2_ply(plies):
    peer = CountingPeer()
    row = hint_latency(load_analyst("default"), read_positions(2)[:1] if plies == 3 else read_positions(2), plies,
                       peer, repeat=2)
    positions = row["positions"]
    # two turns a position, each the same depth, and at 3-ply the peer's 2-ply in the same turn
    assert peer.depths == ([plies, 2] if plies == 3 else [plies]) * 2 * positions
    assert row["repeat"] == 2 and row["ours_median_ms"] > 0 and row["gnubg_median_ms"] >= 0
    assert ("ratio_to_gnubg_2ply_median" in row) == (plies == 3)
