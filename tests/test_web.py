"""gammon web's API through FastAPI's test client: the CLI's JSON for each operation, a one-line 4xx for bad
input (never a 500), uploads kept small and in a temporary folder, games against the bot, and the variants
off backgammon's board (Fevga's rotated geometry, Acey-Deucey's checkers still to enter and its 1-2)."""

import json
import socket
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

pytest.importorskip("fastapi")

from fastapi.testclient import TestClient  # noqa: E402 (only once fastapi is known to be there)

from gammon.app.cli import main
from gammon.app.review import SUMMARY_ROWS
from gammon.app.web import api
from gammon.app.web.games import GameTable, NoSuchGame
from gammon.app.web.jobs import JobTable, NoSuchJob, TooManyJobs
from gammon.engine.errors import GammonError
from gammon.engine.records.formats import MatchState, gnubgid, parse_position, xgid
from gammon.engine.rules.board import starting_board
from gammon.models import players
from gammon.models.network import build_model, save_weights
from gammon.options import VARIANT_CHOICES

DATA = Path(__file__).parent / "data"
OPENING = "4HPwATDgc/ABMA:cAkAAAAAAAAE"  # money, centered cube, no dice
MATCH_CUBE = "4HPkASjgc/ABMA:MAGgAAAAAAAE"  # a 5-point match at 0-0: the cube answer carries MWC
SMALL_MATCH = DATA / "sgf" / "money.sgf"
FEVGA_START = "AACA/z8AAID/Pw"  # 15 checkers a side on its 24-point, both sides moving the same way round
ACEY_START = "AAAAAAAAAAAAAA-15-15"  # every checker still to enter
RACE = "tnbJIAA2uz0AAA"  # Chuck Bower's race, 84 to 96 pips (tests/test_race_counts.py)


@pytest.fixture(scope="module")
def client():
    with TestClient(api.create_app()) as test_client:
        yield test_client


def cli_json(capsys, argv: list[str]) -> dict:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("operation, params, argv", [
    ("moves", {"position": OPENING, "dice": "31"}, ["moves", OPENING, "--dice", "31"]),
    ("eval", {"position": OPENING, "ply": 1}, ["eval", OPENING, "--ply", "1"]),
    ("hint", {"position": OPENING, "dice": "6-4", "ply": 0}, ["hint", OPENING, "--dice", "64", "--ply", "0"]),
    ("cube", {"position": MATCH_CUBE, "ply": 0}, ["cube", MATCH_CUBE, "--ply", "0"]),
    ("race", {"position": RACE, "ply": 0}, ["race", RACE, "--ply", "0"]),
    ("hint", {"position": "4HPwATDgc/ABMA", "dice": "21", "ply": 0, "variant": "nackgammon"},
     ["hint", "4HPwATDgc/ABMA", "--dice", "21", "--ply", "0", "--variant", "nackgammon"]),
    ("moves", {"position": FEVGA_START, "dice": "61", "variant": "fevga"},
     ["moves", FEVGA_START, "--dice", "61", "--variant", "fevga"]),
    ("hint", {"position": FEVGA_START, "dice": "53", "ply": 0, "variant": "fevga"},
     ["hint", FEVGA_START, "--dice", "53", "--ply", "0", "--variant", "fevga"]),
    ("cube", {"position": FEVGA_START, "ply": 0, "variant": "moultezim"},
     ["cube", FEVGA_START, "--ply", "0", "--variant", "moultezim"]),
    ("moves", {"position": ACEY_START, "dice": "12", "variant": "acey-deucey"},
     ["moves", ACEY_START, "--dice", "12", "--variant", "acey-deucey"]),
])
def test_each_operation_returns_what_the_cli_prints_with_json(client, capsys, operation, params, argv):
    response = client.get(f"/api/{operation}", params=params)
    assert response.status_code == 200
    assert response.json() == cli_json(capsys, argv)


def test_the_cube_at_a_match_score_gives_match_winning_chances(client):
    cube = client.get("/api/cube", params={"position": MATCH_CUBE, "ply": 0}).json()
    assert 0 < cube["mwc_no_double"] < 1 and cube["double_pass"] == 1.0


def test_analyze_returns_what_the_cli_writes_with_json_and_the_summarys_labels(client, capsys, tmp_path):
    response = client.post("/api/analyze", params={"name": SMALL_MATCH.name}, content=SMALL_MATCH.read_bytes())
    assert response.status_code == 200
    out = tmp_path / "out.json"
    assert main(["analyze", str(SMALL_MATCH), "--json", str(out), "--quiet"]) == 0
    capsys.readouterr()
    report = response.json()
    assert report.pop("summary_rows") == [list(row) for row in SUMMARY_ROWS]  # what gammon analyze prints
    assert report == json.loads(out.read_text())


