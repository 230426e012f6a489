import SortKit

/// A ``SortBySearcher`` over a ``SortByIndex``: the selected preset's id names the replica,
/// and a search returns a page without sorting.
///
///     let searcher = SortByIndexSearcher(index: index, pageSize: 20)
///     searcher.onResults = { page in show(page.rows, page.matches) }
///     let connector = SortByConnector(interactor: interactor, searcher: searcher)
///     connector.connect()        // the selected preset's first page, at once
///     searcher.query = "dune"; searcher.search()
public final class SortByIndexSearcher<Row>: SortBySearcher {
    /// A page of results.
    public struct Page {
        /// The rows, in the preset's order.
        public var rows: [Row]
        /// Their ids.
        public var ids: [Int]
        /// Rows matching the query.
        public var matches: Int
    }

    /// The index; change rows through it (`searcher.index.update(…)`) and search again.
    public var index: SortByIndex<Row>
    /// Rows per page.
    public var pageSize: Int
    /// The search text.
    public var query = ""
    /// The page, 0 for the first.
    public var page = 0
    /// The preset whose replica orders the results (`nil`: the first preset by name).
    public var preset: SortPreset?
    /// The last results.
    public private(set) var results = Page(rows: [], ids: [], matches: 0)
    /// Called with every search's results.
    public var onResults: ((Page) -> Void)?

    /// A searcher over `index`.
    public init(index: SortByIndex<Row>, pageSize: Int = 50) {
        self.index = index
        self.pageSize = max(1, pageSize)
    }

    /// Runs the search: the page of the preset's order that matches the query.
    public func search() {
        guard let name = preset?.id ?? index.presetNames.first, index.presetNames.contains(name) else {
            results = Page(rows: [], ids: [], matches: 0)
            onResults?(results)
            return
        }
        let parsed = SearchQuery(query)
        let ids = index.ids(preset: name, matching: parsed, offset: page * pageSize, limit: pageSize)
        results = Page(rows: ids.map { index[$0]! }, ids: ids, matches: index.count(matching: parsed))
        onResults?(results)
    }
}
