#!/usr/bin/env bash
# Drive `perfdrill` in a real terminal (tmux, 80×24) as a user would: answer one question by
# keystrokes, check the feedback, quit with Ctrl+Q, and check the attempt was saved.
# Usage: tests/tmux_session.sh   (needs tmux and `perfdrill` on PATH; exits non-zero on failure)
set -euo pipefail

work=$(mktemp -d)
socket="perfdrill-$$"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_DATA_HOME="$work/data"

# A one-chip question with a hand-known answer: the L4's ridge, 121 TFLOP/s / 300 GB/s = 403.
python - "$work/questions" <<'PY'
import sys
from pathlib import Path
sys.path.insert(0, str(Path.cwd()))
from tests.helpers import hand_checked_bank
hand_checked_bank(Path(sys.argv[1]))
PY

wait_for() {  # wait_for TEXT: poll the screen until TEXT shows (20 s at most)
    for _ in $(seq 100); do
        if tmux -L "$socket" capture-pane -p -t drill 2>/dev/null | grep -qF -- "$1"; then return 0; fi
        sleep 0.2
    done
    echo "FAIL: '$1' never appeared; the screen was:" >&2
    tmux -L "$socket" capture-pane -p -t drill >&2 || true
    exit 1
}

tmux -L "$socket" -f /dev/null new-session -d -s drill -x 80 -y 24 \
    "TERM=xterm-256color perfdrill practice --start --question roofline/l4-ridge --questions '$work/questions'; echo \$? > '$work/exit'; sleep 2"
wait_for "Ridge?"
tmux -L "$socket" send-keys -t drill "403" Enter
wait_for "✓ correct"
wait_for "1/1 parts right"
tmux -L "$socket" send-keys -t drill C-q
for _ in $(seq 50); do [[ -s "$work/exit" ]] && break; sleep 0.2; done
[[ "$(cat "$work/exit")" == "0" ]] || { echo "FAIL: perfdrill exited with $(cat "$work/exit")" >&2; exit 1; }
perfdrill stats | grep -q "Roofline reading .* 1 .* 1 .*100%" || { echo "FAIL: attempt not saved" >&2; perfdrill stats >&2; exit 1; }
echo "tmux session: answered one question, saw the feedback, quit cleanly, attempt saved"
