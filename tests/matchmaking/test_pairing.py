"""The pairing rule of a matchmaking wave (matchmaking.pairing): pure, no database."""

from __future__ import annotations

from matchmaking.pairing import BASE_RANGE, GROUP_MAX, MAX_RANGE, WIDEN_PER_SECOND, Waiting, accepted_range, groups


def keys(made: list[list[Waiting]]) -> list[list[str]]:
    return [[w.key for w in group] for group in made]


def test_two_close_ratings_race_at_once():
    assert keys(groups([Waiting("a", 1500, 0.0), Waiting("b", 1560, 0.0)])) == [["a", "b"]]


def test_a_lone_player_waits():
    assert groups([Waiting("a", 1500, 30.0)]) == []


def test_the_range_widens_with_waiting_time_up_to_a_ceiling():
    assert accepted_range(0) == BASE_RANGE
    assert accepted_range(5) == BASE_RANGE + 5 * WIDEN_PER_SECOND
    assert accepted_range(10_000) == MAX_RANGE


def test_far_ratings_match_only_once_both_have_waited_long_enough():
    gap = BASE_RANGE + 4 * WIDEN_PER_SECOND  # both need 4 s
    assert groups([Waiting("a", 1500, 10.0), Waiting("b", 1500 + gap, 3.9)]) == []
    assert keys(groups([Waiting("a", 1500, 10.0), Waiting("b", 1500 + gap, 4.0)])) == [["a", "b"]]


def test_the_longest_waiting_gets_the_closest_rating():
    made = groups([Waiting("old", 1500, 9.0), Waiting("near", 1510, 0.0), Waiting("far", 1640, 0.0),
                   Waiting("other", 2400, 0.0)], group_max=2)
    assert keys(made) == [["old", "near"]]


def test_compatible_players_of_one_wave_race_together_up_to_the_group_size():
    waiting = [Waiting(f"p{i}", 1500 + 10 * i, 0.5) for i in range(GROUP_MAX + 2)]
    made = groups(waiting)
    assert [len(g) for g in made] == [GROUP_MAX, 2]
    assert sorted(k for g in keys(made) for k in g) == sorted(w.key for w in waiting)


def test_a_group_grows_only_with_players_compatible_with_every_member():
    # c is within range of b but not of a: a and b race, c waits.
    made = groups([Waiting("a", 1500, 0.0), Waiting("b", 1640, 0.0), Waiting("c", 1780, 0.0)])
    assert keys(made) == [["a", "b"]]


def test_nobody_is_in_two_races_of_a_wave():
    waiting = [Waiting(i, 1400 + (i * 37) % 300, float(i % 7)) for i in range(60)]
    seen: list[int] = [w.key for g in groups(waiting) for w in g]
    assert len(seen) == len(set(seen))
    assert all(2 <= len(g) <= GROUP_MAX for g in groups(waiting))
