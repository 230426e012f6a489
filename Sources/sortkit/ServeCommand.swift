import ArgumentParser
import DataTableKit
import Foundation
import Logging
import Metrics
import PostgresNIO
import Prometheus
import SortKit
import SortKitSQL
import SortKitServer

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve the web app, the JSON API and the DataTables endpoint.",
        discussion: """
            With no FILE, serves the built-in demo library of books (table 'books'). Each CSV file
            adds a table named after its stem (people.csv → people), imported once into the
            database with inferred column types; later runs serve the stored table, edits included.
            Stop with Ctrl-C (the server finishes its requests first).

            Examples:
              sortkit serve people.csv --port 8081
              sortkit serve books.csv --preset 'Cheapest=price,title' --preset 'Newest=-published'
              sortkit serve --postgres postgres://app:secret@127.0.0.1:5432/app
              sortkit serve --postgres postgres://app:secret@db1/app --read-replica postgres://app:secret@db2/app
              sortkit serve --fixed 'books=status:enum=todo|reading|done' --pin books=3 --cycle 'books:price=desc,asc'
              sortkit serve people.csv --sorts-by 'people:name=last,first' --max-sort-keys 3
              SORTKIT_TOKEN=$(openssl rand -hex 16) sortkit serve --host 0.0.0.0 --allow-host sortkit.example.org

            On 127.0.0.1 (the default) only the Host names 127.0.0.1, localhost and [::1] are
            served. On any other address every write needs the token (--token or the
            SORTKIT_TOKEN environment variable), sent as "Authorization: Bearer TOKEN" or, in a
            browser, by opening any page once with ?token=TOKEN; without a token the server
            refuses to start there, and only the Host names --allow-host lists are served.
            """
    )

    @Argument(help: ArgumentHelp("CSV files to serve as tables.", valueName: "FILE.csv"))
    var files: [String] = []

    @Option(help: ArgumentHelp("The SQLite database file (created if missing).", valueName: "PATH"))
    var db: String = "sortkit.sqlite"

    @Option(
        help: ArgumentHelp(
            "Use PostgreSQL at this URL (postgres://user:password@host:port/database?sslmode=disable) instead of SQLite.",
            valueName: "URL"))
    var postgres: String?

    @Option(
        name: .customLong("read-replica"),
        help: ArgumentHelp(
            "A streaming standby of the --postgres database to read from (repeatable); writes go to --postgres, and the server's own writes stay visible to its reads.",
            valueName: "URL"))
    var readReplicas: [String] = []

    @Option(
        name: .customLong("preset"),
        help: ArgumentHelp(
            "A \"Sort by\" preset for the CSV tables, indexed in the database (repeatable); added to tables stored earlier too.",
            valueName: "NAME=SPEC"))
    var presetOptions: [String] = []

    @Option(
        name: .customLong("fixed"),
        help: ArgumentHelp(
            "Keys a table always sorts by first, before the picked ones (repeatable, one per table).", valueName: "TABLE=SPEC"))
    var fixedOptions: [String] = []

    @Option(
        name: .customLong("fixed-after"),
        help: ArgumentHelp(
            "Keys a table sorts by after the picked ones: the final tie-breakers.", valueName: "TABLE=SPEC"))
    var fixedAfterOptions: [String] = []

    @Option(
        name: .customLong("sorts-by"),
        help: ArgumentHelp(
            "A column that sorts by other keys when picked (a Name column by last, then first name).", valueName: "TABLE:COLUMN=SPEC"))
    var sortsByOptions: [String] = []

    @Option(
        name: .customLong("pin"),
        help: ArgumentHelp(
            "Rows pinned to the top of a table under every sort and every search they match.", valueName: "TABLE=ID[,ID…]"))
    var pinOptions: [String] = []

    @Option(
        name: .customLong("cycle"),
        help: ArgumentHelp(
            "The directions a column's header cycles through: asc,desc (default), desc,asc, asc, desc; add ,none for unsorted.",
            valueName: "TABLE:COLUMN=CYCLE"))
    var cycleOptions: [String] = []

    @Option(help: ArgumentHelp("The most keys a shift-click sort keeps; the oldest added key drops.", valueName: "N"))
    var maxSortKeys: Int?

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "The port to listen on.")
    var port: Int = 8080

    @Option(
        help: ArgumentHelp(
            "After SIGTERM or SIGINT, how long requests in flight may run before they are cancelled (an unfinished import or write rolls back); then the server exits 0.",
            valueName: "SECONDS"))
    var gracePeriod: Double = 10

    /// How log lines are written to standard error.
    enum LogFormat: String, ExpressibleByArgument, CaseIterable {
        case text, json
    }

    @Option(
        help: ArgumentHelp(
            "Log lines on standard error: text, or json (one object per line: time, level, message, request_id, method, route, status, duration_ms, table).",
            valueName: "FORMAT"))
    var logFormat: LogFormat = .text

    /// The least level logged (swift-log's levels, by name).
    enum LogLevel: String, ExpressibleByArgument, CaseIterable {
        case trace, debug, info, notice, warning, error, critical
        var level: Logger.Level { Logger.Level(rawValue: rawValue)! }
    }

    @Option(
        help: ArgumentHelp(
            "The least level logged: trace, debug, info (a line per request), notice (no request lines), warning, error or critical.",
            valueName: "LEVEL"))
    var logLevel: LogLevel = .info

    @Flag(help: "No GET /metrics (it answers 404) and no counting of requests, imports and refusals.")
    var noMetrics = false

    @Option(
        name: .customLong("allow-host"),
        help: ArgumentHelp(
            "A Host name clients reach the server by (repeatable); other Hosts get 421. Needed beyond 127.0.0.1 (the bound address counts when it is a specific one); on 127.0.0.1 it adds to the loopback names.",
            valueName: "NAME"))
    var allowHosts: [String] = []

    @Option(
        help: ArgumentHelp(
            "The bearer token writes need; required beyond 127.0.0.1. Prefer the SORTKIT_TOKEN environment variable (options show in ps).",
            valueName: "TOKEN"))
    var token: String?

    @Flag(help: "Reads need the token too.")
    var protectReads = false

    @Option(
        help: ArgumentHelp(
            "The longest a page's query (SQL, or a search of the in-memory index) may run, in seconds, before it answers 503.", valueName: "SECONDS"))
    var queryTimeout: Double = 5

    @Option(
        help: ArgumentHelp(
            "Memory the kept sort orders (rankings, 8 bytes a row each) of all tables may take; the least recently used go beyond it.",
            valueName: "SIZE"))
    var rankingMemory: String = "1G"

    @Option(help: ArgumentHelp("Memory the kept sort orders of one table may take.", valueName: "SIZE"))
    var tableRankingMemory: String = "256M"

    @Option(
        help: ArgumentHelp(
            "Memory all tables' in-memory indexes may take (their estimated size); a table whose index doesn't fit is served from the database's own indexes (a B-tree per column and direction, a trigram search index). No limit by default.",
            valueName: "SIZE"))
    var indexMemory: String?

    @Option(
        help: ArgumentHelp(
            "Sort text in this language's order (the Unicode Collation Algorithm with CLDR's data) where a key names no collation: sv, uk, de-u-co-phonebk, und (the root order).",
            valueName: "TAG"))
    var locale: String?

    /// The collation from `--locale`.
    var defaultCollation: Collation? {
        get throws {
            guard let locale else { return nil }
            do {
                return .locale(try LocaleCollation(locale))
            } catch let error as LocaleCollationError {
                throw ValidationError("--locale: \(error.reason) (for example sv, uk, de-u-co-phonebk or und)")
            }
        }
    }

    /// The in-memory indexes' limits from `--ranking-memory`, `--table-ranking-memory` and
    /// `--index-memory` (with `--locale`'s collation for the database's indexes).
    var indexLimits: IndexLimits {
        get throws {
            IndexLimits(
                rankingBytesPerTable: try ByteSize.parse(tableRankingMemory, option: "--table-ranking-memory"),
                rankingBytes: try ByteSize.parse(rankingMemory, option: "--ranking-memory"),
                indexBytes: try indexMemory.map { try ByteSize.parse($0, option: "--index-memory") },
                databaseCollation: try defaultCollation ?? .natural)
        }
    }

    /// The token from `--token` or `SORTKIT_TOKEN`.
    var effectiveToken: String? {
        (token ?? ProcessInfo.processInfo.environment["SORTKIT_TOKEN"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The access policy for `--host`, `--allow-host` and the token.
    var access: AccessPolicy {
        let named = Set(allowHosts.map { AccessPolicy.hostName(of: $0) })
        if AccessPolicy.isLoopback(host) {
            return AccessPolicy(allowedHosts: AccessPolicy.loopbackHosts(boundTo: host).union(named), token: effectiveToken, protectReads: protectReads)
        }
        return AccessPolicy.network(token: effectiveToken ?? "", protectReads: protectReads, hosts: named.union(boundHostName.map { [$0] } ?? []))
    }

    /// The bound address as a Host name, when it is a specific one (not 0.0.0.0 or ::).
    var boundHostName: String? {
        ["0.0.0.0", "::", "[::]", ""].contains(host) ? nil : AccessPolicy.loopbackHosts(boundTo: host).subtracting(AccessPolicy.loopbackHosts).first
    }

    /// The `--preset NAME=SPEC` options, parsed.
    var presets: [String: SortSpec] {
        get throws {
            var presets: [String: SortSpec] = [:]
            for option in presetOptions {
                guard let equals = option.firstIndex(of: "="), equals != option.startIndex else {
                    throw ValidationError("--preset needs NAME=SPEC (e.g. 'Cheapest=price,title'), got '\(option)'")
                }
                let name = String(option[..<equals])
                do {
                    presets[name] = try SortSpec(parsing: String(option[option.index(after: equals)...]))
                } catch {
                    throw ValidationError("--preset \(name): \(error)")
                }
            }
            return presets
        }
    }

    /// The sort settings per table from `--fixed`, `--fixed-after`, `--sorts-by`, `--pin`,
    /// `--cycle` and `--max-sort-keys`.
    var sortSettings: [String: TableSortSettings] {
        get throws {
            var settings: [String: TableSortSettings] = [:]
            func split(_ option: String, _ flag: String, example: String) throws -> (String, String) {
                guard let equals = option.firstIndex(of: "="), equals != option.startIndex else {
                    throw ValidationError("\(flag) needs \(example), got '\(option)'")
                }
                return (String(option[..<equals]), String(option[option.index(after: equals)...]))
            }
            func column(_ target: String, _ flag: String, example: String) throws -> (table: String, column: String) {
                guard let colon = target.firstIndex(of: ":"), colon != target.startIndex, target.index(after: colon) != target.endIndex else {
                    throw ValidationError("\(flag) needs \(example), got '\(target)'")
                }
                return (String(target[..<colon]), String(target[target.index(after: colon)...]))
            }
            func spec(_ text: String, _ flag: String) throws -> SortSpec {
                do { return try SortSpec(parsing: text) } catch { throw ValidationError("\(flag): \(error)") }
            }
            for option in fixedOptions {
                let (table, text) = try split(option, "--fixed", example: "TABLE=SPEC (e.g. 'books=status:enum=todo|done')")
                settings[table, default: TableSortSettings()].rules.before = try spec(text, "--fixed \(table)")
            }
            for option in fixedAfterOptions {
                let (table, text) = try split(option, "--fixed-after", example: "TABLE=SPEC (e.g. 'books=-published')")
                settings[table, default: TableSortSettings()].rules.after = try spec(text, "--fixed-after \(table)")
            }
            for option in sortsByOptions {
                let (target, text) = try split(option, "--sorts-by", example: "TABLE:COLUMN=SPEC (e.g. 'people:name=last,first')")
                let (table, name) = try column(target, "--sorts-by", example: "TABLE:COLUMN=SPEC")
                settings[table, default: TableSortSettings()].rules.sortsBy[name] = try spec(text, "--sorts-by \(target)")
            }
            for option in pinOptions {
                let (table, text) = try split(option, "--pin", example: "TABLE=ID[,ID…] (e.g. 'books=3,7')")
                let ids = try text.split(separator: ",").map { part -> Int64 in
                    guard let id = Int64(part.trimmingCharacters(in: .whitespaces)) else {
                        throw ValidationError("--pin \(table): '\(part.prefix(40))' is not a row id")
                    }
                    return id
                }
                guard ids.count <= PinnedRows.maximum else { throw ValidationError("--pin \(table): at most \(PinnedRows.maximum) rows") }
                let earlier = settings[table]?.pinned.ids ?? []
                settings[table, default: TableSortSettings()].pinned = PinnedRows(earlier + ids)
            }
            for option in cycleOptions {
                let (target, text) = try split(option, "--cycle", example: "TABLE:COLUMN=CYCLE (e.g. 'books:price=desc,asc')")
                let (table, name) = try column(target, "--cycle", example: "TABLE:COLUMN=CYCLE")
                guard let cycle = SortCycle(text) else {
                    throw ValidationError("--cycle \(target): '\(text.prefix(40))' is not a cycle: asc,desc / desc,asc / asc / desc, optionally then ,none")
                }
                settings[table, default: TableSortSettings()].cycles[name] = cycle
            }
            // Other tables take the cap from the server's default settings.
            for table in settings.keys {
                settings[table]?.maxKeys = maxSortKeys
                settings[table]?.collation = try defaultCollation
            }
            return settings
        }
    }

    func validate() throws {
        if let maxSortKeys, maxSortKeys < 1 { throw ValidationError("--max-sort-keys must be 1 or more, got \(maxSortKeys)") }
        _ = try sortSettings
        guard (1...65_535).contains(port) else { throw ValidationError("--port must be between 1 and 65535, got \(port)") }
        _ = try indexLimits
        _ = try defaultCollation
        guard gracePeriod >= 0, gracePeriod <= 3_600 else {
            throw ValidationError("--grace-period must be between 0 and 3600 seconds, got \(gracePeriod)")
        }
        guard queryTimeout > 0, queryTimeout <= 86_400 else {
            throw ValidationError("--query-timeout must be between 0 and 86400 seconds, got \(queryTimeout)")
        }
        if let token = effectiveToken, token.count < 16 {
            throw ValidationError("the token must be at least 16 characters long (try: openssl rand -hex 16)")
        }
        if protectReads && effectiveToken == nil {
            throw ValidationError("--protect-reads needs a token: --token or SORTKIT_TOKEN")
        }
        if !AccessPolicy.isLoopback(host) && effectiveToken == nil {
            throw ValidationError(
                """
                serving on \(host) would let anyone who can reach it change the tables: set a token with --token or \
                SORTKIT_TOKEN (for example SORTKIT_TOKEN=$(openssl rand -hex 16)), or serve on 127.0.0.1
                """)
        }
        if !AccessPolicy.isLoopback(host) && allowHosts.isEmpty && boundHostName == nil {
            throw ValidationError(
                """
                serving on \(host) answers any Host name unless told which: name the ones clients use with --allow-host \
                (for example --allow-host sortkit.example.org --allow-host 192.168.1.5); other Hosts get 421, as a \
                DNS-rebinding site would send
                """)
        }
        for name in allowHosts where name.isEmpty || name.contains(where: { $0 == "/" || $0 == " " || $0 == "@" }) {
            throw ValidationError("--allow-host takes a host name (sortkit.example.org, 192.168.1.5, [::1]), got '\(name.prefix(80))'")
        }
        _ = try presets
        if !presetOptions.isEmpty && files.isEmpty {
            throw ValidationError("--preset applies to imported CSV files; name at least one FILE.csv")
        }
        if !readReplicas.isEmpty && postgres == nil {
            throw ValidationError("--read-replica reads from a standby of a PostgreSQL primary; name the primary with --postgres")
        }
        let urls = (postgres.map { [("--postgres", $0)] } ?? []) + readReplicas.map { ("--read-replica", $0) }
        for (option, url) in urls {
            do {
                _ = try PostgresClient.Configuration(url: url)
            } catch {
                throw ValidationError("\(option): \(error)")
            }
        }
    }

    /// "1,000,000 rows in 1.85 s: 540,000 rows/s"
    static func importRate(rows: Int, in elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        let rate = seconds > 0 ? Int((Double(rows) / seconds / 1_000).rounded()) * 1_000 : 0
        return "\(rows.formatted()) rows in \(String(format: "%.2f", seconds)) s: \(rate.formatted()) rows/s"
    }

    /// `name` as a Prometheus metric or label name: characters other than letters, digits and
    /// `_` become `_` (swift-metrics labels such as `http.route` have dots).
    static func prometheusName(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0)) ? $0 : "_" }))
    }

    /// A line about the server's progress on standard error: plain text, or a JSON log line
    /// (level info) under `--log-format json`, so every line of a JSON log parses.
    func say(_ message: String) {
        switch logFormat {
        case .text: printToStandardError(message)
        case .json: Logger(label: "sortkit").notice("\(message.hasPrefix("sortkit: ") ? String(message.dropFirst(9)) : message)")
        }
    }

    func run() async throws {
        // A server holds big tables for hours: keep freed memory from staying resident.
        _keepResidentMemoryTight()
        let level = logLevel.level
        switch logFormat {
        case .text:
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        case .json:
            LoggingSystem.bootstrap { label in
                var handler = JSONLogHandler.standardError(label: label)
                handler.logLevel = level
                return handler
            }
        }
        do {
            try await serve()
        } catch let error where logFormat == .json && !(error is ExitCode) && !(error is CleanExit) {
            // Under JSON logs every line on standard error parses, the one that says why the
            // server stopped included.
            Logger(label: "sortkit").critical("\(error)")
            // The exit status ArgumentParser gives the error in text mode.
            throw error is ValidationError ? ExitCode.validationFailure : ExitCode.failure
        }
    }

    func serve() async throws {
        // GET /metrics: the server's own metrics, and whatever the libraries it uses report
        // through swift-metrics, in one Prometheus registry.
        let metrics = ServerMetrics(enabled: !noMetrics)
        if !noMetrics {
            var factory = PrometheusMetricsFactory(registry: metrics.registry)
            factory.nameAndLabelSanitizer = { name, labels in
                (Self.prometheusName(name), labels.map { (Self.prometheusName($0.0), $0.1) })
            }
            MetricsSystem.bootstrap(factory)
        }
        let store: any TableStore
        let place: String
        let budget = Duration.milliseconds(Int64(queryTimeout * 1_000))
        if let postgres {
            store = try await PostgresTableStore(
                url: postgres, queryBudget: budget, indexLimits: try indexLimits, readReplicas: readReplicas,
                // With replicas, a lost primary's writes answer 503 while reads go on.
                connectionWait: readReplicas.isEmpty ? nil : .seconds(10))
            place = "PostgreSQL"
        } else {
            // Before the first connection: SQLite's global mutex per allocation, gone (readers
            // side by side contended for it).
            SQLiteTableStore.turnOffMemoryStatistics()
            store = try SQLiteTableStore(path: db, queryBudget: budget, indexLimits: try indexLimits)
            place = db
        }
        // The demo library is what a bare `sortkit serve` shows; a server of one's own CSV files
        // doesn't add a 'books' table to their database (as the help says).
        if files.isEmpty { try await DemoLibrary.install(in: store) }
        if let indexMemory {
            // Stored tables first, in the order they were made; imports below place themselves.
            let placements = try await store.placeIndexes()
            let fromDatabase = placements.filter { $0.value == .database }.keys.sorted()
            say(
                "sortkit: --index-memory \(indexMemory): "
                    + (fromDatabase.isEmpty
                        ? "every stored table fits in memory" : "serving \(fromDatabase.map { "'\($0)'" }.joined(separator: ", ")) from the database's indexes")
            )
        }
        let existing = Set(try await store.tables().map(\.name))
        for file in files {
            let name = URL(fileURLWithPath: file).deletingPathExtension().lastPathComponent
            if existing.contains(name) {
                say("sortkit: table '\(name)' is already in \(place); serving the stored copy")
                // Presets named now that the stored table lacks (or has with another spec) are
                // added to it: one schema change, whole or not at all.
                let schema = try await store.schema(of: name)
                var changes: [SchemaChange] = []
                for (preset, spec) in try presets.sorted(by: { $0.key < $1.key }) where schema.presets[preset] != spec {
                    if schema.presets[preset] != nil { changes.append(.removePreset(preset)) }
                    changes.append(.addPreset(preset, spec))
                }
                if !changes.isEmpty {
                    say("sortkit: updating the presets of table '\(name)'…")
                    do {
                        try await store.alter(name, changes)
                    } catch {
                        throw ValidationError("\(file): \(error)")
                    }
                    say("sortkit: updated the presets of table '\(name)'")
                }
                continue
            }
            let start = ContinuousClock.now
            guard let data = _readWholeFile(atPath: file) else {
                throw ValidationError("cannot read '\(file)'")
            }
            say("sortkit: importing \(file) as table '\(name)' (\(data.count) bytes)…")
            do {
                let schema = try await store.importCSV(consume data, as: name, delimiter: UInt8(ascii: ","), presets: presets)
                let elapsed = ContinuousClock.now - start
                let rows = try await store.page(of: name, PageRequest(limit: 0)).total
                metrics.imported(table: name, rows: rows, duration: elapsed)
                let served = try await store.indexPlacement(of: name) == .database ? "; served from the database's indexes" : ""
                say(
                    "sortkit: imported \(file) as table '\(name)' (\(schema.columns.count) columns, \(Self.importRate(rows: rows, in: elapsed))\(served))")
            } catch {
                throw ValidationError("\(file): \(error)")
            }
        }
        let replicas = readReplicas.isEmpty ? "" : " (reads from \(readReplicas.count) replica\(readReplicas.count == 1 ? "" : "s"))"
        say("sortkit: serving http://\(host):\(port)/ from \(place)\(replicas)")
        let access = access
        if access.token != nil {
            say(
                "sortkit: \(access.protectReads ? "reads and writes" : "writes") need the token: send "
                    + "'Authorization: Bearer TOKEN', or open http://\(host):\(port)/?token=TOKEN once in a browser")
        } else {
            say("sortkit: serving only Host \((access.allowedHosts ?? []).sorted().joined(separator: ", ")); no token is set")
        }
        let settings = try sortSettings
        for (table, setting) in settings.sorted(by: { $0.key < $1.key }) {
            guard let schema = try? await store.schema(of: table) else {
                throw ValidationError(
                    "a sort setting names table '\(table)', which isn't served (tables: \(try await store.tables().map(\.name).sorted().joined(separator: ", ")))"
                )
            }
            do { try setting.validate(against: schema) } catch { throw ValidationError("sort settings of '\(table)': \(error)") }
        }
        try await SortKitServer(
            store: store, access: access, sortSettings: settings,
            defaultSortSettings: TableSortSettings(maxKeys: maxSortKeys, collation: try defaultCollation), metrics: metrics
        ).run(host: host, port: port, logger: Logger(label: "sortkit"), gracePeriod: .milliseconds(Int64(gracePeriod * 1_000)))
        say("sortkit: stopped")
    }
}
