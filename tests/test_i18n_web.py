"""The page in the page's language (issue 39), in Debian's Chromium through Playwright, over a game against
the engine under way (1. Nf3 played, the page to move): under the pseudo-language no word of the page, the
saved game's viewer, the settings or the training page escaped translation (every text a person sees, and
every title, aria-label, placeholder and alt, is wrapped in ⟦ ⟧ but for moves, squares, names and
numbers); in every language the table speaks no text is wider than its box at a phone's size (390 x 844)
and a desktop's (1440 x 900); the page follows the browser's language, shows the moves with the language's
piece letters and reads a move typed in them; its menu changes the language and a reload keeps it; and a
table set to a language has the page speak it. The server answers a request in the language it asks for.

The texts the table itself makes outside a request (the live status line, notices) are in the table's
language, not the page's: they are the game's words, checked by the game's own tests, and left out here.
"""

from __future__ import annotations

import re
import tempfile
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from playwright.sync_api import Browser, Page, expect

from chessatron.config import Config, default_config_text
from chessatron.game.requests import GameRequest
from chessatron.game.runner import GameRunner
from chessatron.i18n import LANGUAGES, PSEUDO, translations
from chessatron.i18n.notation import san_in
from chessatron.web.app import create_app
from chessatron.web.server import ServerHandle, start_in_thread, start_watch_page

from .browser import ENGINE_LEVEL, TIMEOUT_MS, Watched, browser_fixture  # noqa: F401 (the fixture browser)
from .conftest import wait_for

PHONE = (390, 844)
DESKTOP = (1440, 900)

#: Every text a person meets on the page, with where it is: visible text nodes, and the titles, labels,
#: placeholders and alternative texts of every element (a tooltip or a screen reader says them).
TEXTS = """() => {
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.textContent.trim();
    const parent = node.parentElement;
    if (!text || !parent || parent.closest("script, style, cg-container, coords")) continue;
    if (!parent.checkVisibility({ visibilityProperty: true })) continue;
    found.push([parent.id || parent.className || parent.tagName, text]);
  }
  for (const element of document.querySelectorAll("[title], [aria-label], [placeholder], img[alt]")) {
    for (const name of ["title", "aria-label", "placeholder", "alt"]) {
      const value = element.getAttribute(name);
      if (value) found.push([`${element.id || element.tagName}@${name}`, value]);
    }
  }
  for (const title of document.querySelectorAll("svg title")) found.push(["svg title", title.textContent]);
  found.push(["document.title", document.title]);
  return found;
}"""

#: What may stand outside ⟦ ⟧: moves (SAN, UCI, a move number), squares, players as the command line names
#: them (engine:20:depth=1), names (of the program, the engine, formats, the hardware), and the months and
#: times of dates as Intl writes them in English (the pseudo-language's dates and numbers are English ones).
ALLOWED = re.compile(
    r"(\d+[.…]*)?(O-O(-O)?|[KQRBN]?[a-h]?[1-8]?x?[a-h][1-8](=[QRBN])?|[a-h][1-8][a-h][1-8][qrbn]?)[+#]?[!?]*"
    r"|(web|engine|hand|board|voice|buttons|keyboard)(:[\w=.]+)*"
    r"|chessatron|Stockfish|PGN|FEN|GRBL|Chess960|lichess|UTC"
    r"|Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|AM|PM"
)
WORD = re.compile(r"[A-Za-z]{3,}")


def escaped(text: str) -> list[str]:
    """The runs of English letters in ``text`` that stand outside ⟦ ⟧ and are none of :data:`ALLOWED`."""
    outside = text
    while True:
        inner = re.sub(r"⟦[^⟦⟧]*⟧", " ", outside)
        if inner == outside:
            break
        outside = inner
    words = []
    for token in outside.split():
        bare = token.strip("()[],.;:'\"«»‹›·–—…?!").removesuffix("'s")
        if WORD.search(bare) and not ALLOWED.fullmatch(bare):
            words.append(token)
    return words


#: Text elements whose text is wider than their box (a word cut or running past its edge), and a page
#: wider than the screen.
OVERFLOWS = """() => {
  const found = [];
  if (document.documentElement.scrollWidth > window.innerWidth + 1) {
    found.push(`the page is ${document.documentElement.scrollWidth} px wide`);
  }
  for (const element of document.body.querySelectorAll("*")) {
    if (element.closest("cg-container, svg, input, select, textarea, dialog:not([open])")) continue;
    const own = [...element.childNodes].some((n) => n.nodeType === Node.TEXT_NODE && n.textContent.trim());
    if (!own || !element.checkVisibility()) continue;
    const style = getComputedStyle(element);
    if (style.display === "inline" || ["auto", "scroll"].includes(style.overflowX)) continue;
    if (element.scrollWidth > element.clientWidth + 1) {
      const name = element.id || element.className || element.tagName;
      found.push(`${name}: ${element.textContent.trim().slice(0, 60)}`);
    }
  }
  return found;
}"""


