"""The catalogs (locale/{hu,pl,ru}): every text the code marks is translated, nothing fuzzy, the
compiled .mo files say what the .po files say; no template holds text outside a translate tag;
every refusal code has a sentence; pages read in each language, money in its form.

Nothing here needs GNU gettext: the texts are read from the templates with Django's own template
tools and from the Python code with ``ast``, the catalogs by a small reader below."""

from __future__ import annotations

import ast
import gettext
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from django.conf import settings
from django.template.base import Lexer, TokenType
from django.test import Client
from django.urls import reverse
from django.utils import translation
from django.utils.translation.template import templatize

from casino.models import Table, Terminal
from casino.refusals import REFUSALS
from tables.services import Actor, bet_place, box_take, dealer_sign_on, round_open
from tests.code import APPS
from tests.factories import staff_user
from tests.tables.conftest import at_terminal, funded_player, stack_shoe

ROOT = Path(settings.BASE_DIR)
LANGUAGES = ("hu", "pl", "ru")
CODE_DIRECTORIES = APPS
TEMPLATES = ROOT / "templates"

# Text that reads the same in every language, each with its reason.
ALLOWED_TEXT = {
    "KH, TD, 10d": "card codes, typed at the card field as the card reader sends them",
    "Enter": "the label of the key on the keyboard",
    "Esc": "the label of the key on the keyboard",
    "BJ": "the short name of blackjack on the tables' names and the casino's signs",
    "Redoc": "the name of the API reference viewer, as drf-spectacular's own page titles it",
    "v": "the version mark before a version's number (v3), as the rule sets and paytables are named",
    "(X:1)": "the paytables' notation of a payout, X to 1, the same in every language",
}
# A keyboard shortcut or a card's rank (A, K, Q, J, T): one capital letter, the key's label.
SINGLE_KEY = re.compile(r"[A-Z]")


@pytest.fixture(autouse=True)
def _default_language_after() -> Iterator[None]:
    """A request leaves its language active in the thread (Django's LocaleMiddleware never
    deactivates it): the tests after these get the default language back."""
    yield
    translation.deactivate()


# --------------------------------------------------------------------------------- the catalogs


@dataclass
class PoEntry:
    msgctxt: str | None
    msgid: str
    msgid_plural: str | None
    msgstr: list[str] = field(default_factory=list)
    is_fuzzy: bool = False


def _unquoted(text: str) -> str:
    value = ast.literal_eval(text)
    assert isinstance(value, str)
    return value


def po_entries(path: Path) -> list[PoEntry]:
    """The entries of a .po file (obsolete ones left out), the header included."""
    entries: list[PoEntry] = []
    blocks = re.split(r"\n\s*\n", path.read_text(encoding="utf-8"))
    for block in blocks:
        lines = [line for line in block.splitlines() if line.strip() and not line.startswith("#~")]
        flags = {flag.strip() for line in lines if line.startswith("#,") for flag in line[2:].split(",")}
        fields: dict[str, str] = {}
        current = ""
        for line in lines:
            if line.startswith("#"):
                continue
            match = re.match(r'(msgctxt|msgid_plural|msgid|msgstr(?:\[\d+\])?)\s+(".*")$', line)
            if match:
                current = match.group(1)
                fields[current] = _unquoted(match.group(2))
            else:
                fields[current] += _unquoted(line)
        if "msgid" not in fields:
            continue
        plural_forms = sorted(
            (key for key in fields if key.startswith("msgstr[")), key=lambda k: int(k[7:-1])
        )
        entries.append(
            PoEntry(
                msgctxt=fields.get("msgctxt"),
                msgid=fields["msgid"],
                msgid_plural=fields.get("msgid_plural"),
                msgstr=[fields[key] for key in plural_forms] if plural_forms else [fields.get("msgstr", "")],
                is_fuzzy="fuzzy" in flags,
            )
        )
    return entries


def _po(language: str) -> Path:
    return ROOT / "locale" / language / "LC_MESSAGES" / "django.po"


def _plural_count(entries: list[PoEntry]) -> int:
    header = next(entry for entry in entries if entry.msgid == "")
    match = re.search(r"nplurals=(\d+)", header.msgstr[0])
    assert match, "the header names no Plural-Forms"
    return int(match.group(1))


# ------------------------------------------------------------------------------- the code's texts

Key = tuple[str | None, str, str | None]  # context, text, plural text

