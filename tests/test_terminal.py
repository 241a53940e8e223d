"""gammon play driven by a program over a pipe, as a person would type."""

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gammon.app.terminal import Quit, TerminalGame
from gammon.engine.rules.board import starting_board
from gammon.engine.rules.notation import legal_plays
from gammon.engine.rules.variants import STANDARD

PROMPTS = ("roll> ", "move> ", "take or pass> ", "keep it? (y/n)> ")


class Driver:
    """Talks to ``gammon play`` through pipes: waits for a prompt, answers it."""

    def __init__(self, *args: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "gammon", "play", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=0)
        self.transcript = ""

    def wait(self) -> str | None:
        """The next prompt, or None when the program ended."""
        buffer = ""
        while True:
            ch = self.proc.stdout.read(1)
            if ch == "":
                self.transcript += buffer
                return None
            buffer += ch
            for prompt in PROMPTS:
                if buffer.endswith(prompt):
                    self.transcript += buffer
                    return prompt

    def send(self, line: str | bytes) -> None:
        if isinstance(line, bytes):  # what a terminal in another encoding might send
            self.proc.stdin.buffer.write(line + b"\n")
        else:
            self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()


def test_a_scripted_game_from_start_to_finish(tmp_path):
    record = tmp_path / "game.txt"
    driver = Driver("--seed", "11", "--record", str(record))
    tried_illegal = asked_pip = False
    for _ in range(2000):
        prompt = driver.wait()
        if prompt is None:
            break
        if prompt == "roll> ":
            driver.send("roll" if asked_pip else "pip")
            asked_pip = True
        elif prompt == "take or pass> ":
            driver.send("take")
        elif not tried_illegal:
            driver.send("1/24")  # backwards: refused with a reason
            tried_illegal = True
        else:
            before = len(driver.transcript)
            driver.send("hint")
            assert driver.wait() == "move> "
            best = re.search(r"^\s+1\. (.+?)\s+equity", driver.transcript[before:], re.M).group(1).strip()
            driver.send(best)
    driver.proc.wait(timeout=30)
    out = driver.transcript
    assert "illegal: " in out and "backwards" in out
    assert re.search(r"pips: you \d+, bot \d+", out)
    assert re.search(r"(You win|The bot wins) \d+ points?", out)
    assert "BAR" in out and "cube 1" in out
    saved = Path(record).read_text()
    assert saved.startswith("New game.") and "You roll" in saved and "The bot rolls" in saved


def test_end_of_input_ends_the_session_cleanly():
    driver = Driver("--seed", "3")
    driver.proc.stdin.close()
    output = driver.proc.stdout.read()
    assert driver.proc.wait(timeout=30) == 0
    assert "Session ended." in output and "Traceback" not in output


def test_a_bot_without_probabilities_is_refused_clearly():
    driver = Driver("--model", "heuristic")
    output = driver.proc.stdout.read()
    assert driver.proc.wait(timeout=30) == 2
    assert "needs probability estimates" in output and "Traceback" not in output


def test_bad_input_and_unusable_paths_never_end_the_session(tmp_path):
    """Seed 0: you win the opening roll (6-4), so the first prompt asks for a move."""
    record, unusable = tmp_path / "game.txt", tmp_path / "no-such-dir" / "x.txt"
    driver = Driver("--seed", "0", "--record", str(record))
    for line in ["8" * 5000, b"\xff\xfe 24/18", "bar/" + "9" * 5000, f"save {unusable}", f"save {tmp_path}/MyGame.TXT",
                 "Board"]:
        assert driver.wait() == "move> ", driver.transcript[-500:]
        driver.send(line)
    assert driver.wait() == "move> "
    driver.send("QUIT")
    assert driver.wait() is None and driver.proc.wait(timeout=30) == 0
    out = driver.transcript
    assert "Traceback" not in out and "illegal: a move is at most 200 characters; got 5000" in out
    assert "illegal: cannot read" in out  # the undecodable bytes, refused like any typo
    assert f"cannot save the game record to {unusable}: No such file or directory" in out
    assert (tmp_path / "MyGame.TXT").read_text().startswith("New game.")  # the path keeps its case
    assert not (tmp_path / "mygame.txt").exists()
    assert "Session ended." in record.read_text()


def test_a_record_path_that_cannot_be_written_is_reported_in_one_line(tmp_path):
    driver = Driver("--seed", "0", "--record", str(tmp_path))  # a folder: only writing it at the end finds out
    assert driver.wait() == "move> "
    driver.send("quit")
    assert driver.wait() is None and driver.proc.wait(timeout=30) == 2
    assert f"gammon play: error: cannot save the game record to {tmp_path}: is a folder" in driver.transcript
    assert "Traceback" not in driver.transcript


