"""GNU Backgammon's external-player protocol: board strings, replies, and real games against gnubg."""

import contextlib
import logging
import re
import socket
import struct
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from gammon.app.external import Bot, ExternalPlayerServer, ProtocolError, parse_fibs_board
from gammon.engine.rules.board import BoardError, starting_board, validate
from gammon.engine.rules.notation import legal_plays
from gammon.engine.rules.variants import STANDARD
from gammon.models.players import load_player

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


class Even:
    """A stand-in evaluator that finds every position even: the bot answers at once, without torch."""

    name, variant = "even", STANDARD

    def probabilities(self, boards):
        return np.tile([0.5, 0.1, 0.0, 0.1, 0.0], (len(boards), 1))

    def score_afterstates(self, boards):
        return np.zeros(len(boards))


class Broken(Even):
    """An evaluator that always fails, as a bug or an exhausted resource would."""

    def probabilities(self, boards):
        raise RuntimeError("evaluator failed\nsecond line")

    score_afterstates = probabilities


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


def test_a_three_ply_bot_plays_what_a_three_ply_hint_plays():
    from gammon.engine.rules.notation import format_move
    from gammon.engine.search.analysis import rank_moves
    from gammon.models.players import load_analyst

    analyst = load_analyst("default")
    best = rank_moves(analyst, starting_board(), (6, 3), plies=3)[0]
    assert Bot(analyst, plies=3).reply(OPENING) == format_move(starting_board(), best.steps)


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


# ---------------------------------------------------------------------------------------
# hardening (issue 10): bad boards, bad dice, server limits
# ---------------------------------------------------------------------------------------

INT64_MIN = -(2**63)


def test_an_int64_minimum_cell_is_refused_not_read_as_an_empty_point():
    # abs(int64 min) is int64 min: the old check passed it and the checkers vanished.
    board = starting_board().astype(np.int64)
    board[6] = INT64_MIN
    with pytest.raises(BoardError, match="point 6 holds 9223372036854775808 checkers"):
        validate(board)
    for cell, value in [(0, np.float64("inf")), (13, 1e30), (24, np.nan)]:
        bad = starting_board().astype(np.float64)
        bad[cell] = value
        with pytest.raises(BoardError):
            validate(bad)
    wrapped = starting_board().astype(np.int64).view(np.uint64).copy()  # -2 becomes 2**64 - 2
    with pytest.raises(BoardError, match="holds 18446744073709551614 checkers"):
        validate(wrapped)
    with pytest.raises(ProtocolError, match="field 12 is -9223372036854775808, outside the 32-bit range"):
        parse_fibs_board(with_fields(OPENING, f12=INT64_MIN))


@pytest.mark.parametrize("value", [2**31, -(2**31) - 1, 2**63, INT64_MIN, "9" * 3000, "-" + "9" * 3000],
                         ids=lambda value: str(value)[:12])
def test_out_of_range_integers_in_any_field_are_a_protocol_error(value):
    for field in ("f3", "f12", "f33", "f37", "f52"):
        with pytest.raises(ProtocolError, match=f"field {field[1:]} is .*outside the 32-bit range"):
            parse_fibs_board(with_fields(OPENING, **{field: value}))


def test_the_int64_minimum_gets_the_safe_empty_reply_not_a_move_on_a_corrupted_board(caplog):
    line = with_fields(OPENING, f12=INT64_MIN)
    with caplog.at_level(logging.WARNING, "gammon.external"):
        assert Bot(Even()).reply(line) == ""
    assert len(caplog.records) == 1 and "outside the 32-bit range" in caplog.records[0].getMessage()


@pytest.mark.parametrize("dice", [(7, 7), (0, 3), (3, 0), (-1, -1), (6, 7)])
def test_bad_dice_are_refused_and_still_get_a_reply(dice, caplog):
    line = with_fields(OPENING, f33=dice[0], f34=dice[1])
    with pytest.raises(ProtocolError, match="dice"):
        parse_fibs_board(line)
    with caplog.at_level(logging.WARNING, "gammon.external"):
        assert Bot(Even()).reply(line) == ""  # the old bot raised here, and the socket closed unanswered
    assert len(caplog.records) == 1 and "dice" in caplog.records[0].getMessage()