def test_a_move_on_the_board_gives_the_position_after_it_and_its_arrows(client):
    before = client.get("/api/board", params={"position": OPENING}).json()
    after = client.get("/api/board", params={"position": OPENING, "dice": "31", "move": "8/5 6/5"}).json()
    assert before["pips"] == [167, 167] and after["pips"] == [163, 167]
    assert after["arrows"] == [[8, 5], [6, 5]]
    assert "after 8/5 6/5" in after["svg"] and after["state"]["dice"] == [3, 1]


# Player 1 on roll, the cube at 2 on player 0's side, money with the Jacoby rule.
OWNED_CUBE = gnubgid(starting_board(), MatchState(cube=2, cube_owner=0, on_roll=1, turn=1, jacoby=True))


@pytest.mark.parametrize("operation, params", [
    ("board", {}), ("eval", {"ply": 0}), ("hint", {"dice": "31", "ply": 0}), ("cube", {"ply": 0}),
])
def test_each_position_says_who_is_who_and_the_rules_in_force(client, operation, params):
    """Issue 32, what a player sees: the rules in force and who is who, in one line beside each answer."""
    owned = client.get(f"/api/{operation}", params={"position": OWNED_CUBE, **params}).json()
    rolled = "; X rolled 3-1" if operation == "hint" else ""  # a hint's line has the roll it was asked about
    assert owned["situation"] == ("X is player 1, on roll; O is player 0; cube 2, owned by O; "
                                  "money: Jacoby on, beavers off" + rolled)
    bare = client.get(f"/api/{operation}", params={"position": "4HPwATDgc/ABMA", **params}).json()
    assert bare["situation"] == "X on roll; cube 1, centered; money: Jacoby off, beavers off (a Position ID alone)"


@pytest.mark.parametrize("position", [OWNED_CUBE, "4HPwATDgc/ABMA",
                                      xgid(starting_board(), MatchState(beavers=True, max_cube=8))])
def test_a_move_on_the_board_gives_the_id_of_the_position_it_leads_to_as_it_was_written(client, position):
    """Issue 32: the page analyses the position a hint's play leads to, from the side to roll next."""
    moved = client.get("/api/board", params={"position": position, "dice": "31", "move": "8/5 6/5"}).json()
    after = client.get("/api/board", params={"position": moved["after"]}).json()
    assert after["pips"] == [167, 163]  # the opponent on roll; the mover has played 4 pips
    written = (moved["after"].count(":"), moved["after"].startswith("XGID="))
    assert written == (position.count(":"), position.startswith("XGID="))  # as the position was written
    _, before = parse_position(position)
    if before is not None:  # the same match state, the other side on roll, no dice yet
        assert after["state"] == {**moved["state"], "on_roll": 1 - before.on_roll, "turn": 1 - before.on_roll,
                                  "dice": [0, 0]}


def test_acey_deucey_arrows_start_at_the_bar_for_hit_checkers_and_at_the_tray_for_checkers_to_enter(client):
    # One checker on the bar, one on the 10-point, 13 still to enter: the bar's checker enters first.
    params = {"position": "AAAAAAQABAAAAA-13-15", "variant": "acey-deucey", "dice": "65"}
    assert client.get("/api/board", params={**params, "move": "bar/20 off/19"}).json()["arrows"] == [[25, 20], [0, 19]]
    assert client.get("/api/board", params={**params, "move": "bar/14"}).json()["arrows"] == [[25, 20], [20, 14]]


def test_the_page_and_its_files_are_served(client):
    page = client.get("/")
    assert page.status_code == 200 and "/static/board.js" in page.text
    for name in ("board.js", "board.css"):
        assert client.get(f"/static/{name}").status_code == 200
    assert "/api/hint" in client.get("/openapi.json").json()["paths"]


