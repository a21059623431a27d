#!/usr/bin/env bash
# Drive `perfdrill review` in a real terminal (tmux, 80×24) as a user would: one template is due,
# answer it by keystrokes, see the feedback and the summary, quit with Ctrl+Q, then check with
# `perfdrill stats --json` that the review was saved and the template rescheduled days ahead.
# Usage: tests/tmux_session.sh   (needs tmux and `perfdrill` on PATH; exits non-zero on failure)
set -euo pipefail

work=$(mktemp -d)
socket="perfdrill-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_DATA_HOME="$work/data"

# The hand-checked questions (the L4's ridge: 121 TFLOP/s / 300 GB/s = 403 FLOP/byte), and a
# schedule where only that ridge is due: reviewed (GOOD) ten days ago, so due eight days ago,
# while every other template was reviewed EASY today and is due in eight days.
python - "$work/questions" <<'PY'
import sys, time
from pathlib import Path
sys.path.insert(0, str(Path.cwd()))
from tests.helpers import hand_checked_bank
from perfdrill.engine.practice.progress import ProgressStore
from perfdrill.engine.practice.schedule import EASY, GOOD
from perfdrill.engine.problems.bank import load_bank
questions = hand_checked_bank(Path(sys.argv[1]))
ProgressStore(now=lambda: time.time() - 10 * 86400).record_review("roofline/l4-ridge", GOOD)
store = ProgressStore()
for template in load_bank([questions]).templates:
    if template != "roofline/l4-ridge":
        store.record_review(template, EASY)
PY
perfdrill review --new-per-day 0 | grep -qF "saved: --new-per-day 0"

wait_for() {  # wait_for TEXT: poll the screen until TEXT shows (30 s at most)
    for _ in $(seq 150); do
        if tmux -L "$socket" capture-pane -p -t drill 2>/dev/null | grep -qF -- "$1"; then return 0; fi
        sleep 0.2
    done
    echo "FAIL: '$1' never appeared; the screen was:" >&2
    tmux -L "$socket" capture-pane -p -t drill >&2 || true
    exit 1
}

tmux -L "$socket" -f /dev/null new-session -d -s drill -x 80 -y 24 \
    "TERM=xterm-256color perfdrill review --questions '$work/questions'; echo \$? > '$work/exit'; sleep 2"
wait_for "Ridge?"
wait_for "review 1/1"
tmux -L "$socket" send-keys -t drill "403" Enter
wait_for "✓ correct"
wait_for "1/1 parts right at the first try"
tmux -L "$socket" send-keys -t drill "n"
wait_for "1/1 answered fully right at the first try"
tmux -L "$socket" send-keys -t drill C-q
for _ in $(seq 50); do [[ -s "$work/exit" ]] && break; sleep 0.2; done
[[ "$(cat "$work/exit")" == "0" ]] || { echo "FAIL: perfdrill exited with $(cat "$work/exit")" >&2; exit 1; }

perfdrill stats --questions "$work/questions" --json > "$work/stats.json"
python - "$work/stats.json" <<'PY'
import json, sys
from datetime import datetime, timedelta
stats = json.load(open(sys.argv[1]))
ridge = {t["id"]: t for t in stats["templates"]}["roofline/l4-ridge"]
due = datetime.fromisoformat(ridge["due"])
now = datetime.now().astimezone()
# Right at the first try, at once and without hints: rated EASY, so due days from now, not today.
assert due > now + timedelta(days=1), f"roofline/l4-ridge is due {due}, expected days ahead"
assert (ridge["first_tries"], ridge["right"], ridge["due_today"]) == (1, 1, False), ridge
assert stats["queue"] == {"due": [], "new": []}, stats["queue"]
others = [datetime.fromisoformat(t["due"]) for t in stats["templates"] if t["id"] != "roofline/l4-ridge"]
assert all(now + timedelta(days=7) < d < now + timedelta(days=9) for d in others), "EASY today: due in 8 days"
print(f"roofline/l4-ridge next due {due:%Y-%m-%d}")
PY
perfdrill stats --questions "$work/questions" | grep -q "Roofline reading .* 1 .* 1 .*100%" \
    || { echo "FAIL: attempt not saved" >&2; perfdrill stats >&2; exit 1; }
echo "tmux session: reviewed the one due template, saw the feedback and summary, quit cleanly, rescheduled"
