#!/usr/bin/env python3
"""Generates Sources/SortKit/Collation/LocaleCollationData.swift: CLDR's root collation
(allkeys_CLDR.txt) and CLDR's tailorings (common/collation/*.xml), compiled into one compact
table of collation elements that `Collation.locale` reads at run time.

    apt-get install unicode-cldr-core && python3 Scripts/generate-collation-data.py

In three files: collation_root.py reads the root collation, collation_tailoring.py applies
CLDR's rules and reorderings to it, and this one reads the tailorings and writes the tables.

Why a generator of our own: no Swift package here implements the Unicode Collation Algorithm
with CLDR tailorings (Foundation's `localizedStandardCompare` does not exist on Linux, and
linking ICU would tie the binary to the system's ICU version). The rules are compiled here,
once, so the run time only looks weights up.

Weights. Root primaries are ranked densely (rank r has the weight r*256+128) so that a
tailoring can put up to 127 new primaries after and before every root primary; secondaries
and tertiaries are scaled by 128 (s*128+64) for the same reason. Reordering ([reorder Cyrl])
permutes the ranks of whole script groups.

Blob layout (little endian), base64 in the Swift file:
  "SKC1", u32 rootPrimaryCount, u32 rank of primary 0xFB00 (the implicit weights' leads),
  u32 the last variable primary (spaced: rank*256+255)
  root singles: u32 count, then per entry: u24 scalar, u8 n, n x CE
  root contractions: u32 count, then per entry: u8 m, m x u24 scalars, u8 n, n x CE
  names: u32 count, then per name: u8 len, tag (ASCII), u16 block
  blocks: u32 count, then per block:
    u8 flags (1: caseFirst upper, 2: backwards secondary, 4: alternate shifted), u16 runs, runs x (u16 from, u16 count, u16 to)
    u32 entries, per entry: u8 m, m x u24 scalars, u8 n, n x CE; or, for m = 0, a long list:
    u24 lead primary, u32 count, count x (u24 scalar, u24 trail primary), each scalar weighing
    (lead, common, common) (trail, 0, 0); or, for m = 255, a prefix context: u8 p, p x u24
    prefix scalars, then an entry as above (the text and its CEs), which applies when the text
    follows the prefix
  CE: u24 primary, u16 secondary, u16 tertiary (scaled weights as above; a primary with the
  top bit 0x800000 set is an implicit weight's trail, which reordering leaves alone)
"""
import base64
import os
import re
import struct
import sys
import unicodedata
import xml.etree.ElementTree as ET

from collation_root import *  # noqa: F403
from collation_tailoring import *  # noqa: F403

OUT = os.path.join(os.path.dirname(__file__), "..", "Sources", "SortKit", "Collation", "LocaleCollationData.swift")


# ---------------------------------------------------------------- CLDR files
CO_ALIASES = {"phonebk": "phonebook", "trad": "traditional", "dict": "dictionary", "gb2312": "gb2312han"}
SKIP_TYPES = {"search", "searchjl", "private-unihan", "emoji", "eor"}
SKIP_LANGUAGES = set()
SKIP_TYPES |= {"unihan", "big5han", "gb2312han"}


def locale_file(tag):
    name = tag.replace("-", "_")
    path = os.path.join(CLDR, "collation", name + ".xml")
    return path if os.path.exists(path) else None


def collations_of(path):
    tree = ET.parse(path)
    result = {}
    default = None
    for element in tree.iter("defaultCollation"):
        default = element.text
    for element in tree.iter("collation"):
        kind = element.get("type")
        if element.get("alt"):  # alt="proposed": not part of CLDR's data, as ICU builds it
            continue
        alias = element.find("alias")
        if alias is not None:
            m = re.search(r"@type='([^']+)'", alias.get("path"))
            result[kind] = ("alias", m.group(1))
            continue
        cr = element.find("cr")
        result[kind] = ("rules", cr.text if cr is not None and cr.text else "")
    return result, default


def rules_for(tag, kind, seen=()):
    path = locale_file(tag) if tag not in ("und", "root") else os.path.join(CLDR, "collation", "root.xml")
    if path is None:
        raise Unsupported("no file for " + tag)
    collations, default = collations_of(path)
    kind = kind or default or "standard"
    if kind not in collations:
        if kind == "standard":
            return ""
        raise Unsupported("no %s collation in %s" % (kind, tag))
    what, value = collations[kind]
    if what == "alias":
        return rules_for(tag, value, seen)
    return value


def build(tag, kind):
    tailoring = Tailoring()

    def importer(spec, into):
        base, _, rest = spec.partition("-u-co-")
        base = base.replace("_", "-")
        into.apply(rules_for("und" if base == "root" else base, rest or None), importer)

    tailoring.apply(rules_for(tag, kind), importer)
    return tailoring


