#!/usr/bin/env bash
# Issue 24's Continue repro by keystrokes in tmux at 80×24, then a mock interview end to end.
# Continue must resume exactly: a wrong first try left on its feedback comes back as its second
# try, never as a new first try, whatever session ran in between; `stats --json` then counts one
# first try per question. Usage: tests/tmux_continue.sh (needs tmux and `perfdrill` on PATH).
set -euo pipefail

work=$(mktemp -d)
launches=0
socket="perfdrill-continue-$$-0"
trap 'tmux -L "$socket" kill-server 2>/dev/null || true; rm -rf "$work"' EXIT
export XDG_DATA_HOME="$work/data"

screen() { tmux -L "$socket" capture-pane -p -t drill 2>/dev/null || true; }
wait_for() {  # wait_for TEXT: poll the screen until TEXT shows (30 s at most)
    for _ in $(seq 150); do screen | grep -qF -- "$1" && return 0; sleep 0.2; done
    echo "FAIL: '$1' never appeared; the screen was:" >&2; screen >&2; exit 1
}
launch() {  # launch ARGS…: perfdrill ARGS… in a fresh 80×24 terminal, on a server of its own
    tmux -L "$socket" kill-server 2>/dev/null || true
    launches=$((launches + 1))
    socket="perfdrill-continue-$$-$launches"  # a server shutting down must not take the next one
    tmux -L "$socket" -f /dev/null new-session -d -s drill -x 80 -y 24 "TERM=xterm-256color perfdrill $*; sleep 60"
}
keys() { tmux -L "$socket" send-keys -t drill "$@"; }
ones() {  # answer 1 in every field until the feedback shows; a key only while a question is up
    for _ in $(seq 30); do
        screen | grep -qF "parts right at the" && return 0
        if screen | grep -qF "Submit"; then keys 1; sleep 0.2; fi
        if screen | grep -qF "Submit"; then keys Enter; fi
        sleep 0.6
    done
}
other_session() {  # the session run in between, finished
    launch practice --question matmul/square-time --count 1 --seed "$1" --start
    wait_for "question 1/1"; ones; wait_for "parts right at the"; keys n; wait_for "Missed at the first try"
}

launch practice --family roofline --count 3 --seed 1 --start
wait_for "question 1/3"; ones; wait_for "parts right at the first try"; keys C-q; sleep 1
other_session 5
keys C-q; sleep 1
launch
wait_for "Continue (Ctrl+R): question 1/3, the second try at"
keys C-r
wait_for "Second try, same numbers"
keys C-s
wait_for "parts right at the second try"; keys C-q; sleep 1
other_session 6
keys Enter
wait_for "Continue (Ctrl+R): question 2/3, not yet shown"
keys C-r
wait_for "2/3 · roofline/ridge-point"  # the heading may wrap after "question"
screen | grep -qF "Second try" && { echo "FAIL: question 2 opened as a second try" >&2; exit 1; }
keys C-q; sleep 1
perfdrill stats --json > "$work/stats.json"
python - "$work/stats.json" <<'PY'
import json, sys
stats = json.load(open(sys.argv[1]))
firsts = {row["family"]: row["attempts"] for row in stats["families"]}
assert firsts == {"roofline": 1, "matmul": 2}, firsts  # question 1 graded once as a first try
PY

launch interview --seed 2
wait_for "for this question"
for _ in $(seq 8); do
    screen | grep -qF "Scorecard" && break
    wait_for "for this question"; ones; keys n; sleep 0.8
done
wait_for "Scorecard"
wait_for "parts right at the first try"
perfdrill stats --json | python -c "import json, sys; (i,) = json.load(sys.stdin)['interviews']; assert i['seed'] == 2 and i['planned'] == len(i['questions']), i"
echo "tmux continue: resumed exactly twice, one first try per question; interview scored and listed"
