"""Stories, posts, comments and search results from any page, without site-specific selectors.

How the list is found (see `find_items`):

1. **Anchors.** Title links: links whose visible text reads like a title (two words or more, not a
   count such as "145 comments", not a time such as "2 hours ago", not a bare URL) and that stand on
   their own (not a link inside a sentence; a line break ends the line, a note in brackets beside
   it is its source's). One word or a reference ("Iliad", "owner/repo") is a title when the markup
   names the link a title or name, or when it opens an entry that describes it ("Bauantrag" over
   "Unterlagen und Gebühren"); a link in a byline (classed author, byline) or in a table column
   headed for people or organisations ("Employer", "Autor") never is, nor a link to a person's
   profile, unless people are the records asked for (``kind="people"``: a staff directory, whose
   names are titles from two words of any length). A link that
   runs a script (``javascript:``, a form's postback) may be a title: its record opens on this page,
   which is its ``url``. A record titled by a heading without a link, whose
   link beside it shows no title (its address as text, a picture, a badge), has that link as its
   title link and the heading as its title. Body texts: paragraphs of running text (a comment, a
   post's text). Links whose words repeat on three links or more beside a rarer link in the same
   record ("Learn More", a collection's name) are its actions, never its title.
2. **Repeating blocks** around the anchors form groups, and **the list** is the group that reads most
   like a page's records, outside its chrome (`_list_choice`: `candidate_groups`, `best_group`).
3. **The list's neighbours**: every block beside the chosen ones with their tag and first class name
   belongs to it (an item whose title is too short to be an anchor), and so does one of their tag
   holding its title link at the very place they hold theirs (a video among articles, `_kin`); rows
   of two kinds taking turns (classed odd and even) are one list; and a block right before the list
   with one title link like theirs and a teaser is its first record (a lead story, a "best match"
   box: `_lead_record`).
4. **Every block** becomes an item: ``title`` and ``url`` from its title link (a heading's link
   first; a redirect link that carries its target in the query gives the target; a badge opening or
   closing the title in an element of its own, "NEW" or classed badge/pill/tag/label, left out), or for a comment
   its text (``title`` shortened, ``text`` whole) and its permalink; then, where the block shows
   them, ``points`` (points, score, upvotes, likes, Punkte, punkty: one concept), ``comments``,
   ``author``, ``date``, ``snippet`` and ``rank``. Details in the rows that follow an item without
   a title of their own (a story's subtext row) belong to it. Blocks labelled or classed as ads
   ("Ad", "Sponsored", "Anzeige", "Reklama", a class ``ad``/``sponsored``/``promoted``) are left out.

A field no item shows is left out of every item. A page whose DOM shows no list (results a script
builds from data) is read from the JSON it carries (`_embedded.article_listing`).
"""

from __future__ import annotations

import functools
import re
from collections import Counter, defaultdict
from typing import Any
from urllib.parse import urlsplit

from selectolax.lexbor import LexborHTMLParser, LexborNode

from ... import offload
from ...errors import BadParams
from ...tool import ToolContext, require_page
from ._html import (
    GLUE_TAGS,
    SCRIPT_LINKS,
    HiddenIndex,
    PageShare,
    absolute_url,
    address,
    apply_limit,
    colspan,
    page_base,
    page_html,
    parse_html,
    reading_length,
    strip_junk,
    visible_text,
    without_spaces,
    word_count,
)
from ._list_choice import (
    MAX_LEVELS,
    MIN_GROUP,
    MainHeading,
    best_group,
    candidate_groups,
    first_class,
    in_heading,
    named_chrome,
    several_items,
)
from ._parse_memo import document_order, remembering
from ._record_fields import (
    _BLOCK_TEXT_TAGS,
    _HEADINGS,
    _author,
    _children,
    _comments,
    _common_ancestor,
    _date,
    _headed_links,
    _link_title,
    _marked,
    _meta_text,
    _named_titles,
    _one_word_title,
    _permalink,
    _points,
    _profile,
    _rank,
    _runs_script,
    _scope,
    _shorten,
    _snippet,
    _sponsored,
    _target,
    _text,
    _title_link,
    _unwrap,
)

REPEATED_LABEL = 3  # links with the same words: an action every record carries
MIN_BODY_CHARS = 40
MAX_TITLE = 300  # a longer link text is a teaser paragraph, not a title
FIELDS = ("title", "url", "points", "comments", "author", "date", "snippet", "text", "rank")

_LETTER_RE = re.compile(r"[^\W\d_]")
_WORD_RE = re.compile(r"[^\W\d_]{2,}")
_REFERENCE_RE = re.compile(r"[^\W_][/:.][^\W_]")  # "owner/repo", "3:16", "12.3"
_URL_TEXT_RE = re.compile(r"^\s*(https?://|www\.)\S+\s*$", re.IGNORECASE)
_BODY_EXCLUDE = frozenset(
    {"a", "time", "button", "label", "select", "option", "h1", "h2", "h3", "h4", "h5", "h6"}
)


# --- anchors ----------------------------------------------------------------------------------------


def _title_like(text: str) -> bool:
    if not text or len(text) > MAX_TITLE or _URL_TEXT_RE.match(text):
        return False
    words = _WORD_RE.findall(text)
    letters = sum(len(w) for w in words)
    if without_spaces(text):  # Japanese, Chinese, Thai: a sign carries what a few letters do
        return word_count(text) >= 2 and letters >= 4 and not _meta_text(text)
    return len(words) >= 2 and len(text.split()) >= 2 and letters >= 8 and not _meta_text(text)


