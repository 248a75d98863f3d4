"""Builder Action Prediction (BAP) samples, derived exactly as the repo's ``data_loader.py`` does (FORMATS B.8).

One derivation (``game_events`` + ``sample_spans``) serves two outputs:
- compact rows for the ``bap_samples`` frame (``sample_rows``), cheap enough for every load;
- the documented sample dicts (``sample_dicts``/``iter_bap_samples``), re-read from the game files because
  they need the repo's temporal block order, and the JSON Lines export (``export_jsonl``).

Event stream of a game with kept states ws[0..n-1]: for i = 1 every chat line of ws[1] becomes a chat event,
each preceded (as coded) by a putdown per block already in ws[1]; for i > 1 the putdowns of ws[i] − ws[i−1],
then its pickups (each group sorted by x, y, z, type), then the chat lines added at ws[i]. A sample starts at
every action that opens a run of actions and is preceded by chat (or is the first event); its target is the
run. Samples whose configs touch a block outside the region are skipped; an exception skips the rest of the
game (in practice: a chat line that is empty after stripping, on which the repo's ``split()[0]`` fails).
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator, Optional

from corpora.minecraft.data.blocks import all_in_region, block_dict, decode, perspective_coordinates
from corpora.minecraft.data.reader import SPLITS, GameLog, discover, original_experiment_id, read_game
from corpora.minecraft.data.tokenize import tokenize_utterance

PUTDOWN, PICKUP, CHAT = 0, 1, 2
EVENT_NAMES = ("putdown", "pickup", "chat")
ARCHITECT_PREFIX, BUILDER_PREFIX = "<Architect> ", "<Builder> "


@dataclass(frozen=True)
class Event:
    kind: int  # PUTDOWN, PICKUP or CHAT
    state: int  # index i of the kept state that produced it
    key: int = -1  # block key for actions
    line: int = -1  # chat line index for chat events


def transition(previous: Iterable[int], current: Iterable[int]) -> tuple[list[int], list[int]]:
    """Placements (current − previous) and removals (previous − current), each sorted by (x, y, z, type)."""
    previous, current = set(previous), set(current)
    return sorted(current - previous), sorted(previous - current)


def transitions(game: GameLog) -> list[tuple[list[int], list[int]]]:
    """``transition`` of every kept state from its predecessor, computed once per game.

    Placements are counted from the empty world: index 0 places every block of the first recorded state
    (normally none), before any utterance."""
    if game.diffs is None:
        diffs: list[tuple[list, list]] = [(sorted(set(game.keys[0])), [])]
        previous = set(game.keys[0])
        for keys in game.keys[1:]:
            current = set(keys)
            if current == previous:
                diffs.append(([], []))
            else:
                diffs.append((sorted(current - previous), sorted(previous - current)))
            previous = current
        game.diffs = diffs
    return game.diffs


def game_events(game: GameLog) -> list[Event]:
    events: list[Event] = []
    diffs = transitions(game)
    for i in range(1, len(game.keys)):
        if i == 1:
            for line in range(game.n_chat[1]):
                events.extend(Event(PUTDOWN, 1, key) for key in game.keys[1])
                events.append(Event(CHAT, 1, line=line))
            continue
        placements, removals = diffs[i]
        events.extend(Event(PUTDOWN, i, key) for key in placements)
        events.extend(Event(PICKUP, i, key) for key in removals)
        events.extend(Event(CHAT, i, line=line) for line in range(game.n_chat[i - 1], game.n_chat[i]))
    return events


@dataclass(frozen=True)
class SampleSpan:
    """Where a sample sits in its game's event stream: events[start:end] are its target actions."""

    start: int
    end: int
    state: int  # sample_id: the kept-state index of the first action
    n_history: int  # actions before start


def sample_spans(game: GameLog, events: list[Event]) -> list[SampleSpan]:
    valid = [all_in_region(keys) for keys in game.keys]

    def valid_prev(state: int) -> bool:  # prev_config is None (→ []) for events of state 1
        return state == 1 or valid[state - 1]

    first_bad_chat = next((p for p, e in enumerate(events) if e.kind == CHAT and not game.lines[e.line].strip()), None)
    spans, n_actions = [], 0
    for position, event in enumerate(events):
        if event.kind == CHAT:
            continue
        n_actions += 1
        if position > 0 and events[position - 1].kind != CHAT:
            continue
        end = position
        while end < len(events) and events[end].kind != CHAT:
            end += 1
        if not (valid[event.state] and valid_prev(event.state)):
            continue
        if not all(valid[e.state] and valid_prev(e.state) for e in events[position:end]):
            continue
        if first_bad_chat is not None and first_bad_chat < position:
            break  # the repo's exception: the rest of this game yields no samples
        spans.append(SampleSpan(position, end, event.state, n_actions - 1))
    return spans


def utterance_turn(game: GameLog, state: int) -> int:
    """The utterance (1-based, system line excluded) an action of ``state`` follows; 0 before the first."""
    return game.utterances_in(game.n_chat[state - 1]) if state > 0 else 0


def sample_rows(game: GameLog, json_id: int) -> dict[str, list]:
    """Compact columns of this game's samples for the ``bap_samples`` frame."""
    events = game_events(game)
    rows: dict[str, list] = {name: [] for name in BAP_COLUMNS}
    for span in sample_spans(game, events):
        position = game.position[span.state - 1]
        next_actions = [[EVENT_NAMES[e.kind], *decode(e.key)[:3], decode(e.key)[3], e.state] for e in events[span.start:span.end]]
        values = (
            game.experiment_id, game.split, json_id, span.state, utterance_turn(game, span.state), span.start,
            span.n_history, span.end - span.start, json.dumps(next_actions), span.start + 1,
            len(game.keys[span.state - 1]) if span.state > 1 else 0, len(game.keys[span.state]),
            *position, game.from_aug_data, _orig_id(game),
        )
        for name, value in zip(BAP_COLUMNS, values):
            rows[name].append(value)
    return rows


