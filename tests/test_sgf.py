"""GNU Backgammon's .sgf match files: real gnubg files read move for move, our logs written and read back.

The fixtures in tests/data/sgf were written by GNU Backgammon 1.07 (docs/sgf-format.md,
"Fixtures", says how): match5.sgf (a 5-point match of gnubg against itself, with its
analysis properties removed), game3-analysed.sgf (game 3 of that match as gnubg's
``save game`` writes it, analysis and all), money.sgf (a money session of gnubg against
itself, Jacoby rule, analysis removed) and beavers.sgf (a money session played through
gnubg's commands: a beaver, an accepted resignation, a drop, an unfinished last game) and
rolled.sgf (a 3-point match saved after a roll, before the move).
"""

import dataclasses
import re
import subprocess
from pathlib import Path

import numpy as np
import pytest
from test_external import Even  # tests/ is on sys.path under pytest

from gammon.engine.play.game import Rules, play
from gammon.engine.play.players import EvaluatorPlayer
from gammon.engine.records.matchlog import Action, GameLog, MatchFileError, MatchLog, Recorder
from gammon.engine.records.sgf import load_sgf, read_sgf, save_sgf, write_sgf
from gammon.engine.rules.board import flip, starting_board
from gammon.engine.rules.notation import legal_plays
from gammon.engine.rules.outcomes import result_points

DATA = Path(__file__).parent / "data" / "sgf"
FIXTURES = sorted(DATA.glob("*.sgf"))
GNUBG = Path("/usr/games/gnubg")


def without_lines(log: MatchLog) -> MatchLog:
    """``log`` with the places it was read from cleared, to compare what it says."""
    games = [dataclasses.replace(g, line=0, actions=[dataclasses.replace(a, line=0) for a in g.actions])
             for g in log.games]
    return dataclasses.replace(log, games=games, file="")


def kinds(game: GameLog) -> list[tuple]:
    """The cube actions and resignations of ``game``: (kind, player, value)."""
    return [(a.kind, a.player, a.value) for a in game.actions if a.kind != "move"]


# ---------------------------------------------------------------- a random match of ours


def random_game(rng, number, score, crawford=False, double_at=None, beaver=False, decline_at=None,
                resign_at=None, comment_at=None, stop_at=None) -> GameLog:
    """One game of random legal moves; at the turns given the mover doubles (the opponent takes or beavers),
    offers a gammon that is declined, resigns a single that is accepted, or comments; ``stop_at`` leaves it
    unfinished."""
    game = GameLog(number, score, crawford=crawford)
    board, mover, cube = starting_board(), int(rng.integers(2)), 1
    for turn in range(1000):
        if turn == stop_at:
            return game
        if turn == double_at and not crawford:
            game.actions.append(Action(mover, "double", value=2 * cube))
            if beaver:
                game.actions += [Action(1 - mover, "beaver", value=4 * cube), Action(mover, "take", value=4 * cube)]
                cube *= 4
            else:
                game.actions.append(Action(1 - mover, "take", value=2 * cube))
                cube *= 2
        if turn == decline_at:
            game.actions += [Action(mover, "resign", value=2), Action(1 - mover, "reject")]
        if turn == resign_at:
            game.actions += [Action(mover, "resign", value=1), Action(1 - mover, "accept")]
            game.winner, game.points = 1 - mover, cube
            return game
        dice = tuple(int(d) for d in rng.integers(1, 7, size=2))
        while turn == 0 and dice[0] == dice[1]:  # the opening roll is never a double
            dice = tuple(int(d) for d in rng.integers(1, 7, size=2))
        plays = legal_plays(board, dice)
        play = plays[int(rng.integers(len(plays)))]
        game.actions.append(Action(mover, "move", dice, play.notation,
                                   comment=f"turn {turn}: [sic] \\ ok" if turn == comment_at else ""))
        won = int(result_points(play.board[None], 15)[0])
        if won:
            game.winner, game.points = mover, won * cube
            return game
        board, mover = flip(play.board), 1 - mover
    raise AssertionError("a random game did not end")


def random_match(seed=3, length=7) -> MatchLog:
    """A match of random games to ``length``: a double taken in each game but the Crawford game, a declined
    resignation and a comment in the first, an accepted resignation in the second."""
    rng = np.random.default_rng(seed)
    log = MatchLog(("Anna ]Smith", "Björn"), length, event="club night", date="2024-05-01", place="Oslo",
                   comment="a test match")
    score, crawford_done = [0, 0], False
    while max(score) < length:
        crawford = not crawford_done and max(score) == length - 1
        crawford_done |= crawford
        number = len(log.games) + 1
        game = random_game(rng, number, tuple(score), crawford, double_at=5,
                           decline_at=8 if number == 1 else None, resign_at=12 if number == 2 else None,
                           comment_at=3 if number == 1 else None)
        log.games.append(game)
        score[game.winner] += game.points
    return log