def _name_like(text: str) -> bool:
    """A person's name: two to five words of letters ("Mei Lin", "Anna Kowalska"), no count or date."""
    words = text.split()
    return 2 <= len(words) <= 5 and len(_WORD_RE.findall(text)) == len(words) and not _meta_text(text)


_BRACKETED_RE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")
_INLINE = GLUE_TAGS | {"span", "font", "label", "small", "br", "img", "sup", "sub"}


def _stands_alone(link: LexborNode, text: str) -> bool:
    """A title link is the main text of its line, not a link inside a sentence: the text beside it on
    its line (up to the nearest block boundary, other links such as "(example.com)" not counted) is no
    longer than its own (a sign of a script without spaces counting as two letters)."""
    node = link
    while node.parent is not None and node.parent.tag in _INLINE:
        node = node.parent
    if node.parent is not None and (
        node.parent.tag in _HEADINGS or node.parent.attributes.get("role") == "heading"
    ):
        return True
    if _opens_a_described_line(node):
        return True
    own = reading_length(text)
    beside = 0
    for step in ("prev", "next"):
        sibling = getattr(node, step)
        while sibling is not None:
            if sibling.is_text_node:  # a note in brackets ("(Institute of Health)") is the source's
                words = sibling.text_content or ""
                if not words.isspace():  # (indentation: nothing beside it)
                    beside += len(_BRACKETED_RE.sub("", words).strip())
            elif sibling.is_element_node:
                if sibling.tag not in _INLINE or sibling.tag == "br":
                    break  # the line ends
                if sibling.tag != "a":
                    linked = sum(len(visible_text(a)) for a in sibling.css("a"))
                    beside += max(0, len(visible_text(sibling)) - linked)
            if beside > own:
                return False  # more text beside it than its own already
            sibling = getattr(sibling, step)
    return True


_RANK_RE = re.compile(r"^\s*(?:\d{1,4}[.)]?|[•·*])?\s*$")
_DESCRIBED_RE = re.compile(r"^\s*[-–—:]\s")


def _opens_a_described_line(node: LexborNode) -> bool:
    """A link that opens its line (a rank or a bullet at most before it) and is followed by a dash or a
    colon and words: a directory's entry ("<a>Title</a> - what the site offers"), whose words beside
    it describe it."""
    sibling = node.prev
    while sibling is not None:
        if sibling.is_text_node:
            if not _RANK_RE.match(sibling.text_content or ""):
                return False
        elif sibling.is_element_node:
            if sibling.tag not in _INLINE or sibling.tag == "br":
                break  # the line starts
            if visible_text(sibling):
                return False
        sibling = sibling.prev
    sibling = node.next
    while sibling is not None and sibling.is_text_node and not (sibling.text_content or "").strip():
        sibling = sibling.next
    return (
        sibling is not None and sibling.is_text_node and bool(_DESCRIBED_RE.match(sibling.text_content or ""))
    )


_ENTRY_TAGS = frozenset({"li", "tr", "dd", "article", "section", "div", "p"})
_HEADING_QUERY = "h1, h2, h3, h4, h5, h6, [role=heading]"


def _opens_a_described_entry(link: LexborNode, text: str) -> bool:
    """A one-word link that opens its entry (a list item, a row, a box) and is followed there by a
    description of its own, two words or more outside links: an A-Z directory's "Bauantrag" over
    "Unterlagen und Gebühren". A menu's entry shows its label alone, a facet a count ("Kraków (12)"),
    and a one-word label over an entry's title link or heading ("Football", "Reuters", "New") is no
    title; nor is an address shown as a link's text."""
    node = link
    for _ in range(3):
        parent = node.parent
        first = None if parent is None else _first_shown(parent)
        if parent is None or parent.tag in ("body", "html") or first is None or first.mem_id != node.mem_id:
            return False
        node = parent
        if node.tag in _ENTRY_TAGS and len(visible_text(node)) > len(text):
            break
    else:
        return False
    if _URL_TEXT_RE.match(text) or node.css_first(_HEADING_QUERY) is not None or _named_titles(node):
        return False  # an address shown as a link; a badge or a duration beside the entry's title
    links = node.css("a[href]")
    if any(a.mem_id != link.mem_id and _title_like(_text(a)) for a in links):
        return False  # a label over the entry's title link (a section, a source), not its title
    linked = sum(len(visible_text(a)) for a in links)
    beside = visible_text(node)
    return len(_WORD_RE.findall(beside)) - len(_WORD_RE.findall(text)) >= 2 and len(beside) - linked >= 8


def _first_shown(node: LexborNode) -> LexborNode | None:
    """The first child of ``node`` that shows anything: an element with visible text or words."""
    child = node.child
    while child is not None:
        if child.is_text_node:
            if (child.text_content or "").strip():
                return child
        elif child.is_element_node and visible_text(child):
            return child
        child = child.next
    return None


def _direct_text(node: LexborNode) -> int:
    total = 0
    child = node.child
    while child is not None:
        if child.tag == "-text":
            total += len((child.text_content or "").strip())
        child = child.next
    return total


