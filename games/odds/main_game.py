"""House edge of the main game under a total-dependent basic strategy, for any rule set.

Method (a combinatorial analysis, no simulation):

1. **Strategy.** For every upcard, the basic strategy is derived from full-shoe expectations:
   cards drawn with the probabilities of the shoe less the upcard, the dealer's outcomes for that
   shoe (given no dealer blackjack when the dealer peeks). Stand, hit, double, surrender and
   split are compared per player total (hard or soft) and upcard: a total-dependent strategy,
   with its own tables for the first two cards, for the first two cards of a split hand (double
   after split), for three or more cards (hit or stand) and for pairs. The first-two-card and
   pair decisions are then re-chosen, still one per total and upcard, from the exact
   expectations of every deal making that total (:func:`refine_strategy`). Insurance is never
   taken.
2. **Evaluation.** Every initial deal (two player cards and the upcard, by value) is weighted by
   its exact probability from the shoe. The strategy is then played exactly: every card the
   player draws comes from the shoe less all known cards, and every standing hand is settled
   against the dealer's outcome distribution for the exact composition left
   (:mod:`games.odds.dealer`, memoised by composition).
   With a peek the dealer's blackjack is settled first and play continues given no blackjack;
   this is done exactly by weighting every final hand with the chance that the hole card is no
   natural for the composition at that point (exchangeability of the shoe).
   Without a peek the dealer's blackjack is an outcome at the end: it takes every stake on the
   box (``ALL_STAKES``) or only the original stake (``ORIGINAL_STAKE``): the box then loses
   exactly its original stake whatever it did (busted split and doubled hands included, as the
   round engine settles it, rules 4.3), which is the peek accounting.
3. **Splits** (the one approximation): a split hand is evaluated exactly with the two pair
   cards (and the further pair cards drawn to resplit) removed from the shoe, but not the cards
   of the other split hands. Resplits up to ``max_hands`` are counted by the expected number of
   hands that end with a non-pair second card and with a pair card they may no longer split.
   The test suite bounds this approximation against a brute-force evaluation of both hands.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache

from games.blackjack.rules import HoleCard, NoPeekLoss, RuleSet, SplitBy, Surrender
from games.odds.dealer import (
    ACE,
    BLACKJACK,
    BUST,
    TEN,
    VALUES,
    FloatArray,
    blackjack_chance,
    card_value,
    dealer_distribution,
    full_shoe,
    hand_total,
)

STAND = "S"
HIT = "H"
DOUBLE = "D"
SURRENDER = "R"
SPLIT = "P"

METHOD = (
    "combinatorial analysis: total-dependent basic strategy (hit/stand from full-shoe "
    "expectations; first-two-card and split decisions per total from exact expectations over "
    "every deal); every initial deal weighted exactly; hits, doubles, surrender and the dealer "
    "evaluated exactly for the cards removed (dealer outcomes per shoe composition); split hands "
    "evaluated with the pair cards removed (not the other split hands' cards), resplits by "
    "expected hand counts; no insurance"
)

Key = tuple[int, bool, int]  # (player total, is soft, upcard value index)


@dataclass(frozen=True, slots=True)
class BasicStrategy:
    """A total-dependent basic strategy. Keys are ``(total, is_soft, upcard index)``.

    ``first_two`` plays the first two cards of the box (stand, hit, double, surrender);
    ``split_two`` the first two cards of a split hand (stand, hit, double after split);
    ``hit_stand`` every later decision; ``split`` is keyed ``(pair value index, upcard index)``.
    """

    first_two: dict[tuple[int, bool, int], str]
    split_two: dict[tuple[int, bool, int], str]
    hit_stand: dict[tuple[int, bool, int], str]
    split: dict[tuple[int, int], bool]

    def chart(self) -> dict[str, dict[str, str]]:
        """A printable chart: rows ``"hard 16"``, ``"soft 18"``, ``"pair 8"``; columns upcards."""
        names = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "T"]
        rows: dict[str, dict[str, str]] = {}
        for soft, low in ((False, 5), (True, 13)):
            for total in range(low, 21):
                label = f"{'soft' if soft else 'hard'} {total}"
                rows[label] = {names[u]: self.first_two[(total, soft, u)] for u in range(VALUES)}
        for pair in range(VALUES):
            rows[f"pair {names[pair]}"] = {
                names[u]: SPLIT if self.split[(pair, u)] else "-" for u in range(VALUES)
            }
        return rows


@dataclass(frozen=True, slots=True)
class MainGameOdds:
    """The main game's house edge (positive favours the house) and how it was computed."""

    house_edge: float
    method: str
    strategy: BasicStrategy = field(repr=False)

    @property
    def house_edge_text(self) -> str:
        """The edge as a decimal fraction with six decimals, e.g. ``"0.004321"``."""
        return f"{self.house_edge:.6f}"


