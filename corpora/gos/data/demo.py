"""A generated A Game Of Sorts corpus in the real on-disk format, for tests and for running without data.

Deterministic (seeded ``random.Random``) and small: 3 invented games (dogs, cars, paintings) of 4 boards,
6 interactions of 4 rounds. It reproduces the real quirks: one mixed log of messages and lock events,
``[null]`` self-annotations, mismatches followed by two automatic unlocks, manual unlocks, post-round
messages with ``round_active: false``, per-player shuffled layouts, and two files without a final newline.
All texts, ids and names are invented.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from corpora.gos.data import reader

SEED = 20220620
START_MS = 1_700_000_000_000  # an arbitrary fixed epoch, so every generation writes the same bytes

ADJECTIVES = ["brave", "calm", "witty", "sunny", "quiet", "lucky", "gentle", "clever", "bold"]
ANIMALS = ["otter", "heron", "lynx", "koala", "falcon", "walrus", "gecko", "bison", "marmot"]

# Per game: invented image ids in the real id patterns, with the phrases players use for them.
GAMES = {
    "game_1_dogs_1": {
        "noun": "dogs",
        "images": [("n02085620_4411", "the tiny chihuahua"), ("n02086240_1203", "the shih tzu"),
                   ("n02088094_3178", "the afghan hound"), ("n02099601_2207", "the golden retriever"),
                   ("n02106662_5590", "the german shepherd"), ("n02110185_8016", "the husky"),
                   ("n02110958_1942", "the pug"), ("n02111889_6730", "the samoyed"), ("n02113799_2288", "the poodle")],
        "scenarios": ["You are opening a café and want a mascot that greets every guest. Which of these dogs would suit the café best?",
                      "You need a companion for a week of hiking in the mountains. Which of these dogs would handle the trip best?",
                      "Your grandmother wants a calm dog for her small flat. Which of these dogs would make her happiest?",
                      "A film studio is casting a dog for a heist comedy. Which of these dogs would steal the show?"],
    },
    "game_2_cars_1": {
        "noun": "cars",
        "images": [("4012345671_a1b2c3d4e5_o", "the red convertible"), ("5123456782_b2c3d4e5f6_o", "the old pickup"),
                   ("6234567893_c3d4e5f6a7_o", "the tiny city car"), ("7345678904_d4e5f6a7b8_o", "the black limousine"),
                   ("8456789015_e5f6a7b8c9_o", "the camper van"), ("9567890126_f6a7b8c9d0_o", "the rally car"),
                   ("1678901237_a7b8c9d0e1_o", "the station wagon"), ("2789012348_b8c9d0e1f2_o", "the vintage beetle"),
                   ("3890123459_c9d0e1f2a3_o", "the electric hatchback")],
        "scenarios": ["You are moving house across town on your own. Which of these cars would help you most?",
                      "You want to impress your date on a first evening out. Which of these cars would do it best?",
                      "You are driving a band and its instruments to a festival. Which of these cars would work best?",
                      "You need to get through a snowy winter in the countryside. Which of these cars would be most reliable?"],
    },
    "game_3_paintings_1": {
        "noun": "paintings",
        "images": [("anna-berg_harbour-at-dawn-1902", "the harbour at dawn"), ("carl-moss_quiet-orchard", "the orchard"),
                   ("elena-rossi_red-composition-1961", "the red abstract one"), ("hugo-lind_storm-over-the-bay", "the stormy sea"),
                   ("ines-valk_portrait-of-a-reader", "the portrait of the reader"), ("jon-aalto_winter-village-1890", "the winter village"),
                   ("lea-marchetti_blue-shapes-no-4", "the blue shapes"), ("otto-weiss_market-day", "the market scene"),
                   ("sara-kim_garden-in-june-1911", "the garden")],
        "scenarios": ["You are decorating the waiting room of a dentist. Which of these paintings would calm the patients most?",
                      "A bank wants a painting for its boardroom. Which of these paintings would fit best?",
                      "You are choosing a cover for a book of poems about the sea. Which of these paintings would work best?",
                      "A children's hospital asks for a painting for its playroom. Which of these paintings would children like most?"],
    },
}

OPENERS = ["hi!", "hello :)", "hey, ready?", "hi there"]
PROPOSALS = ["I think {a} should be first here", "what about {a}? seems like a good fit", "{a} makes most sense to me now",
             "I'd go with {a} next", "maybe {a}, because it stands out for this", "how about {a}?"]
COMPARISONS = ["{a} or {b}? I'm torn", "I'd put {a} above {b}", "{b} is ok but {a} is better for this"]
AGREEMENTS = ["agreed", "yes, good idea", "ok sounds good", "sure, let's lock it", "fine by me"]
DOUBTS = ["hmm, not sure", "let me think", "really?", "ok, why?"]
AFTER_MISMATCH = ["oops, we locked different ones", "ah sorry, I clicked the wrong one", "wait, which one did you lock?"]
AFTER_UNLOCK = ["wait, let me change mine", "actually, I take that back", "hold on, I unlocked"]
POST_ROUND = ["nice!", "that went well", "good one", "ready for the next?"]
GOODBYES = ["thanks, bye!", "that was fun, bye", "thank you!"]

QUESTIONS = [
    ("q1", "multiple_choice", "Working with my partner went smoothly.", "likert"),
    ("q2", "multiple_choice", "I could follow what my partner described.", "likert"),
    ("q3", "multiple_choice", "My partner could follow what I described.", "likert"),
    ("q4", "multiple_choice", "Which gender do you identify with?", ["Male", "Female", "Other", "Prefer not to answer"]),
    ("q5", "open", "In which year were you born?", []),
    ("q6", "open", "Which country are you from?", []),
    ("q7", "open", "What is your first language?", []),
    ("q8", "multiple_choice", "How good is your English?", ["Very good", "Good", "Fair", "Poor", "Very poor"]),
    ("q9", "multiple_choice", "Do you have a visual impairment?", ["Yes:", "No", "Prefer not to answer"]),
    ("q9-spec", "open", "", []),
    ("q10", "open", "Any other comments about the game?", []),
]
LIKERT = ["Strongly disagree", "Disagree", "Neither agree nor disagree", "Agree", "Strongly agree"]
COMMENTS = ["Fun game, the pictures were nice.", "Some rounds took long, but it was enjoyable.",
            "It was hard to describe the abstract ones.", "My partner was great!"]


def _object_id(seconds: int, rng: random.Random) -> str:
    return f"{seconds:08x}" + "".join(rng.choice("0123456789abcdef") for _ in range(16))


def _write(path: Path, records: list[dict], final_newline: bool = True) -> None:
    text = "\n".join(json.dumps(r, ensure_ascii=False) for r in records)
    path.write_text(text + ("\n" if final_newline else ""), encoding="utf-8")


class _Round:
    """Writes the log records of one round while keeping its counters and clock."""

    def __init__(self, log: list[dict], base: dict, clock_ms: int):
        self.log, self.base, self.clock = log, base, clock_ms
        self.messages = self.locks = 0

    def wait(self, rng: random.Random, low: float, high: float) -> None:
        self.clock += int(rng.uniform(low, high) * 1000)

    def say(self, user: str, text: str, images: list[str], active: bool = True) -> None:
        self.messages += 1
        self.clock += 1
        self.log.append({**self.base, "round_active": active, "message_number": self.messages, "username": user,
                         "body_text": text, "image_ids": images or [None], "timestamp": self.clock})

    def lock(self, user: str, kind: str, image: str) -> None:
        self.locks += 1
        self.clock += 1
        self.log.append({**self.base, "lock_event_number": self.locks, "username": user, "lock_event_type": kind,
                         "image_id": image, "timestamp": self.clock})


def _play_round(rng: random.Random, play: _Round, players: list[str], order: list[str], phrases: dict[str, str],
                first_round: bool, last_round: bool) -> None:
    if first_round:
        play.say(players[0], rng.choice(OPENERS), [])
        play.wait(rng, 3, 10)
        play.say(players[1], rng.choice(OPENERS), [])
    remaining = list(order)
    for image in order:
        remaining.remove(image)
        speaker = rng.choice(players)
        partner = players[1 - players.index(speaker)]
        play.wait(rng, 8, 40)
        if remaining and rng.random() < 0.35:
            other = rng.choice(remaining)
            play.say(speaker, rng.choice(COMPARISONS).format(a=phrases[image], b=phrases[other]), [image, other])
        else:
            play.say(speaker, rng.choice(PROPOSALS).format(a=phrases[image]), [image])
        play.wait(rng, 4, 20)
        if rng.random() < 0.3:
            play.say(partner, rng.choice(DOUBTS), [])
            play.wait(rng, 5, 20)
        play.say(partner, rng.choice(AGREEMENTS), [])
        first, second = (speaker, partner) if rng.random() < 0.6 else (partner, speaker)
        if remaining and rng.random() < 0.15:  # a lock taken back before the partner locks
            play.wait(rng, 2, 8)
            play.lock(first, "lock", rng.choice(remaining))
            play.wait(rng, 2, 6)
            play.lock(first, "unlock manual", play.log[-1]["image_id"])
            play.wait(rng, 1, 5)
            play.say(first, rng.choice(AFTER_UNLOCK), [])
        if remaining and rng.random() < 0.2:  # the second player locks another image: both are released
            wrong = rng.choice(remaining)
            play.wait(rng, 2, 8)
            play.lock(first, "lock", image)
            play.wait(rng, 2, 8)
            play.lock(second, "lock", wrong)
            play.clock += rng.randint(20, 150)
            releases = [(second, wrong), (first, image)] if rng.random() < 0.85 else [(first, image), (second, wrong)]
            for user, released in releases:
                play.lock(user, "unlock automatic", released)
                play.clock += rng.randint(5, 120)
            play.wait(rng, 3, 12)
            play.say(second, rng.choice(AFTER_MISMATCH), [wrong])
            play.wait(rng, 3, 12)
            play.say(first, f"I meant {phrases[image]}", [image])
        play.wait(rng, 2, 10)
        play.lock(first, "lock", image)
        play.wait(rng, 2, 15)
        play.lock(second, "lock", image)
    for _ in range(rng.randint(1, 2) + (1 if last_round else 0)):
        play.wait(rng, 4, 30)
        user = rng.choice(players)
        play.say(user, rng.choice(GOODBYES if last_round else POST_ROUND), [], active=False)


def write_demo(folder: Path) -> None:
    """Write the demo corpus's six JSON Lines files into ``folder``."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(SEED)
    config = []
    for game_id, game in GAMES.items():
        ids = [image_id for image_id, _phrase in game["images"]]
        for number, scenario in enumerate(game["scenarios"], start=1):
            config.append({"game_id": game_id, "board_number": number, "board_id": f"{game_id}_board_{number}",
                           "criterion": scenario,
                           "instruction": f"Please discuss the scenario and agree on a ranking of these {game['noun']} "
                                          f"(starting with the most suitable) and explain your choices!",
                           "image_ids": ids})
    usernames = sorted({f"{a}-{b}-{rng.randint(100, 9999)}" for a, b in zip(rng.sample(ADJECTIVES, 8), rng.sample(ANIMALS, 8))})
    pairs = [(usernames[0], usernames[1]), (usernames[2], usernames[3]), (usernames[4], usernames[5]),
             (usernames[0], usernames[1]), (usernames[6], usernames[7]), (usernames[2], usernames[6])]
    games = list(GAMES)
    log, mappings, survey_interaction = [], [], []  # type: list[dict], list[dict], list[dict]
    clock = START_MS
    for index, pair in enumerate(pairs):
        game_id = games[index % len(games)]
        game = GAMES[game_id]
        ids = [image_id for image_id, _phrase in game["images"]]
        phrases: dict[str, str] = dict(game["images"])  # type: ignore[arg-type]  # (image id, phrase) pairs
        clock += rng.randint(2, 20) * 3600 * 1000
        interaction_id = _object_id(clock // 1000 - rng.randint(11, 73), rng)
        players = list(pair) if rng.random() < 0.5 else [pair[1], pair[0]]
        boards = [1, 2, 3, 4]
        rng.shuffle(boards)
        for round_number, board_number in enumerate(boards, start=1):
            board_id = f"{game_id}_board_{board_number}"
            base = {"interaction_id": interaction_id, "game_id": game_id, "board_id": board_id, "round_number": round_number}
            # Each board has a "sensible" order that the pairs roughly share, so their rankings correlate.
            order = sorted(ids, key=lambda i: (ids.index(i) * 7 + board_number * 3) % 9 + rng.uniform(-2.5, 2.5))
            layouts: list[list[str]] = []
            for user in players:  # shuffled per player: never the config order, never the partner's layout
                layout = list(ids)
                while layout == ids or layout in layouts:
                    rng.shuffle(layout)
                layouts.append(layout)
                mappings.append({**base, "username": user,
                                 "mapping": [{"position": p, "image_id": i} for p, i in enumerate(layout, start=1)]})
            play = _Round(log, base, clock)
            _play_round(rng, play, players, order, phrases, round_number == 1, round_number == 4)
            clock = play.clock + rng.randint(28, 115) * 1000
        for user in players:
            survey_interaction.append({"interaction_id": interaction_id, "game_id": game_id, "username": user, "answers": [
                {"answer": rng.choice("ccdde" if index == 4 else "ddeee"), "question_id": q} for q in ("q1", "q2", "q3")
            ] + [{"answer": rng.choice(COMMENTS), "question_id": "q10"}]})
    questions = []
    for question_id, kind, content, options in QUESTIONS:
        texts = LIKERT if options == "likert" else options
        questions.append({"question_id": question_id, "question_content": content, "question_type": kind,
                          "answer_options": [{"answer_id": chr(ord("a") + n), "answer_content": t} for n, t in enumerate(texts)]})
    survey_user = []
    for user in usernames:
        survey_user.append({"username": user, "answers": [
            {"answer": rng.choice("abd"), "question_id": "q4"}, {"answer": str(rng.randint(1970, 2003)), "question_id": "q5"},
            {"answer": rng.choice(["Germany", "Spain", "India", "Netherlands"]), "question_id": "q6"},
            {"answer": rng.choice(["German", "Spanish", "Hindi", "Dutch"]), "question_id": "q7"},
            {"answer": rng.choice("ab"), "question_id": "q8"}, {"answer": "b", "question_id": "q9"},
            {"answer": "", "question_id": "q9-spec"}]})
    _write(folder / reader.LOG_FILE, log)
    _write(folder / reader.MAPPINGS_FILE, mappings)
    _write(folder / reader.GAME_CONFIG_FILE, config, final_newline=False)
    _write(folder / reader.SURVEY_CONFIG_FILE, questions, final_newline=False)
    _write(folder / reader.SURVEY_INTERACTION_FILE, survey_interaction)
    _write(folder / reader.SURVEY_USER_FILE, survey_user)


def demo_source(folder: Path) -> Path:
    return Path(folder)