#: Headers of a table's column of people or organisations behind a record (who wrote, employs, sells):
#: their links are no titles. A language's ordinary words, matched whole.
_SOURCE_HEADER_RE = re.compile(
    r"(?:employer|company|companies|author|authors|publisher|seller|organi[sz]ation|arbeitgeber|firma|"
    r"unternehmen|autor|autoren|verfasser|autorzy|verlag|anbieter|händler|pracodawca|wydawca|wydawnictwo|"
    r"sprzedawca|arbetsgivare|företag|författare|employeur|entreprise|société|auteur|auteurs|éditeur|"
    r"vendeur|empresa|editorial|vendedor|azienda|autore|editore|venditore|werkgever|bedrijf|uitgever|"
    r"verkoper)",
    re.IGNORECASE,
)


#: Headers of a table's column of the records' own titles or names: one word there is a title.
_TITLE_HEADER_RE = re.compile(
    r"(?:title|titles|titel|titre|titolo|título|titulo|tytuł|tytul|name|nazwa|naam|nom|nombre|nome|"
    r"subject|topic|thema|betreff|temat|sujet|onderwerp|headline)",
    re.IGNORECASE,
)


class _Columns:
    """What a table's header row says of the column a link's cell is in: a column of sources
    (`source`) or of titles (`titled`). Each table's header row is read once."""

    def __init__(self) -> None:
        self.headers: dict[int, list[str]] = {}

    def _header(self, link: LexborNode) -> tuple[str, LexborNode, LexborNode] | None:
        """The header over the link's cell, the cell and its row; None outside a headed table."""
        cell: LexborNode | None = link.parent
        for _ in range(3):
            if cell is None or cell.tag == "td":
                break
            cell = cell.parent
        if cell is None or cell.tag != "td":
            return None
        row = cell.parent
        if row is None or row.tag != "tr":
            return None
        table = row.parent
        while table is not None and table.tag != "table":
            table = table.parent
        if table is None:
            return None
        headers = self.headers.get(table.mem_id)
        if headers is None:
            headers = self.headers[table.mem_id] = _column_headers(table)
        column = 0
        for sibling in _children(row):
            if sibling.mem_id == cell.mem_id:
                break
            if sibling.tag in ("td", "th"):
                column += colspan(sibling)
        return (headers[column], cell, row) if column < len(headers) else None

    def titled(self, link: LexborNode) -> bool:
        """Whether the link sits under a header naming titles ("Title", "Titel", "Tytuł", "Name")."""
        found = self._header(link)
        return found is not None and _TITLE_HEADER_RE.fullmatch(found[0]) is not None

    def source(self, link: LexborNode) -> bool:
        """Whether the link sits under a header naming people or organisations (`_SOURCE_HEADER_RE`:
        "Employer", "Arbeitgeber", "Autor") beside another title link of its row: a job table's
        employer column, a catalogue's author column (a directory of companies, its only links the
        companies', keeps them as titles)."""
        found = self._header(link)
        if found is None or _SOURCE_HEADER_RE.fullmatch(found[0]) is None:
            return False
        _, cell, row = found
        # Only beside the record's own title: a directory of companies titles its rows by them.
        return any(
            (_title_like(_text(a)) or self.titled(a)) and not _inside_any(a, {cell.mem_id})
            for a in row.css("a[href]")
        )


def _column_headers(table: LexborNode) -> list[str]:
    """The header row's texts, one per column (a cell spanning columns repeated), or [] for none."""
    head = next((r for r in table.css("tr") if r.css_first("th") is not None), None)
    if head is None:
        return []
    out: list[str] = []
    for cell in _children(head):
        if cell.tag in ("td", "th"):
            out += [visible_text(cell).strip(" :").casefold()] * colspan(cell)
    return out