def test_a_failing_analysis_gets_a_legal_answer_of_the_kind_asked_and_one_log_line(caplog):
    broken = Bot(Broken())
    with caplog.at_level(logging.WARNING, "gammon.external"):
        assert broken.reply(OPENING) in {p.notation for p in legal_plays(starting_board(), (6, 3))}
        assert broken.reply(with_fields(OPENING, f33=0, f34=0)) == "roll"
        assert broken.reply(with_fields(OPENING, f32=-1, f33=0, f34=0, f40=1)) == "take"
    assert len(caplog.records) == 3 and all("\n" not in r.getMessage() and not r.exc_info for r in caplog.records)
    assert all("RuntimeError: evaluator failed; fallback answer" in r.getMessage() for r in caplog.records)


def test_a_parser_bug_still_gets_a_reply(monkeypatch, caplog):
    def crash(line):
        raise IndexError("parser bug")

    monkeypatch.setattr("gammon.app.external.parse_fibs_board", crash)
    with caplog.at_level(logging.WARNING, "gammon.external"):
        assert Bot(Even()).reply(OPENING) == ""
    assert len(caplog.records) == 1 and "IndexError: parser bug" in caplog.records[0].getMessage()


@contextlib.contextmanager
def serving(**limits):
    """An ExternalPlayerServer on a free loopback port around a quick bot; yields it."""
    server = ExternalPlayerServer(("127.0.0.1", 0), Bot(Even()), **limits)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def connect(server, timeout: float = 5.0) -> socket.socket:
    return socket.create_connection(server.server_address[:2], timeout=timeout)


def ask(conn: socket.socket, line: str) -> str:
    """Send one board line as gnubg does (newline, then NUL) and read the one reply line."""
    conn.sendall(line.encode("ascii") + b"\n\0")
    return read_reply(conn)


def read_reply(conn: socket.socket) -> str:
    """The next reply line, stripped (one byte at a time: a second reply stays unread)."""
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = conn.recv(1)
        if not chunk:
            raise ConnectionError(f"closed after {reply!r}")
        reply += chunk
    return reply.decode("ascii").strip()


def closed_by_server(conn: socket.socket) -> bool:
    """Whether the server has closed ``conn`` (within the socket's timeout)."""
    try:
        return conn.recv(1) == b""
    except ConnectionResetError:
        return True


def wait_for_log(caplog, text: str, seconds: float = 5.0) -> list[logging.LogRecord]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = [r for r in caplog.records if text in r.getMessage()]
        if found:
            return found
        time.sleep(0.02)
    raise AssertionError(f"no log line with {text!r}; got {[r.getMessage() for r in caplog.records]}")


def test_the_server_answers_bad_dice_and_keeps_the_connection(caplog):
    with serving() as server, connect(server) as conn:
        assert ask(conn, with_fields(OPENING, f33=7, f34=7)) == ""
        assert ask(conn, OPENING) in {p.notation for p in legal_plays(starting_board(), (6, 3))}


def test_a_line_over_the_limit_gets_an_empty_reply_and_the_next_line_its_answer(caplog):
    with caplog.at_level(logging.WARNING, "gammon.external"), serving(max_line=1024) as server, \
            connect(server) as conn:
        assert ask(conn, "x" * 1_000_000) == ""  # read and dropped in 1 KiB chunks, never held whole
        assert ask(conn, OPENING) in {p.notation for p in legal_plays(starting_board(), (6, 3))}
        [record] = wait_for_log(caplog, "limit 1024")
        assert "1000001 bytes" in record.getMessage()
        long_board = OPENING.replace("board:gnubg:", "board:" + "g" * 2000 + ":")  # over the limit, too
        assert ask(conn, long_board + "\n" + OPENING) == ""  # the long board's reply; then the opening's own
        assert read_reply(conn) in {p.notation for p in legal_plays(starting_board(), (6, 3))}


