"""Consent dialogs: recognised by their general markup and wording, answered with the least consent.

A page that asks for cookie consent is answered before anything else reads it, by a script the
browser runs in every document of the task (main page, frames of any origin, open shadow roots), as
soon as a dialog shows: `--consent reject` (the default) clicks "Reject all" / "Odrzuć wszystkie" /
"Alle ablehnen" / "Tout refuser" / "Rechazar todo" / "Rifiuta tutto", else "only necessary", else
"continue without accepting", else opens the dialog's settings, unticks what is ticked and saves,
else closes it; it accepts only when the dialog blocks the page and offers nothing else. `accept`
clicks "Accept all". `leave` does nothing. What was done is reported back (`ConsentAction`), once
per dialog, and the run shows it in its events. A dialog shown late (after the script's watch, or
in a shadow root attached later) is answered when the page is about to be read: the reader calls
``window.__curllmConsentNow()``, which looks again only when the page changed since its last look.

Recognised, in PL/EN/DE/FR/ES/IT: a dialog (``role=dialog``/``alertdialog``, ``aria-modal``,
``<dialog>``), a fixed or sticky box, or a box whose id or class says cookie/consent/privacy,
whose text speaks of cookies, consent or privacy and is short (a box, not the page), with buttons
named by the wording below. Never a link to another page (a policy page), never outside such a box.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .errors import UsageError

log = logging.getLogger("curllm.consent")

MODES = ("reject", "accept", "leave")
DEFAULT_MODE = "reject"
#: What a page's answer may be reported as.
ACTIONS = ("rejected", "necessary", "saved", "closed", "accepted", "left")
#: What starts a report on the page's console: the channel costs nothing until something is said on
#: it (a binding exposed to every frame cost a task's page about a sixth of its opening time).
MARK = "\u2063curllm-consent "
#: Reports taken from one task at most: a page writing such reports itself cannot flood the events.
MAX_REPORTS = 20
#: How long after a document starts its dialogs are looked for (a consent platform loads late).
WATCH_MS = 10000


def check_mode(value: object, where: str = "--consent") -> str:
    """``value`` as a consent mode; UsageError naming the choices when it is none."""
    if isinstance(value, str) and value.strip().lower() in MODES:
        return value.strip().lower()
    raise UsageError(f"{where}: {value!r} is not a consent mode: use one of {', '.join(MODES)}")


@dataclass(frozen=True)
class ConsentAction:
    """What was done about one consent dialog: ``action`` (see ACTIONS), the button's text, the
    document's address, the mode asked for and why (``reason``)."""

    action: str
    mode: str
    url: str
    button: str = ""
    reason: str = ""
    frame: bool = False  # the dialog was in a frame, not the page itself

    def to_dict(self) -> dict:
        out: dict[str, Any] = {"action": self.action, "mode": self.mode, "url": self.url}
        if self.button:
            out["button"] = self.button
        if self.reason:
            out["reason"] = self.reason
        if self.frame:
            out["frame"] = True
        return out


def _text(value: object, limit: int = 120) -> str:
    return value[:limit] if isinstance(value, str) else ""


def parse_report(payload: object, mode: str) -> ConsentAction | None:
    """A report from the page script as a `ConsentAction`; None when it is not one (the channel is
    visible to the page's own scripts: what they send is checked like any input)."""
    if not isinstance(payload, str) or len(payload) > 4000:
        return None
    try:
        doc = json.loads(payload)
    except ValueError:
        return None
    if not isinstance(doc, dict) or doc.get("action") not in ACTIONS:
        return None
    return ConsentAction(
        action=doc["action"],
        mode=mode,
        url=_text(doc.get("url"), 500),
        button=_text(doc.get("button")),
        reason=_text(doc.get("reason"), 200),
        frame=doc.get("frame") is True,
    )


async def install(context: Any, mode: str, on_action: Callable[[ConsentAction], None]) -> None:
    """Answer consent dialogs in every document of the browser ``context`` as ``mode`` says,
    calling ``on_action`` with what was done (at most MAX_REPORTS times). Nothing for ``leave``.
    (A task's session does the same with `listen` and one init script of its own, `Session.start`.)"""
    if listen(context, mode, on_action):
        await context.add_init_script(script=page_script(mode))


def listen(context: Any, mode: str, on_action: Callable[[ConsentAction], None]) -> bool:
    """Take the reports of `page_script` in ``context`` (its console) to ``on_action``, at most
    MAX_REPORTS; False for ``leave``, which has no script and nothing to report. The caller adds
    `page_script` to the context before any page opens."""
    if mode == "leave":
        return False
    count = 0

    def report(message: Any) -> None:
        nonlocal count
        try:
            if message.type != "debug" or count >= MAX_REPORTS:
                return
            text = message.text
        except Exception:  # a message of a page already gone
            return
        if not isinstance(text, str) or not text.startswith(MARK):
            return
        action = parse_report(text[len(MARK) :], mode)
        if action is None:
            return
        count += 1
        log.debug("consent: %s", action)
        on_action(action)

    context.on("console", report)
    return True


