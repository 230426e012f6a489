import Foundation
import Testing

@testable import SortKit

@Suite("Text tables sorted by a spec")
struct TextTableTests {
    let books = try! TextTable(
        csv: Array(
            """
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
