import Foundation
import Testing

@testable import SortKit

@Suite("Deadlines")
struct DeadlineTests {
    @Test("A body within its budget returns its value; one over it gives nil and is cancelled")
    func budget() async throws {
        #expect(try await _withDeadline(.seconds(5), { 7 }) == 7)
        let cancelled = _DoneFlag()
        let late: Int? = try await _withDeadline(.milliseconds(50)) {
            do {
                try await Task.sleep(for: .seconds(30))
            } catch {
                cancelled.set()
                throw error
            }
            return 1
        }
        #expect(late == nil)
        #expect(cancelled.isSet, "the late body's task is cancelled")
    }

    @Test("Work that says it finished is awaited when the timer wakes first; work that didn't is not")
    func finishedWork() async throws {
        // The body's work is done at once, but its task returns only later — as a statement that
        // ended on a database thread while the concurrency pool was busy.
        let done = _DoneFlag()
        done.set()
        let awaited: Int? = try await _withDeadline(.milliseconds(20), finished: { done.isSet }) {
            try? await Task.sleep(for: .milliseconds(300))
            return 2
        }
        #expect(awaited == 2)
        let notDone = _DoneFlag()
        let timedOut: Int? = try await _withDeadline(.milliseconds(20), finished: { notDone.isSet }) {
            try? await Task.sleep(for: .milliseconds(300))
            return 3
        }
        #expect(timedOut == nil)
    }
}
