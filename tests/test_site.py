"""The built site, as a reader sees it in a browser with no network.

`make test` builds the site first (tools/build_book.py), then this test opens the
chapter-2 page in headless Chromium (Debian's package, driven by Playwright), blocks
every request that leaves the site, and checks that math is typeset, figures load and
the static widget view's slider changes the frame. It keeps a screenshot under
_build/screenshots/ for people to look at.

The pages must also fit the screens they are read on: at 1366 px no code block or
output scrolls sideways, at 390 px every static widget fits the screen with its frames
sharp; no page logs a JavaScript error, every chapter image has an alt text that says
what it shows, and only the chapters and labs offer Colab/Binder launch buttons.
"""

from __future__ import annotations

import os
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# `make test` points ALICE_SITE at the quick copy of the site it builds.
HTML = ROOT / os.environ.get("ALICE_SITE", "_build/html")
SHOTS = ROOT / "_build" / "screenshots"
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

pytestmark = pytest.mark.browser


def _chromium() -> str:
    path = shutil.which("chromium") or shutil.which("chromium-browser")
    assert path, (
        "headless Chromium is missing: apt-get install -y chromium (.ci/run does it)"
    )
    return path


@pytest.fixture(scope="module")
def pw():
    """One Playwright driver for the module's browsers (two cannot run at once)."""
    from playwright.sync_api import sync_playwright

    assert (HTML / "index.html").exists(), (
        f"no site at {HTML}: run `make book` (or `make test`) first"
    )
    with sync_playwright() as driver:
        yield driver


def test_no_built_page_loads_anything_from_the_network():
    """Scripts, stylesheets and images of every page come from the site itself."""
    assert (HTML / "index.html").exists(), (
        f"no site at {HTML}: run `make book` (or `make test`) first"
    )
    remote = re.compile(
        r"<(?:script|img|iframe)[^>]*\ssrc=\"(https?://[^\"]+)\"|<link[^>]*\shref=\"(https?://[^\"]+)\"[^>]*rel=\"stylesheet\"|<link[^>]*rel=\"stylesheet\"[^>]*\shref=\"(https?://[^\"]+)\""
    )
    offenders = {}
    for page in HTML.rglob("*.html"):
        found = [
            next(g for g in m.groups() if g)
            for m in remote.finditer(page.read_text(encoding="utf-8"))
        ]
        if found:
            offenders[str(page.relative_to(HTML))] = found[:3]
    assert not offenders, f"pages that would load remote resources: {offenders}"


# Static widget views each chapter must show (issue requirements: two per Part I
# chapter, three for chapter 6).
MIN_STATIC_WIDGETS = {
    "ch01_introduction": 0,
    "ch02_preliminaries": 1,
    "ch03_datasets_losses": 2,
    "ch04_linear_models": 2,
    "ch05_fully_connected": 2,
    "ch06_automatic_differentiation": 3,
    "ch07_convolutions": 3,
    "ch08_beyond_images": 3,
    "ch09_scaling_up": 3,
    "ch10_transformers": 3,
    "ch11_transformers_in_practice": 3,
    "ch12_graph_models": 3,
    "ch13_recurrent_models": 3,
    "appA_probability": 2,
    "appB_universal_approximation": 2,
}


def test_every_chapter_page_is_checked_here():
    built = {p.stem for p in (HTML / "book").glob("ch*.html")}
    built |= {p.stem for p in (HTML / "book").glob("app*.html")}
    assert built == set(MIN_STATIC_WIDGETS), built ^ set(MIN_STATIC_WIDGETS)


# --- pages that fit -----------------------------------------------------------------
# The checks below open pages at a laptop's width (1366 px) and a phone's (390 px),
# each in a fresh browser context (empty storage, as a first visit) that records every
# console error and uncaught exception.

DESKTOP, PHONE = 1366, 390
#: myst-nb names a figure's file after the SHA-256 of the image: an alt text that looks
#: like that (or like a file name) says nothing about the figure.
HASH_ALT = re.compile(r"[0-9a-f]{16,}|\.(png|jpe?g|svg)$", re.IGNORECASE)
LEAVING_THE_SITE = re.compile(r"^(?!(file|data|blob|about):)")
MATH_READY = "() => window.MathJax && MathJax.startup && MathJax.startup.promise"


