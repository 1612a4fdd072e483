#!/usr/bin/env bash
# Frame rates of the tile-map view under Xvfb (software GL: llvmpipe), GPU renderer against
# the CPU renderer, on generated maps about 30% full (128×128×8 and 256×256×16; see
# `actforge_tests::terrain_map`, written by the editor's `map_project` example).
#
# For each map and renderer the editor opens with a fresh settings folder and
#   ACTFORGE_MAP_RENDERER=gpu|cpu  the renderer,
#   ACTFORGE_OPEN_MAP=ID           the Tile map tab on the generated map,
#   ACTFORGE_MAP_ORBIT=1           every map view turns its camera a little each frame and
#                                  asks for the next one at once (a continuous orbit),
#   ACTFORGE_FRAME_LOG=1           one stderr line per frame ("frame t=SECONDS ui_ms=MS"),
# settles, then frames are counted over the last SECONDS of the run; the CPU share of the
# process (user + system, from /proc/PID/stat) is measured over the same window.
# With --shots DIR it instead takes a screenshot of each renderer on content/srpg-skirmish's
# map (ridge) into DIR (gpu.png, cpu.png; ImageMagick's `import`).
#
# Usage: scripts/map-fps.sh [-d :97] [-s SECONDS] [-w SETTLE] [--sizes "128x8 256x16"] [--shots DIR]
# The binary: $ACTFORGE_BIN, else the release build, else the debug build (under
# $CARGO_TARGET_DIR or target/). Prints one line per measurement.
set -euo pipefail

display=":97"
seconds=10
settle=12
sizes="128x8 256x16"
shots=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        -d) display="$2"; shift 2 ;;
        -s) seconds="$2"; shift 2 ;;
        -w) settle="$2"; shift 2 ;;
        --sizes) sizes="$2"; shift 2 ;;
        --shots) shots="$2"; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
bin="${ACTFORGE_BIN:-}"
profile="release"
if [[ -z "$bin" ]]; then
    if [[ -x "$target/release/actforge" ]]; then
        bin="$target/release/actforge"
    elif [[ -x "$target/debug/actforge" ]]; then
        bin="$target/debug/actforge"
        profile="debug"
    else
        echo "no actforge binary under $target: cargo build --release -p actforge-editor --bin actforge" >&2
        exit 1
    fi
fi
[[ "$bin" == */debug/* ]] && profile="debug"
command -v Xvfb >/dev/null || { echo "Xvfb is not installed" >&2; exit 1; }

work="$(mktemp -d)"
xvfb_pid=""
editor_pid=""
cleanup() {
    [[ -n "$editor_pid" ]] && kill "$editor_pid" 2>/dev/null || true
    [[ -n "$xvfb_pid" ]] && kill "$xvfb_pid" 2>/dev/null && wait "$xvfb_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

Xvfb "$display" -screen 0 1600x1000x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
sleep 2
kill -0 "$xvfb_pid" 2>/dev/null || { echo "Xvfb did not start on $display:" >&2; cat "$work/xvfb.log" >&2; exit 1; }

ticks_per_second="$(getconf CLK_TCK)"
cpu_ticks() {
    local stat
    stat="$(cat "/proc/$1/stat")"
    stat="${stat##*) }"
    # shellcheck disable=SC2086 # split on purpose
    set -- $stat
    echo $(( ${12} + ${13} ))
}

# Starts the editor on project $1 with map $2 and renderer $3 (the rest: more environment).
start_editor() {
    local project="$1" map="$2" renderer="$3"
    shift 3
    local home="$work/home-$renderer-$RANDOM"
    mkdir -p "$home"
    env HOME="$home" XDG_DATA_HOME="$home/data" XDG_CONFIG_HOME="$home/config" DISPLAY="$display" \
        LIBGL_ALWAYS_SOFTWARE=1 ACTFORGE_MAP_RENDERER="$renderer" ACTFORGE_OPEN_MAP="$map" "$@" \
        "$bin" "$project" >"$work/editor.log" 2>&1 &
    editor_pid=$!
}

stop_editor() {
    kill "$editor_pid" 2>/dev/null || true
    wait "$editor_pid" 2>/dev/null || true
    editor_pid=""
}

if [[ -n "$shots" ]]; then
    mkdir -p "$shots"
    for renderer in gpu cpu; do
        start_editor "$root/content/srpg-skirmish" ridge "$renderer"
        sleep "$settle"
        DISPLAY="$display" import -window root "$shots/$renderer.png"
        stop_editor
        grep -E "map view|warning" "$work/editor.log" || true
        echo "$renderer: $shots/$renderer.png"
    done
    exit 0
fi

echo "binary:  $bin ($profile)"
echo "display $display (LIBGL_ALWAYS_SOFTWARE=1: $(DISPLAY="$display" glxinfo -B 2>/dev/null | grep -m1 'renderer string' | sed 's/.*: //' || echo 'glxinfo not installed')), settle ${settle} s, measured over ${seconds} s"
for size in $sizes; do
    side="${size%x*}"
    levels="${size#*x}"
    project="$work/map-$size"
    release=()
    [[ "$profile" == release ]] && release=(--release)
    if ! map="$(cd "$root" && cargo run --quiet "${release[@]}" -p actforge-editor --example map_project -- "$project" "$side" "$levels")"; then
        echo "could not write the ${size} map project (the map_project example)" >&2
        exit 1
    fi
    for renderer in gpu cpu; do
        start_editor "$project" "$map" "$renderer" ACTFORGE_MAP_ORBIT=1 ACTFORGE_FRAME_LOG=1
        sleep "$settle"
        if ! kill -0 "$editor_pid" 2>/dev/null; then
            echo "the editor exited early:" >&2
            cat "$work/editor.log" >&2
            exit 1
        fi
        before="$(cpu_ticks "$editor_pid")"
        start="$(date +%s.%N)"
        sleep "$seconds"
        after="$(cpu_ticks "$editor_pid")"
        end="$(date +%s.%N)"
        stop_editor
        if [[ "$renderer" == gpu ]] && grep -q "map view draws on the CPU\|GPU map view is off" "$work/editor.log"; then
            echo "warning: the gpu run fell back to the CPU:" >&2
            grep "map view" "$work/editor.log" >&2
        fi
        awk -v label="${side}×${side}×${levels} $renderer" -v window="$seconds" -v used="$((after - before))" \
            -v hz="$ticks_per_second" -v start="$start" -v end="$end" '
            /^frame t=/ { split($2, t, "="); split($3, u, "="); n++; ts[n] = t[2]; ui[n] = u[2] }
            END {
                if (n == 0) { printf "%-18s no frames logged\n", label; exit }
                last = ts[n]; count = 0; sum = 0
                for (i = 1; i <= n; i++) if (ts[i] > last - window) { count++; sum += ui[i] }
                printf "%-18s %6.1f frames/s   UI %7.2f ms/frame   CPU %5.1f%% of a core\n",
                    label, count / window, sum / count, 100 * used / hz / (end - start)
            }' "$work/editor.log"
    done
done
