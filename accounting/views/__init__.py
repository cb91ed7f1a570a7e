"""The pit's accounting pages, under ``/accounting/``: the gaming day (close it, ``day``), a
table's accounting (opening and closing counts, their two signatures, variance and
investigations, ``counts``), the fills-and-credits desk (request, the cage's issue, the table's
receipt, void) and the slip report (``slips``), and the casino's accounting settings
(``settings``). What they share is ``common``.

Each page is a full page, or its partial for htmx (``Vary: HX-Request``). A command goes through
one service: done, htmx gets the partial again and a plain form post is sent back to the page; a
refusal is the page (or its partial) with the reason in words and the refusal's 4xx status.
"""