def random_session(seed=5) -> MatchLog:
    """A money session with beavers: a beaver in the first game, the second left unfinished."""
    rng = np.random.default_rng(seed)
    log = MatchLog(("alice", "bob"), 0, jacoby=True, beavers=True)
    first = random_game(rng, 1, (0, 0), double_at=4, beaver=True, comment_at=1)
    score = [0, 0]
    score[first.winner] += first.points
    log.games = [first, random_game(rng, 2, tuple(score), stop_at=9)]
    return log


# ---------------------------------------------------------------- reading gnubg's files


def test_a_gnubg_match_is_read_with_every_move_and_cube_action():
    log = load_sgf(DATA / "match5.sgf")
    assert log.players == ("gnubg", "root") and log.length == 5 and log.crawford
    assert log.date == "2026-11-30" and log.file == str(DATA / "match5.sgf")
    assert [len(g.actions) for g in log.games] == [26, 45, 12, 34, 42, 47]
    assert [g.score for g in log.games] == [(0, 0), (0, 1), (0, 3), (1, 3), (1, 4), (2, 4)]
    assert [(g.winner, g.points) for g in log.games] == [(1, 1), (1, 2), (0, 1), (1, 1), (0, 1), (1, 6)]
    first = log.games[0]
    assert first.actions[0] == Action(1, "move", (2, 1), "24/23 13/11", line=2)  # B[21lnab]
    assert first.actions[1] == Action(0, "move", (5, 2), "24/22 13/8", line=3)  # W[52mhxv]
    assert first.actions[21] == Action(0, "move", (6, 6), "", line=23)  # W[66]: no legal move
    assert first.actions[23] == Action(0, "move", (5, 4), "bar/21", line=25)  # W[54yu]
    assert kinds(first) == [("double", 1, 2), ("drop", 0, 0)]
    assert [a.line for a in first.actions[-2:]] == [26, 27]
    assert kinds(log.games[1])[:2] == [("double", 1, 2), ("take", 0, 2)]


def test_the_crawford_game_is_the_one_gnubg_marks():
    log = load_sgf(DATA / "match5.sgf")
    assert [g.crawford for g in log.games] == [False, False, False, False, True, False]
    assert log.games[4].score == (1, 4)
    assert not any(a.kind == "double" for a in log.games[4].actions)


def test_a_resignation_is_read_from_the_r_after_the_result():
    games = load_sgf(DATA / "match5.sgf").games
    # RE[B+2R] with the cube at 2: W resigned a single game; RE[B+6R], cube 2: a backgammon.
    assert kinds(games[1])[2:] == [("resign", 0, 1), ("accept", 1, 0)]
    assert kinds(games[5])[2:] == [("resign", 0, 3), ("accept", 1, 0)]
    assert games[5].actions[-1].line == games[5].line == 161  # the result is in the game's first node


def test_the_analysis_gnubg_stores_is_skipped():
    analysed = load_sgf(DATA / "game3-analysed.sgf")
    plain = load_sgf(DATA / "match5.sgf").games[2]
    (game,) = without_lines(analysed).games
    assert (game.number, game.score, analysed.length) == (3, (0, 3), 5)
    assert game == without_lines(MatchLog(games=[plain])).games[0]


def test_a_money_session_is_read_with_the_jacoby_rule():
    log = load_sgf(DATA / "money.sgf")
    assert log.length == 0 and log.jacoby and not log.beavers
    assert [g.score for g in log.games] == [(0, 0), (0, 2), (1, 2)]
    assert [len(g.actions) for g in log.games] == [50, 22, 10]
    assert kinds(log.games[0]) == [("double", 1, 2), ("take", 0, 2), ("resign", 0, 1), ("accept", 1, 0)]
    assert kinds(log.games[2]) == [("double", 1, 2), ("drop", 0, 0)]


def test_a_beaver_is_a_double_that_answers_a_double():
    log = load_sgf(DATA / "beavers.sgf")
    assert log.players == ("alice", "bob") and log.beavers
    first = log.games[0]
    assert kinds(first) == [("double", 0, 2), ("beaver", 1, 4), ("take", 0, 4), ("resign", 1, 1), ("accept", 0, 0)]
    assert (first.winner, first.points) == (0, 4)  # RE[W+4R]: a single at a cube of 4
    assert first.actions[3] == Action(1, "move", (6, 6), "24/18 13/7(3)", line=5)


