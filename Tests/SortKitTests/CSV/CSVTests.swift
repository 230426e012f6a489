import Foundation
import Testing

@testable import SortKit

@Suite("CSV")
struct CSVTests {
    @Test("Quoted fields with delimiters, quotes and newlines; CRLF; BOM; no final newline")
    func parsing() throws {
        let text = "\u{FEFF}name,note\r\n\"Lovelace, Ada\",\"says \"\"hi\"\"\nand leaves\"\r\nBabbage,"
        let rows = try CSV.parse(Array(text.utf8))
        #expect(rows == [["name", "note"], ["Lovelace, Ada", "says \"hi\"\nand leaves"], ["Babbage", ""]])
    }

    @Test("A blank line is a record with one empty field, wherever it is and whatever the line end", arguments: ["\n", "\r\n", "\r"])
    func blankLines(end: String) throws {
        let text = ["name", "Ada", "", "Bob", "", ""].joined(separator: end)
        #expect(try CSV.parse(Array(text.utf8)) == [["name"], ["Ada"], [""], ["Bob"], [""]])
        #expect(try CSV.parse(Array((text + end).utf8)) == [["name"], ["Ada"], [""], ["Bob"], [""], [""]])
        // In a file of several columns, a blank line is an error naming its line, never dropped.
        let wide = ["a,b", "1,2", "", "3,4"].joined(separator: end)
        let error = #expect(throws: CSVError.self) { try CSV.parse(Array(wide.utf8)) }
        #expect(error?.line == 3)
        #expect(error?.problem.hasPrefix("blank line; expected 2 fields") == true)
        let trailing = ["a,b", "1,2", ""].joined(separator: end) + end
        #expect(throws: CSVError.self) { try CSV.parse(Array(trailing.utf8)) }
    }

    @Test("Odd input: empty, a BOM alone, an empty last field, a megabyte field, non-normalized text")
    func oddInput() throws {
        #expect(try CSV.parse([]) == [])
        #expect(try CSV.parse([0xEF, 0xBB, 0xBF]) == [])
        #expect(try CSV.parse(Array("a,b\n1,".utf8)) == [["a", "b"], ["1", ""]])
        #expect(try CSV.parse(Array("a,b\n1,\"\"".utf8)) == [["a", "b"], ["1", ""]])
        let huge = String(repeating: "é,\"", count: 200_000)
        let quoted = "\"" + huge.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        let parsed = try CSV.parse(Array("x\n\(quoted)\n".utf8))
        #expect(parsed.count == 2 && parsed[1] == [huge])
        // Decomposed text stays as written (no normalization on the way in).
        let nfd = "Cafe\u{301}"
        #expect(try CSV.parse(Array("x\n\(nfd)\n".utf8))[1][0].utf8.elementsEqual(nfd.utf8))
    }

    @Test("Scanning only some columns: an empty last field at the end of the input is empty, not the previous record's")
    func wantedColumnsAtEnd() throws {
        for text in ["name,score\na,9\nc,1\nb,", "name,score\r\na,9\r\nc,1\r\nb,", "score,name\n9,a\n1,c\n,b"] {
            let column = text.hasPrefix("name") ? 1 : 0
            var scanner = _CSVRecordScanner(delimiter: UInt8(ascii: ","), wanted: [column])
            var values: [String] = []
            let bytes = Array(text.utf8)
            try bytes.withUnsafeBufferPointer { buffer in
                var index = 0
                while let record = try scanner.next(buffer, at: &index, final: true) { values.append(record.fields[0]) }
            }
            #expect(values == ["score", "9", "1", ""], "\(text.debugDescription)")
        }
    }

    @Test(
        "Errors name the line",
        arguments: [
            ("a,b\n1,2\n3\n", 3, "expected 2 fields"),
            ("a,b\n1,\"2\n\n", 2, "quoted field never closed"),
            ("a,b\n1,x\"y\n", 2, "a quote inside an unquoted field"),
            ("a,b\n\"1\"x,2\n", 2, "unexpected text after a closing quote"),
            ("a,b\n\"multi\nline\",2\n3,4,5\n", 4, "expected 2 fields"),
        ])
    func errors(text: String, line: Int, problem: String) {
        #expect {
            try CSV.parse(Array(text.utf8))
        } throws: { error in
            guard let error = error as? CSVError else { return false }
            return error.line == line && error.problem.hasPrefix(problem)
        }
    }

    @Test("Invalid UTF-8 names its line")
    func invalidUTF8() {
        #expect(throws: CSVError(line: 2, "invalid UTF-8 text")) { try CSV.parse(Array("a\n".utf8) + [0xFF, 0x0A]) }
    }

    @Test("Format and parse round-trip random fields")
    func roundTrip() throws {
        var random = SeededRandom.fromEnvironment(default: 0x5EED_0030)
        // A combining mark after a delimiter or a quote makes one Character of them: still a
        // delimiter or a quote to a reader of bytes.
        let pieces = ["a", ",", "\"", "\n", "\r\n", " ", "é", ";", "x\"y", "\u{301}", "\t\u{301}", "\u{2028}"]
        for _ in 0..<300 {
            let width = Int.random(in: 1...4, using: &random)
            // Empty fields too: a one-column record of an empty field must not read as a blank line.
            let rows = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                (0..<width).map { _ in (0..<Int.random(in: 0...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() }
            }
            for delimiter in [",", ";", "\t"] {
                let text = CSV.format(rows, delimiter: Character(delimiter))
                #expect(try CSV.parse(Array(text.utf8), delimiter: delimiter.utf8.first!) == rows, "\(text.debugDescription), \(random.replay)")
            }
        }
    }
}
