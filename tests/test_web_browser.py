"""The web board in a real headless browser: Debian's Chromium driven by Playwright (no browser is downloaded).

The page is served by uvicorn on a free loopback port in a thread of this process. The test pastes an ID,
asks for a hint, clicks the best move and sees the board change, then plays a move against the bot and
sees the bot answer; it starts Acey-Deucey and Fevga from their own positions and asks Fevga for a
hint. Then what a player sees (issue 32): Cube and Evaluate analyse the position on the board, the
page fits a 1,300 px window, the match summary's labels, the game's buttons before a game, Analyse
in the match tab, and the bot's double. The tutor (issue 34) stops a blunder and a double far too early,
and lets the best play and action through; the Study tab deals a player's errors as cards; Roll out (issue 30)
draws its progress to 100% and the plays' table. Its screenshots
of the hint and of the tutor go to a temporary folder, or with GAMMON_PICTURES=1 to docs/web-board.png and
docs/web-tutor.png, the pictures in the README (so that a test run leaves the checkout as it was).
"""

import json
import os
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

import pytest

from gammon.app.study import question
from gammon.engine.records.match_files import load_match
from gammon.engine.review.match_analysis import analyse
from gammon.models.players import load_analyst

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

from gammon.app.web import listening_socket  # noqa: E402 (only once the web extra is known to be there)
from gammon.app.web.api import create_app

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
DOCS = Path(__file__).resolve().parents[1] / "docs"
OPENING = "4HPwATDgc/ABMA:cAkAAAAAAAAE"
SMALL_MATCH = Path(__file__).parent / "data" / "sgf" / "money.sgf"
STUDY_MATCH = Path(__file__).parent / "data" / "matches" / "gnubg-5pt.mat"

if not CHROMIUM.exists():
    pytest.skip(f"no Debian chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True)


@pytest.fixture(scope="module")
def url():
    server = uvicorn.Server(uvicorn.Config(create_app(), log_level="warning"))
    sock = listening_socket("127.0.0.1", 0)
    port = sock.getsockname()[1]
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start in 30 s"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}/"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(url):
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS)
        page = browser.new_page(viewport={"width": 1400, "height": 780})
        errors = []
        page.on("pageerror", lambda error: errors.append(error))
        page.goto(url)
        yield page
        browser.close()
        assert errors == [], f"the page raised: {errors}"


def test_paste_an_id_ask_a_hint_and_click_the_best_move(page, tmp_path):
    page.fill("#position", OPENING)
    page.click("#show-button")
    page.wait_for_selector("#board svg")
    assert "money: Jacoby" in page.inner_text("#summary")  # the server's situation line
    before = page.inner_html("#board")
    page.fill("#dice", "31")
    page.select_option("#ply", "0")
    page.click("#hint-button")
    best = page.wait_for_selector("#hints tr.best")
    assert "8/5 6/5" in best.inner_text()
    best.click()
    page.wait_for_selector("#board .arrow", state="attached")
    assert page.inner_html("#board") != before
    assert "after 8/5 6/5" in page.inner_text("#board")
    take_picture(page, tmp_path / "web-board.png")


def take_picture(page, path: Path) -> None:
    """A screenshot of the page at ``path``, or with GAMMON_PICTURES=1 in docs/ under the same name."""
    picture = DOCS / path.name if os.environ.get("GAMMON_PICTURES") == "1" else path
    page.screenshot(path=str(picture))
    assert picture.read_bytes().startswith(b"\x89PNG")


def test_bad_dice_are_a_message_on_the_page(page):
    page.fill("#dice", "71")
    page.click("#hint-button")
    page.wait_for_function("document.querySelector('#position-message').textContent.includes('dice are')")


