"""Rank reconstruction from lock events (FORMATS A.4) on hand-made rounds, including rule-breaking logs."""
from corpora.gos.data.agreement import pairwise_agreement, ranking_agreement
from corpora.gos.data.ranking import LockEvent, replay_locks


def kendall_tau(a, b):
    return ranking_agreement(a, b)[1]


def spearman_rho(a, b):
    return ranking_agreement(a, b)[2]


A, B = "tiny-elephant-9291", "puny-badger-139"


def lock(user, image, t=0):
    return LockEvent(user, "lock", image, t)


def unlock(user, image, kind="unlock automatic", t=0):
    return LockEvent(user, kind, image, t)


def test_two_locks_on_the_same_image_rank_it_and_clear_both_pending_locks():
    result = replay_locks([lock(A, "x", 10), lock(B, "x", 20), lock(B, "y", 30), lock(A, "y", 40)], players=[A, B])
    assert result.ranking == [("x", 20), ("y", 40)]
    assert [o.produced_rank for o in result.outcomes] == [None, 1, None, 2]
    assert result.outcomes[0].pending == {A: "x", B: None}
    assert result.outcomes[1].pending == {A: None, B: None}
    assert [o.ranks_so_far for o in result.outcomes] == [0, 1, 1, 2]
    assert not any(o.anomaly for o in result.outcomes)


def test_a_mismatch_keeps_both_locks_until_the_two_automatic_unlocks():
    events = [lock(A, "x"), lock(B, "y"), unlock(B, "y"), unlock(A, "x"), lock(A, "x"), lock(B, "x")]
    result = replay_locks(events, players=[A, B])
    assert [o.mismatch for o in result.outcomes] == [False, True, False, False, False, False]
    assert result.mismatches == 1
    assert result.outcomes[1].pending == {A: "x", B: "y"}
    assert result.outcomes[2].pending == {A: "x", B: None}
    assert result.outcomes[3].pending == {A: None, B: None}
    assert [image for image, _t in result.ranking] == ["x"]
    assert not any(o.anomaly for o in result.outcomes)


def test_a_manual_unlock_withdraws_only_the_players_own_lock():
    result = replay_locks([lock(A, "z"), unlock(A, "z", "unlock manual"), lock(B, "x"), lock(A, "x")], players=[A, B])
    assert result.outcomes[1].pending == {A: None, B: None}
    assert result.ranking[0][0] == "x"
    assert result.mismatches == 0


def test_rule_breaking_logs_are_described_not_fatal():
    events = [
        unlock(A, "q", "unlock manual"),  # nothing pending
        lock(A, "x"), lock(B, "x"),  # rank 1
        lock(A, "x"),  # already ranked: must not rank it again
        lock(B, "y"), lock(B, "z"),  # locks while holding a lock
        unlock(B, "y", "unlock manual"),  # the pending lock is on z
        LockEvent(A, "explode", "x"),
    ]
    result = replay_locks(events, players=[A, B])
    anomalies = [o.anomaly for o in result.outcomes]
    assert "without a pending lock" in anomalies[0]
    assert "already ranked" in anomalies[3]
    assert "while still holding" in anomalies[5]
    assert "pending lock is on z" in anomalies[6]
    assert "unknown lock event type" in anomalies[7]
    assert [image for image, _t in result.ranking] == ["x"]
    assert result.outcomes[3].pending[A] is None


def test_players_first_seen_in_the_events_are_tracked():
    result = replay_locks([lock("c", "x"), lock("d", "x")])
    assert result.ranking[0][0] == "x" and set(result.outcomes[0].pending) == {"c"}


def test_rank_correlations():
    same = {"a": 1, "b": 2, "c": 3, "d": 4}
    reversed_ = {"a": 4, "b": 3, "c": 2, "d": 1}
    assert kendall_tau(same, same) == 1.0 and spearman_rho(same, same) == 1.0
    assert kendall_tau(same, reversed_) == -1.0 and spearman_rho(same, reversed_) == -1.0
    one_swap = {"a": 2, "b": 1, "c": 3, "d": 4}
    assert kendall_tau(same, one_swap) == (5 - 1) / 6
    assert spearman_rho(same, one_swap) == 1 - 6 * 2 / (4 * 15)
    assert kendall_tau({"a": 1}, {"a": 1}) != kendall_tau({"a": 1}, {"a": 1})  # NaN below two common images


def test_pairwise_agreement_compares_every_pair_of_plays_of_a_board():
    import pandas as pd

    ranks = pd.DataFrame({"board_id": ["b"] * 6, "interaction_id": ["i1"] * 3 + ["i2"] * 3,
                          "image_id": ["x", "y", "z", "x", "z", "y"], "rank": [1, 2, 3, 1, 2, 3]})
    table = pairwise_agreement(ranks)
    assert len(table) == 1
    assert table.loc[0, "kendall_tau"] == 1 / 3 and table.loc[0, "n_common"] == 3
