#!/bin/sh
# timeline-screenshot.sh TRACE.json OUT.png [WIDTHxHEIGHT] - open a timeline
# written by `rcusim run --trace FILE.json` in speedscope (a trace-event
# viewer from npm, fetched into a temporary folder; nothing is installed) in
# headless Chromium, and save what it shows of the first track. Needs npm,
# chromium and python3 (Debian: npm, chromium). To show one CPU's interrupt
# track first, keep only it: jq '.traceEvents |= map(select(.tid == 100000
# or .tid == null or .ph == "M"))'. docs/figures/timeline-*.png were made so
# (docs/usage.md, Timelines).
set -eu
trace=$1
out=$2
size=${3:-1600x500}
work=$(mktemp -d)
port=$((20000 + $$ % 20000))
cleanup() { [ -n "${srv:-}" ] && kill "$srv" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
(cd "$work" && npm pack --silent speedscope@1.25.0 >/dev/null && tar xzf speedscope-*.tgz)
cp "$trace" "$work/package/dist/release/trace.json"
(cd "$work/package/dist/release" && exec python3 -m http.server "$port" --bind 127.0.0.1 >/dev/null 2>&1) &
srv=$!
sleep 1
chromium --headless=new --no-sandbox --disable-gpu --hide-scrollbars --window-size="$(echo "$size" | tr x ,)" \
	--virtual-time-budget=10000 --screenshot="$work/shot.png" \
	"http://127.0.0.1:$port/index.html#profileURL=http://127.0.0.1:$port/trace.json" >/dev/null 2>&1
mv "$work/shot.png" "$out"
