"""LaTeX for papers: a dialog's transcript as a table (with optional thumbnails of the state after each
turn, all in one .zip) and summary tables as ``booktabs`` tables with intervals written as in papers,
``4.17 [4.10, 4.24]``.

Every text from the corpora goes through ``latex_escape``: the ten LaTeX specials are escaped, common
Unicode punctuation and accented Latin letters become LaTeX commands that ``pdflatex`` typesets with its
default fonts, and what it cannot typeset (CJK, emoji, other scripts) is replaced by a visible marker
a boxed ``U+1F600`` (``\\unicodemark``, defined in the preamble; the table snippet defines a fallback too).
Pure functions: strings / frames / PIL images in, ``str`` / ``bytes`` out. The documents need only the
LaTeX packages of Debian's texlive-latex-base, -latex-recommended, -fonts-recommended and lmodern.
"""
from __future__ import annotations

import io
import math
import re
import unicodedata
import zipfile
from dataclasses import dataclass
from typing import Iterable, Optional, Sequence

import pandas as pd
from PIL import Image

_SPECIALS = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
    # Not special, but OT1/T1 fonts or ligatures would print them wrongly ("<<" is « in T1, "--" a dash).
    "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}", '"': r"\textquotedbl{}", "-": "-{}",
    "`": r"\textasciigrave{}",
}

# Unicode that has a LaTeX command in the kernel's T1/TS1 encodings (no extra packages).
_UNICODE = {
    "\u2018": "`", "\u2019": "'", "\u201a": ",", "\u201c": "``", "\u201d": "''", "\u201e": ",,",
    "\u00ab": r"\guillemotleft{}", "\u00bb": r"\guillemotright{}", "\u2039": r"\guilsinglleft{}",
    "\u203a": r"\guilsinglright{}", "\u2013": "--", "\u2014": "---", "\u2012": "--", "\u2015": "---",
    "\u2010": "-", "\u2011": "-", "\u2212": r"\textminus{}", "\u2026": r"\ldots{}", "\u00a0": "~", "\u202f": r"\,",
    "\u2009": r"\,", "\u2002": r"\enskip{}", "\u2003": r"\quad{}", "\u200b": "", "\u200c": "", "\u200d": "",
    "\ufeff": "", "\u00ad": r"\-", "\u2022": r"\textbullet{}", "\u00b7": r"\textperiodcentered{}",
    "\u00b0": r"\textdegree{}", "\u00d7": r"\texttimes{}", "\u00f7": r"\textdiv{}", "\u00b1": r"\textpm{}",
    "\u00bc": r"\textonequarter{}", "\u00bd": r"\textonehalf{}", "\u00be": r"\textthreequarters{}",
    "\u00b2": r"\texttwosuperior{}", "\u00b3": r"\textthreesuperior{}", "\u00b9": r"\textonesuperior{}",
    "\u00a9": r"\textcopyright{}", "\u00ae": r"\textregistered{}", "\u2122": r"\texttrademark{}",
    "\u00a7": r"\S{}", "\u00b6": r"\P{}", "\u2020": r"\textdagger{}", "\u2021": r"\textdaggerdbl{}",
    "\u20ac": r"\texteuro{}", "\u00a3": r"\pounds{}", "\u00a5": r"\textyen{}", "\u00a2": r"\textcent{}",
    "\u00bf": r"\textquestiondown{}", "\u00a1": r"\textexclamdown{}", "\u00b5": r"\textmu{}",
    "\u2190": r"\textleftarrow{}", "\u2192": r"\textrightarrow{}", "\u2191": r"\textuparrow{}",
    "\u2193": r"\textdownarrow{}", "\u2032": "'", "\u2033": "''", "\u00ac": r"\textlnot{}",
    "\u00df": r"\ss{}", "\u00e6": r"\ae{}", "\u00c6": r"\AE{}", "\u0153": r"\oe{}", "\u0152": r"\OE{}",
    "\u00f8": r"\o{}", "\u00d8": r"\O{}", "\u0142": r"\l{}", "\u0141": r"\L{}", "\u0111": r"\dj{}",
    "\u0110": r"\DJ{}", "\u00fe": r"\th{}", "\u00de": r"\TH{}", "\u00f0": r"\dh{}", "\u00d0": r"\DH{}",
    "\u0131": r"\i{}", "\u0237": r"\j{}", "\u014b": r"\ng{}", "\u014a": r"\NG{}",
}

