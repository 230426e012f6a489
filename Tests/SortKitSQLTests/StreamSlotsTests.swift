import Foundation
import SortKit
import Testing

@testable import SortKitSQL

/// The stream slots a store's one-query reads run in (``_StreamSlots``): a read that fails ends
/// the client's loop instead of leaving it waiting, and gives its slot back.
@Suite("Stream slots")
struct StreamSlotsTests {
    struct Failed: Error {}

    @Test("A read that fails ends the stream with its error (no hang) and gives its slot back; a read in row order that fails is not streamed")
    func failedReads() async throws {
        let slots = _StreamSlots(maximum: 1)
        // Within 20 s, or the client's loop waited for batches that never come.
        let failed = try await _withDeadline(.seconds(20)) {
            do {
                _ = try await slots.stream({ _, _, _ in }) { _, _ in throw Failed() }
                return false
            } catch is Failed {
                return true
            }
        }
        #expect(failed == true, "the stream didn't end with the read's error")
        // The slot is back: a read in row order is admitted, fails, and isn't streamed, so the
        // view is read the usual way; a cancelled one ends with the cancellation.
        let notStreamed = try await _withDeadline(.seconds(20)) {
            try await slots.streamRecords({ _, _, _ in }, batchRows: 10, within: .seconds(5)) { throw Failed() }
        }
        #expect(notStreamed.map { $0 == nil } == true)
        await #expect(throws: CancellationError.self) {
            _ = try await slots.streamRecords({ _, _, _ in }, batchRows: 10, within: .seconds(5)) { throw CancellationError() }
        }
        // Records that are read are handed on, in order.
        var handed: [UInt8] = []
        let end = try await slots.streamRecords({ _, csv, _ in handed += csv ?? [] }, batchRows: 1, within: .seconds(5)) {
            var records = try #require(_RecordsInOrder(order: [2, 1]))
            var part = _RecordsInOrder.Part()
            _ = records.record(of: 1, into: &part) { $0 += Array("one".utf8) }
            _ = records.record(of: 2, into: &part) { $0 += Array("two".utf8) }
            _ = records.add(part)
            return records
        }
        #expect(end == .finished && handed == Array("two\none\n".utf8))
    }
}
