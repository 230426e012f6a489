// swift-tools-version:6.2
import PackageDescription

/// One settings array for every target, as hummingbird's Package.swift does.
let swiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "SortKit",
    // What the code needs: Int128, Synchronization's Mutex and String(validating:as:) arrived
    // with macOS 15 / iOS 18; SendableMetatype with Swift 6.2 (the tools version above).
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "SortKit", targets: ["SortKit"]),
        .library(name: "SortKitFiles", targets: ["SortKitFiles"]),
        .library(name: "OrderKeys", targets: ["OrderKeys"]),
        .library(name: "SortKitSQL", targets: ["SortKitSQL"]),
        .library(name: "SortBy", targets: ["SortBy"]),
        .library(name: "DataTableKit", targets: ["DataTableKit"]),
        .library(name: "DataTableKitSQL", targets: ["DataTableKitSQL"]),
        .executable(name: "sortkit", targets: ["sortkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    ],
    targets: [
        // Helpers several modules share (package access, or public and re-exported by one
        // module): not a product, so modules depend on it instead of on each other.
        .target(name: "SortKitShared", swiftSettings: swiftSettings),
        .target(name: "SortKit", dependencies: ["SortKitShared"], swiftSettings: swiftSettings),
        // Sorting CSV files larger than memory (threads, pread/pwrite, spilled runs): kept out of
        // the core, which needs none of it.
        .target(name: "SortKitFiles", dependencies: ["SortKit"], swiftSettings: swiftSettings),
        .target(name: "OrderKeys", dependencies: ["SortKitShared"], swiftSettings: swiftSettings),
        .target(name: "SortBy", dependencies: ["SortKit", "OrderKeys"], swiftSettings: swiftSettings),
        .target(name: "DataTableKit", dependencies: ["SortKit"], swiftSettings: swiftSettings),
        // `sqlite3_config`, which is variadic: Swift can't call it (see SQLiteTableStore's init).
        .target(name: "CSQLiteSettings", dependencies: [.product(name: "GRDBSQLite", package: "GRDB.swift")]),
        .target(
            name: "SortKitSQL",
            dependencies: [
                "SortKit", "OrderKeys", "CSQLiteSettings", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: swiftSettings
        ),
        // A SQL table as a DataTableKit source: its own module, so that neither DataTableKit nor
        // SortKitSQL depends on the other.
        .target(name: "DataTableKitSQL", dependencies: ["DataTableKit", "SortKitSQL"], swiftSettings: swiftSettings),
        .target(
            name: "SortKitServer",
            dependencies: [
                "SortKit", "SortKitShared", "SortKitSQL", "DataTableKit",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Assets"), .copy("Templates")],
            swiftSettings: swiftSettings
        ),
        .executableTarget(
            name: "sortkit",
            dependencies: [
                "SortKit", "SortKitFiles", "SortKitServer", "SortKitSQL", "DataTableKit",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // Benchmarks: an executable library users never link (`swift run -c release sortkit-bench`).
        .executableTarget(
            name: "sortkit-bench",
            dependencies: [
                "SortKit", "OrderKeys", "SortBy", "DataTableKit", "DataTableKitSQL", "SortKitSQL",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: swiftSettings
        ),
        // A SwiftUI example app over the tested models; a stub that says so where SwiftUI doesn't exist.
        .executableTarget(
            name: "SortKitApp", dependencies: ["SortKit", "SortBy", "DataTableKit", "OrderKeys"], path: "Examples/SortKitApp",
            swiftSettings: swiftSettings),
        // libFuzzer targets (Fuzz/run.sh builds them with --sanitize=fuzzer --sanitize=address and
        // runs each on its corpus in Fuzz/Corpus); a normal build links them as executables that
        // do nothing.
        .executableTarget(name: "fuzz-sortspec", dependencies: ["SortKit"], swiftSettings: swiftSettings),
        .executableTarget(name: "fuzz-fractional", dependencies: ["OrderKeys"], swiftSettings: swiftSettings),
        .executableTarget(name: "fuzz-csv", dependencies: ["SortKit", "SortKitSQL"], swiftSettings: swiftSettings),
        .executableTarget(name: "fuzz-cursor", dependencies: ["SortKitSQL"], swiftSettings: swiftSettings),
        .executableTarget(name: "fuzz-form", dependencies: ["SortKitServer"], swiftSettings: swiftSettings),
        .executableTarget(name: "fuzz-escape", dependencies: ["DataTableKit"], swiftSettings: swiftSettings),
        .executableTarget(name: "fuzz-filesort", dependencies: ["SortKit", "SortKitFiles"], swiftSettings: swiftSettings),
        // Helpers several test targets share (heavy work off the concurrency pool, a thread
        // recorder, the stores' test budget); not a product.
        .target(name: "SortKitTestSupport", path: "Tests/TestSupport", swiftSettings: swiftSettings),
        .testTarget(name: "SortKitTests", dependencies: ["SortKit", "OrderKeys", "SortKitTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SortKitFilesTests", dependencies: ["SortKitFiles", "SortKit", "OrderKeys"], swiftSettings: swiftSettings),
        .testTarget(
            name: "OrderKeysTests", dependencies: ["OrderKeys"], resources: [.copy("Vectors")], swiftSettings: swiftSettings),
        .testTarget(
            name: "SortKitSQLTests",
            dependencies: [
                "SortKitSQL", "DataTableKitSQL", "OrderKeys", "SortKitTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"), .product(name: "PostgresNIO", package: "postgres-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(name: "DataTableKitTests", dependencies: ["DataTableKit", "OrderKeys", "SortKitTestSupport"], swiftSettings: swiftSettings),
        .testTarget(name: "SortByTests", dependencies: ["SortBy", "OrderKeys"], swiftSettings: swiftSettings),
        .testTarget(
            name: "SortKitServerTests",
            dependencies: [
                "SortKitServer", "SortKitSQL", "OrderKeys", "SortKitTestSupport", .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
            ],
            swiftSettings: swiftSettings
        ),
        // The DocC articles' code, compiled and run; each article's code blocks are checked
        // against the snippets these tests mark.
        .testTarget(
            name: "DocsTests", dependencies: ["SortKit", "SortBy", "DataTableKit", "OrderKeys", "SortKitSQL"],
            swiftSettings: swiftSettings),
        .testTarget(name: "sortkitTests", dependencies: ["sortkit", "SortKitSQL", "OrderKeys", "SortKitTestSupport"], swiftSettings: swiftSettings),
    ]
)