# Combining marks → the accent command that puts them on a base letter.
_ACCENTS = {
    "\u0300": "`", "\u0301": "'", "\u0302": "^", "\u0303": "~", "\u0304": "=", "\u0306": "u", "\u0307": ".",
    "\u0308": '"', "\u030a": "r", "\u030b": "H", "\u030c": "v", "\u0327": "c", "\u0328": "k", "\u0323": "d",
    "\u0331": "b",
}

UNICODE_MARK = r"\providecommand{\unicodemark}[1]{\fbox{\scriptsize U+#1}}"


def _marker(char: str) -> str:
    return rf"\unicodemark{{{ord(char):04X}}}"


def _accented(char: str) -> Optional[str]:
    """``é`` → ``\\'{e}``, ``ǘ`` → ``\\'{\\"{u}}``; None when the letter cannot be composed from ASCII."""
    decomposed = unicodedata.normalize("NFD", char)
    base, marks = decomposed[0], decomposed[1:]
    if not marks or not (base.isascii() and base.isalpha()) or any(m not in _ACCENTS for m in marks):
        return None
    text = base
    for mark in marks:
        command = _ACCENTS[mark]
        text = f"\\{command}{{{text}}}"
    return text


def latex_escape(text, newline: str = r"\newline{}") -> str:
    """``text`` as LaTeX source that typesets to the same characters with pdflatex's default fonts.

    Specials are escaped, Unicode punctuation and accented letters mapped to LaTeX commands, control
    characters dropped, and anything pdflatex cannot typeset replaced by a visible ``\\unicodemark{HEX}``.
    Line breaks become ``newline`` (a forced break inside a table cell by default)."""
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return ""
    out: list[str] = []
    for char in unicodedata.normalize("NFC", str(text).replace("\r\n", "\n")):
        if char in _SPECIALS:
            out.append(_SPECIALS[char])
        elif char == "\n":
            out.append(newline)
        elif char == "\t":
            out.append(" ")
        elif " " <= char <= "~":
            out.append(char)
        elif char in _UNICODE:
            out.append(_UNICODE[char])
        elif unicodedata.category(char) in ("Cc", "Cf", "Zl", "Zp"):
            out.append(" " if unicodedata.category(char) in ("Zl", "Zp") else "")
        elif unicodedata.category(char) == "Zs":
            out.append(" ")
        else:
            out.append(_accented(char) or _marker(char))
    return "".join(out)


# -- transcripts ---------------------------------------------------------------------------------------------

@dataclass
class TranscriptLine:
    step: int
    speaker: str
    text: str


PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[T1]{fontenc}
\usepackage{lmodern}
\usepackage[a4paper,margin=2cm]{geometry}
\usepackage{graphicx}
\usepackage{booktabs}
\usepackage{longtable}
\usepackage{array}
\newcommand{\unicodemark}[1]{\fbox{\scriptsize U+#1}}
"""


LONG_WORD = 24  # characters: a longer word (a URL, a run of letters) may break anywhere, without a hyphen
LONG_NAME = 9  # characters: about what the 6em speaker column holds


def breakable(text, longest: int = LONG_WORD) -> str:
    """``latex_escape(text)`` with a break point (``\\allowbreak``, no hyphen) between the characters of every
    word longer than ``longest``, so a long word wraps in its column instead of running off the page."""
    if text is None or (isinstance(text, float) and math.isnan(text)):
        return ""
    parts = re.split(r"(\s+)", unicodedata.normalize("NFC", str(text).replace("\r\n", "\n")))
    return "".join(r"\allowbreak{}".join(latex_escape(char) for char in part) if len(part) > longest
                   else latex_escape(part) for part in parts)


def transcript_table(lines: Sequence[TranscriptLine], *, step_label: str = "Turn",
                     thumbnails: Optional[dict[int, str]] = None, thumbnail_width: str = "4cm",
                     caption: Optional[str] = None, label: Optional[str] = None,
                     notes: Optional[dict[int, str]] = None) -> str:
    """The transcript as a ``longtable`` (booktabs rules): step, speaker, text and, with ``thumbnails``
    (step → image path relative to the .tex), the state after that step beside the line. ``notes`` (step →
    text) adds the analysis of a step in italics under its last line (a CR mark, the peek, the score).

    Every column has a fixed width, so one pdflatex pass lays the table out as the next would (a column sized
    to its content put the pictures past the rules until a second pass); speakers are never hyphenated and long
    words break without a hyphen. ``caption`` and the speaker / text are escaped here; ``label`` is used as
    given (letters, digits, :-_)."""
    with_pictures = bool(thumbnails)
    step_width = max(2.6, round(0.6 * len(step_label) + 0.2, 1))  # em: the header ("Message") and 5 digits
    text_width = (rf"\dimexpr\linewidth-{step_width + 6:g}em-" + (f"{thumbnail_width}-8" if with_pictures else "6")
                  + r"\tabcolsep\relax")
    no_hyphens = r"\hyphenpenalty=10000\exhyphenpenalty=10000"
    columns = (rf">{{\raggedleft\arraybackslash}}p{{{step_width:g}em}}>{{\raggedright\arraybackslash"
               + no_hyphens + "}p{6em}"
               r">{\raggedright\arraybackslash}p{" + text_width + "}")
    if with_pictures:
        columns += r">{\centering\arraybackslash}p{" + thumbnail_width + "}"
    head = f"{latex_escape(step_label)} & Speaker & Text" + (r" & State after \\" if with_pictures else r" \\")
    rows = []
    last_of_step = {int(line.step): index for index, line in enumerate(lines)}
    for index, line in enumerate(lines):
        row = f"{int(line.step)} & {breakable(line.speaker, LONG_NAME)} & {breakable(line.text)}"
        if with_pictures:  # the state after the step, beside the step's last line, and 3pt clear of the next
            path = (thumbnails or {}).get(int(line.step)) if last_of_step[int(line.step)] == index else None
            row += ((r" & \raisebox{-.9\height}[.1\height][\dimexpr.9\height+3pt\relax]{\includegraphics[width="
                     + thumbnail_width + "]{" + path + "}}") if path else " & ")
        rows.append(row + r" \\")
        note = (notes or {}).get(int(line.step)) if last_of_step[int(line.step)] == index else None
        if note:
            rows.append(r" & & \textit{" + breakable(note) + "}" + (" & " if with_pictures else "") + r" \\")
    safe_label = re.sub(r"[^A-Za-z0-9:_-]", "", label or "")
    parts = [
        "% A transcript exported from the dialogue dashboard. \\usepackage{booktabs,longtable,array,graphicx}",
        UNICODE_MARK,
        r"\begingroup\setlength{\LTleft}{0pt}\setlength{\LTright}{0pt}",
        r"\begin{longtable}{" + columns + "}",
    ]
    if caption:
        parts.append(r"\caption{" + latex_escape(caption) + "}" + (r"\label{" + safe_label + "}" if safe_label else "") + r"\\")
    parts += [r"\toprule", head, r"\midrule", r"\endhead", r"\bottomrule", r"\endfoot", *rows, r"\end{longtable}", r"\endgroup", ""]
    return "\n".join(parts)


def _thumbnail_bytes(image: Image.Image, width: int) -> bytes:
    picture = image.convert("RGB")
    if picture.width > width:
        picture = picture.resize((width, round(picture.height * width / picture.width)), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    picture.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def transcript_zip(name: str, title: str, lines: Sequence[TranscriptLine], *, step_label: str = "Turn",
                   pictures: Optional[dict[int, Image.Image]] = None, thumbnail_pixels: int = 600,
                   notes: Optional[dict[int, str]] = None) -> bytes:
    """A .zip with ``<name>.tex`` (a complete document: ``pdflatex <name>.tex`` compiles it), the table
    alone as ``<name>-table.tex`` (``\\input`` it into a paper) and the thumbnails as ``images/…png``."""
    name = re.sub(r"[^A-Za-z0-9_-]", "-", name) or "transcript"
    buffer = io.BytesIO()
    thumbnails: dict[int, str] = {}
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for step, image in sorted((pictures or {}).items()):
            path = f"images/{name}-{int(step):03d}.png"
            archive.writestr(path, _thumbnail_bytes(image, thumbnail_pixels))
            thumbnails[int(step)] = path
        table = transcript_table(lines, step_label=step_label, thumbnails=thumbnails, caption=title,
                                 label=f"tab:{name}", notes=notes)
        archive.writestr(f"{name}-table.tex", table)
        document = PREAMBLE + "\\begin{document}\n\\input{" + name + "-table}\n\\end{document}\n"
        archive.writestr(f"{name}.tex", document)
    return buffer.getvalue()


@dataclass(frozen=True)
class _Transcript:
    name: str
    title: str  # plain text
    lines: list[TranscriptLine]
    unit: str
    notes: Optional[dict[int, str]]


def _dialog_transcript(loaded, dialog_id: str, round: Optional[int] = None, first: int = 1, last: Optional[int] = None,
                       marked: tuple = ()) -> _Transcript:
    """The lines of steps ``first``…``last`` of a dialog (a Game Of Sorts round), its caption and step notes."""
    from .. import snapshots
    from ..contract import optional, package_of
    from .html import STEP_UNITS

    n_steps = snapshots.step_count(loaded, dialog_id, round)
    last = n_steps if last is None else min(int(last), n_steps)
    said = snapshots.step_messages(loaded, dialog_id, last, round, up_to=True)
    said = said[said["turn"] >= int(first)]
    lines = [TranscriptLine(int(r.turn), str(r.speaker), str(r.text)) for r in said.itertuples(index=False)]
    where = f", round {round}" if round is not None else ""
    unit = STEP_UNITS.get(loaded.corpus, "step")
    span = f"{unit}s {first}--{last}" if (first, last) != (1, n_steps) else f"all {n_steps} {unit}s"
    title = f"{package_of(loaded).TITLE}, {dialog_id}{where} ({span})"
    notes = None
    notes_of = optional(package_of(loaded), "transcript_notes")
    if notes_of is not None:
        notes, summary = notes_of(loaded, dialog_id, marked)
        title += f": {summary}"
    name = f"{loaded.corpus}-{dialog_id}" + (f"-r{round}" if round is not None else "")
    # ``span`` holds an en dash written as LaTeX; the title is escaped, so write the dash as Unicode.
    return _Transcript(name, title.replace("--", "\u2013"), lines, unit, notes)


def dialog_transcript_zip(loaded, dialog_id: str, round: Optional[int] = None, first: int = 1,
                          last: Optional[int] = None, with_pictures: bool = False, marked: tuple = ()) -> bytes:
    """Steps ``first``…``last`` of a dialog (a Game Of Sorts round) of a loaded corpus as a transcript .zip,
    with the state after each step that has a line when ``with_pictures``. A corpus that offers
    ``transcript_notes`` (CoDraw) adds the analysis its Replay shows under each step and to the caption (the
    peek, each round's score, and the steps ``marked`` by its published layer, e.g. CoDraw's CR rounds)."""
    from .. import snapshots

    found = _dialog_transcript(loaded, dialog_id, round, first, last, marked)
    pictures = ({step: snapshots.snapshot(loaded, dialog_id, step, round) for step in sorted({line.step for line in found.lines})}
                if with_pictures else None)
    return transcript_zip(found.name, found.title, found.lines, step_label=found.unit.capitalize(), pictures=pictures,
                          notes=found.notes)


MAX_SLICE_TRANSCRIPTS = 1_000  # dialogs in one slice's transcripts (CoDraw: about 1.5 MB of LaTeX)


def slice_transcripts_zip(loaded, dialog_ids: Sequence[str], description: str,
                          marked: Optional[dict[str, tuple]] = None) -> bytes:
    """The transcripts of a slice's dialogs (each Game Of Sorts round on its own) as one .zip: ``slice.tex`` (a
    complete document, one section per dialog, ``description`` as its title: ``pdflatex slice.tex`` compiles it) and
    each transcript's table alone as ``tables/<corpus>-<dialog>.tex``. ``marked``: dialog -> steps its published
    layer marks (CoDraw's CR rounds). ``ValueError`` past ``MAX_SLICE_TRANSCRIPTS`` dialogs."""
    from ..contract import package_of

    ids = list(dict.fromkeys(str(d) for d in dialog_ids))
    if len(ids) > MAX_SLICE_TRANSCRIPTS:
        raise ValueError(f"a slice's transcripts are exported for at most {MAX_SLICE_TRANSCRIPTS:,} dialogs; "
                         f"this one has {len(ids):,}")
    in_rounds = bool(getattr(package_of(loaded), "REPLAY_IN_ROUNDS", False))
    rounds = (dict(zip(loaded.dialogs["dialog_id"].astype(str), loaded.dialogs["n_rounds"])) if in_rounds else {})
    buffer = io.BytesIO()
    body = [r"\title{" + latex_escape(description) + "}", r"\date{}", r"\maketitle"]
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for dialog_id in ids:
            parts = [None] if not in_rounds else list(range(1, int(rounds.get(dialog_id) or 0) + 1))
            for round_ in parts:
                found = _dialog_transcript(loaded, dialog_id, round_, marked=(marked or {}).get(dialog_id, ()))
                name = re.sub(r"[^A-Za-z0-9_-]", "-", found.name) or "transcript"
                archive.writestr(f"tables/{name}.tex", transcript_table(
                    found.lines, step_label=found.unit.capitalize(), caption=found.title, label=f"tab:{name}",
                    notes=found.notes))
                body += [r"\section*{" + latex_escape(f"{dialog_id}" + (f", round {round_}" if round_ else "")) + "}",
                         r"\input{tables/" + name + "}"]
        archive.writestr("slice.tex", PREAMBLE + "\\begin{document}\n" + "\n".join(body) + "\n\\end{document}\n")
    return buffer.getvalue()


# -- booktabs tables -----------------------------------------------------------------------------------------

def _number(value, digits: int) -> str:
    if value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
        return "--"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, (int,)) or (hasattr(value, "is_integer") and float(value).is_integer() and digits == 0):
        text = f"{int(value):,}"
    else:
        text = f"{float(value):,.{digits}f}"
    return text.replace("-", "$-$", 1) if text.startswith("-") else text


def format_interval(mean, low, high, digits: int = 2) -> str:
    """``4.17 [4.10, 4.24]`` (``4.17`` alone when the interval is unknown), as LaTeX."""
    centre = _number(mean, digits)
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in (low, high)):
        return centre
    return f"{centre} [{_number(low, digits)}, {_number(high, digits)}]"


