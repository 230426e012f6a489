// Writes Sources/SortKit/Collation/UnicodeTables.swift: the two tables SortKit's folding
// collations use. Run by Scripts/generate-unicode-tables.sh; the inputs are Debian's
// unicode-data package (`apt-get install unicode-data`).
//
// 1. Full case folding: CaseFolding.txt's C and F mappings, plus, for scalars that Unicode
//    added after that file's version, the simple lowercase mapping of the Swift standard
//    library (whose Unicode is newer: 17.0 with Swift 6.3). Every case pair Unicode 16 and 17 added
//    folds that way.
// 2. Root-collation letters: the Latin letters that the root collation (DUCET, allkeys.txt)
//    gives the primary weights of other Latin letters without a canonical decomposition
//    saying so — Æ → ae, Ø → o, Ł → l, Ð → d, ǆ → dz — computed here, so `folded` equals what
//    ICU's root collation at primary strength says of Latin text.
import Foundation

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write("usage: generate-unicode-tables CaseFolding.txt allkeys.txt > UnicodeTables.swift\n".data(using: .utf8)!)
    exit(2)
}
let caseFoldingText = try String(contentsOfFile: arguments[1], encoding: .utf8)
let allKeysText = try String(contentsOfFile: arguments[2], encoding: .utf8)

func hex(_ value: UInt32) -> String { String(value, radix: 16, uppercase: true) }

// MARK: Case folding

var folding: [UInt32: [UInt32]] = [:]
var caseFoldingVersion = "?"
for line in caseFoldingText.split(separator: "\n", omittingEmptySubsequences: false) {
    if line.hasPrefix("# CaseFolding-"), line.hasSuffix(".txt") { caseFoldingVersion = String(line.dropFirst(14).dropLast(4)) }
    let fields = line.split(separator: "#", maxSplits: 1)[...].first.map { $0.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) } } ?? []
    guard fields.count >= 3, fields[1] == "C" || fields[1] == "F" else { continue }
    let source = UInt32(fields[0], radix: 16)!
    folding[source] = fields[2].split(separator: " ").map { UInt32($0, radix: 16)! }
}
let fileVersion = caseFoldingVersion.split(separator: ".").compactMap { Int($0) }
precondition(fileVersion.count >= 2, "no version line in CaseFolding.txt")
/// Whether Unicode added the scalar after CaseFolding.txt's version.
func isNewer(_ scalar: Unicode.Scalar) -> Bool {
    guard let age = scalar.properties.age else { return false }
    return (age.major, age.minor) > (fileVersion[0], fileVersion[1])
}
var added = 0
for value in UInt32(0)...0x10FFFF {
    guard let scalar = Unicode.Scalar(value), folding[value] == nil, isNewer(scalar), scalar.properties.changesWhenCaseFolded else { continue }
    let lower = scalar.properties.lowercaseMapping.unicodeScalars.map(\.value)
    guard lower != [value] else { continue }
    folding[value] = lower
    added += 1
}

/// A scalar's full case folding (itself if it has none).
func fold(_ scalar: Unicode.Scalar) -> [Unicode.Scalar] {
    folding[scalar.value].map { $0.map { Unicode.Scalar($0)! } } ?? [scalar]
}

/// Case folded, canonically decomposed, nonspacing marks removed: `folded` before the table.
func foldedWithoutMarks(_ text: String) -> String {
    var folded = String.UnicodeScalarView()
    for scalar in text.decomposedStringWithCanonicalMapping.unicodeScalars { folded.append(contentsOf: fold(scalar)) }
    var result = String.UnicodeScalarView()
    for scalar in String(folded).decomposedStringWithCanonicalMapping.unicodeScalars where scalar.properties.generalCategory != .nonspacingMark {
        result.append(scalar)
    }
    return String(result).precomposedStringWithCanonicalMapping
}

// MARK: Root-collation letters

