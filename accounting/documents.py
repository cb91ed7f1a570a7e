"""Reports as files: one ``Report`` (a title, a table, its totals, notes) written as CSV or PDF.

The table reports, the master game report and the cash transaction log all build a ``Report``
and hand it to ``report_csv`` or ``report_pdf``; neither knows what the figures mean. The cells
arrive already written as the reader should see them (money through ``casino.money.money``
for a PDF, ``money_plain`` for a CSV that a spreadsheet reads back), so this module formats
nothing and translates nothing: the caller's strings go in as they are.

The PDF embeds DejaVu Sans (``accounting/fonts``, Bitstream Vera licence), whose glyphs cover
Latin, Latin Extended and Cyrillic: Hungarian, Polish and Russian names and labels print as
written, on a machine with no fonts installed and without anything fetched at run time.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any
from xml.sax.saxutils import escape

if TYPE_CHECKING:
    from reportlab.lib.styles import ParagraphStyle

Cell = str | int | Decimal | None

FONT_DIRECTORY = Path(__file__).resolve().parent / "fonts"
FONT_REGULAR = "DejaVuSans"
FONT_BOLD = "DejaVuSans-Bold"

# A cell that reads as a figure (an amount in any of the four languages, with or without its
# currency, a count, a percentage) is set flush right: the figures line up on their last digit.
_FIGURE = re.compile(
    r"^[-+\u2212]?(?:[^\w\s%-]{1,3}|[A-Z]{3}\s)?"  # a currency symbol, or a code and a space
    r"[\d\s.,']*\d[\d\s.,']*"  # the number, grouped by spaces, points, commas or apostrophes
    r"(?:\s?%|\s?[^\w\s%-]{1,3}|\s[A-Z]{3})?$"  # a percent sign, a currency symbol or code
)

# The table's type size and the padding of its cells (points).
_CELL_SIZE = 8.5
_CELL_PADDING = 4

# Beyond this many columns a portrait A4 page is too narrow to read: the page turns.
_LANDSCAPE_FROM_COLUMNS = 7


@dataclass(frozen=True)
class Report:
    """A report: ``title`` and ``subtitle`` (the casino, the table, the day...), a table of
    ``columns`` and ``rows`` (each row one cell per column), an optional ``totals`` row (one cell
    per column, usually a label in the first) and ``notes`` printed under the table."""

    title: str
    subtitle: str = ""
    columns: Sequence[str] = ()
    rows: Sequence[Sequence[Cell]] = ()
    totals: Sequence[Cell] | None = None
    notes: Sequence[str] = field(default_factory=tuple)


def _text(cell: Cell) -> str:
    if cell is None:
        return ""
    return str(cell)


def report_csv(report: Report) -> bytes:
    """The report's table as CSV, UTF-8 (no byte-order mark), comma-separated, CRLF line ends:
    the header row (``columns``), one line per row, then the ``totals`` row if there is one.
    The title, subtitle and notes are not part of the data (the file name and the page carry
    them), so a spreadsheet or a script reads the file as one table."""
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    if report.columns:
        writer.writerow([_text(column) for column in report.columns])
    for row in report.rows:
        writer.writerow([_text(cell) for cell in row])
    if report.totals is not None:
        writer.writerow([_text(cell) for cell in report.totals])
    return buffer.getvalue().encode("utf-8")


_fonts_registered = False


def _register_fonts() -> None:
    global _fonts_registered
    if _fonts_registered:
        return
    from reportlab.lib.fonts import addMapping
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    pdfmetrics.registerFont(TTFont(FONT_REGULAR, str(FONT_DIRECTORY / "DejaVuSans.ttf")))
    pdfmetrics.registerFont(TTFont(FONT_BOLD, str(FONT_DIRECTORY / "DejaVuSans-Bold.ttf")))
    addMapping(FONT_REGULAR, 0, 0, FONT_REGULAR)
    addMapping(FONT_REGULAR, 1, 0, FONT_BOLD)
    addMapping(FONT_REGULAR, 0, 1, FONT_REGULAR)
    addMapping(FONT_REGULAR, 1, 1, FONT_BOLD)
    _fonts_registered = True


def _is_figure(cell: Cell) -> bool:
    if isinstance(cell, int | Decimal):
        return True
    return bool(cell) and bool(_FIGURE.match(str(cell)))


def report_pdf(report: Report) -> bytes:
    """The report as a PDF (A4, portrait, landscape from seven columns on): the title, the
    subtitle, the table with its header repeated on every page and the totals row in bold, then
    the notes; each page numbered at its foot. Figures are set flush right. The text is
    real text in an embedded font (a PDF reader finds and copies it; ``pypdf`` extracts it)."""
    from reportlab.lib.pagesizes import A4, landscape
    from reportlab.lib.units import mm
    from reportlab.platypus import Paragraph, SimpleDocTemplate, Spacer

    _register_fonts()
    page_size = landscape(A4) if len(report.columns) >= _LANDSCAPE_FROM_COLUMNS else A4
    styles = _styles()

    story: list[Any] = [Paragraph(escape(report.title), styles.title)]
    if report.subtitle:
        for line in report.subtitle.splitlines():
            story.append(Paragraph(escape(line), styles.subtitle))
    story.append(Spacer(1, 4 * mm))

    if report.columns:
        story.append(_table(report, styles, page_size[0] - 30 * mm))

    if report.notes:
        story.append(Spacer(1, 4 * mm))
        story += [Paragraph(escape(note), styles.note) for note in report.notes]

    buffer = io.BytesIO()

    def number_page(canvas: Any, document: Any) -> None:
        canvas.saveState()
        canvas.setFont(FONT_REGULAR, 7.5)
        canvas.drawRightString(page_size[0] - 15 * mm, 9 * mm, f"{document.page}")
        canvas.restoreState()

    document = SimpleDocTemplate(
        buffer,
        pagesize=page_size,
        leftMargin=15 * mm,
        rightMargin=15 * mm,
        topMargin=15 * mm,
        bottomMargin=15 * mm,
        title=report.title,
        subject=report.subtitle.splitlines()[0] if report.subtitle else "",
        creator="",
        producer="",
    )
    document.build(story, onFirstPage=number_page, onLaterPages=number_page)
    return buffer.getvalue()


@dataclass(frozen=True)
class _Styles:
    """The paragraph styles of a report's PDF: the title's, the subtitle's, a cell's, the
    header's and the totals' (each also flush right, for a figure), and a note's."""

    title: ParagraphStyle
    subtitle: ParagraphStyle
    cell: ParagraphStyle
    figure: ParagraphStyle
    head: ParagraphStyle
    head_figure: ParagraphStyle
    total: ParagraphStyle
    total_figure: ParagraphStyle
    note: ParagraphStyle