@pytest.fixture(scope="module")
def open_at(pw):
    """``open_at(path, width) -> (page, errors, outside)``: the page (relative to the
    site) in a fresh context of that viewport width, its math typeset, the network
    blocked; console errors and uncaught exceptions are collected in ``errors``, the
    requests that tried to leave the site in ``outside``."""
    browser = pw.chromium.launch(
        executable_path=_chromium(), headless=True, args=CHROMIUM_FLAGS
    )
    contexts = []

    def opener(path: str, width: int):
        while contexts:  # one page open at a time
            contexts.pop().close()
        context = browser.new_context(viewport={"width": width, "height": 900})
        contexts.append(context)
        outside: list[str] = []

        def only_local(route):
            outside.append(route.request.url)
            return route.abort()

        # a pattern (not a callback) lets the browser pass local files straight on
        context.route(LEAVING_THE_SITE, only_local)
        page = context.new_page()
        errors: list[str] = []
        page.on(
            "console", lambda m: errors.append(m.text) if m.type == "error" else None
        )
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        page.goto((HTML / path).as_uri(), wait_until="load")
        if page.locator("script[src*='mathjax']").count():
            page.wait_for_function(MATH_READY, timeout=20_000)
            page.evaluate("() => MathJax.startup.promise")
        return page, errors, outside

    yield opener
    for context in contexts:
        context.close()
    browser.close()


def _typeset(page) -> None:
    """Math typeset, no formula failed, no raw TeX left in the text."""
    assert page.locator("mjx-merror").count() == 0, "formulas failed to typeset"
    raw = re.findall(r"\\\(|\\\)|\\\[|\$\$", page.inner_text("main"))
    assert not raw, f"untypeset TeX left on the page: {raw[:5]}"


def _widgets_move(page, minimum: int) -> None:
    """Each static widget's slider, pushed to its end, shows another frame."""
    animations = page.locator(".animation")
    count = animations.count()
    assert count >= minimum, f"{count} static widget views, expected {minimum}"
    for i in range(count):
        anim = animations.nth(i)
        slider, frame = anim.locator("input[type=range]"), anim.locator("img")
        before = frame.get_attribute("src")
        slider.evaluate(
            "el => { el.value = el.max; el.dispatchEvent(new Event('input')); }"
        )
        assert frame.get_attribute("src") != before, f"animation {i} does not move"


def _nothing_scrolls_sideways(page) -> None:
    """No code input or output wider than its box: code lines fit (<= 88
    characters) and long output lines wrap."""
    wide = page.eval_on_selector_all(
        "main div.highlight pre, main .cell_output",
        """els => els
            .filter(e => e.scrollWidth > e.clientWidth + 1)
            .map(e => `${e.scrollWidth} > ${e.clientWidth}: `
                      + e.textContent.trim().slice(0, 70))""",
    )
    assert not wide, f"{len(wide)} blocks scroll sideways, e.g. {wide[:3]}"


def _images_load_and_say_what_they_show(page) -> None:
    images = page.eval_on_selector_all(
        "main img",
        "els => els.map(e => [e.getAttribute('src'), e.alt, e.naturalWidth])",
    )
    broken = [(src or "")[:60] for src, _, width in images if width == 0]
    assert not broken, f"images that did not load: {broken}"
    bad = [
        (src or "")[:60]
        for src, alt, _ in images
        if not (alt or "").strip() or HASH_ALT.search(alt)
    ]
    assert not bad, f"{len(bad)} of {len(images)} images lack a description: {bad[:3]}"


@pytest.mark.parametrize("name", sorted(MIN_STATIC_WIDGETS))
def test_chapter_page_at_1366px(open_at, name):
    """One visit per chapter, as a reader on a laptop: math typeset, every image
    loaded and described, every static widget moves, nothing scrolls sideways, no
    console error, no request leaves the site."""
    page, errors, outside = open_at(f"book/{name}.html", DESKTOP)
    _typeset(page)
    _images_load_and_say_what_they_show(page)
    _widgets_move(page, MIN_STATIC_WIDGETS[name])
    _nothing_scrolls_sideways(page)
    assert not errors, f"console errors: {errors[:3]}"
    assert outside == [], f"the page tried to reach the network: {outside[:5]}"


def test_chapter2_in_detail(open_at):
    """The model chapter: many formulas and figures, the widget's frame changes, code
    keeps its indentation, one search box; screenshots for people to look at."""
    page, _, _ = open_at("book/ch02_preliminaries.html", DESKTOP)
    assert page.locator("mjx-container").count() > 20, "MathJax rendered no math"
    sources = page.eval_on_selector_all("main img", "els => els.map(e => e.src)")
    assert len([s for s in sources if "_images/" in s]) >= 4, "figures are missing"
    style = page.eval_on_selector(
        "main .cell_input div.highlight pre", "e => getComputedStyle(e).whiteSpace"
    )
    assert style == "pre", f"code inputs are laid out with white-space: {style}"
    boxes = page.eval_on_selector_all(
        ".search-button-field, form.bd-search",
        "els => els.filter(e => e.getClientRects().length"
        " && getComputedStyle(e).visibility !== 'hidden').length",
    )
    assert boxes == 1, f"{boxes} search boxes are visible"
    last = int(page.locator(".animation input[type=range]").first.get_attribute("max"))
    assert last >= 10, f"the animation has only {last + 1} frames"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.locator(".animation").first.screenshot(path=str(SHOTS / "ch02_widget.png"))
    page.screenshot(path=str(SHOTS / "ch02_preliminaries.png"), full_page=True)
    assert (SHOTS / "ch02_preliminaries.png").stat().st_size > 50_000


