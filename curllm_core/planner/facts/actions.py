"""What an instruction asks to do beyond reading a page (log in, buy, send, ...), by the words that ask."""

from __future__ import annotations

from .base import Fact, Text, negated

#: Things people ask a browser to do that reading a page is not, by the words that ask (EN, PL, DE).
#: The planner checks each against the installed tools' triggers: a tool that does it takes it, and
#: anything no tool does is named in the result (or, when nothing else is asked, the planning fails).
ACTIONS: dict[str, str] = {
    "log in": (
        r"\b(?:log\s?in(?:to)?|login|sign\s?in|zaloguj\w*|logowani\w*|anmelden|einloggen|"
        r"logge?\s+(?:\w+\s+)?ein|melde\s+(?:\w+\s+)?an)\b"
    ),
    "sign up": r"\b(?:sign\s?up|register|create\s+an\s+account|zarejestruj\w*|załóż\s+konto|registrier\w*)\b",
    "buy": (
        r"\b(?:buy|purchase|check\s?out|add\s+(?:\S+\s+){0,6}?to\s+(?:the\s+|my\s+|a\s+)?(?:shopping\s+)?(?:cart|basket|bag)|"
        r"place\s+an\s+order|order\s+(?:it|them|this|that|one|two|three|the\s+(?:cheapest|first|best))\b|"
        r"kup|kupić|kupic|kupuj\w*|zamów|zamow|zamówić|zamowic|dodaj\s+(?:\S+\s+){0,6}?do\s+koszyka|"
        r"kaufe?n?|kauf|bestelle?n?|in\s+den\s+(?:warenkorb|einkaufswagen|korb))\b"
    ),
    "pay": r"\b(?:pay|payment|zapłać|zaplac|zapłacić|zaplacic|opłać|oplac|bezahle?n?)\b",
    "send": (
        r"\b(?:send|e-?mail\s+(?:it|them|me|the|us|him|her)|forward\s+(?:it|them|the)|text\s+me|"
        r"message\s+(?:me|him|her|them|the)|write\s+to|wyślij|wyslij|wysłać|wyslac|prześlij|przeslij|"
        r"napisz\s+(?:do|mi|maila|e-?mail\w*|wiadomość|wiadomosc)|sende\w*|schick\w*|verschick\w*|"
        r"schreib\w*\s+(?:mir|uns|ihm|ihr|dem|der|an)\b)"
    ),
    "post": (
        r"\b(?:post\s+(?:a|an|the|this|it|my|on|to)\b|publish(?!ed\b)|reply\s+to|comment\s+on|"
        r"(?:leave|write|add)\s+(?:a|an|my)\s+(?:comment|review|reply|answer|post)|opublikuj\w*|skomentuj\w*|"
        r"(?:napisz|dodaj|zostaw)\s+(?:\w+\s+)?(?:komentarz\w*|opini\w*|recenzj\w*|odpowied\w*|post\w*|wpis\w*)|"
        r"odpowiedz\b|veröffentliche\b|veröffentlichen\b|kommentiere\w*|antworte\w*|poste\b|posten\b|"
        r"(?:schreib|verfass|hinterlass)\w*\s+(?:\w+\s+)?(?:kommentar|bewertung|rezension|antwort|beitrag)\w*)"
    ),
    "book": (
        r"\b(?:book\s+(?:a|an|the|me|it|this|that|my|tickets?|flights?|rooms?|hotels?|tables?)\b|reserve|"
        r"make\s+a\s+reservation|zarezerwuj\w*|rezerwuj\w*|buche\b|buchen\b|reservier\w*)"
    ),
    "subscribe": (
        r"\b(?:subscribe|unsubscribe|follow\s+(?:the|this|them|him|her)\b|(?:up|down)vote\b|(?:^|(?:and|then|,)\s+)like\s+(?:it|this|the|them|my)\b|"
        r"vote\s+(?:for|on|für|fuer|na)\b|zasubskrybuj\w*|subskrybuj\w*|obserwuj\w*|polub\w*|zagłosuj\w*|zaglosuj\w*|"
        r"abonnier\w*|folge\b|stimme\s+(?:für|ab)\b)"
    ),
    "bookmark": (
        r"\b(?:bookmark\w*|(?:add|save)\s+(?:\S+\s+){0,4}?to\s+(?:my\s+)?favou?rites|(?:dodaj|zapisz)\s+(?:\S+\s+){0,4}?do\s+"
        r"(?:zakładek|zakladek|ulubionych)|zakładk\w*|zakladk\w*|lesezeichen\w*|(?:füge|fuege|speichere)\s+(?:\S+\s+){0,4}?zu\s+"
        r"(?:den\s+)?favoriten|merke?\s+(?:\S+\s+){0,4}?vor\b)"
    ),
    "rate": r"\b(?:rate\s+(?:it|this|the|them)\b|oceń\b|ocen\b|bewerte\b)",
    "delete": (
        r"\b(?:delete|erase|remove\s+(?:my|me|it|them|this|that)\b|usuń\w*|usun\b|usunąć|skasuj\w*|wykasuj\w*|"
        r"lösch\w*|losch\w*)"
    ),
    "edit": (
        r"\b(?:(?:change|edit|update)\s+(?:my|the)\s+(?:password|settings?|profile|address|email|account)\b|"
        r"(?:zmień|zmien|edytuj|zaktualizuj)\s+(?:moje?|mój|moj|hasło|haslo|ustawienia|profil|adres)\w*|"
        r"(?:ändere|aendere|bearbeite)\s+(?:mein\w*|das|die|den)\s+\w+)"
    ),
    "cancel": r"\b(?:cancel|anuluj\w*|odwołaj\w*|storniere\w*|kündige\w*|kuendige\w*)\b",
    "call": (
        r"\b(?:(?:call|phone)\s+(?:me|us|him|her|them|the)\b|ring\s+(?:me|the)\b|contact\s+(?:me|us|the|them|him|her)\b|"
        r"zadzwoń\w*|zadzwon\w*|dzwoń\w*|dzwon\b|skontaktuj\w*|ruf\s+(?:\w+\s+){0,3}an\b|anrufen|telefonier\w*|"
        r"kontaktier\w*)"
    ),
    "compare": r"\b(?:compare|porównaj\w*|porownaj\w*|porównać|porownac|vergleiche?\b|vergleichen\b)",
    "notify": (
        r"\b(?:notify|alert\s+me|remind|monitor|keep\s+an\s+eye|watch\s+(?:for|the\s+price)|"
        r"powiadom\w*|przypomnij\w*|monitoruj\w*|benachrichtig\w*|erinnere\w*|überwach\w*)"
    ),
    "share": r"\b(?:share\b|udostępnij\w*|udostepnij\w*|podziel\s+się|teile\b|teilen\b)",
    "upload": r"\b(?:upload|wgraj\w*|załaduj\w*|hochlad\w*|lade\s+(?:\w+\s+){0,3}hoch\b)",
    "translate": r"\b(?:translate|przetłumacz\w*|przetlumacz\w*|übersetz\w*)",
    "summarize": r"\b(?:summari[sz]e|podsumuj\w*|streść|stresc|zusammenfass\w*|fasse\s+(?:\w+\s+){0,4}zusammen)",
    "weather": r"\b(?:weather|forecast|pogod\w*|prognoz\w*\s+pogody|wetter\w*)\b",
}


def read_actions(t: Text, facts: list[Fact]) -> None:
    """What the instruction asks to do beyond reading ("log in and buy the cheapest"): ``actions``,
    a tuple of ``(name, start, end)`` for the planner to match against the installed tools. A
    negated one ("don't buy") is not asked for."""
    found = []
    for name, pattern in ACTIONS.items():
        m = t.search(pattern)
        if m and not negated(t, m.start()):
            found.append((m.start(), name, m.end()))
    if found:
        found.sort()
        first = found[0][0]
        facts.append(
            Fact("actions", tuple((n, s, e) for s, n, e in found), first, ", ".join(n for _, n, _ in found))
        )