def _peek_like(rules: RuleSet) -> bool:
    """Whether a dealer blackjack costs exactly the original stake (peek, or no peek and only
    the original stake lost: rules 4.3, ``settlement.no_peek_original_stake_loss``)."""
    return rules.hole_card is HoleCard.PEEK or rules.no_peek_loss is NoPeekLoss.ORIGINAL_STAKE


def _can_resplit(rules: RuleSet, pair: int) -> bool:
    return rules.max_hands > 2 and (pair != ACE or rules.resplit_aces)


def _one_card_only(rules: RuleSet, pair: int) -> bool:
    return pair == ACE and rules.split_aces_one_card


def split_hand_counts(
    max_hands: int, can_resplit: bool, pair_cards: float, shoe_size: float
) -> tuple[float, float]:
    """Expected numbers of finished split hands ``(with a non-pair card, with a pair card)``.

    Each hand waiting for its second card draws a pair card with chance
    ``(pair_cards - k) / (shoe_size - k)`` after ``k`` further pair cards were drawn; it then
    splits again while fewer than ``max_hands`` hands exist, else it keeps the pair.
    """

    @cache
    def counts(hands: int, waiting: int, drawn: int) -> tuple[float, float]:
        if waiting == 0:
            return 0.0, 0.0
        left = shoe_size - drawn
        chance = max(pair_cards - drawn, 0.0) / left if left > 0 else 0.0
        other = counts(hands, waiting - 1, drawn)
        non_pair = (1.0 - chance) * (1.0 + other[0])
        pair_kept = (1.0 - chance) * other[1]
        if chance > 0.0:
            if can_resplit and hands < max_hands:
                more = counts(hands + 1, waiting + 1, drawn + 1)
                non_pair += chance * more[0]
                pair_kept += chance * more[1]
            else:
                more = counts(hands, waiting - 1, drawn + 1)
                non_pair += chance * more[0]
                pair_kept += chance * (1.0 + more[1])
        return non_pair, pair_kept

    return counts(2, 2, 0)


def _stand_values(distribution: FloatArray, blackjack_loses: bool) -> list[float]:
    """Expected result of standing on 16 (or less) .. 21 against a dealer distribution."""
    values = []
    for player in range(16, 22):
        win = float(distribution[BUST])
        lose = float(distribution[BLACKJACK]) if blackjack_loses else 0.0
        for index in range(5):
            dealer = 17 + index
            if dealer < player:
                win += float(distribution[index])
            elif dealer > player:
                lose += float(distribution[index])
        values.append(win - lose)
    return values


def _stand_value(values: list[float], total: int) -> float:
    return values[max(total, 16) - 16]


def _pair_chance(rules: RuleSet, pair: int, shoe: tuple[int, ...]) -> float:
    """Cards left that pair with a split card: all of its value, or of its rank for tens by rank."""
    if pair == TEN and rules.split_by is SplitBy.RANK:
        # The split ranks are one rank out of four: its share of the ten-valued cards left.
        same_rank = 4 * rules.decks - 2
        other_tens = 16 * rules.decks - 2
        return shoe[TEN] * same_rank / other_tens if other_tens else 0.0
    return float(shoe[pair])


def _tens_same_rank(rules: RuleSet) -> float:
    """Chance that two ten-valued cards from a full shoe have the same rank."""
    return (4 * rules.decks - 1) / (16 * rules.decks - 1)


def derive_strategy(rules: RuleSet) -> BasicStrategy:
    """The total-dependent basic strategy for ``rules`` from full-shoe expectations."""
    first_two: dict[Key, str] = {}
    split_two: dict[Key, str] = {}
    hit_stand: dict[Key, str] = {}
    split: dict[tuple[int, int], bool] = {}
    for upcard in range(VALUES):
        against = _UpcardExpectations(rules, upcard, hit_stand)
        for hard in range(21, 1, -1):
            for ace in (False, True):
                against.best_later(hard, ace)
        first_value, split_value = against.two_card_tables(first_two, split_two)
        for pair in range(VALUES):
            pair_total, pair_soft = hand_total(2 * card_value(pair), pair == ACE)
            key_value = first_value[(pair_total, pair_soft, upcard)]
            split[(pair, upcard)] = against.splitting(pair, split_value) > key_value
    return BasicStrategy(first_two=first_two, split_two=split_two, hit_stand=hit_stand, split=split)