def _fits(page, width: int) -> None:
    """Nothing on the page is wider than the screen, and no table cell's text is
    cut: each cell's content fits inside it."""
    overflow = page.evaluate("document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than a {width} px screen"
    cut = page.eval_on_selector_all(
        "table.alice-claims-table, table.alice-claims-table td",
        """els => els
            .filter(e => e.scrollWidth > e.clientWidth + 1)
            .map(e => `${e.scrollWidth} > ${e.clientWidth}: `
                      + e.textContent.trim().slice(0, 50))""",
    )
    assert not cut, f"{len(cut)} cells cut off at {width} px, e.g. {cut[:3]}"
    right = page.eval_on_selector_all(
        "table.alice-claims-table",
        "els => els.map(e => e.getBoundingClientRect().right)"
        ".filter(r => r > innerWidth + 0.5)",
    )
    assert not right, f"tables reach past the right edge at {width} px: {right[:3]}"


def _visible_chapters(page) -> list[str]:
    return page.eval_on_selector_all(
        "[data-claims-chapter]",
        "els => els.filter(e => e.getClientRects().length)"
        ".map(e => e.dataset.claimsChapter)",
    )


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_claims_page_lists_every_claim_and_fits(open_at, width):
    """Every registered claim has a row, each holding (the chapters' own runs), and
    the page fits a laptop and a phone."""
    from alice_course import claims

    page, errors, _ = open_at("book/claims.html", width)
    registered = {c.id for c in claims.all_claims()}
    rows = page.eval_on_selector_all(
        "table.alice-claims-table tbody tr", "els => els.map(e => [e.id, e.className])"
    )
    assert {i for i, _ in rows} == registered and len(rows) == len(registered)
    assert {k for _, k in rows} == {"alice-row-holds"}, "claims not holding"
    _fits(page, width)
    assert not errors, errors[:3]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"claims_{width}.png"))


def test_claims_page_filters_by_chapter(open_at):
    """A chapter link shows that chapter alone (and its address says so); "all"
    shows every chapter again."""
    page, errors, _ = open_at("book/claims.html", DESKTOP)
    every = _visible_chapters(page)
    assert len(every) >= 15 and every[:2] == ["1", "2"]
    page.click(".alice-chapter-filter a[data-chapter='7']")
    page.wait_for_function("() => location.hash === '#claims-ch7'")
    assert _visible_chapters(page) == ["7"]
    ids = page.eval_on_selector_all(
        "table.alice-claims-table tbody tr",
        "els => els.filter(e => e.getClientRects().length).map(e => e.id)",
    )
    assert ids and all(re.match(r"^[CE]7-", i) for i in ids), ids[:5]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "claims_ch7.png"))
    page.click(".alice-chapter-filter a[data-chapter='all']")
    page.wait_for_function("() => location.hash === '#claims-all'")
    assert _visible_chapters(page) == every
    assert not errors, errors[:3]


def test_claims_link_lands_on_the_verify_block(open_at):
    """A claim's id links to its ✓ block on the chapter page: the block is the
    page's target, on screen below the sticky header."""
    chapter, errors, _ = open_at("book/claims.html", DESKTOP)
    href = chapter.get_attribute("tr#C7-03 td.alice-id a", "href")
    assert href == "ch07_convolutions.html#claim-C7-03", href
    chapter.click("tr#C7-03 td.alice-id a")  # as a reader does
    chapter.wait_for_url("**/ch07_convolutions.html#claim-C7-03")
    chapter.wait_for_load_state("load")
    chapter.wait_for_timeout(300)  # the theme's scroll handling
    box = chapter.evaluate(
        """() => { const t = document.querySelector(':target');
                   if (!t) return null;
                   const r = t.getBoundingClientRect();
                   const h = document.querySelector('header.bd-header, .bd-header');
                   const below = h ? h.getBoundingClientRect().bottom : 0;
                   return {cls: t.className, top: r.top, below: below,
                           text: t.innerText.slice(0, 40)}; }"""
    )
    assert box and "alice-claim" in box["cls"], box
    assert box["below"] - 1 <= box["top"] < 900, box
    assert "C7-03" in box["text"], box
    chapter.screenshot(path=str(SHOTS / "claim_C7-03_target.png"))
    assert not errors, errors[:3]