GETTEXT_FUNCTIONS = {
    "_": (None, 0, None),
    "gettext": (None, 0, None),
    "gettext_lazy": (None, 0, None),
    "ngettext": (None, 0, 1),
    "ngettext_lazy": (None, 0, 1),
    "pgettext": (0, 1, None),
    "pgettext_lazy": (0, 1, None),
    "npgettext": (0, 1, 2),
    "npgettext_lazy": (0, 1, 2),
}


def _key_of_call(call: ast.Call) -> Key | None:
    name = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
    if name not in GETTEXT_FUNCTIONS:
        return None
    context_at, text_at, plural_at = GETTEXT_FUNCTIONS[name]
    values = [arg.value if isinstance(arg, ast.Constant) else None for arg in call.args]
    if len(values) <= max(at for at in (context_at, text_at, plural_at) if at is not None):
        return None
    text = values[text_at]
    if not isinstance(text, str):
        return None
    context = values[context_at] if context_at is not None else None
    plural = values[plural_at] if plural_at is not None else None
    return (context if isinstance(context, str) else None, text, plural if isinstance(plural, str) else None)


def python_texts() -> dict[Key, str]:
    """Every text the Python code of the apps marks, with where."""
    found: dict[Key, str] = {}
    for directory in CODE_DIRECTORIES:
        for path in sorted((ROOT / directory).rglob("*.py")):
            if "migrations" in path.parts:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call) and (key := _key_of_call(node)) is not None:
                    found.setdefault(key, f"{path.relative_to(ROOT)}:{node.lineno}")
    return found


def _templates() -> Iterator[Path]:
    yield from sorted(TEMPLATES.rglob("*.html"))


def template_texts() -> dict[Key, str]:
    """Every text the templates mark, as makemessages reads them (Django's ``templatize``)."""
    found: dict[Key, str] = {}
    for path in _templates():
        source = templatize(path.read_text(encoding="utf-8"), origin=str(path))
        for match in re.finditer(r"\b(npgettext|pgettext|ngettext|gettext|_)\(", source):
            for end in range(source.find(")", match.end()), len(source)):
                if source[end] != ")":
                    continue
                try:
                    node = ast.parse(source[match.start() : end + 1], mode="eval").body
                except SyntaxError:
                    continue
                if isinstance(node, ast.Call) and (key := _key_of_call(node)) is not None:
                    found.setdefault(key, str(path.relative_to(ROOT)))
                break
    return found


def test_the_reader_finds_the_texts_of_templates_and_code():
    texts = {**python_texts(), **template_texts()}
    assert ("blackjack decision", "Stand", None) in texts
    assert (None, "Dealer console", None) in texts
    assert ("blackjack", "Box %(number)s", None) in texts
    assert (None, "%(decks)s deck", "%(decks)s decks") in texts
    assert (None, "Wrong username or password.", None) in texts


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_text_the_code_marks_is_translated(language):
    entries = po_entries(_po(language))
    plurals = _plural_count(entries)
    translated = {
        (entry.msgctxt, entry.msgid, entry.msgid_plural): entry
        for entry in entries
        if entry.msgid and not entry.is_fuzzy and all(entry.msgstr)
    }
    missing = [
        f"{where}: {key}"
        for key, where in sorted({**python_texts(), **template_texts()}.items(), key=str)
        if key not in translated
    ]
    assert missing == []
    wrong_forms = [
        entry.msgid for entry in translated.values() if entry.msgid_plural and len(entry.msgstr) != plurals
    ]
    assert wrong_forms == []


@pytest.mark.parametrize("language", LANGUAGES)
def test_no_catalog_entry_is_fuzzy_or_empty(language):
    entries = po_entries(_po(language))
    assert [entry.msgid for entry in entries if entry.is_fuzzy] == []
    assert [entry.msgid for entry in entries if not all(entry.msgstr)] == []
    header = next(entry for entry in entries if entry.msgid == "")
    assert f"Language: {language}\n" in header.msgstr[0]


