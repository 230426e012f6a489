import Foundation
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitSQL
import SortKitTestSupport
import Testing

@testable import SortKitServer

/// `sortkit serve --locale`: a language's order as the default collation of keys that name
/// none, through the API, the DataTables endpoint, presets and pages; a key's own collation wins.
@Suite("Server locale collation")
struct LocaleServerTests {
    // Swedish: apa vas wasa zebra ål äpple öl Örn; code point folding puts å ä ö under a and o.
    static let csv = """
        name,n
        öl,1
        Örn,2
        apa,3
        ål,4
        zebra,5
        äpple,6
        wasa,7
        vas,8

        """

    static func server(_ settings: TableSortSettings) async throws -> SortKitServer {
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget)
        try await store.importCSV(Array(csv.utf8), as: "words", delimiter: UInt8(ascii: ","), presets: ["ByName": try SortSpec(parsing: "-name")])
        return SortKitServer(store: store, defaultSortSettings: settings)
    }

    @Test("--locale sv orders every route the Swedish way; per-key collations still win")
    func swedish() async throws {
        let server = try await Self.server(TableSortSettings(collation: .locale(try LocaleCollation("sv"))))
        let swedish: [Int64] = [3, 8, 7, 5, 4, 6, 1, 2]
        try await application(server).test(.router) { client in
            #expect(try await client.execute(uri: "/api/tables/words/rows?sort=name", method: .get) { $0.json?.ids } == swedish)
            #expect(try await client.execute(uri: "/api/tables/words/rows?sort=-name", method: .get) { $0.json?.ids } == swedish.reversed())
            #expect(try await client.execute(uri: "/api/tables/words/rows?preset=ByName", method: .get) { $0.json?.ids } == swedish.reversed())
            // nocase: Örn and öl compare as "örn" and "öl".
            #expect(try await client.execute(uri: "/api/tables/words/rows?sort=name:nocase", method: .get) { $0.json?.ids } == [3, 8, 7, 5, 4, 6, 1, 2])
            // A key's own collation: binary is code point order (uppercase Ö before ä? no: U+00D6 < U+00E4).
            #expect(try await client.execute(uri: "/api/tables/words/rows?sort=name:binary", method: .get) { $0.json?.ids } == [3, 8, 7, 5, 2, 6, 4, 1])
            // Another locale per key, in the API: the root order files å, ä under a and ö under o.
            #expect(try await client.execute(uri: "/api/tables/words/rows?sort=name:locale=und", method: .get) { $0.json?.ids } == [4, 3, 6, 1, 2, 8, 7, 5])
            // Keyset cursors page through the locale order.
            var ids: [Int64] = []
            var uri = "/api/tables/words/rows?sort=name&limit=3"
            while ids.count < 20 {
                let json = try await client.execute(uri: uri, method: .get) { $0.json }
                ids += json?.ids ?? []
                guard let next = json?["next"]?.string else { break }
                uri = "/api/tables/words/rows?sort=name&limit=3&after=" + next.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            }
            #expect(ids == swedish)
            // DataTables: column 0 ascending.
            let datatables = try await client.execute(
                uri:
                    "/datatables/words?draw=1&order%5B0%5D%5Bcolumn%5D=0&order%5B0%5D%5Bdir%5D=asc&start=0&length=10&columns%5B0%5D%5Bdata%5D=name&columns%5B1%5D%5Bdata%5D=n",
                method: .get
            ) { $0.json?.ids }
            #expect(datatables == swedish)
            // The CSV download and the page follow the same order.
            let csv = try await client.execute(uri: "/api/tables/words/rows.csv?sort=name", method: .get) { $0.text }
            let lines: [Substring] = csv.split(separator: "\n").dropFirst().map { $0 }
            let names: [String] = lines.map { line in String(line.split(separator: ",")[0]) }
            #expect(names == ["apa", "vas", "wasa", "zebra", "ål", "äpple", "öl", "Örn"])
            let page = try await client.execute(uri: "/tables/words?sort=name", method: .get) { $0.text }
            let positions: [String.Index] = ["apa", "zebra", "ål", "öl"].compactMap { page.range(of: ">\($0)<")?.lowerBound }
            #expect(positions.count == 4)
            #expect(positions == positions.sorted())
        }
    }

    @Test("Odd and hostile locale tags in the URL: a clear 400 naming the tag, escaped in the page; nothing echoed raw")
    func hostileTags() async throws {
        let server = try await Self.server(TableSortSettings())
        try await application(server).test(.router) { client in
            let tags = [
                "", "%3Cscript%3Ealert(1)%3C%2Fscript%3E", "sv-u-kn-true", "de-u-co-pinyin", String(repeating: "a", count: 5_000),
                "e%CC%81n", "sv%00", "sv:binary",
            ]
            for tag in tags {
                let reply = try await client.execute(uri: "/api/tables/words/rows?sort=name:locale=" + tag, method: .get) { $0 }
                #expect(reply.status == .badRequest, "\(tag.prefix(40))")
                #expect(reply.text.contains("locale") || reply.text.contains("binary"), "\(tag.prefix(40))")
                #expect(!reply.text.contains("<script>"))
                let page = try await client.execute(uri: "/tables/words?sort=name:locale=" + tag, method: .get) { $0.text }
                #expect(!page.contains("<script>alert"))
            }
            // A valid tag in any case and with "_" works.
            #expect(try await client.execute(uri: "/api/tables/words/rows?sort=name:locale=SV_se", method: .get) { $0.json?.ids } == [3, 8, 7, 5, 4, 6, 1, 2])
        }
    }

    @Test("withDefaultCollation: keys that name none take it; strengths combine; transforms and binary keep theirs")
    func defaultCollation() throws {
        let swedish = Collation.locale(try LocaleCollation("sv"))
        let spec = try SortSpec(parsing: "title,-price:num,name:nocase,id:binary,t:len,u:locale=uk")
        #expect(spec.withDefaultCollation(swedish).description == "title:locale=sv,-price:num:locale=sv,name:locale=sv:nocase,id:binary,t:len,u:locale=uk")
        #expect(spec.withDefaultCollation(.natural) == spec)
    }
}