def _find_title_links(
    body: LexborNode, hidden: HiddenIndex, people: bool = False
) -> tuple[list[LexborNode], dict[int, str]]:
    """The title links, and the titles of those titled by a heading beside them (`_headed_links`).
    With ``people`` (the records asked for are people) a title is a person's: a link to a profile
    (its text a name or a user name), or where the page links no profiles, a name ("Mei Lin")."""
    usable = functools.partial(_target, people=people)
    # (link, its text folded, whether a title: None for no letters, whether in a heading)
    entries: list[tuple[LexborNode, str, bool | None, bool]] = []
    columns = _Columns()
    anchors = body.css("a[href]")
    # People's profiles, when the page links several: only those are people ("Continue this thread"
    # beside each commenter's name is no person).
    profiles = (
        people and len({h for a in anchors if _profile(h := a.attributes.get("href") or "")}) >= MIN_GROUP
    )
    for link in anchors:
        if not _target(link, scripts=True, people=people):
            continue
        if profiles and not _profile(link.attributes.get("href") or ""):
            continue
        text = _text(link)
        marked = _marked(link)
        if not people and (marked == "author" or columns.source(link)):
            continue
        # One word or a reference is a title where the markup says so: a title or name class, a
        # table column headed "Title"; a reference ("owner/repo", "John 3:16") also a heading around
        # it (one word there may be the section a record is filed under).
        in_head = in_heading(link)
        named = (
            marked == "title"
            or (in_head and _REFERENCE_RE.search(text) is not None)
            or (_one_word_title(text) and columns.titled(link))
        )
        if people:  # a person's name, or any name a profile's link shows (a user name)
            titled = _name_like(text) or (profiles and _one_word_title(text))
        else:
            titled = _title_like(text) or (
                _one_word_title(text) and (named or _opens_a_described_entry(link, text))
            )
        if _runs_script(link):  # a script's link: a title or nothing
            if titled and not hidden(link) and _stands_alone(link, text):
                entries.append((link, text.casefold(), True, in_head))
            continue
        # (a profile's link stands in a byline's line: "alice · 5 points · 3h")
        if titled and not hidden(link) and (profiles or _stands_alone(link, text)):
            entries.append((link, text.casefold(), True, in_head))
        else:
            entries.append((link, text.casefold(), False if _LETTER_RE.search(text) else None, in_head))
    # A link with the same words on three records or more ("Más información", "Details") shows no
    # title of its own: a heading beside it titles its record.
    repeats = Counter(text for _, text, title, in_head in entries if title and not in_head)
    titles: set[int] = set()
    repeated: set[int] = set()
    for link, text, title, in_head in entries:
        if title:
            (repeated if repeats[text] >= REPEATED_LABEL and not in_head else titles).add(link.mem_id)
    headed: dict[int, str] = {}
    for link_id, heading in _headed_links(body, hidden, titles, repeated, usable).items():
        text = visible_text(heading)
        if len(text) <= MAX_TITLE and _LETTER_RE.search(text) and not _meta_text(text):
            headed[link_id] = text
    headed.update(_row_titles(body, hidden, titles, usable))  # a row's own cell before a heading above
    if people:  # a heading or a cell titles a person by a name
        headed = {link_id: text for link_id, text in headed.items() if _name_like(text)}
    links = [
        (link, headed[link.mem_id].casefold(), True, in_head)
        if link.mem_id in headed
        else (link, text, bool(title), in_head)
        for link, text, title, in_head in entries
        if title is not None or link.mem_id in headed
    ]
    # A record with no <a>, titled by its heading, opens the address a script names (`SCRIPT_LINKS`).
    anchored = {link.mem_id for link, *_ in entries}
    scripted = [n for n in body.css(SCRIPT_LINKS) if n.mem_id in headed and n.mem_id not in anchored]
    if scripted:
        order = _doc_order(body)
        links += [(n, headed[n.mem_id].casefold(), True, False) for n in scripted]
        links.sort(key=lambda entry: order(entry[0]))
    return _without_actions(links), headed


def _row_titles(body: LexborNode, hidden: HiddenIndex, titles: set[int], usable) -> dict[int, str]:
    """Rows of a table that link one target by a reference only (a case number "VIII ZR 100/25", a
    file mark, an id: `_reference`) and show their title in a data cell of its own, without a link:
    link id -> that cell's text. The title is the row's longest such cell, when it reads as a title,
    no other is as long and the links show less; a table counts when two of its rows or more are such
    rows."""
    found: dict[int, str] = {}
    for table in body.css("table"):
        rows: dict[int, str] = {}
        for row in table.css("tr"):
            if _table_of(row) != table.mem_id:
                continue  # a row of a table inside this one: that table's own turn
            links = [a for a in row.css("a[href]") if usable(a) and not hidden(a)]
            if len({a.attributes.get("href") for a in links}) != 1 or any(a.mem_id in titles for a in links):
                continue  # no link, or several targets (a row of filters): not one record's reference
            texts = sorted(
                (
                    text
                    for cell in row.iter()
                    if cell.tag == "td" and cell.css_first("a[href]") is None  # (a th labels the row)
                    for text in (visible_text(cell),)
                    if text
                ),
                key=len,
                reverse=True,
            )
            if not texts or (len(texts) > 1 and len(texts[1]) == len(texts[0])):
                continue
            title = texts[0]
            if _title_like(title) and all(_reference(_text(a)) and len(_text(a)) < len(title) for a in links):
                rows[links[0].mem_id] = title
        if len(rows) >= 2:
            found.update(rows)
    return found


def _reference(text: str) -> bool:
    """A case number, a file mark, an id: digits, and no title's words ("Tehanu" is a title)."""
    return any(ch.isdigit() for ch in text) and not _title_like(text)


def _table_of(row: LexborNode) -> int | None:
    """The memory id of the table a row belongs to (its nearest)."""
    node = row.parent
    while node is not None and node.tag != "table":
        node = node.parent
    return None if node is None else node.mem_id


def _without_actions(links: list[tuple[LexborNode, str, bool, bool]]) -> list[LexborNode]:
    """The title links (flagged True among the page's links) without the actions records carry: words
    repeated on three links or more ("Share Memories and Condolences", "Learn More", "Public Profile")
    whose record also holds a link with words of its own (repeated less). Records may share their
    titles ("Star Wars" on four platforms): a repeated text with no rarer link beside it stays. Each
    link comes with its text, whether it is a title and whether it sits in a heading."""
    # A link in a heading is a title however often it is printed (one result shown in two boxes).
    seen = Counter(text for _, text, _, in_head in links if not in_head)
    if not any(n >= REPEATED_LABEL for n in seen.values()):
        return [link for link, _, title, _ in links if title]
    # Per ancestor: the repeated texts inside it, and the fewest repeats of a link text inside it.
    inside: Counter[tuple[int, str]] = Counter()  # (ancestor, repeated text) -> how many inside it
    rarest: dict[int, int] = {}
    for link, text, _, _ in links:
        count = seen[text]
        repeated = count >= REPEATED_LABEL
        node = link.parent
        for _ in range(MAX_LEVELS):
            if node is None or node.tag in ("body", "html"):
                break
            key = node.mem_id
            if repeated:
                inside[key, text] += 1
            fewest = rarest.get(key)
            if fewest is None or count < fewest:
                rarest[key] = count
            node = node.parent
    kept = []
    for k, (link, text, title, _) in enumerate(links):
        if not title:
            continue
        action = False
        if seen.get(text, 0) >= REPEATED_LABEL:
            node = link.parent
            for _ in range(MAX_LEVELS):
                if node is None or node.tag in ("body", "html") or inside[node.mem_id, text] > 1:
                    break  # out of its record: the next one's copy is inside
                if rarest[node.mem_id] < seen[text]:
                    action = True
                    break
                node = node.parent
            if not action:
                action = _beside_its_target(links, k, seen)
        if not action:
            kept.append(link)
    return kept


