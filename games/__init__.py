"""The pure game engines: cards, blackjack, side bets, odds, canasta.

Nothing in this package imports Django, a database driver, Celery or the apps; it has
no clock and no randomness of its own. Shoe orders, times and choices are inputs.
"""
