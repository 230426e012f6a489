"""Tailoring rules and script reordering for Scripts/generate-collation-data.py: CLDR's rule
syntax tokenized and applied to the root (`Tailoring`), and the root primaries' script groups
permuted for `[reorder …]`."""

import re
import sys
import unicodedata

from collation_root import *  # noqa: F403 (the root table and its helpers, as one namespace)


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
