import Foundation
import Testing
@testable import SortKit

@Suite("Type inference and text parsing")
struct TextTests {
    @Test("Column types", arguments: [
        (["10", "2", "", "9"], ColumnType.integer),
        (["1.5", "2", " "], .float),
        (["2024-01-02", "2023-12-31T10:00:00Z"], .date),
        (["true", "FALSE"], .bool),
        (["10", "n/a"], .string),
        (["", " "], .string),
        (["0x10"], .string),
        (["nan", "1"], .string),
        (["-3", "+4"], .integer),
    ])
    func inference(values: [String], expected: ColumnType) {
        #expect(ColumnType.infer(values) == expected)
    }

    @Test("Lenient numbers", arguments: [
        ("$1,234.56", SortValue.double(1234.56)), ("75%", .integer(75)), ("(12)", .integer(-12)),
        ("−3.5 €", .double(-3.5)), ("-$5", .integer(-5)), ("1_000", .integer(1000)), ("1e3", .double(1000)),
        ("  42 ", .integer(42)), ("€ 1.234", .double(1.234)), ("9007199254740993", .integer(9_007_199_254_740_993)),
    ])
    func lenientNumbers(text: String, expected: SortValue) {
        #expect(LenientNumber.parse(text) == expected)
    }

    @Test("Not numbers", arguments: ["n/a", "", "1,,2", ",5", "1.2.3", "inf", "nan", "0x1p3", "12abc", "$"])
    func notNumbers(text: String) {
        #expect(LenientNumber.parse(text) == nil)
    }

    @Test("ISO 8601 dates and date-times")
    func dates() {
        #expect(ISODate.parse("1970-01-02") == Date(timeIntervalSince1970: 86_400))
        #expect(ISODate.parse("2024-03-05T10:20:30.5+02:00") == ISODate.parse("2024-03-05T08:20:30.5Z"))
        #expect(ISODate.parse("2024-03-05 08:20") == ISODate.parse("2024-03-05T08:20:00Z"))
        #expect(ISODate.parse("2024-02-29") != nil)
        #expect(ISODate.parse("1900-01-01")! < ISODate.parse("1970-01-01")!)
        for bad in ["2023-02-29", "2024-13-01", "2024-1-1", "2024-01-01T25:00", "2024-01-01X", "yesterday", "2024-01-01T10:00+2"] {
            #expect(ISODate.parse(bad) == nil, "\(bad)")
        }
    }

    @Test("ISO 8601 formatting matches Foundation's style on random instants (seeded)")
    func formatting() {
        var random = SeededRandom.fromEnvironment(default: 1_970)
        let style = Date.ISO8601FormatStyle()
        // 1583 on: before it Foundation uses the Julian calendar (and so does `format`).
        let fixed: [Double] = [0, -1, -0.5, 86_400.75, 951_782_400, 4_107_542_399, -12_212_553_600, 253_402_300_799]
        let instants = fixed + (0..<2_000).map { _ in Double.random(in: -12_212_553_600...253_402_300_799, using: &random) }
        for time in instants {
            let date = Date(timeIntervalSince1970: time)
            #expect(ISODate.format(date) == style.format(date), "\(time), \(random.replay)")
            #expect(ISODate.parse(ISODate.format(date)) == Date(timeIntervalSince1970: time.rounded(.down)), "\(time)")
        }
        #expect(ISODate.format(Date(timeIntervalSince1970: -62_135_596_800)) == style.format(Date(timeIntervalSince1970: -62_135_596_800)))
    }
}

@Suite("CSV")
struct CSVTests {
    @Test("Quoted fields with delimiters, quotes and newlines; CRLF; BOM; no final newline")
    func parsing() throws {
        let text = "\u{FEFF}name,note\r\n\"Lovelace, Ada\",\"says \"\"hi\"\"\nand leaves\"\r\n\nBabbage,"
        let rows = try CSV.parse(Array(text.utf8))
        #expect(rows == [["name", "note"], ["Lovelace, Ada", "says \"hi\"\nand leaves"], ["Babbage", ""]])
    }

