#!/bin/bash
# Builds the libFuzzer targets with SwiftPM's fuzzer and address sanitizers (in .build-fuzz, so
# the normal build isn't invalidated) and runs each on its seed corpus for SECONDS (default 60).
# Leak detection is off (a lazily initialized global reads as a leak); crashes, traps and
# address errors are what count. Exit 0: nothing found. Otherwise the failing target's crash-… file is in Fuzz/findings and
# replays with: .build-fuzz/debug/fuzz-NAME Fuzz/findings/crash-…
#
#   Fuzz/run.sh            # every target, a minute each (what .ci/run does)
#   Fuzz/run.sh 600 csv    # one target, ten minutes
set -uo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
shift || true
targets=("$@")
(( ${#targets[@]} )) || targets=(sortspec fractional csv cursor form escape filesort)
mkdir -p Fuzz/findings
status=0
for target in "${targets[@]}"; do
  echo "== fuzz-$target: building"
  swift build --sanitize=fuzzer --sanitize=address --product "fuzz-$target" --scratch-path .build-fuzz 2>&1 \
    | grep -E "error|warning: .*Sources/" ; (( PIPESTATUS[0] == 0 )) || { echo "== fuzz-$target: build failed"; status=1; continue; }
  # The corpus grows in a scratch copy; the committed seeds stay as they are.
  work=$(mktemp -d)
  cp -r "Fuzz/Corpus/$target/." "$work/"
  echo "== fuzz-$target: running ${seconds}s"
  if ! ASAN_OPTIONS=detect_leaks=0 .build-fuzz/debug/"fuzz-$target" -max_total_time="$seconds" -max_len=4096 -timeout=10 -detect_leaks=0 -rss_limit_mb=4096 \
       -artifact_prefix=Fuzz/findings/ -print_final_stats=1 "$work" > "Fuzz/findings/fuzz-$target.log" 2>&1; then
    echo "== fuzz-$target: FOUND A CRASH (Fuzz/findings/fuzz-$target.log):"
    grep -E "Fatal error|ERROR: |SUMMARY|Test unit written" "Fuzz/findings/fuzz-$target.log" | head -10
    status=1
  else
    echo "== fuzz-$target: $(grep -E '^stat::number_of_executed_units' "Fuzz/findings/fuzz-$target.log" | awk '{print $2}') inputs, no crash"
  fi
  rm -rf "$work"
done
exit $status
