"""Glicko-2 (Mark Glickman, "Example of the Glicko-2 system", 2013), pure functions.

A race of n players is one rating period in which each racer played every other:
a win against each racer ranked below, a loss against each ranked above, a draw
with an equal rank."""

from __future__ import annotations

import math
from dataclasses import dataclass

SCALE = 173.7178
TAU = 0.5
EPSILON = 1e-6


@dataclass(frozen=True)
class Player:
    rating: float = 1500.0
    rd: float = 350.0
    volatility: float = 0.06


def _g(phi: float) -> float:
    return 1 / math.sqrt(1 + 3 * phi * phi / math.pi**2)


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1 / (1 + math.exp(-_g(phi_j) * (mu - mu_j)))


def update(player: Player, results: list[tuple[Player, float]], tau: float = TAU) -> Player:
    """The player's new rating after ``results``: (opponent, score 1/0.5/0)."""
    mu, phi = (player.rating - 1500) / SCALE, player.rd / SCALE
    if not results:
        return Player(player.rating, min(math.sqrt(phi * phi + player.volatility**2) * SCALE, 350.0),
                      player.volatility)
    v_inv, delta_sum = 0.0, 0.0
    for opponent, score in results:
        mu_j, phi_j = (opponent.rating - 1500) / SCALE, opponent.rd / SCALE
        e = _expected(mu, mu_j, phi_j)
        g = _g(phi_j)
        v_inv += g * g * e * (1 - e)
        delta_sum += g * (score - e)
    v = 1 / v_inv
    delta = v * delta_sum
    sigma = _new_volatility(phi, v, delta, player.volatility, tau)
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    phi_new = 1 / math.sqrt(1 / (phi_star * phi_star) + 1 / v)
    mu_new = mu + phi_new * phi_new * delta_sum
    return Player(1500 + SCALE * mu_new, SCALE * phi_new, sigma)


def _new_volatility(phi: float, v: float, delta: float, sigma: float, tau: float) -> float:
    """Step 5 of the paper: the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2 * (phi * phi + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta * delta > phi * phi + v:
        big_b = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2)


def race_results(ranks: list[int]) -> list[list[tuple[int, float]]]:
    """For racers with these ranks, each racer's pairwise (opponent index, score)."""
    return [
        [(j, 1.0 if ranks[i] < ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0)
         for j in range(len(ranks)) if j != i]
        for i in range(len(ranks))
    ]