#: The page laid out again after a change of the window's size (the board follows in the next frame).
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[GameRunner, ServerHandle, Path]]:
    """A game against the engine on the simulator, the page to move after 1. Nf3 and the engine's answer;
    its page with the settings of a config file."""
    with (
        tempfile.TemporaryDirectory() as folder,
        GameRunner(
            Config.default(),
            games_dir=Path(folder) / "games",
            speed=None,
            state_path=Path(folder) / "sim.json",
        ) as runner,
    ):
        config = Path(folder) / "chessatron.toml"
        config.write_text(default_config_text(), encoding="utf-8")
        app = create_app(runner, runner.live, token=None, games_dir=runner.games_dir, config_path=config)
        with start_in_thread(app) as server:
            runner.start_game(GameRequest(white="web", black=f"engine:{ENGINE_LEVEL}"))
            wait_for(runner.live, lambda state: state["prompt"] is not None)
            runner.move("Nf3")
            wait_for(
                runner.live, lambda state: state["prompt"] is not None and len(state["game"]["uci"]) == 2
            )
            yield runner, server, Path(folder)
            runner.stop()
            runner.wait(30)


def opened(browser: Browser, url: str, size: tuple[int, int], *, locale: str | None = None) -> Watched:
    """The page at ``url`` in a new window of ``size``, the browser's language ``locale``, its words in."""
    context = browser.new_context(viewport={"width": size[0], "height": size[1]}, locale=locale)
    page = context.new_page()
    page.set_default_timeout(TIMEOUT_MS)
    watched = Watched(page)
    page.goto(url)
    words_in(page)
    return watched


def words_in(page: Page) -> None:
    """Wait for the page's words in its language (until then it shows nothing)."""
    expect(page.locator("html")).not_to_have_class(re.compile("i18n-loading"))


def table_words(runner: GameRunner) -> set[str]:
    """What the table says outside a request (its status, its notices), as the page may show it."""
    state = runner.live.snapshot()
    said = [state["status"], *(notice["message"] for notice in state["notices"])]
    return {text for words in said for text in (words, words[:1].upper() + words[1:])}


def untranslated(page: Page, ignored: set[str]) -> list[str]:
    return [
        f"{where}: {text!r} ({', '.join(words)})"
        for where, text in page.evaluate(TEXTS)
        if text not in ignored and (words := escaped(text))
    ]


def test_the_pseudo_language_leaves_no_word_of_the_page_untranslated(
    browser: Browser, served: tuple[GameRunner, ServerHandle, Path]
) -> None:
    runner, server, _folder = served
    watched = opened(browser, server.url + "?lang=pseudo", DESKTOP)
    page = watched.page
    expect(page.locator("#turn")).to_have_text("⟦Ŷöüŕ ɱöṽé⟧")
    expect(page.locator("#moves .ply")).to_have_count(2)
    page.click("#engine-toggle")  # the engine's view and its words
    # a refusal the server writes, in the page's language: the page says which on every request
    page.fill("#move-form input[name=move]", "e9")
    page.locator("#move-form button").click()
    expect(page.locator("#error")).to_have_text(re.compile("^⟦'e9' îš ñöţ à ɱöṽé"))
    page.locator("#settings summary").click()
    expect(page.locator("#settings-list .setting").first).to_be_visible()
    # not the page's words: the languages' own names (the menu), and the config's (chessatron.config_keys:
    # each key's title and help, translated by the server where they are marked, and the values it takes)
    settings = page.request.get(server.url + "api/v1/settings", headers={"accept-language": PSEUDO}).json()
    theirs = {*LANGUAGES.values(), *page.locator("#settings-list option").all_inner_texts()}
    theirs |= {text for key in settings["keys"] for text in (key["title"], key["doc"])}
    problems = untranslated(page, table_words(runner) | theirs)
    page.locator("#games tr.game button.view").first.click()  # the saved game's viewer
    expect(page.locator("#viewer-moves .ply")).to_have_count(2)
    problems += untranslated(page, table_words(runner) | theirs)
    page.goto(server.url + "training")
    words_in(page)
    expect(page.locator("#review-game option")).to_have_count(1)
    problems += untranslated(page, table_words(runner) | theirs)
    assert not problems, "\n".join(problems)
    assert [error for error in watched.errors if "status of 400" not in error] == []  # (the move refused)
    page.context.close()


@pytest.fixture(scope="module")
def window(browser: Browser, served: tuple[GameRunner, ServerHandle, Path]) -> Iterator[Watched]:
    """One window for the languages in turn (each loads the page again in its language)."""
    watched = opened(browser, served[1].url, PHONE)
    yield watched
    watched.page.context.close()