def _beside_its_target(links: list[tuple[LexborNode, str, bool, bool]], k: int, seen: Counter[str]) -> bool:
    """Whether the repeated link ``k`` ("More »", "Więcej", "Weiterlesen") follows or precedes a link
    to the same address with words of its own: the record's title, where records have no element of
    their own to tell them apart (records set one after another in one cell, ``<br>`` between)."""
    href = links[k][0].attributes.get("href")
    for j in (k - 1, k + 1):
        if 0 <= j < len(links):
            other, text, _, _ = links[j]
            if other.attributes.get("href") == href and seen.get(text, 0) < seen[links[k][1]]:
                return True
    return False


_BLOCK_TEXT_QUERY = ", ".join(sorted(_BLOCK_TEXT_TAGS))


def _find_bodies(body: LexborNode, hidden: HiddenIndex) -> list[LexborNode]:
    """Blocks of running text (a comment, a post's text), outermost ones only; paragraphs that make up
    their parent's text are lifted to it (a comment of three paragraphs is one block)."""
    found: list[LexborNode] = []
    taken: set[int] = set()
    for node in body.css(_BLOCK_TEXT_QUERY):  # in page order
        # (the direct text as one string bounds its stripped pieces: most blocks fail it in C)
        if node.tag != "p" and (
            len(node.text(deep=False)) < MIN_BODY_CHARS or _direct_text(node) < MIN_BODY_CHARS
        ):
            continue
        if _inside(node, taken):
            continue
        text = visible_text(node)
        if len(text) < MIN_BODY_CHARS or len(_WORD_RE.findall(text)) < 6 or hidden(node):
            continue
        taken.add(node.mem_id)
        found.append(node)
    return _lift(found)


def _inside(node: LexborNode, taken: set[int], levels: int = 8) -> bool:
    up = node.parent
    for _ in range(levels):
        if up is None:
            return False
        if up.mem_id in taken:
            return True
        up = up.parent
    return False


def _lift(blocks: list[LexborNode]) -> list[LexborNode]:
    """Sibling paragraphs whose parent holds little but them become the parent: a comment of three
    paragraphs is one block, as a one-paragraph comment is (so paragraphs never outnumber comments)."""
    by_parent: dict[int, list[LexborNode]] = defaultdict(list)
    for block in blocks:
        by_parent[block.parent.mem_id if block.parent is not None else -block.mem_id].append(block)
    out: list[LexborNode] = []
    for group in by_parent.values():
        parent = group[0].parent
        if len(group) >= 2 and parent is not None and parent.tag not in ("body", "html"):
            inner = sum(len(visible_text(b)) for b in group)
            if len(visible_text(parent)) <= 1.25 * inner + 20:
                out.append(parent)
                continue
        out.extend(group)
    return out


def _anchor_ids(nodes: list[LexborNode]) -> set[int]:
    return {n.mem_id for n in nodes}


def _path(member: LexborNode, node: LexborNode) -> tuple | None:
    """The steps (tag, first class) from ``member`` down to ``node``; None when it is not inside."""
    steps = []
    current: LexborNode | None = node
    while current is not None and current.mem_id != member.mem_id:
        steps.append((current.tag, first_class(current)))
        current = current.parent
    return tuple(reversed(steps)) if current is not None else None


def _at_path(member: LexborNode, path: tuple) -> list[LexborNode]:
    """The descendants of ``member`` at ``path`` (see `_path`)."""
    level = [member]
    for tag, cls in path:
        same_tag = [c for node in level for c in _children(node) if c.tag == tag]
        # The same class where there is one; an item may style one step differently ("go-to-shop"
        # instead of "go-to-product"): then the same tag.
        level = [c for c in same_tag if first_class(c) == cls] or same_tag
        if not level:
            break
    return level


def _siblings_alike(members: list[LexborNode]) -> list[LexborNode]:
    """Every block next to the chosen ones with their tag and first class name (an item whose title or
    text is too short to be an anchor still belongs to the list), and the blocks of their tag that
    take turns with them in one other class (rows classed odd and even)."""
    seen: set[int] = set()
    out: list[LexborNode] = []
    kinds = {(m.tag, first_class(m)) for m in members}
    for member in members:
        parent = member.parent
        if parent is None or parent.mem_id in seen:
            continue
        seen.add(parent.mem_id)
        alike = [c for c in _children(parent) if (c.tag, first_class(c)) in kinds]
        # Rows of two kinds taking turns (classed odd and even) are one list; a table's header row
        # takes no turn.
        same_tag = [
            c for c in _children(parent) if c.tag == member.tag and c.is_element_node and not _header_row(c)
        ]
        turns = [c for c in same_tag if (c.tag, first_class(c)) not in kinds]
        if (
            len(turns) >= MIN_GROUP
            and abs(len(turns) - len(alike)) <= 1
            and len({first_class(c) for c in turns}) == 1
        ):
            alike = same_tag
        out.extend(alike)
    return out


