"""Reads of the round audit pages (the pit boss's and the auditor's), one module each: the
filtered list of a casino's rounds with their totals (``listing``), one round's summary (cards,
bets, payout lines and their approval: ``summary``), its event log in words and the audit records
that name it (``events``); what they share: a round's money (``money``), the cards as the screens
draw them (``cards``) and the labels of statuses, kinds and decisions (``labels``).

A round's money, the same on the list, the round's page and the dealer's console:

- staked: the stakes the round's outcome decides, doubles, splits and insurance included: once
  settled, its payout lines' stakes (each line is one bet on one hand); before that, each placed
  bet's stakes on the hands of the engine's state (a double or split adds to them), or its stake
  when it is on no hand (a side bet, an insurance, a bet before the deal);
- paid: what the players received, the payouts of the lines paid at once or approved by a pit
  boss; a line awaiting approval is not paid yet (``waiting``), a rejected one never is (its
  payout went back to the tray: ``rejected``);
- each line that waited for a pit boss shows the decision: who, when and why (``PayoutDecision``).

Money is integer minor units throughout, written for people by ``casino.money.money``.
"""
