import Testing

@testable import SortKitSQL

extension _RecordsInOrder {
    /// The records as a download hands them on, `batchRows` a batch, through a stream slot of
    /// its own (``_StreamSlots/streamRecords(_:batchRows:within:read:)``); each batch is
    /// expected to hold at most `batchRows` rows.
    func handedOn(batchRows: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = [], largest = 0
        let records = self
        _ = try await _StreamSlots(maximum: 1).streamRecords(
            { _, csv, count in
                bytes += csv ?? []
                largest = max(largest, count)
            }, batchRows: batchRows, within: .seconds(60)
        ) {
            records
        }
        #expect(largest <= batchRows, "a batch of \(largest) rows, asked for \(batchRows)")
        return bytes
    }
}