def _kin(
    members: list[LexborNode], path: tuple, title_ids: set[int], hidden: HiddenIndex
) -> list[LexborNode]:
    """Blocks of another kind in the list (a video among articles, classed otherwise): next to the
    members, of their tag, holding a title link at the very place theirs hold it."""
    ids = {m.mem_id for m in members}
    seen: set[int] = set()
    kin: list[LexborNode] = []
    for member in members:
        parent = member.parent
        if parent is None or parent.mem_id in seen:
            continue
        seen.add(parent.mem_id)
        for child in _children(parent):
            if child.mem_id in ids or child.tag != member.tag or hidden(child):
                continue
            links = [a for a in child.css("a[href]") if a.mem_id in title_ids]
            if links and not several_items(child, title_ids) and any(_path(child, a) == path for a in links):
                kin.append(child)
    return kin


def _header_row(node: LexborNode) -> bool:
    """A table's row of header cells only: it takes no turn among the rows."""
    cells = [c for c in _children(node) if c.tag in ("td", "th")]
    return bool(cells) and all(c.tag == "th" for c in cells)


def _common_path(members: list[LexborNode], anchors: list[LexborNode]) -> tuple | None:
    """The most common place of an anchor inside the members (where the title link or text sits)."""
    ids = {m.mem_id for m in members}
    paths: Counter[tuple] = Counter()
    counted: set[int] = set()
    for anchor in anchors:
        steps = []
        current: LexborNode | None = anchor
        for _ in range(MAX_LEVELS + 1):
            if current is None or current.mem_id in ids:
                break
            steps.append((current.tag, first_class(current)))
            current = current.parent
        if current is not None and current.mem_id in ids and current.mem_id not in counted:
            counted.add(current.mem_id)  # the first anchor of each member
            paths[tuple(reversed(steps))] += 1
    return paths.most_common(1)[0][0] if paths else None


def find_items(tree: LexborHTMLParser, base: str, kind: str = "any") -> tuple[str | None, list[dict]]:
    """The list of the page (see the module docstring): its kind ("posts" or "comments") and its items
    in page order, ads flagged ``sponsored``. ``kind="people"`` asks for posts whose title links may
    lead to people's profiles (a staff directory, a list of speakers)."""
    body = tree.body
    if body is None:
        return None, []
    people = kind == "people"
    if people:
        kind = "posts"
    hidden, strict_hidden = HiddenIndex.pair(tree)
    title_links, headed = _find_title_links(body, hidden, people)
    bodies = _find_bodies(body, hidden)
    choice = best_group(
        candidate_groups(title_links, bodies),
        kind,
        PageShare(tree),
        _anchor_ids(title_links),
        MainHeading(body, hidden),
        headed,
    )
    if choice is None:
        return None, []
    title_ids = _anchor_ids(title_links)
    anchored = {m.mem_id for m in choice.members}
    if choice.kind == "posts":
        path = _common_path(choice.members, [a for a in title_links if _inside_any(a, anchored)])
    else:
        path = _common_path(choice.members, [b for b in bodies if _inside_any(b, anchored)])
    members = [m for m in _siblings_alike(choice.members) if not hidden(m)]
    if choice.kind == "posts" and members:
        if path is not None:
            members += _kin(members, path, title_ids, hidden)
        lead = _lead_record(members, title_ids, hidden, base)
        if lead is not None:
            members.insert(0, lead)
    member_ids = {m.mem_id for m in members}
    titled_rows = set()
    for anchor in title_links:  # blocks at the members' level that hold a title: never continuation rows
        node: LexborNode | None = anchor
        for _ in range(MAX_LEVELS):
            if node is None:
                break
            titled_rows.add(node.mem_id)
            node = node.parent
    body_ids = _anchor_ids(bodies)
    items: list[dict[str, Any]] = []
    for member in sorted(members, key=_doc_order(body)):
        scope = _scope(member, member_ids, titled_rows)
        item: dict[str, Any] = {}
        skip: set[int] = set()
        if choice.kind == "posts":
            at_path = [a for a in _at_path(member, path) if a.tag == "a"] if path is not None else []
            if not at_path and several_items(member, title_ids):
                continue  # a block of several items (a carousel, a box of suggestions), not an item
            link = _title_link(member, title_ids) or (
                None if people else next((a for a in at_path if visible_text(a)), None)
            )  # (a person is titled by their own name's link, never by another link at its place)
            if link is None:
                continue
            # A title link that runs a script opens its record on this page: the page's address.
            url = base.split("#")[0] if _runs_script(link) else absolute_url(address(link), base)
            if not url:
                continue
            if link.mem_id not in title_ids and items and items[-1]["url"] == _unwrap(url):
                continue  # a record's second link to its address ("More »" after the title), no record
            item["title"] = headed.get(link.mem_id) or _without_file_note(_link_title(link))
            item["url"] = _unwrap(url)
            skip.add(link.mem_id)
        elif member.css_first("a[href]") is not None and _title_link(member, title_ids) is not None:
            continue  # a post among the comments (the story on top of its thread)
        points = _points(scope)
        comments = _comments(scope)
        author, author_id = _author(scope)
        if people and author_id is not None and author_id in skip:
            author = None  # the person's own link, not a byline
        date, date_id = _date(scope)
        if author_id is not None:
            skip.add(author_id)
        if choice.kind == "comments":
            text = _comment_text(member, path, body_ids)
            if not text:
                continue
            heading = member.css_first(_HEADING_QUERY)  # a review's own title ("Great value")
            titled = visible_text(heading) if heading is not None and not hidden(heading) else ""
            item["title"] = (
                titled if titled and titled not in text and len(titled) <= MAX_TITLE else _shorten(text)
            )
            item["url"] = _permalink(scope, date_id, base, member)
            item["text"] = text
        else:
            item["snippet"] = _snippet(scope, skip, body_ids, date)
        item.update({"points": points, "comments": comments, "author": author, "date": date})
        item["rank"] = _rank(member, None) if choice.kind == "posts" else None
        item["sponsored"] = _sponsored(member, scope, strict_hidden)
        items.append(item)
    # A label on (nearly) every item is no ad label: the page prints it everywhere and hides it with
    # CSS where it does not apply (in a browser, what CSS hides is left out before this point).
    if people:  # a person once, however many of the page's records they wrote
        once: dict[str, dict[str, Any]] = {}
        for item in items:
            once.setdefault(item["url"], item)
        items = list(once.values())
    labelled = sum(1 for item in items if item["sponsored"] == "label")
    trust_labels = not (len(items) >= 5 and labelled >= 0.9 * len(items))
    for item in items:
        item["sponsored"] = item["sponsored"] == "markup" or (item["sponsored"] == "label" and trust_labels)
    return choice.kind, items


