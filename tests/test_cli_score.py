"""`rubberscan score`: JSON keys exactly as CONTRACT.md, the text pad, bad lines."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli import main

ROOT = Path(__file__).resolve().parent.parent
KEYS = ["deal", "ns", "ew", "below", "above", "vulnerable", "games", "rubber_bonus"]
SEED_001 = "3D N 11\n6S E 12 honours 150 EW\n4Hx N 8\n2Hx N 8\n2H N 8\n1NTx E 8\n1NT N 11\n"


def run(tmp_path, text, *args, capsys):
    f = tmp_path / "deals.txt"
    f.write_text(text)
    rc = main(["score", *args, str(f)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_json_contract_example(tmp_path, capsys):
    rc, out, _ = run(tmp_path, "4S N 10\n", "--format", "json", capsys=capsys)
    assert rc == 0
    obj = json.loads(out)
    assert list(obj) == KEYS
    assert obj == {"deal": 1, "ns": 120, "ew": 0, "below": {"ns": 120, "ew": 0},
                   "above": {"ns": 0, "ew": 0}, "vulnerable": {"ns": False, "ew": False},
                   "games": {"ns": 1, "ew": 0}, "rubber_bonus": 0}


def test_json_seed_001(tmp_path, capsys):
    rc, out, _ = run(tmp_path, SEED_001, "--format", "json", capsys=capsys)
    rows = [json.loads(x) for x in out.splitlines()]
    assert rc == 0 and [r["deal"] for r in rows] == list(range(1, 8))
    assert all(list(r) == KEYS for r in rows)
    assert sum(r["ns"] for r in rows) == 990 and sum(r["ew"] for r in rows) == 1460
    assert rows[-1]["rubber_bonus"] == 500 and rows[-1]["games"] == {"ns": 2, "ew": 1}
    assert rows[2]["vulnerable"] == {"ns": False, "ew": True}
    assert all(r["ns"] == r["below"]["ns"] + r["above"]["ns"] for r in rows)


def test_unfinished_flag(tmp_path, capsys):
    _, out, _ = run(tmp_path, "4S N 10\n2H E 8\n", "--format", "json", "--unfinished",
                    capsys=capsys)
    last = json.loads(out.splitlines()[-1])
    assert (last["ns"], last["ew"]) == (300, 160)
    _, out, _ = run(tmp_path, "4S N 10\n2H E 8\n", "--format", "json", capsys=capsys)
    last = json.loads(out.splitlines()[-1])
    assert (last["ns"], last["ew"]) == (0, 60)


def test_text_pad_seed_001(tmp_path, capsys):
    rc, out, _ = run(tmp_path, SEED_001, capsys=capsys)
    assert rc == 0
    lines = out.splitlines()
    assert lines[0] == "Rubber 1" and lines[1].split() == ["WE", "|", "THEY"]
    # above the line, stacked upward (latest on top) as in the seed
    cut = lines.index(next(x for x in lines if x.startswith("=")))
    above = [x.replace("|", " ").split() for x in lines[3:cut]]
    assert above == [["50"], ["500", "200"], ["120", "300"], ["50", "150"], ["40", "500"]]
    assert "990 | 1460" in out and "THEY +470" in out
    assert out.count("+---") >= 3  # header rule plus a line under each of the three games


@pytest.mark.parametrize("bad,lineno", [("4S N 10\n8S N 10\n", 2), ("\n\n3NT N 9 honours 100 NS", 3)])
def test_bad_lines(tmp_path, capsys, bad, lineno):
    rc, out, err = run(tmp_path, bad, capsys=capsys)
    assert rc != 0 and out == ""
    assert f"line {lineno}:" in err


def test_stdin_and_missing_file_via_subprocess(tmp_path):
    p = subprocess.run([sys.executable, str(ROOT / "cli.py"), "score", "--format", "json", "-"],
                       input="pass\n3NTx E 7\n", capture_output=True, text=True, cwd=ROOT)
    assert p.returncode == 0
    assert json.loads(p.stdout.splitlines()[1])["ns"] == 300  # 3NTx down 2, not vul
    p = subprocess.run([sys.executable, str(ROOT / "cli.py"), "score", str(tmp_path / "nope")],
                       capture_output=True, text=True, cwd=ROOT)
    assert p.returncode != 0 and "cannot read" in p.stderr and "Traceback" not in p.stderr