def test_an_idle_client_is_dropped_after_the_timeout(caplog):
    with caplog.at_level(logging.WARNING, "gammon.external"), serving(idle_timeout=0.2) as server, \
            connect(server) as conn:
        assert ask(conn, OPENING)
        start = time.monotonic()
        assert closed_by_server(conn)
        assert time.monotonic() - start < 3
        wait_for_log(caplog, "idle for 0.2 s: connection dropped")


def test_connections_over_the_cap_are_closed_at_once_and_slots_come_back(caplog):
    with caplog.at_level(logging.WARNING, "gammon.external"), serving(max_connections=2) as server:
        first, second = connect(server), connect(server)
        assert ask(first, OPENING) and ask(second, OPENING)  # both are being served
        with connect(server) as third:
            assert closed_by_server(third)
        wait_for_log(caplog, "already 2 connections open")
        first.close()
        deadline = time.monotonic() + 5
        while True:  # the first handler notices the close, then its slot is free
            with connect(server) as fourth:
                try:
                    if ask(fourth, OPENING):
                        break
                except ConnectionError:
                    assert time.monotonic() < deadline, "the slot of a closed connection never came back"
                    time.sleep(0.05)
        second.close()


def test_a_client_reset_is_one_log_line_without_a_traceback(caplog, capsys):
    with caplog.at_level(logging.INFO, "gammon.external"), serving() as server:
        conn = connect(server)
        assert ask(conn, OPENING)
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a RST
        conn.close()
        [record] = wait_for_log(caplog, "closed the connection abruptly")
        assert "ConnectionResetError" in record.getMessage() and not record.exc_info
    assert "Traceback" not in capsys.readouterr().err
    assert not any(r.exc_info for r in caplog.records)


# ---------------------------------------------------------------------------------------
# hostile lines (issue 32): fields gnubg cannot write, blank lines, a 100 KB line
# ---------------------------------------------------------------------------------------

OPENING_PLAYS = {p.notation for p in legal_plays(starting_board(), (6, 3))}

IMPOSSIBLE = {  # a board line gnubg cannot write: (line, the words of its refusal)
    "cube 3": (with_fields(OPENING, f37=3), "cube must be a power of two; got 3"),
    "cube over the limit": (with_fields(OPENING, f37=2**16), "cube must be in 1..32768; got 65536"),
    "cube 0": (with_fields(OPENING, f37=0), "cube must be in 1..32768; got 0"),
    "owned 1-cube": (with_fields(OPENING, f39=0), "a cube of 1 is centered"),
    "nobody may double": (with_fields(OPENING, f38=0, f39=0), "may-double fields 38, 39 are 0, 0"),
    "negative match length": (with_fields(OPENING, f3=-7), "match_length must be in 0..32767; got -7"),
    "100-point match": (with_fields(OPENING, f3=100), "a 100-point match: matches are 1 to 99 points long"),
    "score 9 of 7": (with_fields(OPENING, f3=7, f5=9), "score (9, 0) is above the match length 7"),
    "gnubg has won": (with_fields(OPENING, f3=7, f4=7), "score (0, 7) reaches the match length 7 in a game not over"),
    "negative score": (with_fields(OPENING, f3=7, f4=-1), "score[1] must be in 0..32767; got -1"),
    "Crawford in money": (with_fields(OPENING, f52=0), "the Crawford flag is set in money play"),
    "Crawford at 3-3": (with_fields(OPENING, f3=7, f4=3, f5=3, f52=0), "the Crawford flag is set at 3-3"),
    "turn 0": (with_fields(OPENING, f32=0), "turn field 32 is 0"),
}
HUGE = "board:" + "g" * 100_000 + OPENING[len("board:gnubg"):]  # a good board but for a 100,000-letter name


