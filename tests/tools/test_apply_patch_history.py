"""The history replay bench over a small real git repository full of awkward bytes.

Each commit edits files whose untouched lines hold every other line break,
CRLF and mixed endings, a BOM, a missing final newline and header-like
text; the bench (``bench/patch_history.py``, run as the script it is) turns
each commit into a patch, applies it with the real tool to the parent tree
and must find every tree byte-identical.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench" / "patch_history.py"
WEIRD = "\x0c\x0b\x1c\x1d\x1e\x85\u2028\u2029\r"

# Each commit: path -> new content (None deletes); the first commit is the starting tree.
HISTORY: list[dict[str, str | None]] = [
    {
        "plain.txt": "one\ntwo\nthree\nfour\nfive\n",
        "crlf.txt": "one\r\ntwo\r\nthree\r\nfour\r\n",
        "mixed.txt": "lf\ncrlf\r\nlf again\ncrlf again\r\n",
        "bom.txt": "\ufefffirst\nsecond\nthird\n",
        "nofinal.txt": "alpha\nbeta\ngamma",
        "weird.txt": f"page{WEIRD}one\nmiddle\nnext\u2028same line\nlast{WEIRD}x\n",
        "headers.txt": "*** End Patch\n*** Delete File: plain.txt\n*** Add File: intruder.txt\nchange me\n*** Move to: elsewhere.txt\n*** End of File\n",
    },
    {
        "plain.txt": "one\nTWO\nthree\nfour\nfive\n",
        "crlf.txt": "one\r\nTWO\r\nthree\r\nfour\r\n",
        "mixed.txt": "lf\ncrlf\r\nLF AGAIN\ncrlf again\r\n",
        "bom.txt": "\ufeffFIRST\nsecond\nthird\n",
        "nofinal.txt": "ALPHA\nbeta\ngamma",
        "weird.txt": f"page{WEIRD}one\nMIDDLE\nnext\u2028same line\nlast{WEIRD}x\n",
        "headers.txt": "*** End Patch\n*** Delete File: plain.txt\n*** Add File: intruder.txt\nchanged\n*** Move to: elsewhere.txt\n*** End of File\n",
    },
    {
        "plain.txt": None,
        "moved/crlf.txt": "one\r\nTWO\r\nthree\r\n",
        "crlf.txt": None,
        "weird.txt": f"page{WEIRD}one\nnext\u2028same line\nlast{WEIRD}x\nappended\n",
        "nofinal.txt": "ALPHA\nbeta\nGAMMA\n",
        "new.txt": "a new file\n",
    },
]


def _git(repo: Path, *args: str) -> None:
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@t",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def _make_repo(repo: Path) -> None:
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "main")
    for number, files in enumerate(HISTORY):
        for name, content in files.items():
            if content is None:
                (repo / name).unlink()
            else:
                (repo / name).parent.mkdir(parents=True, exist_ok=True)
                (repo / name).write_bytes(content.encode())
        _git(repo, "add", "-A")
        _git(repo, "commit", "-q", "-m", f"commit {number}")


def test_every_commit_replays_byte_for_byte(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    _make_repo(repo)
    out = tmp_path / "result.json"
    env = {**os.environ, "LITELLM_OFFLINE_MODE": "true"}
    done = subprocess.run(
        [sys.executable, str(BENCH), str(repo), "10", "-v", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    result = json.loads(out.read_text())
    by_commit = [(c["outcome"], c.get("files"), c.get("why")) for c in result["commits"]]
    assert by_commit == [("identical", [], None), ("identical", [], None), ("empty", None, "root commit")], done.stdout
    assert done.returncode == 0 and "byte-identical trees: 2 of 2 applied patches" in done.stdout
