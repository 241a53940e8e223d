"""GNU Backgammon's external-player protocol: board strings, replies, and real games against gnubg."""

import re
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest

from app.external import Bot, ExternalPlayerServer, ProtocolError, parse_fibs_board
from engine.board import starting_board
from engine.notation import legal_plays
from models.players import load_player

# Verified against gnubg (docs/gnubg.md, "Board line fields"): the bot (player 1) to move 6-3 in the opening position.
OPENING = ("board:gnubg:bot:0:0:0:0:-2:0:0:0:0:5:0:3:0:0:0:-5:5:0:0:0:-3:0:-5:0:0:0:0:2:0:1:6:3:6:3:1:1:1:0:1:-1:0:25"
           ":0:0:0:0:0:0:0:1")
GNUBG = Path("/usr/games/gnubg")


def with_fields(line: str, **changes: int) -> str:
    """``line`` with some fields (numbered from 1 after 'board:', as in docs/gnubg.md) replaced."""
    fields = line[len("board:"):].split(":")
    for number, value in changes.items():
        fields[int(number[1:]) - 1] = str(value)
    return "board:" + ":".join(fields)


@pytest.fixture(scope="module")
def bot():
    return Bot(load_player("default"))


def test_the_board_string_is_our_layout_with_the_bot_as_mover():
    fibs = parse_fibs_board(OPENING + "\0")
    assert np.array_equal(fibs.board, starting_board())
    assert fibs.dice == (6, 3) and fibs.bot_on_turn and not fibs.doubled and not fibs.crawford
    assert fibs.cube == 1 and fibs.bot_may_double and fibs.opponent_may_double


def test_replies_are_legal_moves_or_cube_words(bot):
    move = bot.reply(OPENING)
    assert move in {p.notation for p in legal_plays(starting_board(), (6, 3))}
    assert bot.reply(with_fields(OPENING, f33=0, f34=0, f35=0, f36=0)) in {"roll", "double"}
    doubled = with_fields(OPENING, f32=-1, f33=0, f34=0, f40=1)
    assert bot.reply(doubled) in {"take", "drop"}


def test_malformed_board_strings_get_a_safe_empty_reply(bot):
    for line in ["hello", "board:1:2:3", OPENING.replace(":5:", ":x:", 1), with_fields(OPENING, f12=16)]:
        assert bot.reply(line) == ""
    with pytest.raises(ProtocolError, match="52 fields"):
        parse_fibs_board("board:a:b:0")
    with pytest.raises(ProtocolError, match="impossible position"):
        parse_fibs_board(with_fields(OPENING, f12=16))


@pytest.mark.skipif(not GNUBG.exists(), reason="the Debian gnubg package is not installed")
def test_gnubg_plays_full_games_and_a_match_against_gammon_serve(tmp_path, bot):
    replies = []
    server = ExternalPlayerServer(("127.0.0.1", 0), bot, on_reply=lambda line, answer: replies.append((line, answer)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    games = ["new session", f"save match {tmp_path}/money1.sgf", "new session", f"save match {tmp_path}/money2.sgf",
             "new session", f"save match {tmp_path}/money3.sgf",
             "set automatic game on", "new match 3", f"save match {tmp_path}/match.sgf"]
    commands = [
        "set rng mersenne", "set seed 7", "set display off", "set jacoby off", "set beavers 0",
        "set player 0 gnubg", "set player 0 chequerplay evaluation plies 0",
        "set player 0 cubedecision evaluation plies 0",
        "set defaultnames gnubg bot", f"set player 1 external 127.0.0.1:{port}", "set player 1 name bot",
        "set automatic game off", *games, "quit",
    ]
    try:
        out = subprocess.run([str(GNUBG), "-t", "-q", "-r"], input="\n".join(commands) + "\n", capture_output=True,
                             text=True, timeout=600).stdout
    finally:
        server.shutdown()
        server.server_close()
    assert len(re.findall(r"wins a (?:single game|gammon|backgammon)", out)) >= 4, out[-2000:]
    assert "has won the match" in out, out[-2000:]
    records = "".join(path.read_text() for path in tmp_path.glob("*.sgf"))
    # gnubg silently turns an illegal move into "no move": every empty move it recorded for
    # the bot must be one of our own empty replies (no legal move existed).
    empty_recorded = len(re.findall(r";B\[[1-6]{2}\]", records))
    empty_ours = sum(1 for line, answer in replies if answer == "" and parse_fibs_board(line).dice[0])
    assert empty_recorded == empty_ours
    assert all(answer != "" or parse_fibs_board(line).dice[0] for line, answer in replies)  # no unanswerable boards
    assert re.search(r";[BW]\[(double|take|drop)\]", records), "the cube was never used"