class _UpcardExpectations:
    """Full-shoe expectations against one upcard (the module's method, step 1): cards from the
    shoe less the upcard, standing settled against the dealer's outcomes for it (rules 6.1),
    given no dealer blackjack when one costs only the original stake (4.3). Fills ``hit_stand``."""

    def __init__(self, rules: RuleSet, upcard: int, hit_stand: dict[Key, str]) -> None:
        self.rules = rules
        self.upcard = upcard
        self.hit_stand = hit_stand
        shoe = list(full_shoe(rules.decks))
        shoe[upcard] -= 1
        self.shoe = tuple(shoe)
        self.size = sum(shoe)
        self.chance = [count / self.size for count in shoe]
        distribution = dealer_distribution(upcard, tuple(shoe), rules.dealer_hits_soft_17)
        blackjack = float(distribution[BLACKJACK])
        if _peek_like(rules):
            conditional = distribution.copy()
            conditional[BLACKJACK] = 0.0
            if blackjack < 1.0:
                conditional /= 1.0 - blackjack
            self.stand = _stand_values(conditional, blackjack_loses=False)
            self.surrender = -0.5
        else:
            self.stand = _stand_values(distribution, blackjack_loses=True)
            # Late surrender without a peek: half the stake, or all of it to a dealer blackjack.
            self.surrender = -0.5 * (1.0 - blackjack) - blackjack
        self._later: dict[tuple[int, bool], float] = {}

    def stand_or_bust(self, hard: int, ace: bool) -> float:
        """Standing on the hand (rules 5.2), or its loss when it is over 21 (rules 5.1)."""
        total, _ = hand_total(hard, ace)
        return -1.0 if total > 21 else _stand_value(self.stand, total)

    def best_later(self, hard: int, ace: bool) -> float:
        """The better of hitting and standing (rules 5.1, 5.2) on a hand past its first two
        cards; records the choice in ``hit_stand``."""
        if (hard, ace) not in self._later:
            self._later[(hard, ace)] = self._hit_or_stand(hard, ace)
        return self._later[(hard, ace)]

    def _hit_or_stand(self, hard: int, ace: bool) -> float:
        """Rules 5.1 and 5.2: a hand over 21 loses, 21 stands, else the better of hitting and
        standing, recorded in ``hit_stand``."""
        total, soft = hand_total(hard, ace)
        if total > 21:
            return -1.0
        standing = _stand_value(self.stand, total)
        if total == 21:
            return standing
        hitting = self.hit(hard, ace)
        self.hit_stand[(total, soft, self.upcard)] = HIT if hitting > standing else STAND
        return max(hitting, standing)

    def hit(self, hard: int, ace: bool) -> float:
        """A card, then the best play (rules 5.1)."""
        return sum(
            self.chance[card] * self.best_later(hard + card_value(card), ace or card == ACE)
            for card in range(VALUES)
        )

    def double(self, hard: int, ace: bool) -> float:
        """The stake doubled for one card (rules 5.3)."""
        return 2.0 * sum(
            self.chance[card] * self.stand_or_bust(hard + card_value(card), ace or card == ACE)
            for card in range(VALUES)
        )

    def choose(self, hard: int, ace: bool, may_double: bool, may_surrender: bool) -> tuple[str, float]:
        """The best play on two cards and its value: stand, hit, double where ``double_on``
        allows the total (rules 5.3) and late surrender (rules 5.7)."""
        total, _ = hand_total(hard, ace)
        options = {STAND: _stand_value(self.stand, total)}
        if total < 21:
            options[HIT] = self.hit(hard, ace)
            if may_double and self.rules.double_on.allows(total):
                options[DOUBLE] = self.double(hard, ace)
        if may_surrender and self.rules.surrender is Surrender.LATE:
            options[SURRENDER] = self.surrender
        action = max(options, key=lambda name: options[name])
        return action, options[action]

    def two_card_tables(
        self, first_two: dict[Key, str], split_two: dict[Key, str]
    ) -> tuple[dict[Key, float], dict[Key, float]]:
        """The plays on a box's first two cards (rules 5.1-5.3, 5.7) and on a split hand's
        (double after split, rules 5.6) into ``first_two`` and ``split_two``; their values."""
        first_value: dict[Key, float] = {}
        split_value: dict[Key, float] = {}
        for hard in range(2, 21):
            for ace in (False, True):
                if ace and hard > 11:
                    continue
                total, soft = hand_total(hard, ace)
                action, value = self.choose(hard, ace, True, True)
                first_two[(total, soft, self.upcard)] = action
                first_value[(total, soft, self.upcard)] = value
                action, value = self.choose(hard, ace, self.rules.double_after_split, False)
                split_two[(total, soft, self.upcard)] = action
                split_value[(total, soft, self.upcard)] = value
        return first_value, split_value

    def split_hand(self, pair: int, second: int, split_value: dict[Key, float]) -> float:
        """A split hand of ``pair`` and ``second``: one card only on split aces (rules 5.5),
        else played as a split hand's first two cards (rules 5.6)."""
        hard = card_value(pair) + card_value(second)
        ace = pair == ACE or second == ACE
        total, soft = hand_total(hard, ace)
        if _one_card_only(self.rules, pair) or total == 21:
            return _stand_value(self.stand, total)
        return split_value[(total, soft, self.upcard)]

    def splitting(self, pair: int, split_value: dict[Key, float]) -> float:
        """Splitting a pair (rules 5.4), resplits up to ``max_hands`` counted by
        :func:`split_hand_counts`."""
        pair_chance = _pair_chance(self.rules, pair, self.shoe) / self.size
        non_pair = sum(
            self.chance[c] * self.split_hand(pair, c, split_value) for c in range(VALUES) if c != pair
        )
        non_pair += (self.chance[pair] - pair_chance) * self.split_hand(pair, pair, split_value)
        non_pair_count, kept_count = split_hand_counts(
            self.rules.max_hands, _can_resplit(self.rules, pair), pair_chance * self.size, float(self.size)
        )
        splitting = non_pair_count * non_pair / (1.0 - pair_chance)
        splitting += kept_count * self.split_hand(pair, pair, split_value)
        return splitting