def _lead_record(
    members: list[LexborNode], title_ids: set[int], hidden: HiddenIndex, base: str
) -> LexborNode | None:
    """The list's first record in a markup of its own, right before the list: a lead story over a
    news list, a "best match" box over the results. A block just before the list's first block (or
    before the container that opens with it) holding one title link that reads as a title by its own
    words, to an address like the list's
    (the same host, under the path most of its records share), that is not one of theirs nor this
    page again (sorted or filtered otherwise), and text beside it as a record shows (a teaser, a
    date)."""
    node = members[0]
    for _ in range(3):
        sibling = node.prev
        while sibling is not None and not (
            sibling.is_element_node and visible_text(sibling) and not hidden(sibling)
        ):
            sibling = sibling.prev  # text between blocks, a rule, an empty or a hidden block
        if sibling is not None:
            return sibling if _reads_as_lead(sibling, members, title_ids, hidden, base) else None
        parent = node.parent
        if parent is None or parent.tag in ("body", "html"):
            return None
        node = parent
    return None


def _reads_as_lead(
    block: LexborNode, members: list[LexborNode], title_ids: set[int], hidden: HiddenIndex, base: str
) -> bool:
    if block.tag in _HEADINGS or block.tag in ("nav", "aside", "header", "footer", "form") or hidden(block):
        return False
    links = [a for a in block.css("a[href]") if a.mem_id in title_ids]
    urls = {absolute_url(a.attributes.get("href"), base) for a in links}
    url = urls.pop() if len(urls) == 1 else None
    if url is None or not any(_title_like(_link_title(a)) for a in links):
        return False  # (a link titled only by a heading beside it: "Sort by" over "Date")
    if any(named_chrome(n) for n in (block, *block.css("[class], [id]"))):
        return False  # a box of chosen filters ("Clear filters"), a promotion, a related box
    theirs = [
        absolute_url(link.attributes.get("href"), base)
        for m in members[:24]
        if (link := _title_link(m, title_ids)) is not None
    ]
    if url in theirs or not _under_their_path(url, [u for u in theirs if u]):
        return False
    if urlsplit(url).path == urlsplit(base).path:
        return False  # this page again, sorted or filtered otherwise: no record
    text = visible_text(block)
    linked = sum(len(visible_text(a)) for a in block.css("a[href]"))
    return len(text) - linked >= 15 or _date([block])[0] is not None


def _under_their_path(url: str, theirs: list[str]) -> bool:
    """Whether ``url`` is on the host of most of ``theirs`` and under the longest path most of them
    share ("/article/" of "/article/1", "/article/2"; nothing but the host for a site's own pages)."""
    if not theirs:
        return False
    split = urlsplit(url)
    parts = [urlsplit(u) for u in theirs]
    if sum(1 for p in parts if p.netloc == split.netloc) * 2 < len(parts):
        return False
    shared: list[str] = []
    depth = 0
    while True:
        counts = Counter(
            tuple(segments[: depth + 1])
            for p in parts
            if len(segments := [x for x in p.path.split("/") if x]) > depth + 1
        )
        if not counts:
            break
        prefix, n = counts.most_common(1)[0]
        if n * 2 < len(parts):
            break
        shared = list(prefix)
        depth += 1
    mine = [x for x in split.path.split("/") if x]
    return mine[: len(shared)] == shared and len(mine) > len(shared)


#: A note of a document's type and size closing a link's text: "(PDF, 2,3 MB)", "[DOCX 45 kB]", "(1.2 MB)".
_FILE_NOTE_RE = re.compile(
    r"\s*[(\[]\s*(?:(?:pdf|docx?|xlsx?|pptx?|odt|ods|rtf|txt|csv|zip|epub|mp3|mp4)\b[^()\[\]]{0,24}"
    r"|\d[\d.,]*\s*(?:[kmg]i?b|bytes?))\s*[)\]]\s*$",
    re.IGNORECASE,
)


def _without_file_note(title: str) -> str:
    """A document link's title without the note of its file's type and size."""
    cut = _FILE_NOTE_RE.sub("", title)
    return cut if _LETTER_RE.search(cut) else title


