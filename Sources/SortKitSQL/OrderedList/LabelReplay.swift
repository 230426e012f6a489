import OrderKeys

/// Runs OrderKeys' synchronous `LabelPlanner` against a database that can only be read
/// asynchronously (PostgreSQL through PostgresNIO).
///
/// The planner reads through a ``LabelReader`` backed by answers fetched so far; a read with
/// no answer yet stops the plan, the answer is fetched, and the plan runs again from the
/// start. Planning is pure until its last step (the random label in a gap is drawn after every
/// read), so the replays see the same answers and the final plan is the one a synchronous
/// reader would give. A move usually needs 2–3 reads; a relabel adds one per density level.
/// Written here because the planner is ours and no library bridges it.
struct _LabelReplay {
    enum Query: Hashable {
        case label(Int64)
        case after(UInt64)
        case before(UInt64)
        case first
        case last
        case count(ClosedRange<UInt64>)
        case items(ClosedRange<UInt64>)
    }

    enum Answer {
        case label(UInt64?)
        case count(Int)
        case items([(id: Int64, label: UInt64)])
    }

    /// The reader the planner sees; throws ``Missing`` for an unanswered query.
    struct Reader: LabelReader {
        var answers: [Query: Answer] = [:]

        struct Missing: Error {
            let query: Query
        }

        private func label(_ query: Query) throws -> UInt64? {
            guard case .label(let label)? = answers[query] else { throw Missing(query: query) }
            return label
        }

        func label(of id: Int64) throws -> UInt64? { try label(.label(id)) }
        func label(after label: UInt64) throws -> UInt64? { try self.label(.after(label)) }
        func label(before label: UInt64) throws -> UInt64? { try self.label(.before(label)) }
        func firstLabel() throws -> UInt64? { try label(.first) }
        func lastLabel() throws -> UInt64? { try label(.last) }

        func count(in range: ClosedRange<UInt64>) throws -> Int {
            guard case .count(let count)? = answers[.count(range)] else { throw Missing(query: .count(range)) }
            return count
        }

        func items(in range: ClosedRange<UInt64>) throws -> [(id: Int64, label: UInt64)] {
            guard case .items(let items)? = answers[.items(range)] else { throw Missing(query: .items(range)) }
            return items
        }
    }

    /// Runs `plan` until it has every answer it reads, fetching each with `fetch`; `known`
    /// answers (read by the caller already) save their round trips.
    static func run<T>(
        known: [Query: Answer] = [:], _ plan: (Reader) throws -> T, fetch: (Query) async throws -> Answer
    ) async throws -> T {
        var reader = Reader(answers: known)
        while true {
            do {
                return try plan(reader)
            } catch let missing as Reader.Missing {
                reader.answers[missing.query] = try await fetch(missing.query)
            }
        }
    }
}