@pytest.mark.parametrize("width", [DESKTOP, PHONE])
def test_errata_page_shows_printed_and_corrected(open_at, width):
    from alice_course import claims

    page, errors, _ = open_at("book/errata.html", width)
    errata = [c for c in claims.all_claims() if c.erratum]
    rows = page.eval_on_selector_all(
        "table.alice-errata-list tbody tr",
        """els => els.map(e => [e.id,
              e.querySelector('td.alice-printed').innerText,
              e.querySelector('td.alice-corrected').innerText])""",
    )
    assert [r[0] for r in rows] == [c.id for c in errata]
    _, printed, corrected = rows[0]
    assert errata[0].erratum in printed and errata[0].statement in corrected
    _fits(page, width)
    assert not errors, errors[:3]
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"errata_{width}.png"))


def test_no_other_page_logs_a_javascript_error(open_at):
    """Every page but the chapters and the claims and errata pages (checked above),
    opened as a first visit; of the API reference pages (one Sphinx template, autodoc
    content) the index and every eighth page, of the student labs (one template, no
    outputs) every sixth."""
    pages = sorted(
        p.relative_to(HTML).as_posix()
        for p in HTML.rglob("*.html")
        if not p.relative_to(HTML).parts[0].startswith("_")
        and p.stem not in MIN_STATIC_WIDGETS
    )
    assert len(pages) > 30, pages
    api = [p for p in pages if p.startswith("api/") and p != "api/index.html"]
    assert len(api) > 20, api
    labs = [p for p in pages if p.startswith("labs/student/")]
    assert len(labs) > 5, labs
    checked = {"book/claims.html", "book/errata.html"}
    rest = [p for p in pages if p not in api and p not in labs and p not in checked]
    pages = rest + api[::8] + labs[::6]
    found = {}
    for path in pages:
        page, errors, _ = open_at(path, DESKTOP)
        page.wait_for_timeout(100)  # async scripts (the theme's, sphinx-thebe)
        if errors:
            found[path] = errors[:3]
    assert not found, f"{len(found)} pages log errors, e.g. {list(found.items())[:3]}"


@pytest.mark.parametrize(
    "name", sorted(n for n, count in MIN_STATIC_WIDGETS.items() if count)
)
def test_static_widgets_fit_a_phone_and_are_sharp(open_at, name):
    """At 390 px each static widget lies inside the screen, its "+" (faster) button
    can be pressed, and its frames have at least 1.5 image pixels per CSS pixel."""
    page, errors, _ = open_at(f"book/{name}.html", PHONE)
    assert not errors, f"console errors at {PHONE} px: {errors[:3]}"
    overflow = page.evaluate("document.documentElement.scrollWidth - innerWidth")
    assert overflow <= 0, f"the page is {overflow} px wider than a {PHONE} px screen"
    animations = page.locator(".animation")
    assert animations.count() >= MIN_STATIC_WIDGETS[name]
    for i in range(animations.count()):
        anim = animations.nth(i)
        anim.scroll_into_view_if_needed()
        box = anim.bounding_box()
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE + 0.5, (
            f"animation {i} spans x = {box['x']:.0f}…{box['x'] + box['width']:.0f} "
            f"on a {PHONE} px screen"
        )
        plus = anim.locator("button[title='Increase speed']")
        plus.scroll_into_view_if_needed()
        reachable = plus.evaluate(
            """b => { const r = b.getBoundingClientRect();
                      const hit = document.elementFromPoint(r.x + r.width / 2,
                                                            r.y + r.height / 2);
                      return r.right <= window.innerWidth && r.width > 0
                             && (hit === b || b.contains(hit)); }"""
        )
        assert reachable, f"animation {i}: the '+' button is off screen or covered"
        density = anim.locator("img").evaluate(
            "img => img.naturalWidth / img.getBoundingClientRect().width"
        )
        assert density >= 1.5, (
            f"animation {i}: {density:.2f} image pixels per CSS pixel (blurry)"
        )


@pytest.mark.parametrize(
    ("page", "launchable"),
    [
        ("book/ch02_preliminaries.html", True),
        ("labs/student/lab02_gradient_descent.html", True),
        ("book/claims.html", False),
        ("book/errata.html", False),
        ("book/benchmarks.html", False),
        ("book/instructors.html", False),
        ("credits.html", False),
        ("api/index.html", False),
    ],
)
def test_launch_buttons_only_where_the_notebook_runs(page, launchable):
    """Colab and Binder open the chapters and labs; the Claims, Errata and Benchmarks
    pages read the site build's records and are not meant to run there."""
    path = HTML / page
    assert path.exists(), f"no {page} in the site"
    text = path.read_text(encoding="utf-8")
    has = "dropdown-launch-buttons" in text
    assert has == launchable, (
        f"{page}: launch buttons {'missing' if launchable else 'offered'}"
    )