def test_an_unfinished_last_game_has_no_winner():
    last = load_sgf(DATA / "beavers.sgf").games[-1]
    assert last.winner is None and last.points == 0 and len(last.actions) == 4 and last.score == (4, 1)


def test_a_roll_saved_before_its_move_is_not_read_as_a_move():
    (game,) = load_sgf(DATA / "rolled.sgf").games  # ends ;PL[B]DI[54] ;B[54]; B has legal moves with 5-4
    assert game.winner is None
    assert [(a.player, a.dice, a.move) for a in game.actions] == [
        (0, (4, 2), "8/4 6/4"), (1, (6, 6), "24/18(2) 13/7(2)"), (0, (5, 4), "24/20 13/8")]


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.name)
def test_every_fixture_survives_writing_and_reading_again(path):
    log = load_sgf(path)
    assert without_lines(read_sgf(write_sgf(log))) == without_lines(log)


# ---------------------------------------------------------------- writing ours


def test_our_match_survives_writing_and_reading_again():
    log = random_match()
    assert any(g.crawford for g in log.games) and len(log.games) >= 3
    text = write_sgf(log)
    assert ";RD[" in text and "C[turn 3: [sic\\] \\\\ ok]" in text
    assert without_lines(read_sgf(text)) == log


def test_our_money_session_with_a_beaver_survives_writing_and_reading_again():
    log = random_session()
    text = write_sgf(log)
    assert "RU[Jacoby:Beavers]" in text and "RE[" not in text.split("\n(")[1]
    assert without_lines(read_sgf(text)) == log


def test_the_header_and_moves_are_written_as_gnubg_writes_them():
    log = MatchLog(("gnubg", "root"), 5, games=[GameLog(1, actions=[Action(1, "move", (2, 1), "13/11 24/23"),
                                                                     Action(0, "move", (5, 2), "13/8 24/22")])])
    text = write_sgf(log)
    assert text.startswith("(;FF[4]GM[6]CA[UTF-8]AP[gammon]MI[length:5][game:0][ws:0][bs:0]PW[gnubg]PB[root]"
                           "RU[Crawford]\n")
    nodes = re.findall(r";([WB])\[(\d\d)((?:\w\w)+)\]", text)
    assert [(c, d, sorted(re.findall("..", s))) for c, d, s in nodes] == [("B", "21", ["ab", "ln"]),
                                                                        ("W", "52", ["mh", "xv"])]
    assert text.endswith(")\n")


@pytest.mark.parametrize("variant, rule", [("nackgammon", "Nackgammon"), ("hypergammon", "Hypergammon3")])
def test_a_variant_is_named_in_the_rules(variant, rule):
    board = starting_board(variant)
    first = legal_plays(board, (3, 1))[0]
    second = legal_plays(flip(first.board), (6, 5))[0]
    log = MatchLog(("a", "b"), 3, variant=variant, games=[GameLog(1, actions=[
        Action(0, "move", (3, 1), first.notation), Action(1, "move", (6, 5), second.notation)])])
    text = write_sgf(log)
    assert f"RU[Crawford:{rule}]" in text
    assert without_lines(read_sgf(text)) == log


def test_an_empty_log_is_not_written():
    with pytest.raises(MatchFileError, match="at least one game"):
        write_sgf(MatchLog())


def test_a_beaver_the_doubler_plays_on_is_written_with_gnubgs_take():
    log = random_session()
    actions = log.games[0].actions
    take = next(i for i, a in enumerate(actions) if a.kind == "take")
    del actions[take]
    assert kinds(read_sgf(write_sgf(log)).games[0])[:3] == [("double", actions[take - 2].player, 2),
                                                            ("beaver", 1 - actions[take - 2].player, 4),
                                                            ("take", actions[take - 2].player, 4)]


def test_a_declined_resignation_is_kept_in_a_node_gnubg_ignores():
    text = write_sgf(random_match())
    node = re.search(r"\n;RD\[([WB]):gammon\]\n", text)
    line = text.count("\n", 0, node.start()) + 2
    resigner = "WB".index(node.group(1))
    declined = [a for a in read_sgf(text).games[0].actions if a.line == line]
    assert declined == [Action(resigner, "resign", value=2, line=line), Action(1 - resigner, "reject", line=line)]


def _illegal_move(game):
    game.actions[1].move = "24/1"