def _catalog_of_po(language: str) -> dict[Any, str]:
    """What ``gettext`` would read from the .po file, in ``GNUTranslations._catalog``'s keys."""
    catalog: dict[Any, str] = {}
    for entry in po_entries(_po(language)):
        if entry.msgid == "":
            continue
        msgid = f"{entry.msgctxt}\x04{entry.msgid}" if entry.msgctxt is not None else entry.msgid
        if entry.msgid_plural is not None:
            for index, text in enumerate(entry.msgstr):
                catalog[(msgid, index)] = text
        else:
            catalog[msgid] = entry.msgstr[0]
    return catalog


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_compiled_catalog_matches_its_source(language):
    with (ROOT / "locale" / language / "LC_MESSAGES" / "django.mo").open("rb") as compiled:
        translations = gettext.GNUTranslations(compiled)
    # the compiled messages, the header ("") left out: GNUTranslations keeps them in _catalog
    compiled_catalog = {key: text for key, text in translations._catalog.items() if key != ""}  # type: ignore[attr-defined]
    assert compiled_catalog == _catalog_of_po(language)


# ------------------------------------------------------------------------ text left untranslated

VISIBLE_ATTRIBUTES = {"title", "placeholder", "alt", "aria-label", "label"}
PLACEHOLDER = "\x00"