def page_script(mode: str) -> str:
    """The script every document runs: ``CONSENT_JS`` called with the mode and its bounds."""
    return f"({CONSENT_JS.strip()})({json.dumps({'mode': mode, 'watchMs': WATCH_MS, 'mark': MARK})});"


# Wording, matched on folded text (lower case, accents removed, ł as l): a button's own text (or
# aria-label, or value) of at most 60 characters. Order matters: a refusal ("nicht akzeptieren",
# "continue without accepting") before "accept", "only necessary" before "accept", "save settings"
# before "settings".
CONSENT_JS = r"""
(opts) => {
  if (window.__curllmConsentWatch) return;
  window.__curllmConsentWatch = true;
  const mode = opts.mode;
  // Taken before the page's scripts run: a page wrapping its timers does not see ours.
  const later = window.setTimeout.bind(window);
  const Observer = window.MutationObserver;
  const started = performance.now();
  // Taken before the page's scripts run: a page replacing its console does not silence the report.
  const say = console.debug.bind(console);
  const report = (d) => { say(opts.mark + JSON.stringify({...d, url: location.href, frame: window !== window.top})); };
  const fold = (s) => (s || '').toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/g, 'l').replace(/ß/g, 'ss').replace(/[’`]/g, "'").replace(/\s+/g, ' ').trim();
  const AGREE = "accept\\w*|akcept\\w*|zaakcept\\w*|akzept\\w*|accett\\w*|acept\\w*|agree\\w*|consent\\w*|zgod\\w*|zgadza\\w*|" +
    "einverstanden|einwillig\\w*|zustimm\\w*|consenti\\w*|autoris\\w*|allow\\w*|zezwol\\w*|erlaub\\w*|zulassen";
  const NOT = "not|don't|do not|no|nie|nicht|ohne|ne|pas|sans|sin|senza|non|without|bez";
  const RULES = [
    ['reject', new RegExp("(^|\\W)(reject\\w*|decline\\w*|deny|refus\\w*|disagree|odrzu\\w*|ablehn\\w*|verweiger\\w*|" +
                          "rechaz\\w*|rifiut\\w*|nein danke)(\\W|$)|(^|\\W)(" + NOT + ")(\\W+\\w+)?\\W+(" + AGREE + ")(\\W|$)")],
    ['necessary', /(^|\W)(necess\w*|essential\w*|essenziell\w*|strictly|required|erforderlich\w*|notwendig\w*|niezbedn\w*|wymagan\w*|koniecz\w*|necessair\w*|necesari\w*|necessar\w*|tecnic\w*|technisch\w*|funkcjonaln\w*)(\W|$)/],
    ['save', /(^|\W)(save|zapisz|speichern|enregistrer|guardar|salva|salvare|confirm\w*|potwierdz\w*|bestatig\w*|valider|conferma\w*)(\W|$)|(allow|erlaube?n?|zezwol\w*|autoriser|permitir|consenti\w*)\W+(\w+\W+)?(selection|auswahl|wybran\w*|seleccion|selezion\w*)/],
    ['settings', /(^|\W)(settings|preferences|customi[sz]e|manage|options|more options|ustawienia|preferencje|dostosuj|zarzadzaj|opcje|einstellungen|anpassen|verwalten|optionen|details|parametres|personnaliser|gerer|configur\w*|personalizar|gestionar|preferencias|opciones|impostazioni|personalizza|gestisci|preferenze|opzioni)(\W|$)/],
    ['close', /^(close|zamknij|schliessen|fermer|cerrar|chiudi|x|×|✕|✖)$/],
    ['accept', new RegExp("(^|\\W)(" + AGREE + "|ok|okay|got it|i understand|rozumiem|verstanden|compris|entendido|ho capito|" +
                          "continue|przejdz\\w*|weiter|continuer|continuar|continua)(\\W|$)")],
  ];
  const CONSENT_TEXT = /cookie|ciasteczk|consent|zgod|prywatnosc|rodo|datenschutz|einwillig|privacy|confidentialite|consentement|traceur|privacidad|consentimiento|riservatezza|consenso|gdpr|dsgvo|rgpd/;
  const BOXY = /cookie|consent|gdpr|privacy|rodo|cmp|notice|banner|overlay|modal|dialog/i;
  // Buttons, and what is styled as one (a hand-made banner's <div class="btn">, listened to by script).
  const BUTTONS = 'button, [role=button], a, input[type=button], input[type=submit], [onclick], [class*=btn i], [class*=button i]';
  const handled = new WeakSet();
  let settingsOpened = false, finished = false, pressed = 0;
  // Whether the page may have changed since it was last looked at: a change of the document or of an
  // open shadow root in it (each is watched: a consent platform renders its dialog in one, late).
  let dirty = true, observer = null;
  const WATCHED = {childList: true, subtree: true, attributes: true,
                   attributeFilter: ['hidden', 'style', 'class', 'open', 'aria-hidden']};
  const observedRoots = new WeakSet(), waitingRoots = [];
  const watchRoot = (root) => {
    if (observedRoots.has(root)) return;
    if (!observer) { waitingRoots.push(root); return; }
    observedRoots.add(root);
    observer.observe(root, WATCHED);
  };
  const attach = window.Element && Element.prototype.attachShadow;
  if (attach) {
    Element.prototype.attachShadow = function (init) {
      const root = attach.apply(this, arguments);
      if (init && init.mode === 'open') { try { watchRoot(root); dirty = true; soon(); } catch (e) { /* never the page's */ } }
      return root;
    };
  }

  const roots = () => {  // the document and every open shadow root in it
    const out = [document], todo = [document];
    while (todo.length) {
      const root = todo.pop();
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) { out.push(el.shadowRoot); todo.push(el.shadowRoot); watchRoot(el.shadowRoot); }
      }
    }
    return out;
  };
  const up = (el) => el.parentElement || (el.getRootNode && el.getRootNode().host) || null;
  const labelOf = (el) => fold(el.tagName === 'INPUT' ? el.value : (el.textContent || el.getAttribute('aria-label') || el.title || ''))
    || fold(el.getAttribute('aria-label') || '');
  const ALL = /(^|\W)(all|alle|wszystk\w*|tout|tous|toutes|todo|todas|todos|tutt\w*)(\W|$)/;
  const kindOf = (el) => {
    const text = labelOf(el);
    if (!text || text.length > 60) return null;
    if (/(^|\W)n'(accept|autoris)/.test(text)) return 'reject';  // "je n'accepte pas"
    for (const [kind, re] of RULES) {
      if (re.test(text)) return kind === 'save' && ALL.test(text) ? 'accept' : kind;  // "Alle bestätigen"
    }
    return null;
  };
  const shown = (el) => {
    if (!el.getClientRects().length) return false;
    const cs = getComputedStyle(el);
    return cs.visibility !== 'hidden' && cs.display !== 'none';
  };
  const leaves = (el) => {  // a link to another document: a policy page, never a consent answer
    if (el.tagName !== 'A') return false;
    const href = (el.getAttribute('href') || '').trim();
    return !!href && !href.startsWith('#') && !/^javascript:/i.test(href);
  };
  const textOf = (el) => {
    const t = el.shadowRoot ? (el.shadowRoot.textContent || '') + (el.textContent || '') : (el.textContent || '');
    return t.length > 8000 ? null : fold(t);
  };
  const isBox = (el) => {
    if (el === document.body || el === document.documentElement) return false;
    const role = el.getAttribute('role');
    if (role === 'dialog' || role === 'alertdialog' || el.getAttribute('aria-modal') === 'true' || el.tagName === 'DIALOG') return true;
    const pos = getComputedStyle(el).position;
    if (pos === 'fixed' || pos === 'sticky') return true;
    return BOXY.test((el.id || '') + ' ' + (typeof el.className === 'string' ? el.className : ''));
  };
  const boxOf = (button) => {
    let el = up(button);
    for (let level = 0; el && level < 14; level++, el = up(el)) {
      if (isBox(el)) {
        const text = textOf(el);
        if (text === null) return null;  // too much text: the page, not a dialog
        if (CONSENT_TEXT.test(text)) return el;
      }
    }
    // A frame that holds nothing but a consent message (a consent platform's own frame).
    if (window !== window.top && document.body && document.body.contains(button)) {
      const text = textOf(document.body);
      if (text !== null && text.length < 3000 && CONSENT_TEXT.test(text)) return document.body;
    }
    return null;
  };
  const blocks = (box) => {
    if (window !== window.top) return true;  // a consent frame is put over the page to be answered
    for (let el = box; el; el = up(el)) {
      if (el.getAttribute && el.getAttribute('aria-modal') === 'true') return true;
      if (el.tagName === 'DIALOG' && el.matches(':modal')) return true;
    }
    const locked = (el) => el && /hidden|clip/.test(getComputedStyle(el).overflowY);
    if (locked(document.documentElement) || locked(document.body)) return true;
    const top = document.elementFromPoint(innerWidth / 2, innerHeight / 2);
    for (let el = top; el; el = up(el)) if (el === box) return true;
    if (top && getComputedStyle(top).position === 'fixed') {
      const r = top.getBoundingClientRect();
      if (r.width * r.height >= 0.8 * innerWidth * innerHeight) return true;  // a backdrop over the page
    }
    return false;
  };
  const untick = (box) => {
    const scope = [box, ...(box.shadowRoot ? [box.shadowRoot] : [])];
    for (const s of scope) for (const el of s.querySelectorAll('input[type=checkbox], [role=switch], [role=checkbox]')) {
      if (el.disabled || el.getAttribute('aria-disabled') === 'true') continue;
      if (el.tagName === 'INPUT' ? el.checked : el.getAttribute('aria-checked') === 'true') el.click();
    }
  };
  const press = (el, kind, box, action, reason) => {
    const button = (el.tagName === 'INPUT' ? el.value : el.textContent || el.getAttribute('aria-label') || '')
      .replace(/\s+/g, ' ').trim().slice(0, 120);
    if (action !== 'settings') { handled.add(box); finished = true; }
    pressed++;
    el.click();
    if (action !== 'settings') report({action, button, reason});
  };

  const check = () => {
    if (finished) return;
    const boxes = new Map();  // box -> {kind: [buttons]}
    for (const root of roots()) {
      for (const el of root.querySelectorAll(BUTTONS)) {
        if (leaves(el) || el.querySelector(BUTTONS)) continue;  // a row of buttons is not one of them
        const kind = kindOf(el);
        if (!kind || !shown(el)) continue;
        const box = boxOf(el);
        if (!box || handled.has(box)) continue;
        if (!boxes.has(box)) boxes.set(box, {});
        const kinds = boxes.get(box);
        (kinds[kind] = kinds[kind] || []).push(el);
      }
    }
    for (const [box, k] of boxes) {
      if (mode === 'accept') {
        if (k.accept) return press(k.accept[0], 'accept', box, 'accepted', 'asked to accept');
        continue;
      }
      if (k.reject) return press(k.reject[0], 'reject', box, 'rejected', 'the dialog offers to refuse');
      if (k.necessary) return press(k.necessary[0], 'necessary', box, 'necessary', 'the dialog offers only what is necessary');
      if (settingsOpened && k.save) {
        untick(box);
        return press(k.save[0], 'save', box, 'saved', 'its settings, with nothing optional ticked, saved');
      }
      if (!settingsOpened && k.settings) {
        settingsOpened = true;
        press(k.settings[0], 'settings', box, 'settings', '');
        for (const ms of [50, 200, 500, 1000, 2000]) later(() => { checks--; run(); }, ms);  // a shadow root's changes are not observed
        return;
      }
      if (k.close) return press(k.close[0], 'close', box, 'closed', 'the dialog offers no refusal; closed it');
      if (k.accept && blocks(box)) {
        return press(k.accept[0], 'accept', box, 'accepted', 'the dialog blocks the page and offers nothing but accepting');
      }
      if (k.accept) {
        handled.add(box);
        report({action: 'left', button: '', reason: 'the dialog offers nothing but accepting and does not block the page'});
      }
    }
  };

  // Looked at when the document is parsed, when it has loaded, and after changes (at most every 50 ms,
  // at most 80 times, for watchMs): a dialog is answered in the same turn as it shows, before
  // anything reads it. After that, changes are only noted, and a reader of the page asks
  // (`__curllmConsentNow`) before it reads: a dialog shown late is answered then.
  let last = -1e9, pending = false, checks = 0;
  const run = () => {
    pending = false;
    if (finished || checks++ > 80) return;
    last = performance.now();
    dirty = false;
    try { check(); } catch (e) { /* a page in the middle of changing */ }
  };
  function soon() {
    dirty = true;
    if (finished || pending || performance.now() - started > opts.watchMs) return;
    const wait = 50 - (performance.now() - last);
    if (wait <= 0) { run(); return; }
    pending = true;
    later(run, wait);
  }
  // Before the page is read: a look when it changed since the last one (nothing on a quiet page);
  // true when a button was pressed (the reader waits for the page, then reads).
  Object.defineProperty(window, '__curllmConsentNow', {value: () => {
    if (finished || !dirty) return false;
    const before = pressed;
    dirty = false;
    try { check(); } catch (e) { /* a page in the middle of changing */ }
    return pressed > before;
  }});
  const start = () => {
    run();
    if (!Observer || !document.documentElement) return;
    observer = new Observer(soon);
    observer.observe(document.documentElement, WATCHED);
    for (const root of waitingRoots.splice(0)) watchRoot(root);
  };
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start, {once: true});
  else start();
  addEventListener('load', run, {once: true});
}
"""