@pytest.mark.parametrize("path, params, status, fragment", [
    ("/api/board", {"position": "not an id"}, 400, "cannot read 'not an id' as a position"),
    ("/api/board", {"position": "4HPwATDgc/ABM!"}, 400, "'!'"),
    ("/api/hint", {"position": OPENING, "dice": "71", "ply": 0}, 400, "dice are two digits 1..6"),
    ("/api/hint", {"position": OPENING, "ply": 0}, 400, "no dice"),
    ("/api/moves", {"position": OPENING, "dice": "3"}, 400, "dice are two digits"),
    ("/api/board", {"position": OPENING, "dice": "31", "move": "24/18"}, 400, "24/18"),
    ("/api/eval", {"position": OPENING, "variant": "hypergammon"}, 400, "a side has only 3"),
    ("/api/eval", {"position": OPENING, "variant": "chess"}, 422, "variant"),
    ("/api/board", {"position": OPENING, "variant": "acey-deucey"}, 400, "'PositionID-A-B'"),
    ("/api/board", {"position": "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "variant": "acey-deucey"},
     400, "an XGID cannot hold the checkers still to enter"),
    ("/api/board", {"position": FEVGA_START, "variant": "fevga", "dice": "61", "move": "24/18 24/23"}, 400,
     "fevga forbids it: a player's first checker must pass"),
    ("/api/hint", {"position": OPENING, "dice": "31", "ply": 9}, 422, "ply"),
    ("/api/cube", {}, 422, "position"),
    ("/api/race", {"position": OPENING, "ply": 0}, 400, "race counts apply to races only"),
    ("/api/race", {"position": RACE, "variant": "nackgammon"}, 400, "race counts are backgammon's"),
    ("/api/eval", {"position": "x" * 201}, 422, "position"),
])
def test_bad_input_is_a_4xx_with_a_one_line_reason(client, path, params, status, fragment):
    response = client.get(path, params=params)
    assert response.status_code == status
    detail = response.json()["detail"]
    assert fragment in detail and "\n" not in detail


# -- rollouts (issue 30) ----------------------------------------------------------------------------------

TINY_ROLLOUT = {"top": 2, "games": 36, "truncate": 1}  # a second's work, no level: the options spelled out


def finished_job(client, params: dict, path: str = "/api/rollouts") -> dict:
    """POST ``path``, then poll the job until it is done; its last answer."""
    started = client.post(path, params=params)
    assert started.status_code == 202, started.text
    job, deadline = started.json(), time.monotonic() + 60
    while not job["done"]:
        assert time.monotonic() < deadline, "the rollout did not finish in 60 s"
        time.sleep(0.1)
        job = client.get(f"/api/rollouts/{job['id']}").json()
    return job


def test_a_rollout_returns_what_the_cli_prints_with_json_directly_or_as_a_job(client, capsys):
    params = {"position": OPENING, "dice": "31", "ply": 0, **TINY_ROLLOUT}
    argv = ["hint", OPENING, "--dice", "31", "--ply", "0", "--rollout", "--top", "2", "--games", "36",
            "--truncate", "1"]
    printed = cli_json(capsys, argv)
    direct = client.get("/api/rollout", params=params)
    assert direct.status_code == 200 and direct.json() == printed
    job = finished_job(client, params)
    assert job["result"] == printed and job["games_done"] == job["games_total"] == 2 * 36


def test_a_cube_rollout_returns_what_the_cli_prints_with_json_directly_or_as_a_job(client, capsys):
    """The cube actions rolled out (issue 30, the web board the same): gammon cube --rollout --json's answer."""
    params = {"position": "4PPgAyDgc+ABAA", "games": 36, "truncate": 2, "vr": True}
    printed = cli_json(capsys, ["cube", "4PPgAyDgc+ABAA", "--rollout", "--games", "36", "--truncate", "2", "--vr"])
    direct = client.get("/api/cube-rollout", params=params)
    assert direct.status_code == 200 and direct.json() == printed
    job = finished_job(client, params, "/api/cube-rollouts")
    assert job["result"] == printed and job["games_done"] == job["games_total"] == 2 * 36
    refused = client.get("/api/cube-rollout", params={"position": "4PPgAyDgc+ABAA", "level": "R1", "games": 36})
    assert refused.status_code == 400 and "level R1 sets the games, truncation and variance reduction" in \
        refused.json()["detail"]
    owned = client.get("/api/cube-rollout", params={"position": "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:0:0:0:0:10",
                                                    "games": 36})
    assert owned.status_code == 400 and "no cube action to roll out: the opponent owns the cube" in \
        owned.json()["detail"]


def test_a_rollout_jobs_progress_counts_the_plays_the_roll_has(client):
    """Fevga's first 6-1 has one play: top 4 rolls out one play's games."""
    job = finished_job(client, {"position": FEVGA_START, "dice": "61", "ply": 0, "variant": "fevga",
                                **TINY_ROLLOUT, "top": 4})
    assert job["games_total"] == job["games_done"] == 36 and len(job["result"]["rollout"]) == 1


@pytest.mark.parametrize("params, status, fragment", [
    ({"games": 1332}, 422, "games: Input should be less than or equal to 1296"),
    ({"games": 40}, 422, "games: Input should be a multiple of 36"),
    ({"top": 9}, 422, "top: Input should be less than or equal to 8"),
    ({"level": "R4"}, 422, "level: Input should be 'R1', 'R2' or 'R3'"),
    ({"level": "R1", "games": 36, "vr": True}, 400, "level R1 sets the plays, games and truncation of the rollout; "
                                                    "drop games, vr"),
    ({"dice": "71"}, 400, "dice are two digits 1..6"),
])
@pytest.mark.parametrize("method, path", [("GET", "/api/rollout"), ("POST", "/api/rollouts")])
def test_a_rollout_over_the_bounds_or_badly_asked_is_refused_in_one_line(client, method, path, params, status,
                                                                          fragment):
    response = client.request(method, path, params={"position": OPENING, "dice": "31", **params})
    assert response.status_code == status
    detail = response.json()["detail"]
    assert fragment in detail and "\n" not in detail


def test_an_unknown_rollout_job_is_a_404(client):
    response = client.get("/api/rollouts/no-such-job")
    assert response.status_code == 404 and response.json()["detail"].startswith("no rollout 'no-such-job' here")


def test_the_job_table_refuses_a_job_past_its_limit_until_one_finishes_and_then_drops_the_oldest_finished():
    table = JobTable(limit=2, keep_seconds=60)
    first, second = table.new(36), table.new(36)
    with pytest.raises(TooManyJobs, match="2 rollouts are running or waiting; try again when one has finished"):
        table.new(36)
    first.run(lambda progress: progress(36) or {"answer": 1})
    assert first.snapshot() == {"id": first.id, "done": True, "games_done": 36, "games_total": 36,
                                "result": {"answer": 1}}
    third = table.new(36)  # in the finished first one's place
    with pytest.raises(NoSuchJob):
        table.get(first.id)
    assert table.get(second.id) is second and table.get(third.id) is third


def refusing_work(progress):
    raise GammonError("the work's own refusal")


def test_the_job_table_drops_a_finished_job_after_its_time_and_a_failed_job_raises_its_failure():
    table = JobTable(limit=4, keep_seconds=0)
    failed = table.new(36)
    failed.run(refusing_work)
    with pytest.raises(GammonError, match="the work's own refusal"):
        failed.snapshot()
    table.new(36)
    with pytest.raises(NoSuchJob):
        table.get(failed.id)


def test_a_rollout_stops_when_nobody_follows_it_or_the_server_stops(monkeypatch):
    """Review of issue 30: rollouts nobody polled any more, or running when the server stopped, ran on."""
    from gammon.app.web import jobs

    table = JobTable()
    followed, unfollowed = table.new(72), table.new(72, polled=False)
    monkeypatch.setattr(jobs, "ABANDONED_SECONDS", -1.0)  # every polled job is now overdue
    followed.run(lambda progress: progress(36) or {"answer": 1})
    with pytest.raises(jobs.JobStopped, match="nobody asked for this rollout"):
        followed.snapshot()
    unfollowed.run(lambda progress: progress(36) or {"answer": 2})  # a request waits for it: never given up
    assert unfollowed.snapshot()["result"] == {"answer": 2}
    table.stopping.set()
    stopped = table.new(72, polled=False)
    stopped.run(lambda progress: progress(36) or {"answer": 3})
    with pytest.raises(jobs.JobStopped, match="the server is stopping"):
        stopped.snapshot()


def test_rollouts_run_on_a_thread_of_their_own(client, monkeypatch):
    """Review of issue 30: rollouts shared the two analysis threads, so hints and cube answers waited behind them."""
    seen = []
    real = api.rollout_report

    def spy(*args, **kwargs):
        seen.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(api, "rollout_report", spy)
    answer = client.get("/api/rollout", params={"position": "4HPwATDgc/ABMA", "dice": "31", "ply": 0, "top": 2,
                                                "games": 36, "truncate": 1})
    assert answer.status_code == 200 and seen and all(name.startswith("gammon-rollout") for name in seen)


def test_an_upload_over_the_limit_is_refused_before_analysis(client):
    response = client.post("/api/analyze", params={"name": "big.mat"}, content=b" " * (api.MAX_UPLOAD_BYTES + 1))
    assert response.status_code == 413 and "KiB limit" in response.json()["detail"]


def test_a_bad_upload_names_the_file_as_uploaded_and_leaves_nothing_behind(client, monkeypatch, tmp_path):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # where the upload's temporary folder goes
    broken = client.post("/api/analyze", params={"name": "mine.mat"}, content=b"this is no match\n")
    assert broken.status_code == 400
    assert broken.json()["detail"].startswith("mine.mat") and str(tmp_path) not in broken.json()["detail"]
    not_a_match = client.post("/api/analyze", params={"name": "../../etc/passwd"}, content=b"x")
    assert not_a_match.status_code == 400 and "ends in .mat, .sgf or .xg" in not_a_match.json()["detail"]
    assert list(tmp_path.iterdir()) == []


def new_game(client, **settings) -> dict:
    response = client.post("/api/games", json=settings)
    assert response.status_code == 200
    return response.json()


def send(client, game: dict, command: str) -> dict:
    response = client.post(f"/api/games/{game['id']}", json={"command": command})
    assert response.status_code == 200
    return response.json()


def to_move_prompt(client, game: dict) -> dict:
    return send(client, game, "roll") if game["prompt"] == "roll" else game


def test_a_game_goes_on_after_your_move_with_the_bot_reply(client):
    game = to_move_prompt(client, new_game(client, seed=3))
    assert game["prompt"] == "move" and game["dice"] and game["legal"]
    bot_moves = sum(line.startswith("The bot rolls") for line in game["log"])
    after = send(client, game, game["legal"][0])
    assert after["said"][0].startswith(f"You roll {game['dice'][0]}-{game['dice'][1]} and play")
    assert sum(line.startswith("The bot rolls") for line in after["log"]) == bot_moves + 1
    assert after["position"] != game["position"] and after["prompt"] in ("roll", "move")
    assert client.get(f"/api/games/{game['id']}").json()["position"] == after["position"]


def test_a_player_without_estimates_is_refused_with_a_reason_not_a_500():
    with TestClient(api.create_app("heuristic")) as heuristic:
        for response in (heuristic.get("/api/hint", params={"position": "4HPwATDgc/ABMA", "dice": "31"}),
                         heuristic.post("/api/games", json={"seed": 3})):
            assert response.status_code == 400 and "probability estimates" in response.json()["detail"]


def test_an_illegal_move_is_refused_and_the_prompt_stays(client):
    game = to_move_prompt(client, new_game(client, seed=3))
    refused = send(client, game, "24/1")
    assert refused["prompt"] == "move" and refused["said"][0].startswith("illegal: ")
    assert refused["position"] == game["position"]


def test_the_web_game_writes_no_file_on_the_server(client, tmp_path):
    game = to_move_prompt(client, new_game(client, seed=3))
    answer = send(client, game, f"save {tmp_path / 'game.mat'}")
    assert "writes no files" in answer["said"][0] and list(tmp_path.iterdir()) == []


def test_a_resigned_game_is_over_and_takes_no_more_commands(client):
    game = to_move_prompt(client, new_game(client, seed=3, variant="nackgammon"))
    over = send(client, game, "resign backgammon")
    assert over["over"] and over["prompt"] is None and "the bot accepts" in over["said"][0]
    again = client.post(f"/api/games/{game['id']}", json={"command": "roll"})
    assert again.status_code == 400 and "over" in again.json()["detail"]


def to_bots_double(client, **settings) -> dict:
    """Seed 1, playing the last legal move each turn (kept when the tutor warns): the bot doubles at your fourth
    prompt."""
    game = new_game(client, seed=1, **settings)
    for _ in range(20):
        if game["prompt"] == "answer":
            return game
        game = send(client, game, {"roll": "roll", "keep": "y"}.get(game["prompt"]) or game["legal"][-1])
    raise AssertionError("the bot did not double in 20 prompts")


def test_while_the_bots_double_waits_the_game_is_seen_from_the_bot_on_roll(client):
    """Issue 32: the board said 'you (on roll)' while the bot's double waited for your answer."""
    game = to_bots_double(client)
    assert "X: bot (on roll)" in game["svg"] and "you (on roll)" not in game["svg"]
    assert game["situation"].startswith("X is player 1, on roll; O is player 0")
    assert game["situation"].endswith("X doubles to 2: O to take or pass")
    _, state = parse_position(game["position"])
    assert (state.on_roll, state.turn, state.doubled) == (1, 0, True)  # what Analyse asks the cube about
    taken = send(client, game, "take")
    assert "X: you (on roll)" in taken["svg"] and "X is player 0, on roll" in taken["situation"]


def test_a_match_game_draws_the_score(client):
    game = new_game(client, length=5, seed=4)
    assert "5-point match" in game["svg"] and game["length"] == 5


@pytest.mark.parametrize("settings, fragment", [
    ({"length": 100}, "length"), ({"variant": "chess"}, "variant"), ({"seed": -1}, "seed"),
    ({"tutor": 0}, "tutor"),
])
def test_bad_game_settings_are_a_422(client, settings, fragment):
    response = client.post("/api/games", json=settings)
    assert response.status_code == 422 and fragment in response.json()["detail"]


def test_an_unknown_game_is_a_404_and_an_endless_command_a_422(client):
    assert client.post("/api/games/nope", json={"command": "roll"}).status_code == 404
    game = new_game(client, seed=3)
    assert client.post(f"/api/games/{game['id']}", json={"command": "8" * 5000}).status_code == 422
    assert client.delete(f"/api/games/{game['id']}").status_code == 200
    assert client.get(f"/api/games/{game['id']}").status_code == 404


def test_the_tutor_holds_a_blunder_on_its_board_until_taken_back_and_lets_the_best_play_through(client):
    """Seed 0: you open with 6-4, where 8/4 8/2 loses about 0.4 to 24/18 13/9, the best by the bot's 0-ply hint."""
    game = new_game(client, seed=0, tutor=0.04)
    assert game["prompt"] == "move" and game["warning"] is None
    held = send(client, game, "8/4 8/2")
    warning = held["warning"]
    assert held["prompt"] == "keep" and (warning["chosen"], warning["best"]) == ("8/4 8/2", "24/18 13/9")
    assert warning["loss"] == pytest.approx(warning["best_equity"] - warning["chosen_equity"]) and warning["loss"] > 0.3
    assert held["position"] == game["position"] and held["dice"] == [6, 4] and held["legal"] == []
    back = send(client, held, "n")
    assert back["prompt"] == "move" and back["warning"] is None and back["position"] == game["position"]
    played = send(client, back, "24/18 13/9")
    assert played["said"][0] == "You roll 6-4 and play 24/18 13/9." and played["warning"] is None


def test_the_tutor_holds_a_double_far_too_early_and_keeps_it_when_told(client):
    """Seed 1: the bot opens, then your roll prompt, where doubling costs about 0.3."""
    game = new_game(client, seed=1, tutor=0.04)
    held = send(client, game, "double")
    assert held["prompt"] == "keep" and (held["warning"]["chosen"], held["warning"]["best"]) == ("double", "no double")
    assert held["dice"] is None and "X: you (on roll)" in held["svg"]
    kept = send(client, held, "y")
    assert kept["said"][0] == "You double to 2."


def test_the_tutor_holds_a_pass_of_a_take_on_the_bots_board_and_lets_the_take_through(client):
    game = to_bots_double(client, tutor=0.04)
    held = send(client, game, "pass")
    assert held["prompt"] == "keep" and (held["warning"]["chosen"], held["warning"]["best"]) == ("pass", "take")
    assert "X: bot (on roll)" in held["svg"] and held["position"] == game["position"]
    taken = send(client, send(client, held, "n"), "take")
    assert taken["said"][0] == "You take." and taken["warning"] is None


def test_the_table_ends_the_game_idle_longest_past_its_limit():
    from gammon.models.players import load_analyst

    table = GameTable(limit=2)
    bot = load_analyst("default")
    first, second = (table.new(bot, seed=seed)["id"] for seed in (1, 2))
    table.get(first).used -= 60  # the first game has waited longest
    third = table.new(bot, seed=3)["id"]
    with pytest.raises(NoSuchGame):
        table.get(first)
    assert table.get(second) and table.get(third)


# -- the variants off backgammon's board -----------------------------------------------------------


def test_every_variant_of_the_command_line_is_offered_with_its_starting_position(client):
    answer = client.get("/api/variants").json()
    assert answer["variants"] == VARIANT_CHOICES
    starts = answer["starting_positions"]
    assert starts["standard"] == "4HPwATDgc/ABMA" and starts["fevga"] == FEVGA_START
    assert starts["acey-deucey"] == ACEY_START


def test_a_fevga_board_counts_the_opponents_pips_along_his_own_track_and_draws_a_move(client):
    params = {"position": FEVGA_START, "variant": "fevga"}
    before = client.get("/api/board", params=params).json()
    after = client.get("/api/board", params={**params, "dice": "61", "move": "24/17"}).json()
    assert before["pips"] == [360, 360] and after["pips"] == [353, 360]  # mirrored, his 15 would count 195
    assert after["arrows"] == [[24, 23], [23, 17]] and "after 24/17" in after["svg"]


def test_a_fevga_game_goes_on_after_your_move_with_the_bot_reply(client):
    game = to_move_prompt(client, new_game(client, variant="fevga", seed=3))
    bot_moves = sum(line.startswith("The bot rolls") for line in game["log"])
    after = send(client, game, game["legal"][0])
    assert sum(line.startswith("The bot rolls") for line in after["log"]) == bot_moves + 1
    board, _ = parse_position(after["position"], "fevga")
    # Seen from your side, turned round by the rotation: your start is your 24-point, the bot's your 12-point.
    assert 0 < board[24] < 15 and -15 < board[12] < 0
    drawn = client.get("/api/board", params={"position": after["position"], "variant": "fevga"}).json()
    assert max(drawn["pips"]) < 360


@pytest.fixture
def no_shipped_net(monkeypatch, tmp_path):
    monkeypatch.setattr(players, "MODELS", tmp_path)  # Acey-Deucey's net, models/acey-deucey.pt, is not there


def test_acey_deucey_without_a_net_is_drawn_and_moved_but_analysis_and_games_say_why_not(client, no_shipped_net):
    board = client.get("/api/board", params={"position": ACEY_START, "variant": "acey-deucey"}).json()
    assert board["pips"] == [375, 375] and ">15 to enter<" in board["svg"]
    reason = "no shipped net for acey-deucey: train one with gammon train --variant acey-deucey"
    refused = [client.get("/api/hint", params={"position": ACEY_START, "dice": "31", "variant": "acey-deucey"}),
               client.post("/api/games", json={"variant": "acey-deucey"}),
               client.post("/api/rollouts", params={"position": ACEY_START, "dice": "31", "variant": "acey-deucey",
                                                    **TINY_ROLLOUT})]
    for response in refused:
        assert response.status_code == 400 and response.json()["detail"].startswith(reason)


@pytest.fixture(scope="module")
def acey_net(tmp_path_factory) -> str:
    """A small untrained Acey-Deucey net: what ``gammon web --model FILE`` serves until one is shipped."""
    path = tmp_path_factory.mktemp("acey") / "acey.pt"
    save_weights(path, build_model("all=tesauro198+enter", (8,)), config={"variant": "acey-deucey"})
    return str(path)


@pytest.fixture(scope="module")
def acey_client(acey_net):
    with TestClient(api.create_app(acey_net)) as test_client:
        yield test_client


def test_an_acey_deucey_hint_with_a_net_is_what_the_cli_prints(acey_client, acey_net, capsys):
    response = acey_client.get("/api/hint", params={"position": ACEY_START, "dice": "31", "ply": 0,
                                                    "variant": "acey-deucey"})
    assert response.status_code == 200
    argv = ["hint", ACEY_START, "--dice", "31", "--ply", "0", "--variant", "acey-deucey", "--model", acey_net]
    assert response.json() == cli_json(capsys, argv)


def test_an_acey_deucey_game_takes_a_1_2_with_its_double_then_the_extra_roll_then_the_bot_replies(acey_client):
    """Seed 13: the bot opens, then you roll 1-2 (as in tests/test_acey_commands.py)."""
    game = to_move_prompt(acey_client, new_game(acey_client, variant="acey-deucey", seed=13))
    assert sorted(game["dice"]) == [1, 2] and all(" then " in move for move in game["legal"])
    wild = game["legal"][-1]
    extra = send(acey_client, game, wild)
    assert extra["said"][0] == f"You roll {game['dice'][0]}-{game['dice'][1]} and play {wild}."
    assert extra["prompt"] == "move" and sorted(extra["dice"]) != [1, 2]  # your extra roll: no cube between
    assert ">15 to enter<" not in extra["svg"]  # you entered checkers
    bot_moves = sum(line.startswith("The bot rolls") for line in extra["log"])
    after = send(acey_client, extra, extra["legal"][0])
    assert sum(line.startswith("The bot rolls") for line in after["log"]) > bot_moves
    board = acey_client.get("/api/board", params={"position": after["position"], "variant": "acey-deucey"})
    assert board.status_code == 200


def test_gammon_web_without_the_extra_says_how_to_install_it(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "uvicorn", None)  # import uvicorn now fails
    assert main(["web"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "pip install -e '.[web]'" in err


@pytest.mark.parametrize("host, warned", [("127.0.0.1", False), ("0.0.0.0", True)])
def test_gammon_web_warns_when_it_listens_beyond_loopback(monkeypatch, capsys, host, warned):
    import uvicorn

    monkeypatch.setattr(uvicorn.Server, "run", lambda self, sockets=None: None)  # bind, but serve nothing
    assert main(["web", "--host", host, "--port", "0"]) == 0
    out, err = capsys.readouterr()
    assert ("WARNING" in err) == warned and "gammon web board on http://" in out


def test_gammon_web_on_a_port_in_use_is_one_line(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        assert main(["web", "--port", str(taken.getsockname()[1])]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot listen on 127.0.0.1" in err


def test_a_one_point_match_plays_past_the_bots_opening_move(client):
    """Issue 32 row 1: both players start 1-away, the cube dead; the bot's first move asked for a Crawford cube."""
    game = to_move_prompt(client, new_game(client, length=1, seed=1))
    after = send(client, game, game["legal"][0])
    assert after["position"] != game["position"] and not any("error" in line for line in after["log"])


@pytest.mark.parametrize("dice", ["77", "a1", "0"])
def test_bad_dice_on_the_board_are_refused_with_or_without_a_move(client, dice):
    """Issue 32 row 11: /api/board ignored dice it could not read when no move came with them."""
    response = client.get("/api/board", params={"position": "4HPwATDgc/ABMA", "dice": dice})
    assert response.status_code == 400, response.text


def test_dice_on_the_board_without_a_move_are_drawn(client):
    response = client.get("/api/board", params={"position": "4HPwATDgc/ABMA", "dice": "31"})
    assert response.status_code == 200 and response.json()["state"]["dice"] == [3, 1]


def test_concurrent_analyses_share_one_analyst_on_a_fixed_few_threads(monkeypatch):
    """Issue 32 row 14: four 3-ply cube requests at a time, three rounds, grew the server from 0.44 to 1.7 GB
    for good. Each request analysed on a thread of its own, and a search's memory stays with its thread;
    now the analyses run on ANALYSIS_THREADS threads, with one analyst loaded however many ask at once."""
    running, most, seen = 0, 0, []  # analyses in progress, the most at once, (thread, analyst) of each
    count = threading.Lock()
    real = api.cube_report

    def watched(net, *args):
        nonlocal running, most
        with count:
            running += 1
            most = max(most, running)
            seen.append((threading.get_ident(), id(net)))
        try:
            return real(net, *args)
        finally:
            with count:
                running -= 1

    monkeypatch.setattr(api, "cube_report", watched)
    players._loaded_analyst.cache_clear()  # the first requests race to load the net
    positions = [OPENING, MATCH_CUBE, "w25HwABWm8EBBg", "tnXAAQbDbkfAAA"] * 2
    with TestClient(api.create_app()) as fresh, ThreadPoolExecutor(len(positions)) as requests:
        answers = list(requests.map(lambda p: fresh.get("/api/cube", params={"position": p, "ply": 2}), positions))
    assert [a.status_code for a in answers] == [200] * len(positions)
    assert most <= api.ANALYSIS_THREADS and len({thread for thread, _ in seen}) <= api.ANALYSIS_THREADS
    assert len({analyst for _, analyst in seen}) == 1


def test_the_analysis_settings_reach_the_api(client):
    match = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:2:3:0:7:10"
    answers = {met: client.get("/api/cube", params={"position": match, "ply": 0, "met": met}).json()
               for met in ("kazaross-xg2", "rockwell-kazaross")}
    assert answers["kazaross-xg2"]["double_take"] != answers["rockwell-kazaross"]["double_take"]
    assert "match equity table rockwell-kazaross" in answers["rockwell-kazaross"]["situation"]
    jacoby = client.get("/api/cube", params={"position": "4HPwATDgc/ABMA", "ply": 0, "jacoby": True}).json()
    assert "Jacoby on" in jacoby["situation"]
    refused = client.get("/api/cube", params={"position": match, "met": "woolsey"})
    assert refused.status_code == 400 and "unknown match equity table 'woolsey'" in refused.json()["detail"]


def test_an_xg_match_uploads_and_is_analysed(client):
    from test_xg import random_match  # tests/ is on sys.path under pytest
    from xg_builder import log_records, xg_file

    log = random_match()
    response = client.post("/api/analyze", params={"name": "m.xg", "ply": 0}, content=xg_file(log_records(log)))
    assert response.status_code == 200
    assert [p["name"] for p in response.json()["players"]] == list(log.players)
