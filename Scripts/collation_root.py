"""The root collation for Scripts/generate-collation-data.py: CLDR's allkeys_CLDR.txt read into
`root` (scalars to collation elements), the variable primaries, the implicit weights of
ideographs and unassigned scalars, and the collation elements of a string (NFD, longest
contractions first). Loaded when imported."""

import base64
import os
import re
import struct
import sys
import unicodedata
import xml.etree.ElementTree as ET

CLDR = os.environ.get("CLDR_DATA", "/usr/share/unicode/cldr/common")

TRAIL = 0x800000
COMMON_S = 0x20 * 128 + 64
COMMON_T = 0x02 * 128 + 64


def fail(message):
    sys.stderr.write(message + "\n")
    sys.exit(2)


# ---------------------------------------------------------------- root
root = {}
for line in open(os.path.join(CLDR, "uca", "allkeys_CLDR.txt"), encoding="utf-8"):
    line = line.split("#")[0].strip()
    if not line or line.startswith("@"):
        continue
    left, right = line.split(";")
    scalars = tuple(int(x, 16) for x in left.split())
    ces = [tuple(int(w, 16) for w in m) for m in re.findall(r"\[[.*]([0-9A-F]{4})\.([0-9A-F]{4})\.([0-9A-F]{4})\]", right)]
    if len(scalars) > 1:
        # Contractions are matched against NFD text: "0FB2 0F81" is "0FB2 0F71 0F80".
        scalars = tuple(ord(c) for c in unicodedata.normalize("NFD", "".join(map(chr, scalars))))
        if scalars in root:
            continue
    root[scalars] = ces


VARIABLE_PRIMARIES = set()
for line in open(os.path.join(CLDR, "uca", "allkeys_CLDR.txt"), encoding="utf-8"):
    VARIABLE_PRIMARIES.update(int(p, 16) for p in re.findall(r"\[\*([0-9A-F]{4})\.", line))


def is_trail(ces, k):
    """An implicit weight's second CE, written out in the table (parenthesized ideographs)."""
    return k > 0 and 0xFB00 <= ces[k - 1][0] < 0xFC00 and ces[k][1] == 0 and ces[k][2] == 0


primaries = sorted({ce[0] for ces in root.values() for k, ce in enumerate(ces) if ce[0] and not is_trail(ces, k)}
                   | set(range(0xFB00, 0xFC00)))
rank = {p: i + 1 for i, p in enumerate(primaries)}


def scaled_list(ces):
    out = []
    for k, (p, s, t) in enumerate(ces):
        if is_trail(ces, k):
            out.append((TRAIL | p, 0, 0))
        else:
            out.append((rank[p] * 256 + 128 if p else 0, s * 128 + 64 if s else 0, t * 128 + 64 if t else 0))
    return out


root_scaled = {k: scaled_list(v) for k, v in root.items()}

HAN_CORE = [(0x4E00, 0x9FFF), (0xF900, 0xFAFF)]


def unified_ideographs():
    ranges = []
    for line in open("/usr/share/unicode/PropList.txt", encoding="utf-8"):
        if "Unified_Ideograph" not in line:
            continue
        field = line.split(";")[0].strip()
        lo, _, hi = field.partition("..")
        lo = int(lo, 16)
        hi = int(hi, 16) if hi else lo
        # Unicode 14 (CLDR 41's UCA): leave out what Unicode 15 added.
        for c in range(lo, hi + 1):
            if unicodedata.category(chr(c)) != "Cn":
                ranges.append(c)
    return set(ranges)


IDEOGRAPHS = unified_ideographs()


def implicit(c):
    if 0x17000 <= c <= 0x18AFF or 0x18D00 <= c <= 0x18D8F:
        base, trail = 0xFB00, c - 0x17000
    elif 0x1B170 <= c <= 0x1B2FF:
        base, trail = 0xFB01, c - 0x1B170
    elif 0x18B00 <= c <= 0x18CFF:
        base, trail = 0xFB02, c - 0x18B00
    else:
        core = any(lo <= c <= hi for lo, hi in HAN_CORE)
        if c in IDEOGRAPHS:
            base = (0xFB40 if core else 0xFB80) + (c >> 15)
        else:
            base = 0xFBC0 + (c >> 15)
        trail = c & 0x7FFF
    return [(rank[base] * 256 + 128, COMMON_S, COMMON_T), (TRAIL | trail | 0x8000, 0, 0)]


# ---------------------------------------------------------------- computing CEs of a string
def nfc(scalars):
    return tuple(ord(ch) for ch in unicodedata.normalize("NFC", "".join(map(chr, scalars))))


def nfd(text):
    return tuple(ord(ch) for ch in unicodedata.normalize("NFD", text))


def ces_of(scalars, table, prefixes):
    """UCA S2 as the run time does it: the longest contiguous match, then unblocked
    non-starters that extend it (discontiguous), implicit weights for the rest."""
    out = []
    i = 0
    n = len(scalars)
    skipped = set()
    while i < n:
        if i in skipped:
            i += 1
            continue
        key = (scalars[i],)
        best = table.get(key)
        end = i + 1
        j = i + 1
        probe = key
        while j < n and j not in skipped:
            probe = probe + (scalars[j],)
            if probe in table:
                best, end, key = table[probe], j + 1, probe
            elif probe not in prefixes:
                break
            j += 1
        last_class, k, matched = 0, end, False
        while k < n:
            cc = unicodedata.combining(chr(scalars[k]))
            if cc == 0:
                break
            if k in skipped:
                k += 1
                continue
            if last_class < cc and key + (scalars[k],) in table:
                key = key + (scalars[k],)
                best = table[key]
                if k == end and not matched:
                    end = k + 1
                else:
                    skipped.add(k)
                    matched = True
                k += 1
                continue
            last_class = max(last_class, cc)
            k += 1
        out.extend(best if best is not None else implicit(scalars[i]))
        i = end
    return out
