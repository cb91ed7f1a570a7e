"""The terminal REST API: what player terminals and card readers use at a live table.

Thin by design: views validate input with serializers, call the table and wallet services and
selectors, and render their results. No game rule lives here."""