    @Test("Errors name the line", arguments: [
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
        let pieces = ["a", ",", "\"", "\n", "\r\n", " ", "é", ";", "x\"y"]
        for _ in 0..<300 {
            let width = Int.random(in: 1...4, using: &random)
            let rows = (0..<Int.random(in: 1...6, using: &random)).map { _ in
                (0..<width).map { _ in (0..<Int.random(in: 1...4, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined() }
            }
            for delimiter in [",", ";", "\t"] {
                let text = CSV.format(rows, delimiter: Character(delimiter))
                #expect(try CSV.parse(Array(text.utf8), delimiter: delimiter.utf8.first!) == rows, "\(random.replay)")
            }
        }
    }
}

@Suite("Text tables sorted by a spec")
struct TextTableTests {
    let books = try! TextTable(csv: Array("""
        title,author,status,price,due,size
        emma,Jane Austen,todo,"$1,234.56",2024-05-01,10
        Dune,Frank Herbert,done,$9.99,,2
        Anna Karenina,Leo Tolstoy,reading,$12,2024-01-15,9
        Zorba,Nikos Kazantzakis,abandoned,,2024-03-01,
        Persuasion,Jane Austen,done,$75,,100

        """.utf8))

    func titles(_ spec: String) throws -> [String] {
        try books.sorted(by: SortSpec(parsing: spec)).rows.map { $0[0] }
    }

    @Test("\"10\", \"2\", \"9\" sort as numbers")
    func numbersNotText() throws {
        #expect(try titles("size") == ["Dune", "Anna Karenina", "emma", "Persuasion", "Zorba"])
        #expect(try titles("size:text:binary") == ["emma", "Persuasion", "Dune", "Anna Karenina", "Zorba"])
        #expect(try titles("size:text") == ["Dune", "Anna Karenina", "emma", "Persuasion", "Zorba"], "natural text orders digit runs by value")
    }

    @Test("$1,234.56 sorts as 1234.56 with num")
    func currency() throws {
        #expect(try titles("-price:num") == ["emma", "Persuasion", "Anna Karenina", "Dune", "Zorba"])
    }

    @Test("Enum order, unknown values after, descending reverses")
    func enumOrder() throws {
        #expect(try titles("status:enum=todo|reading|done") == ["emma", "Anna Karenina", "Dune", "Persuasion", "Zorba"])
        #expect(try titles("status:enum=Todo|READING|done,-title") == ["emma", "Anna Karenina", "Persuasion", "Dune", "Zorba"])
    }

    @Test("Nulls-last due dates, both directions; nulls-first on request")
    func dueDates() throws {
        #expect(try titles("due") == ["Anna Karenina", "Zorba", "emma", "Dune", "Persuasion"])
        #expect(try titles("-due") == ["emma", "Zorba", "Anna Karenina", "Dune", "Persuasion"])
        #expect(try titles("due:nulls-first") == ["Dune", "Persuasion", "Anna Karenina", "Zorba", "emma"])
    }

    @Test("Case-insensitive titles vs binary")
    func titlesCase() throws {
        #expect(try titles("title:nocase") == ["Anna Karenina", "Dune", "emma", "Persuasion", "Zorba"])
        #expect(try titles("title:binary") == ["Anna Karenina", "Dune", "Persuasion", "Zorba", "emma"])
    }

    @Test("Unknown column lists the known ones; names match ignoring case")
    func unknownColumn() throws {
        #expect(throws: SortSpecError.unknownColumn("pages", known: books.columns)) { try titles("pages") }
        #expect(try titles("TITLE:binary").first == "Anna Karenina")
    }

    @Test("Column types are inferred per column")
    func types() {
        #expect(books.columnTypes() == [.string, .string, .string, .string, .date, .integer])
    }
}