BAP_COLUMNS = [
    "game", "split", "json_id", "sample_id", "turn", "stream_pos", "n_history", "n_next", "next_actions",
    "n_prev_utterances", "prev_config_size", "built_config_size",
    "builder_x", "builder_y", "builder_z", "builder_yaw", "builder_pitch", "from_aug_data", "orig_experiment_id",
]


def _orig_id(game: GameLog) -> str:
    return original_experiment_id(game.experiment_id) if game.from_aug_data else game.experiment_id


# ------------------------------------------------------------------------------------------- full sample dicts

def _builder_action(event: Event, weight: Optional[int]) -> dict:
    return {"action_type": "placement" if event.kind == PUTDOWN else "removal", "block": block_dict(event.key), "weight": weight}


def _config(keys: list[int]) -> list[dict]:
    return [block_dict(k) for k in keys]


def _utterance(line: str, lower: bool) -> dict:
    line = line.strip()
    speaker = "Architect" if "Architect" in line.split()[0] else "Builder"  # IndexError on "" as in the repo
    text = line[len(ARCHITECT_PREFIX):] if speaker == "Architect" else line[len(BUILDER_PREFIX):]
    return {"speaker": speaker, "utterance": tokenize_utterance(text, lower=lower)}


def sample_dicts(game: GameLog, gold_keys: list[int], json_id: int, lower: bool = True,
                 perspective: bool = True) -> list[dict]:
    """The documented sample dicts of one game (FORMATS B.8). ``game`` should be read with temporal_order."""
    events = game_events(game)
    gold_config = _config(gold_keys)
    samples = []
    for span in sample_spans(game, events):
        history = [_builder_action(e, 1 if e.kind == PUTDOWN else 0) for e in events[:span.start] if e.kind != CHAT]
        running = list(history)
        next_actions = []
        for e in events[span.start:span.end]:
            action = _builder_action(e, None)
            next_actions.append({
                "action": action,
                "built_config": _config(game.keys[e.state]),
                "prev_config": _config(game.keys[e.state - 1]) if e.state > 1 else [],
                "action_history": list(running),
            })
            running.append(action)
        prev_utterances = [{"speaker": "Builder", "utterance": ["<dialogue>"]}]
        for e in events[:span.start]:
            if e.kind == CHAT:
                prev_utterances.append(_utterance(game.lines[e.line], lower))
            else:
                prev_utterances.append({"speaker": "Builder",
                                        "utterance": [f"<builder_{EVENT_NAMES[e.kind]}_{decode(e.key)[3]}>"]})
        x, y, z, yaw, pitch = game.position[span.state - 1]
        samples.append({
            "builder_action_history": history,
            "next_builder_actions": next_actions,
            "prev_utterances": prev_utterances,
            "gold_config": gold_config,
            "built_config": _config(game.keys[span.state]),
            "prev_config": _config(game.keys[span.state - 1]) if span.state > 1 else [],
            "prev_builder_position": {"x": x, "y": y, "z": z, "yaw": yaw, "pitch": pitch},
            "perspective_coordinates": perspective_coordinates(x, y, z, yaw, pitch) if perspective else None,
            "from_aug_data": game.from_aug_data,
            "json_id": json_id,
            "sample_id": span.state,
            "orig_experiment_id": _orig_id(game),
        })
    return samples


def iter_bap_samples(source: Path, split: str, lower: bool = True, perspective: bool = True) -> Iterator[dict]:
    """All samples of one split of the corpus at ``source``, game by game (json_id = game index in the split).

    Broken game files are passed over (build_frames reports them as skipped records)."""
    from corpora.minecraft.data.blocks import read_gold_xml

    if split not in SPLITS:
        raise ValueError(f"split must be one of {SPLITS}")
    layout = discover(source)
    json_id = 0
    for game_file in layout.games:
        if layout.split_of(game_file.config) != split:
            continue
        try:
            game = read_game(game_file, split, temporal_order=True)
            gold = read_gold_xml(layout.gold_path(game_file.config))
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            continue
        yield from sample_dicts(game, gold, json_id, lower=lower, perspective=perspective)
        json_id += 1


def _jsonable(sample: dict, with_perspective: bool) -> dict:
    out = dict(sample)
    if with_perspective and out.get("perspective_coordinates") is not None:
        out["perspective_coordinates"] = out["perspective_coordinates"].tolist()
    else:
        out.pop("perspective_coordinates", None)
    return out


def export_jsonl(source: Path, split: str, destination: Path, with_perspective: bool = False, lower: bool = True) -> int:
    """Write the BAP samples of ``split`` as JSON Lines with the documented field names; returns the count.

    ``perspective_coordinates`` becomes nested lists (3 × 11 × 9 × 11) with ``with_perspective``, else it is
    left out (it is a pure function of ``prev_builder_position``)."""
    count = 0
    with open(destination, "w", encoding="utf-8") as out:
        for sample in iter_bap_samples(source, split, lower=lower, perspective=with_perspective):
            out.write(json.dumps(_jsonable(sample, with_perspective)) + "\n")
            count += 1
    return count


def bap_jsonl_bytes(loaded, split: str, with_perspective: bool = False, lower: bool = True) -> bytes:
    """The BAP samples of one split of a loaded corpus as JSON Lines bytes (for a download button)."""
    from dialogue_dashboard.plugin import to_jsonl_bytes

    samples = iter_bap_samples(Path(loaded.source), split, lower=lower, perspective=with_perspective)
    return to_jsonl_bytes(_jsonable(sample, with_perspective) for sample in samples)