def _no_dice(game):
    game.actions[1].dice = None


def _unanswered_resignation(game):
    game.actions.insert(3, Action(game.actions[3].player, "resign", value=1))


def _early_double(game):
    game.actions.insert(0, Action(0, "double", value=2))


def _no_end(game):
    del game.actions[-2:]  # the accepted resignation taken away: nothing ends the game


@pytest.mark.parametrize("change, reason", [
    (_early_double, "no double before the opening roll"),
    (_illegal_move, "not legal"),
    (_no_dice, "has no dice"),
    (_unanswered_resignation, "needs an accept or reject"),
    (_no_end, "the play does not end the game"),
])
def test_a_log_that_breaks_the_rules_is_not_written(change, reason):
    log = random_match()
    change(log.games[1])
    with pytest.raises(MatchFileError, match=reason) as caught:
        write_sgf(log)
    assert caught.value.game == 2


def test_an_unfinished_game_before_the_last_is_not_written():
    log = random_match()
    log.games[0].winner = None
    with pytest.raises(MatchFileError, match="no result, yet another game follows"):
        write_sgf(log)


def test_save_writes_the_file_whole_and_load_reads_it(tmp_path):
    log = random_session()
    path = tmp_path / "session.sgf"
    save_sgf(log, path)
    assert [p.name for p in tmp_path.iterdir()] == ["session.sgf"]
    assert without_lines(load_sgf(path)) == log and load_sgf(path).file == str(path)
    save_sgf(log, tmp_path / "new" / "x.sgf")  # a missing folder is made, as for every file we write
    assert without_lines(load_sgf(tmp_path / "new" / "x.sgf")) == log
    with pytest.raises(MatchFileError, match="cannot read"):
        load_sgf(tmp_path / "nothing.sgf")


def test_a_file_without_a_character_set_is_read_as_latin_1(tmp_path):
    text = (DATA / "money.sgf").read_text().replace("CA[UTF-8]", "").replace("PW[gnubg]", "PW[Jos\u00e9]")
    path = tmp_path / "latin.sgf"
    path.write_bytes(text.encode("latin-1"))
    assert load_sgf(path).players[0] == "Jos\u00e9"


# ---------------------------------------------------------------- malformed files


MATCH = (DATA / "match5.sgf").read_text()


def in_game(number: int, old: str, new: str) -> str:
    """match5.sgf with ``old`` replaced by ``new`` once, in game ``number`` only."""
    games = MATCH.split("\n(;")
    assert old in games[number - 1]
    games[number - 1] = games[number - 1].replace(old, new, 1)
    return "\n(;".join(games)


MALFORMED = [  # (text, reason, game, line)
    (MATCH[:MATCH.index(";W[52faca]") + 5], "never closed with ']'", 1, 13),
    (MATCH[:MATCH.index(")\n(;")], "')' is missing", 1, 1),
    (in_game(1, ";W[52mhxv]", ";W[52mhxw]"), "not legal with 5-2", 1, 3),
    (in_game(1, ";W[52mhxv]", ";W[5mhxv]"), "cannot read move W[5mhxv]", 1, 3),
    (in_game(1, ";W[52mhxv]", ";W[52zh]"), "cannot read step zh", 1, 3),
    (in_game(1, ";W[52mhxv]", ";W[take]"), "no double is offered", 1, 3),
    (in_game(1, ";W[drop]", ";W[drop]\n;W[43mjjf]"), "a move after the game ended", 1, 28),
    (in_game(1, ";W[drop]", ";W[54mhxv]"), "is not answered", 1, 27),
    (in_game(3, "MI[length:5]", "MI[length:five]"), "MI length needs a whole number", 3, 72),
    (in_game(3, "RE[W+1]", "RE[W+one]"), "cannot read result RE[W+one]", 3, 72),
    (in_game(3, "RE[W+1]", "RE[B+1]"), "the result says root (B) wins, but gnubg (W) won", 3, 72),
    (in_game(1, "RE[B+1]", ""), "has won, but the game has no result", 1, 1),
    (in_game(2, "RE[B+2R]", ""), "no result (RE), yet another game follows", 2, 28),
    (in_game(2, "GM[6]", "GM[1]"), "not a backgammon game", 2, 28),
    (in_game(4, "MI[length:5]", "MI[length:7]"), "a match to 7", 4, 85),
    (in_game(1, ";B[21lnab]", ";B[21lnab]CA[x]CA[y]"), "CA appears twice", 1, 2),
    (MATCH + "junk", "expected '(' to open a game, found 'j'", 6, 207),
]