def test_play_a_move_by_clicking_and_typing_and_see_the_bot_reply(page):
    page.click("[data-tab=play]")
    page.fill("#game-seed", "3")
    page.click("#new-game-button")
    page.wait_for_selector("#play-board svg")
    if page.is_enabled("#play-actions [data-command=roll]"):
        page.click("#play-actions [data-command=roll]")
    page.wait_for_function("document.querySelector('#play-status').textContent.startsWith('You rolled')")
    legal = page.eval_on_selector_all("#legal-moves option", "options => options.map(o => o.value)")
    first_step = legal[0].split()[0]  # seed 3 opens with plain steps like 8/3: no bar, no hit
    for point in first_step.split("/"):
        place = page.locator(f'#play-board polygon.point[data-point="{point}"]').bounding_box()
        page.mouse.click(place["x"] + place["width"] / 2, place["y"] + place["height"] / 2)
    assert page.input_value("#move") == first_step
    bot_moves = page.inner_text("#play-log").count("The bot rolls")
    page.fill("#move", legal[0])
    page.click("#play-button")
    page.wait_for_function(f"document.querySelector('#play-log').textContent.split('The bot rolls').length > "
                           f"{bot_moves + 1}")


def test_a_variant_starts_from_its_own_position_and_its_hints_follow_its_rules(page):
    page.click("[data-tab=position]")
    page.select_option("#variant", "acey-deucey")
    page.click("#start-button")
    page.wait_for_function("document.querySelector('#summary').textContent.includes('Pips: X 375')")
    assert page.input_value("#position") == "AAAAAAAAAAAAAA-15-15" and "15 to enter" in page.inner_text("#board")
    page.select_option("#variant", "fevga")
    page.click("#start-button")
    page.fill("#dice", "61")
    page.select_option("#ply", "0")
    page.click("#hint-button")
    only = page.wait_for_selector("#hints tr.best")  # the first checker runs alone (fevga's first rule)
    assert "24/17" in only.inner_text() and page.locator("#hints tbody tr").count() == 1


def test_roll_out_draws_its_progress_to_100_percent_then_the_plays_table(page):
    """R1 at 0-ply: the best 3 plays of 3-1, 108 games each."""
    page.click("[data-tab=position]")
    page.fill("#position", OPENING)
    page.select_option("#variant", "standard")
    page.fill("#dice", "31")
    page.select_option("#ply", "0")
    assert page.input_value("#level") == "R1"
    page.click("#rollout-button")
    page.wait_for_function("document.querySelector('#rollout h3')?.textContent.startsWith('Rolling out')")
    assert page.is_disabled("#rollout-button")
    page.wait_for_selector("#rollout table", timeout=60_000)
    assert "324 of 324 games (100%)" in page.inner_text("#rollout .progress")
    assert page.eval_on_selector("#rollout progress", "bar => bar.value") == 1
    assert "8/5 6/5" in page.inner_text("#rollout tr.best") and page.locator("#rollout tbody tr").count() == 3
    assert "108 games each (truncated at 5 turns, variance-reduced)" in page.inner_text("#rollout h3")
    assert page.is_enabled("#rollout-button")
    page.click("#cube-rollout-button")  # the cube actions of the same position, at the same level
    page.wait_for_selector("#cube-rollout table", timeout=60_000)
    assert "216 of 216 games (100%)" in page.inner_text("#cube-rollout .progress")
    assert page.locator("#cube-rollout tbody tr").count() == 3
    assert "Level R1: no double and double/take rolled out, 108" in page.inner_text("#cube-rollout h3")
    assert "Proper cube action: No double" in page.inner_text("#cube-rollout")
    assert page.is_enabled("#cube-rollout-button") and page.is_enabled("#rollout-button")


# -- what a player sees (issue 32) ------------------------------------------------------------------


def api(url: str, path: str, **params) -> dict:
    with urllib.request.urlopen(f"{url}{path}?{urllib.parse.urlencode(params)}", timeout=60) as answer:
        return json.load(answer)


