"""The built site, as a reader sees it in a browser with no network.

`make test` builds the site first (tools/build_book.py), then this test opens the
chapter-2 page in headless Chromium (Debian's package, driven by Playwright), blocks
every request that leaves the site, and checks that math is typeset, figures load and
the static widget view's slider changes the frame. It keeps a screenshot under
_build/screenshots/ for people to look at.
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
def browser_page(tmp_path_factory):
    from playwright.sync_api import sync_playwright

    assert (HTML / "index.html").exists(), (
        f"no site at {HTML}: run `make book` (or `make test`) first"
    )
    profile = tmp_path_factory.mktemp("chromium-profile")
    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(profile),
            executable_path=_chromium(),
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        outside: list[str] = []

        def only_local(route):
            url = route.request.url
            if url.startswith(("file:", "data:", "blob:", "about:")):
                return route.continue_()
            outside.append(url)
            return route.abort()

        context.route("**/*", only_local)
        page = context.new_page()
        yield page, outside
        context.close()


def _open(page, name: str) -> None:
    page.goto((HTML / "book" / f"{name}.html").as_uri(), wait_until="load")
    if page.locator("script[src*='mathjax']").count() == 0:
        return  # a page without math loads no MathJax
    page.wait_for_function(
        "() => window.MathJax && MathJax.startup && MathJax.startup.promise",
        timeout=20_000,
    )
    page.evaluate("() => MathJax.startup.promise")


def test_chapter2_math_is_typeset(browser_page):
    page, outside = browser_page
    _open(page, "ch02_preliminaries")
    assert page.locator("mjx-container").count() > 20, (
        "MathJax rendered (almost) no math"
    )
    text = page.inner_text("main")
    raw = re.findall(r"\\\(|\\\)|\\\[|\$\$", text)
    assert not raw, f"untypeset TeX left on the page: {raw[:5]}"
    errors = page.locator("mjx-merror").count()
    assert errors == 0, f"{errors} formulas failed to typeset (unknown macros?)"
    assert outside == [], f"the page tried to reach the network: {outside[:5]}"


def test_chapter2_figures_load(browser_page):
    page, _ = browser_page
    _open(page, "ch02_preliminaries")
    sizes = page.eval_on_selector_all(
        "main img", "els => els.map(e => [e.getAttribute('src'), e.naturalWidth])"
    )
    figures = [s for s in sizes if "_images/" in (s[0] or "")]
    assert len(figures) >= 4, f"expected the chapter's figures, found {figures}"
    broken = [src for src, width in sizes if width == 0]
    assert not broken, f"images that did not load: {broken}"


def test_chapter2_static_widget_slider_changes_the_frame(browser_page):
    page, _ = browser_page
    _open(page, "ch02_preliminaries")
    slider = page.locator(".animation input[type=range]").first
    assert slider.count() == 1, "the static widget view (a slider animation) is missing"
    slider.scroll_into_view_if_needed()
    frame = page.locator(".animation img").first
    before = frame.get_attribute("src")
    last = int(slider.get_attribute("max"))
    assert last >= 10, f"the animation has only {last + 1} frames"
    slider.evaluate(
        "(el, v) => { el.value = v; el.dispatchEvent(new Event('input')); }", last
    )
    after = frame.get_attribute("src")
    assert after != before, "moving the slider did not change the frame"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / "ch02_widget.png"))
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(SHOTS / "ch02_preliminaries.png"), full_page=True)
    assert (SHOTS / "ch02_preliminaries.png").stat().st_size > 50_000


def test_claims_page_lists_every_claim_as_holding(browser_page):
    page, _ = browser_page
    _open(page, "claims_and_errata")
    text = page.inner_text("main")
    assert "✗ fails" not in text
    assert text.count("✓ holds") >= 40, (
        "the claims page lists fewer claims than expected"
    )


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


@pytest.mark.parametrize("name", sorted(MIN_STATIC_WIDGETS))
def test_chapter_page_typesets_and_its_static_widgets_move(browser_page, name):
    page, outside = browser_page
    outside.clear()
    _open(page, name)
    assert page.locator("mjx-merror").count() == 0, "formulas failed to typeset"
    raw = re.findall(r"\\\(|\\\)|\\\[|\$\$", page.inner_text("main"))
    assert not raw, f"untypeset TeX left on the page: {raw[:5]}"
    widths = page.eval_on_selector_all(
        "main img", "els => els.map(e => e.naturalWidth)"
    )
    assert all(w > 0 for w in widths), "an image did not load"
    animations = page.locator(".animation")
    count = animations.count()
    assert count >= MIN_STATIC_WIDGETS[name], f"{count} static widget views"
    for i in range(count):
        anim = animations.nth(i)
        slider, frame = anim.locator("input[type=range]"), anim.locator("img")
        before = frame.get_attribute("src")
        slider.evaluate(
            "el => { el.value = el.max; el.dispatchEvent(new Event('input')); }"
        )
        assert frame.get_attribute("src") != before, f"animation {i} does not move"
    assert outside == [], f"the page tried to reach the network: {outside[:5]}"
