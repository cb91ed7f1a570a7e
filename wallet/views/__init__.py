"""The cage's pages (``/cage/``): find a player, register one, and the player's page with the
cashier's transactions (buy-in, cash-out, card lock and unlock), the pit boss's balance
adjustments and their approval, and a printable receipt of each transaction.

Who sees what (permissions of ``casino.roles``):

- the cashier (``operate_cage``): the search ``/cage/``, registration, the player's page, buy-in,
  cash-out, card lock and unlock, receipts;
- the pit boss (``adjust_balance``): the adjustments desk ``/cage/adjustments/`` (pending
  adjustments of the casino, a player search), the player's page (read, plus the adjustment form
  and the pending adjustments' approve and reject), receipts. ``balance_adjust`` needs
  ``adjust_balance`` too, so a cashier sees a player's pending adjustments but neither requests
  nor decides one. Who may decide one is the four-eyes capability's rule (``casino.four_eyes``):
  the buttons show to those it lets decide, and its service refuses the others (the requester:
  ``four_eyes_required``).

Every page works without JavaScript and answers ``Vary: HX-Request``: with htmx, the part of the
page that changed (the search results, the player's section, the statement, the adjustments);
without it, the whole page. A form that moves money carries a one-time token: the service runs
once per token (``casino.idempotency.idempotent``, scope ``cage:u<staff id>``), and a second
submit of the same form is answered with the first one's transfer, moving nothing.

The pages by what they are for: ``players`` (the search, registration, the player's page, the
card lock), ``money`` (the forms that move money, and receipts), ``adjustments`` (the pit boss's
desk and decisions); what they share is ``common``.
"""
