// A small SwiftUI app over SortKit's models: a table with sortable headers, a "Sort by" menu,
// search, and a "My order" list to drag. Every view is a thin wrapper: the sorting, searching,
// paging and reordering happen in DataTableModel, SortFields, SortKey and OrderedList, which
// the package's tests cover on Linux. SwiftUI exists only on Apple platforms, so elsewhere
// this target builds a stub that says so.
//
//     swift run SortKitApp          # on macOS 15 or later (or the SortKitApp scheme in Xcode)
//
// For iOS, add this file to an app target that depends on the package's libraries.

#if canImport(SwiftUI)
    import DataTableKit
    import OrderKeys
    import SortBy
    import SortKit
    import SwiftUI

    struct ShelfBook: Identifiable, Hashable, Sendable {
        var id: Int
        var title: String
        var author: String
        var price: Double?
    }

    let shelf = [
        ShelfBook(id: 1, title: "Volume 10", author: "Ng", price: 3),
        ShelfBook(id: 2, title: "Dune", author: "Herbert", price: nil),
        ShelfBook(id: 3, title: "Volume 2", author: "ng", price: 12.5),
        ShelfBook(id: 4, title: "Émile", author: "Rousseau", price: 9.99),
        ShelfBook(id: 5, title: "emma", author: "Austen", price: 7),
    ]

    /// The names a spec uses are the table's column headers, so a spec drives both.
    enum ShelfSorting {
        static let fields = SortFields<ShelfBook>()
            .field("Title", \.title)
            .field("Author", \.author)
            .field("Price", \.price)

        static let presets = [
            SortPreset(id: "title", label: "Title", order: .spec(try! SortSpec(parsing: "Title"))),
            SortPreset(id: "cheap", label: "Cheapest", order: .spec(try! SortSpec(parsing: "Price,Title"))),
            SortPreset(id: "author", label: "Author, then dearest", order: .spec(try! SortSpec(parsing: "Author,-Price"))),
        ]

        /// A header's comparator: the key a one-column spec gives, so that it equals the keys the
        /// presets give for the same column.
        static func columnKey(_ name: String) -> SortKey<ShelfBook> {
            try! fields.sortKeys(for: SortSpec([SortSpec.Key(name)]))[0]
        }

        @MainActor static func columns() -> [DataTableColumn<ShelfBook>] {
            [
                DataTableColumn("Title", \.title),
                DataTableColumn("Author", \.author),
                DataTableColumn("Price", \.price) { $0.map { String(format: "%.2f", $0) } ?? "—" },
            ]
        }
    }

    @main
    struct SortKitApp: App {
        var body: some Scene {
            WindowGroup {
                TabView {
                    BooksTable().tabItem { Label("Books", systemImage: "tablecells") }
                    MyOrder().tabItem { Label("My order", systemImage: "line.3.horizontal") }
                }
            }
        }
    }

    /// A `Table` whose headers sort with SortKit keys, a "Sort by" menu and search; the rows come
    /// from a `DataTableModel`.
    struct BooksTable: View {
        @State private var model = DataTableModel(DataTable(rows: shelf, columns: ShelfSorting.columns(), pageSize: 100))
        @State private var sortOrder: [SortKey<ShelfBook>] = []
        @State private var search = ""

        var body: some View {
            Table(model.table.pageRows, sortOrder: $sortOrder) {
                TableColumn("Title", sortUsing: ShelfSorting.columnKey("Title")) { Text($0.title) }
                TableColumn("Author", sortUsing: ShelfSorting.columnKey("Author")) { Text($0.author) }
                TableColumn("Price", sortUsing: ShelfSorting.columnKey("Price")) {
                    Text(model.table.text($0, column: 2))
                }
            }
            .searchable(text: $search)
            .onChange(of: search) { model.setSearch(search) }
            .onChange(of: sortOrder) {
                if let spec = try? ShelfSorting.fields.spec(from: sortOrder) { model.setSort(spec) }
            }
            .toolbar {
                Menu("Sort by") {
                    ForEach(ShelfSorting.presets) { preset in
                        Button(preset.label) {
                            if case .spec(let spec) = preset.order, let keys = try? ShelfSorting.fields.sortKeys(for: spec) {
                                sortOrder = keys
                            }
                        }
                    }
                }
            }
        }
    }

    /// "My order": a list the user drags; `OrderedList` keeps the labels a store would save.
    struct MyOrder: View {
        @State private var order: OrderedList<Int> = {
            var list = OrderedList<Int>()
            for book in shelf { _ = try? list.append(book.id) }
            return list
        }()

        var body: some View {
            List {
                ForEach(order.ids, id: \.self) { id in
                    Text(shelf.first { $0.id == id }?.title ?? "")
                }
                .onMove { offsets, destination in
                    _ = try? order.move(fromOffsets: offsets, toOffset: destination)
                }
            }
        }
    }
#else
    @main
    enum SortKitApp {
        static func main() {
            print("SortKitApp is a SwiftUI app: build it on macOS 15 or iOS 18 (swift run SortKitApp, or Xcode).")
            print("Its models — DataTableModel, SortFields, SortKey, OrderedList — are tested here by `swift test`.")
        }
    }
#endif
