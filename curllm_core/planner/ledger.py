"""The ledger of an instruction: every word accounted for, or named as not understood.

A word is accounted for when a fact was read from it, a planned tool's trigger or example uses it,
it names a kind of item or an item field, or it is a function word of its language (`FUNCTION_WORDS`:
articles, pronouns, prepositions, the verbs that ask, the words for "this page", PL/EN/DE, compared
without case and accents). What is left and carries meaning is never dropped: the rule planner
quotes it in the plan's warnings ("not understood: 'Philips'") or, when nothing else is asked, in
its PLANNING_FAILED message. A capitalised word beside the listing's noun, or a word with digits
(a brand, a model: "Philips kettles", "wiertarki Bosch", "Bosch-Bohrer", "RTX 4090"), is read as a
word the items' names must contain.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from ..text import fold
from .facts import Facts
from .facts.words import NUMBER_WORDS

_EN = """
a an the this that these those it its it's there here what which who whom whose where when why how
i me my mine we us our you your he him his she her they them their one ones some any all every each both
is are was were be been being am do does did done have has had having can could would should will shall
may might must want wanted need needs like please pls thanks thank kindly just also too very really
and or but nor so then than as of in on at to for from with without by about into onto over under
up down out off per via within across between among around near
find get give show list fetch extract scrape return display tell print pull grab collect gather read
look see check make let put keep take bring produce output fetch retrieve search lookup export save
what's which what number cost costs
page pages site website webpage here listed listing there available shown displayed visible
item items thing things stuff data entries entry info information details
only first last next top best new more most less least much many few lot lots
now today currently right current
me gimme lemme want'd i'd i'm you're hello hi hey good morning evening don't dont not no never anything nothing something everything
"""
_PL = """
a i oraz lub albo czy ale że ze to ten ta te tego tej tym tych tę temu tą ci
w we z ze na do od po o u za przez przy pod nad dla bez między miedzy przed jak jako który która które
którzy których którego jaki jaka jakie jakich co kto gdzie kiedy ile
mi mnie mój moja moje moich nam nas wam was ci cię ciebie go jej ich je nich się sie sobie
jest są jestem był była było były będzie może mogą musi proszę prosze daj dajcie pokaż pokaz
znajdź znajdz wypisz podaj pobierz wyciągnij wyciagnij zwróć zwroc wyświetl wyswietl zbierz sprawdź sprawdz
chcę chce chciałbym chcialbym potrzebuję potrzebuje poproszę poprosze
strona stronie stronę strone stron stronach tutaj tu tam wszystkie wszystkich wszystko każdy każdego
każda każde każdej tylko pierwsze pierwszy ostatni nowe więcej mniej bardzo także też najpierw
dostępne widoczne wymienione listę lista liście dane informacje cześć czesc dzień dzien dobry witam nie nic coś cos niczego
ma mają maja zapisz wyeksportuj eksportuj liczba liczbę liczby kosztuje kosztują
"""
_DE = """
der die das den dem des ein eine einen einem einer eines kein keine keinen
ich mir mich du dir dich er sie es wir uns ihr euch ihnen ihm ihn sein seine ihre
und oder aber sondern denn dass ob als wie wo wann was wer welche welcher welches
ist sind war waren bin bist sein gewesen hat haben habe hätte kann können könnte möchte möchten will
soll sollte muss müssen bitte danke
in im an am auf aus bei mit nach von vom zu zum zur für fuer über ueber unter vor hinter neben zwischen
durch gegen ohne um bis ab pro je
finde finden zeige zeigen zeig gib geben liste listen hole holen extrahiere suche such lies
seite seiten webseite hier dort da alle allen aller alles jede jeder jedes nur erste ersten letzte
neue mehr weniger sehr auch noch schon jetzt aktuell verfügbar angezeigt aufgeführt daten zuerst artikel
dieser diese dieses diesem diesen jener
hallo guten morgen tag abend gibt gibts es mein meine meinen meinem meiner dein deine nicht nichts etwas lege leg lass gebe
wieviele viele viel kostet kosten speichere speichern exportiere
"""
#: Function words per language (folded): they carry no request of their own.
FUNCTION_WORDS: dict[str, frozenset[str]] = {
    lang: frozenset(fold(w) for w in words.split()) for lang, words in (("en", _EN), ("pl", _PL), ("de", _DE))
}
ALL_FUNCTION_WORDS = frozenset().union(*FUNCTION_WORDS.values())
_ALL_FUNCTION_WORDS = ALL_FUNCTION_WORDS

#: Facts whose words may include words they do not read (a count before the noun it counts).
_FILLED = frozenset({"limit"})
_NUMBER_WORDS = frozenset(fold(w) for w in NUMBER_WORDS)
#: Function words that are also a month's name when written capitalised.
_CAPITALISED_MONTHS = frozenset({"May", "March", "Mai"})
_SEPARATOR = re.compile(r"[-/.']")
_TOKEN = re.compile(r"[^\W_](?:[\w'’.&+/-]*[^\W_])?")


def tokens(text: str) -> list[tuple[int, int, str]]:
    """The words of ``text`` with their spans ("youtube.com", "Bosch-Bohrer", "don't" are one each)."""
    return [(m.start(), m.end(), m.group(0)) for m in _TOKEN.finditer(text)]


def fact_spans(facts: Facts) -> tuple[list[tuple[int, int]], set[str]]:
    """Where the facts were read (spans), and the words of facts whose text is not a span of the
    instruction (a fact made of several places, an option given on the command line)."""
    text = facts.instruction
    spans: list[tuple[int, int]] = []
    words: set[str] = set()
    # Words a link target's phrase holds beside the site names read from it ("links to github xyz").
    names = {fold(n) for n in facts.get("link_site_names") or ()}
    site = facts.fact("link_site")
    said = [fold(w) for _, _, w in tokens(str(site.value))] if site is not None and names else []
    stray = {w for w in said if w not in names and not names & set(w.split("-"))}
    for fact in facts:
        if (
            stray
            and fact.kind.startswith("link_")
            and text[fact.start : fact.start + len(fact.text)] == fact.text
        ):
            spans += [
                (fact.start + a, fact.start + b) for a, b, w in tokens(fact.text) if fold(w) not in stray
            ]
            continue
        if fact.kind == "actions":
            spans += [(start, end) for _, start, end in fact.value]
            continue
        said = fact.text
        if fact.kind in _FILLED:
            # A count's words may hold others ("the 5 … cheapest products"): only its number is its own.
            words.update(fold(w) for _, _, w in tokens(said) if w.isdigit() or fold(w) in _NUMBER_WORDS)
            continue
        if said and text[fact.start : fact.start + len(said)] == said:
            spans.append((fact.start, fact.start + len(said)))
        else:
            for part in re.split(r" / ", said):
                at = text.find(part) if part else -1
                if at >= 0:
                    spans.append((at, at + len(part)))
                else:
                    words.update(fold(w) for _, _, w in tokens(part))
    return spans, words


def leftover(
    text: str,
    spans: Iterable[tuple[int, int]],
    words: Iterable[str] = (),
) -> list[tuple[int, int, str]]:
    """The words of ``text`` outside ``spans``, not among ``words`` (folded) and not function words."""
    covered = bytearray(len(text) + 1)
    for a, b in spans:  # linear in the text: a mark per character used
        covered[max(a, 0) : max(b, 0)] = b"\x01" * (max(b, 0) - max(a, 0))
    given = {_fold_word(w) for w in words}

    def known(w: str) -> bool:
        return w in _ALL_FUNCTION_WORDS or w in given

    out = []
    for start, end, word in tokens(text):
        if any(covered[start:end]):
            continue
        folded = _fold_word(word)
        if known(folded) and not (start > 0 and word in _CAPITALISED_MONTHS):
            continue  # ("May" within a sentence is the month, not the verb "may")
        if _SEPARATOR.search(word) and all(known(p) for p in _SEPARATOR.split(folded) if p):
            continue
        out.append((start, end, word))
    return out


@lru_cache(maxsize=8192)
def _fold_word(word: str) -> str:
    """`fold`, once per word: the ledger folds the same site and example words for every instruction."""
    return fold(word)


def phrases(text: str, words: list[tuple[int, int, str]]) -> list[str]:
    """Left-over words joined into the phrases they form in the instruction ("very nice", "Philips")."""
    spans: list[list[int]] = []
    for start, end, _ in words:
        if spans and not text[spans[-1][1] : start].strip(" -"):
            spans[-1][1] = end
        else:
            spans.append([start, end])
    return [text[a:b] for a, b in spans]


def is_name_like(word: str, start: int, text: str, lang: str = "en") -> bool:
    """A brand or model word: with digits and letters, in capitals, or capitalised but not the first
    word of the sentence (not in German, where every noun is)."""
    if any(c.isdigit() for c in word) and any(c.isalpha() for c in word):
        return True
    if lang == "de":
        return word.isupper() and len(word) > 1
    before = text[max(0, start - 2) : start].strip()  # white space is folded: one space at most
    sentence_start = start == 0 or (not before and start <= 1) or before[-1:] in ".!?:"
    return (
        word[:1].isupper() and not word.isupper() and not sentence_start or (word.isupper() and len(word) > 1)
    )