def show_best_play_of_31(page):
    page.click("[data-tab=position]")
    page.fill("#position", OPENING)
    page.select_option("#variant", "standard")
    with page.expect_response("**/api/board?*"):
        page.click("#show-button")
    page.fill("#dice", "31")
    page.select_option("#ply", "0")
    page.click("#hint-button")
    page.wait_for_selector("#hints tr.best").click()
    page.wait_for_selector("#board .arrow", state="attached")


@pytest.mark.parametrize("button, result, path", [("#cube-button", "#cube-advice", "/api/cube"),
                                                  ("#eval-button", "#evaluation", "/api/eval")])
def test_cube_and_evaluate_analyse_the_position_after_the_hint_shown(page, url, button, result, path):
    """They analysed the position typed, before the play, while the board showed the position after it."""
    show_best_play_of_31(page)
    with page.expect_request(lambda request: path in request.url) as sent:
        page.click(button)
    page.wait_for_selector(f"{result} table")
    analysed = urllib.parse.parse_qs(urllib.parse.urlparse(sent.value.url).query)["position"][0]
    assert api(url, "api/board", position=analysed)["pips"] == [167, 163]  # the opponent to roll, after 8/5 6/5
    assert "after 8/5 6/5 with 3-1, for the side to roll next" in page.inner_text(f"{result} h3")


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth")


def test_the_page_fits_a_1300_pixel_window(page):
    page.set_viewport_size({"width": 1300, "height": 900})
    try:
        show_best_play_of_31(page)
        page.click("#cube-button")
        page.click("#eval-button")
        page.wait_for_selector("#evaluation table")
        assert no_sideways_scroll(page)
        analyse_the_small_match(page)
        assert no_sideways_scroll(page)
    finally:
        page.set_viewport_size({"width": 1400, "height": 780})


def analyse_the_small_match(page):
    page.click("[data-tab=match]")
    page.set_input_files("#match-file", str(SMALL_MATCH))
    page.click("#analyse-button")
    page.wait_for_function("document.querySelector('#match-message').textContent.includes('analysed at')")


def test_the_match_summary_has_the_labels_gammon_analyze_prints(page):
    analyse_the_small_match(page)
    summary = page.inner_text("#match-summary")
    assert "error rate (mp/decision)" in summary and "luck (mp/roll)" in summary
    assert "luck per roll mp" not in summary and "error rate mp" not in summary  # not the JSON's keys


def test_analyse_in_the_match_tab_analyses_the_decision(page):
    analyse_the_small_match(page)
    page.click("#analyse-decision")
    page.wait_for_selector("#hints table, #cube-advice table", timeout=20_000)  # before, it only drew the board
    assert page.is_visible("#position-tab")


def test_the_games_buttons_wait_for_a_game(page, url):
    page.goto(url)
    page.click("[data-tab=play]")
    for button in ("[data-command=roll]", "[data-command=double]", "#resign-button", "#play-button"):
        assert page.is_disabled(button), button


def drawn_after(page, click: str) -> None:
    """Click ``click`` and wait until the page has drawn the game the server answers with."""
    page.evaluate("window.gameBefore = play.game")
    page.click(click)
    page.wait_for_function("play.game !== window.gameBefore && !play.busy")


def test_while_the_bots_double_waits_the_page_does_not_say_you_are_on_roll(page):
    """Seed 1, playing the last legal move each turn: the bot doubles at your fourth prompt."""
    page.click("[data-tab=play]")
    page.fill("#game-seed", "1")
    drawn_after(page, "#new-game-button")
    for _ in range(10):
        if page.evaluate("play.game.prompt") == "answer":
            break
        if page.is_enabled("[data-command=roll]"):
            drawn_after(page, "[data-command=roll]")
        else:
            legal = page.eval_on_selector_all("#legal-moves option", "options => options.map(o => o.value)")
            page.fill("#move", legal[-1])
            drawn_after(page, "#play-button")
    assert page.is_enabled("[data-command=take]"), "the bot did not double in 10 prompts"
    seen = page.inner_text("#play-tab")
    assert "you (on roll)" not in seen and "X: bot (on roll)" in seen
    assert "X doubles to 2: O to take or pass" in page.inner_text("#play-situation")


