"""Nouns that name the records a page lists by what they are about ("events", "Rezepte", "pracownicy").

An open class of words, close to many ordinary ones ("staff" and "stuff", "books" and "looks", "Leute"
and "heute"): the spelling pass never respells a word into one of them (`planner.spelling` does not
read this module), so a typo or an ordinary word is quoted as not understood rather than read as a
kind of record.
"""

from __future__ import annotations

#: People as the records asked for, in the plural ("the staff", "pracownicy", "Mitarbeiter"): a
#: directory's entries, whose links lead to their profiles. Not "authors" (an item field's word).
PEOPLE_NOUNS = (
    r"(?:people|persons|staff|staff members|team members|employees|members|speakers|contributors|users|"
    r"profiles|doctors|physicians|dentists|lawyers|attorneys|teachers|professors|lecturers|researchers|"
    r"experts|players|osoby|osób|ludzie|ludzi|pracownicy|pracowników|członkowie|członków|prelegenci|"
    r"prelegentów|użytkownicy|użytkowników|lekarze|lekarzy|prawnicy|adwokaci|nauczyciele|nauczycieli|"
    r"wykładowcy|wykładowców|eksperci|ekspertów|zawodnicy|zawodników|personen|mitarbeiter|"
    r"mitarbeiterinnen|mitarbeitende|mitglieder|referenten|referentinnen|nutzer|benutzer|ärzte|"
    r"ärztinnen|anwälte|rechtsanwälte|lehrer|lehrkräfte|dozenten|experten|spieler)"
)
#: The entries of a page's list named by what they are about, in the plural (events, jobs, recipes,
#: "wydarzenia", "Rezepte"), where no installed tool's key names them: like bare results, the page's
#: records (articles: title, url, snippet), or a shop's offers when a price bounds or orders them.
RECORD_NOUNS = (
    r"\b(?:events|episodes|podcasts|jobs|vacancies|books|recipes|courses|videos|films|movies|"
    r"repositories|repos|papers|publications|questions|topics|hotels|restaurants|apartments|flats|"
    r"houses|homes|properties|cars|vehicles|companies|businesses|schools|universities|"
    r"wydarze(?:nia|ń)|imprez(?:y)?|odcinki|odcinków|książki|książek|ksiazki|przepisy|przepisów|kursy|"
    r"kursów|filmy|filmów|repozytoria|publikacje|pytania|tematy|tematów|wątki|wątków|hotele|restauracje|"
    r"mieszkania|mieszkań|nieruchomości|domy|samochody|samochodów|firmy|szkoły|uczelnie|"
    r"veranstaltungen|termine|episoden|folgen|stellen(?:angebote)?|bücher|rezepte|kurse|videos|filme|"
    r"publikationen|themen|hotels|wohnungen|immobilien|häuser|autos|fahrzeuge|firmen|unternehmen|schulen|"
    r"issues|tickets|bugs|pull\s+requests|commits|releases|packages|projects|apps|games|songs|tracks|albums|"
    r"playlists|channels|reports|documents|datasets|plugins|extensions|templates|lessons|tutorials|guides|"
    r"lectures|talks|webinars|coupons|vouchers|flights|destinations|places|attractions|museums|venues|"
    r"clinics|hospitals|pharmacies|stores|shops|branches|locations|offices|agencies|charities|"
    r"organi[sz]ations|clubs|teams|matches|tournaments|"
    r"zgłoszenia|projekty|aplikacje|gry|piosenki|utwory|albumy|kanały|raporty|dokumenty|poradniki|lekcje|"
    r"wykłady|kupony|loty|miejsca|atrakcje|muzea|sklepy|oddziały|lokalizacje|kluby|drużyny|mecze|"
    r"projekte|spiele|lieder|alben|kanäle|berichte|dokumente|anleitungen|lektionen|vorträge|gutscheine|"
    r"flüge|orte|sehenswürdigkeiten|museen|geschäfte|filialen|standorte|vereine|mannschaften|"
    + PEOPLE_NOUNS
    + r")\b"
)
