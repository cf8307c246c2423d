"""The memory's edit distance and its floor check agree with the textbook dynamic programme."""

from __future__ import annotations

import random

from kapi.host.memory import Similar, levenshtein


def reference(a: str, b: str) -> int:
    previous = list(range(len(b) + 1))
    for i, left in enumerate(a, start=1):
        row = [i]
        for j, right in enumerate(b, start=1):
            row.append(min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + (left != right)))
        previous = row
    return previous[-1]


def pairs(count: int) -> list[tuple[str, str]]:
    rng = random.Random(15)
    out = []
    for _ in range(count):
        alphabet = "abcé d€"[: rng.randint(1, 7)]
        a = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 70)))
        if rng.random() < 0.5:  # a near text: a few characters changed
            chars = list(a)
            for _ in range(rng.randint(0, 8)):
                if chars:
                    chars[rng.randrange(len(chars))] = rng.choice(alphabet)
            b = "".join(chars)
        else:
            b = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 70)))
        out.append((a, b))
    return out


def test_edit_distance_matches_the_dynamic_programme():
    for a, b in pairs(600):
        assert levenshtein(a, b) == reference(a, b), (a, b)


def test_a_cutoff_and_a_floor_give_the_exact_answer_whenever_it_is_within_them():
    rng = random.Random(8)
    for a, b in pairs(600):
        exact = reference(a, b)
        cutoff = rng.randint(0, 40)
        got = Similar(a).distance(b, cutoff)
        assert got == exact if exact <= cutoff else got > cutoff, (a, b, cutoff)
        floor = rng.random()
        longest = max(len(a), len(b))
        similarity = 1.0 - exact / longest if longest else 1.0
        score = Similar(a).at_least(b, floor)
        assert score == similarity if similarity >= floor else score < floor, (a, b, floor)
