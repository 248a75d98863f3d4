"""Download of Minecraft Builder Action Prediction samples as JSON Lines, in the documented field names."""
import streamlit as st

from corpora.minecraft.data import bap_jsonl_bytes
from dialogue_dashboard.plugin.views import Corpus, loaded_corpus


def bap_samples_download(corpus: Corpus) -> None:
    """The corpus is copied out of the cache only when the file is asked for, not on every rerun."""
    with st.expander("Builder Action Prediction samples as JSON Lines"):
        st.caption("One sample per line with the fields of the BAP data format (Jayannthan et al., 2020): "
                   "builder_action_history, next_builder_actions, prev_utterances, gold_config, built_config, "
                   "prev_config, prev_builder_position, perspective_coordinates, from_aug_data, json_id, sample_id, "
                   "orig_experiment_id.")
        left, middle, right = st.columns([2, 2, 3], vertical_alignment="bottom")
        split = left.selectbox("Split", ["train", "val", "test"], key="bap_split")
        with_perspective = middle.toggle("With perspective coordinates", help="3×11×9×11 numbers per sample")
        if right.button("Prepare the file", key="bap_prepare"):
            loaded = loaded_corpus(corpus)
            if loaded is None:
                return
            with st.spinner("Deriving samples…"):
                data = bap_jsonl_bytes(loaded, split, with_perspective)
            n_samples = data.count(b"\n")
            st.download_button(f"⬇ {split}-samples.jsonl ({n_samples:,} samples)",
                               data, f"minecraft-bap-{split}.jsonl", "application/jsonl", key="bap_download",
                               on_click="ignore")
