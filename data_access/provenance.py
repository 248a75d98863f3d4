"""Where to obtain each corpus (and its images or clip art) and how to cite it, for the Data page and the
README. Static text written here, never read from a file; the links and references are the ones the corpora's
own releases give (their README and reference.bib)."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional


@dataclass(frozen=True)
class Provenance:
    obtain: str  # markdown, our own text
    assets: str  # markdown: the images / clip art and what the app shows without them
    licence: str
    citations: tuple[str, ...]  # BibTeX entries


PROVENANCE: dict[str, Provenance] = {
    "codraw": Provenance(
        obtain=("The dialogs: **CoDraw v1.0** (`CoDraw_1_0.json`, 149 MB), linked under *Download* in the "
                "[facebookresearch/CoDraw](https://github.com/facebookresearch/CoDraw) repository. Set `CODRAW_DATA` "
                "to that file (or its `.json.gz`), or to the folder of per-dialog files its `script/preprocess.py` writes."),
        assets=("The clip art: the `Pngs/` folder of [Abstract Scenes v1.1](https://vision.ece.vt.edu/clipart/) "
                "(Zitnick & Parikh, 2013). Set `CODRAW_CLIPART` to it; without it the canvases are drawn art-free."),
        licence="CC BY-NC 4.0",
        citations=(
            """@inproceedings{kim-etal-2019-codraw,
  title = {{CoDraw}: Collaborative Drawing as a Testbed for Grounded Goal-driven Communication},
  author = {Kim, Jin-Hwa and Kitaev, Nikita and Chen, Xinlei and Rohrbach, Marcus and Zhang, Byoung-Tak and
            Tian, Yuandong and Batra, Dhruv and Parikh, Devi},
  booktitle = {Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics},
  year = {2019},
  pages = {6495--6513},
  url = {https://aclanthology.org/P19-1651}
}""",
        ),
    ),
    "gos": Provenance(
        obtain=("The six `a-game-of-sorts_*.jsonl` files in `dataset/data` of the "
                "[willemsenbram/a-game-of-sorts](https://github.com/willemsenbram/a-game-of-sorts) repository. "
                "Set `GAME_OF_SORTS_DATA` to that folder."),
        assets=("The 45 images are not in the release: its `dataset/get_images.sh` downloads them from their sources "
                "(Stanford Dogs, Open Images, WikiArt) as `<image_id>.jpg`. Set `GAME_OF_SORTS_IMAGES` to the folder it "
                "fills; without it every tile is a labelled placeholder."),
        licence="MIT (see the release's LICENSE); the images keep their sources' terms",
        citations=(
            """@inproceedings{willemsen-kalpakchi-skantze:2022:LREC,
  author = {Willemsen, Bram and Kalpakchi, Dmytro and Skantze, Gabriel},
  title = {Collecting Visually-Grounded Dialogue with A Game Of Sorts},
  booktitle = {Proceedings of the Language Resources and Evaluation Conference},
  year = {2022},
  address = {Marseille, France},
  publisher = {European Language Resources Association},
  pages = {2257--2268},
  url = {https://aclanthology.org/2022.lrec-1.242}
}""",
        ),
    ),
    "minecraft": Provenance(
        obtain=("The Minecraft Dialogue Corpus as the "
                "[prashant-jayan21/minecraft-bap-models](https://github.com/prashant-jayan21/minecraft-bap-models) "
                "repository ships it in `data/`: `logs/` (with `splits.json`) and `gold-configurations/`. Set "
                "`MINECRAFT_DATA` to that `data` folder (the augmented layout in `data/augmented` works too)."),
        assets="The build is drawn from the logged blocks; no screenshots are needed.",
        licence="for research use, as its release states",
        citations=(
            """@inproceedings{narayan-chen-etal-2019-collaborative,
  title = {Collaborative Dialogue in {M}inecraft},
  author = {Narayan-Chen, Anjali and Jayannavar, Prashant and Hockenmaier, Julia},
  booktitle = {Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics},
  year = {2019},
  pages = {5405--5415},
  url = {https://aclanthology.org/P19-1537}
}""",
            """@inproceedings{jayannavar-etal-2020-learning,
  title = {Learning to execute instructions in a {M}inecraft dialogue},
  author = {Jayannavar, Prashant and Narayan-Chen, Anjali and Hockenmaier, Julia},
  booktitle = {Proceedings of the 58th Annual Meeting of the Association for Computational Linguistics},
  year = {2020},
  pages = {2589--2602},
  url = {https://aclanthology.org/2020.acl-main.232}
}""",
        ),
    ),
}


@dataclass(frozen=True)
class ImageCoverage:
    """How many of a Game Of Sorts corpus's images the tiles can show (the others are placeholders)."""

    folder: Optional[str]  # GAME_OF_SORTS_IMAGES, None when unset
    total: int
    found: int

    @property
    def placeholders(self) -> int:
        return self.total - self.found


def gos_image_coverage(image_ids, folder: Optional[str]) -> ImageCoverage:
    """Which of ``image_ids`` have an ``<image_id>.jpg`` in ``folder`` (the name get_images.sh writes)."""
    ids = sorted({str(i) for i in image_ids})
    if not folder:
        return ImageCoverage(None, len(ids), 0)
    root = Path(folder)
    try:
        present = {entry.name for entry in root.iterdir()} if root.is_dir() else set()
    except OSError:
        present = set()
    return ImageCoverage(str(folder), len(ids), sum(f"{i}.jpg" in present for i in ids))
