"""The manual as the README tells a person to open it: ``site/index.html`` from the file system, in a real
browser (Debian's Chromium through Playwright), with no server and no network. Its links open pages (not
folder listings), its search finds things, and nothing on any page is cut off at a desktop's size or a
phone's: a long command line wraps instead of hiding its end."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page, expect, sync_playwright

from tests.browser import CHROMIUM, CHROMIUM_ARGS

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The manual built as ``make docs`` builds it, into a folder of the test's."""
    folder = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(folder)]
    subprocess.run(mkdocs, cwd=REPO, env=env, check=True, timeout=120)
    return folder


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} is missing: sudo apt-get install chromium (make test installs it)")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield launched
        launched.close()


def _page(browser: Browser, width: int, height: int) -> Page:
    page = browser.new_page(viewport={"width": width, "height": height})
    page.set_default_timeout(20_000)
    return page


def test_the_manual_opened_from_the_file_system_follows_its_links_and_searches(
    site: Path, browser: Browser
) -> None:
    page = _page(browser, 1440, 900)
    page.goto((site / "index.html").as_uri())
    page.get_by_role("link", name="Getting started").first.click()
    expect(page.locator("h1")).to_contain_text("Getting started")
    assert page.url.endswith("/start.html")
    assert "Index of" not in page.content()
    # the search box, as a person uses it: click, type, pick a result
    page.locator(".md-search__input").click()
    page.keyboard.type("resume", delay=30)
    expect(page.locator(".md-search-result__meta")).to_contain_text("matching document")
    result = page.locator(".md-search-result__link").first
    expect(result).to_be_visible()
    result.click()
    expect(page.locator("h1")).to_be_visible()
    assert page.url.startswith("file://") and ".html" in page.url
    page.close()


@pytest.mark.parametrize(("width", "height"), [(1440, 900), (390, 844)], ids=["desktop", "phone"])
def test_no_page_of_the_manual_cuts_anything_off(
    site: Path, browser: Browser, width: int, height: int
) -> None:
    page = _page(browser, width, height)
    cut: list[str] = []
    for html in sorted(site.glob("*.html")):
        if html.name == "404.html":
            continue
        page.goto(html.as_uri())
        wide = page.evaluate(
            """() => [...document.querySelectorAll('pre > code')]
                .filter(code => code.scrollWidth > code.clientWidth + 1)
                .map(code => code.textContent.split('\\n').sort((a, b) => b.length - a.length)[0])"""
        )
        cut += [f"{html.name}: {line!r}" for line in wide]
        overflow = page.evaluate("() => document.documentElement.scrollWidth - window.innerWidth")
        if overflow > 1:
            cut.append(f"{html.name}: the page is {overflow} px wider than the window")
    page.close()
    assert not cut, "cut off:\n" + "\n".join(cut)
