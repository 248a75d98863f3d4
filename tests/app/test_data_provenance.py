"""The Data page says where to obtain each corpus and how to cite it, and says visibly when the Game Of
Sorts tiles are placeholders because GAME_OF_SORTS_IMAGES is unset (or lacks some images)."""
from __future__ import annotations

from PIL import Image

from corpora.gos.data.images import image_coverage
from data_access.corpora import load_configured
from data_access.provenance import PROVENANCE

from .conftest import open_page


def _placeholder_notes(at) -> list[str]:
    return [i.value.replace("\\", "") for i in at.info if "placeholder" in i.value]


def test_every_corpus_says_where_to_get_it_and_how_to_cite_it():
    at = open_page("data")
    text = " ".join(m.value for m in at.markdown)
    for url in ("https://github.com/facebookresearch/CoDraw", "https://vision.ece.vt.edu/clipart/",
                "https://github.com/willemsenbram/a-game-of-sorts", "https://github.com/prashant-jayan21/minecraft-bap-models"):
        assert url in text
    bibtex = [t.value for t in at.text if t.value.startswith("@inproceedings")]
    assert len(bibtex) == 4
    for anthology in ("P19-1651", "2022.lrec-1.242", "P19-1537", "2020.acl-main.232"):
        assert sum(anthology in entry for entry in bibtex) == 1
    assert sum(len(p.citations) for p in PROVENANCE.values()) == 4


def test_placeholder_tiles_are_announced_when_the_image_folder_is_unset():
    at = open_page("data")
    notes = _placeholder_notes(at)
    assert len(notes) == 1 and "GAME_OF_SORTS_IMAGES is not set" in notes[0]


def test_a_partial_image_folder_says_how_many_are_missing_and_a_full_one_says_nothing(tmp_path, monkeypatch):
    ids = sorted(load_configured("gos").frames["images"]["image_id"].unique())
    for image_id in ids[:-3]:
        Image.new("RGB", (8, 8), "white").save(tmp_path / f"{image_id}.jpg")
    monkeypatch.setenv("GAME_OF_SORTS_IMAGES", str(tmp_path))
    notes = _placeholder_notes(open_page("data"))
    assert len(notes) == 1 and notes[0].startswith(f"3 of the {len(ids)} Game Of Sorts images are not in the")
    for image_id in ids[-3:]:
        Image.new("RGB", (8, 8), "white").save(tmp_path / f"{image_id}.jpg")
    assert image_coverage(ids, str(tmp_path)).placeholders == 0
    assert _placeholder_notes(open_page("data")) == []
