/// A view of the presets: a segmented control, a menu, a web page's select element
/// (InstantSearch's `SelectableSegmentController`).
@MainActor
public protocol SelectableSegmentController: AnyObject {
    /// Shows the presets as (id, label) pairs in order.
    func setItems(_ items: [(id: SortPreset.ID, label: String)])
    /// Marks `id` selected (or nothing).
    func setSelected(_ id: SortPreset.ID?)
    /// Called by the view when the user picks a preset; set by the connector.
    var onClick: ((SortPreset.ID) -> Void)? { get set }
}

/// What a preset selection drives: a search over a data set with a query, a page and an order.
@MainActor
public protocol SortBySearcher: AnyObject {
    /// The search text.
    var query: String { get set }
    /// The page to show, 0 for the first.
    var page: Int { get set }
    /// The preset whose order (replica) the search uses.
    var preset: SortPreset? { get set }
    /// Runs the search with the current query, page and preset.
    func search()
}

/// Turns a preset into the label a view shows. The default is the preset's own label.
public typealias SortByPresenter = @MainActor (SortPreset) -> String

/// Wires an interactor to a searcher and to any number of views, and unwires them.
///
///     let connector = SortByConnector(interactor: interactor, searcher: searcher)
///     connector.connect(controller: picker)   // picker shows the presets and the selection
///     connector.connect()                     // the initial selection reaches the searcher
///     // a click on the picker selects, resets to page 0, and runs the search
///     connector.disconnect()                  // nothing stays connected
///
/// Unlike InstantSearch, selecting from code (`interactor.selected = …`) also switches the
/// searcher and runs the search, the initial selection is applied at `connect()`, and every
/// selection resets paging to the first page.
@MainActor
public final class SortByConnector {
    /// The interactor.
    public let interactor: SortByInteractor
    /// The searcher the selection drives.
    public let searcher: any SortBySearcher
    /// Whether ``connect()`` has wired the searcher.
    public private(set) var isConnected = false

    private var cancellations: [() -> Void] = []

    /// A connector; call ``connect()`` to wire it.
    public init(interactor: SortByInteractor, searcher: any SortBySearcher) {
        self.interactor = interactor
        self.searcher = searcher
    }

    /// Wires the searcher: the current selection is applied now, and every change of the
    /// selection (click or code) sets the searcher's preset, resets it to page 0 and searches.
    public func connect() {
        guard !isConnected else { return }
        isConnected = true
        let interactor = self.interactor
        let searcher = self.searcher
        let apply: (SortPreset.ID?) -> Void = { _ in
            searcher.preset = interactor.selectedPreset
            searcher.page = 0
            searcher.search()
        }
        let changed = interactor.onSelectedChanged.subscribe(apply)
        let computed = interactor.onSelectedComputed.subscribe { interactor.selected = $0 }
        cancellations.append { interactor.onSelectedChanged.cancel(changed) }
        cancellations.append { interactor.onSelectedComputed.cancel(computed) }
        if interactor.selected != nil { apply(interactor.selected) }
    }

    /// Wires a view: it shows the presets (through `presenter`) and the selection now and on
    /// every change, and its clicks ask the interactor to select.
    public func connect(controller: some SelectableSegmentController, presenter: @escaping SortByPresenter = { $0.label }) {
        let interactor = self.interactor
        let showItems: ([SortPreset]) -> Void = { [weak controller] presets in
            controller?.setItems(presets.map { ($0.id, presenter($0)) })
        }
        let items = interactor.onItemsChanged.subscribe(showItems)
        let selection = interactor.onSelectedChanged.subscribe { [weak controller] in controller?.setSelected($0) }
        controller.onClick = { [weak interactor] in interactor?.computeSelected($0) }
        showItems(interactor.presets)
        controller.setSelected(interactor.selected)
        cancellations.append { [weak controller] in
            interactor.onItemsChanged.cancel(items)
            interactor.onSelectedChanged.cancel(selection)
            controller?.onClick = nil
        }
    }

    /// Removes every connection this connector made; the interactor, searcher and views keep
    /// their state but no longer affect each other.
    public func disconnect() {
        for cancel in cancellations { cancel() }
        cancellations = []
        isConnected = false
    }
}