@pytest.mark.parametrize("language", [PSEUDO, *LANGUAGES])
def test_no_text_is_wider_than_its_box_in_any_language(
    window: Watched, served: tuple[GameRunner, ServerHandle, Path], language: str
) -> None:
    _runner, server, _folder = served
    page = window.page
    cut = []
    for url, ready in (
        (f"{server.url}?lang={language}", "#moves .ply"),
        (f"{server.url}training", "#review-game option"),
    ):
        page.set_viewport_size({"width": PHONE[0], "height": PHONE[1]})
        page.goto(url)
        words_in(page)
        expect(page.locator("html")).to_have_attribute("lang", "en" if language == PSEUDO else language)
        expect(page.locator(ready).first).to_be_attached()
        for width, height in (PHONE, DESKTOP):
            page.set_viewport_size({"width": width, "height": height})
            page.evaluate(SETTLED)
            cut += [f"{url} at {width}x{height}: {found}" for found in page.evaluate(OVERFLOWS)]
    assert not cut, "\n".join(cut)
    assert not window.errors


def test_the_page_follows_the_browser_and_its_menu_and_reads_moves_in_the_language(
    browser: Browser, served: tuple[GameRunner, ServerHandle, Path]
) -> None:
    runner, server, _folder = served
    watched = opened(browser, server.url, PHONE, locale="de-DE")
    page = watched.page
    expect(page.locator("html")).to_have_attribute("lang", "de")  # the browser's language
    expect(page.locator("#language")).to_have_value("de")
    expect(page.locator("#language option:checked")).to_have_text("Deutsch")
    expect(page.locator("#moves .ply").first).to_have_text("Sf3")  # 1. Nf3, with German letters
    expect(page.locator("#connection")).to_have_text(translations("de").gettext("live"))

    # a move typed with the page's letters: the knight is S(pringer)
    page.fill("#move-form input[name=move]", "Sc3")
    page.locator("#move-form button").click()
    expect(page.locator("#moves .ply")).to_have_count(4)
    expect(page.locator("#moves .ply").nth(2)).to_have_text("Sc3")
    answer = runner.live.snapshot()["game"]["san"][3]
    expect(page.locator("#moves .ply").nth(3)).to_have_text(san_in(answer, "de"))

    # the menu: each language in its own name; the page speaks the one chosen, and again after a reload
    page.select_option("#language", "fr")
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("#moves .ply").first).to_have_text("Cf3")  # the knight is C(avalier)
    assert page.locator("#language option").all_inner_texts() == list(LANGUAGES.values())
    page.reload()
    expect(page.locator("html")).to_have_attribute("lang", "fr")
    expect(page.locator("#language")).to_have_value("fr")
    expect(page.locator("#connection")).to_have_text(translations("fr").gettext("live"))
    assert not watched.errors
    page.context.close()

    # a table set to a language (--lang, the config's language): the page speaks it, whatever the browser's
    with start_watch_page(runner.live, language="it") as watching:
        page = opened(browser, watching.url, PHONE, locale="de-DE").page
        expect(page.locator("html")).to_have_attribute("lang", "it")
        expect(page.locator("#moves .ply").first).to_have_text("Cf3")
        page.context.close()


def test_the_server_answers_in_the_language_asked_for(
    served: tuple[GameRunner, ServerHandle, Path],
) -> None:
    """A refusal's reason in the language the request asks for (``Accept-Language``, ``?lang=``), the
    table's otherwise; the page's catalog of each language; the keys and codes English."""
    _runner, server, _folder = served
    with httpx.Client(base_url=server.url) as client:
        english = client.post("/api/v1/move", json={"move": "e4;ls"})
        pseudo = client.post(
            "/api/v1/move", json={"move": "e4;ls"}, headers={"accept-language": "pseudo, en"}
        )
        asked = client.post("/api/v1/move?lang=pseudo", json={"move": "e4;ls"})
        catalog = client.get("/i18n/pseudo.json").json()
        unknown = client.get("/i18n/klingon.json")
    assert english.status_code == pseudo.status_code == asked.status_code == 400
    assert english.json()["error"].startswith("'e4;ls' is not a move")
    assert pseudo.json()["error"].startswith("⟦'e4;ls' îš ñöţ à ɱöṽé")
    assert asked.json()["error"] == pseudo.json()["error"]
    assert catalog["letters"] == "KQRBN" and catalog["messages"]["Your move"] == "⟦Ŷöüŕ ɱöṽé⟧"
    assert catalog["plurals"]["{count} move"] == ["⟦{count} ɱöṽé⟧", "⟦{count} ɱöṽéš⟧"]
    assert unknown.status_code == 404 and "klingon" in unknown.json()["error"]
