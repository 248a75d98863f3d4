"""The contrast builder (docs/slices.md, "The contrast builder"): a measure on slice A (the page's ``slice=``)
against slice B (``b_slice=``: another slice, ``rest``, or ``humans`` for a run's score), paired where the same item
was played in both (``paired=``); the difference of means and medians with its bootstrap interval, the permutation
p-value, the effect size and the counts, said with how they were computed; CSV and LaTeX; and the link that opens
exactly this contrast. Every analysis page's "slice against the rest" is one click from it (``contrast_link``).

A contrast is computed once per corpus version, slices, measure and pairing and shared by every session (one whose
slices read codes or notes for a minute), within one evaluation budget stopped when the session goes."""
from __future__ import annotations

import html
import math
from typing import Optional
from urllib.parse import urlencode

import streamlit as st

from data_access import slices
from data_access.corpus import Corpus
from data_access.slices import STEP, SliceError
from data_access.slices.contrast import Contrast, contrast_frame
from data_access.slices.definitions import saved_id
from data_access.slices.measures import AUTO, HUMANS, NONE, REST, Groups, contrast_groups, contrast_with_humans
from ui.shell.url_state import query_param, served, url_text_input
from ui.slices.base import evaluation_budget, slice_base, with_what_it_tests
from ui.slices.current import SLICE_PARAM, outcome_of
from ui.widgets import download_buttons, md_code, md_escape

B_PARAM, MEASURE_PARAM, PAIRED_PARAM = "b_slice", "measure", "paired"
CONTRAST_SECONDS = 60.0  # a contrast kept server-wide whose slices read codes or notes


def contrast_link(corpus: str, a: str, measure: str, b: str = REST, paired: str = AUTO) -> str:
    """The Slices page with this contrast (the analysis pages' "in the contrast builder")."""
    params = {"corpus": corpus, SLICE_PARAM: a, B_PARAM: b, MEASURE_PARAM: measure}
    if paired != AUTO:
        params[PAIRED_PARAM] = paired
    return served("/slices?" + urlencode(params))


@st.cache_data(show_spinner="Contrasting the slices…", max_entries=64, ttl=600)
def _contrast(key: tuple, measure: str, a: str, b: str, paired: str, _corpus: Corpus) -> tuple[Optional[Contrast], str]:
    import numpy as np

    base = slice_base(_corpus)
    if base is None:
        return None, f"{_corpus.title} could not be loaded"
    first = outcome_of(_corpus, a)
    if first.kept is None:
        return None, first.error or "slice A cannot be used"
    budget = evaluation_budget()
    ids = base.dialogs["dialog_id"].astype(str).to_numpy(dtype=object)
    level = first.level
    mask_a = first.steps if first.steps is not None else np.isin(ids, first.kept.astype(object))
    try:
        node = slices.parse(measure)
    except SliceError as exc:
        return None, f"the measure “{measure}” is not a feature: {exc}"
    data = with_what_it_tests(_corpus, base, slices.Steps(node) if level == STEP else node)  # a run, the codes…
    try:
        if b.strip() == HUMANS:
            return contrast_with_humans(data, measure, mask_a, level, budget=budget), ""
        if b.strip() == REST:
            mask_b = ~mask_a
        else:
            second = outcome_of(_corpus, b)
            if second.kept is None:
                return None, second.error or "slice B cannot be used"
            if second.level != level:
                return None, (f"A is a {level} slice and B a {second.level} slice: a contrast compares rows of one "
                              "level (lift a step slice with has_step(…), lower a dialog slice with steps(dialog(…)))")
            mask_b = second.steps if second.steps is not None else np.isin(ids, second.kept.astype(object))
        return contrast_groups(data, measure, Groups(level, mask_a, mask_b), paired=paired, budget=budget), ""
    except SliceError as exc:
        return None, str(exc)


def contrast_of(corpus: Corpus, measure: str, a: str, b: str = REST, paired: str = AUTO
                ) -> tuple[Optional[Contrast], str]:
    """The contrast (kept server-wide), or why there is none."""
    from ui.slices.base import base_key

    return _contrast((base_key(corpus), _fresh(a, b)), measure, a, b, paired, corpus)


