/// Display width of text in a terminal, in cells: East Asian wide and fullwidth characters and
/// emoji take 2, combining marks and zero-width characters 0, everything else 1 — counted per
/// grapheme cluster, so "e\u{301}" is 1 and a flag or family emoji is 2.
///
///     TerminalWidth.of("abc")      // 3
///     TerminalWidth.of("日本")     // 4
///     TerminalWidth.of("e\u{301}") // 1
///     TerminalWidth.of("👍🏽")       // 2
public enum TerminalWidth {
    /// The width of `text`.
    public static func of(_ text: String) -> Int {
        // Printable ASCII is one cell a byte: no grapheme breaking needed.
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text.utf8.count }
        var width = 0
        for character in text { width += of(character) }
        return width
    }

    /// The width of one grapheme cluster. A control character counts as what ``printable(_:)``
    /// shows for it (one cell), so widths measured on raw text fit the text as drawn.
    public static func of(_ character: Character) -> Int {
        if character.isASCII { return 1 }
        var scalars = character.unicodeScalars.makeIterator()
        guard let first = scalars.next() else { return 0 }
        let properties = first.properties
        if properties.generalCategory == .nonspacingMark || properties.generalCategory == .enclosingMark
            || properties.generalCategory == .format || first.value == 0x200B
        {
            return 0
        }
        if properties.isEmojiPresentation || character.unicodeScalars.contains(where: { $0.value == 0xFE0F })
            || (first.properties.isEmoji && character.unicodeScalars.count > 1)
        {
            return 2
        }
        return isWide(first.value) ? 2 : 1
    }

    /// `text` as a terminal may be sent it: nothing in it acts on the terminal. Line breaks
    /// (LF, CR, CRLF, VT, FF, NEL, U+2028, U+2029) and tabs become one space; other C0
    /// controls their Control Pictures (ESC → ␛), DEL ␡, C1 controls (an 8-bit CSI among them)
    /// U+FFFD; bidi embeddings, overrides and isolates, which could move the table's frame,
    /// are dropped. Works on scalars: a control that a mark joins into a grapheme cluster is
    /// replaced too. ``of(_:)-(String)`` of the result equals ``of(_:)-(String)`` of `text`.
    ///
    ///     TerminalWidth.printable("\u{1B}]0;pwned\u{07}")   // "␛]0;pwned␇"
    ///     TerminalWidth.printable("line 1\r\nline 2")      // "line 1 line 2"
    public static func printable(_ text: String) -> String {
        // Most text has no control: returned as it is (printable ASCII judged by its bytes).
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) || !text.unicodeScalars.contains(where: needsReplacing) { return text }
        var result = String.UnicodeScalarView()
        var previous: Unicode.Scalar?
        for scalar in text.unicodeScalars {
            defer { previous = scalar }
            switch scalar.value {
            case 0x0A where previous == "\r": continue // CRLF: one space, already written for the CR
            case 0x0A, 0x0D, 0x0B, 0x0C, 0x09, 0x85, 0x2028, 0x2029: result.append(" ")
            case 0x00..<0x20: result.append(Unicode.Scalar(0x2400 + scalar.value)!)
            case 0x7F: result.append("\u{2421}")
            case 0x80..<0xA0: result.append("\u{FFFD}")
            case 0x202A...0x202E, 0x2066...0x2069: continue
            default: result.append(scalar)
            }
        }
        return String(result)
    }

    private static func needsReplacing(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00..<0x20, 0x7F..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }

    /// East Asian Wide (W) and Fullwidth (F) ranges.
    static func isWide(_ value: UInt32) -> Bool {
        switch value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }

    /// `text` cut to at most `width` cells on a grapheme boundary, with "…" when cut.
    public static func truncate(_ text: String, to width: Int) -> String {
        guard of(text) > width else { return text }
        guard width > 0 else { return "" }
        var result = ""
        var used = 0
        for character in text {
            let w = of(character)
            if used + w > width - 1 { break }
            result.append(character)
            used += w
        }
        return result + "…"
    }

    /// `text` wrapped into lines of at most `width` cells, at spaces where possible.
    public static func wrap(_ text: String, to width: Int) -> [String] {
        guard width > 0 else { return [text] }
        var lines: [String] = []
        var line = ""
        var used = 0
        for word in text.split(separator: " ", omittingEmptySubsequences: false) {
            let wordWidth = of(String(word))
            if used > 0 && used + 1 + wordWidth <= width {
                line += " " + word
                used += 1 + wordWidth
                continue
            }
            if used > 0 { lines.append(line); line = ""; used = 0 }
            for character in word {
                let w = of(character)
                if used + w > width && used > 0 { lines.append(line); line = ""; used = 0 }
                line.append(character)
                used += w
            }
        }
        lines.append(line)
        return lines
    }
}
