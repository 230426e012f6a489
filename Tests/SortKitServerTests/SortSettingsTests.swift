import Foundation
import Hummingbird
import HummingbirdTesting
import SortKit
import SortKitSQL
import SortKitTestSupport
import Testing

@testable import SortKitServer

/// Fixed keys, columns sorted by others, pinned rows, header cycles, caps and `explain=1`,
/// through the HTTP routes, on a small table whose orders are worked out by hand.
@Suite("Server sort settings")
struct SortSettingsTests {
    static let csv = """
        name,first,last,status,price
        Ann Zed,Ann,Zed,done,5
        Bo Lee,Bo,Lee,todo,12
        Cy Ng,Cy,Ng,todo,3
        Di Lee,Di,Lee,done,12
        Ed Abe,Ed,Abe,todo,

        """

    static func server(_ settings: TableSortSettings) async throws -> (SortKitServer, any TableStore) {
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget)
        try await store.importCSV(Array(csv.utf8), as: "people", delimiter: UInt8(ascii: ","), presets: ["Cheap": try SortSpec(parsing: "price")])
        return (SortKitServer(store: store, sortSettings: ["people": settings]), store)
    }

    @Test("Fixed keys, a column sorted by others and a pinned row shape every spec order and preset, not My order")
    func rules() async throws {
        let settings = TableSortSettings(
            rules: SortRules(
                before: try SortSpec(parsing: "status:enum=todo|done"), after: try SortSpec(parsing: "-price"),
                sortsBy: ["name": try SortSpec(parsing: "last,first")]),
            pinned: PinnedRows([4]))
        let (server, _) = try await Self.server(settings)
        try await application(server).test(.router) { client in
            // todo first (Ed Abe, Bo Lee, Cy Ng by last name), then done (Di Lee pinned first anyway, Ann Zed).
            let byName = try await client.execute(uri: "/api/tables/people/rows?sort=name", method: .get) { $0.json }
            #expect(byName?.ids == [4, 5, 2, 3, 1])
            #expect(byName?["filtered"]?.int == 5)
            let descending = try await client.execute(uri: "/api/tables/people/rows?sort=-name", method: .get) { $0.json?.ids }
            #expect(descending == [4, 3, 2, 5, 1])
            // No pick: the fixed keys alone (todo by -price: Bo 12, Cy 3, Ed blank last), pinned first.
            let none = try await client.execute(uri: "/api/tables/people/rows", method: .get) { $0.json?.ids }
            #expect(none == [4, 2, 3, 5, 1])
            let cheap = try await client.execute(uri: "/api/tables/people/rows?preset=Cheap", method: .get) { $0.json?.ids }
            #expect(cheap == [4, 3, 2, 5, 1])
            // A search the pinned row doesn't match leaves it out.
            let search = try await client.execute(uri: "/api/tables/people/rows?sort=name&q=ann", method: .get) { $0.json }
            #expect(search?.ids == [1] && search?["filtered"]?.int == 1)
            // Cursor pages through the pinned row and the rest.
            var ids: [Int64] = []
            var uri = "/api/tables/people/rows?sort=name&limit=2"
            while true {
                let json = try await client.execute(uri: uri, method: .get) { $0.json }
                ids += json?.ids ?? []
                guard let next = json?["next"]?.string, ids.count < 10 else { break }
                uri = "/api/tables/people/rows?sort=name&limit=2&after=" + next.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            }
            #expect(ids == [4, 5, 2, 3, 1])
            let manual = try await client.execute(uri: "/api/tables/people/rows?sort=manual", method: .get) { $0.json?.ids }
            #expect(manual == [1, 2, 3, 4, 5], "My order is the user's own: no rules, no pins")
            // Column names in any case are the schema's: the rules find them.
            let upper = try await client.execute(uri: "/api/tables/people/rows?sort=-NAME&explain=1", method: .get) { $0.json }
            #expect(upper?.ids == [4, 3, 2, 5, 1])
            guard case .array(let pairs)? = upper?["explain"] else { Issue.record("no explain for an upper-case column"); return }
            #expect(pairs.count == 4)
            let tables = try await client.execute(uri: "/api/tables", method: .get) { $0.text }
            #expect(tables.contains(#""fixed":{"before":"status:enum=todo|done","after":"-price"}"#))
            #expect(tables.contains(#""pinned":[4]"#) && tables.contains(#""sortsBy":"last,first""#))
            let page = try await client.execute(uri: "/tables/people?sort=name", method: .get) { $0.text }
            #expect(page.contains(#"<tr data-id="4" class="pinned" title="Pinned to the top""#))
        }
    }

    @Test("Header links follow each column's cycle and the key cap; DataTables skips non-orderable columns and caps keys")
    func cyclesAndCaps() async throws {
        let settings = TableSortSettings(cycles: ["price": .descendingFirst, "status": SortCycle.ascendingOnly.withUnsorted()], maxKeys: 2)
        let (server, _) = try await Self.server(settings)
        try await application(server).test(.router) { client in
            let page = try await client.execute(uri: "/tables/people?sort=first,last", method: .get) { $0.text }
            #expect(page.contains(#"href="/tables/people?sort=-price""#), "a first click on price sorts descending")
            #expect(page.contains(#"data-add-href="/tables/people?sort=first,-price""#), "a shift-click past the cap drops the oldest added key")
            let status = try await client.execute(uri: "/tables/people?sort=status", method: .get) { $0.text }
            #expect(status.contains(#"<a data-nav href="/tables/people""#), "a second click on an ascending-only column with unsorted unsorts")
            let form =
                "draw=1&columns[0][data]=name&columns[1][data]=first&columns[1][orderable]=false&columns[2][data]=last&columns[4][data]=price"
                + "&columns[3][data]=status&order[0][column]=1&order[0][dir]=asc&order[1][column]=4&order[1][dir]=desc&order[2][column]=2&order[2][dir]=asc&order[3][column]=0&order[3][dir]=asc"
            let json = try await client.execute(uri: "/datatables/people?" + form, method: .get) { $0.json }
            // first isn't orderable; the cap keeps -price,last: Bo Lee/Di Lee (12) by last tie → id, Ann 5, Cy 3, Ed null.
            guard case .array(let rows)? = json?["data"] else { Issue.record("no data"); return }
            #expect(rows.compactMap { $0["name"]?.string } == ["Bo Lee", "Di Lee", "Ann Zed", "Cy Ng", "Ed Abe"])
        }
    }

    @Test("A default cap applies to tables no setting names, and the order keeps the keys the headers show")
    func defaultCap() async throws {
        let store = try SQLiteTableStore(path: temporaryDatabasePath(), queryBudget: testQueryBudget)
        try await store.importCSV(Array(Self.csv.utf8), as: "people", delimiter: UInt8(ascii: ","), presets: [:])
        let server = SortKitServer(store: store, defaultSortSettings: TableSortSettings(maxKeys: 1))
        try await application(server).test(.router) { client in
            let capped = try await client.execute(uri: "/api/tables/people/rows?sort=-price,name", method: .get) { $0.json?.ids }
            let single = try await client.execute(uri: "/api/tables/people/rows?sort=-price", method: .get) { $0.json?.ids }
            #expect(capped == single && capped == [2, 4, 1, 3, 5], "a cap of 1 keeps the first key; ties in id order")
            let page = try await client.execute(uri: "/tables/people?sort=-price,name", method: .get) { $0.text }
            #expect(page.contains("<span class=\"ind\" aria-hidden=\"true\">▼</span>") && !page.contains("▲"), "one indicator, no priority number")
        }
    }

    @Test("explain=1 names the deciding key of each adjacent pair; pinned rows say so; bad values are 400")
    func explain() async throws {
        let (server, _) = try await Self.server(TableSortSettings(pinned: PinnedRows([3])))
        try await application(server).test(.router) { client in
            let json = try await client.execute(uri: "/api/tables/people/rows?sort=-price,name&explain=1", method: .get) { $0.json }
            #expect(json?.ids == [3, 2, 4, 1, 5])
            guard case .array(let pairs)? = json?["explain"] else { Issue.record("no explain"); return }
            #expect(pairs.count == 4)
            #expect(pairs[0]["pinned"]?.int == 3 && pairs[0]["text"]?.string == "row 3 is pinned to the top")
            #expect(pairs[1]["decidingKey"]?.int == 1)
            #expect(pairs[1]["text"]?.string?.hasPrefix("key 1 '-price': 12 ties with 12; key 2 'name': \"Bo Lee\" before \"Di Lee\"") == true)
            #expect(pairs[2]["decidingKey"]?.int == 0)
            guard case .array(let keys)? = pairs[3]["keys"], case .array(let values)? = keys.first?["values"] else { Issue.record("no keys"); return }
            #expect(values.count == 2 && values[1] == .null, "Ed's blank price is null")
            for bad in ["explain=2", "explain=yes", "explain=" + String(repeating: "é", count: 100_000)] {
                let status = try await client.execute(uri: "/api/tables/people/rows?" + bad, method: .get) { $0.status }
                #expect(status == .badRequest, "\(bad)")
            }
            // Repeated, the first value counts (as for every parameter).
            let plain = try await client.execute(uri: "/api/tables/people/rows?explain=0&explain=1", method: .get) { $0.json }
            #expect(plain?["explain"] == nil)
            let manual = try await client.execute(uri: "/api/tables/people/rows?sort=manual&explain=1", method: .get) { $0.json }
            #expect(manual?["explain"]?["note"]?.string?.contains("moves") == true)
        }
    }
}
