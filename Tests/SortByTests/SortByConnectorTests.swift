import Foundation
import Observation
import SortKit
import Testing

@testable import SortBy

@MainActor
final class TestSearcher: SortBySearcher {
    var query = ""
    var page = 0
    var preset: SortPreset?
    var runs: [(preset: String?, page: Int)] = []
    func search() { runs.append((preset?.id, page)) }
}

@MainActor
final class TestController: SelectableSegmentController {
    var items: [(id: SortPreset.ID, label: String)] = []
    var selected: SortPreset.ID?
    var onClick: ((SortPreset.ID) -> Void)?
    func setItems(_ items: [(id: SortPreset.ID, label: String)]) { self.items = items }
    func setSelected(_ id: SortPreset.ID?) { selected = id }
}

/// Counts the changes an observable model publishes to a view that reads `read`: tracking is
/// registered again after each change, as SwiftUI does when it re-renders.
@MainActor
final class PublishCounter {
    private(set) var count = 0
    private let read: @MainActor () -> Void

    init(_ read: @escaping @MainActor () -> Void) {
        self.read = read
        track()
    }

    private func track() {
        withObservationTracking {
            read()
        } onChange: { [weak self] in
            MainActor.assumeIsolated {
                self?.count += 1
                self?.track()
            }
        }
    }
}

/// A thread-safe flag for observation callbacks.
final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

let presets = [
    SortPreset(id: "default", label: "Default", order: .relevance),
    SortPreset(id: "year-asc", label: "Year", order: .spec(try! SortSpec(parsing: "year"))),
    SortPreset(id: "year-desc", label: "Year", order: .spec(try! SortSpec(parsing: "-year"))),
    SortPreset(id: "mine", label: "My order", order: .manual),
]

@MainActor
@Suite("Sort-by wiring")
struct SortByConnectorTests {
    /// An interactor over `presets` connected to a searcher and one view.
    func wired(selected: SortPreset.ID?) -> (SortByInteractor, TestSearcher, SortByConnector, TestController) {
        let searcher = TestSearcher()
        let interactor = SortByInteractor(presets: presets, selected: selected)
        let connector = SortByConnector(interactor: interactor, searcher: searcher)
        let controller = TestController()
        connector.connect()
        connector.connect(controller: controller)
        return (interactor, searcher, connector, controller)
    }

    @Test("connect() applies the initial selection to the searcher")
    func initialSelection() {
        let searcher = TestSearcher()
        searcher.page = 4
        let connector = SortByConnector(interactor: SortByInteractor(presets: presets, selected: "year-desc"), searcher: searcher)
        connector.connect()
        #expect(searcher.preset?.id == "year-desc")
        #expect(searcher.page == 0)
        #expect(searcher.runs.count == 1)
    }

    @Test("A click selects, resets to the first page and runs the search; the view shows it")
    func click() {
        let (interactor, searcher, _, controller) = wired(selected: "default")
        searcher.page = 7
        controller.onClick?("year-asc")
        #expect(interactor.selected == "year-asc")
        #expect(searcher.preset?.id == "year-asc" && searcher.page == 0)
        #expect(searcher.runs.last! == ("year-asc", 0))
        #expect(controller.selected == "year-asc")
    }

    @Test("Selecting from code also switches the searcher and runs the search")
    func fromCode() {
        let (interactor, searcher, _, controller) = wired(selected: nil)
        #expect(searcher.runs.isEmpty, "no initial selection, no search")
        searcher.page = 2
        interactor.selected = "mine"
        #expect(searcher.preset?.order == .manual && searcher.page == 0 && searcher.runs.count == 1)
        #expect(controller.selected == "mine")
        interactor.selected = "mine"
        #expect(searcher.runs.count == 1, "re-selecting the same preset doesn't search again")
    }

    @Test("The presenter labels the view's items; unknown ids from a view are ignored")
    func presenter() {
        let interactor = SortByInteractor(presets: presets, selected: "default")
        let connector = SortByConnector(interactor: interactor, searcher: TestSearcher())
        let controller = TestController()
        connector.connect(controller: controller) { preset in
            switch preset.order {
            case .spec(let spec): spec.keys[0].direction == .ascending ? "\(preset.label) ↑" : "\(preset.label) ↓"
            default: preset.label
            }
        }
        #expect(controller.items.map(\.label) == ["Default", "Year ↑", "Year ↓", "My order"])
        #expect(controller.selected == "default")
        controller.onClick?("no-such-preset")
        #expect(interactor.selected == "default")
    }

    @Test("Changing presets updates the views; a selection that disappears is cleared")
    func presetsChange() {
        let interactor = SortByInteractor(presets: presets, selected: "mine")
        let connector = SortByConnector(interactor: interactor, searcher: TestSearcher())
        let controller = TestController()
        connector.connect(controller: controller)
        interactor.presets = Array(presets.prefix(2))
        #expect(controller.items.map(\.id) == ["default", "year-asc"])
        #expect(interactor.selected == nil && controller.selected == nil)
    }

    @Test("disconnect() leaves nothing behind")
    func disconnect() {
        let (interactor, searcher, connector, controller) = wired(selected: "default")
        connector.disconnect()
        #expect(controller.onClick == nil)
        #expect(interactor.onSelectedChanged.count == 0 && interactor.onItemsChanged.count == 0 && interactor.onSelectedComputed.count == 0)
        let runs = searcher.runs.count
        interactor.selected = "year-asc"
        #expect(searcher.runs.count == runs && searcher.preset?.id == "default")
        #expect(controller.selected == "default")
        #expect(!connector.isConnected)
    }

    @Test("The observable model publishes items and selection changes")
    func observableModel() {
        let interactor = SortByInteractor(presets: presets, selected: "default")
        let connector = SortByConnector(interactor: interactor, searcher: TestSearcher())
        let model = SortByModel()
        connector.connect()
        connector.connect(controller: model)
        #expect(model.items.count == 4 && model.selected == "default")
        let changed = Flag()
        withObservationTracking {
            _ = model.selected
        } onChange: {
            changed.set()
        }
        model.select("year-desc")
        #expect(changed.isSet)
        #expect(model.selected == "year-desc" && interactor.selected == "year-desc")

        // A view that shows the picker reads both; a preset change publishes once.
        let publishes = PublishCounter { _ = (model.items.count, model.selected) }
        model.select("default")
        #expect(publishes.count == 1)
        model.select("default") // the same preset again: nothing to publish
        #expect(publishes.count == 1)
    }
}