StandCache = dict[tuple[int, tuple[int, ...]], list[float]]


class _Evaluator:
    """Plays a basic strategy exactly from a full shoe (see the module docstring)."""

    def __init__(
        self, rules: RuleSet, strategy: BasicStrategy, stand_cache: StandCache | None = None
    ) -> None:
        self.rules = rules
        self.strategy = strategy
        self.shoe = full_shoe(rules.decks)
        self.peek_like = _peek_like(rules)
        # Standing values depend on the rules and the composition only, not on the strategy,
        # so evaluators of one rule set may share them.
        self._stand: StandCache = stand_cache if stand_cache is not None else {}
        self._later: dict[tuple[int, tuple[int, ...], int, bool], float] = {}

    def left(self, upcard: int, removed: tuple[int, ...]) -> tuple[int, ...]:
        return tuple(self.shoe[v] - removed[v] - (1 if v == upcard else 0) for v in range(VALUES))

    def stand_values(self, upcard: int, removed: tuple[int, ...]) -> list[float]:
        key = (upcard, removed)
        values = self._stand.get(key)
        if values is None:
            distribution = dealer_distribution(
                upcard, self.left(upcard, removed), self.rules.dealer_hits_soft_17
            )
            if self.peek_like:
                distribution = distribution.copy()
                distribution[BLACKJACK] = 0.0  # joint with "no dealer blackjack"
            values = _stand_values(distribution, blackjack_loses=not self.peek_like)
            self._stand[key] = values
        return values

    def bust(self, upcard: int, removed: tuple[int, ...]) -> float:
        if self.peek_like:
            return -(1.0 - blackjack_chance(upcard, self.left(upcard, removed)))
        return -1.0

    def settle(self, upcard: int, removed: tuple[int, ...], hard: int, ace: bool) -> float:
        total, _ = hand_total(hard, ace)
        if total > 21:
            return self.bust(upcard, removed)
        return _stand_value(self.stand_values(upcard, removed), total)

    def draws(self, upcard: int, removed: tuple[int, ...]) -> list[tuple[float, int, tuple[int, ...]]]:
        left = self.left(upcard, removed)
        size = sum(left)
        out = []
        for card in range(VALUES):
            if left[card] > 0:
                grown = (*removed[:card], removed[card] + 1, *removed[card + 1 :])
                out.append((left[card] / size, card, grown))
        return out

    def later(self, upcard: int, removed: tuple[int, ...], hard: int, ace: bool) -> float:
        """Value of a hand that may only hit or stand (three or more cards, or after a hit)."""
        key = (upcard, removed, hard, ace)
        value = self._later.get(key)
        if value is not None:
            return value
        total, soft = hand_total(hard, ace)
        if total > 21 or total == 21 or self.strategy.hit_stand[(total, soft, upcard)] == STAND:
            value = self.settle(upcard, removed, hard, ace)
        else:
            value = self.hit(upcard, removed, hard, ace)
        self._later[key] = value
        return value

    def hit(self, upcard: int, removed: tuple[int, ...], hard: int, ace: bool) -> float:
        return sum(
            chance * self.later(upcard, grown, hard + card_value(card), ace or card == ACE)
            for chance, card, grown in self.draws(upcard, removed)
        )

    def double(self, upcard: int, removed: tuple[int, ...], hard: int, ace: bool) -> float:
        return 2.0 * sum(
            chance * self.settle(upcard, grown, hard + card_value(card), ace or card == ACE)
            for chance, card, grown in self.draws(upcard, removed)
        )

    def surrender(self, upcard: int, removed: tuple[int, ...]) -> float:
        """Late surrender: half the stake when the dealer has no blackjack. A no-peek dealer
        blackjack shown afterwards takes the whole stake (as the round engine settles it), which
        the peek-like accounting already charges in the deal's ``-p``."""
        blackjack = blackjack_chance(upcard, self.left(upcard, removed))
        if self.peek_like:
            return -0.5 * (1.0 - blackjack)
        return -0.5 * (1.0 - blackjack) - blackjack

    def play(self, action: str, upcard: int, removed: tuple[int, ...], hard: int, ace: bool) -> float:
        total, _ = hand_total(hard, ace)
        if action == STAND or total == 21:
            return self.settle(upcard, removed, hard, ace)
        if action == HIT:
            return self.hit(upcard, removed, hard, ace)
        if action == DOUBLE:
            return self.double(upcard, removed, hard, ace)
        return self.surrender(upcard, removed)

    def split_hand(self, upcard: int, removed: tuple[int, ...], pair: int, second: int) -> float:
        """A split hand of ``pair`` and ``second``; ``removed`` holds every known card but the upcard."""
        hard = card_value(pair) + card_value(second)
        ace = pair == ACE or second == ACE
        if _one_card_only(self.rules, pair):
            return self.settle(upcard, removed, hard, ace)
        total, soft = hand_total(hard, ace)
        action = self.strategy.split_two[(total, soft, upcard)]
        return self.play(action, upcard, removed, hard, ace)

    def split(self, upcard: int, pair: int) -> float:
        removed = tuple(2 if v == pair else 0 for v in range(VALUES))
        left = self.left(upcard, removed)
        size = sum(left)
        pair_cards = _pair_chance(self.rules, pair, left)
        non_pair = 0.0
        for card in range(VALUES):
            if left[card] == 0:
                continue
            count = left[card] - pair_cards if card == pair else float(left[card])
            if count <= 0:
                continue
            grown = (*removed[:card], removed[card] + 1, *removed[card + 1 :])
            non_pair += count / size * self.split_hand(upcard, grown, pair, card)
        kept = 0.0
        if left[pair] > 0:
            grown = (*removed[:pair], removed[pair] + 1, *removed[pair + 1 :])
            kept = self.split_hand(upcard, grown, pair, pair)
        non_pair_count, kept_count = split_hand_counts(
            self.rules.max_hands, _can_resplit(self.rules, pair), pair_cards, float(size)
        )
        pair_share = pair_cards / size
        value = kept_count * kept
        if pair_share < 1.0:
            value += non_pair_count * non_pair / (1.0 - pair_share)
        return value

    @staticmethod
    def removed(first: int, second: int) -> tuple[int, ...]:
        return tuple((1 if v == first else 0) + (1 if v == second else 0) for v in range(VALUES))

    def deal(self, first: int, second: int, upcard: int) -> float:
        """Expected result of one initial deal, per unit of original stake."""
        removed = self.removed(first, second)
        blackjack = blackjack_chance(upcard, self.left(upcard, removed))
        if {first, second} == {ACE, TEN}:
            return (1.0 - blackjack) * float(self.rules.blackjack_pays)
        base = -blackjack if self.peek_like else 0.0
        hard = card_value(first) + card_value(second)
        ace = ACE in (first, second)
        total, soft = hand_total(hard, ace)
        action = self.strategy.first_two[(total, soft, upcard)]
        unsplit = self.play(action, upcard, removed, hard, ace)
        if first == second and self.strategy.split[(first, upcard)]:
            splitting = self.split(upcard, first)
            if first == TEN and self.rules.split_by is SplitBy.RANK:
                share = _tens_same_rank(self.rules)
                return base + share * splitting + (1.0 - share) * unsplit
            return base + splitting
        return base + unsplit


