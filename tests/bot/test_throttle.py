"""Commands outside a game: a burst, then now and then; the rest dropped (issue 25)."""

from __future__ import annotations

from bot.delivery.throttle import CHAT_BURST, CHAT_EVERY, PERSON_BURST, Budget, CommandBudgets


def test_a_budget_gives_its_burst_then_one_per_period() -> None:
    budget = Budget(3, 10.0)
    taken = 0
    for _ in range(10):
        if budget.has_room(1, 0.0):
            budget.spend(1, 0.0)
            taken += 1
    assert taken == 3
    assert not budget.has_room(1, 9.9)
    assert budget.has_room(1, 10.0)  # one more after a period
    assert budget.has_room(2, 0.0)  # another key has its own
    budget.spend(1, 10.0)
    assert not budget.has_room(1, 10.0)
    assert budget.has_room(1, 1000.0) and Budget(3, 10.0).has_room(1, -5.0)


def test_a_group_without_a_game_and_a_person_each_have_their_budget() -> None:
    budgets = CommandBudgets()
    answered = 0
    for _ in range(50):
        if budgets.fits(-100, 7, 0.0, group=True):
            budgets.spend(-100, 7, 0.0, group=True)
            answered += 1
    assert answered == CHAT_BURST
    # The same person elsewhere: their own budget, spent by the group's answers too.
    private = 0
    for _ in range(50):
        if budgets.fits(7, 7, 0.0, group=False):
            budgets.spend(7, 7, 0.0, group=False)
            private += 1
    assert private == PERSON_BURST - CHAT_BURST
    assert not budgets.fits(-100, 8, 0.0, group=True)  # the group's budget is spent for all
    assert budgets.fits(-100, 8, CHAT_EVERY, group=True)