def main():
    tailorings = []
    skipped = []
    files = sorted(os.listdir(os.path.join(CLDR, "collation")))
    for filename in files:
        if not filename.endswith(".xml"):
            continue
        tag = filename[:-4].replace("_", "-")
        if tag == "root":
            tag = "und"
        if tag.split("-")[0] in SKIP_LANGUAGES:
            skipped.append((tag, "CJK"))
            continue
        collations, default = collations_of(os.path.join(CLDR, "collation", filename))
        for kind in sorted(collations):
            if kind in SKIP_TYPES or kind.startswith("private") or "-" in kind:  # not BCP 47 -u-co- values
                continue
            try:
                tailoring = build(tag, kind)
                entries = tailoring.finish()
                runs, mapping = reorder_runs(tailoring.reorder) if tailoring.reorder else ([], None)
            except Unsupported as error:
                skipped.append((tag + "/" + kind, str(error)))
                continue
            entries.update(closure(entries))
            if mapping:
                entries = {k: [remap(ce, mapping) for ce in v] for k, v in entries.items()}
            contexts = tailoring.numbered_contexts
            if mapping:
                contexts = {k: [remap(ce, mapping) for ce in v] for k, v in contexts.items()}
            # Both spellings of prefix and text: the run time sees NFD text, or text of starters
            # as written (precomposed "が" before "ー").
            spelled = {}
            for (prefix, text), ces in contexts.items():
                for p in {prefix, nfc(prefix)}:
                    for t in {text, nfc(text)}:
                        spelled[(p, t)] = ces
            entries = dict(entries)
            entries.update({("ctx",) + k: v for k, v in spelled.items()})
            item = (flags_of(tailoring), runs, case_entries(tailoring, entries))
            if kind != "standard" or default not in (None, "standard"):
                tailorings.append((tag + "/" + kind, *item))
            if kind == (default or "standard"):
                tailorings.append((tag, *item))
    root_fixes = closure({})
    if root_fixes:
        sys.stderr.write("root: %d precomposed characters weigh otherwise than their NFD: added\n" % len(root_fixes))
        root_scaled.update(root_fixes)
    out = bytearray(b"SKC1")
    # The last variable primary (spaces and punctuation, CLDR's default maxVariable), spaced.
    out += struct.pack("<III", len(primaries), rank[0xFB00], rank[max(VARIABLE_PRIMARIES)] * 256 + 255)
    singles = sorted((k, v) for k, v in root_scaled.items() if len(k) == 1)
    contractions = sorted((k, v) for k, v in root_scaled.items() if len(k) > 1)
    out += struct.pack("<I", len(singles))
    for k, v in singles:
        out += k[0].to_bytes(3, "little") + bytes([len(v)])
        for ce in v:
            out += pack_ce(ce)
    out += struct.pack("<I", len(contractions))
    for k, v in contractions:
        out += entry(k, v)
    names = {}
    for name, upper, runs, entries in tailorings:
        names[name] = (upper, runs, entries)
    # One block per distinct tailoring ("zh" and "zh/pinyin" share theirs).
    blocks, block_of = [], {}
    for name in sorted(names):
        key = id(names[name][2])
        if key not in block_of:
            block_of[key] = len(blocks)
            blocks.append(names[name])
    out += struct.pack("<I", len(names))
    for name in sorted(names):
        out += bytes([len(name)]) + name.encode("ascii") + struct.pack("<H", block_of[id(names[name][2])])
    out += struct.pack("<I", len(blocks))
    for upper, runs, entries in blocks:
        out += bytes([upper])
        out += struct.pack("<H", len(runs))
        for r in runs:
            out += struct.pack("<HHH", *r)
        # Long lists (lead, trail) of single scalars are written as runs: 6 bytes an entry.
        long_lists = {}
        rest = {}
        contexts = [(k, v) for k, v in entries.items() if k[0] == "ctx"]
        entries = {k: v for k, v in entries.items() if k[0] != "ctx"}
        for k, v in entries.items():
            if (len(k) == 1 and len(v) == 2 and v[1][1:] == (0, 0) and v[1][0] & TRAIL
                    and v[0][1:] == (COMMON_S, COMMON_T + (CASE_LOWER_OFFSET if upper & 1 else 0))):
                long_lists.setdefault(v[0][0], []).append((k[0], v[1][0]))
            else:
                rest[k] = v
        out += struct.pack("<I", len(rest) + len(long_lists) + len(contexts))
        for (_, prefix, text), v in sorted(contexts):
            out += bytes([255]) + entry(prefix, [])[:-1] + entry(text, v)
        for k, v in sorted(rest.items()):
            out += entry(k, v)
        for lead, items in sorted(long_lists.items()):
            out += bytes([0]) + lead.to_bytes(3, "little") + struct.pack("<I", len(items))
            for scalar, trail in sorted(items):
                out += scalar.to_bytes(3, "little") + trail.to_bytes(3, "little")
    encoded = base64.b64encode(bytes(out)).decode("ascii")
    # Long lines keep the generated file short (a few hundred lines); nobody reads it by eye.
    lines = [encoded[i:i + 16_000] for i in range(0, len(encoded), 16_000)]
    with open(OUT, "w", encoding="utf-8") as f:
        f.write("// swift-format-ignore-file\n// Generated by Scripts/generate-collation-data.py — do not edit.\n//\n")
        f.write("// CLDR %s's root collation (common/uca/allkeys_CLDR.txt, UCA %s) and its tailorings\n" % (cldr_version(), "14.0.0"))
        f.write("// (common/collation/*.xml) for %d locales and variants. Unicode and CLDR data: © Unicode, Inc.,\n" % len(names))
        f.write("// under the Unicode License v3 (https://www.unicode.org/license.txt), which permits this use with this notice.\n\n")
        f.write("extension _LocaleCollationData {\n")
        f.write("    /// Tailorings compiled here, by tag (`TAG` or `TAG/type`).\n")
        f.write("    static let tags: [String] = [\n")
        quoted = ['"%s"' % name for name in sorted(names)]
        for i in range(0, len(quoted), 12):
            f.write("        " + ", ".join(quoted[i:i + 12]) + ",\n")
        f.write("    ]\n\n")
        f.write("    /// The compiled tables, base64 (see the generator for the layout).\n")
        f.write('    static let base64 = """\n')
        for line in lines:
            f.write("        " + line + "\n")
        f.write('        """\n}\n')
    sys.stderr.write("wrote %s: %d bytes of tables, %d tailorings\n" % (OUT, len(out), len(names)))
    for tag, why in skipped:
        sys.stderr.write("skipped %s: %s\n" % (tag, why))