def deal_probabilities(decks: int) -> list[tuple[int, int, int, float]]:
    """Every initial deal ``(first, second, upcard)`` by value (first <= second) and its chance."""
    shoe = list(full_shoe(decks))
    size = sum(shoe)
    deals = []
    for upcard in range(VALUES):
        for first in range(VALUES):
            for second in range(first, VALUES):
                left = list(shoe)
                ways = left[first]
                left[first] -= 1
                ways *= left[second]
                left[second] -= 1
                ways *= left[upcard]
                chance = ways / (size * (size - 1) * (size - 2))
                if first != second:
                    chance *= 2
                if chance > 0:
                    deals.append((first, second, upcard, chance))
    return deals


def expected_return(
    rules: RuleSet, strategy: BasicStrategy | None = None, stand_cache: StandCache | None = None
) -> float:
    """The player's expected result per unit of original stake under ``strategy``."""
    chosen = strategy if strategy is not None else derive_strategy(rules)
    evaluator = _Evaluator(rules, chosen, stand_cache)
    return sum(chance * evaluator.deal(f, s, u) for f, s, u, chance in deal_probabilities(rules.decks))


def refine_strategy(
    rules: RuleSet, strategy: BasicStrategy, stand_cache: StandCache | None = None
) -> BasicStrategy:
    """Choose the first-two-card and split decisions from exact expectations, still by total.

    For every player total and upcard, each option (stand, hit, double, surrender) is evaluated
    exactly for every two-card deal making that total, and the option with the best
    probability-weighted sum is kept; a pair is split when splitting beats that option for it.
    Later decisions keep the full-shoe strategy. ``stand_cache`` may be shared with later
    evaluations of the same rule set.
    """
    cache: StandCache = stand_cache if stand_cache is not None else {}
    evaluator = _Evaluator(rules, strategy, cache)
    sums: dict[Key, dict[str, float]] = {}
    deals = [deal for deal in deal_probabilities(rules.decks) if {deal[0], deal[1]} != {ACE, TEN}]
    for first, second, upcard, chance in deals:
        removed = evaluator.removed(first, second)
        hard = card_value(first) + card_value(second)
        ace = ACE in (first, second)
        total, soft = hand_total(hard, ace)
        options = sums.setdefault((total, soft, upcard), {})
        allowed = [STAND, HIT]
        if rules.double_on.allows(total):
            allowed.append(DOUBLE)
        if rules.surrender is Surrender.LATE:
            allowed.append(SURRENDER)
        for action in allowed:
            value = evaluator.play(action, upcard, removed, hard, ace)
            options[action] = options.get(action, 0.0) + chance * value
    first_two = dict(strategy.first_two)
    for key, options in sums.items():
        first_two[key] = max(options, key=lambda name: options[name])
    refined = BasicStrategy(
        first_two=first_two,
        split_two=strategy.split_two,
        hit_stand=strategy.hit_stand,
        split=dict(strategy.split),
    )
    evaluator = _Evaluator(rules, refined, cache)
    for pair in range(VALUES):
        for upcard in range(VALUES):
            removed = evaluator.removed(pair, pair)
            hard = 2 * card_value(pair)
            total, soft = hand_total(hard, pair == ACE)
            action = first_two[(total, soft, upcard)]
            unsplit = evaluator.play(action, upcard, removed, hard, pair == ACE)
            refined.split[(pair, upcard)] = evaluator.split(upcard, pair) > unsplit
    return refined


def main_game_odds(rules: RuleSet, progress: Callable[[str], None] | None = None) -> MainGameOdds:
    """House edge of the main game (a decimal fraction, positive favours the house).

    Plays the total-dependent basic strategy derived by :func:`derive_strategy`; see the module
    docstring for the method and its one approximation (splits).
    """
    stand_cache: StandCache = {}
    strategy = refine_strategy(rules, derive_strategy(rules), stand_cache)
    if progress is not None:
        progress("strategy derived")
    edge = -expected_return(rules, strategy, stand_cache)
    return MainGameOdds(house_edge=edge, method=METHOD, strategy=strategy)