@pytest.mark.parametrize("text, reason, game, line", [pytest.param(*case, id=case[1]) for case in MALFORMED])
def test_a_malformed_file_names_the_file_game_and_line(text, reason, game, line):
    with pytest.raises(MatchFileError) as caught:
        read_sgf(text, "broken.sgf")
    error = caught.value
    assert reason in error.reason
    assert (error.file, error.game, error.line) == ("broken.sgf", game, line)
    assert str(error).startswith(f"broken.sgf, game {game}, line {line}: ")


def test_an_empty_file_has_no_game():
    with pytest.raises(MatchFileError, match="no game in the file"):
        read_sgf("  \n", "empty.sgf")


def test_a_game_without_a_result_may_only_come_last():
    text = (DATA / "beavers.sgf").read_text()
    last = text.rindex("\n(;")
    with pytest.raises(MatchFileError, match="no result .RE., yet another game follows") as caught:
        read_sgf(text + text[last + 1:], "twice.sgf")
    assert caught.value.game == 3


# ---------------------------------------------------------------- against GNU Backgammon itself


@pytest.mark.skipif(not GNUBG.exists(), reason="GNU Backgammon is not installed at /usr/games/gnubg")
@pytest.mark.parametrize("make", [random_match, random_session], ids=["match", "money session"])
def test_gnubg_loads_what_we_write_and_saves_every_move_again(make, tmp_path):
    ours = make()
    save_sgf(ours, tmp_path / "ours.sgf")
    commands = f"set display off\nload match {tmp_path / 'ours.sgf'}\nsave match {tmp_path / 'gnubg.sgf'}\nquit\n"
    subprocess.run([str(GNUBG), "-t", "-q", "-r"], input=commands, text=True, capture_output=True, timeout=60,
                   check=True)
    back = without_lines(load_sgf(tmp_path / "gnubg.sgf"))
    for game in ours.games:  # gnubg keeps no declined resignation, nor our Beavers rule
        offers = [i for i, a in enumerate(game.actions) if a.kind == "reject"]
        game.actions = [a for i, a in enumerate(game.actions) if i not in offers and i + 1 not in offers]
    assert back.games == ours.games
    assert (back.players, back.length, back.event, back.date, back.place, back.comment) == (
        ours.players, ours.length, ours.event, ours.date, ours.place, ours.comment)


def test_a_game_that_starts_with_the_cube_raised_keeps_it_through_a_round_trip():
    """Automatic doubles: the game starts at 2 (CV[2]) and the first double turns it to 4."""
    player = EvaluatorPlayer(Even())
    recorder = Recorder(("alice", "bob"), 0)
    play((player, player), 1, seed=11, rules=Rules(automatic_doubles=3), watch=recorder)
    log = recorder.log
    assert log.games[0].cube > 1, "seed 11 starts with a tied opening roll"
    back = read_sgf(write_sgf(log))
    assert back.games[0].cube == log.games[0].cube and f"CV[{log.games[0].cube}]" in write_sgf(log)



def test_variations_nested_past_the_limit_are_refused_in_one_line():
    """Issue 32 row 2: 1,100 nested variations raised RecursionError (an HTTP 500 on the web board)."""
    text = "(;FF[4]GM[6]" + "(;B[12lnno]" * 1100 + ")" * 1101
    with pytest.raises(MatchFileError, match="nested more than 100 deep") as info:
        read_sgf(text, "deep.sgf")
    assert "\n" not in str(info.value) and "deep.sgf" in str(info.value)


def test_a_match_longer_than_the_engine_plays_is_refused_naming_file_game_and_line():
    """Issue 32 row 8: MI[length:100000] was refused later, by the replay, naming neither file nor line."""
    text = (DATA / "match5.sgf").read_text().replace("MI[length:5]", "MI[length:100000]", 1)
    with pytest.raises(MatchFileError, match=r"^long.sgf, game 1, line 1: a 100000-point match: matches are 1 to 99"):
        read_sgf(text, "long.sgf")


def test_a_move_missing_its_closing_bracket_is_refused_in_one_line():
    """Issue 32 row 9: the refusal quoted the value with its line break, over two lines."""
    text = (DATA / "match5.sgf").read_text()
    start = text.index(";B[") + 3
    cut = text[:text.index("]", start)] + text[text.index("]", start) + 1:]
    with pytest.raises(MatchFileError, match="^cut.sgf, game 1, line 2: cannot read move") as info:
        read_sgf(cut, "cut.sgf")
    assert "\n" not in str(info.value)
