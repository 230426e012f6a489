/// Holds the presets and the selected one — the business logic of a "Sort by" picker,
/// independent of any view or search backend (Algolia InstantSearch's `SortByInteractor`).
///
///     let interactor = SortByInteractor(presets: presets, selected: "default")
///     interactor.onSelectedChanged.subscribe { print("now sorted by", $0 ?? "nothing") }
///     interactor.selected = "year-asc"   // prints "now sorted by year-asc"
///
/// A click in a view doesn't set ``selected`` directly: it calls ``computeSelected(_:)``, which
/// fires ``onSelectedComputed``; the connector then sets ``selected``. Setting ``selected``
/// from code fires ``onSelectedChanged`` the same way, so both paths reach the searcher.
@MainActor
public final class SortByInteractor {
    /// The presets, in picker order.
    public var presets: [SortPreset] {
        didSet {
            onItemsChanged.fire(presets)
            if let selected, !presets.contains(where: { $0.id == selected }) { self.selected = nil }
        }
    }

    /// The selected preset's id.
    public var selected: SortPreset.ID? {
        didSet {
            guard selected != oldValue else { return }
            onSelectedChanged.fire(selected)
        }
    }

    /// Fired when ``presets`` change.
    public let onItemsChanged = Observers<[SortPreset]>()
    /// Fired when ``selected`` changes, from a click or from code.
    public let onSelectedChanged = Observers<SortPreset.ID?>()
    /// Fired when a view asks to select a preset (``computeSelected(_:)``).
    public let onSelectedComputed = Observers<SortPreset.ID>()

    /// An interactor with presets and an initial selection.
    ///
    /// - Precondition: `selected`, if given, is one of the presets' ids.
    public init(presets: [SortPreset], selected: SortPreset.ID? = nil) {
        precondition(selected == nil || presets.contains { $0.id == selected }, "the selected id must name a preset")
        self.presets = presets
        self.selected = selected
    }

    /// The selected preset.
    public var selectedPreset: SortPreset? {
        presets.first { $0.id == selected }
    }

    /// A view's request to select `id`; ignored for an unknown id.
    public func computeSelected(_ id: SortPreset.ID) {
        guard presets.contains(where: { $0.id == id }) else { return }
        onSelectedComputed.fire(id)
    }
}
