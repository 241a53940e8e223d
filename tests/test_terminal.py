"""gammon play driven by a program over a pipe, as a person would type."""

import re
import subprocess
import sys
from pathlib import Path

PROMPTS = ("roll> ", "move> ", "take or pass> ")


class Driver:
    """Talks to ``gammon play`` through pipes: waits for a prompt, answers it."""

    def __init__(self, *args: str):
        self.proc = subprocess.Popen([sys.executable, "-m", "app.cli", "play", *args], stdin=subprocess.PIPE,
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

    def send(self, line: str) -> None:
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
