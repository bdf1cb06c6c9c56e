#!/usr/bin/env bash
# One command for a machine's cores: the search's labels for distillation
# (scripts/search_teach.py) into $BRIDGEBOT_RUNS/NAME, resumable. Each run adds what MINUTES
# allow, and the same command goes on from the state folder; it ends when the run holds BOARDS.
#
#   scripts/label_run.sh NAME [MINUTES]     bid (default 8 minutes: a lent machine's 10-minute
#                                           call with room for the start and the copy back)
#   scripts/label_run.sh --prepare          here, before a lent machine: EPBot into .epbot and
#                                           the wheels its bare Python 3.12 lacks into .whl
#
# It makes its deals first (`bridgebot ddgen --run NAME`, seed SEED: never a validation or test
# set's), then bids them (`search_teach.py --run NAME --workers WORKERS`) until BOARDS or the time
# limit, which stops it as Ctrl-C does: the chunks saved are kept. Where $OUT is set (a lent
# machine's folder of files to bring back), the label file is copied to $OUT/NAME/.
#
# Environment: BRIDGEBOT_EPBOT (EPBot's folder; default .epbot here), BRIDGEBOT_RUNS (the state
# folder; default ~/.cache/bridgebot/runs), WORKERS (default: every core), BOARDS (the run's
# boards, default 3000: about 7 minutes on 16 cores), SPEC (the searching agent, default search),
# SEED (default 6006), CHUNK (boards a chunk, default 10).
# docs/data.md, "Long runs", has the lent machine's command and how to bring its state home.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

wheels=(endplay==0.5.12 more-itertools pyparsing pydantic==2.14.4 pydantic-core==2.50.5
    annotated-types typing-inspection structlog==26.1.0)

if [[ "${1:-}" == "--prepare" ]]; then
    epbot="${BRIDGEBOT_EPBOT:?set BRIDGEBOT_EPBOT to the EPBot folder (libEPBot.so and CC/)}"
    mkdir -p .epbot .whl
    cp -r "$epbot"/. .epbot/
    python3 -m pip download -q --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 --platform manylinux1_x86_64 -d .whl "${wheels[@]}"
    for d in /.epbot/ /.whl/ /.runs/; do
        grep -qxF "$d" .git/info/exclude 2>/dev/null || echo "$d" >>.git/info/exclude
    done
    echo "label_run: .epbot ($(du -sh .epbot | cut -f1)) and .whl ($(du -sh .whl | cut -f1))" \
        "ready; carry .epbot, .whl and .runs (docs/data.md, 'Long runs')"
    exit 0
fi

name="${1:?usage: scripts/label_run.sh NAME [MINUTES] | --prepare}"
minutes="${2:-8}"
workers="${WORKERS:-$(nproc)}"
boards="${BOARDS:-3000}"
seed="${SEED:-6006}"
export BRIDGEBOT_EPBOT="${BRIDGEBOT_EPBOT:-$root/.epbot}"
[[ -f "$BRIDGEBOT_EPBOT/libEPBot.so" ]] || {
    echo "label_run: no EPBot in $BRIDGEBOT_EPBOT: set BRIDGEBOT_EPBOT (or run --prepare here)" >&2
    exit 2
}

# The Python: the project's environment where there is one; else this machine's python3, with
# the carried wheels, and the checkout's packages linked as the bridgebot namespace (-P: the
# checkout's own bridgebot/ folder must not hide it).
. scripts/venv.sh
py=(python)
if ! find_venv label_run 2>/dev/null || ! python -c "import bridgebot.cli" 2>/dev/null; then
    py=(${PYTHON:-python3} -P)
    if [[ -d .whl ]]; then
        "${py[@]}" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade \
            --target /tmp/bridgebot-site .whl/*.whl
        export PYTHONPATH="/tmp/bridgebot-site${PYTHONPATH:+:$PYTHONPATH}"
    fi
    "${py[@]}" -c "import sys; sys.path.insert(0, 'scripts'); from pathlib import Path
from namespace import namespace_tree; namespace_tree(Path('.').resolve(), Path('/tmp/bridgebot-ns'))"
    export PYTHONPATH="/tmp/bridgebot-ns:$PYTHONPATH"
fi
# Scripts run with bridgebot imported first (a script puts the checkout first on its path).
launch='import runpy, sys, bridgebot.cli
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")'

out="data/label_runs/$name"
"${py[@]}" -m bridgebot ddgen --run "$name" --boards "$boards" --seed "$seed" \
    --workers "$workers" --quiet --out "$out/deals.npz"
status=0
timeout --signal=TERM "${minutes}m" "${py[@]}" -c "$launch" scripts/search_teach.py \
    --deals "$out/deals.npz" --boards "$boards" --workers "$workers" --spec "${SPEC:-search}" \
    --seed "$seed" --chunk "${CHUNK:-10}" --run "$name" --out "$out/labels.npz" || status=$?
state="$("${py[@]}" -c 'import sys; from bridgebot.core.runs import runs_root
print(runs_root() / sys.argv[1] / "labels.npz")' "$name")"
case "$status" in
0) echo "label_run: $name holds its $boards boards: $state (copy: $out/labels.npz)" ;;
124 | 130) echo "label_run: $name stopped after $minutes minutes; its labels: $state;" \
    "the same command goes on" ;;
*) exit "$status" ;;
esac
if [[ -n "${OUT:-}" && -f "$state" ]]; then
    mkdir -p "$OUT/$name"
    cp "$state" "$OUT/$name/labels.npz"
fi
