# %% [markdown]
# # The dashboard's corpora in a notebook
#
# A short tour of the Python API (docs/python-api.md): open a corpus, look at its frames, draw a replay step and
# score a model run. With nothing configured it uses the built-in demo corpora; set `CODRAW_DATA` (or pass a path
# to `open_corpus`) for the real one. The tests run this file from top to bottom.

# %%
import dialogue_dashboard as dd

codraw = dd.open_corpus("codraw")
print(codraw.title, "from", "the demo corpus" if codraw.is_demo else codraw.source.path)
print({name: len(frame) for name, frame in codraw.frames.items()})

# %% [markdown]
# Messages per dialog, by split: the same numbers as the Overview page.

# %%
by_split = codraw.dialogs.groupby("split")["n_utterances"].mean().round(1)
print(by_split.to_string())

# %% [markdown]
# The last step of the first dialog, as the Compare and Present pages draw it, and the link that opens it in the
# app.

# %%
dialog = codraw.dialog_ids()[0]
last = codraw.step_count(dialog)
picture = codraw.picture(dialog, last)
print(picture.size, codraw.link(dialog, last, base="http://localhost:8501"))

# %% [markdown]
# A model run, scored with the corpus's own metric (the Runs page's table).

# %%
run = dd.open_run(codraw, codraw.runs()["baseline"])
table = run.metric_table()
print(table[["split", "metric", "n", "value"]].to_string(index=False))
assert not table.empty