def _inside_any(node: LexborNode, ids: set[int]) -> bool:
    current: LexborNode | None = node
    for _ in range(MAX_LEVELS + 1):
        if current is None:
            return False
        if current.mem_id in ids:
            return True
        current = current.parent
    return False


def _comment_text(member: LexborNode, path: tuple | None, body_ids: set[int]) -> str | None:
    """A comment's whole text: the block at the list's common text place (several paragraphs there:
    their parent), else the text blocks found inside it."""
    nodes = _at_path(member, path) if path is not None else []
    if not nodes:
        nodes = [n for n in member.css(", ".join(sorted(_BLOCK_TEXT_TAGS))) if n.mem_id in body_ids]
    if not nodes:
        return None
    if len(nodes) > 1:
        common = _common_ancestor(nodes)
        if common is not None and common.mem_id != member.mem_id:
            return visible_text(common) or None
        return "\n".join(t for n in nodes if (t := visible_text(n))) or None
    return visible_text(nodes[0]) or None


def _doc_order(body: LexborNode):
    order = document_order(body)
    return lambda n: order.get(n.mem_id, 0)


def _check_count(name: str, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
        raise BadParams(f"{name} must be an integer, got {value!r}")


def extract(
    html: str,
    base_url: str = "",
    *,
    limit: int | None = None,
    min_points: int | None = None,
    min_comments: int | None = None,
    kind: str = "any",
    include_ads: bool = False,
    min_score: int | None = None,
    include_promoted: bool = False,
    selectors: dict | None = None,
    embedded: list | None = None,
    **_: Any,
) -> dict:
    """The stories, posts, comments or search results of ``html`` in page order (see the module
    docstring); ``min_points``/``min_comments`` keep items showing at least that many, then
    ``limit`` keeps the first N. Ads are left out unless ``include_ads`` (their count in
    ``ads_left_out``, a key only then: `run` turns it into a warning). ``min_score`` and
    ``include_promoted`` are the same as ``min_points`` and ``include_ads`` (a site tool's names:
    its parameters reach its fallback by name). ``embedded`` are the JSON documents the page carries
    (`_embedded.read_embedded`): a list of results there stands in when the DOM shows none (results a
    script builds from data: a skeleton before hydration)."""
    _check_count("min_score", min_score)
    if min_points is None:
        min_points = min_score
    include_ads = bool(include_ads or include_promoted)
    _check_count("min_points", min_points)
    _check_count("min_comments", min_comments)
    if kind not in ("any", "posts", "comments", "people"):
        raise BadParams(f"kind must be any, posts, comments or people, got {kind!r}")
    tree = parse_html(html)
    base = page_base(tree, base_url)
    strip_junk(tree)
    with remembering():  # titles, the list and the fields ask the same elements the same questions
        found, items = find_items(tree, base, kind)
    if not items and embedded and kind != "comments":
        from ._embedded import article_listing

        items = [
            {**record, "points": None, "comments": None, "author": None, "rank": None, "sponsored": False}
            for record in article_listing(embedded, base)
        ]
        found = "posts" if items else None
    kept, ads = [], 0
    for item in items:
        if item["sponsored"] and not include_ads:
            ads += 1
            continue
        if min_points is not None and (item["points"] is None or item["points"] < min_points):
            continue
        if min_comments is not None and (item["comments"] is None or item["comments"] < min_comments):
            continue
        kept.append(item)
    kept = apply_limit(kept, limit)
    # A field no item shows is not shown at all; "sponsored" only when ads were asked for.
    shown = [f for f in FIELDS if any(item.get(f) not in (None, "") for item in kept)]
    if include_ads:
        shown.append("sponsored")
    articles = [{f: item.get(f) for f in shown} for item in kept]
    for article in articles:
        for key in ("title", "url"):
            article.setdefault(key, None)
    out: dict[str, Any] = {"articles": articles, "kind": found}
    if ads:
        out["ads_left_out"] = ads  # `run` says so (a warning) and drops the key
    return out


async def run(
    ctx: ToolContext,
    limit: int | None = None,
    min_points: int | None = None,
    min_comments: int | None = None,
    kind: str = "any",
    include_ads: bool = False,
    min_score: int | None = None,
    include_promoted: bool = False,
) -> dict:
    """Tool entry point: one round trip for the HTML (what the page's CSS hides left out: ad labels
    some sites print into every item, templates), then `extract` (a huge page's in a worker process: `offload`)."""
    html, url = await page_html(ctx, lean=True)
    params: dict[str, Any] = {
        "limit": limit,
        "min_points": min_points,
        "min_comments": min_comments,
        "kind": kind,
        "include_ads": include_ads,
        "min_score": min_score,
        "include_promoted": include_promoted,
    }
    out = await offload.run(extract, html, url, size=len(html), **params)
    if out["kind"] is None and kind != "comments":
        # No list in the DOM: what the page carries as data, if anything (results a script builds).
        from ._embedded import html_embedded, read_embedded

        live = ctx.page is not None or ctx.document is None
        docs = await read_embedded(require_page(ctx)) if live else html_embedded(html)
        if docs:
            out = extract("<html><body></body></html>", url, embedded=docs, **params)
    ads = out.pop("ads_left_out", 0)
    if ads:
        ctx.warn(
            f"left out {ads} item(s) marked as ads (Sponsored, Promoted, Anzeige, ...); the parameter "
            "include_ads keeps them"
        )
    return out
