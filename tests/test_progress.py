"""Progress in a log: plain lines, no cursor codes, whatever nests."""

from __future__ import annotations

import io
import subprocess
import sys

from gubs_env.support.progress import PlainLines

NESTED = """
import time
from gubs_env.support.progress import progress_bar
outer = progress_bar(total=3, desc="outer")
for i in range(3):
    for _ in progress_bar(range(4), desc="inner", leave=False):
        time.sleep(0.002)
    outer.update()
outer.close()
"""


def test_nested_bars_piped_to_a_file_write_whole_lines_without_cursor_codes():
    done = subprocess.run([sys.executable, "-c", NESTED], capture_output=True, text=True, timeout=120, check=True)
    assert "\x1b" not in done.stderr and "\r" not in done.stderr
    lines = done.stderr.splitlines()
    assert lines[-1].startswith("outer: 100%") and sum(line.startswith("inner: 100%") for line in lines) == 3


def test_plain_lines_keep_the_newest_redraw_and_print_at_most_one_line_per_interval():
    stream = io.StringIO()
    lines = PlainLines(stream, interval=3600)
    lines.write("\rbar 1%")  # the first is due at once
    lines.write("\rbar 2%\x1b[A")
    lines.write("\rbar 3%")
    assert stream.getvalue() == "bar 1%\n"
    lines.write("\n")  # a bar's end: its last text is printed
    assert stream.getvalue() == "bar 1%\nbar 3%\n"
    lines.write("\rbar 3%")
    lines.close()  # nothing new to say
    assert stream.getvalue() == "bar 1%\nbar 3%\n"


def test_a_training_run_piped_to_a_log_leaves_no_cursor_codes_in_it(tmp_path):
    argv = [sys.executable, "train.py", "--steps", "200", "--envs", "2", "--imitate-games", "20", "--hidden", "16"]
    argv += ["--batch-size", "64", "--eval-games", "4", "--final-games", "4", "--out", str(tmp_path / "run")]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, check=True)
    log = done.stdout + done.stderr
    assert "\x1b" not in log and "\r" not in log
    assert "imitated" in done.stdout and "trained" in done.stdout
