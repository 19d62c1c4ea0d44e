#!/usr/bin/env bash
# What --report costs, side by side in one run: passline-opt -O2 on 10^5
# operations (100 functions) with no instrument, with --print-changed=diff
# (to a file) and with --report, alternating, best of RUNS; then the report
# of O2 on 10^6 operations (1,000 functions): its size, and how long
# headless Chromium takes to open it (when chromium and Selenium are here).
#   benchmarks/report/run.sh BUILD_DIR [RUNS]
set -euo pipefail
build="${1:?usage: benchmarks/report/run.sh BUILD_DIR [RUNS]}"
runs="${2:-5}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/../measure.sh"  # generate, opt, work; measure

"$generate" 100000 11 "$work/e5.ir" "$work/e5.mlir" 100
declare -A best
for ((round = 0; round < runs; ++round)); do
  for kind in plain diff report; do
    case "$kind" in
      plain) extra=() ;;
      diff) extra=(--print-changed=diff) ;;
      report) extra=(--report="$work/e5.html") ;;
    esac
    keep_best "$kind" "$(measure "$work/$kind.out" "$opt" "$work/e5.ir" -O2 -o "$work/$kind.ir" "${extra[@]}" | cut -d' ' -f1)"
  done
done
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
echo "== passline-opt -O2 on 10^5 operations, 100 functions (best of $runs, one thread)"
printf '%-28s | %8s | %12s | %s\n' run seconds "x --print-changed=diff" "written"
printf '%-28s | %8s | %12s | %s\n' "no instrument" "${best[plain]}" "$(ratio "${best[plain]}" "${best[diff]}")" "-"
printf '%-28s | %8s | %12s | %s\n' "--print-changed=diff" "${best[diff]}" 1.00 "$(wc -c <"$work/diff.out.err") bytes to stderr"
printf '%-28s | %8s | %12s | %s\n' "--report" "${best[report]}" "$(ratio "${best[report]}" "${best[diff]}")" \
  "$(wc -c <"$work/e5.html") bytes of HTML"
echo "(goal: --report at most 1.2 times --print-changed=diff)"

echo
echo "== the report of O2 on 10^6 operations, 1,000 functions"
"$generate" 1000000 11 "$work/e6.ir" "$work/e6.mlir" 1000
plain=$(measure "$work/e6.out" "$opt" "$work/e6.ir" -O2 -o "$work/e6.out.ir")
reported=$(measure "$work/e6r.out" "$opt" "$work/e6.ir" -O2 -o "$work/e6r.out.ir" --report="$work/e6.html")
echo "run: $(cut -d' ' -f1 <<<"$plain") s without the report, $(cut -d' ' -f1 <<<"$reported") s with it;" \
  "page: $(wc -c <"$work/e6.html") bytes, $(grep -c 'cut here\|not shown' "$work/e6.html" || true) texts cut with a note"
if command -v chromium >/dev/null && /usr/bin/python3 -c 'import selenium' 2>/dev/null; then
  /usr/bin/python3 - "$work/e6.html" "$here/../../tests/report" <<'PY'
import pathlib, sys, tempfile
sys.path.insert(0, sys.argv[2])
import browser_test
driver = browser_test.browser(tempfile.mkdtemp())
try:
    driver.get(pathlib.Path(sys.argv[1]).as_uri())
    load = driver.execute_script("return performance.timing.loadEventEnd - performance.timing.navigationStart")
    bars = len(driver.find_elements("css selector", "#timeline-chart svg g.bar"))
    errors = [e for e in driver.get_log("browser") if e["level"] == "SEVERE"]
    print(f"headless Chromium opens it in {load} ms, {bars} timeline bars, {len(errors)} console errors")
finally:
    driver.quit()
PY
else
  echo "(chromium or Selenium missing: ./dev setup --browser)"
fi