var primaries: [UInt32: [Int]] = [:]
var allKeysVersion = "?"
for line in allKeysText.split(separator: "\n") {
    if line.hasPrefix("@version ") { allKeysVersion = String(line.dropFirst(9)) }
    guard let semicolon = line.firstIndex(of: ";") else { continue }
    let code = line[..<semicolon].split(separator: " ")
    guard code.count == 1, let value = UInt32(code[0], radix: 16) else { continue }
    var weights: [Int] = []
    var rest = line[semicolon...]
    while let open = rest.firstIndex(of: "[") {
        let body = rest[rest.index(open, offsetBy: 2)...].prefix { $0 != "." }
        if let primary = Int(body, radix: 16), primary != 0 { weights.append(primary) }
        rest = rest[rest.index(after: open)...]
    }
    primaries[value] = weights
}
var letterOfPrimary: [Int: Character] = [:]
for letter in "abcdefghijklmnopqrstuvwxyz" {
    let weights = primaries[letter.unicodeScalars.first!.value]!
    precondition(weights.count == 1)
    letterOfPrimary[weights[0]] = letter
}
let latinRanges: [ClosedRange<UInt32>] = [0x00C0...0x024F, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F]
var rootLetters: [UInt32: String] = [:]
for range in latinRanges {
    for value in range {
        guard let scalar = Unicode.Scalar(value), scalar.properties.isAlphabetic, let weights = primaries[value], !weights.isEmpty else { continue }
        let letters = weights.compactMap { letterOfPrimary[$0] }
        guard letters.count == weights.count else { continue }
        let root = String(letters)
        // Only a letter whose own fold stays one non-ASCII letter, and only in its folded form:
        // the table applies after case folding.
        let folded = foldedWithoutMarks(String(scalar))
        guard folded != root, folded.unicodeScalars.count == 1, let key = folded.unicodeScalars.first, key.value >= 0x80 else { continue }
        if let earlier = rootLetters[key.value] { precondition(earlier == root, "\(hex(value)): \(earlier) vs \(root)") }
        rootLetters[key.value] = root
    }
}

// MARK: Output

func encode(_ table: [UInt32: String]) -> String {
    table.keys.sorted().map { key in hex(key) + ":" + table[key]!.unicodeScalars.map { hex($0.value) }.joined(separator: " ") }
        .joined(separator: ";")
}
func wrapped(_ text: String) -> String {
    var lines: [String] = []
    var line = ""
    for entry in text.split(separator: ";") {
        if line.count + entry.count > 96 {
            lines.append(line)
            line = ""
        }
        line += entry + ";"
    }
    if !line.isEmpty { lines.append(line) }
    return lines.map { "        " + $0 }.joined(separator: "\n")
}
let foldingTable = folding.mapValues { String(String.UnicodeScalarView($0.map { Unicode.Scalar($0)! })) }

print("""
    // swift-format-ignore-file
    // Generated by Scripts/generate-unicode-tables.sh — do not edit.
    //
    // From the Unicode Character Database: CaseFolding.txt \(caseFoldingVersion) (C and F mappings) with
    // \(added) case pairs of later Unicode versions from the Swift standard library's lowercase mappings,
    // and the Latin letters that allkeys.txt \(allKeysVersion) (the root collation) weighs as other letters at
    // primary strength. Unicode data: © Unicode, Inc., under the Unicode License v3
    // (https://www.unicode.org/license.txt), which permits this use with this notice.

    extension _UnicodeTables {
        /// Full case folding: `SOURCE:TARGET TARGET…;` in hexadecimal, sources ascending.
        static let caseFoldingData = \"\"\"
    \(wrapped(encode(foldingTable)))
            \"\"\"

        /// Case-folded Latin letters the root collation weighs as other letters: `SOURCE:TARGET…;`.
        static let rootLetterData = \"\"\"
    \(wrapped(encode(rootLetters)))
            \"\"\"
    }
    """)