def test_a_record_path_in_a_missing_folder_is_refused_before_playing(tmp_path):
    driver = Driver("--record", str(tmp_path / "no-such-dir" / "game.txt"))
    driver.proc.stdin.close()  # nothing to type: the refusal comes before the first prompt
    output = driver.proc.stdout.read()
    assert driver.proc.wait(timeout=30) == 2
    assert "the folder" in output and "does not exist" in output and len(output.strip().splitlines()) == 1


_GAME = {}


def _game() -> TerminalGame:
    if "game" not in _GAME:
        from gammon.models.players import load_analyst

        _GAME["game"] = TerminalGame(load_analyst("default"), seed=0, read=lambda: "quit", write=lambda *a, **k: None)
    return _GAME["game"]


_PROMPT_LINES = st.text(max_size=300) | st.sampled_from(
    ["hint", "pip", "board", "resign", "resign GAMMON", "resign twice", "roll", "double", "save", "save a b",
     "24/18 13/9", "8/2 6/2", "bar/20", "6/off", "8/5(2)", "8/5(99999999999999999999)", "8" * 5000 + "/5",
     "\u0668/\u0665 \u0666/\u0665", "\x00", "save \x00"]) | st.builds(
    lambda a, b: f"{a}/{b}", st.integers(-10**30, 10**30), st.integers(-5, 30))


@pytest.mark.parametrize("prompt", ["move", "roll"])
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(line=_PROMPT_LINES)
def test_fuzz_the_play_prompt_answers_or_refuses(prompt, line, tmp_path_factory, monkeypatch):
    monkeypatch.chdir(tmp_path_factory.getbasetemp())  # where a fuzzed 'save FILE' may write
    game = _game()
    game.offer = 0
    try:
        if prompt == "move":
            after = game.move_command(line, starting_board(), (6, 4))
            assert after is None or after.board.shape == (26,)
        else:
            assert game.before_roll(line, starting_board()) in ("roll", "double", None)
    except Quit:  # 'quit': the session's own way to end
        pass


class Doomed:
    """A stand-in evaluator: whoever is on roll loses a gammon. The bot declines any single resignation."""

    name, variant = "doomed", STANDARD

    def probabilities(self, boards):
        return np.tile([0.0, 0.0, 0.0, 1.0, 0.0], (len(boards), 1))

    def score_afterstates(self, boards):
        return np.zeros(len(boards))


def scripted(evaluator, lines, **options) -> tuple[TerminalGame, list[str]]:
    """A session fed ``lines`` (then quit), and everything it printed."""
    answers, out = iter(lines), []
    game = TerminalGame(evaluator, read=lambda: next(answers, "quit"),
                        write=lambda *a, **k: out.append(" ".join(map(str, a))), **options)
    game.run()
    return game, out


def test_a_declined_resignation_leaves_the_roll_to_play():
    """Seed 0: you open with 6-4."""
    game, out = scripted(Doomed(), ["resign", "resign", "24/18 13/9"], seed=0)
    assert "The bot declines your resignation of a single." in game.record
    assert "The bot has just declined a resignation: play this roll." in out
    assert "You roll 6-4 and play 24/18 13/9." in game.record and game.record[-1] == "Session ended."


def test_resigning_every_game_loses_a_match_through_its_crawford_game():
    from gammon.models.players import load_analyst

    game, out = scripted(load_analyst("default"), ["resign"] * 50, seed=0, length=3)
    assert game.record.count("You resign a single; the bot accepts.") == 3
    assert "New game (the Crawford game: no cube). Opening roll: you 6, bot 4." not in game.record  # game 1
    assert sum(line.startswith("New game (the Crawford game") for line in game.record) == 1
    assert game.record[-1] == "The bot wins the match 0-3." and game.score == [0, 3]


def test_a_hypergammon_game_plays_to_the_end_at_the_prompt():
    """Three checkers a side: the board, the moves and the result follow the variant."""
    from gammon.models.players import load_analyst

    out: list[str] = []
    hinted = [False]

    def answer() -> str:  # roll, take, and at the move prompt the bot's own first hint
        last = out[-1]
        if last.endswith("roll> "):
            return "roll"
        if last.endswith("take or pass> "):
            return "take"
        hinted[0] = not hinted[0]
        if hinted[0]:
            return "hint"
        return next(line for line in reversed(out) if "  1. " in line).split("1. ")[1].split("  equity")[0].strip()

    game = TerminalGame(load_analyst("default", variant="hypergammon"), seed=4, read=answer,
                        write=lambda *a, end="\n", **k: out.append(" ".join(map(str, a)) + end), variant="hypergammon")
    game.run()
    assert any(line.startswith(("You win", "The bot wins")) for line in game.record), game.record[-5:]
    assert "Session ended." not in game.record and sum(game.score) >= 1


def test_help_lists_the_commands_and_save_alone_says_what_it_needs():
    """Issue 32: `help` was an unknown command; `save` without a path was one too."""
    from gammon.models.players import load_analyst

    _, out = scripted(load_analyst("default"), ["help", "save", "roll", "help", "8/5"], seed=1)
    text = "\n".join(out)
    assert "roll (or an empty line), double, hint (cube advice), pip" in text
    assert "save takes one file name: save FILE" in text
    assert "a move in gnubg notation (24/18 13/11" in text
    assert "8/5 needs a 3; the roll is 5-6" in text  # seed 1: the bot opens, then you roll 5-6
    assert "unknown command" not in text


