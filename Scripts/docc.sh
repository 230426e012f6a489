#!/bin/bash
# Builds the DocC documentation of every module from the debug build's modules (run `swift build`
# or `swift test` first), with warnings as errors: a broken symbol link, an undocumented parameter
# or an ambiguous reference fails. .ci/run runs it after the tests.
#   usage: Scripts/docc.sh [OUTPUT_DIR] [MODULE...]      (default: a temporary folder, every module)
# Symbol graphs come from swift-symbolgraph-extract (no docc plugin to resolve); C modules the
# Swift ones import are found through the module maps of the build and of the checkouts.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-$(mktemp -d /tmp/sortkit-docc.XXXXXX)}
shift || true
modules=("${@:-SortKitShared SortKit SortKitFiles OrderKeys SortBy DataTableKit SortKitSQL DataTableKitSQL SortKitServer}")
read -r -a modules <<<"${modules[*]}"
bin=$(swift build --show-bin-path)
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
maps=()
while IFS= read -r map; do maps+=(-Xcc "-fmodule-map-file=$map"); done < <(
  find "$bin" -maxdepth 2 -name module.modulemap; find .build/checkouts -path '*/Sources/*' -name module.modulemap)
status=0
for module in "${modules[@]}"; do
  graphs="$out/symbol-graphs/$module"
  mkdir -p "$graphs"
  # SortKitShared is internal to the package: its documentation is of its package declarations.
  level=public; [ "$module" = SortKitShared ] && level=package
  swift-symbolgraph-extract -module-name "$module" -I "$bin/Modules" -target "$triple" "${maps[@]}" \
    -output-dir "$graphs" -minimum-access-level "$level" -emit-extension-block-symbols
  if docc convert "Sources/$module/Documentation.docc" --additional-symbol-graph-dir "$graphs" \
      --output-path "$out/$module.doccarchive" --fallback-display-name "$module" \
      --fallback-bundle-identifier "org.sortkit.$module" --warnings-as-errors >"$out/$module.log" 2>&1; then
    echo "== DocC $module: no warnings"
  else
    echo "== DocC $module: FAILED"; grep -E -A8 '^(warning|error):' "$out/$module.log" | head -60
    status=1
  fi
done
echo "== DocC archives in $out"
exit $status
