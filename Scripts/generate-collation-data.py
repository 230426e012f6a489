#!/usr/bin/env python3
"""Generates Sources/SortKit/Collation/LocaleCollationData.swift: CLDR's root collation
(allkeys_CLDR.txt) and CLDR's tailorings (common/collation/*.xml), compiled into one compact
table of collation elements that `Collation.locale` reads at run time.

    apt-get install unicode-cldr-core && python3 Scripts/generate-collation-data.py

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

CLDR = os.environ.get("CLDR_DATA", "/usr/share/unicode/cldr/common")
OUT = os.path.join(os.path.dirname(__file__), "..", "Sources", "SortKit", "Collation", "LocaleCollationData.swift")

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


# ---------------------------------------------------------------- tailoring rules
class Node:
    def __init__(self, container):
        self.container = container


def tokenize(rules):
    tokens = []
    i = 0
    n = len(rules)
    text = []

    def flush():
        if text:
            tokens.append(("str", "".join(text)))
            text.clear()

    while i < n:
        ch = rules[i]
        if ch.isspace() or ch in "\u200e\u200f":
            flush()
            i += 1
        elif ch == "#":
            flush()
            while i < n and rules[i] != "\n":
                i += 1
        elif ch == "[":
            flush()
            depth, j = 0, i
            while j < n:
                if rules[j] == "[":
                    depth += 1
                elif rules[j] == "]":
                    depth -= 1
                    if depth == 0:
                        break
                j += 1
            tokens.append(("opt", rules[i + 1:j]))
            i = j + 1
        elif ch == "&":
            flush()
            tokens.append(("reset", None))
            i += 1
        elif ch in "<=":
            flush()
            if ch == "=":
                level, i = 3, i + 1
            else:
                j = i
                while j < n and rules[j] == "<":
                    j += 1
                level = j - i - 1
                i = j
            star = i < n and rules[i] == "*"
            if star:
                i += 1
            tokens.append(("rel", (level, star)))
        elif ch == "/":
            flush()
            tokens.append(("ext", None))
            i += 1
        elif ch == "|":
            flush()
            tokens.append(("ctx", None))
            i += 1
        elif ch == "'":
            j = i + 1
            if j < n and rules[j] == "'":
                text.append("'")
                i = j + 1
                continue
            while j < n and rules[j] != "'":
                if rules[j] == "\\" and rules[j + 1] == "u":
                    text.append(chr(int(rules[j + 2:j + 6], 16)))
                    j += 6
                    continue
                text.append(rules[j])
                j += 1
            i = j + 1
        elif ch == "\\":
            if rules[i + 1] == "u":
                text.append(chr(int(rules[i + 2:i + 6], 16)))
                i += 6
            elif rules[i + 1] == "U":
                text.append(chr(int(rules[i + 2:i + 10], 16)))
                i += 10
            elif rules[i + 1] == "x":
                j = rules.index("}", i)
                text.append(chr(int(rules[i + 3:j], 16)))
                i = j + 1
            else:
                text.append(rules[i + 1])
                i += 2
        else:
            text.append(ch)
            i += 1
    flush()
    return tokens


class Unsupported(Exception):
    pass


class Tailoring:
    def __init__(self):
        self.table = dict(root_scaled)
        self.prefixes = {k[:j] for k in root_scaled if len(k) > 1 for j in range(2, len(k))}
        self.entries = {}
        self.contexts = {}
        self.after = {}
        self.before = {}
        self.case_first_upper = False
        self.backwards = False
        self.shifted = False
        self.reorder = []

    def ces(self, scalars):
        return ces_of(scalars, self.table, self.prefixes)

    def set(self, scalars, ces):
        self.table[scalars] = ces
        self.entries[scalars] = ces
        for j in range(2, len(scalars)):
            self.prefixes.add(scalars[:j])

    @staticmethod
    def ident(w):
        return id(w) if isinstance(w, Node) else w

    def context(self, ce, level):
        return (level,) + tuple(self.ident(w) for w in ce[:level])

    def insert(self, ce, level, before):
        w = ce[level]
        node = Node(None)
        if isinstance(w, Node):
            index = w.container.index(w)
            w.container.insert(index if before else index + 1, node)
            node.container = w.container
        else:
            key = self.context(ce, level) + (w,)
            if before:
                container = self.before.setdefault(key, [])
                container.append(node)
            else:
                container = self.after.setdefault(key, [])
                container.insert(0, node)
            node.container = container
        return node

    def apply(self, rules, importer):
        tokens = tokenize(rules)
        anchor = None  # the CEs the next relation is relative to
        before_level = None
        i = 0
        while i < len(tokens):
            kind, value = tokens[i]
            if kind == "opt":
                words = value.split()
                if words[0] == "import":
                    for tag in words[1:]:
                        importer(tag, self)
                elif words[0] == "caseFirst" and words[1] == "upper":
                    self.case_first_upper = True
                elif words[0] == "backwards" and words[1] == "2":
                    self.backwards = True
                elif words[0] == "alternate" and words[1] == "shifted":
                    self.shifted = True
                elif words[0] == "reorder":
                    self.reorder = words[1:]
                elif words[0] in ("normalization", "strength", "suppressContractions", "optimize"):
                    pass
                else:
                    raise Unsupported("option [" + value + "]")
                i += 1
            elif kind == "reset":
                i += 1
                before_level = None
                if tokens[i][0] == "opt":
                    words = tokens[i][1].split()
                    if words[0] == "before":
                        before_level = int(words[1]) - 1
                        i += 1
                    elif tokens[i][1] == "last primary ignorable":
                        # Secondary relations after it make secondary-only weights above every
                        # combining mark's (Zhuyin's tone marks).
                        last = max(ce[1] for ces in root.values() for ce in ces if ce[0] == 0 and ce[1])
                        anchor = [(0, last * 128 + 64, COMMON_T)]
                        i += 1
                        continue
                    elif tokens[i][1] in ("last secondary ignorable", "last tertiary ignorable"):
                        # Relations after these make tertiary-only weights (Arabic vowel marks)
                        # or, with "=", ignorable ones: the anchor is the all-zero element.
                        anchor = [(0, 0, 0)]
                        i += 1
                        continue
                    elif tokens[i][1] == "last regular":
                        # After the last regular primary is before the implicit weights'
                        # first lead: there, in Han's reordering group, as ICU places it.
                        anchor = [(rank[0xFB00] * 256 + 128, COMMON_S, COMMON_T)]
                        before_level = 0
                        i += 1
                        continue
                    else:
                        raise Unsupported("reset [" + tokens[i][1] + "]")
                if tokens[i][0] != "str":
                    raise Unsupported("reset without text")
                anchor = list(self.ces(nfd(tokens[i][1])))
                i += 1
            elif kind == "rel":
                level, star = value
                i += 1
                prefix_context = None
                if i + 1 < len(tokens) and tokens[i + 1][0] == "ctx":
                    prefix_context = tokens[i][1]
                    i += 2
                if tokens[i][0] != "str":
                    raise Unsupported("relation without text")
                text = tokens[i][1]
                i += 1
                extension = None
                if i < len(tokens) and tokens[i][0] == "ext":
                    extension = tokens[i + 1][1]
                    i += 2
                items = [text]
                if star:
                    items = []
                    chars = list(text)
                    k = 0
                    while k < len(chars):
                        if k + 2 < len(chars) and chars[k + 1] == "-":
                            for c in range(ord(chars[k]), ord(chars[k + 2]) + 1):
                                items.append(chr(c))
                            k += 3
                        else:
                            items.append(chars[k])
                            k += 1
                for item in items:
                    anchor = self.relate(anchor, level, item, extension, before_level, prefix_context)
                    before_level = None
            else:
                raise Unsupported("token " + kind)

    def relate(self, anchor, level, text, extension, before_level, prefix=None):
        if anchor is None:
            raise Unsupported("relation before a reset")
        last = anchor[-1]
        if level == 3:
            new = last
        else:
            if before_level is not None and before_level != level:
                raise Unsupported("[before] with another level")
            if last[level] == 0 and level > 0 and not (level == 2 and last == (0, 0, 0)):
                raise Unsupported("relation to an ignorable weight")
            node = self.insert(last, level, before_level is not None)
            if level == 0:
                new = (node, COMMON_S, COMMON_T)
            elif level == 1:
                new = (last[0], node, COMMON_T)
            else:
                new = (last[0], last[1], node)
        ces = list(anchor[:-1]) + [new]
        if extension:
            ces += self.ces(nfd(extension))
        scalars = nfd(text)
        if prefix is None:
            self.set(scalars, ces)
        else:
            # A prefix context ("ぁ|ー": the long vowel mark after small a): kept apart, and
            # matched by the run time against the scalars before.
            self.contexts[(nfd(prefix), scalars)] = ces
        # The next relation is relative to this item's position, not its extension.
        return list(anchor[:-1]) + [new]

    def finish(self):
        """Numbers the tailored weights; returns the entries with integer weights."""
        values = {}
        for key, container in list(self.after.items()) + list(self.before.items()):
            if key[0] == 0 and len(container) > 127:
                # A long list (the Chinese orders' 41,000 ideographs after one point): each gets
                # two weights, a lead next to the point and the item's index as a trail.
                lead = key[-1] + 1 if key in self.after and self.after[key] is container else key[-1] - 1
                for index, node in enumerate(container):
                    values[id(node)] = (lead, TRAIL | (index + 1))
                container.clear()
            elif key[0] == 1 and len(container) > 63:
                # The same at the secondary level (Korean: 350 Hanja after syllables that end in
                # one vowel): a lead, then a secondary-only element with the index, above every
                # other secondary weight (a lead is always followed by its trail).
                lead = key[-1] + 1 if key in self.after and self.after[key] is container else key[-1] - 1
                for index, node in enumerate(container):
                    values[id(node)] = (lead, 0xC000 + index + 1)
                container.clear()
        for key, container in self.after.items():
            base, level = key[-1], key[0]
            if key == (2, 0, 0, 0):
                # Tertiary-only weights ([last secondary ignorable] <<< x, Arabic vowel marks)
                # sort above every other tertiary weight, as ICU's do.
                base = 0x1F * 128
            limit = 127 if level == 0 else 63
            if len(container) > limit:
                raise Unsupported("%d weights after one root weight" % len(container))
            for index, node in enumerate(container):
                values[id(node)] = base + 1 + index
        for key, container in self.before.items():
            base, level = key[-1], key[0]
            limit = 127 if level == 0 else 63
            if len(container) > limit:
                raise Unsupported("%d weights before one root weight" % len(container))
            for index, node in enumerate(container):
                values[id(node)] = base - len(container) + index
        # Nodes inserted next to other nodes live in their containers: numbered above.

        def number(w):
            return values[id(w)] if isinstance(w, Node) else w

        def elements(ces):
            out = []
            for ce in ces:
                p, s, t = (number(w) for w in ce)
                if isinstance(p, tuple):
                    out += [(p[0], s, t), (p[1], 0, 0)]
                elif isinstance(s, tuple):
                    out += [(p, s[0], t), (0, s[1], 0)]
                else:
                    out.append((p, s, t))
            return out

        self.numbered_contexts = {k: elements(v) for k, v in self.contexts.items()}
        return {k: elements(v) for k, v in self.entries.items()}


# ---------------------------------------------------------------- reordering
SCRIPT_OF = {}


def load_scripts():
    for line in open("/usr/share/unicode/Scripts.txt", encoding="utf-8"):
        line = line.split("#")[0].strip()
        if not line:
            continue
        field, name = [x.strip() for x in line.split(";")]
        lo, _, hi = field.partition("..")
        for c in range(int(lo, 16), int(hi or lo, 16) + 1):
            SCRIPT_OF[c] = name


load_scripts()
ALIASES = {}
for line in open("/usr/share/unicode/PropertyValueAliases.txt", encoding="utf-8"):
    parts = [x.strip() for x in line.split("#")[0].split(";")]
    if len(parts) >= 3 and parts[0] == "sc":
        ALIASES[parts[1]] = parts[2]
        ALIASES[parts[2]] = parts[2]
# Scripts that sort as one group with another (UCA: Hira/Kana, Hani/Bopo are separate).
SPECIAL = {"space", "punct", "symbol", "currency", "digit"}


def group_of_rank():
    """Each root primary's reordering group: a special group or a script name (from the
    scalars weighed with it, Common and Inherited ones aside: U+00B5 MICRO SIGN shares
    Greek mu's primary)."""
    groups = {}
    for scalars, ces in sorted(root.items()):
        if len(scalars) != 1:
            continue
        c = scalars[0]
        for ce in ces[:1]:
            p = ce[0]
            if not p or p not in rank:
                continue
            r = rank[p]
            if r in groups and groups[r] not in ("Common", "Inherited"):
                continue
            cat = unicodedata.category(chr(c))
            if cat == "Zs" or c in (0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x85, 0x2028, 0x2029):
                group = "space"
            elif cat.startswith("P"):
                group = "punct"
            elif cat == "Sc":
                group = "currency"
            elif cat.startswith("S"):
                group = "symbol"
            elif cat == "Nd" or (cat.startswith("N") and p < rank_first_letter):
                group = "digit"
            else:
                group = SCRIPT_OF.get(c, "Unknown")
            if r not in groups or group not in ("Common", "Inherited"):
                groups[r] = group
    return groups