def _styles() -> _Styles:
    from reportlab.lib.enums import TA_RIGHT
    from reportlab.lib.styles import ParagraphStyle
    from reportlab.lib.units import mm

    cell_style = ParagraphStyle("cell", fontName=FONT_REGULAR, fontSize=_CELL_SIZE, leading=_CELL_SIZE + 2)
    head_style = ParagraphStyle("head", parent=cell_style, fontName=FONT_BOLD)
    total_style = ParagraphStyle("total", parent=cell_style, fontName=FONT_BOLD)
    return _Styles(
        title=ParagraphStyle("title", fontName=FONT_BOLD, fontSize=15, leading=19, spaceAfter=2 * mm),
        subtitle=ParagraphStyle("subtitle", fontName=FONT_REGULAR, fontSize=10, leading=13),
        cell=cell_style,
        figure=ParagraphStyle("figure", parent=cell_style, alignment=TA_RIGHT),
        head=head_style,
        head_figure=ParagraphStyle("head-figure", parent=head_style, alignment=TA_RIGHT),
        total=total_style,
        total_figure=ParagraphStyle("total-figure", parent=total_style, alignment=TA_RIGHT),
        note=ParagraphStyle("note", fontName=FONT_REGULAR, fontSize=8.5, leading=11, spaceBefore=1 * mm),
    )