class _VisibleText(HTMLParser):
    """The text a reader sees (outside scripts and styles) and the attributes shown as text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hidden = 0
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.hidden += 1
        self.texts.extend(value for name, value in attrs if name in VISIBLE_ATTRIBUTES and value)
        if tag == "input" and dict(attrs).get("type") in ("submit", "button", "reset"):
            self.texts.append(dict(attrs).get("value") or "")  # the button's label

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.hidden = max(0, self.hidden - 1)

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.texts.append(data)


def untranslated_texts(source: str) -> list[str]:
    """The pieces of text with a letter that a template shows outside translate tags: the text
    between its tags (comments and blocktranslate blocks left out, each template tag standing in
    as a space and each variable as a non-letter), and a variable's ``default`` written in the
    template."""
    skeleton: list[str] = []
    found: list[str] = []
    inside: list[str] = []
    for token in Lexer(source).tokenize():
        if token.token_type == TokenType.BLOCK:
            name = token.contents.split(" ", 1)[0]
            if name in ("blocktranslate", "blocktrans", "comment"):
                inside.append(name)
            elif name in ("endblocktranslate", "endblocktrans", "endcomment") and inside:
                inside.pop()
            skeleton.append(" ")  # a tag may stand inside an HTML tag: <label{% if %} class="x"{% endif %}>
        elif token.token_type == TokenType.VAR:
            found.extend(re.findall(r'\|default(?:_if_none)?:"([^"]*[^\W\d_][^"]*)"', token.contents))
            skeleton.append(PLACEHOLDER)
        elif token.token_type == TokenType.TEXT:
            skeleton.append(PLACEHOLDER if inside else token.contents)
    parser = _VisibleText()
    parser.feed("".join(skeleton))
    parser.close()
    for text in parser.texts:
        for piece in text.split(PLACEHOLDER):
            piece = " ".join(piece.split())
            if any(character.isalpha() for character in piece):
                found.append(piece)
    return [text for text in found if text not in ALLOWED_TEXT and not SINGLE_KEY.fullmatch(text)]


def test_the_untranslated_text_check_sees_text_attributes_and_defaults():
    source = (
        '{% load i18n %}<p title="Shown">{% translate "Fine" %} Plain words <kbd>L</kbd></p><input type="submit" value="Go">'
        '<script>var a = "no";</script>{# a note #}{% comment %}Old{% endcomment %}'
        '{% blocktranslate %}Marked {{ x }}{% endblocktranslate %}{{ y|default:"nobody" }}{{ z|date:"Y-m-d" }}'
    )
    assert untranslated_texts(source) == ["nobody", "Shown", "Plain words", "Go"]


def test_no_template_shows_untranslated_text():
    found = [
        f"{path.relative_to(TEMPLATES)}: {text!r}"
        for path in _templates()
        for text in untranslated_texts(path.read_text(encoding="utf-8"))
    ]
    assert found == []


# -------------------------------------------------------------------------------- refusal codes


def _codes_in(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                targets = (
                    statement.targets
                    if isinstance(statement, ast.Assign)
                    else [statement.target]
                    if isinstance(statement, ast.AnnAssign)
                    else []
                )
                value = getattr(statement, "value", None)
                if any(isinstance(target, ast.Name) and target.id == "code" for target in targets) and (
                    isinstance(value, ast.Constant) and isinstance(value.value, str)
                ):
                    yield value.value
        elif isinstance(node, ast.Call):
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg == "code" and isinstance(value, ast.Constant) and isinstance(value.value, str):
                    yield from [value.value] if value.value else []
            arguments = node.args
            if isinstance(node.func, ast.Name) and node.func.id == "_refuse" and len(arguments) == 2:
                code = arguments[1]
                yield from (
                    [code.value] if isinstance(code, ast.Constant) and isinstance(code.value, str) else []
                )


# The codes made up where they are raised: ``f"{decision}_not_allowed"`` (the engine's decisions).
COMPOSED_CODES = {f"{decision}_not_allowed" for decision in ("hit", "stand", "double", "split", "surrender")}


def refusal_codes() -> set[str]:
    """Every stable code the services, the wallet, the tables and the engine refuse with."""
    codes = set(COMPOSED_CODES)
    for directory in CODE_DIRECTORIES:
        for path in (ROOT / directory).rglob("*.py"):
            if "migrations" not in path.parts:
                codes.update(_codes_in(ast.parse(path.read_text(encoding="utf-8"))))
    return codes


def test_every_refusal_code_has_a_sentence():
    codes = refusal_codes()
    assert {"betting_closed", "stake_above_table_max", "not_your_turn", "unknown_language"} <= codes
    assert sorted(codes - set(REFUSALS)) == []


# ------------------------------------------------------------------------- pages in each language

# A known text of the console and of the round list, and money as the language writes it.
PAGE_TEXTS = {
    "en": ("Dealer console", "No more bets", "1,234.50", "Rounds"),
    "hu": ("Krupié konzol", "Nincs több tét", "1\u00a0234,50", "Leosztások"),
    "pl": ("Konsola krupiera", "Koniec zakładów", "1\u00a0234,50", "Rozdania"),
    "ru": ("Пульт дилера", "Ставок больше нет", "1\u00a0234,50", "Раунды"),
}


def _in_language(client: Client, language: str) -> None:
    response = client.post(reverse("casino:language"), {"language": language, "next": "/"})
    assert response.status_code == 302


@pytest.fixture
def big_bet(seeded: Any) -> Table:
    """BJ1, betting open, dealer-1 signed on; alice bets 1,234.50 on box 1 (the main maximum is
    5,000.00)."""
    table = Table.objects.get(name="BJ1")
    dealer = staff_user("dealer", "dealer-1")
    dealer_sign_on(table=table, actor=Actor.staff(dealer))
    stack_shoe(table, dealer, ["TS", "7H", "9D", "TC"])
    alice = funded_player(table, 500_000, name="Alice Archer")
    as_alice = at_terminal(table, alice)
    box_take(table=table, box_number=1, actor=as_alice)
    round_ = round_open(table=table, actor=Actor.staff(dealer))
    bet_place(
        round_id=round_.pk,
        actor=as_alice,
        box_number=1,
        kind="main",
        stake_minor=123_450,
        idempotency_key="m",
    )
    return table


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_the_console_and_the_round_list_read_in_the_language_chosen(big_bet, language):
    title, action, amount, rounds = PAGE_TEXTS[language]
    client = Client()
    client.force_login(staff_user("dealer", "dealer-1"))
    _in_language(client, language)
    console = client.get(reverse("floor:console", args=["BJ1"])).content.decode()
    assert title in console and action in console and amount in console
    assert f'<html lang="{language}">' in console
    pit_boss = Client()
    pit_boss.force_login(staff_user("pit_boss", "pitboss-1"))
    _in_language(pit_boss, language)
    listed = pit_boss.get(reverse("tables:round_list")).content.decode()
    assert f"<h1>{rounds}</h1>" in listed and amount in listed


GAME_NAMED = {
    "en": "CA1 is a Canasta table",
    "hu": "CA1 Kanaszta asztal",
    "pl": "CA1 to stół do gry Kanasta",
    "ru": "CA1 — стол для игры Канаста",
}


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", *LANGUAGES])
def test_a_game_and_a_terminal_kind_are_named_in_the_language_chosen(seeded: Any, language: str) -> None:
    # the choice labels of the models a page shows (a table's game, a terminal's kind)
    client = Client()
    client.force_login(staff_user("dealer", "dealer-1"))
    _in_language(client, language)
    console = client.get(reverse("floor:console", args=["CA1"])).content.decode()
    assert GAME_NAMED[language] in console
    with translation.override(language):
        assert (
            str(Terminal.Kind.DEALER_TERMINAL.label)
            == {
                "en": "Dealer terminal",
                "hu": "Krupiéterminál",
                "pl": "Terminal krupiera",
                "ru": "Терминал дилера",
            }[language]
        )
