import Foundation
import Prometheus
import SortKitSQL
import Synchronization

/// What `GET /metrics` reports, in Prometheus' text exposition format: requests by route,
/// method and status with a latency histogram, requests in flight, each table's in-memory
/// index (rows and ranking bytes), CSV imports (rows and seconds) and requests refused for
/// running over the query budget.
///
/// Each server keeps its own registry (two servers in one process count apart); ``registry``
/// can also back swift-metrics, so other libraries' metrics land in the same exposition:
///
///     let metrics = ServerMetrics()
///     MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: metrics.registry))
///     let server = SortKitServer(store: store, metrics: metrics)
///     metrics.exposition()   // "# TYPE sortkit_http_requests_total counter\n…"
///
/// `ServerMetrics(enabled: false)` counts nothing and the server answers `GET /metrics` with
/// 404 (`sortkit serve --no-metrics`).
public final class ServerMetrics: Sendable {
    /// The collector registry the metrics live in.
    public let registry: PrometheusCollectorRegistry
    /// Whether requests, imports and refusals are counted and `GET /metrics` answers.
    public let isEnabled: Bool
    private let inFlight: Gauge
    private let refusals: Counter
    /// The tables whose index gauges are set, to unregister those that go away.
    private let indexedTables = Mutex<Set<String>>([])
    /// Per route, method and status, its counter and histogram: looked up once, not built from
    /// a descriptor and labels on every request.
    private let requestSeries = Mutex<[RequestLabels: (Counter, DurationHistogram)]>([:])

    private struct RequestLabels: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// Latency buckets from 1 ms (a page from the in-memory index) to 10 s (an import).
    static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2_500), .seconds(10),
    ]

    /// `sortkit_SUBSYSTEM_NAME_UNIT`. Computed, not stored: the descriptor type isn't Sendable.
    private static func descriptor(_ subsystem: String?, _ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(namespace: "sortkit", subsystem: subsystem, metricName: name, unitName: unit, helpText: help)
    }
    private static var requests: MetricNameDescriptor { descriptor("http", "requests", "total", "Requests answered, by route, method and status.") }
    private static var requestDuration: MetricNameDescriptor {
        descriptor("http", "request_duration", "seconds", "Time to answer a request, by route, method and status.")
    }
    private static var requestsInFlight: MetricNameDescriptor { descriptor("http", "requests_in_flight", "", "Requests being answered now.") }
    private static var budgetRefusals: MetricNameDescriptor {
        descriptor(nil, "query_budget_refusals", "total", "Requests answered 503 because their query ran over the query budget.")
    }
    private static var importRows: MetricNameDescriptor { descriptor("import", "rows", "total", "Rows imported from CSV, by table.") }
    private static var indexRows: MetricNameDescriptor { descriptor("index", "rows", "", "Rows in a table's in-memory index.") }
    private static var indexRankingBytes: MetricNameDescriptor {
        descriptor("index", "ranking", "bytes", "Bytes of a table's in-memory rankings (its per-column orders).")
    }
    private static var importDuration: MetricNameDescriptor { descriptor("import", "duration", "seconds", "Time a CSV import took, by table.") }

    /// Metrics in `registry` (a new one by default); none at all when `enabled` is false.
    public init(registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(), enabled: Bool = true) {
        self.registry = registry
        self.isEnabled = enabled
        inFlight = registry.makeGauge(descriptor: Self.requestsInFlight)
        refusals = registry.makeCounter(descriptor: Self.budgetRefusals)
    }

    /// A request started; ``finished(route:method:status:duration:)`` ends it.
    func started() { if isEnabled { inFlight.increment() } }

    /// A request ended with `status` after `duration`; `route` is the matched pattern, or
    /// `unmatched`.
    func finished(route: String?, method: String, status: Int, duration: Duration) {
        guard isEnabled else { return }
        inFlight.decrement()
        let key = RequestLabels(route: route ?? "unmatched", method: method, status: status)
        let (counter, histogram) = requestSeries.withLock { series in
            if let known = series[key] { return known }
            let labels = [("route", key.route), ("method", method), ("status", String(status))]
            let made = (
                registry.makeCounter(descriptor: Self.requests, labels: labels),
                registry.makeDurationHistogram(descriptor: Self.requestDuration, labels: labels, buckets: Self.latencyBuckets)
            )
            series[key] = made
            return made
        }
        counter.increment()
        histogram.record(duration)
    }

    /// A request refused for running over the query budget.
    func refused() { if isEnabled { refusals.increment() } }

    /// A CSV import of `rows` rows into `table` that took `duration`.
    public func imported(table: String, rows: Int, duration: Duration) {
        guard isEnabled else { return }
        registry.makeCounter(descriptor: Self.importRows, labels: [("table", table)]).increment(by: Int64(rows))
        registry.makeDurationHistogram(descriptor: Self.importDuration, labels: [("table", table)], buckets: Self.latencyBuckets).record(duration)
    }

    /// `table` was dropped: its import series go (a table imported again under the name starts
    /// from zero, which Prometheus reads as a counter reset).
    func dropped(table: String) {
        guard isEnabled else { return }
        registry.unregisterCounter(registry.makeCounter(descriptor: Self.importRows, labels: [("table", table)]))
        registry.unregisterDurationHistogram(
            registry.makeDurationHistogram(descriptor: Self.importDuration, labels: [("table", table)], buckets: Self.latencyBuckets))
    }

    /// Each table's in-memory index as it stands: its rows and the bytes of its rankings (the
    /// per-column orders; the folded search text isn't counted).
    /// Tables no longer indexed (dropped, or their index let go) lose their series.
    func indexUsage(_ usage: [String: IndexUsage]) {
        let gone = indexedTables.withLock { tables in
            defer { tables = Set(usage.keys) }
            return tables.subtracting(usage.keys)
        }
        for table in gone {
            registry.unregisterGauge(registry.makeGauge(descriptor: Self.indexRows, labels: [("table", table)]))
            registry.unregisterGauge(registry.makeGauge(descriptor: Self.indexRankingBytes, labels: [("table", table)]))
        }
        for (table, use) in usage {
            registry.makeGauge(descriptor: Self.indexRows, labels: [("table", table)]).set(to: Double(use.rows))
            registry.makeGauge(descriptor: Self.indexRankingBytes, labels: [("table", table)]).set(to: Double(use.rankingBytes))
        }
    }

    /// Every metric in Prometheus' text exposition format (version 0.0.4).
    public func exposition() -> String {
        registry.emitToString()
    }
}
