"""Reading a Minecraft run (builder action prediction): its JSON Lines (actions or the predicted end structure of
each BAP sample) or the BAP repository's ``generated_sentences*.txt``, aligned to the corpus's samples by the
ground-truth actions and the previous utterances (``align_generated``). ``scoring`` scores what is read here."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Optional

import orjson
import pandas as pd

from corpora.minecraft.data.blocks import (
    COLORS,
    config_from_json,  # noqa: F401 - part of this module's names
    strict_color_id,
)
from dialogue_dashboard.plugin import (
    Lines,
    LoadedCorpus,
    SourceError,
    Tally,
    first_line,
    json_lines,
    no_usable_line,
    read_bytes,
    run_lines,
)

# the corpus read here: its package's name (``NAME``), without importing the package
CORPUS = "minecraft"  # the package's NAME (this module is imported by its __init__)
EXPECTED = ('one JSON object per line {"game", "sample_id", "actions": [...]} (or "end_config"), '
            "or a generated_sentences*.txt of the BAP repository")
PLACE_WORDS = {"place": "placement", "placement": "placement", "putdown": "placement", "put": "placement"}
REMOVE_WORDS = {"remove": "removal", "removal": "removal", "pickup": "removal", "pick": "removal"}
SAMPLE_COLUMNS = ["game", "split", "sample_id", "line", "record", "match", "n_actions", "infeasible", "tp", "fp", "fn",
                  "precision", "recall", "f1", "initial", "predicted_end", "gold_end"]

Cell = tuple[int, int, int]
Config = dict[Cell, str]  # cell -> colour


# ------------------------------------------------------------------------------------------------ reading

def _int(value) -> Optional[int]:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _color(value) -> Optional[str]:
    """The colour word of "red", "RED", "cwc_minecraft_red_rn"…, as the corpus reader takes it: one of the six
    colours as a word of its own ("Bored" and "reddish" are no colour), else None."""
    if not isinstance(value, str):
        return None
    try:
        return COLORS[strict_color_id(value.lower())]
    except ValueError:
        return None


def parse_action(item) -> tuple[str, int, int, int, Optional[str]]:
    """One predicted action as (kind, x, y, z, colour); ValueError with the reason when malformed."""
    if not isinstance(item, dict):
        raise ValueError("an action is not an object")
    block: Any = item.get("block") if isinstance(item.get("block"), dict) else item  # the repository's nesting
    word: Any = item.get("action", item.get("action_type"))
    word = word.lower() if isinstance(word, str) else word
    kind = PLACE_WORDS.get(word) or REMOVE_WORDS.get(word)
    if kind is None:
        raise ValueError(f"action must be place or remove, not {word!r}")
    x, y, z = (_int(block.get(k)) for k in ("x", "y", "z"))
    if x is None or y is None or z is None:
        raise ValueError("an action's x, y, z must be integers")
    color = _color(block.get("color", block.get("type")))
    if kind == "placement" and color is None:
        raise ValueError(f"a placement needs a colour ({', '.join(COLORS)})")
    return kind, x, y, z, color


def parse_block(item) -> tuple[int, int, int, str]:
    if not isinstance(item, dict):
        raise ValueError("a block of end_config is not an object")
    x, y, z = (_int(item.get(k)) for k in ("x", "y", "z"))
    color = _color(item.get("color", item.get("type")))
    if x is None or y is None or z is None or color is None:
        raise ValueError("a block of end_config needs integer x, y, z and a colour")
    return x, y, z, color


def read_rows(path: Path) -> tuple[list[dict], Tally, bool]:
    """The predictions of a run file: dicts with game, sample_id, line, record and either ``actions`` or
    ``end_config`` (or, from a generated_sentences file, ``gold`` and ``utterances`` to align by).
    The flag says whether the file was a generated_sentences file."""
    path = Path(path)
    tally = Tally(path.name)
    head, lines = first_line(run_lines(path))  # JSON Lines are read as a stream, a line at a time
    if head is not None and _may_be_generated_sentences(head[1]):
        lines.close()  # a generated_sentences file is one JSON list after its metric lines: read it whole
        entries = _generated_sentences(read_bytes(path))
        if entries is not None:
            return _generated_rows(path, entries, tally), tally, True
        lines = Lines(None, run_lines(path))  # not one after all: JSON Lines, as a stream again
    rows, seen, total = [], [], 0  # type: list, list, int
    for line in json_lines(lines, tally):
        total += 1
        r = line.record
        if len(seen) < 50:
            seen.append(r)
        game, sample_id = r.get("game"), _int(r.get("sample_id"))
        if not isinstance(game, str) or not game:
            tally.skip(line.number, "game is missing or not a string")
            continue
        if sample_id is None:
            tally.skip(line.number, "sample_id is missing or not an integer")
            continue
        row = {"game": game, "sample_id": sample_id, "line": line.number, "record": f"line {line.number}"}
        try:
            if isinstance(r.get("actions"), list):
                row["actions"] = [parse_action(a) for a in r["actions"]]
            elif isinstance(r.get("end_config"), list):
                row["end_config"] = [parse_block(b) for b in r["end_config"]]
            else:
                raise ValueError('needs an "actions" list or an "end_config" list')
        except ValueError as exc:
            tally.skip(line.number, str(exc))
            continue
        rows.append(row)
    if not rows:
        raise no_usable_line(path, CORPUS, seen, total, EXPECTED)
    return rows, tally, False


# "bleu4 0.31", "f1_score: 0.5": a metric's name may hold digits (it used to have to be letters only) and a colon
_METRIC_LINE = re.compile(rb"^[A-Za-z_][A-Za-z0-9_.-]*:?\s+[-+0-9.eEnaif]+$")


def _may_be_generated_sentences(first: bytes) -> bool:
    """Whether a file whose first line that is not blank is ``first`` can be a generated_sentences file."""
    first = first.strip()
    return first[:1] not in (b"{", b"[") and bool(_METRIC_LINE.match(first))


def _generated_sentences(data: bytes) -> Optional[list]:
    """The JSON list of a generated_sentences file (metric lines, blank lines, then the list), else None."""
    text = data.lstrip()
    if not text or text[:1] in (b"{", b"["):
        return None
    first = text.split(b"\n", 1)[0].strip()
    if not _METRIC_LINE.match(first):
        return None
    start = data.find(b"\n[")
    if start < 0:
        return None
    try:
        value = orjson.loads(data[start:])
    except orjson.JSONDecodeError:
        return None
    return value if isinstance(value, list) else None


def _generated_rows(path: Path, entries: list, tally: Tally) -> list[dict]:
    rows = []
    for index, entry in enumerate(entries):
        record = f"entry {index}"
        try:
            if not isinstance(entry, dict):
                raise ValueError("not an object")
            generated = entry.get("generated_seq")
            if isinstance(generated, list) and generated and isinstance(generated[0], list):
                generated = generated[0]  # the best beam
            if not isinstance(generated, list):
                raise ValueError("generated_seq is not a list of actions")
            gold = entry.get("ground_truth_seq")
            if not isinstance(gold, list):
                raise ValueError("ground_truth_seq is not a list of actions")
            utterances = entry.get("prev_utterances")
            rows.append({"game": None, "sample_id": None, "line": None, "record": record,
                         "actions": [parse_action(a) for a in generated],
                         "gold": tuple(_gold_key(parse_action(a)) for a in gold),
                         "utterances": utterances if isinstance(utterances, str) else ""})
        except ValueError as exc:
            tally.skip(None, str(exc), record)
    if not rows:
        raise SourceError(path, "is a generated_sentences file without one usable entry")
    return rows


def _gold_key(action: tuple) -> tuple:
    kind, x, y, z, color = action
    return (kind, x, y, z, color if kind == "placement" else None)



# ----------------------------------------------------------------------------------- generated_sentences

_SKIP_TOKEN = re.compile(r"^<(dialogue|builder_\w+)>$")


def _tokens(text: str) -> list[str]:
    return [t for t in text.split() if not _SKIP_TOKEN.match(t)]


def utterance_tokens(sample: dict) -> list[str]:
    """A sample's previous utterances as the repository's encoder writes them (speaker tags around each
    utterance; <dialogue> and builder-action tokens left out, since models use them or not)."""
    tokens = []
    for item in sample["prev_utterances"]:
        words = item["utterance"]
        if words and words[0].startswith("<"):
            continue
        tag = "architect" if item["speaker"] == "Architect" else "builder"
        tokens += [f"<{tag}>", *words, f"</{tag}>"]
    return tokens


def suffix_agreement(theirs: list[str], ours: list[str]) -> float:
    """The share of ``theirs`` that equals the end of ``ours`` token by token (<unk> matches anything)."""
    if not theirs:
        return 1.0
    if len(theirs) > len(ours):
        return 0.0
    tail = ours[len(ours) - len(theirs):]
    return sum(a == b or a == "<unk>" for a, b in zip(theirs, tail)) / len(theirs)


def align_generated(corpus: LoadedCorpus, rows: list[dict], tally: Tally, samples: pd.DataFrame) -> list[dict]:
    """Give each generated_sentences entry its (game, sample_id): the samples whose gold action sequence
    equals the entry's ground_truth_seq, narrowed by the previous utterances (a suffix of the sample's,
    <unk> matching any word). Entries matching no sample or several are listed as unmatched."""
    index: dict[tuple, list[int]] = {}
    for position, gold in enumerate(samples["gold"]):
        index.setdefault(tuple(_gold_key(a) for a in gold), []).append(position)
    ambiguous = sorted({p for row in rows for p in index.get(row["gold"], []) if len(index.get(row["gold"], [])) > 1})
    utterances = _utterances_of(corpus, samples, ambiguous) if ambiguous else {}

    def ours(position: int) -> list[str]:
        return utterances.get(position, [])

    aligned = []
    for row in rows:
        candidates = index.get(row["gold"], [])
        match = "actions"
        if len(candidates) > 1 or (len(candidates) == 1 and row["utterances"]):
            theirs = _tokens(row["utterances"])
            scores = [suffix_agreement(theirs, ours(p)) if len(candidates) > 1 else 1.0 for p in candidates]
            exact = [p for p, s in zip(candidates, scores) if s == 1.0]
            if len(exact) == 1:
                candidates, match = exact, "actions + utterances"
            elif len(candidates) > 1:
                best = max(scores) if scores else 0.0
                top = [p for p, s in zip(candidates, scores) if s == best]
                if best >= 0.8 and len(top) == 1:
                    candidates, match = top, "actions + utterances (approximate)"
                else:
                    candidates = exact or candidates
        if not candidates:
            tally.unmatch(None, row["record"], "its ground_truth_seq is the gold action sequence of no sample")
            continue
        if len(candidates) > 1:
            names = ", ".join(f"{samples['game'].iloc[p]}#{samples['sample_id'].iloc[p]}" for p in candidates[:5])
            tally.unmatch(None, row["record"], f"matches {len(candidates)} samples ({names}{', …' if len(candidates) > 5 else ''})")
            continue
        position = candidates[0]
        aligned.append({**row, "game": str(samples["game"].iloc[position]),
                        "sample_id": int(samples["sample_id"].iloc[position]), "match": match})
    return aligned


def _utterances_of(corpus: LoadedCorpus, samples: pd.DataFrame, positions: list[int]) -> dict[int, list[str]]:
    """Previous-utterance tokens of the given sample rows, derived from the corpus files (as the repository)."""
    from corpora.minecraft.data.bap import iter_bap_samples

    wanted = {(str(samples["game"].iloc[p]), int(samples["sample_id"].iloc[p])): p for p in positions}
    splits = sorted({str(samples["split"].iloc[p]) for p in positions})
    found: dict[int, list[str]] = {}
    for split in splits:
        for sample in iter_bap_samples(Path(corpus.source), split, lower=True, perspective=False):
            key = (sample["orig_experiment_id"], sample["sample_id"])
            if key in wanted:
                found[wanted[key]] = utterance_tokens(sample)
    return found


