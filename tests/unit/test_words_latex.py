"""The Words exports as LaTeX compile: a keyness table (booktabs, through data_access.exports.latex) and the concordance table,
with text from the data (markup characters, other scripts) shown literally."""
import pandas as pd

from data_access.exports.latex import booktabs_table, standalone_document
from data_access.words import concordance, keyness
from data_access.words.tokens import TokenIndex
from ui.words.concordance import concordance_latex

from .latex_tools import compile_pdf, pdf_text, squash


def _index() -> TokenIndex:
    return TokenIndex.build(pd.DataFrame({
        "corpus": ["codraw"] * 3, "dialog_id": ["d_1", "d_1", "d_2"], "round": pd.array([None] * 3, dtype="Int64"),
        "turn": pd.array([1, 2, 1], dtype="Int64"), "speaker": ["Teller"] * 3, "role": ["Teller", "Drawer", "Teller"],
        "text": ["the tree & 50% $x$ {on} the left", "is the tree_big? \\end", "the sun, ünïcode 木"], "time_s": 0.0}))


def test_keyness_and_concordance_tables_compile(tmp_path):
    index = _index()
    table = keyness.keyness(index, index.frame["role"].eq("Teller").to_numpy(), index.frame["role"].eq("Drawer").to_numpy(),
                            min_count=1, top=None)
    lines = concordance.lines(index, concordance.concordance(index, "the"))
    tex = tmp_path / "words.tex"
    tex.write_text(standalone_document(booktabs_table(table, caption="Keyness: A & B") + "\n"
                                       + concordance_latex(lines.drop(columns=["link"]), "Concordance of the_word")))
    text = squash(pdf_text(compile_pdf(tex)))
    assert squash("Keyness: A & B") in text and "the_word" in text
    assert squash("tree & 50% $x$ {on}") in text and "\\end" in text
    assert "tree" in text and "log" in text