@pytest.mark.parametrize(("line", "fault"), IMPOSSIBLE.values(), ids=IMPOSSIBLE.keys())
def test_impossible_fields_are_refused_when_read_not_answered_by_a_fallback(line, fault, caplog):
    with pytest.raises(ProtocolError, match=re.escape(fault)):
        parse_fibs_board(line)
    bot = Bot(Even())
    with caplog.at_level(logging.WARNING, "gammon.external"):
        assert bot.reply(line) == ""
        assert bot.reply(OPENING) in OPENING_PLAYS
    [record] = caplog.records
    assert fault in record.getMessage() and "fallback" not in record.getMessage()


def test_the_match_states_gnubg_writes_are_still_read():
    crawford = parse_fibs_board(with_fields(OPENING, f3=7, f4=6, f5=3, f52=0))
    assert crawford.crawford and crawford.score == (3, 6) and crawford.match_length == 7
    owned = parse_fibs_board(with_fields(OPENING, f3=7, f4=2, f5=4, f37=4, f39=0))
    assert owned.cube == 4 and owned.bot_may_double and not owned.opponent_may_double
    doubled = parse_fibs_board(with_fields(OPENING, f3=5, f4=4, f5=3, f32=-1, f33=0, f34=0, f37=2, f38=0, f40=1))
    assert doubled.doubled and doubled.score == (4, 3) and not doubled.bot_may_double


def test_a_100_kb_line_is_refused(caplog):
    with pytest.raises(ProtocolError, match=f"a line of {len(HUGE)} characters: board lines are at most 4096"):
        parse_fibs_board(HUGE)
    with caplog.at_level(logging.WARNING, "gammon.external"):
        assert Bot(Even()).reply(HUGE) == ""
    [record] = caplog.records
    assert "at most 4096" in record.getMessage() and len(record.getMessage()) < 500


def test_the_server_refuses_each_bad_line_in_one_log_line_and_answers_the_next(caplog):
    # The huge line's bytes: the NUL of the line before, the line, its newline.
    lines = [*IMPOSSIBLE.values(), (HUGE, f"a line of {len(HUGE) + 2} bytes or more (limit 4096)")]
    with caplog.at_level(logging.WARNING, "gammon.external"), serving() as server, connect(server) as conn:
        for line, fault in lines:
            caplog.clear()
            assert ask(conn, line) == ""
            assert [fault in r.getMessage() for r in caplog.records] == [True]  # logged before the reply
            assert ask(conn, OPENING) in OPENING_PLAYS
        assert len(caplog.records) == 1  # the good lines logged nothing


def nothing_more_arrives(conn: socket.socket) -> bool:
    """Whether ``conn`` stays open and silent for 0.3 s: no reply comes that nothing asked for."""
    conn.settimeout(0.3)
    try:
        conn.recv(1)  # a byte, or b"" if the server closed: either is wrong
    except TimeoutError:
        return True
    return False


@pytest.mark.parametrize("blank", [b"\n", b"\0\n", b" \t\r\n"], ids=["newline", "NUL", "spaces"])
def test_a_blank_line_gets_no_reply_so_that_the_next_board_gets_its_own(blank, caplog):
    with caplog.at_level(logging.WARNING, "gammon.external"), serving() as server, connect(server) as conn:
        conn.sendall(blank)
        assert ask(conn, OPENING) in OPENING_PLAYS  # not an empty reply meant for the blank line
        assert nothing_more_arrives(conn)
    [record] = caplog.records
    assert "sent a blank line: skipped, no reply" in record.getMessage()
    caplog.clear()
    with caplog.at_level(logging.WARNING, "gammon.external"):  # a blank line handed to the bot itself
        assert Bot(Even()).reply(blank.decode()) == ""
    [record] = caplog.records
    assert "expected 'board:...', got ''" in record.getMessage()


def test_the_nul_after_gnubgs_last_line_is_no_blank_line(caplog):
    with caplog.at_level(logging.INFO, "gammon.external"), serving() as server:
        with connect(server) as conn:
            assert ask(conn, OPENING) in OPENING_PLAYS  # its NUL is read alone when the connection closes
        wait_for_log(caplog, "gnubg disconnected")
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