first_letter_primary = root[(ord("a"),)][0][0]
rank_first_letter = first_letter_primary
GROUPS = None


def reorder_runs(codes):
    """The rank permutation for [reorder codes] as runs (from, count, to)."""
    global GROUPS
    if GROUPS is None:
        GROUPS = group_of_rank()
    count = len(primaries) + 1
    # Group every rank: ranks without a single-scalar entry take their predecessor's group.
    ordered = []
    current = "space"
    first_letter = rank[first_letter_primary]
    for r in range(1, count):
        g = GROUPS.get(r)
        if r < first_letter:
            g = "special"
        elif g is None or g in SPECIAL or g in ("Common", "Inherited"):
            g = current
        current = g
        ordered.append((r, g))
    wanted = []
    for code in codes:
        if code in ("others", "Zzzz"):
            wanted.append("others")
            continue
        if code in ("space", "punct", "symbol", "currency", "digit"):
            continue
        name = ALIASES.get(code)
        if name is None:
            raise Unsupported("reorder code " + code)
        wanted.append(name)
        if name == "Han":
            wanted.append("Bopomofo")
        if name in ("Hiragana", "Katakana"):
            wanted += ["Hiragana", "Katakana"]
    if "others" not in wanted:
        wanted.append("others")
    positions = {g: k for k, g in enumerate(wanted)}
    implicit_ranks = {rank[p] for p in range(0xFB00, 0xFC00)}

    def order(item):
        r, g = item
        if g == "special":
            return (-1, r)
        if r in implicit_ranks:
            g = "Han" if primaries[r - 1] < 0xFBC0 else "Unknown"
        return (positions.get(g, positions["others"]), r)

    new_order = sorted(ordered, key=order)
    mapping = {}
    for new_index, (r, _) in enumerate(new_order):
        mapping[r] = new_index + 1
    runs = []
    for r in range(1, count):
        to = mapping[r]
        if runs and runs[-1][0] + runs[-1][1] == r and runs[-1][2] + runs[-1][1] == to:
            runs[-1][1] += 1
        else:
            runs.append([r, 1, to])
    return [tuple(x) for x in runs if x[0] != x[2]], mapping


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