UPPER_TERTIARIES = {0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0E, 0x11, 0x12, 0x1D}
CASE_MIXED_OFFSET = 5000
CASE_LOWER_OFFSET = 10000


def case_first(ce, scalars):
    """[caseFirst upper]: uppercase text sorts before mixed case before lowercase at the
    tertiary level. A tailored item's class is its text's (the run time gives the root's
    weights theirs by tertiary value)."""
    p, s, t = ce
    if not t:
        return ce
    text = "".join(chr(c) for c in scalars)
    if text != text.lower() and text == text.upper():
        return ce
    root_t = t >> 7
    if text == text.lower() and root_t in UPPER_TERTIARIES:
        return ce
    if text != text.lower():
        return (p, s, t + CASE_MIXED_OFFSET)
    return (p, s, t + CASE_LOWER_OFFSET)


DECOMPOSABLE = [c for c in range(0xC0, 0x30000)
                if not 0xAC00 <= c <= 0xD7A3 and unicodedata.combining(chr(c)) == 0
                and unicodedata.normalize("NFD", chr(c)) != chr(c)]


def closure(entries):
    """Canonical closure: the run time skips NFD for text whose scalars all have combining
    class 0, so a precomposed character must weigh what its decomposition does under the
    tailoring ("å" as the tailored "a" + U+030A). Returns the entries to add."""
    table = dict(root_scaled)
    table.update(entries)
    prefixes = {k[:j] for k in table if len(k) > 1 for j in range(2, len(k))}
    added = {}
    for c in DECOMPOSABLE:
        decomposed = nfd(chr(c))
        expected = ces_of(decomposed, table, prefixes)
        single = table.get((c,))
        if single is None:
            single = implicit(c)
        if expected != single:
            added[(c,)] = expected
    return added


def flags_of(tailoring):
    return (1 if tailoring.case_first_upper else 0) | (2 if tailoring.backwards else 0) | (4 if tailoring.shifted else 0)


def case_entries(tailoring, entries):
    if not tailoring.case_first_upper:
        return entries
    return {k: [case_first(ce, k[2] if k[0] == "ctx" else k) for ce in v] for k, v in entries.items()}


def remap(ce, mapping):
    p = ce[0]
    if p and not p & TRAIL:
        p = mapping[p >> 8] * 256 + (p & 0xFF)
    return (p, ce[1], ce[2])


def pack_ce(ce):
    p, s, t = ce
    assert 0 <= p < 1 << 24 and 0 <= s < 1 << 16 and 0 <= t < 1 << 16, ce
    return p.to_bytes(3, "little") + struct.pack("<HH", s, t)


def entry(scalars, ces):
    out = bytearray([len(scalars)])
    for c in scalars:
        out += c.to_bytes(3, "little")
    out.append(len(ces))
    for ce in ces:
        out += pack_ce(ce)
    return out


def cldr_version():
    path = os.path.join(CLDR, "..", "..", "cldr", "common", "dtd", "ldml.dtd")
    try:
        text = open(path, encoding="utf-8").read()
        m = re.search(r'cldrVersion CDATA #FIXED "([0-9.]+)"', text)
        return m.group(1) if m else "41"
    except OSError:
        return "41"


if __name__ == "__main__":
    main()