# -- the tutor (issue 34) ----------------------------------------------------------------------------------

WARNING = r"tutor: {chosen} loses 0\.\d{{3}}; better {best}, equity [+-]\d\.\d{{3}} against [+-]\d\.\d{{3}}"


def warnings(out: list[str]) -> list[str]:
    return [line for line in out if line.startswith("tutor: ")]


def test_the_tutor_stops_a_blunder_takes_it_back_and_is_silent_on_the_best_play():
    """Seed 0: you open with 6-4, where 8/4 8/2 loses about 0.4 to 24/18 13/9, the best by the bot's 0-ply hint
    (24/14 a thousandth behind it)."""
    from gammon.models.players import load_analyst

    game, out = scripted(load_analyst("default"), ["8/4 8/2", "maybe", "n", "24/18 13/9"], seed=0, warn=0.04)
    assert len(warnings(out)) == 1 and re.fullmatch(WARNING.format(chosen="8/4 8/2", best="24/18 13/9"),
                                                    warnings(out)[0])
    assert out.count("keep it? (y/n)> ") == 2 and "answer y to keep it or n to take it back" in out
    assert out.count("move> ") == 2  # taken back: the same roll's prompt again
    assert "You roll 6-4 and play 24/18 13/9." in game.record and not any("8/4 8/2" in line for line in game.record)


@pytest.mark.parametrize("warn, warned", [(0.04, True), (0.5, False), (None, False)])
def test_the_players_threshold_decides_whether_the_tutor_speaks(warn, warned):
    """8/4 8/2 loses about 0.43 with 6-4: 'y' keeps it; the tutor is off unless asked for."""
    from gammon.models.players import load_analyst

    game, out = scripted(load_analyst("default"), ["8/4 8/2", "y"], seed=0, warn=warn)
    assert bool(warnings(out)) == warned
    assert "You roll 6-4 and play 8/4 8/2." in game.record


def test_the_tutor_stops_a_double_far_too_early_and_lets_you_roll_silently():
    """Seed 1: the bot opens, then your roll> prompt, where doubling costs about 0.3."""
    from gammon.models.players import load_analyst

    game, out = scripted(load_analyst("default"), ["double", "n", "roll"], seed=1, warn=0.04)
    assert len(warnings(out)) == 1 and re.fullmatch(WARNING.format(chosen="double", best="no double"),
                                                    warnings(out)[0])
    assert not any("double" in line for line in game.record) and "You roll 5-6." in out


def play_to_the_bots_double(answers: list[str], warn: float) -> tuple[TerminalGame, list[str]]:
    """Seed 1, the last legal move each turn, kept when the tutor warns: the bot doubles at your fourth prompt
    (as tests/test_web.py plays it). ``answers`` answer that double and its keep it? prompt; then quit."""
    from gammon.models.players import load_analyst

    out, later = [], iter(answers)

    def answer() -> str:
        if out[-1] == "roll> ":
            return "roll"
        if out[-1] == "move> ":
            return legal_plays(*game.position)[-1].notation
        if out[-1] == "keep it? (y/n)> " and game.warned_at == "move":
            return "y"
        return next(later, "quit")

    game = TerminalGame(load_analyst("default"), seed=1, read=answer, write=lambda *a, **k: out.append(" ".join(a)),
                        warn=warn)
    game.run()
    return game, out


def test_the_tutor_stops_a_pass_of_a_take_and_is_silent_on_the_take():
    game, out = play_to_the_bots_double(["pass", "n", "take"], warn=0.04)
    cube = [line for line in warnings(out) if "pass" in line]
    assert len(cube) == 1 and re.fullmatch(WARNING.format(chosen="pass", best="take"), cube[0])
    assert out.count("take or pass> ") == 2 and "You take." in game.record and "You pass." not in game.record


def test_a_program_answers_the_tutors_prompt_over_a_pipe():
    driver = Driver("--seed", "0", "--tutor", "--warn", "0.1")
    assert driver.wait() == "move> "
    driver.send("8/4 8/2")
    assert driver.wait() == "keep it? (y/n)> "
    driver.send("n")
    assert driver.wait() == "move> "
    driver.send("quit")
    assert driver.wait() is None and driver.proc.wait(timeout=30) == 0
    assert re.search(WARNING.format(chosen="8/4 8/2", best="24/18 13/9"), driver.transcript)


def test_warn_without_the_tutor_is_refused_in_one_line():
    driver = Driver("--warn", "0.1")
    driver.proc.stdin.close()
    output = driver.proc.stdout.read()
    assert driver.proc.wait(timeout=30) == 2
    assert output.strip() == "gammon play: error: --warn sets the tutor's threshold: add --tutor"
