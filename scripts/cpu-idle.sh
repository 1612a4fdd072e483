#!/usr/bin/env bash
# How much CPU the editor takes when nobody touches it, and while the preview plays at 1×.
#
# Starts Xvfb (software GL: llvmpipe), opens the editor on a project with a fresh settings
# folder (the default layout, no stored state), lets it settle, then measures the process's
# CPU time (user + system, every thread, from /proc/PID/stat) over a window of seconds.
# The playing figure comes from a second run with ACTFORGE_PREVIEW_AUTOPLAY=1, which starts
# the preview's clock at 1× once the game has compiled; with --keys (for builds without it)
# xdotool presses F5 twice instead: the first shows the Preview tab, the second plays.
#
# Usage: scripts/cpu-idle.sh [-d :97] [-p content/lighthouse] [-s SECONDS] [-w SETTLE] [--no-play] [--keys]
# The binary: $ACTFORGE_BIN, else the release build, else the debug build (under
# $CARGO_TARGET_DIR or target/). Prints one line per measurement.
set -euo pipefail

display=":97"
project="content/lighthouse"
seconds=20
settle=8
play=1
keys=0
while [[ $# -gt 0 ]]; do
    case "$1" in
        -d) display="$2"; shift 2 ;;
        -p) project="$2"; shift 2 ;;
        -s) seconds="$2"; shift 2 ;;
        -w) settle="$2"; shift 2 ;;
        --no-play) play=0; shift ;;
        --keys) keys=1; shift ;;
        -h|--help) sed -n '2,14p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
bin="${ACTFORGE_BIN:-}"
if [[ -z "$bin" ]]; then
    if [[ -x "$target/release/actforge" ]]; then
        bin="$target/release/actforge"
    elif [[ -x "$target/debug/actforge" ]]; then
        bin="$target/debug/actforge"
    else
        echo "no actforge binary under $target: cargo build --release -p actforge-editor --bin actforge" >&2
        exit 1
    fi
fi
command -v Xvfb >/dev/null || { echo "Xvfb is not installed" >&2; exit 1; }

work="$(mktemp -d)"
xvfb_pid=""
editor_pid=""
cleanup() {
    [[ -n "$editor_pid" ]] && kill "$editor_pid" 2>/dev/null || true
    # Waited for, so the display is free for the next run.
    [[ -n "$xvfb_pid" ]] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
sleep 2
kill -0 "$xvfb_pid" 2>/dev/null || { echo "Xvfb did not start on $display:" >&2; cat "$work/xvfb.log" >&2; exit 1; }

ticks_per_second="$(getconf CLK_TCK)"

# CPU time of process $1 so far, in clock ticks (utime + stime; fields 14 and 15 of
# /proc/PID/stat, counted after the command name, which may hold spaces).
cpu_ticks() {
    local stat
    stat="$(cat "/proc/$1/stat")"
    stat="${stat##*) }"
    # shellcheck disable=SC2086 # split on purpose
    set -- $stat
    echo $(( ${12} + ${13} ))
}

# Runs the editor ($1: a label; the rest: environment assignments), lets it settle, measures.
measure() {
    local label="$1"
    shift
    local home="$work/home-$label"
    mkdir -p "$home"
    env HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" DISPLAY="$display" \
        LIBGL_ALWAYS_SOFTWARE=1 "$@" "$bin" "$project" >"$work/editor-$label.log" 2>&1 &
    editor_pid=$!
    sleep "$settle"
    if [[ "$label" == playing && "$keys" == 1 ]]; then
        local window
        window="$(DISPLAY="$display" xdotool search --name Actforge | head -n 1)"
        DISPLAY="$display" xdotool windowfocus "$window" key F5
        sleep 3
        DISPLAY="$display" xdotool key F5
        sleep 2
    fi
    if ! kill -0 "$editor_pid" 2>/dev/null; then
        echo "the editor exited early:" >&2
        cat "$work/editor-$label.log" >&2
        exit 1
    fi
    local before after start end
    before="$(cpu_ticks "$editor_pid")"
    start="$(date +%s.%N)"
    sleep "$seconds"
    after="$(cpu_ticks "$editor_pid")"
    end="$(date +%s.%N)"
    kill "$editor_pid" 2>/dev/null || true
    wait "$editor_pid" 2>/dev/null || true
    editor_pid=""
    awk -v label="$label" -v used="$((after - before))" -v hz="$ticks_per_second" -v start="$start" -v end="$end" \
        'BEGIN { wall = end - start; printf "%-8s %5.1f%% of a core (%.2f s CPU in %.1f s)\n", label, 100 * used / hz / wall, used / hz, wall }'
}

echo "binary:  $bin"
echo "project: $project, display $display, settle ${settle} s, measured over ${seconds} s"
measure idle
if [[ "$play" == 1 && "$keys" == 1 ]]; then
    measure playing
elif [[ "$play" == 1 ]]; then
    measure playing ACTFORGE_PREVIEW_AUTOPLAY=1
fi
