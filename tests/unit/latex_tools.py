"""Compile LaTeX with pdflatex and read the PDF back with pdftotext (tests are skipped without them)."""
from __future__ import annotations

import subprocess
from pathlib import Path

from tests.system import require


def need(*programs: str) -> None:
    """The minimal TeX set the exports compile with, or pdftotext: the test skips (or fails) without it."""
    for program in programs:
        require(*(["pdflatex", "latex_recommended", "latex_fonts", "lmodern"] if program == "pdflatex" else [program]))


def compile_pdf(tex: Path) -> Path:
    need("pdflatex")
    result = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "-no-shell-escape", tex.name],
                            cwd=tex.parent, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout[-3000:]
    pdf = tex.with_suffix(".pdf")
    assert pdf.stat().st_size > 0
    return pdf


def pdf_text(pdf: Path) -> str:
    need("pdftotext")
    result = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, text=True, timeout=60,
                            check=True)
    return result.stdout


def squash(text: str) -> str:
    """Whitespace-free text, so that line breaks the typesetter chose do not matter."""
    return "".join(text.split())