INTERVAL_CENTRES = ("mean", "value", "estimate", "difference", "median")


def _interval_columns(columns: Sequence[str]) -> list[tuple[str, str, str]]:
    """(value, low, high) column triples: ``low``/``high`` with the first of ``mean``, ``value``,
    ``estimate``, ``difference``, ``median``; and ``X``/``X_low``/``X_high``."""
    triples = []
    if {"low", "high"} <= set(columns):
        centre = next((c for c in INTERVAL_CENTRES if c in columns), None)
        if centre is not None:
            triples.append((centre, "low", "high"))
    for column in columns:
        if f"{column}_low" in columns and f"{column}_high" in columns:
            triples.append((column, f"{column}_low", f"{column}_high"))
    return triples


def booktabs_table(frame: pd.DataFrame, *, caption: Optional[str] = None, label: Optional[str] = None,
                   digits: int = 2, interval_label: str = "95% CI", drop: Iterable[str] = ("sd",),
                   column_names: Optional[dict[str, str]] = None) -> str:
    """``frame`` as a LaTeX ``table`` with a ``booktabs`` ``tabular``.

    Columns ``mean``/``low``/``high`` (or ``value``, ``estimate``, ``difference``, ``median`` with
    ``low``/``high``; and any ``X``/``X_low``/``X_high``) merge into one column ``mean [95% CI]`` written ``4.17 [4.10, 4.24]``; integers get thousands separators, other numbers
    ``digits`` decimals; missing values ``--``; text is escaped. ``drop`` leaves columns out (``sd`` by
    default, the interval says it). Needs ``\\usepackage{booktabs}``."""
    names = dict(column_names or {})
    triples = _interval_columns(list(frame.columns))
    merged = {low for _, low, _ in triples} | {high for _, _, high in triples}
    columns = [c for c in frame.columns if c not in merged and c not in set(drop)]
    header, align = [], []
    for column in columns:
        triple = next((t for t in triples if t[0] == column), None)
        title = names.get(column, str(column))
        header.append(latex_escape(f"{title} [{interval_label}]" if triple else title))
        numeric = pd.api.types.is_numeric_dtype(frame[column]) and not pd.api.types.is_bool_dtype(frame[column])
        align.append("r" if numeric or triple else "l")
    body = []
    for _, row in frame.iterrows():
        cells = []
        for column in columns:
            triple = next((t for t in triples if t[0] == column), None)
            value = row[column]
            if triple:
                cells.append(format_interval(value, row[triple[1]], row[triple[2]], digits))
            elif pd.api.types.is_integer_dtype(frame[column]):
                cells.append(_number(value, 0))
            elif pd.api.types.is_float_dtype(frame[column]):
                cells.append(_number(value, digits))
            else:
                cells.append(latex_escape("" if value is None or value is pd.NA
                                          or (isinstance(value, float) and math.isnan(value)) else value))
        body.append(" & ".join(cells) + r" \\")
    safe_label = re.sub(r"[^A-Za-z0-9:_-]", "", label or "")
    lines = [r"% \usepackage{booktabs}", r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(r"\caption{" + latex_escape(caption) + "}" + (r"\label{" + safe_label + "}" if safe_label else ""))
    lines += [UNICODE_MARK, r"\begin{tabular}{" + "".join(align) + "}", r"\toprule", " & ".join(header) + r" \\",
              r"\midrule", *body, r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(lines)


def standalone_document(body: str) -> str:
    """``body`` (a table from this module) in a minimal document ``pdflatex`` compiles."""
    return PREAMBLE + "\\begin{document}\n" + body + "\n\\end{document}\n"


SUMMARY_ROWS = 200  # longer tables without dialog ids are not offered as LaTeX (not a summary)
ROW_IDS = ("dialog_id", "interaction_id")


def summary_frame(data: pd.DataFrame) -> Optional[pd.DataFrame]:
    """The summary table of a chart's data, for ``booktabs_table``: for per-dialog data (a ``dialog_id`` or
    ``interaction_id`` column) the mean [95% CI] of every numeric column per split (``X``, ``X_low``,
    ``X_high``) with the number of rows; otherwise the data itself (already a summary: means with
    intervals, an agreement table). None when there is nothing to summarise."""
    from ..analysis.stats import mean_ci

    if data is None or data.empty:
        return None
    if not any(column in data for column in ROW_IDS):
        return data.reset_index(drop=True) if len(data) <= SUMMARY_ROWS else None
    numeric = [c for c in data.columns if pd.api.types.is_numeric_dtype(data[c]) and not pd.api.types.is_bool_dtype(data[c])
               and not str(c).endswith("_id") and str(c) not in ("row", "index")]
    if not numeric:
        return None
    groups = list(data.groupby("split", sort=False, observed=True)) if "split" in data else [("all", data)]
    rows = []
    for split, group in groups:
        row = {"split": str(split), "n": int(len(group))}
        for column in numeric:
            stats = mean_ci(group[column])
            row.update({column: stats.mean, f"{column}_low": stats.low, f"{column}_high": stats.high})
        rows.append(row)
    return pd.DataFrame(rows)