# -- the tutor (issue 34) ----------------------------------------------------------------------------------


@pytest.fixture
def tutor_on(page):
    """The tutor switched on, at 0.04, for the games this test starts."""
    page.click("[data-tab=play]")
    page.check("#game-tutor")
    page.fill("#game-warn", "0.04")
    yield
    page.uncheck("#game-tutor")  # the other tests' games go untutored


def new_game_with_seed(page, seed: int) -> None:
    page.fill("#game-seed", str(seed))
    drawn_after(page, "#new-game-button")


def test_the_tutor_stops_a_blunder_and_lets_the_best_play_through(page, tutor_on, tmp_path):
    """Seed 0: you open with 6-4, where 8/4 8/2 loses about 0.4 to 24/18 13/9, the best by the bot's 0-ply hint."""
    new_game_with_seed(page, 0)
    page.fill("#move", "8/4 8/2")
    drawn_after(page, "#play-button")
    assert page.is_visible("#tutor-warning") and page.is_disabled("#play-button")
    warning = page.inner_text("#tutor-text")
    assert warning.startswith("8/4 8/2 loses 0.") and "24/18 13/9 is better, equity +0." in warning
    take_picture(page, tmp_path / "web-tutor.png")
    drawn_after(page, "#tutor-warning [data-command=n]")
    assert page.is_hidden("#tutor-warning") and page.is_enabled("#play-button")
    page.fill("#move", "24/18 13/9")
    drawn_after(page, "#play-button")
    assert page.is_hidden("#tutor-warning") and "You roll 6-4 and play 24/18 13/9." in page.inner_text("#play-log")


def test_the_tutor_stops_a_double_far_too_early_and_lets_you_roll(page, tutor_on):
    """Seed 1: the bot opens, then your roll, where doubling costs about 0.3."""
    new_game_with_seed(page, 1)
    drawn_after(page, "[data-command=double]")
    warning = page.inner_text("#tutor-text")
    assert warning.startswith("double loses 0.") and "no double is better" in warning
    drawn_after(page, "#tutor-warning [data-command=n]")
    drawn_after(page, "[data-command=roll]")
    assert page.is_hidden("#tutor-warning") and page.inner_text("#play-status").startswith("You rolled")
    assert "You double" not in page.inner_text("#play-log")


def test_the_study_tab_shows_a_players_errors_as_cards_with_the_decks_questions_and_answers(page):
    """gnubg-5pt.mat at 0-ply: Bob's two errors (Alice has none, so Bob is chosen), the cards gammon study writes."""
    log = load_match(STUDY_MATCH)
    deck = [j for j in analyse(log, load_analyst("default"), 0).judged
            if j.decision.player == 1 and j.grade in ("error", "blunder")]
    page.click("[data-tab=study]")
    page.set_input_files("#study-file", str(STUDY_MATCH))
    page.click("#study-button")
    page.wait_for_selector("#study-board svg")
    assert page.input_value("#study-player") == "1"
    for number, judged in enumerate(deck, 1):
        page.wait_for_function(f"document.querySelector('#study-count').textContent.startsWith('Card {number} of')")
        assert page.inner_text("#study-count").startswith(f"Card {number} of {len(deck)}")
        assert page.inner_text("#study-question") == question(judged)
        assert judged.decision.gnubgid in page.inner_text("#study-board")  # the card's position
        assert page.is_hidden("#study-answer")
        page.click("#show-answer")
        answer = page.inner_text("#study-answer")
        assert f"Best: {judged.best}" in answer and f"Played: {judged.played}" in answer and "To best" in answer
        page.click("#next-card")
    page.select_option("#study-player", "0")
    page.wait_for_function("document.querySelector('#study-message').textContent.includes('Alice made no error')")
    assert page.is_hidden("#study-card")
