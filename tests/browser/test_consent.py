"""Consent dialogs (curllm_core/consent.py) in a real Chromium: the button each mode presses, in the
six languages, in hand-made markup; what is not a consent dialog is left alone; the report channel
takes only what it expects."""

from __future__ import annotations

import asyncio

import pytest

from curllm_core import consent
from curllm_core.errors import UsageError

URL = "http://127.0.0.1:9/page"  # answered by a route: nothing leaves the browser

BANNER = """<!doctype html><html lang="{lang}"><body><main><h1>Shop</h1><p>{filler}</p></main>
<div class="{cls}" style="position:fixed;bottom:0;left:0;right:0;background:#eee">
<p>{text}</p>{buttons}</div>
<script>document.querySelectorAll('button').forEach((b) => b.onclick = () => {{ document.title = b.textContent; }});</script>
</body></html>"""


async def answer(page, html: str, mode: str) -> tuple[str, list]:
    """Open ``html`` under `consent.install(mode)`; the button the page saw pressed, and the reports."""
    reports: list = []
    await consent.install(page.context, mode, reports.append)

    async def serve(route) -> None:
        await route.fulfill(status=200, body=html, headers={"content-type": "text/html; charset=utf-8"})

    await page.route(URL, serve)
    await page.goto(URL)
    for _ in range(20):  # the answer is given while the page loads; the report comes back a moment later
        if reports:
            break
        await asyncio.sleep(0.05)
    return await page.title(), reports


def buttons(*labels: str) -> str:
    return "".join(f"<button>{label}</button>" for label in labels)


@pytest.mark.browser
@pytest.mark.parametrize(
    "lang, text, labels, pressed, action",
    [
        (
            "fr",
            "Nous utilisons des cookies pour améliorer votre expérience.",
            ("Tout accepter", "Tout refuser"),
            "Tout refuser",
            "rejected",
        ),
        (
            "es",
            "Utilizamos cookies propias y de terceros.",
            ("Aceptar todo", "Rechazar todo", "Configurar"),
            "Rechazar todo",
            "rejected",
        ),
        (
            "it",
            "Questo sito utilizza cookie.",
            ("Accetta tutto", "Rifiuta tutto"),
            "Rifiuta tutto",
            "rejected",
        ),
        (
            "fr",
            "Vos données personnelles et les cookies (consentement).",
            ("J'accepte", "Continuer sans accepter"),
            "Continuer sans accepter",
            "rejected",
        ),
        ("it", "Usiamo i cookie.", ("Accetta", "Solo necessari"), "Solo necessari", "necessary"),
        (
            "en",
            "This site uses cookies.",
            ("Accept all cookies", "Use necessary cookies only"),
            "Use necessary cookies only",
            "necessary",
        ),
        (
            "de",
            "Wir nutzen Cookies (Einwilligung).",
            ("Alle akzeptieren", "Weiter ohne Einwilligung"),
            "Weiter ohne Einwilligung",
            "rejected",
        ),
        (
            "pl",
            "Ta strona korzysta z plików cookie.",
            ("Zaakceptuj wszystkie", "Nie zgadzam się"),
            "Nie zgadzam się",
            "rejected",
        ),
        ("es", "Usamos cookies.", ("Aceptar", "No acepto"), "No acepto", "rejected"),
        ("en", "We use cookies.", ("Accept", "×"), "×", "closed"),
    ],
)
async def test_reject_presses_the_least_consent_offered(page, lang, text, labels, pressed, action):
    html = BANNER.format(lang=lang, cls="notice", filler="", text=text, buttons=buttons(*labels))
    title, reports = await answer(page, html, "reject")
    assert title == pressed
    assert [(r.action, r.mode, r.button) for r in reports] == [(action, "reject", pressed)]


@pytest.mark.browser
async def test_a_div_styled_as_a_button_is_one(page):
    html = BANNER.format(
        lang="de", cls="cc-window", filler="", text="Diese Website verwendet Cookies.",
        buttons='<div class="cc-buttons"><div class="cc-btn cc-allow">Alle akzeptieren</div>'
        '<div class="cc-btn cc-deny">Ablehnen</div></div>',
    ).replace("querySelectorAll('button')", "querySelectorAll('.cc-btn')")  # fmt: skip
    title, reports = await answer(page, html, "reject")
    assert title == "Ablehnen" and [r.action for r in reports] == ["rejected"]


@pytest.mark.browser
async def test_accept_presses_accept(page):
    html = BANNER.format(
        lang="es",
        cls="notice",
        filler="",
        text="Usamos cookies.",
        buttons=buttons("Rechazar", "Aceptar todo"),
    )
    title, reports = await answer(page, html, "accept")
    assert title == "Aceptar todo" and reports[0].action == "accepted"


@pytest.mark.browser
async def test_a_banner_offering_only_accept_that_blocks_nothing_is_left(page):
    html = BANNER.format(
        lang="en", cls="notice", filler="", text="We use cookies.", buttons=buttons("Got it")
    )
    title, reports = await answer(page, html, "reject")
    assert title == "" and [r.action for r in reports] == ["left"]


@pytest.mark.browser
@pytest.mark.parametrize(
    "html",
    [
        # a newsletter pop-up: a dialog, but no word of cookies or consent
        '<div role="dialog" aria-modal="true"><p>Join our newsletter!</p><button>Accept</button><button>No thanks</button></div>',
        # a form's buttons on the page itself, with a privacy note: no box
        "<main><p>By ordering you accept our privacy policy and cookies.</p><button>Accept</button></main>",
        # a link to the policy page in a cookie banner is never followed
        '<div class="cookie-notice" style="position:fixed;bottom:0"><p>Cookies!</p><a href="/reject-all">Reject all</a></div>',
    ],
    ids=["newsletter-dialog", "no-box", "a-link-away"],
)
async def test_what_is_not_a_consent_answer_is_left_alone(page, html):
    doc = f"<!doctype html><html><body>{html}<script>document.querySelectorAll('button').forEach((b) => b.onclick = () => {{ document.title = b.textContent; }});</script></body></html>"
    title, reports = await answer(page, doc, "reject")
    assert title == "" and page.url == URL
    assert reports == []


def test_modes_are_checked():
    assert consent.check_mode(" Reject ") == "reject"
    with pytest.raises(UsageError, match="use one of reject, accept, leave"):
        consent.check_mode("maybe")


@pytest.mark.parametrize(
    "payload, want",
    [
        (None, None),
        (7, None),
        ("not json", None),
        ("[]", None),
        ('{"action": "pwned"}', None),
        ('{"action": "rejected", "button": "' + "x" * 5000 + '"}', None),
        ('{"action": "rejected", "button": 5, "reason": "' + "r" * 500 + '"}', ("rejected", "", 200)),
    ],
)
def test_reports_are_checked_like_any_input(payload, want):
    got = consent.parse_report(payload, "reject")
    assert (got.action, got.button, len(got.reason)) == want if want else got is None
