# Sourced by the scripts here (from the repository root): use the project's virtual environment
# without asking the user to activate it first. Order: an active one ($VIRTUAL_ENV), then
# $BRIDGEBOT_VENV, then .venv and venv in the repository. Without one, say so and stop.
find_venv() {
    local tool="$1" candidate
    for candidate in "${VIRTUAL_ENV:-}" "${BRIDGEBOT_VENV:-}" "$PWD/.venv" "$PWD/venv"; do
        if [[ -n "$candidate" && -x "$candidate/bin/python" ]]; then
            export VIRTUAL_ENV="$candidate"
            export PATH="$candidate/bin:$PATH"
            return 0
        fi
    done
    echo "$tool: no virtual environment found (looked at \$VIRTUAL_ENV, \$BRIDGEBOT_VENV," \
        "$PWD/.venv and $PWD/venv); create one with: python3 -m venv .venv &&" \
        ".venv/bin/pip install -e '.[dev]'" >&2
    return 1
}

# Stop with a sentence when one of the given commands is not in the environment.
need_tools() {
    local tool="$1" cmd
    shift
    for cmd in "$@"; do
        if ! command -v "$cmd" >/dev/null 2>&1; then
            echo "$tool: '$cmd' is not installed in $VIRTUAL_ENV; install the dev extra:" \
                "$VIRTUAL_ENV/bin/pip install -e '.[dev]'" >&2
            return 1
        fi
    done
}
