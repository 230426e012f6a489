import SortKit

/// A named, pre-sorted view of a data set: what a "Sort by" picker offers.
///
///     let presets = [
///         SortPreset(id: "default", label: "Default", order: .relevance),
///         SortPreset(id: "year-asc", label: "Year ↑", order: .spec(try SortSpec(parsing: "year"))),
///         SortPreset(id: "mine", label: "My order", order: .manual),
///     ]
public struct SortPreset: Sendable, Hashable, Identifiable {
    /// How a preset orders rows.
    public enum Order: Sendable, Hashable {
        /// A sort spec.
        case spec(SortSpec)
        /// The search's relevance score.
        case relevance
        /// The user's manual order (OrderKeys labels).
        case manual
    }

    /// The preset's stable key.
    public var id: String
    /// What the picker shows, unless a presenter says otherwise.
    public var label: String
    /// The order.
    public var order: Order

    /// A preset.
    public init(id: String, label: String, order: Order) {
        self.id = id
        self.label = label
        self.order = order
    }
}
