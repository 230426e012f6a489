#!/bin/bash
# Regenerates Sources/SortKit/Collation/UnicodeTables.swift from Debian's unicode-data package
# (CaseFolding.txt and allkeys.txt) and the Swift standard library's Unicode data.
#   apt-get install unicode-data && Scripts/generate-unicode-tables.sh
set -euo pipefail
cd "$(dirname "$0")/.."
data=${UNICODE_DATA:-/usr/share/unicode}
for file in CaseFolding.txt allkeys.txt; do
  [[ -f $data/$file ]] || { echo "missing $data/$file (apt-get install unicode-data)" >&2; exit 2; }
done
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
swiftc -O -o "$work/generate" Scripts/generate-unicode-tables.swift
"$work/generate" "$data/CaseFolding.txt" "$data/allkeys.txt" > "$work/UnicodeTables.swift"
mv "$work/UnicodeTables.swift" Sources/SortKit/Collation/UnicodeTables.swift
echo "wrote Sources/SortKit/Collation/UnicodeTables.swift"
