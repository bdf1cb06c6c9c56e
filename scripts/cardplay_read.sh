#!/usr/bin/env bash
# One command for issue 61's card-play read: the candidate card player against today's `pimc` on
# 1,000 fresh fixed-contract boards (benchmarks/bench_cardplay.py), its state in
# $BRIDGEBOT_RUNS/cardplay/claim/ (the deal file and the journal), resumable: run it again and it
# plays only the chunks the journal lacks, then prints the figures.
#
#   scripts/cardplay_read.sh [CANDIDATE]    default "auction,draw=distinct,lead_worlds=32"
#
# The deal file is made first where missing (`bridgebot ddgen --seed 6111 --boards 1100`); a
# missing state folder starts clean, and says so. Environment: BRIDGEBOT_RUNS (default
# ~/.cache/bridgebot/runs), WORKERS (default 2), BOARDS (default 1000).
# A change to the card player's code between runs must keep its cards (the journal holds the
# boards already played): docs/evaluation.md, "The new player on 1,000 fresh boards".
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
candidate="${1:-auction,draw=distinct,lead_worlds=32}"
state="${BRIDGEBOT_RUNS:-$HOME/.cache/bridgebot/runs}/cardplay/claim"
if [[ ! -d "$state" ]]; then
    echo "cardplay_read: no state folder $state: starting clean" >&2
    mkdir -p "$state"
fi
deals="$state/claim_6111.npz"
if [[ ! -f "$deals" ]]; then
    bridgebot ddgen --seed 6111 --boards 1100 --out "$deals" --workers "${WORKERS:-2}"
fi
exec python benchmarks/bench_cardplay.py --candidate "$candidate" --reference pimc \
    --deals "$deals" --boards "${BOARDS:-1000}" --chunk 10 --workers "${WORKERS:-2}" \
    --journal "$state/claim.jsonl" --json "$state/claim.json"
