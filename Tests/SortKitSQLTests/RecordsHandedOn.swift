@testable import SortKitSQL

extension _RecordsInOrder {
    /// The records as a download hands them on, `batchRows` a batch, through a stream slot of
    /// its own (``_StreamSlots/streamRecords(_:batchRows:within:read:)``).
    func handedOn(batchRows: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        let records = self
        _ = try await _StreamSlots(maximum: 1).streamRecords({ _, csv, _ in bytes += csv ?? [] }, batchRows: batchRows, within: .seconds(60)) {
            records
        }
        return bytes
    }
}
