import Foundation
import SortKit
import SortKitSQL

/// How one table's sort behaves on the server, beyond the spec people pick: fixed keys and
/// columns that sort by others (`SortRules`), rows pinned to the top (`PinnedRows`), the
/// directions each header cycles through and a cap on the number of keys.
///
///     let settings = TableSortSettings(
///         rules: SortRules(before: try SortSpec(parsing: "status:enum=todo|reading|done")),
///         pinned: PinnedRows([7]), cycles: ["price": .descendingFirst], maxKeys: 3)
///     SortKitServer(store: store, sortSettings: ["books": settings])
///
/// The rules and pins apply to every spec order (a `sort=` spec, a preset, a DataTables
/// order), not to "My order", which is the user's own arrangement. The page's headers show
/// what was picked.
public struct TableSortSettings: Sendable, Hashable {
    /// Fixed keys and columns that sort by others.
    public var rules: SortRules
    /// Rows pinned to the top.
    public var pinned: PinnedRows
    /// Per column, the directions a header click cycles through.
    public var cycles: [String: SortCycle]
    /// The most keys a shift-click sort keeps; `nil` for the server's limit only.
    public var maxKeys: Int?
    /// The collation of keys that name none (`sortkit serve --locale sv`); `nil` for
    /// `Collation.natural`. A key's own modifier wins: `title:binary` stays binary, and
    /// `title:nocase` becomes the locale at secondary strength.
    ///
    ///     TableSortSettings(collation: .locale(try LocaleCollation("sv")))
    public var collation: Collation?

    /// Settings; the defaults change nothing.
    public init(
        rules: SortRules = SortRules(), pinned: PinnedRows = PinnedRows([]), cycles: [String: SortCycle] = [:], maxKeys: Int? = nil,
        collation: Collation? = nil
    ) {
        self.rules = rules
        self.pinned = pinned
        self.cycles = cycles
        self.maxKeys = maxKeys
        self.collation = collation
    }

    /// `spec` as these settings sort by it: the default collation, then the rules.
    func applied(to spec: SortSpec) -> SortSpec {
        rules.applied(to: collation.map { spec.withDefaultCollation($0) } ?? spec)
    }

    /// The header state for a picked spec: these cycles and cap.
    func headerState(_ spec: SortSpec) -> HeaderSortState {
        HeaderSortState(spec, cycles: cycles, maxKeys: maxKeys)
    }

    /// Throws for a column `schema` doesn't have, naming the setting.
    public func validate(against schema: TableSchema) throws {
        let known = Set(schema.columns.map(\.name))
        for column in rules.columns + cycles.keys.sorted() where !known.contains(column) {
            throw TableStoreError.unknownColumn(column, table: schema.name, known: schema.columns.map(\.name))
        }
    }
}
