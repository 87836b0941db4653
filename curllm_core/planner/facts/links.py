"""Which links: internal, external, to a kind of file, containing a part of the address, or to a site
("links to github", "linki do githuba", "Links zur Wikipedia"), and the URL patterns for a site's name."""

from __future__ import annotations

import re

from ...sites import WELL_KNOWN_SITES
from .base import Fact, Text, regex
from .words import FIELD_ANY, GIVE, ITEM_NOUN, LINK_CUE, ONLY, N

_FILE_TYPES = (
    "pdf",
    "docx",
    "doc",
    "xlsx",
    "xls",
    "csv",
    "zip",
    "pptx",
    "ppt",
    "txt",
    "jpeg",
    "jpg",
    "png",
    "gif",
    "svg",
    "mp3",
    "mp4",
    "json",
    "xml",
    "epub",
    "odt",
    "ods",
    "rtf",
)
#: Kinds of file, by the words that name them, as URL endings.
_FILE_KINDS: tuple[tuple[str, str], ...] = (
    (
        r"images?|pictures?|photos?|obraz\w*|zdjęci\w*|zdjęć|zdjec\w*|grafik\w*|bilder\w*|fotos?",
        r"jpe?g|png|gif|webp|svg",
    ),
    (r"videos?|movies?|film\w*|wideo", r"mp4|webm|mov|avi|mkv"),
    (r"audio|music|sounds?|muzyk\w*|musik", r"mp3|wav|ogg|flac|m4a"),
    (r"spreadsheets?|arkusz\w*|tabellen", r"xlsx?|ods|csv"),
    (r"archives?|archiw\w*|archiv\w*", r"zip|rar|7z|tar|gz"),
)
#: Pictures asked for themselves ("all images", "wszystkie zdjęcia", "alle Bilder").
_IMAGES = r"(?:images|pictures|photos|zdjęcia|zdjęć|zdjecia|obrazy|obrazki|grafiki|bilder|fotos)"
#: Words after "links to" that name no site: what is linked, not where ("links to other pages").
_NOT_A_SITE = frozenset(
    """
    a an the this that these those it its them their our my your his her here there same other others
    and or of to in on at for with by from as i oraz lub und oder zu mit von für
    another more next previous prev main home homepage start page pages site sites website websites web
    section sections category categories menu footer header navigation nav sidebar top bottom all any
    every each some external internal outside inside related social media sources source references
    reference citations citation notes note footnotes details detail profile profiles user users author
    authors comment comments review reviews thread threads discussion article articles post posts story
    stories item items product products offer offers deal deals result results news download downloads
    file files document documents docs something anything everything stuff things thing where which
    what who how external_links products' more_info info information help contact login signup
    strony stron stronę strona stronie inne innych innej inny więcej tej tego tych tę ten ta te
    wszystkie wszystkich produktów produkty produktu artykułów artykuły artykułu artykulow kategorii
    plików pliki plikow zdjęć dokumentów wpisów postów komentarzy źródeł szczegółów ofert oferty
    seite seiten anderen andere anderer weitere weiteren alle allen diese dieser diesen produkt produkte
    produkten produkts artikel artikeln artikels beiträge beiträgen beitrag beitrags angebot angebots kategorie kategorien dateien bilder bildern
    dokumente dokumenten kommentare kommentaren quellen details mehr startseite
    """.split()
)


def known_site_name(word: str) -> bool:
    """Whether a bare name ("githuba", "YouTube") is one of `WELL_KNOWN_SITES`, inflected or not."""
    return well_known_site(word) is not None


def well_known_site(word: str) -> str | None:
    """The name of `WELL_KNOWN_SITES` a bare word is, inflected or not ("githuba" -> "github"); None
    for any other word."""
    return next((form for form in _site_name_forms(word.lower()) if form in WELL_KNOWN_SITES), None)


_HOST_TAIL = r"\.[a-z0-9-]+(?:\.[a-z0-9-]+)?(?::[0-9]+)?(?:[/?#]|$)"


def site_pattern(site: str) -> str:
    """A URL pattern for links to a site and its subdomains: ``github.com`` or a bare name (``github``,
    with a top-level domain, any). Linear to match (no nested repetition), and RE2-compatible."""
    host = r"^[a-z][a-z0-9+.-]*://(?:[^/?#]+\.)?"
    if "." in site:
        return host + re.escape(site.lower()) + r"(?::[0-9]+)?(?:[/?#]|$)"
    names = _site_name_forms(site.lower())
    return host + "(?:" + "|".join(re.escape(n) for n in names) + ")" + _HOST_TAIL


_SITE_JOIN = frozenset("or and i lub oraz albo und oder".split())


def _site_word(word: str) -> str:
    """A site's name as written: "github", "GitHub-Links" -> github; a German compound whose first part
    is a well-known site ("Wikipedia-Artikeln", "YouTube-Videos") -> that site."""
    word = word.lower().rstrip(".")
    head = word.split("-", 1)[0]
    if "-" in word and "." not in word and not known_site_name(word) and known_site_name(head):
        return head
    return word


