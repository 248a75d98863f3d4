"""The logged order of A Game Of Sorts' messages and lock events (``in_logged_order``): within a round, the
records whose numbers agree with their time stamps (the longest increasing run) keep their place; one whose number
is repeated or out of time order is left out as a skipped record naming it."""
from __future__ import annotations

from collections import defaultdict

from corpora.gos.data.reader import Line
from dialogue_dashboard.plugin import SkippedRecord

STEP_MESSAGE = "message"  # the kind of a message record (the others are lock events)


def in_logged_order(records: list[tuple[str, Line]], skipped: list[SkippedRecord]) -> list[tuple[str, Line]]:
    """The records whose timestamps agree with their numbering; the others are skipped and listed.

    Messages (message_number) and lock events (lock_event_number) are numbered per interaction and round,
    and in the real log the numbering always follows the timestamps. Where a log breaks that (swapped or
    repeated numbers, a time out of place), the records that keep the longest consistent sequence are
    kept and the rest are listed, never silently re-ordered by their timestamps."""
    sequences: dict[tuple, list[tuple[int, int, int]]] = defaultdict(list)
    for index, (kind, line) in enumerate(records):
        r = line.record
        is_message = kind == STEP_MESSAGE
        number = r["message_number"] if is_message else r["lock_event_number"]
        sequences[(r["interaction_id"], r["round_number"], is_message)].append((number, r["timestamp"], index))
    out_of_order: set[int] = set()
    for items in sequences.values():
        items.sort(key=lambda item: (item[0], -item[1], item[2]))  # equal numbers can never both be kept
        keep = _longest_increasing([timestamp for _number, timestamp, _index in items])
        if len(keep) < len(items):
            kept = set(keep)
            out_of_order.update(items[i][2] for i in range(len(items)) if i not in kept)
    if not out_of_order:
        return records
    for index in sorted(out_of_order):
        kind, line = records[index]
        r = line.record
        what, field = ("message", "message_number") if kind == STEP_MESSAGE else ("lock event", "lock_event_number")
        skipped.append(SkippedRecord(line.where, f"{what}: {field} {r[field]} of round {r['round_number']} disagrees with "
                                                 f"its timestamp {r['timestamp']} (numbers repeated or out of time order)"))
    return [record for index, record in enumerate(records) if index not in out_of_order]


def _longest_increasing(values: list[int]) -> list[int]:
    """Positions of a longest strictly increasing subsequence of ``values`` (O(n log n))."""
    tails: list[int] = []  # tails[k]: position of the smallest last value of an increasing run of length k + 1
    previous = [-1] * len(values)
    for i, value in enumerate(values):
        k = _bisect_tails(values, tails, value)
        if k > 0:
            previous[i] = tails[k - 1]
        if k == len(tails):
            tails.append(i)
        else:
            tails[k] = i
    run, i = [], tails[-1] if tails else -1
    while i >= 0:
        run.append(i)
        i = previous[i]
    return run[::-1]


def _bisect_tails(values: list[int], tails: list[int], value: int) -> int:
    low, high = 0, len(tails)
    while low < high:
        middle = (low + high) // 2
        if values[tails[middle]] < value:
            low = middle + 1
        else:
            high = middle
    return low
