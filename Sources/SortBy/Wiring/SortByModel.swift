import Observation

/// An `@Observable` "Sort by" controller for SwiftUI-style binding: connect it like any
/// ``SelectableSegmentController`` and bind a picker to ``items`` and ``selected``.
///
///     let model = SortByModel()
///     connector.connect(controller: model)
///     // SwiftUI: Picker("Sort by", selection: Binding(get: { model.selected }, set: { model.select($0) })) { … }
@MainActor
@Observable
public final class SortByModel: SelectableSegmentController {
    /// The presets as (id, label), in order.
    public private(set) var items: [(id: SortPreset.ID, label: String)] = []
    /// The selected preset's id.
    public private(set) var selected: SortPreset.ID?
    /// Set by the connector.
    @ObservationIgnored public var onClick: ((SortPreset.ID) -> Void)?

    /// An empty model.
    public init() {}

    public func setItems(_ items: [(id: SortPreset.ID, label: String)]) { self.items = items }
    public func setSelected(_ id: SortPreset.ID?) { selected = id }

    /// The user picked `id`: asks the connected interactor to select it.
    public func select(_ id: SortPreset.ID?) {
        if let id { onClick?(id) }
    }
}