def _table(report: Report, styles: _Styles, width: float) -> Any:
    """The report's table, ``width`` wide: the header (repeated on every page), the rows, the
    totals row in bold, figures flush right."""
    from reportlab.lib import colors
    from reportlab.platypus import Paragraph, Table, TableStyle

    # A column whose cells are all figures has its header set flush right too.
    figure_columns = [
        bool(report.rows) and all(_is_figure(row[index]) or row[index] in (None, "") for row in report.rows)
        for index in range(len(report.columns))
    ]

    def paragraph(cell: Cell, plain: ParagraphStyle, figure: ParagraphStyle) -> Paragraph:
        return Paragraph(escape(_text(cell)), figure if _is_figure(cell) else plain)

    data: list[list[Paragraph]] = [
        [
            Paragraph(escape(column), styles.head_figure if figure_columns[index] else styles.head)
            for index, column in enumerate(report.columns)
        ]
    ]
    data += [[paragraph(cell, styles.cell, styles.figure) for cell in row] for row in report.rows]
    if report.totals is not None:
        data.append([paragraph(cell, styles.total, styles.total_figure) for cell in report.totals])
    commands: list[tuple[Any, ...]] = [
        ("VALIGN", (0, 0), (-1, -1), "TOP"),
        ("LINEBELOW", (0, 0), (-1, 0), 0.8, colors.black),
        ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8ecef")),
        ("ROWBACKGROUNDS", (0, 1), (-1, -1), [colors.white, colors.HexColor("#f6f7f8")]),
        ("TOPPADDING", (0, 0), (-1, -1), 2.5),
        ("BOTTOMPADDING", (0, 0), (-1, -1), 2.5),
        ("LEFTPADDING", (0, 0), (-1, -1), _CELL_PADDING),
        ("RIGHTPADDING", (0, 0), (-1, -1), _CELL_PADDING),
    ]
    if report.totals is not None:
        commands += [
            ("LINEABOVE", (0, -1), (-1, -1), 0.8, colors.black),
            ("BACKGROUND", (0, -1), (-1, -1), colors.white),
        ]
    table = Table(data, repeatRows=1, hAlign="LEFT", colWidths=_column_widths(report, width))
    table.setStyle(TableStyle(commands))
    return table


def _column_widths(report: Report, width: float) -> list[float]:
    """Each column as wide as its widest cell needs on one line (the totals in bold, the header
    in bold at its longest word: a header may wrap, a figure does not), measured in the font;
    the page's spare width shared out in proportion. When the page is too narrow, the columns of
    words give way first (their cells wrap), then every column in proportion."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    padding = 2 * _CELL_PADDING + 1
    needed: list[float] = []
    wordy: list[bool] = []
    for index, column in enumerate(report.columns):
        cells = [_text(row[index]) for row in report.rows if index < len(row)]
        widest = max((stringWidth(cell, FONT_REGULAR, _CELL_SIZE) for cell in cells), default=0.0)
        if report.totals is not None and index < len(report.totals):
            widest = max(widest, stringWidth(_text(report.totals[index]), FONT_BOLD, _CELL_SIZE))
        words = str(column).split() or [""]
        widest = max(widest, *(stringWidth(word, FONT_BOLD, _CELL_SIZE) for word in words))
        needed.append(widest + padding)
        wordy.append(not all(_is_figure(cell) or cell == "" for cell in cells))
    total = sum(needed)
    if total <= width:
        return [column + (width - total) * column / total for column in needed]
    excess = total - width
    flexible = sum(column for column, is_wordy in zip(needed, wordy, strict=True) if is_wordy)
    if flexible > excess * 1.5:
        return [
            column - excess * column / flexible if is_wordy else column
            for column, is_wordy in zip(needed, wordy, strict=True)
        ]
    return [column * width / total for column in needed]