def _fresh(*texts: str) -> int:
    """A key part that changes every minute for slices that read the store (codes, notes, saved slices): their
    contrast is computed again then."""
    import time

    reads_store = any(saved_id(t) is not None or any(w in t for w in ("code(", "tag(", "codes")) for t in texts)
    return int(time.time() // CONTRAST_SECONDS) if reads_store else 0


def contrast_builder(corpus: Corpus, a: Optional[str]) -> None:
    """The Slices page's contrast builder: the measure, B and the pairing (each in the URL) and the contrast of the
    current slice A against B, with its exports and link."""
    st.subheader("Contrast")
    if not a:
        st.caption("Set a slice above (slice A) to set it against another slice, the rest, or the humans.")
        return
    row = st.columns([2, 3, 1], vertical_alignment="bottom")
    measure = url_text_input("Measure", MEASURE_PARAM, key=f"contrast_measure_{corpus.name}", container=row[0],
                             placeholder="peek_gain", help="A numeric feature at slice A's level (a column of the "
                             "dialog table or a step feature), score(RUN), gap(RUN) or code(LABEL) (a count)")
    b = url_text_input("Slice B", B_PARAM, key=f"contrast_b_{corpus.name}", container=row[1], placeholder=REST,
                       help="Another slice of A's level, rest (every row A does not keep), or humans (the measure a "
                            "run's score: the humans' on the same units)") or REST
    paired = url_text_input("Paired by", PAIRED_PARAM, key=f"contrast_paired_{corpus.name}", container=row[2],
                            placeholder=AUTO, help=f"{AUTO}: by the corpus's played item (board, target structure, "
                                                   f"scene) where both groups have it; {NONE}; or a column") or AUTO
    if not measure.strip():
        st.caption("Choose a measure to contrast slice A with B.")
        return
    result, why = contrast_of(corpus, measure.strip(), a, b.strip(), paired.strip())
    if result is None:
        st.warning(f"No contrast: {md_escape(why)}", icon="⚠️")
        return
    shown_contrast(corpus, result, a, b.strip(), measure.strip(), paired.strip())


def shown_contrast(corpus: Corpus, result: Contrast, a: str, b: str, measure: str, paired: str) -> None:
    """The figures (metrics), how they were computed, the exports and the link."""
    if not result.n_a or not result.n_b:
        st.info(md_escape(result.describe()), icon="ℹ️")
        return
    cells = st.columns(4)
    cells[0].metric(f"A: mean {measure}", f"{result.mean_a:.3f}", help=f"n = {result.n_a:,}; median "
                    f"{result.median_a:.3f}")
    cells[1].metric(f"B: mean {measure}", f"{result.mean_b:.3f}", help=f"n = {result.n_b:,}; median "
                    f"{result.median_b:.3f}")
    interval = "n < 2" if math.isnan(result.ci_low) else f"{result.ci_low:+.3f} to {result.ci_high:+.3f}"
    cells[2].metric("A − B (95% CI)", f"{result.diff:+.3f}", interval, delta_color="off", delta_arrow="off",
                    help=f"Median difference {result.median_diff:+.3f}")
    p = "–" if math.isnan(result.p) else (f"{result.p:.3f}" if result.p >= 0.001 else "< 0.001")
    effect = "–" if math.isnan(result.effect_size) else f"{result.effect_size:.2f}"
    cells[3].metric("p (permutation)", p, f"{'d_z' if result.paired else 'd'} = {effect}", delta_color="off",
                    delta_arrow="off")
    counts = (f"paired by {result.paired_label or result.paired_by}: {result.n_pairs:,} in both groups, "
              f"{result.n_a:,} values of A and {result.n_b:,} of B" if result.paired
              else f"{result.n_a:,} values in A and {result.n_b:,} in B")
    # the figures in words, and exactly (data-*) for whoever reads the page by machine (the browser tests)
    figures = {"diff": result.diff, "low": result.ci_low, "high": result.ci_high, "p": result.p, "n-a": result.n_a,
               "n-b": result.n_b, "mean-a": result.mean_a, "mean-b": result.mean_b, "paired": result.paired_by or ""}
    attributes = " ".join(f'data-{name}="{html.escape(repr(value) if isinstance(value, float) else str(value))}"'
                          for name, value in figures.items())
    st.html(f'<p class="vgd-contrast" {attributes}>{html.escape(result.describe(3))}; {html.escape(counts)}.</p>')
    st.caption(md_escape(result.method()))
    frame = contrast_frame(result, a, b)
    stem = f"contrast-{corpus.name}"
    download_buttons(frame, stem, label="contrast")
    from ui.share.downloads import latex_table_download

    latex_table_download(frame, f"{measure}: {a} against {b} ({result.method()})", stem, digits=3)
    link = contrast_link(corpus.name, a, measure, b, paired)
    st.markdown(f":material/link: [Link to this contrast]({link}): {md_code(link)}")


def current_contrast_params() -> tuple[str, str, str]:
    """The measure, B and the pairing in the URL."""
    return (query_param(MEASURE_PARAM) or "", query_param(B_PARAM) or REST, query_param(PAIRED_PARAM) or AUTO)


__all__ = ["B_PARAM", "MEASURE_PARAM", "PAIRED_PARAM", "contrast_builder", "contrast_link", "contrast_of",
           "current_contrast_params", "shown_contrast"]
