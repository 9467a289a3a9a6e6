#!/usr/bin/env bash
# Checks that an HTML report renders in headless Chromium: the parsed DOM holds
# the expected number of inline SVG figures and the metrics table (and, if
# given, a verdict line matching VERDICT_REGEX), and a screenshot is painted
# (non-blank PNG). SCREENSHOT=file keeps the screenshot.
# usage: render_in_chromium.sh REPORT.html EXPECTED_SVG_COUNT EXPECTED_TABLE_ROWS [VERDICT_REGEX]
set -euo pipefail
report="$(realpath "$1")"; want_svg="$2"; want_rows="$3"; want_verdict="${4:-}"
browser="$(command -v chromium || command -v chromium-browser || true)"
if [ -z "$browser" ]; then echo "chromium not installed (scripts/install-deps.sh installs it)"; exit 1; fi
tmp="$(mktemp -d)"; trap 'rm -rf "$tmp"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$tmp/profile" --window-size=1400,2400)
timeout 120 "$browser" "${flags[@]}" --dump-dom "file://$report" > "$tmp/dom.html" 2>"$tmp/err.log" || {
  cat "$tmp/err.log"; exit 1; }
svg=$(grep -o "<svg" "$tmp/dom.html" | wc -l)
rows=$(grep -o "<tr>" "$tmp/dom.html" | wc -l)
[ "$svg" -eq "$want_svg" ] || { echo "DOM has $svg <svg> elements, expected $want_svg"; exit 1; }
[ "$rows" -eq "$want_rows" ] || { echo "DOM has $rows table rows, expected $want_rows"; exit 1; }
if [ -n "$want_verdict" ]; then
  grep -Eq "<p class=\"verdict\" id=\"verdict\">$want_verdict</p>" "$tmp/dom.html" || {
    echo "DOM has no verdict line like '$want_verdict'"; exit 1; }
fi
timeout 120 "$browser" "${flags[@]}" --screenshot="$tmp/shot.png" "file://$report" 2>"$tmp/err.log" >/dev/null || {
  cat "$tmp/err.log"; exit 1; }
python3 - "$tmp/shot.png" <<'PY'
import sys, zlib, struct
data = open(sys.argv[1], 'rb').read()
assert data[:8] == b'\x89PNG\r\n\x1a\n', 'not a PNG'
# Decode the IDAT stream and count distinct byte values: a blank page is uniform.
pos, idat = 8, b''
while pos < len(data):
    length, kind = struct.unpack('>I4s', data[pos:pos + 8])
    if kind == b'IDAT':
        idat += data[pos + 8:pos + 8 + length]
    pos += 12 + length
pixels = zlib.decompress(idat)
distinct = len(set(pixels[::7]))
assert distinct > 20, f'screenshot looks blank ({distinct} distinct values)'
print(f'rendered: {len(data)} bytes PNG, {distinct} distinct sample values')
PY
[ -z "${SCREENSHOT:-}" ] || cp "$tmp/shot.png" "$SCREENSHOT"
echo "ok: $svg figures, $rows table rows"
