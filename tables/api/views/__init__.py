"""Terminal API views: authenticate, check who may do what, validate input, call one service or
selector, render. Every refusal is problem+json (casino.api.exception_handler).

By who calls them: ``player`` (the signed-in player's wallet), ``play`` (boxes, bets, insurance
and decisions), ``dealer`` (cards and the dealer's commands), ``table_state`` (what a screen
shows); what they share is ``common``.
"""
