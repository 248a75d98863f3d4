"""A path with a control character in it (a newline, a carriage return, a tab) still gives one line of error on
stderr, the character written as its escape, never a second line or a traceback (the issue "Trust for a lab
deployment", item 11)."""
from __future__ import annotations

import pytest

from data_access.__main__ import main as data_tools
from dialogue_dashboard.cli import main as command


@pytest.mark.parametrize("run", [data_tools, command])
@pytest.mark.parametrize("argv", [
    ["summary", "codraw", "/nowhere/a\nb.json"],
    ["summary", "gos", "/nowhere/a\r\x1b[2Jb"],
    ["run-summary", "codraw", "", "/nowhere/run\nfile.jsonl"],
    ["layer-summary", "gos-mentions", "", "/nowhere/layer\n.jsonl"],
])
def test_a_path_with_a_newline_gives_one_line_of_error(run, argv, capsys):
    assert run(argv) == 2
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert len(lines) == 1, err
    assert lines[0].startswith("error: ") and "Traceback" not in err
    assert "\\n" in lines[0] or "\\r" in lines[0]
    assert "\x1b" not in err