def sites_pattern(sites: list[str]) -> str:
    """`site_pattern` for any of several sites."""
    patterns = list(dict.fromkeys(site_pattern(s) for s in sites))
    return patterns[0] if len(patterns) == 1 else "|".join(f"(?:{p})" for p in patterns)


def _site_name_forms(word: str) -> list[str]:
    """A site's name and the name inside a Polish inflected form: "githuba" -> github, "wikipedii" ->
    wikipedia, "youtube'a" -> youtube (the planner cannot know which form is the name, so both)."""
    word = re.sub(r"['’]\w{0,3}$", "", word)
    forms = [word]
    for end, repl in (("ii", "ia"), ("ji", "ja"), ("owi", ""), ("em", ""), ("ie", ""), ("a", ""), ("u", "")):
        if word.endswith(end) and len(word) - len(end) >= 3:
            forms.append(word[: len(word) - len(end)] + repl)
            break
    return list(dict.fromkeys(forms))


def read_links(t: Text, facts: list[Fact]) -> None:
    r"""Which links: "links to PDF files" -> ``\.pdf($|\?)``, "links containing /product/", "links to
    github.com", "github links", "linki do githuba", "Links zu Wikipedia" (a site and its subdomains).

    A target named after "links to" that is no file type, site or domain ("links to other pages")
    becomes ``link_target_unknown``: the planner says so rather than match every link.
    """
    if any(f.kind == "link_pattern" for f in facts):
        return
    m = t.search(
        rf"\b(?:internal|same[- ]site|on[- ]site|wewnętrzn\w*|wewnetrzn\w*|interne?n?)\s+{LINK_CUE}\b"
    ) or t.search(
        rf"\b{LINK_CUE}\s+(?:to|within|on|do|w\s+obrębie|innerhalb|auf)\s+(?:this|the\s+same|tej\s+samej|tej|"
        r"derselben|dieser)\s+(?:site|domain|website|strony|domeny|witryny|seite|domäne|website)\b"
    )
    if m:  # "internal links", "linki wewnętrzne", "interne Links": the page's own site
        facts.append(Fact("same_domain", True, m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    m = t.search(
        rf"\b(?:external|outgoing|outbound|off[- ]site|zewnętrzn\w*|zewnetrzn\w*|externe?n?|ausgehende?n?)\s+"
        rf"{LINK_CUE}\b"
    ) or t.search(
        rf"\b{LINK_CUE}\s+(?:zewnętrzn\w*|zewnetrzn\w*|(?:(?:prowadząc\w*|kierując\w*|pointing|going|leading|"
        r"führend\w*|verweisend\w*)\s+)?(?:na\s+zewnątrz|na\s+zewnatrz|nach\s+au(?:ß|ss)en|outside|off[- ]site))"
    )
    if m:  # "external links": every other site (the planner knows the page's host)
        facts.append(Fact("link_external", True, m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    m = t.search(rf"\b{LINK_CUE}\s+(?:wewnętrzn\w*|wewnetrzn\w*)\b")
    if m:
        facts.append(Fact("same_domain", True, m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    types = "|".join(_FILE_TYPES)
    doc = r"(?:files?|documents?|docs|plik\w*|dateien?|dokument\w*)"
    m = (
        t.search(rf"\b{LINK_CUE}\b.{{0,30}}?\.({types})s?\b")  # "links ending in .pdf"
        or t.search(rf"\b({types})s?(?:[\s-]+|-?){doc}\b")  # "PDF files", "PDF-Dateien"
        or t.search(rf"\b{doc}\s+\.?({types})s?\b")  # "plików PDF"
        or t.search(rf"\b({types})s?[\s-]+{LINK_CUE}\b")  # "pdf links"
        or t.search(rf"\b{LINK_CUE}\s+(?:to|do|zu|auf)\s+(?:the\s+)?\.?({types})s?\b")  # "links to PDFs"
        # "download all PDFs", "pobierz wszystkie PDF-y", "alle PDFs herunterladen"
        or t.search(
            rf"\b(?:download|get|list|fetch|pobierz|ściągnij|sciagnij|lade|hole|liste)\s+(?:me\s+)?"
            rf"(?:all|every|the|wszystkie|alle|die)?\s*({types})(?:s|-y|-s)?\b"
        )
        or t.search(rf"\b(?:all|every|wszystkie|alle)\s+({types})(?:s|-y|-s)?\b")
    )
    if m:
        ext = m.group(1).lower().replace("jpeg", "jpg").replace("jpg", "jpe?g")
        facts.append(Fact("link_pattern", rf"\.{ext}($|\?)", m.start(), m.group(0)))
        return
    for words, exts in _FILE_KINDS:  # "links to images", "linki do zdjęć", "Links zu Videos"
        m = t.search(rf"\b{LINK_CUE}\s+(?:to|do|zu|auf|of)\s+(?:the\s+|all\s+)?(?:{words})\b") or t.search(
            rf"\b(?:{words})[\s-]+{LINK_CUE}\b"
        )
        if m:
            facts.append(Fact("link_pattern", rf"\.({exts})($|\?)", m.start(), m.group(0)))
            return
    # "get all images", "download the photos", "pobierz wszystkie zdjęcia", "alle Bilder herunterladen":
    # the page's pictures themselves (their addresses), not links
    m = (
        t.search(rf"\b(?:alle\s+)?{_IMAGES}\s+(?:herunterladen|laden|anzeigen|zeigen)\b")
        or t.search(
            rf"\b(?:{GIVE}|download|pobierz|ściągnij|sciagnij)\s+(?:me\s+|mir\s+)?"
            rf"(?:(?:all|every|wszystkie|alle)\s+)?(?:(?:the|die)\s+)?{_IMAGES}\b"
        )
        or t.search(rf"^(?:(?:all|wszystkie|alle)\s+(?:(?:the|die)\s+)?)?{_IMAGES}\b")
    )
    if m:
        facts.append(Fact("link_images", True, m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    m = t.search(
        rf"\b{LINK_CUE}\b.{{0,25}}?\b(?:contain\w*|with|matching|including|zawierając\w*|zawierajac\w*|z|mit|enthalt\w*|"
        r"die)\s+(\S{0,200}[/.]\S{0,200})"
    )
    if m:
        facts.append(Fact("link_pattern", re.escape(m.group(1).rstrip(".,;")), m.start(), m.group(0)))
        return
    # "links to github", "links pointing to en.wikipedia.org", "linki do githuba", "Links zur Wikipedia"
    m = t.search(
        rf"\b{LINK_CUE}\s+(?:that\s+|which\s+)?(?:(?:point|go|lead)(?:s|ing)?\s+|prowadząc\w*\s+|"
        r"kierując\w*\s+|verweis\w*\s+|führen\w*\s+)?(?:to|into|towards|do|zu|zur|zum|nach|auf)\s+"
        r"(?:(?:the|a|an|der|die|den|dem|das)\s+)?(?:(?:site|website|domain|serwis\w*|witryn\w*|"
        r"domen\w*|stron\w*|seite|webseite|website|domäne)\s+)?"
        r"([^\s,;:!?()\"'„“”«»]{1,100}(?:\s+[^\s,;:!?()\"'„“”«»]{1,40}){0,2})"
    )
    if m:
        words = m.group(1).split()
        target = _site_word(words[0])
        # "links to facebook or twitter", "linki do githuba i gitlaba": either site
        more = [
            _site_word(words[2])
            for _ in (0,)
            if len(words) >= 3 and words[1].lower() in _SITE_JOIN and _site_word(words[2]) not in _NOT_A_SITE
        ]
        if re.fullmatch(r"(?:[a-z0-9-]+\.)+[a-z]{2,}", target):
            facts.append(Fact("link_pattern", sites_pattern([target, *more]), m.start(), m.group(0)))
        elif target in _NOT_A_SITE or not re.fullmatch(r"[^\W_][\w'’-]{1,62}", target):
            facts.append(Fact("link_target_unknown", " ".join(words), m.start(), m.group(0)))
        else:
            facts.append(Fact("link_pattern", sites_pattern([target, *more]), m.start(), m.group(0)))
            facts.append(Fact("link_site", " ".join(words).lower(), m.start(), m.group(0)))
            facts.append(Fact("link_site_names", [target, *more], m.start(), m.group(0)))
        t.mask(m.start(), m.end())
        return
    # "github links", "the wikipedia links", "GitHub-Links"
    m = t.search(r"(?<![\w.-])([a-z0-9][a-z0-9.-]{0,62}[a-z0-9])(?:\s+|-)(?:links?|linki|odnośniki)\b")
    if m:
        target = _site_word(m.group(1))
        if re.fullmatch(r"(?:[a-z0-9-]+\.)+[a-z]{2,}", target):
            facts.append(Fact("link_pattern", site_pattern(target), m.start(), m.group(0)))
        elif (
            target not in _NOT_A_SITE
            and not target.isdigit()
            and not regex(
                rf"^(?:{ITEM_NOUN}|{FIELD_ANY}|{N}|first|last|top|new|old|broken|working|valid|absolute|"
                r"relative|all|same|own|wszystkie|alle|jede\w*|każd\w*|kazd\w*|ersten?|pierwsz\w*|"
                rf"{ONLY[3:-1]}|{GIVE[3:-1]}|me|mi|mir|the|die|der|den|these|those|te|tych|diese)$"
            ).match(target)
        ):
            facts.append(Fact("link_pattern", site_pattern(target), m.start(), m.group(0)))
            facts.append(Fact("link_site", target, m.start(), m.group(0)))
            facts.append(Fact("link_site_names", [target], m.start(), m.group(0)))
            t.mask(m.start(), m.end())
